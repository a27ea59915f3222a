/* sweep_region.c -- sequential loops whose body is nothing but parallel loops: one parallel
 * region around the sequential loop, worksharing loops inside (as expert NPB code does),
 * instead of a fork and a join per iteration.
 *
 * - forward_sweep: plane i needs plane i-1 (NPB BT's x_solve_cell through calls to a 5x5
 *   block helper whose array parameters are pointers): `i` runs in every thread, the `j`
 *   loop is shared out; the calls make its work unknown, so the region has no size test.
 * - relax: a time step around two independent nests (Jacobi): both are worksharing loops
 *   of one region, whose size test (`n * n`) is evaluated once, before the time loop.
 * - last_plane: the sweep's index is read after the loop: each thread would keep its own
 *   copy, so no region is hoisted; the inner loop keeps a region of its own.
 * - with_update: the statement between the loops runs in a `single` block of the region.
 * - smooth: the time step of relax on pointer parameters that other code may bind to
 *   overlapping arrays: each nest needs a run-time overlap test, and both tests join the
 *   region's size test, evaluated once before the time loop (nothing in it moves p or q).
 */
#include <stdio.h>

#define NP 40
#define NY 300
#define NG 400

static double rhs[NP][NY][5], lhs[NP][NY][5];
static double a[NG][NG], b[NG][NG];
static double acc[NP];

static void sub_block(double m[5], double x[5], double y[5])
{
    for (int k = 0; k < 5; k++)
        y[k] = y[k] - 0.25 * m[k] * x[k];
}

static void forward_sweep(void)
{
    int i, j;
    for (i = 1; i < NP; i++) {
        for (j = 0; j < NY; j++) {
            sub_block(lhs[i][j], rhs[i - 1][j], rhs[i][j]);
        }
    }
}

static void relax(int n, int steps)
{
    int t, i, j;
    for (t = 0; t < steps; t++) {
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                a[i][j] = b[i][j];
    }
}

void smooth(int n, int steps, double (*p)[NG], double (*q)[NG])
{
    int t, i, j;
    for (t = 0; t < steps; t++) {
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                q[i][j] = 0.5 * p[i][j] + 0.125 * (p[i - 1][j] + p[i + 1][j] + p[i][j - 1] + p[i][j + 1]);
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                p[i][j] = q[i][j];
    }
}

static double last_plane(void)
{
    int i, j;
    for (i = 1; i < NP; i++) {
        for (j = 0; j < NY; j++)
            rhs[i][j][0] = rhs[i][j][0] + 0.5 * rhs[i - 1][j][0];
    }
    return rhs[i - 1][NY / 2][0];
}

static void with_update(int n)
{
    for (int t = 1; t < NP; t++) {
        for (int j = 0; j < n; j++)
            rhs[t][j][1] = rhs[t][j][1] + rhs[t - 1][j][1];
        acc[t] = acc[t - 1] + rhs[t][n / 2][1];
    }
}

int main(void)
{
    for (int i = 0; i < NP; i++)
        for (int j = 0; j < NY; j++)
            for (int k = 0; k < 5; k++) {
                rhs[i][j][k] = 0.001 * ((i * 7 + j * 3 + k) % 11);
                lhs[i][j][k] = 0.01 * ((i + j + k * 5) % 13);
            }
    for (int i = 0; i < NG; i++)
        for (int j = 0; j < NG; j++)
            a[i][j] = (i == 0 || j == 0) ? 1.0 : 0.0;
    forward_sweep();
    relax(NG, 20);
    smooth(NG, 10, a, b);
    double last = last_plane();
    with_update(NY);
    double s = 0.0, g = 0.0;
    for (int i = 0; i < NP; i++)
        for (int j = 0; j < NY; j++)
            s += rhs[i][j][0] + rhs[i][j][1] + rhs[i][j][4];
    for (int i = 0; i < NG; i++)
        g += a[i][NG / 2] + a[NG / 2][i];
    printf("sweep %.6f relax %.6f last %.9f acc %.6f\n", s, g, last, acc[NP - 1]);
    return 0;
}

/* smooth is also reached through this pointer, from code ppo does not see: its callers may
 * pass overlapping grids. */
void (*smooth_entry)(int, int, double (*)[NG], double (*)[NG]) = smooth;
