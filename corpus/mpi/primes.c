/* primes.c -- count the primes up to n by trial division.
 *
 * DMCG directives: the loop over the candidates is a DOALL loop with cyclic partitioning
 * (the cost of an iteration grows with i, so cyclic balances better than blocks);
 * `count` and `sum` are self-referencing sums (`+` reductions) that the ranks' partial
 * results combine into.
 * The INIT block (reading n) runs on every rank.
 *
 * Usage: primes [n]   (default 1200000)
 * Prints: n, the number of primes <= n, and their sum (a second `+` reduction).
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n;
    long i, d;
    long count, sum;
    int prime;

    /* INIT_BEGIN */
    n = 1200000;
    if (argc > 1) {
        n = atol(argv[1]);
    }
    /* INIT_END */
    if (n < 2) {
        fprintf(stderr, "primes: n must be at least 2\n");
        return 1;
    }

    count = 0;
    sum = 0;
    /* DOALL_BEGIN P = CYC */
    for (i = 2; i <= n; i++) {
        prime = 1;
        for (d = 2; d * d <= i; d++) {
            if (i % d == 0) {
                prime = 0;
                break;
            }
        }
        count += prime;
        sum += prime * i;
    }
    /* DOALL_END */

    printf("n = %ld\n", n);
    printf("primes = %ld\n", count);
    printf("sum = %ld\n", sum);
    return 0;
}
