/* call_site_alias.c -- pointer parameters bound to distinct file-scope arrays at every
 * call (a sparse matrix-vector product over a matrix stored in global arrays, as NPB CG
 * stores it): inside the function they cannot alias, and the row loop is parallel with no
 * run-time overlap test. smooth_in_place is called once with the same array for both of
 * its parameters: its loop carries a dependence through them and stays sequential.
 */
#include <stdio.h>

#define NROW 3000
#define NNZ (NROW * 7)

static int rowstr[NROW + 1], colidx[NNZ];
static double aval[NNZ], pvec[NROW], qvec[NROW], rvec[NROW];

static void spmv(int n, const int *rs, const int *ci, const double *a, const double *p, double *q)
{
    for (int j = 0; j < n; j++) {
        double sum = 0.0;
        for (int k = rs[j]; k < rs[j + 1]; k++)
            sum = sum + a[k] * p[ci[k]];
        q[j] = sum;
    }
}

static void smooth_in_place(int n, const double *src, double *dst)
{
    for (int j = 1; j < n; j++)
        dst[j] = 0.5 * (dst[j] + src[j - 1]);
}

int main(void)
{
    rowstr[0] = 0;
    for (int j = 0; j < NROW; j++) {
        rowstr[j + 1] = rowstr[j] + 5 + j % 3;
        pvec[j] = 0.001 * (j % 29);
    }
    for (int k = 0; k < rowstr[NROW]; k++) {
        colidx[k] = (k * 13) % NROW;
        aval[k] = 0.01 * ((k * 7) % 11);
    }
    spmv(NROW, rowstr, colidx, aval, pvec, qvec);
    spmv(NROW, rowstr, colidx, aval, qvec, rvec);
    smooth_in_place(NROW, rvec, rvec);
    double s = 0.0, t = 0.0;
    for (int j = 0; j < NROW; j++) {
        s += qvec[j];
        t += rvec[j] * (j % 7);
    }
    printf("q %.6e r %.6e\n", s, t);
    return 0;
}
