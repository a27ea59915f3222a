/* double_buffer.c -- a 3-D heat stencil on a linearized grid, `out[x + y*nx + z*nx*ny]`,
 * double-buffered by swapping two pointers after each step (`t = in; in = out; out = t;`).
 * Given `in = src` and `out = dst` once, before the time loop, and changed only by the
 * swap, the two pointers always designate the two buffers in some order: never the same
 * one. The subscript splits into `[z][y][x]` because `0 <= x < nx` and `0 <= y < ny`, so
 * each plane is written by one iteration of the `z` loop, which is parallel.
 *
 * The functions are not `static`, but this file defines `main` and no other file of the
 * program names them: in batch mode every call is here, and the buffers passed are
 * distinct allocations.
 *
 * Each rotation that breaks the pair keeps its loop sequential: a third buffer rotated in,
 * a pointer set again inside the time loop (after one swap both name `b`), and two
 * pointers that start on the same buffer. So does a function called with overlapping
 * arguments.
 */
#include <stdio.h>
#include <stdlib.h>

void diffuse3d(const float *src, float *dst, int nx, int ny, int nz, int steps)
{
    float *in = (float *)src;
    float *out = dst;
    int count = 0;
    do {
        for (int z = 0; z < nz; z++)
            for (int y = 0; y < ny; y++)
                for (int x = 0; x < nx; x++) {
                    int c = x + y * nx + z * nx * ny;
                    int w = (x == 0) ? c : c - 1;
                    int e = (x == nx - 1) ? c : c + 1;
                    int n = (y == 0) ? c : c - nx;
                    int s = (y == ny - 1) ? c : c + nx;
                    int b = (z == 0) ? c : c - nx * ny;
                    int t = (z == nz - 1) ? c : c + nx * ny;
                    out[c] = 0.4f * in[c] + 0.1f * (in[w] + in[e] + in[n] + in[s] + in[b] + in[t]);
                }
        float *t = in;
        in = out;
        out = t;
        count++;
    } while (count < steps);
}

/* Three buffers in rotation through two swaps: `in` and `out` may both be `c`'s. */
void rotate3(double *a, double *b, double *c, int n, int steps)
{
    double *in = a, *out = b, *spare = c, *t;
    for (int k = 0; k < steps; k++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 0; j < n; j++)
                out[i * n + j] = 0.5 * (in[(i - 1) * n + j] + in[(i + 1) * n + j]);
        t = in;
        in = out;
        out = t;
        t = out;
        out = spare;
        spare = t;
    }
}

/* `in` is set to `a` again in every step: after the first swap, `out` is `a` too. */
void restart(double *a, double *b, int n, int steps)
{
    double *in, *out = b, *t;
    for (int k = 0; k < steps; k++) {
        in = a;
        for (int i = 1; i < n - 1; i++)
            for (int j = 0; j < n; j++)
                out[i * n + j] = 0.5 * (in[(i - 1) * n + j] + in[(i + 1) * n + j]);
        t = in;
        in = out;
        out = t;
    }
}

/* Both pointers start on `a`: every step updates `a` in place. */
void same_start(double *a, int n, int steps)
{
    double *in = a, *out = a, *t;
    for (int k = 0; k < steps; k++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 0; j < n; j++)
                out[i * n + j] = 0.5 * (in[(i - 1) * n + j] + in[(i + 1) * n + j]);
        t = in;
        in = out;
        out = t;
    }
}

/* Called with `dst` one row past `src`: the parameters overlap. */
void shift_rows(const double *src, double *dst, int n)
{
    for (int i = 0; i < n * n; i++)
        dst[i] = 2.0 * src[i];
}

int main(void)
{
    int nx = 48, ny = 40, nz = 24, size = nx * ny * nz;
    float *p = malloc(size * sizeof(float));
    float *q = malloc(size * sizeof(float));
    for (int i = 0; i < size; i++)
        p[i] = (float)(i % 23);
    diffuse3d(p, q, nx, ny, nz, 5);
    double sum = 0.0;
    for (int i = 0; i < size; i++)
        sum += q[i] * (i % 3);
    printf("diffuse %.6e\n", sum);

    int n = 64;
    double *a = malloc((n * n + n) * sizeof(double));
    double *b = malloc(n * n * sizeof(double));
    double *c = malloc(n * n * sizeof(double));
    for (int i = 0; i < n * n; i++) {
        a[i] = (i * 7) % 13;
        b[i] = (i * 5) % 11;
        c[i] = (i * 3) % 7;
    }
    rotate3(a, b, c, n, 4);
    restart(a, b, n, 3);
    same_start(c, n, 3);
    shift_rows(a, a + n, n);
    double sa = 0.0, sb = 0.0, sc = 0.0;
    for (int i = 0; i < n * n; i++) {
        sa += a[i] * (i % 5);
        sb += b[i] * (i % 3);
        sc += c[i];
    }
    printf("a %.9e b %.9e c %.9e\n", sa, sb, sc);
    free(p);
    free(q);
    free(a);
    free(b);
    free(c);
    return 0;
}
