/* region_size.c -- loop nests run once per iteration of a sequential loop: whether a
 * parallel region repays itself depends on the size of the nest.
 *
 * - copy_block: a block of `blk` columns copied per plane of a sweep whose planes depend on
 *   each other (NPB FT's copies around its 1-D FFTs): its size is known only at run time,
 *   so the directive tests it (`if(blk * n > ...)`); here it is small and runs sequentially.
 * - small_block: the same nest with constant sizes too small for a region: sequential.
 * - spmv: sparse rows whose length is read from memory (NPB CG): the row loop is parallel
 *   with the default static schedule; rows are irregular, not growing with the index, and
 *   `schedule(dynamic)` would take a shared counter per row.
 */
#include <stdio.h>

#define NP 64
#define NX 128
#define NROW 3000
#define NNZ (NROW * 7)

static double x[NP][NX][NX], y[NX][NX];
static double t[NP][16][NX], w[NX][16];
static int rowstr[NROW + 1], colidx[NNZ];
static double aval[NNZ], pvec[NROW], qvec[NROW];
static int blk = 8;

static void copy_block(int n)
{
    for (int p = 1; p < NP; p++) {
        for (int j = 0; j < blk; j++)
            for (int i = 0; i < n; i++)
                y[i][j] = x[p][j][i] + 0.5 * x[p - 1][j][i];
        for (int i = 0; i < n; i++)
            x[p][0][i] = y[i][0] + y[i][blk - 1];
    }
}

static void small_block(void)
{
    for (int p = 1; p < NP; p++) {
        for (int j = 0; j < 16; j++)
            for (int i = 0; i < 64; i++)
                w[i][j] = t[p][j][i] + 0.5 * t[p - 1][j][i];
        for (int i = 0; i < 64; i++)
            t[p][0][i] = w[i][0] + w[i][15];
    }
}

static void spmv(void)
{
    for (int it = 0; it < 10; it++) {
        for (int j = 0; j < NROW; j++) {
            double sum = 0.0;
            for (int k = rowstr[j]; k < rowstr[j + 1]; k++)
                sum = sum + aval[k] * pvec[colidx[k]];
            qvec[j] = sum;
        }
        pvec[it] += 1e-3 * qvec[NROW - 1 - it];
    }
}

int main(void)
{
    for (int p = 0; p < NP; p++)
        for (int j = 0; j < NX; j++)
            for (int i = 0; i < NX; i++)
                x[p][j][i] = 0.001 * ((p * 7 + j * 3 + i) % 101);
    for (int p = 0; p < NP; p++)
        for (int j = 0; j < 16; j++)
            for (int i = 0; i < NX; i++)
                t[p][j][i] = 0.002 * ((p + j * 5 + i * 3) % 89);
    rowstr[0] = 0;
    for (int j = 0; j < NROW; j++) {
        int len = 3 + (j * 13) % 5;
        rowstr[j + 1] = rowstr[j] + len;
        pvec[j] = 0.01 * (j % 17);
    }
    for (int k = 0; k < rowstr[NROW]; k++) {
        colidx[k] = (k * 31) % NROW;
        aval[k] = 0.001 * ((k * 11) % 19);
    }
    copy_block(NX);
    small_block();
    spmv();
    double s = 0.0, u = 0.0, q = 0.0;
    for (int i = 0; i < NX; i++)
        s += x[NP - 1][0][i];
    for (int i = 0; i < NX; i++)
        u += t[NP - 1][0][i];
    for (int j = 0; j < NROW; j++)
        q += qvec[j];
    printf("copy %.6e small %.6e spmv %.6e\n", s, u, q);
    return 0;
}
