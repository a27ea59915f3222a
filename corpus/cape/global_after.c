/* global_after.c -- globals written inside a region and then again after it, by the
 * sequential code every node runs: a later write must not be undone by a region's
 * checkpoint, and a value a region computed must be visible to the code after it.
 * A static local and a local struct are shared data of the region too.
 *
 * Usage: global_after [n]   (default 1000000)
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 2000000

int hist[MAXN];
long counter;
double scale = 1.0;

struct stats {
    double lo, hi;
};

static long fill(int n) {
    static int table[64];
    int i;
#pragma omp parallel for
    for (i = 0; i < 64; i++) {
        table[i] = i * i % 17;
    }
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        hist[i] = table[i % 64] + (int)scale;
    }
    return table[63];
}

int main(int argc, char **argv) {
    int n = 1000000;
    int i, round;
    struct stats st = {0.0, 0.0};
    long sum = 0;

    if (argc > 1) {
        n = atoi(argv[1]);
    }
    if (n < 2 || n > MAXN) {
        fprintf(stderr, "global_after: n must be in 2..%d\n", MAXN);
        return 1;
    }
    for (round = 0; round < 3; round++) {
        counter += fill(n);
        scale = scale * 2.0;
        hist[0] = -round;
#pragma omp parallel for reduction(+: sum)
        for (i = 0; i < n; i++) {
            sum += hist[i];
        }
    }
    st.lo = hist[0];
    st.hi = hist[n - 1];
#pragma omp parallel for
    for (i = 1; i < n; i++) {
        hist[i] = hist[i] + (int)(st.hi - st.lo);
    }
    counter = counter * 10 + hist[n / 2];
    printf("n = %d\n", n);
    printf("sum = %ld\n", sum);
    printf("counter = %ld\n", counter);
    printf("scale = %.1f, hist[1] = %d, hist[n-1] = %d\n", scale, hist[1], hist[n - 1]);
    return 0;
}
