/* mandelbrot.c -- escape-time iteration counts of the Mandelbrot set on a w x h grid.
 *
 * DMCG directives: the row loop is a DOALL loop with guided self-scheduling (GSS): the
 * iterations are very irregular (rows through the set cost up to MAXIT steps per pixel,
 * rows outside it a few), so a static partition would leave ranks idle. Each iteration
 * writes only its own row of `iters`; the checksum loop after the DOALL block runs on
 * rank 0 once the rows are collected. The INIT block (the sizes) runs on every rank.
 *
 * The iteration counts are integers computed with the same floating-point operations on
 * every rank, so the checksums are exact.
 *
 * Usage: mandelbrot [w [h]]   (default 900 x 600; h defaults to 2*w/3; at most MAXW x MAXH)
 * Prints: the grid size, the number of points in the set (count == MAXIT), the sum of all
 * counts, and a position-weighted checksum.
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXW 4096
#define MAXH 4096
#define MAXIT 1000

int iters[MAXH][MAXW];

int main(int argc, char **argv) {
    int w, h;
    int i, j, k;
    double cr, ci, zr, zi, t;
    long inside, total, weighted;

    /* INIT_BEGIN */
    w = 900;
    if (argc > 1) {
        w = atoi(argv[1]);
    }
    h = 2 * w / 3;
    if (argc > 2) {
        h = atoi(argv[2]);
    }
    /* INIT_END */
    if (w < 1 || w > MAXW || h < 1 || h > MAXH) {
        fprintf(stderr, "mandelbrot: w must be in 1..%d and h in 1..%d\n", MAXW, MAXH);
        return 1;
    }

    /* DOALL_BEGIN P = GSS */
    for (i = 0; i < h; i++) {
        for (j = 0; j < w; j++) {
            cr = -2.0 + 3.0 * j / w;
            ci = -1.0 + 2.0 * i / h;
            zr = 0.0;
            zi = 0.0;
            k = 0;
            while (k < MAXIT && zr * zr + zi * zi <= 4.0) {
                t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                k++;
            }
            iters[i][j] = k;
        }
    }
    /* DOALL_END */

    inside = 0;
    total = 0;
    weighted = 0;
    for (i = 0; i < h; i++) {
        for (j = 0; j < w; j++) {
            if (iters[i][j] == MAXIT) {
                inside++;
            }
            total += iters[i][j];
            weighted += (long)iters[i][j] * ((i * 31 + j * 17) % 101);
        }
    }
    printf("grid = %d x %d\n", w, h);
    printf("inside = %ld\n", inside);
    printf("total = %ld\n", total);
    printf("weighted = %ld\n", weighted);
    return 0;
}
