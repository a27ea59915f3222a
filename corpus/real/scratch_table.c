/* scratch_table.c -- a two-dimensional scratch table. For each grid line, `flux` fills
 * `ue[i][m]` for every point i and component m, reads row i at once, and a second sweep
 * reads rows i - 1 and i + 1 (the exact right-hand side of a block-tridiagonal solver).
 * Every iteration of the line loops writes the whole table before it reads it, so the table
 * carries nothing from one line to the next: each thread gets its own, `private(ue)`. ppo
 * once privatized one-dimensional scratch rows only, and kept this loop sequential. The
 * dissipation at the first points sets `i = 1`, updates, sets `i = 2`, updates: each
 * subscript is taken at the last value given before it, and rows 1 to 3 lie in the rows
 * written (or, were `gp[0]` below 4, in no row any line writes: the copy made on entry).
 * `lookahead` reads one row past the row it has just written: there the table still holds
 * the previous line's row, so its line loop stays sequential.
 */
#include <stdio.h>

#define NX 48
#define NY 40
#define NZ 36

static double ce[5][3];
static double forcing[NY][NZ][NX];
static int gp[3] = {NX, NY, NZ};

static void exact(double x, double y, double z, double d[5])
{
    for (int m = 0; m < 5; m++)
        d[m] = ce[m][0] + x * ce[m][1] + y * ce[m][2] + x * y * z;
}

static void flux(void)
{
    double ue[NX][5], q[NX], d[5];
    for (int j = 1; j < gp[1] - 1; j++) {
        for (int k = 1; k < gp[2] - 1; k++) {
            for (int i = 0; i < gp[0]; i++) {
                exact(i * 0.1, j * 0.1, k * 0.1, d);
                for (int m = 0; m < 5; m++)
                    ue[i][m] = d[m];
                q[i] = 0.5 * (ue[i][1] * ue[i][1] + ue[i][2] * ue[i][2]);
            }
            for (int i = 1; i < gp[0] - 1; i++)
                forcing[j][k][i] = ue[i + 1][1] - 2.0 * ue[i][0] + ue[i - 1][4] + q[i + 1] - q[i - 1];
            /* Dissipation at the first two points: `i` set again before each update. */
            for (int m = 0; m < 5; m++) {
                int i = 1;
                forcing[j][k][i] -= 0.25 * (5.0 * ue[i][m] - 4.0 * ue[i + 1][m] + ue[i + 2][m]);
                i = 2;
                forcing[j][k][i] -= 0.25 * (ue[i - 1][m] - 4.0 * ue[i][m] + ue[i + 1][m]);
            }
        }
    }
}

static void lookahead(void)
{
    double ue[NX][5];
    for (int i = 0; i < NX; i++)
        for (int m = 0; m < 5; m++)
            ue[i][m] = m;
    for (int j = 1; j < gp[1] - 1; j++) {
        for (int i = 0; i < gp[0] - 1; i++) {
            for (int m = 0; m < 5; m++)
                ue[i][m] = forcing[j][1][i] * (m + 1);
            forcing[j][2][i] += ue[i + 1][0];
        }
    }
}

int main(void)
{
    for (int m = 0; m < 5; m++)
        for (int c = 0; c < 3; c++)
            ce[m][c] = 0.25 * (m + 1) - 0.125 * c;
    flux();
    lookahead();
    double s = 0.0;
    for (int j = 0; j < NY; j++)
        for (int k = 0; k < NZ; k++)
            for (int i = 0; i < NX; i++)
                s += forcing[j][k][i] * ((i + j + k) % 5);
    printf("forcing %.9e\n", s);
    return 0;
}
