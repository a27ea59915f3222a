/* scratch_bound.c -- copies into a small scratch block, once per line of a sweep that stays
 * sequential (each plane's transform replaces the plane before it, which the line before
 * has read). The copies' trip counts are read at run time (`nb`, `d[0]`), but they index
 * arrays of NX x PAD elements: no run can do more work than that, too little for a parallel
 * region per line. A size test `if(...)` would not save it: a region whose test fails still
 * costs about as much as one that runs (NPB FT's cffts1: 12 % of the program). The helper's
 * own copy-back indexes its pointer parameters, which every call binds to NX rows of PAD. A
 * loop whose arrays allow enough work keeps its region and its size test.
 */
#include <stdio.h>

#define NX 64
#define NZ 32
#define PAD 18
#define BIG 65536

typedef struct {
    double re, im;
} cplx;

static cplx u[NZ][NX][NX];
static double big[BIG];
static int nb = 16;

/* One radix-2 pass from x into y, then y copied back into x: writes all of both blocks. */
static void pass(int n, cplx x[NX][PAD], cplx y[NX][PAD])
{
    int j, i;
    for (j = 0; j < n / 2; j++)
        for (i = 0; i < nb; i++) {
            y[2 * j][i].re = x[j][i].re + x[j + n / 2][i].re;
            y[2 * j][i].im = x[j][i].im + x[j + n / 2][i].im;
            y[2 * j + 1][i].re = x[j][i].re - x[j + n / 2][i].re;
            y[2 * j + 1][i].im = x[j][i].im - x[j + n / 2][i].im;
        }
    for (j = 0; j < n; j++)
        for (i = 0; i < nb; i++)
            x[j][i] = y[j][i];
}

static void sweep(int d[3])
{
    cplx y0[NX][PAD], y1[NX][PAD];
    int k, jj, j, i;
    for (k = 1; k < d[2]; k++)
        for (jj = 0; jj <= d[1] - nb; jj += nb) {
            for (j = 0; j < nb; j++)
                for (i = 0; i < d[0]; i++)
                    y0[i][j] = u[k][j + jj][i];
            pass(d[0], y0, y1);
            for (j = 0; j < nb; j++)
                for (i = 0; i < d[0]; i++)
                    u[k - 1][j + jj][i] = y0[i][j];
        }
}

/* `n` elements of a 65,536-element array per step: sometimes worth a region. */
static void smooth(int n, int steps)
{
    for (int s = 0; s < steps; s++)
        for (int i = 0; i < n; i++)
            big[i] = 0.5 * big[i] + 0.25;
}

int main(void)
{
    int d[3] = {NX, NX, NZ};
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NX; j++)
            for (int i = 0; i < NX; i++) {
                u[k][j][i].re = 0.001 * ((k * 5 + j * 3 + i) % 97);
                u[k][j][i].im = 0.002 * ((k + j * 7 + i * 11) % 89);
            }
    for (int t = 0; t < 4; t++)
        sweep(d);
    smooth(BIG, 20);
    double sr = 0.0, si = 0.0, sb = 0.0;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NX; j++)
            for (int i = 0; i < NX; i++) {
                sr += u[k][j][i].re;
                si += u[k][j][i].im;
            }
    for (int i = 0; i < BIG; i++)
        sb += big[i];
    printf("sums %.6f %.6f %.6f\n", sr, si, sb);
    return 0;
}
