/* flag_search.c -- a flag or an index set only by the iterations that find something, and
 * read after the loop (NPB CG's `vecset`): lastprivate(conditional:), which must leave the
 * variable alone when no iteration assigns it.
 *
 * - set_entry: `set = 1` when some `iv[k] == i`; the loop's limit `*nzv` is an int the
 *   double and int stores cannot reach (`v` is double, `iv` is only read). After the loop,
 *   `set == 0` appends the entry. main calls it both with an entry that is present (the
 *   flag is set) and with one that is not (no iteration assigns it: the flag keeps 0).
 * - last_match: the index of the last element above a threshold, -1 when none is: called
 *   with thresholds that no element, one element in the first half, and many elements pass.
 *
 * Both loops are parallel with lastprivate(conditional:), which only GCC 10 and later compile
 * right in C: the directive is emitted under `#if` that names those compilers, and the loop
 * stays sequential elsewhere (clang copies back a private copy that no iteration assigned).
 * Run at several thread counts, the output is the sequential program's.
 */
#include <stdio.h>

#define N 4096

static double v[N + 1];
static int iv[N + 1];
static double x[N];

static void set_entry(int *nzv, int i, double val)
{
    int k, set;

    set = 0;
    for (k = 0; k < *nzv; k++) {
        if (iv[k] == i) {
            v[k] = val;
            set = 1;
        }
    }
    if (set == 0) {
        v[*nzv] = val;
        iv[*nzv] = i;
        *nzv = *nzv + 1;
    }
}

static int last_match(int n, double threshold)
{
    int i, last = -1;

    for (i = 0; i < n; i++)
        if (x[i] > threshold)
            last = i;
    return last;
}

int main(void)
{
    int nzv = 0;

    for (int k = 0; k < N / 2; k++) {
        iv[k] = 3 * k;
        v[k] = 0.5 * k;
        nzv++;
    }
    for (int i = 0; i < N; i++)
        x[i] = (double)((i * 37) % 1000);
    x[N / 3] = 5000.0;
    set_entry(&nzv, 3 * 700, 1.25);   /* present: overwritten in place */
    set_entry(&nzv, 3 * 700 + 1, 2.5); /* absent: appended */
    set_entry(&nzv, 1, 3.75);         /* absent: appended */
    double s = 0.0;
    long si = 0;
    for (int k = 0; k < nzv; k++) {
        s += v[k] * (1 + k % 7);
        si += (long)iv[k] * (1 + k % 5);
    }
    printf("nzv %d\n", nzv);
    printf("v %.6e\n", s);
    printf("iv %ld\n", si);
    printf("last above 9000: %d\n", last_match(N, 9000.0));
    printf("last above 2000: %d\n", last_match(N, 2000.0));
    printf("last above 500: %d\n", last_match(N, 500.0));
    return 0;
}
