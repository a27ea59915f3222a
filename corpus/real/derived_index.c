/* derived_index.c -- subscripts through locals assigned from the loop indices (NPB MG's
 * `i1 = 2*j1 - d1`, BT's `ip1 = i + 1`), and scratch rows read right after their write in
 * the same iteration (MG's interp: `z1[i1] = ...; z3[i1] = ... + z1[i1];`). At each
 * reference the local is an affine function of the indices; the rows are private to the
 * outer loop. A local assigned after its use, or conditionally, keeps its loop sequential.
 */
#include <stdio.h>

#define N 96
#define M (2 * N + 2)

static double fine[N][M], coarse[N][N], out[N][M];
static double z1[M], z3[M];

/* Column i1 = 2*j1 - d1 of the fine grid belongs to iteration j1 alone. */
static void prolong(int n, int d1)
{
    int j1, j2, i1;
    for (j1 = 1; j1 < n; j1++) {
        i1 = 2 * j1 - d1;
        for (j2 = 0; j2 < n; j2++) {
            fine[j2][i1] = coarse[j2][j1];
            fine[j2][i1 + 1] = 0.5 * (coarse[j2][j1] + coarse[j2][j1 - 1]);
        }
    }
}

/* Row `row = i + 1` of out, from rows i - 1 and i + 1 of fine. */
static void shift_rows(int n)
{
    for (int i = 1; i < n - 1; i++) {
        int row = i + 1;
        int im1 = i - 1;
        for (int j = 0; j < M; j++)
            out[row][j] = fine[im1][j] + fine[row][j];
    }
}

/* z1 and z3 are filled for the whole row, z1 read at once, then both read by a second
 * loop: scratch rows private to each i2. */
static void interp(int n)
{
    for (int i2 = 0; i2 < n; i2++) {
        for (int i1 = 0; i1 < M; i1++) {
            z1[i1] = fine[i2][i1] * 0.5;
            z3[i1] = z1[i1] + 1.0;
        }
        for (int i1 = 1; i1 < M - 1; i1++)
            out[i2][i1] = z3[i1] + 0.25 * (z1[i1 - 1] + z1[i1 + 1]);
    }
}

/* The local holds the previous iteration's value when the element is written. */
static void lagged(int n)
{
    int k = 0;
    for (int j = 1; j < n; j++) {
        out[0][k] += fine[1][j];
        k = 2 * j;
    }
}

int main(void)
{
    for (int j2 = 0; j2 < N; j2++)
        for (int j1 = 0; j1 < N; j1++)
            coarse[j2][j1] = 0.01 * ((j2 * 7 + j1 * 3) % 23);
    prolong(N, 1);
    shift_rows(N);
    lagged(N);
    interp(N);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            s += out[i][j] * (1 + (i + j) % 5);
    printf("checksum %.10e z %.6e %.6e\n", s, z1[M / 2], z3[M - 1]);
    return 0;
}
