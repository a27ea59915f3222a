/* user_directives.c -- correct OpenMP directives written by hand that ppo must not flag
 * (no PPO120/PPO121): collapse(2) makes both indices private, a threadprivate
 * accumulator, an ordered region, and an omp for inside a parallel region whose
 * variables are declared in the region.
 */
#include <stdio.h>

#define N 300

static int grid[N][N];
static int tsum = 0;
#pragma omp threadprivate(tsum)
static int chain[N];

int main(void)
{
    int i, j, total = 0, steps = 0;
#pragma omp parallel for collapse(2)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            grid[i][j] = i + j;
#pragma omp parallel
    {
#pragma omp for
        for (i = 0; i < N; i++)
            tsum += grid[i][i];
#pragma omp critical
        total += tsum;
    }
#pragma omp parallel for ordered
    for (i = 1; i < N; i++) {
#pragma omp ordered
        {
            chain[i] = chain[i - 1] + grid[i][1];
            steps++;
        }
    }
#pragma omp parallel
    {
        int k, t;
#pragma omp for
        for (k = 0; k < N; k++) {
            t = grid[k][0] * 2;
            grid[k][0] = t + 1;
        }
    }
    printf("total %d chain %d steps %d corner %d\n", total, chain[N - 1], steps, grid[N - 1][0]);
    return 0;
}
