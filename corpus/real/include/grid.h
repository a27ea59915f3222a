/* grid.h -- the fields of header_globals.c, declared the way large solvers declare
 * them: static arrays and the grid size in a header that every source file includes. */
#ifndef GRID_H
#define GRID_H

#define NX 48
#define NC 5

static double u[NX][NX][NC], rhs[NX][NX][NC], forcing[NX][NX][NC];
static int grid_points[3];
static double dt;

void set_grid(int n);

#endif
