/* matmul.c -- dense matrix multiplication C = A * B (n x n).
 *
 * No directives: the MPI generator has to find the DOALL loop by itself. The i loop of
 * the product nest is parallel (each iteration writes its own row of c and only reads a
 * and b); j is parallel too, k carries the sum (a private scalar reduction). The
 * initialization loops are parallel but cheap.
 *
 * The entries are small integers held in doubles, so every product and sum is exact and
 * the checksum does not depend on the order of any addition.
 *
 * Usage: matmul [n]   (default 640; at most MAXN)
 * Prints: n, the sum of all entries of c, the trace of c, and c[n-1][0].
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
    double sum, total, trace;

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

    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            sum = 0.0;
            for (k = 0; k < n; k++) {
                sum += a[i][k] * b[k][j];
            }
            c[i][j] = sum;
        }
    }

    total = 0.0;
    trace = 0.0;
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
