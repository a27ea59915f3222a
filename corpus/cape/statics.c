/* statics.c -- shared data the regions reach only through pointers: `static` arrays of
 * `main` and a `posix_memalign` block, filled by `parallel for` loops in functions that
 * take them as parameters; and a team-sized region: `num_threads(4)` asks for four threads
 * in all (on any number of nodes), and a loop shared by hand with omp_get_thread_num().
 *
 * Usage: statics [n]   (default 1000000)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 2000000

static void fill(double *x, int n, double scale) {
    int i;
#pragma omp parallel for
    for (i = 0; i < n; i++)
        x[i] = scale * (i % 10);
}

static double dot(const double *x, const double *y, int n) {
    int i;
    double s = 0.0;
#pragma omp parallel for reduction(+: s)
    for (i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

int main(int argc, char **argv) {
    static double u[MAXN];
    int n = 1000000;
    int count = 0;
    double *w = NULL;
    double by_hand[64] = {0};

    if (argc > 1) {
        n = atoi(argv[1]);
    }
    if (n < 1 || n > MAXN) {
        fprintf(stderr, "statics: n must be in 1..%d\n", MAXN);
        return 1;
    }
    if (posix_memalign((void **)&w, 64, (size_t)n * sizeof *w) != 0) {
        fprintf(stderr, "statics: out of memory\n");
        return 1;
    }
    fill(u, n, 0.5);
    fill(w, n, 2.0);
#pragma omp parallel reduction(+: count) num_threads(4)
    {
        count += 1;
    }
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads(), k;
        for (k = t; k < 64; k += nt)
            by_hand[k] = u[k] + k;
    }
    printf("n = %d\n", n);
    printf("dot = %.1f\n", dot(u, w, n));
    printf("team of %d, by_hand[63] = %.1f\n", count, by_hand[63]);
    free(w);
    return 0;
}
