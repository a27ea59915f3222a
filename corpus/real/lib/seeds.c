/* seeds.c -- the generator of seeded_tally.c, in a file of its own (compiled with it).
 * Both functions reach memory only through their pointer parameters and keep no pointer:
 * `next_seed` updates `*seed`; `fill_uniform` updates `*seed` and writes y[1..n]. */
#include "../include/seeds.h"

#define T23 8388608.0
#define R23 (1.0 / T23)
#define T46 (T23 * T23)
#define R46 (R23 * R23)

double next_seed(double *seed, double a)
{
    double a1 = (int)(R23 * a), a2 = a - T23 * a1;
    double x1 = (int)(R23 * *seed), x2 = *seed - T23 * x1;
    double t1 = a1 * x2 + a2 * x1;
    double t2 = (int)(R23 * t1);
    double z = t1 - T23 * t2;
    double t3 = T23 * z + a2 * x2;
    double t4 = (int)(R46 * t3);
    *seed = t3 - T46 * t4;
    return R46 * *seed;
}

void fill_uniform(int n, double *seed, double a, double y[])
{
    int i;
    double x = *seed;
    for (i = 1; i <= n; i++) {
        y[i] = next_seed(&x, a);
    }
    *seed = x;
}
