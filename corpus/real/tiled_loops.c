/* tiled_loops.c -- loops tiled by hand and by a polyhedral tool (PLUTO's output, with
 * `min` written as a conditional): the point loops of a tile run from its origin to
 * the smaller of its end and the array's, `for (i = ii; i < MIN(ii + T, N); i++)`. Tiles
 * write disjoint blocks, so the tile loops are parallel (the 2-D tile grid collapsed), and
 * the point loops inside need no region of their own. Tiles that overlap (a stride smaller
 * than the tile) and a Gauss-Seidel sweep in tiles, which reads the rows it updates across
 * tile edges, stay sequential.
 */
#include <stdio.h>

#define N 600
#define T 32
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static double a[N][N], b[N][N], c[N][N], d[N][N];

static void transpose_tiled(void)
{
    int ii, jj, i, j;
    for (ii = 0; ii < N; ii += T)
        for (jj = 0; jj < N; jj += T)
            for (i = ii; i < MIN(ii + T, N); i++)
                for (j = jj; j < MIN(jj + T, N); j++)
                    b[j][i] = a[i][j];
}

/* PLUTO's form: tile c1 holds the points 16 * c1 .. min(16 * c1 + 15, n - 1). */
static void scale_pluto(int n)
{
    int c1, c3, c4;
    if (n >= 1) {
        for (c1 = 0; c1 <= (n + -1) / 16; c1++)
            for (c3 = 16 * c1; c3 <= ((16 * c1 + 15 < n + -1) ? 16 * c1 + 15 : n + -1); c3++)
                for (c4 = 0; c4 <= n + -1; c4++)
                    c[c3][c4] = 2.0 * b[c3][c4] + a[c4][c3];
    }
}

/* A halo: the first tile starts at row 1, the last ends before row N - 1. */
static void smooth_tiled(void)
{
    int ii, i, j;
    for (ii = 0; ii < N; ii += T)
        for (i = MAX(ii, 1); i < MIN(ii + T, N - 1); i++)
            for (j = 1; j < N - 1; j++)
                d[i][j] = 0.25 * (c[i - 1][j] + c[i + 1][j] + c[i][j - 1] + c[i][j + 1]);
}

/* Tiles of 32 rows every 16 rows: each row is written by two tiles, the second one
 * reading what the first wrote. */
static void overlapping_tiles(void)
{
    int ii, i, j;
    for (ii = 0; ii < N; ii += 16)
        for (i = ii; i < MIN(ii + 32, N); i++)
            for (j = 0; j < N; j++)
                d[i][j] = 0.5 * d[i][j] + c[i][j];
}

static void seidel_tiled(void)
{
    int ii, i, j;
    for (ii = 1; ii < N - 1; ii += T)
        for (i = ii; i < MIN(ii + T, N - 1); i++)
            for (j = 1; j < N - 1; j++)
                c[i][j] = 0.25 * (c[i - 1][j] + c[i][j - 1] + c[i + 1][j] + c[i][j + 1]);
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = 0.001 * ((i * 31 + j * 17) % 97);
    transpose_tiled();
    scale_pluto(N);
    smooth_tiled();
    overlapping_tiles();
    seidel_tiled();
    double sb = 0.0, sc = 0.0, sd = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            sb += b[i][j] * (j % 5);
            sc += c[i][j] * (i % 7);
            sd += d[i][j];
        }
    printf("b %.9e c %.9e d %.9e\n", sb, sc, sd);
    return 0;
}
