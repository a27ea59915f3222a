/* scratch.c -- a `parallel for` with a private scratch array (each iteration fills its row
 * of scratch values, then uses them; the pattern of NPB MG's residual): the dependence on
 * the scratch array is carried by the inner loops and the array is private, so the
 * directive is right (no PPO120) and CAPE distributes the region (no PPO403).
 *
 * Usage: scratch [n]   (default 400)
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 800

double u[MAXN][MAXN], r[MAXN][MAXN];

int main(int argc, char **argv) {
    int n = 400;
    int i, j;
    double row[MAXN], total = 0.0;

    if (argc > 1) {
        n = atoi(argv[1]);
    }
    if (n < 3 || n > MAXN) {
        fprintf(stderr, "scratch: n must be in 3..%d\n", MAXN);
        return 1;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            u[i][j] = (double)((i * 3 + j * 5) % 17);
#pragma omp parallel for private(j, row)
    for (i = 1; i < n - 1; i++) {
        for (j = 0; j < n; j++)
            row[j] = u[i - 1][j] + u[i + 1][j];
        for (j = 1; j < n - 1; j++)
            r[i][j] = row[j - 1] + row[j + 1] - 4.0 * u[i][j];
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            total += r[i][j] * (i % 7 + 1) * (j % 5 + 1);
    printf("n = %d\n", n);
    printf("total = %.1f\n", total);
    return 0;
}
