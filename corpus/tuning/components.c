/* Five components of a field, each smoothed in two sweeps (NPB's `for (m = 0; m < 5; m++)`
 * nests). ppo parallelizes the outermost parallel loop, the component loop: its 5 iterations
 * keep at most 5 threads busy, and 2 threads busy only 5/6 of the time (3 components on one,
 * 2 on the other). One level down, the sweeps feed every thread, at the cost of two regions
 * per component: which wins depends on the core count and the size, and only a measurement
 * tells. */
#include <stdio.h>

#define M 5
#define N 400000
#define STEPS 80

static double u[M][N], w[M][N];

static void smooth(void)
{
    for (int m = 0; m < M; m++) {
        double c = 0.25 + 0.05 * m;
        for (int i = 1; i < N - 1; i++)
            w[m][i] = u[m][i] + c * (u[m][i - 1] - 2.0 * u[m][i] + u[m][i + 1]);
        for (int i = 1; i < N - 1; i++)
            u[m][i] = w[m][i] / (1.0 + c * w[m][i] * w[m][i]);
    }
}

int main(void)
{
    for (int m = 0; m < M; m++)
        for (int i = 0; i < N; i++)
            u[m][i] = (double)((i * (m + 3)) % 1000) / 1000.0;
    for (int s = 0; s < STEPS; s++)
        smooth();
    double sum = 0.0;
    for (int m = 0; m < M; m++)
        for (int i = 0; i < N; i += 101)
            sum += u[m][i];
    printf("checksum %.6f\n", sum);
    return 0;
}
