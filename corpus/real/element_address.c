/* element_address.c -- the address of an element a pointer reaches is not the address of
 * the pointer. `&z[i3][i2][0]` with `double ***z` (NPB MG's zran3 hands rows of its grid to
 * a generator) and `&(idx[0])` with `int idx[]` a parameter (NPB CG's makea) take the
 * address of memory the pointers point to; `z` and `idx` themselves stay unaliased, so the
 * zeroing loops over them are parallel. Taking `&a[i]` of a local array does take `a`'s
 * address: the loop writing through the pointer it gave stays sequential.
 */
#include <stdio.h>
#include <stdlib.h>

#define N3 24
#define N2 24
#define N1 32
#define NI 40000

static void fill_row(int n, double *seed, double *row)
{
    int i;
    for (i = 0; i < n; i++) {
        *seed = *seed * 1.000001 + 0.5;
        row[i] = *seed - (int)*seed;
    }
}

static void mark(int n, int *lo, int *hi)
{
    int i;
    for (i = 0; i < n; i += 97)
        hi[i % 40] += lo[i];
}

static double grid(double ***z)
{
    int i1, i2, i3;
    double seed = 0.25, s = 0.0;
    for (i3 = 0; i3 < N3; i3++)
        for (i2 = 0; i2 < N2; i2++)
            fill_row(N1, &seed, &z[i3][i2][0]);
    for (i3 = 0; i3 < N3; i3++)
        for (i2 = 0; i2 < N2; i2++)
            for (i1 = 0; i1 < N1; i1++)
                s += z[i3][i2][i1];
    for (i3 = 0; i3 < N3; i3++)
        for (i2 = 0; i2 < N2; i2++)
            for (i1 = 0; i1 < N1; i1++)
                z[i3][i2][i1] = 0.0;
    return s;
}

static int table(int n, int idx[])
{
    int i, t = 0;
    for (i = 0; i < n; i++)
        idx[n + i] = 0;
    mark(n, &(idx[0]), &(idx[n]));
    for (i = 0; i < 40; i++)
        t += idx[n + i];
    return t;
}

static double local_alias(void)
{
    double a[NI], *p = &a[0], s = 0.0;
    int i;
    for (i = 0; i < NI; i++)
        a[i] = i * 0.5;
    for (i = 1; i < NI; i++)
        p[i] = p[i - 1] + a[i];
    for (i = 0; i < NI; i++)
        s += a[i];
    return s;
}

int main(void)
{
    static int idx[2 * NI];
    double ***z = malloc(N3 * sizeof *z);
    int i, j;
    for (i = 0; i < N3; i++) {
        z[i] = malloc(N2 * sizeof **z);
        for (j = 0; j < N2; j++)
            z[i][j] = malloc(N1 * sizeof ***z);
    }
    for (i = 0; i < NI; i++)
        idx[i] = i % 7;
    printf("grid %.3f\n", grid(z));
    printf("table %d\n", table(NI, idx));
    printf("alias %.1f\n", local_alias());
    for (i = 0; i < N3; i++) {
        for (j = 0; j < N2; j++)
            free(z[i][j]);
        free(z[i]);
    }
    free(z);
    return 0;
}
