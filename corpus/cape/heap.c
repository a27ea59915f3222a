/* heap.c -- arrays allocated with malloc and calloc (and grown with realloc) written by
 * `parallel for` loops: the CAPE runtime registers heap blocks through its allocation
 * wrappers, so what each node writes into them reaches every node.
 *
 * Usage: heap [n]   (default 3000000)
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = 3000000;
    long i;
    double *v, *w;
    long *idx;
    double dot = 0.0;

    if (argc > 1) {
        n = atol(argv[1]);
    }
    if (n < 2) {
        fprintf(stderr, "heap: n must be at least 2\n");
        return 1;
    }
    v = malloc(n * sizeof *v);
    w = calloc(n, sizeof *w);
    idx = malloc(n / 2 * sizeof *idx);
    if (!v || !w || !idx) {
        fprintf(stderr, "heap: out of memory\n");
        return 1;
    }
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        v[i] = (double)(i % 1000) * 0.001;
        w[i] = (double)((i * 7) % 13);
    }
    idx = realloc(idx, n * sizeof *idx);
    if (!idx) {
        fprintf(stderr, "heap: out of memory\n");
        return 1;
    }
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        idx[i] = (i * 31) % n;
    }
#pragma omp parallel for reduction(+: dot)
    for (i = 0; i < n; i++) {
        dot += v[i] * w[idx[i]];
    }
    printf("n = %ld\n", n);
    printf("dot = %.6f\n", dot);
    printf("idx[n-1] = %ld, v[n/3] = %.3f, w[n-1] = %.0f\n", idx[n - 1], v[n / 3], w[n - 1]);
    free(v);
    free(w);
    free(idx);
    return 0;
}
