/* A time loop around a short DOALL loop and a recurrence: every step, the DOALL loop's rows
 * go to the ranks and back to rank 0, which runs the recurrence. Its work per step (N square
 * roots) is smaller than the transfers: measured, the loop runs faster on rank 0 alone.
 * Usage: recurrence [N [STEPS]]   (default 2000 and 100000) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 100000
static double a[MAXN], b[MAXN];

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    int steps = argc > 2 ? atoi(argv[2]) : 100000;
    if (n < 2 || n > MAXN || steps < 1) {
        fprintf(stderr, "recurrence: N must be in [2, %d] and STEPS positive\n", MAXN);
        return 1;
    }
    for (int i = 0; i < n; i++)
        a[i] = 1.0 + (i % 7);
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < n; i++)
            b[i] = sqrt(a[i] + 1.0);
        a[0] = b[0];
        for (int i = 1; i < n; i++)
            a[i] = 0.5 * (a[i - 1] + b[i]);
    }
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i];
    printf("n %d steps %d sum %.6f\n", n, steps, s);
    return 0;
}
