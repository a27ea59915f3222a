/* lookup_loop.c -- a Monte Carlo lookup loop as XSBench writes it. The inputs come in a
 * structure passed by value, whose `in.lookups` bounds the loop; each lookup seeds its own
 * generator and a call fills a small array declared in the loop's body
 * (`double xs[5] = {0}`) from tables it reads through pointers. The array is a new object
 * each iteration: private by scope (no clause names it, it is not declared where the
 * directive is), and no pointer can reach it, so the tables the call reads (through the
 * pointers of a structure passed by value) are not what the loop writes. The loop is parallel with a reduction. A loop whose bound lives in a
 * structure that a call in the body changes through its address stays sequential.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#define NGRID 2000
#define NMATS 12

typedef struct {
    int lookups;
    int n_grid;
    int n_mats;
} Inputs;

/* The tables, passed by value as XSBench and RSBench pass theirs. */
typedef struct {
    const double *grid;
    const double *conc;
} Tables;

static double rnd(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*seed >> 11) / 9007199254740992.0;
}

/* The cross sections of energy e in material mat: a binary search of the grid, then five
 * channels from the material's row of concentrations. It reads through the pointers of a
 * structure it gets by value, and writes only through out. */
static void lookup(double e, int mat, Tables tab, int n, double out[5])
{
    const double *grid = tab.grid, *conc = tab.conc;
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (grid[mid] > e)
            hi = mid;
        else
            lo = mid;
    }
    for (int k = 0; k < 5; k++)
        out[k] = conc[mat * n + lo] * (k + 1) + conc[mat * n + hi] * (5 - k) * e;
}

static unsigned long long run(Inputs in, Tables tab)
{
    unsigned long long verification = 0;
    for (int i = 0; i < in.lookups; i++) {
        uint64_t seed = 1469598103934665603ULL ^ (uint64_t)i;
        double e = rnd(&seed);
        int mat = (int)(rnd(&seed) * in.n_mats);
        double xs[5] = {0};
        lookup(e, mat, tab, in.n_grid, xs);
        int best = 0;
        for (int k = 1; k < 5; k++)
            if (xs[k] > xs[best])
                best = k;
        verification += best + 1;
    }
    return verification;
}

static void shrink(Inputs *in)
{
    if (in->lookups > 10)
        in->lookups -= 1;
}

/* The bound is `in.lookups`, and shrink changes it through its address. */
static double run_shrinking(Inputs in, const double *grid)
{
    double total = 0.0;
    for (int i = 0; i < in.lookups; i++) {
        total += grid[i % NGRID];
        shrink(&in);
    }
    return total;
}

int main(void)
{
    double *grid = malloc(NGRID * sizeof(double));
    double *conc = malloc(NMATS * NGRID * sizeof(double));
    if (!grid || !conc)
        return 1;
    for (int g = 0; g < NGRID; g++)
        grid[g] = (double)g / NGRID;
    for (int m = 0; m < NMATS; m++)
        for (int g = 0; g < NGRID; g++)
            conc[m * NGRID + g] = 0.001 * ((m * 37 + g * 11) % 101);
    Inputs in = {400000, NGRID, NMATS};
    Tables tab = {grid, conc};
    printf("verification %llu\n", run(in, tab));
    Inputs few = {1000, NGRID, NMATS};
    printf("shrinking %.6f\n", run_shrinking(few, grid));
    free(grid);
    free(conc);
    return 0;
}
