/* bound_params.c -- pointer parameters that every call binds to one file-scope or static
 * array (NPB FT's evolve and compute_indexmap): inside the function they reach that array
 * only, so they cannot change another static array, nor overlap it.
 *
 * - evolve: u1 (every call passes the static u1 of main) against the file-scope table ex[]:
 *   the stores through u1 cannot reach ex, so the k loop is parallel without a run-time test.
 * - index_map: int stores through map (bound to main's static idx) cannot change the limit
 *   dims[0], an int of another array: the loop is counted and parallel.
 * - shift_into: called once with two different arrays and once with the same array twice
 *   (dst = src + 1): dst may reach src's array, so the loop stays sequential.
 */
#include <stdio.h>

#define N 24
#define EMAX 64

typedef struct {
    double re, im;
} cplx;

static double ex[EMAX];
static int dims[3];
static double ga[N * N], gb[N * N];

static void evolve(const cplx *u0, cplx *u1, int t, const int *map, const int *d)
{
    for (int k = 0; k < d[0] * d[1]; k++) {
        double e = ex[(t * map[k]) % EMAX];
        u1[k].re = u0[k].re * e;
        u1[k].im = u0[k].im * e;
    }
}

static void index_map(int map[][N])
{
    for (int i = 0; i < dims[0]; i++)
        for (int j = 0; j < dims[1]; j++)
            map[i][j] = (i * i + j * j) % 31;
}

static void shift_into(double *dst, const double *src, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = 0.5 * src[i] + 1.0;
}

int main(void)
{
    static cplx u0[N * N], u1[N * N];
    static int idx[N][N];
    dims[0] = dims[1] = dims[2] = N;
    ex[0] = 1.0;
    for (int i = 1; i < EMAX; i++)
        ex[i] = ex[i - 1] * 0.97;
    for (int k = 0; k < N * N; k++) {
        u0[k].re = 0.01 * (k % 17);
        u0[k].im = 0.02 * (k % 13);
        ga[k] = k % 7;
    }
    index_map(idx);
    double s = 0.0;
    for (int t = 1; t <= 3; t++) {
        evolve(u0, u1, t, &idx[0][0], dims);
        for (int k = 0; k < N * N; k++)
            s += u1[k].re * (k % 5 + 1) + u1[k].im;
    }
    shift_into(gb, ga, N * N);
    shift_into(ga + 1, ga, N * N - 1);
    double sa = 0.0, sb = 0.0;
    for (int k = 0; k < N * N; k++) {
        sa += ga[k] * (k % 3 + 1);
        sb += gb[k] * (k % 3 + 1);
    }
    printf("evolve %.6e\n", s);
    printf("shift %.6e %.6e\n", sa, sb);
    return 0;
}
