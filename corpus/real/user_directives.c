/* user_directives.c -- correct OpenMP directives written by hand that ppo must not flag
 * (no PPO120/PPO121): collapse(2) makes both indices private, a threadprivate
 * accumulator, an ordered region, an omp for inside a parallel region whose
 * variables are declared in the region, a scratch row threadprivate in a header, and
 * a small array of the region filled through its address by a helper (NPB BT's
 * exact_rhs and initialize).
 */
#include <stdio.h>
#include "include/scratch.h"

#define N 300

static int grid[N][N];
static int tsum = 0;
#pragma omp threadprivate(tsum)
static int chain[N];

/* The four corners of the two faces of cell k, through a pointer to the first. */
static void corners(int k, int *face)
{
    int c;
    for (c = 0; c < 8; c++)
        face[c] = k * 8 + c;
}

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
#pragma omp parallel
    {
        int k, m;
        int face[2][4];
#pragma omp for
        for (k = 0; k < N; k++) {
            for (m = 0; m < NS / 2; m++)
                row[m] = grid[k][m] + m;
            for (m = 0; m < NS / 2; m++)
                grid[k][3] += row[m];
        }
#pragma omp for
        for (k = 0; k < N; k++) {
            corners(k, &face[0][0]);
            grid[k][2] = face[0][0] + face[1][3];
        }
    }
    printf("total %d chain %d steps %d corner %d\n", total, chain[N - 1], steps, grid[N - 1][0]);
    printf("row %d %d\n", grid[N / 2][2], grid[N - 1][3]);
    return 0;
}
