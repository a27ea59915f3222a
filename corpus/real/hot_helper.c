/* hot_helper.c -- a 5-component update in a small helper, called many times from a loop
 * that carries a dependence (the helper's own loop is parallel, but a parallel region per
 * call would cost far more than its 5 iterations), and sparse rows whose length is read
 * from memory: a region per row would be slower than the sequential program.
 */
#include <stdio.h>

#define NC 5
#define NROW 2000
#define NNZ (NROW * 6)

static double acc[NC], coef[NC], xin[NC];
static int rowstr[NROW + 1], colidx[NNZ];
static double aval[NNZ], pvec[NROW], qvec[NROW];

static void axpy5(const double *a, const double *x, double *y)
{
    for (int m = 0; m < NC; m++)
        y[m] = y[m] - a[m] * x[m];
}

static void spmv_rows(void)
{
    /* The row loop j could run in parallel; the inner k loop is a row of about six. */
    for (int j = 0; j < NROW; j++) {
        double sum = 0.0;
        for (int k = rowstr[j]; k < rowstr[j + 1]; k++)
            sum = sum + aval[k] * pvec[colidx[k]];
        qvec[j] = sum;
        pvec[(j + 1) % NROW] += 1e-9 * sum;
    }
}

int main(void)
{
    for (int m = 0; m < NC; m++) {
        coef[m] = 1e-6 * (m + 1);
        xin[m] = 0.5 * m;
        acc[m] = 1.0;
    }
    for (long it = 0; it < 20000; it++) {
        axpy5(coef, xin, acc);
        xin[it % NC] += 1e-3;
    }
    rowstr[0] = 0;
    for (int j = 0; j < NROW; j++) {
        int len = 4 + j % 5;
        rowstr[j + 1] = rowstr[j] + len;
        for (int k = rowstr[j]; k < rowstr[j + 1]; k++) {
            colidx[k] = (j * 7 + k * 3) % NROW;
            aval[k] = 0.001 * ((k * 11) % 17);
        }
        pvec[j] = 0.01 * (j % 13);
    }
    spmv_rows();
    double s = 0.0;
    for (int j = 0; j < NROW; j++)
        s += qvec[j];
    printf("acc %.6e %.6e\n", acc[0], acc[NC - 1]);
    printf("spmv %.6e\n", s);
    return 0;
}
