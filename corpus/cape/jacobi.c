/* jacobi.c -- Jacobi relaxation of a 2-D grid for a number of sweeps: each sweep is a
 * `parallel for` (new grid from the old one, `firstprivate` weight, `lastprivate` of the
 * last row's residual), then a copy back, and the residual is a `max` reduction.
 *
 * Usage: jacobi [n [sweeps]]   (default 1200 x 1200, 40 sweeps)
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 2048

double u[MAXN][MAXN], unew[MAXN][MAXN];

int main(int argc, char **argv) {
    int n = 1200, sweeps = 40;
    int i, j, s;
    double w = 0.25, last = 0.0, resid = 0.0;

    if (argc > 1) {
        n = atoi(argv[1]);
    }
    if (argc > 2) {
        sweeps = atoi(argv[2]);
    }
    if (n < 3 || n > MAXN || sweeps < 1) {
        fprintf(stderr, "jacobi: n must be in 3..%d and sweeps positive\n", MAXN);
        return 1;
    }
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            u[i][j] = (i == 0 || j == 0 || i == n - 1 || j == n - 1) ? (double)((i * 7 + j * 3) % 100) : 0.0;
            unew[i][j] = u[i][j];
        }
    }
    for (s = 0; s < sweeps; s++) {
        resid = 0.0;
#pragma omp parallel for private(j) firstprivate(w) lastprivate(last) reduction(max: resid)
        for (i = 1; i < n - 1; i++) {
            double row = 0.0;
            for (j = 1; j < n - 1; j++) {
                unew[i][j] = w * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
                double d = unew[i][j] - u[i][j];
                if (d < 0) {
                    d = -d;
                }
                if (d > resid) {
                    resid = d;
                }
                row += d;
            }
            last = row;
        }
#pragma omp parallel for private(j)
        for (i = 1; i < n - 1; i++) {
            for (j = 1; j < n - 1; j++) {
                u[i][j] = unew[i][j];
            }
        }
    }
    printf("n = %d, sweeps = %d\n", n, sweeps);
    printf("residual = %.9f\n", resid);
    printf("last row change = %.9f\n", last);
    printf("u[n/2][n/2] = %.9f\n", u[n / 2][n / 2]);
    return 0;
}
