/* called_in_loop.c -- loops of functions called inside a loop (NPB FT's cfftz, whose block
 * copy runs once per line of the 3-D transform): each call pays a parallel region of its
 * own, as a nested loop pays one per iteration of its parent. A nest too small for a region
 * stays sequential, constant or bounded by the arrays it copies (NX x BLK here), a large one
 * keeps its directive, and a function called once needs no test.
 */
#include <stdio.h>

#define NX 64
#define BLK 16

static double xa[NX][BLK], ya[NX][BLK], za[NX][BLK];
static double grid[256][256];

/* Copy a block: n * blk copies per call, at most NX * BLK. */
static void copy_block(int n, int blk, double x[NX][BLK], double y[NX][BLK])
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < blk; i++)
            x[j][i] = y[j][i];
}

/* 8 x 16 updates per call: less work than a region. */
static void relax_corner(void)
{
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < BLK; i++)
            za[j][i] = 0.5 * za[j][i] + 0.25 * xa[j][i];
}

/* Runs inside a loop, so the functions it calls run once per iteration too. */
static void sweep(int n)
{
    copy_block(n, BLK, xa, ya);
    relax_corner();
}

/* 256 x 256 updates per call: worth a region even once per call. */
static void stamp(double v)
{
    for (int j = 0; j < 256; j++)
        for (int i = 0; i < 256; i++)
            grid[j][i] = grid[j][i] * 0.5 + v;
}

/* Called once: its loop needs no size test. */
static void init(int n)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < BLK; i++) {
            ya[j][i] = 0.001 * (j * BLK + i);
            za[j][i] = 1.0;
        }
}

int main(void)
{
    init(NX);
    for (int step = 0; step < 2000; step++) {
        sweep(NX);
        ya[step % NX][step % BLK] += 1e-3;
    }
    for (int r = 0; r < 4; r++)
        stamp(0.125 * r);
    double s = 0.0, t = 0.0, g = 0.0;
    for (int j = 0; j < NX; j++)
        for (int i = 0; i < BLK; i++) {
            s += xa[j][i];
            t += za[j][i];
        }
    for (int j = 0; j < 256; j++)
        for (int i = 0; i < 256; i++)
            g += grid[j][i];
    printf("copy %.6e relax %.6e grid %.6e\n", s, t, g);
    return 0;
}
