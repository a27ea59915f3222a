/* serial_steps.c -- sequential loops whose body mixes parallel loops with a few statements
 * (NPB CG's conjugate-gradient iteration, NPB SP's sweeps): one parallel region around the
 * sequential loop, worksharing loops inside, and the statements between them run
 *
 * - by one thread in a `#pragma omp single` block when they read what the loops compute
 *   (cg_steps: `rho0 = rho; d = 0.0;`, `alpha = rho0 / d;`): its barrier orders them with
 *   the loops, and the reductions of the loops into the shared `d` and `rho` start from
 *   the values it stored;
 * - by every thread, on private copies, when they compute from the sweep's index only
 *   (plane_sweep: `i1 = i + 1; i2 = i + 2;`): no barrier at all.
 * - carried_shift: `s` is read at the top of each step before it is assigned (its value
 *   comes from the previous step): private copies would start undefined, so the
 *   assignment runs in a `single` on the shared `s`.
 * - with_call: a function of the file called between the loops (it may start regions of
 *   its own) is not run inside a region: no region is hoisted, and the inner loop gets one
 *   only under a run-time size test (`if(ny > 16383)`, false for NY = 6000).
 */
#include <stdio.h>

#define N 60000
#define NP 48
#define NY 6000

static double p[N], q[N], r[N], z[N], x[N];
static double u[NP + 2][NY], v[NP + 2][NY];
static int steps_done;

static double cg_steps(int iters, int n)
{
    double rho = 0.0, rho0, d, alpha, beta;
    int it, j;
    for (j = 0; j < n; j++) {
        r[j] = x[j];
        p[j] = r[j];
        z[j] = 0.0;
    }
    for (j = 0; j < n; j++)
        rho = rho + r[j] * r[j];
    for (it = 0; it < iters; it++) {
        rho0 = rho;
        d = 0.0;
        rho = 0.0;
        for (j = 0; j < n; j++)
            q[j] = 2.0 * p[j] + (j > 0 ? 0.5 * p[j - 1] : 0.0);
        for (j = 0; j < n; j++)
            d = d + p[j] * q[j];
        alpha = rho0 / d;
        for (j = 0; j < n; j++) {
            z[j] = z[j] + alpha * p[j];
            r[j] = r[j] - alpha * q[j];
            rho = rho + r[j] * r[j];
        }
        beta = rho / rho0;
        for (j = 0; j < n; j++)
            p[j] = r[j] + beta * p[j];
        steps_done++;
    }
    return rho;
}

static void plane_sweep(int ny)
{
    int i, i1, i2, j;
    for (i = 0; i < NP; i++) {
        i1 = i + 1;
        i2 = i + 2;
        for (j = 0; j < ny; j++)
            u[i2][j] = u[i2][j] - 0.25 * u[i1][j] * u[i][j];
    }
}

static void carried_shift(int ny)
{
    double s = 1.0;
    for (int t = 0; t < NP; t++) {
        for (int j = 0; j < ny; j++)
            v[t + 1][j] = v[t][j] * s + 0.5;
        s = 0.5 * s + 0.25;
    }
}

static void bump(void)
{
    steps_done++;
}

static void with_call(int ny)
{
    for (int t = 0; t < NP; t++) {
        for (int j = 0; j < ny; j++)
            v[t + 1][j] = v[t + 1][j] + v[t][j];
        bump();
    }
}

int main(void)
{
    for (int j = 0; j < N; j++)
        x[j] = 1.0 / (1.0 + j % 97);
    for (int i = 0; i < NP + 2; i++)
        for (int j = 0; j < NY; j++) {
            u[i][j] = 1.0 + 0.001 * ((i * 7 + j * 3) % 11);
            v[i][j] = 0.01 * ((i + j * 5) % 13);
        }
    double rho = cg_steps(25, N);
    plane_sweep(NY);
    carried_shift(NY);
    with_call(NY);
    double su = 0.0, sv = 0.0;
    for (int i = 0; i < NP + 2; i++)
        for (int j = 0; j < NY; j++) {
            su += u[i][j];
            sv += v[i][j];
        }
    printf("rho %.6e z %.6e u %.4f v %.3f steps %d\n", rho, z[N / 2], su, sv, steps_done);
    return 0;
}
