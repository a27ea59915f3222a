/* An irregular loop through a call: the cost of is_prime(i) grows with i (trial division
 * up to its square root) and differs from number to number. Parallel wins; a dynamic or
 * guided schedule balances what a static one does not. */
#include <stdio.h>

#define LIMIT 400000

static int is_prime(int n)
{
    if (n < 2)
        return 0;
    for (int d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

int main(void)
{
    long count = 0;
    for (int i = 0; i < LIMIT; i++)
        count += is_prime(i);
    printf("primes below %d: %ld\n", LIMIT, count);
    return 0;
}
