/* jacobi.c -- Jacobi relaxation on an n x n grid with fixed boundary values.
 *
 * DMCG directives: each sweep is a DOALL loop over the interior rows (block
 * partitioning) that reads the four neighbours of every point; `DD u(1,1)` tells the
 * generator that the neighbour distance of `u` is 1 in both dimensions, so the
 * communication model is semi-global: a rank needs one row above and one row below its
 * block (a halo exchange between neighbouring ranks) before every sweep. The copy back
 * is a second DOALL loop without communication. The time loop is sequential. The INIT
 * block (sizes and the initial grid) runs on every rank.
 *
 * The grid holds integers and the update divides by 4 with integer division, so every
 * rank computes bit-identical values and the checksums are exact.
 *
 * Usage: jacobi [n [steps]]   (default 700 x 700, 300 steps; at most MAXN)
 * Prints: n, steps, the sum of the grid, a position-weighted checksum and u[n/2][1].
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 2048

int u[MAXN][MAXN];
int v[MAXN][MAXN];

int main(int argc, char **argv) {
    int n, steps;
    int i, j, t;
    long total, weighted;

    /* INIT_BEGIN */
    n = 700;
    steps = 300;
    if (argc > 1) {
        n = atoi(argv[1]);
    }
    if (argc > 2) {
        steps = atoi(argv[2]);
    }
    if (n >= 3 && n <= MAXN) {
        for (i = 0; i < n; i++) {
            for (j = 0; j < n; j++) {
                if (i == 0) {
                    u[i][j] = 1000000;
                } else if (j == 0) {
                    u[i][j] = (i * 7919) % 500000;
                } else if (i == n - 1 || j == n - 1) {
                    u[i][j] = 250000;
                } else {
                    u[i][j] = 0;
                }
                v[i][j] = u[i][j];
            }
        }
    }
    /* INIT_END */
    if (n < 3 || n > MAXN || steps < 0) {
        fprintf(stderr, "jacobi: n must be in 3..%d and steps >= 0\n", MAXN);
        return 1;
    }

    for (t = 0; t < steps; t++) {
        /* DOALL_BEGIN P = BLK */
        /* DD u(1,1) */
        for (i = 1; i < n - 1; i++) {
            for (j = 1; j < n - 1; j++) {
                v[i][j] = (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]) / 4;
            }
        }
        /* DOALL_END */
        /* DOALL_BEGIN P = BLK */
        for (i = 1; i < n - 1; i++) {
            for (j = 1; j < n - 1; j++) {
                u[i][j] = v[i][j];
            }
        }
        /* DOALL_END */
    }

    total = 0;
    weighted = 0;
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            total += u[i][j];
            weighted += (long)u[i][j] * ((i * 13 + j * 29) % 97);
        }
    }
    printf("n = %d, steps = %d\n", n, steps);
    printf("sum = %ld\n", total);
    printf("weighted = %ld\n", weighted);
    printf("u[n/2][1] = %d\n", u[n / 2][1]);
    return 0;
}
