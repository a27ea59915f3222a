/* pi.c -- pi by the midpoint rule on 4 / (1 + x^2) over [0, 1]: one `parallel for` with a
 * `+` reduction, and a `max` reduction for the largest term.
 *
 * `default(none)`: the translation lists its own bound variables.
 *
 * The sum of n terms in another order differs in the last bits: the program prints pi to
 * 10 digits (the rounding error of n <= 10^8 terms is far below that).
 *
 * Usage: pi [n]   (default 50000000 intervals)
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = 50000000;
    long i;
    double h, sum = 0.0, largest = 0.0;

    if (argc > 1) {
        n = atol(argv[1]);
    }
    if (n < 1) {
        fprintf(stderr, "pi: n must be positive\n");
        return 1;
    }
    h = 1.0 / (double)n;
#pragma omp parallel for default(none) shared(h, n) reduction(+: sum) reduction(max: largest)
    for (i = 0; i < n; i++) {
        double x = h * ((double)i + 0.5);
        double f = 4.0 / (1.0 + x * x);
        sum += f;
        if (f > largest) {
            largest = f;
        }
    }
    printf("n = %ld\n", n);
    printf("pi = %.10f\n", h * sum);
    printf("largest term = %.6f\n", largest);
    return 0;
}
