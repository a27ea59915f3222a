/* nested_calls.c -- parallel loops in functions that parallel loops call.
 *
 * scale_row's loop is parallel, and so is the row loop of scale_all that calls it: only
 * the caller's loop gets a directive (a region inside a region would fork a team per
 * call, or run on one thread). smooth is called from a sequential time-step loop: its own
 * loop keeps its directive. norm2 is reached through two levels of calls from a parallel
 * loop (scale_all -> scale_row -> norm2 is not a loop call; rows -> row_norm -> norm2 is).
 * relax_block's plane sweep would host one region around its row loops, but blocks calls
 * it from a parallel loop over the blocks: neither the region nor the rows get a directive.
 */
#include <stdio.h>

#define N 400
#define M 300

static double a[N][M], b[N][M], nrm[N];

static double norm2(const double *v, int n)
{
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s += v[k] * v[k];
    return s;
}

static void scale_row(double *row, int n, double f)
{
    for (int k = 0; k < n; k++)
        row[k] = row[k] * f + 1.0;
}

static double row_norm(int i)
{
    return norm2(a[i], M);
}

static void scale_all(double f)
{
    for (int i = 0; i < N; i++)
        scale_row(a[i], M, f);
}

static void rows(void)
{
    for (int i = 0; i < N; i++)
        nrm[i] = row_norm(i);
}

static void smooth(void)
{
    for (int i = 1; i < N - 1; i++)
        for (int j = 0; j < M; j++)
            b[i][j] = (a[i - 1][j] + a[i][j] + a[i + 1][j]) / 3.0;
}

#define NB 8
#define P 6
#define Q 6000

static double blk3[NB][P][Q];

static void relax_block(double (*g)[Q])
{
    for (int p = 1; p < P; p++) {
        for (int q = 0; q < Q; q++)
            g[p][q] = 0.5 * (g[p - 1][q] + g[p][q]);
    }
}

static void blocks(void)
{
    for (int bk = 0; bk < NB; bk++)
        relax_block(blk3[bk]);
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            a[i][j] = 0.001 * ((i * 13 + j * 7) % 101);
    scale_all(0.5);
    rows();
    double t = 0.0;
    for (int step = 0; step < 4; step++) {
        smooth();
        t += b[N / 2][M / 2];
        a[N / 2][M / 2] = b[N / 2][M / 2] + 1.0;
    }
    for (int bk = 0; bk < NB; bk++)
        for (int p = 0; p < P; p++)
            for (int q = 0; q < Q; q++)
                blk3[bk][p][q] = 0.001 * ((bk * 7 + p * 13 + q) % 97);
    blocks();
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += nrm[i];
    printf("norms %.6e\n", s);
    printf("trace %.6e\n", t);
    printf("b %.6e\n", b[17][23]);
    printf("blocks %.6e %.6e\n", blk3[0][P - 1][17], blk3[NB - 1][P - 1][Q - 1]);
    return 0;
}
