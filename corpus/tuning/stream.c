/* A memory-bound update called many times: each call streams 64 KB, little arithmetic per
 * byte. Whether two threads (or, on a larger machine, fewer than all) beat one depends on
 * the memory system and the fork cost: only a measurement can tell. */
#include <stdio.h>

#define N 8192
#define CALLS 3000

static double x[N], y[N];

static void axpy(double *restrict dst, const double *restrict src, double alpha, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = dst[i] * 0.999 + alpha * src[i];
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        x[i] = (i % 7) * 0.5;
        y[i] = (i % 3) * 0.25;
    }
    for (int c = 0; c < CALLS; c++)
        axpy(y, x, 0.001, N);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += y[i];
    printf("checksum %.10f\n", s);
    return 0;
}
