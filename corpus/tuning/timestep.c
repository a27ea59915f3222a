/* A short parallel loop inside a long sequential time loop: relax() is called 40,000 times
 * and each call has 254 iterations of a few flops. A parallel region per call (a fork and
 * a join, microseconds) costs far more than the loop's work (a fraction of a microsecond
 * per thread): the parallel version is slower than the sequential one on any machine. */
#include <stdio.h>

#define N 256
#define STEPS 20000

static double a[N], b[N];

static void relax(double *dst, const double *src, int n)
{
    for (int i = 1; i < n - 1; i++)
        dst[i] = 0.25 * src[i - 1] + 0.5 * src[i] + 0.25 * src[i + 1];
}

int main(void)
{
    for (int i = 0; i < N; i++)
        a[i] = b[i] = (i % 17) * 0.1;
    for (int t = 0; t < STEPS; t++) {
        relax(b, a, N);
        relax(a, b, N);
    }
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += a[i] * (i + 1);
    printf("checksum %.10f\n", s);
    return 0;
}
