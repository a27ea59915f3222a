/* scratch_transform.c -- blocks of lines transformed in place in a scratch array by a call
 * (NPB FT's `cffts1` around `cfftz`). For each plane `k`, `lines` copies a block of lines
 * into the local `y0`, has `transform` work on it with `y1` as scratch, and copies it back.
 * Which elements `transform` reads before it writes them depends on `n` being 2^m, which no
 * section test proves; but `transform` takes the same path and makes the same accesses for
 * the same `m` and `n` whatever its arrays hold (its branches and subscripts are computed
 * from `m`, `n` and the global `block` only), and every plane copies the same elements. So
 * every plane uses `y0` and `y1` alike: a value one plane read before writing it would be,
 * in the first plane, a value the arrays never held. The plane loop is parallel with
 * `private(y0, y1)`. `transform`'s check of its arguments prints and exits: an error exit,
 * not an effect the planes must keep in order. ppo once kept the plane loops sequential.
 *
 * Stay sequential: a call whose writes depend on what it reads (`carry` keeps the columns
 * of some planes in `y1` for the next ones), and a scratch array given values before the
 * loop that the calls accumulate into (`lines_accumulated`).
 */
#include <stdio.h>
#include <stdlib.h>

#define NX 128
#define NY 64
#define NZ 32
#define BLOCK 4
#define PAD (BLOCK + 2)

static double grid[NZ][NY][NX];
static double twiddle[NX];
static int block = BLOCK;

/* One pass: `n / 2` butterflies on each of the `block` columns, from x into y. */
static void pass(int l, int n, double x[NX][PAD], double y[NX][PAD])
{
    int half = n / 2;
    for (int i = 0; i < half; i++) {
        for (int j = 0; j < block; j++) {
            double a = x[i][j], b = x[i + half][j];
            y[2 * i][j] = 0.5 * (a + twiddle[(i * l) % NX] * b);
            y[2 * i + 1][j] = 0.5 * (a - twiddle[(i * l) % NX] * b);
        }
    }
}

/* `m` passes over the `n` points of each column of x, in place; y is scratch. */
static void transform(int m, int n, double x[NX][PAD], double y[NX][PAD])
{
    if (m < 1 || n > NX) {
        printf("transform: bad size m = %d, n = %d\n", m, n);
        exit(1);
    }
    for (int l = 1; l <= m; l += 2) {
        pass(l, n, x, y);
        if (l == m)
            break;
        pass(l + 1, n, y, x);
    }
    if (m % 2 == 1) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < block; j++)
                x[i][j] = y[i][j];
    }
}

static void lines(int m, int n)
{
    double y0[NX][PAD], y1[NX][PAD];
    for (int k = 0; k < NZ; k++) {
        for (int jj = 0; jj <= NY - block; jj += block) {
            for (int j = 0; j < block; j++)
                for (int i = 0; i < n; i++)
                    y0[i][j] = grid[k][jj + j][i];
            transform(m, n, y0, y1);
            for (int j = 0; j < block; j++)
                for (int i = 0; i < n; i++)
                    grid[k][jj + j][i] = y0[i][j];
        }
    }
}

/* Keeps the columns of the planes whose first point is zero, and blends the other planes'
 * columns with the last kept ones: which elements it writes depends on what it reads. */
static void carry(int n, double x[NX][PAD], double y[NX][PAD])
{
    for (int j = 0; j < block; j++) {
        if (x[0][j] == 0.0) {
            for (int i = 0; i < n; i++)
                y[i][j] = x[i][j];
        }
        for (int i = 0; i < n; i++)
            x[i][j] = 0.5 * (x[i][j] + y[i][j]);
    }
}

static void lines_carried(int n)
{
    double y0[NX][PAD], y1[NX][PAD];
    for (int k = 0; k < NZ; k++) {
        for (int j = 0; j < block; j++)
            for (int i = 0; i < n; i++)
                y0[i][j] = grid[k][j][i];
        for (int j = 0; j < block; j++)
            y0[0][j] = k % 3;
        carry(n, y0, y1);
        for (int j = 0; j < block; j++)
            for (int i = 0; i < n; i++)
                grid[k][j][i] = y0[i][j];
    }
}

/* Adds each point's neighbour into y: y keeps what earlier planes added. */
static void accumulate(int n, double x[NX][PAD], double y[NX][PAD])
{
    for (int i = 0; i < n - 1; i++)
        for (int j = 0; j < block; j++)
            y[i][j] += 0.5 * x[i + 1][j];
}

static void lines_accumulated(int n)
{
    double y0[NX][PAD], y1[NX][PAD];
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < PAD; j++)
            y1[i][j] = 0.0;
    for (int k = 0; k < NZ; k++) {
        for (int j = 0; j < block; j++)
            for (int i = 0; i < n; i++)
                y0[i][j] = grid[k][j][i];
        accumulate(n, y0, y1);
        for (int j = 0; j < block; j++)
            for (int i = 0; i < n; i++)
                grid[k][j][i] += y1[i][j];
    }
}

int main(void)
{
    for (int i = 0; i < NX; i++)
        twiddle[i] = 1.0 / (1.0 + i);
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                grid[k][j][i] = (double)((k * 7 + j * 3 + i) % 11) / 11.0;
    for (int step = 0; step < 3; step++)
        lines(7, NX);
    lines(5, 32);
    lines_carried(NX);
    lines_accumulated(NX);
    double sum = 0.0;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                sum += grid[k][j][i] * (1 + (i + j + k) % 5);
    printf("grid %.9e\n", sum);
    return 0;
}
