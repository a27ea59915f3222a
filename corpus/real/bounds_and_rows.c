/* bounds_and_rows.c -- loop limits read from memory that the loop's stores and calls cannot
 * change, and rows told apart by one subscript while another one varies (NPB BT, LU, SP, FT):
 *
 * - scale_rows: `j < grid[1] - 1` with `grid` a global array whose address is taken (by
 *   set_grid). The body calls scale5, whose summary writes only through its parameter,
 *   here a row of `field`: the call cannot change `grid`. Parallel over j.
 * - evolve: `j < d[0]` reads an int through a pointer; the loop stores only doubles, which
 *   C's aliasing rule keeps from changing an int. Parallel over j.
 * - sweep_rows: `k1 = k + 1` is a subscript the i loop cannot follow, but the rows `a[i]`
 *   are distinct for distinct i: parallel over i (k1 private); the k loop carries a
 *   recurrence and stays sequential.
 * - fill_ints: `i < d[0]` with int stores through another int pointer that may point into
 *   `d`: not counted (PPO109), sequential.
 * - histogram_row: `a[0][idx]`: every iteration may write the same element of row 0:
 *   sequential.
 */
#include <stdio.h>

#define N 64

static int grid[3];
static double field[N][N][5];
static double a[N][N];
static double u[N][N];
static int ints[N + 1];
static double hist[2][N];

static void set_grid(int *g, int n)
{
    g[0] = n;
    g[1] = n;
    g[2] = n;
}

static void scale5(double v[5], double s)
{
    for (int m = 0; m < 5; m++)
        v[m] = v[m] * s + m;
}

static void scale_rows(double s)
{
    int j, k;
    for (j = 1; j < grid[1] - 1; j++)
        for (k = 1; k < grid[2] - 1; k++)
            scale5(field[j][k], s);
}

static void evolve(double (*v)[N], const int d[2], double f)
{
    for (int j = 0; j < d[0]; j++)
        for (int i = 0; i < d[1]; i++)
            v[j][i] = v[j][i] * f + 0.5;
}

static void sweep_rows(int n)
{
    int i, k, k1;
    for (i = 1; i < n; i++) {
        for (k = 0; k < n - 1; k++) {
            k1 = k + 1;
            a[i][k1] = a[i][k1] - 0.25 * a[i][k];
        }
    }
}

static void fill_ints(int *out, int *d)
{
    for (int i = 0; i < d[0]; i++)
        out[i] = (i * 3) % 64;
}

static void histogram_row(const int *idx, int n)
{
    for (int i = 0; i < n; i++)
        hist[0][idx[i]] += 1.0;
}

int main(void)
{
    set_grid(grid, N);
    for (int j = 0; j < N; j++)
        for (int k = 0; k < N; k++) {
            for (int m = 0; m < 5; m++)
                field[j][k][m] = 0.001 * (j + 2 * k + 3 * m);
            a[j][k] = 1.0 + 0.01 * ((j * 7 + k * 3) % 11);
            u[j][k] = 0.5 * ((j + k) % 5);
        }
    scale_rows(1.5);
    int dims[2] = {N, N - 2};
    evolve(u, dims, 0.75);
    sweep_rows(N);
    ints[0] = N;
    fill_ints(ints + 1, ints);
    histogram_row(ints + 1, N);
    double sf = 0.0, sa = 0.0, su = 0.0, sh = 0.0;
    long si = 0;
    for (int j = 0; j < N; j++)
        for (int k = 0; k < N; k++) {
            for (int m = 0; m < 5; m++)
                sf += field[j][k][m] * (1 + (j + k + m) % 3);
            sa += a[j][k] * (1 + (j * k) % 5);
            su += u[j][k] * (1 + (j + 2 * k) % 7);
        }
    for (int i = 0; i <= N; i++)
        si += (long)ints[i] * (i + 1);
    for (int i = 0; i < N; i++)
        sh += hist[0][i] * (i + 1);
    printf("field %.6e\n", sf);
    printf("a %.6e\n", sa);
    printf("u %.6e\n", su);
    printf("ints %ld\n", si);
    printf("hist %.6e\n", sh);
    return 0;
}
