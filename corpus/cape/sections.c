/* sections.c -- one `parallel` region with a private scratch array and two `for nowait`
 * loops writing different arrays, a `barrier`, a loop that reads what the first two
 * wrote (on other nodes too), a `single` and a `master`; then `parallel sections`.
 *
 * Usage: sections [n]   (default 2000000)
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 4000000

double x[MAXN], y[MAXN], z[MAXN];
double stamp, norm;
int sections_done[3];

int main(int argc, char **argv) {
    int n = 2000000;
    int i;
    double total = 0.0;

    if (argc > 1) {
        n = atoi(argv[1]);
    }
    if (n < 8 || n > MAXN) {
        fprintf(stderr, "sections: n must be in 8..%d\n", MAXN);
        return 1;
    }
#pragma omp parallel private(i)
    {
        double scratch[8];
        int t;
        for (t = 0; t < 8; t++) {
            scratch[t] = t * 0.5;
        }
#pragma omp for nowait
        for (i = 0; i < n; i++) {
            x[i] = scratch[i % 8] + i;
        }
#pragma omp for nowait schedule(static, 1000)
        for (i = 0; i < n; i++) {
            y[i] = 2.0 * i - scratch[(i + 3) % 8];
        }
#pragma omp barrier
#pragma omp for reduction(+: total)
        for (i = 0; i < n; i++) {
            z[i] = x[n - 1 - i] + y[i];
            total += z[i];
        }
#pragma omp single
        {
            stamp = z[n / 2] + total * 1e-12;
        }
#pragma omp master
        norm = z[0] + z[n - 1];
    }
#pragma omp parallel sections
    {
#pragma omp section
        sections_done[0] = (int)x[1];
#pragma omp section
        sections_done[1] = (int)y[2];
#pragma omp section
        sections_done[2] = (int)z[3];
    }
    printf("n = %d\n", n);
    printf("total = %.1f\n", total);
    printf("stamp = %.6f\n", stamp);
    printf("norm = %.1f\n", norm);
    printf("sections = %d %d %d\n", sections_done[0], sections_done[1], sections_done[2]);
    return 0;
}
