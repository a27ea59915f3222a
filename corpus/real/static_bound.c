/* static_bound.c -- loops bounded by a static global that no pointer can reach (its
 * address is never taken), storing through pointer parameters: the stores cannot change
 * the bound, so the loops are parallel (under a run-time test that the pointers do not
 * overlap). And a user directive under #ifdef _OPENMP: ppo must not add a second one.
 */
#include <stdio.h>

#define MAXN 20000

static int naa;
static double q[MAXN + 2], z[MAXN + 2], r[MAXN + 2], x[MAXN + 2];

static void init_vectors(double *qq, double *zz, double *rr, const double *xx)
{
    for (int j = 1; j <= naa + 1; j++) {
        qq[j] = 0.0;
        zz[j] = 0.0;
        rr[j] = xx[j];
    }
}

static double dot(const double *a, const double *b)
{
    double s = 0.0;
#ifdef _OPENMP
#pragma omp parallel for reduction(+:s)
#endif
    for (int j = 1; j <= naa + 1; j++)
        s += a[j] * b[j];
    return s;
}

int main(void)
{
    naa = MAXN;
    for (int j = 0; j < MAXN + 2; j++)
        x[j] = 1.0 / (j + 1);
    init_vectors(q, z, r, x);
    printf("dot %.6e\n", dot(r, x));
    printf("q %.6e\n", q[7] + z[9]);
    return 0;
}
