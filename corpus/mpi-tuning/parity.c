/* Prime counting by trial division, through a call: the cost of is_prime(i) grows with i,
 * so ppo's static rule partitions the loop cyclically (CYC). But an even number costs one
 * division and an odd one up to sqrt(i): with an even number of ranks, CYC gives the even
 * numbers to half of the ranks, which then idle. Measured, blocks (or self-scheduling) win.
 * Usage: parity [N]   (default 3000000) */
#include <stdio.h>
#include <stdlib.h>

static int is_prime(long n)
{
    if (n < 2)
        return 0;
    for (long d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 3000000;
    long count = 0;
    for (long i = 0; i < n; i++)
        count += is_prime(i);
    printf("primes below %ld: %ld\n", n, count);
    return 0;
}
