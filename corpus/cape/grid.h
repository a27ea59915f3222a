/* grid.h -- the shared field of orphaned.c: a global array declared in a local header. */
#ifndef GRID_H
#define GRID_H
#define MAXN 2000000
static double field[MAXN];
static double flux[MAXN];
#endif
