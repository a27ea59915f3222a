/* moving_pointer.c -- a pointer assigned in each iteration, then subscripted: `p[k]` in two
 * iterations is not one element at two subscripts, since `p` moves. ppo once compared such
 * references as if `p` stood still, and parallelized `p = a + (k & 1); p[k] += 1;`, whose
 * iterations 1 and 2 both update a[2]. Now a reference through a pointer the loop assigns is
 * taken in terms of what the pointer was given: `row = a + i * m; row[j]` is `a[i*m + j]`,
 * row `i` of `a`, so the row loop is parallel; `p[k]` is `a[(k & 1) + k]`, which the test
 * cannot follow; and a block found through an offset read from memory (a particle box's
 * `start[b]`, as in a molecular-dynamics kernel) stays sequential: two boxes may share
 * particles.
 */
#include <stdio.h>

#define N 4000
#define M 64
#define B 50

static double a[N + 2], g[B * M], h[B * M];
static int start[B];

static void bump(int n, double *v)
{
    double *p;
    for (int k = 0; k < n; k++) {
        p = v + (k & 1);
        p[k] = p[k] + 1.0;
    }
}

static void scale_rows(int n, int m, double *restrict v)
{
    for (int i = 0; i < n; i++) {
        double *row = v + i * m;
        for (int j = 0; j < m; j++)
            row[j] = 2.0 * row[j] + j;
    }
}

static void boxes(int nb, int m)
{
    for (int b = 0; b < nb; b++) {
        double *f = &h[start[b]];
        for (int i = 0; i < m; i++)
            f[i] += 0.5 * g[start[b] + i];
    }
}

int main(void)
{
    for (int i = 0; i < N + 2; i++)
        a[i] = i % 7;
    for (int i = 0; i < B * M; i++)
        g[i] = (i % 11) * 0.25;
    for (int b = 0; b < B; b++)
        start[b] = (b * M) / 2;
    bump(N, a);
    scale_rows(B, M, g);
    boxes(B, M);
    double sa = 0.0, sg = 0.0, sh = 0.0;
    for (int i = 0; i < N + 2; i++)
        sa += a[i] * (i % 3);
    for (int i = 0; i < B * M; i++) {
        sg += g[i];
        sh += h[i] * (i % 5);
    }
    printf("a %.6f g %.6f h %.6f\n", sa, sg, sh);
    return 0;
}
