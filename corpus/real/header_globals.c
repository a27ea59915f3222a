/* header_globals.c -- loops over arrays declared in a local header (include/grid.h).
 *
 * The header's declarations belong to the translation unit: u, rhs and forcing are
 * distinct static arrays with known dimensions, and grid_points is a global array that
 * bounds the loops.
 *
 * L21 set_grid: parallel but small-trip (3 iterations): no directive
 * L29 init: parallel, doall [private(j, m) collapse(3)]
 * L40 add: parallel, small-trip -- called once per time step: 48 x 48 x 5 updates per call, less than a region
 * L49 compute_rhs: parallel, doall [private(j, m) collapse(3)] -- bounds read from grid_points, which
 *     the loop does not write
 * L58 sweep: sequential, flow-dep -- u[i] needs u[i-1] of this sweep
 * L59 sweep: parallel, doall [private(m) collapse(2)] -- inner loop of the sequential sweep
 * L67 checksum: sequential, flow-dep (order-sensitive hash)
 */
#include <stdio.h>
#include "include/grid.h"

void set_grid(int n)
{
    for (int d = 0; d < 3; d++)
        grid_points[d] = n;
    dt = 0.015625;
}

static void init(void)
{
    int i, j, m;
    for (i = 0; i < NX; i++)
        for (j = 0; j < NX; j++)
            for (m = 0; m < NC; m++) {
                u[i][j][m] = 1.0 + 0.01 * (i + 2 * j) + 0.1 * m;
                forcing[i][j][m] = 0.001 * ((i * 7 + j * 3 + m) % 11);
            }
}

static void add(void)
{
    int i, j, m;
    for (i = 0; i < NX; i++)
        for (j = 0; j < NX; j++)
            for (m = 0; m < NC; m++)
                u[i][j][m] = u[i][j][m] + dt * rhs[i][j][m];
}

static void compute_rhs(void)
{
    int i, j, m;
    for (i = 1; i < grid_points[0] - 1; i++)
        for (j = 1; j < grid_points[1] - 1; j++)
            for (m = 0; m < NC; m++)
                rhs[i][j][m] = forcing[i][j][m] - 0.25 * (u[i - 1][j][m] + u[i + 1][j][m] + u[i][j - 1][m] + u[i][j + 1][m] - 4.0 * u[i][j][m]);
}

static void sweep(void)
{
    int i, j, m;
    for (i = 1; i < NX; i++)
        for (j = 0; j < NX; j++)
            for (m = 0; m < NC; m++)
                u[i][j][m] = 0.5 * (u[i][j][m] + u[i - 1][j][m]);
}

static unsigned long checksum(void)
{
    unsigned long h = 0;
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NX; j++)
            for (int m = 0; m < NC; m++)
                h = h * 1000003u + (unsigned long)(u[i][j][m] * 1e6);
    return h;
}

int main(void)
{
    set_grid(NX);
    init();
    for (int step = 0; step < 3; step++) {
        compute_rhs();
        add();
    }
    sweep();
    printf("u checksum %lu\n", checksum());
    printf("u[7][9][2] %.6e\n", u[7][9][2]);
    return 0;
}
