/* bernstein.c -- a `parallel for` whose iterations write the same locations: a histogram
 * through an index array. The analysis cannot prove it (the subscript is read from
 * memory), so the translation goes through, and the CAPE runtime's merge finds two nodes
 * that wrote the same bytes of `bins` with different values: the run stops, naming the
 * region and the variable. (OpenMP itself gives a race here: the expert fix is an
 * `atomic` or an array reduction.)
 *
 * Usage: bernstein [n]   (default 100000)
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 1000000

int key[MAXN];
long bins[16];

int main(int argc, char **argv) {
    int n = 100000;
    int i;

    if (argc > 1) {
        n = atoi(argv[1]);
    }
    if (n < 16 || n > MAXN) {
        fprintf(stderr, "bernstein: n must be in 16..%d\n", MAXN);
        return 1;
    }
    for (i = 0; i < n; i++) {
        key[i] = (i * 7) % 16;
    }
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        bins[key[i]] += 1;
    }
    printf("bins[0] = %ld\n", bins[0]);
    return 0;
}
