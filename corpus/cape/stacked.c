/* stacked.c -- directives stacked without braces: `parallel` directly followed by `for`,
 * and by `single`; the region's construct is the statement after the last directive.
 *
 * Usage: stacked [n]   (default 1000000)
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 2000000

double v[MAXN];
double total;

int main(int argc, char **argv) {
    int n = 1000000;
    int i;

    if (argc > 1) {
        n = atoi(argv[1]);
    }
    if (n < 2 || n > MAXN) {
        fprintf(stderr, "stacked: n must be in 2..%d\n", MAXN);
        return 1;
    }
#pragma omp parallel
#pragma omp for
    for (i = 0; i < n; i++)
        v[i] = 0.5 * i;
#pragma omp parallel
#pragma omp single
    {
        total = v[n - 1] + v[0];
    }
    printf("n = %d\n", n);
    printf("v[n/2] = %.1f, total = %.1f\n", v[n / 2], total);
    return 0;
}
