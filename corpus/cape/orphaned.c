/* orphaned.c -- worksharing loops in functions called from a `parallel` region (orphaned
 * `omp for`), over arrays declared in a local header: called from the region the loops are
 * shared among the nodes; called from sequential code they run whole on every node.
 *
 * Usage: orphaned [n [steps]]   (default 1000000 x 10)
 */
#include <stdio.h>
#include <stdlib.h>
#include "grid.h"

static void init(int n) {
    int i;
#pragma omp for
    for (i = 0; i < n; i++)
        field[i] = (double)(i % 100);
}

static void smooth(int n) {
    int i;
#pragma omp for
    for (i = 1; i < n - 1; i++)
        flux[i] = 0.25 * (field[i - 1] + 2.0 * field[i] + field[i + 1]);
#pragma omp for
    for (i = 1; i < n - 1; i++)
        field[i] = flux[i];
}

int main(int argc, char **argv) {
    int n = 1000000, steps = 10;
    int s, i;
    double sum = 0.0;

    if (argc > 1) {
        n = atoi(argv[1]);
    }
    if (argc > 2) {
        steps = atoi(argv[2]);
    }
    if (n < 3 || n > MAXN || steps < 1) {
        fprintf(stderr, "orphaned: n must be in 3..%d and steps positive\n", MAXN);
        return 1;
    }
    init(n); /* sequential: the whole loop on every node */
#pragma omp parallel private(s)
    {
        for (s = 0; s < steps; s++)
            smooth(n);
    }
    for (i = 0; i < n; i++)
        sum += field[i] * (i % 7);
    printf("n = %d, steps = %d\n", n, steps);
    printf("sum = %.6f\n", sum);
    return 0;
}
