/* pi.c -- pi by the midpoint rule on 4 / (1 + x^2) over [0, 1] with n intervals.
 *
 * DMCG directives: the loop over the intervals is a DOALL loop (block partitioning) whose
 * only result is `sum`, a self-referencing `+` update the ranks' partial sums combine
 * into. The INIT block (n and the interval width) runs on every rank.
 *
 * The partial sums add in a different order on every rank count, which changes the last
 * bits of the result; it is printed with 10 decimals, far coarser than that rounding
 * (about 1e-13 here) and not near a rounding boundary (pi = 3.14159265358979...), so the
 * printed value is the same whatever the order.
 *
 * Usage: pi [n]   (default 200000000)
 * Prints: n and pi to 10 decimals.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n, i;
    double h, x, sum, pi;

    /* INIT_BEGIN */
    n = 200000000;
    if (argc > 1) {
        n = atol(argv[1]);
    }
    h = 1.0 / (double)n;
    /* INIT_END */
    if (n < 1) {
        fprintf(stderr, "pi: n must be at least 1\n");
        return 1;
    }

    sum = 0.0;
    /* DOALL_BEGIN P = BLK */
    for (i = 0; i < n; i++) {
        x = h * ((double)i + 0.5);
        sum += 4.0 / (1.0 + x * x);
    }
    /* DOALL_END */
    pi = h * sum;

    printf("n = %ld\n", n);
    printf("pi = %.10f\n", pi);
    return 0;
}
