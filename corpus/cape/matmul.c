/* matmul.c -- dense matrix multiplication C = A * B (n x n) with OpenMP: the row loop of
 * the product is a `parallel for`; the checksums are a reduction.
 *
 * The same data and output as corpus/mpi/matmul.c (the sequential program, and the MPI
 * versions the CAPE benchmark compares with). The entries are small integers held in
 * doubles: every product and sum is exact, so no result depends on the order of additions.
 *
 * Usage: matmul [n]   (default 640; at most MAXN)
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 1024

double a[MAXN][MAXN];
double b[MAXN][MAXN];
double c[MAXN][MAXN];

int main(int argc, char **argv) {
    int n = 640;
    int i, j, k;
    double total = 0.0, trace = 0.0;

    if (argc > 1) {
        n = atoi(argv[1]);
    }
    if (n < 1 || n > MAXN) {
        fprintf(stderr, "matmul: n must be in 1..%d\n", MAXN);
        return 1;
    }
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            a[i][j] = (double)((i + 2 * j) % 7);
            b[i][j] = (double)((3 * i + j) % 5) - 1.0;
        }
    }
#pragma omp parallel for private(j, k)
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            double sum = 0.0;
            for (k = 0; k < n; k++) {
                sum += a[i][k] * b[k][j];
            }
            c[i][j] = sum;
        }
    }
#pragma omp parallel for private(j) reduction(+: total, trace)
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            total += c[i][j];
        }
        trace += c[i][i];
    }
    printf("n = %d\n", n);
    printf("sum = %.0f\n", total);
    printf("trace = %.0f\n", trace);
    printf("c[n-1][0] = %.0f\n", c[n - 1][0]);
    return 0;
}
