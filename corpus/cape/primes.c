/* primes.c -- count the primes up to n by trial division. The cost of an iteration grows
 * with i: `schedule(dynamic, 64)` balances the threads, and CAPE deals the iterations
 * cyclically among the nodes. `count` and `sum` are `+` reductions.
 *
 * Usage: primes [n]   (default 1200000)
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = 1200000;
    long i, d;
    long count = 0, sum = 0;

    if (argc > 1) {
        n = atol(argv[1]);
    }
    if (n < 2) {
        fprintf(stderr, "primes: n must be at least 2\n");
        return 1;
    }
#pragma omp parallel for private(d) reduction(+: count, sum) schedule(dynamic, 64)
    for (i = 2; i <= n; i++) {
        int prime = 1;
        for (d = 2; d * d <= i; d++) {
            if (i % d == 0) {
                prime = 0;
                break;
            }
        }
        count += prime;
        sum += prime * i;
    }
    printf("n = %ld\n", n);
    printf("primes = %ld\n", count);
    printf("sum = %ld\n", sum);
    return 0;
}
