/* Jagged tables: grids stored as tables of rows allocated one by one (NPB MG's
 * `double ****u`). Every row pointer is a fresh allocation, so distinct rows never share
 * memory and the smoothing loops are parallel; a table whose rows share a block, and a
 * function called with the same table twice, stay sequential. */
#include <stdio.h>
#include <stdlib.h>

#define N 24
#define LEVELS 3

/* A grid of n x n x n values: a table of tables of rows, each a fresh allocation. */
#define NEW_GRID(g, n)                                                                            \
    do {                                                                                          \
        (g) = (double ***)malloc((n) * sizeof(double **));                                        \
        for (int i_ = 0; i_ < (n); i_++) {                                                        \
            (g)[i_] = (double **)malloc((n) * sizeof(double *));                                  \
            for (int j_ = 0; j_ < (n); j_++)                                                      \
                (g)[i_][j_] = (double *)malloc((n) * sizeof(double));                             \
        }                                                                                         \
    } while (0)

static void fill(double ***g, int n, double s) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                g[i][j][k] = s * (i + 2 * j + 3 * k) / (double)n;
}

/* Average of the six neighbours into `out`: `in` and `out` are distinct tables at every call. */
static void smooth(double ***in, double ***out, int n) {
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            for (int k = 1; k < n - 1; k++)
                out[i][j][k] = (in[i - 1][j][k] + in[i + 1][j][k] + in[i][j - 1][k] + in[i][j + 1][k] +
                                in[i][j][k - 1] + in[i][j][k + 1]) / 6.0;
}

/* Called with the same table twice: `dst[i][j][k]` reads `src[i - 1][j][k]`, written by the
 * previous i iteration, a real dependence carried by the i loop (the j loop is parallel). */
static void sweep(double ***src, double ***dst, int n) {
    for (int i = 1; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                dst[i][j][k] = 0.5 * (dst[i][j][k] + src[i - 1][j][k]);
}

static double checksum(double ***g, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                s += g[i][j][k] * (1 + (i + j + k) % 7);
    return s;
}

/* A table of levels of grids: `u[l]` and `u[l - 1]` are different grids. */
static void restrict_level(double ***fine, double ***coarse, int n) {
    for (int i = 0; i < n / 2; i++)
        for (int j = 0; j < n / 2; j++)
            for (int k = 0; k < n / 2; k++)
                coarse[i][j][k] = 0.5 * (fine[2 * i][2 * j][2 * k] + fine[2 * i + 1][2 * j + 1][2 * k + 1]);
}

/* `long *` rows: a table whose rows share a block (see main). */
static void shift_rows(long **t, int n) {
    for (int i = 1; i < n; i++)
        for (int k = 0; k < n; k++)
            t[i][k] = t[i - 1][k] + 1;
}

int main(void) {
    double ***a, ***b;
    NEW_GRID(a, N);
    NEW_GRID(b, N);
    double ****u = (double ****)malloc(LEVELS * sizeof(double ***));
    for (int l = 0; l < LEVELS; l++) {
        u[l] = (double ***)malloc(N * sizeof(double **));
        for (int i = 0; i < N; i++) {
            u[l][i] = (double **)malloc(N * sizeof(double *));
            for (int j = 0; j < N; j++)
                u[l][i][j] = (double *)malloc(N * sizeof(double));
        }
    }
    fill(a, N, 1.0);
    fill(b, N, 0.0);
    smooth(a, b, N);
    smooth(b, a, N);
    sweep(a, a, N);
    printf("smooth %.6f %.6f\n", checksum(a, N), checksum(b, N));

    for (int l = 0; l < LEVELS; l++)
        fill(u[l], N, l + 1.0);
    int j;
    for (int k = LEVELS - 1; k > 0; k--) {
        j = k - 1;
        restrict_level(u[k], u[j], N);
    }
    printf("levels %.6f %.6f %.6f\n", checksum(u[0], N), checksum(u[1], N), checksum(u[2], N));

    /* Two rows of `t` share one block: t[i][k] and t[i - 1][k] may be the same element. */
    long **t = (long **)malloc(N * sizeof(long *));
    t[0] = (long *)calloc(N, sizeof(long));
    t[1] = t[0];
    for (int i = 2; i < N; i++)
        t[i] = (long *)calloc(N, sizeof(long));
    shift_rows(t, N);
    long s = 0;
    for (int i = 0; i < N; i++)
        s += t[i][N - 1] * (i + 1);
    printf("shared rows %ld\n", s);
    return 0;
}
