/* array_params.c -- functions whose parameters are declared as arrays write through
 * them: C adjusts `double b[NC]` to `double *b`, so a call writes the caller's array.
 *
 * Each block-row update below reads row i-1 and writes row i of r through a call, a
 * recurrence the i loop carries: the i loops are sequential. Every way C spells a
 * pointer parameter is used once. The calls' loops over NC = 5 components are too small
 * to be worth a parallel region.
 */
#include <stdio.h>

#define N 64
#define NC 5

static double r[N][N][NC];

static void sub_ptr(const double *a, double *b)
{
    for (int m = 0; m < NC; m++)
        b[m] -= 0.5 * a[m];
}

static void sub_array(const double a[NC], double b[NC])
{
    for (int m = 0; m < NC; m++)
        b[m] -= 0.25 * a[m];
}

static void sub_unsized(const double a[], double b[])
{
    for (int m = 0; m < NC; m++)
        b[m] += 0.125 * a[m];
}

static void sub_static(const double a[static NC], double b[static NC])
{
    for (int m = 0; m < NC; m++)
        b[m] -= 0.0625 * a[m];
}

static void sub_vla(int n, const double a[n], double b[n])
{
    for (int m = 0; m < n; m++)
        b[m] += 0.03125 * a[m];
}

static void sub_rows(int n, double rows[][NC], int i)
{
    for (int m = 0; m < NC; m++)
        rows[i][m] -= 0.5 * rows[i - 1][m];
    (void)n;
}

static void sub_row_ptr(double (*rows)[NC], int i)
{
    for (int m = 0; m < NC; m++)
        rows[i][m] += 0.25 * rows[i - 1][m];
}

static void init(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int m = 0; m < NC; m++)
                r[i][j][m] = 1.0 + 0.001 * ((i * 31 + j * 17 + m * 7) % 97);
}

static void sweeps(void)
{
    int i, j;
    for (i = 1; i < N; i++)
        for (j = 0; j < N; j++)
            sub_ptr(r[i - 1][j], r[i][j]);
    for (i = 1; i < N; i++)
        for (j = 0; j < N; j++)
            sub_array(r[i - 1][j], r[i][j]);
    for (i = 1; i < N; i++)
        for (j = 0; j < N; j++)
            sub_unsized(r[i - 1][j], r[i][j]);
    for (i = 1; i < N; i++)
        for (j = 0; j < N; j++)
            sub_static(r[i - 1][j], r[i][j]);
    for (i = 1; i < N; i++)
        for (j = 0; j < N; j++)
            sub_vla(NC, r[i - 1][j], r[i][j]);
    for (j = 0; j < N; j++)
        for (i = 1; i < N; i++)
            sub_rows(N, r[j], i);
    for (j = 0; j < N; j++)
        for (i = 1; i < N; i++)
            sub_row_ptr(r[j], i);
}

int main(void)
{
    init();
    sweeps();
    double s = 0.0;
    unsigned long h = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int m = 0; m < NC; m++) {
                s += r[i][j][m];
                h = h * 1000003u + (unsigned long)(r[i][j][m] * 1e9);
            }
    printf("sum %.6e\n", s);
    printf("hash %lu\n", h);
    return 0;
}
