/* alloc_wrappers.c -- arrays allocated through wrappers of the allocator, as benchmark
 * suites often allocate every array (a data allocator calling a static `xmalloc` around
 * `posix_memalign`): each wrapper returns a new block, so the locals of main that hold
 * their results are distinct blocks, and the pointer parameters of the kernels they are
 * passed to cannot alias. The kernels' loops are parallel with no run-time overlap test.
 * A pool allocator that hands out slices of one static buffer is no wrapper: the kernel it
 * feeds keeps its run-time overlap test.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 400

static void *xmalloc(size_t size)
{
    void *p = NULL;
    int err = posix_memalign(&p, 32, size);
    if (!p || err) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static void *alloc_data(size_t n, size_t elt_size)
{
    void *block = xmalloc(n * elt_size);
    return block;
}

static double pool[3 * N * N];
static size_t pool_used;

static double *pool_take(size_t n)
{
    double *p = &pool[pool_used];
    pool_used += n;
    return p;
}

/* Every call passes three distinct blocks: the i loop needs no run-time test. */
static void kernel_mm(int n, double a[N][N], double b[N][N], double c[N][N])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += a[i][k] * b[k][j];
            c[i][j] = s;
        }
}

static void kernel_axpy(int n, double alpha, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = y[i] + alpha * x[i];
}

int main(void)
{
    double (*a)[N][N] = (double (*)[N][N])alloc_data(N * N, sizeof(double));
    double (*b)[N][N] = (double (*)[N][N])alloc_data(N * N, sizeof(double));
    double (*c)[N][N] = (double (*)[N][N])alloc_data(N * N, sizeof(double));
    double *x = pool_take(N * N);
    double *y = pool_take(N * N);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            (*a)[i][j] = 0.01 * ((i * 7 + j * 3) % 13);
            (*b)[i][j] = 0.02 * ((i * 5 + j) % 11);
        }
    kernel_mm(N, *a, *b, *c);
    for (int i = 0; i < N * N; i++) {
        x[i] = (*c)[i / N][i % N];
        y[i] = 1.0;
    }
    kernel_axpy(N * N, 0.5, x, y);
    double s = 0.0;
    for (int i = 0; i < N * N; i++)
        s += y[i] * (i % 3);
    printf("%.9e\n", s);
    free(a);
    free(b);
    free(c);
    return 0;
}
