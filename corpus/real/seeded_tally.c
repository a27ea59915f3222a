/* seeded_tally.c -- batches of random pairs tallied into a histogram, the shape of NPB EP.
 * corpus-link: lib/seeds.c
 *
 * Each batch starts its own seed (`t1 = …`, then `next_seed(&t1, …)`), fills a file-scope
 * scratch array through `fill_uniform(…, &t1, A, x + 1)` (which writes x[2..2*NK+1], its
 * y[1..n]), and tallies the pairs into buckets `l` computed in the iteration. The generator
 * is defined in lib/seeds.c: in batch mode its summary (reaches only `*seed` and y[1..n],
 * keeps no pointer) lets the batch loop run in parallel with t1, t2 private (their
 * addresses go only to those calls), x private (written in full before it is read) and
 * `qq` a histogram reduction. Analysed alone, the file calls unknown functions.
 */
#include <math.h>
#include <stdio.h>
#include "include/seeds.h"

#define NK 1024
#define NB 64
#define NQ 10
#define A 1220703125.0
#define S 271828183.0

static double x[2 * NK + 2];

int main(void)
{
    double sx = 0.0, sy = 0.0, q[NQ];
    double qq[NQ];
    double t1, t2, t3, t4, x1, x2;
    int k, i, l;

    for (i = 0; i < NQ; i++)
        qq[i] = 0.0;
    for (k = 0; k < NB; k++) {
        t1 = S;
        t2 = A;
        for (i = 0; i <= k % 7; i++)
            t3 = next_seed(&t1, t2);
        fill_uniform(2 * NK, &t1, A, x + 1);
        for (i = 0; i < NK; i++) {
            x1 = 2.0 * x[2 * i + 2] - 1.0;
            x2 = 2.0 * x[2 * i + 3] - 1.0;
            t1 = x1 * x1 + x2 * x2;
            if (t1 <= 1.0) {
                t2 = sqrt(-2.0 * log(t1) / t1);
                t3 = x1 * t2;
                t4 = x2 * t2;
                l = (int)fmax(fabs(t3), fabs(t4));
                qq[l] += 1.0;
                sx = sx + t3;
                sy = sy + t4;
            }
        }
    }
    for (i = 0; i < NQ; i++)
        q[i] = qq[i];
    printf("sums %.4e %.4e\n", sx, sy);
    for (i = 0; i < NQ; i++)
        printf("%d %.0f\n", i, q[i]);
    return 0;
}
