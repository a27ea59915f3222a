/* Triangular sweeps over a plane of 5x5 blocks (the pattern of NPB LU's blts/buts): each
 * point needs the point of the previous row and the previous point of its own row, so the
 * row loop carries a dependence at distance 1 and the point loop one inside each row. ppo
 * runs the row loop as a doacross loop: rows go to the threads in turn, each row in tiles
 * of points, and a tile starts once the previous row has finished the same tile (the next
 * one too, for the sweep that reads the point up and to the right). A local 5x5 block each
 * point fills before it reads it is private to each row.
 * Loops whose rows depend on a whole previous row, or whose points do too little work to
 * repay a wait per tile, stay sequential. */
#include <stdio.h>

#define N 48
#define NPLANES 6

static double v[NPLANES][N][N][5];
static double d[N][N][5][5], l[N][N][5][5];
static double row_sum[N];
static double light[N][N];

static void setup(void)
{
    for (int k = 0; k < NPLANES; k++)
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                for (int m = 0; m < 5; m++)
                    v[k][i][j][m] = (double)((k * 7 + i * 31 + j * 17 + m * 5) % 23) / 23.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int m = 0; m < 5; m++)
                for (int c = 0; c < 5; c++) {
                    d[i][j][m][c] = (m == c ? 4.0 : 0.0) + (double)((i + j + m * c) % 5) / 40.0;
                    l[i][j][m][c] = (double)((i * 3 + j + m + c) % 7) / 70.0;
                }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            light[i][j] = (double)((i * j + 3) % 11) / 11.0;
}

/* Solve one 5x5 block in place: forward elimination and back substitution on a copy of
 * the diagonal block (the `tmat` of NPB LU). */
static void lower(int k, double omega)
{
    int i, j, m;
    double tmp, tmp1;
    double t[5][5];
    for (i = 1; i < N - 1; i++) {
        for (j = 1; j < N - 1; j++) {
            for (m = 0; m < 5; m++)
                v[k][i][j][m] = v[k][i][j][m]
                    - omega * (l[i][j][m][0] * v[k][i - 1][j][0] + l[i][j][m][1] * v[k][i][j - 1][1]
                               + l[i][j][m][2] * v[k][i - 1][j][2] + l[i][j][m][3] * v[k][i][j - 1][3]
                               + l[i][j][m][4] * v[k][i - 1][j][4]);
            for (m = 0; m < 5; m++) {
                t[m][0] = d[i][j][m][0];
                t[m][1] = d[i][j][m][1];
                t[m][2] = d[i][j][m][2];
                t[m][3] = d[i][j][m][3];
                t[m][4] = d[i][j][m][4];
            }
            for (int p = 0; p < 4; p++) {
                tmp1 = 1.0 / t[p][p];
                for (int r = p + 1; r < 5; r++) {
                    tmp = tmp1 * t[r][p];
                    for (int c = p + 1; c < 5; c++)
                        t[r][c] = t[r][c] - tmp * t[p][c];
                    v[k][i][j][r] = v[k][i][j][r] - v[k][i][j][p] * tmp;
                }
            }
            for (int r = 4; r >= 0; r--) {
                for (int c = r + 1; c < 5; c++)
                    v[k][i][j][r] = v[k][i][j][r] - t[r][c] * v[k][i][j][c];
                v[k][i][j][r] = v[k][i][j][r] / t[r][r];
            }
        }
    }
}

/* The upper sweep runs both loops downwards and reads the point below and to the left
 * in the next row (v[i + 1][j - 1]): a tile waits for the same tile and the one after it
 * in the row below. */
static void upper(int k, double omega)
{
    int i, j, m;
    double s;
    for (i = N - 2; i >= 1; i--) {
        for (j = N - 2; j >= 1; j--) {
            for (m = 0; m < 5; m++) {
                s = l[i][j][0][m] * v[k][i + 1][j][0] + l[i][j][1][m] * v[k][i][j + 1][1]
                    + l[i][j][2][m] * v[k][i + 1][j - 1][2] + l[i][j][3][m] * v[k][i][j + 1][3]
                    + l[i][j][4][m] * v[k][i + 1][j][4];
                v[k][i][j][m] = (v[k][i][j][m] - omega * s) / d[i][j][m][m];
            }
            for (m = 0; m < 5; m++) {
                s = d[i][j][m][0] * v[k][i][j][0] + d[i][j][m][1] * v[k][i][j][1]
                    + d[i][j][m][2] * v[k][i][j][2] + d[i][j][m][3] * v[k][i][j][3];
                v[k][i][j][m] = v[k][i][j][m] - 0.01 * s;
            }
        }
    }
}

/* Each row needs the last point of the previous row: the dependence has no distance on
 * the point loop, so a row waits for the whole previous row (sequential). */
static void carry_rows(int k)
{
    for (int i = 1; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int m = 0; m < 5; m++)
                v[k][i][j][m] = 0.5 * v[k][i][j][m] + 0.25 * v[k][i - 1][N - 1][m] + 0.001 * m;
}

/* A wavefront of one addition per point: a wait per tile would cost more than the tile
 * (sequential). */
static void light_sweep(void)
{
    for (int i = 1; i < N; i++)
        for (int j = 1; j < N; j++)
            light[i][j] = 0.5 * (light[i - 1][j] + light[i][j - 1]);
}

int main(void)
{
    setup();
    for (int step = 0; step < 3; step++) {
        for (int k = 0; k < NPLANES; k++)
            lower(k, 1.2);
        for (int k = NPLANES - 1; k >= 0; k--)
            upper(k, 0.8);
        carry_rows(step % NPLANES);
        light_sweep();
    }
    for (int i = 0; i < N; i++) {
        row_sum[i] = 0.0;
        for (int k = 0; k < NPLANES; k++)
            for (int j = 0; j < N; j++)
                for (int m = 0; m < 5; m++)
                    row_sum[i] += v[k][i][j][m];
    }
    double total = 0.0;
    for (int i = 0; i < N; i++)
        total += row_sum[i] * (double)(i + 1);
    printf("rows %d total %.9e corner %.9e light %.9e\n", N, total, v[NPLANES - 1][N - 2][N - 2][4],
           light[N - 1][N - 1]);
    for (int i = 0; i < N; i += 12)
        printf("row %2d %.9e\n", i, row_sum[i]);
    return 0;
}
