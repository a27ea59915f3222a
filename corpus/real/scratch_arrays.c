/* scratch_arrays.c -- arrays that each iteration fills before it reads them (NPB SP's lhsx,
 * BT's initialize, LU's setiv): each thread gets its own copy.
 *
 * - lhs_rows: file-scope rows cv[] and rhon[] filled for i = 0..n-1, then read at i - 1 and
 *   i + 1, for every (j, k). Their values after the loop are the sequential ones (the last
 *   iteration's copy): firstprivate + lastprivate on the j loop. The limits read grid[],
 *   which the double stores cannot change.
 * - faces: a local temp[5] written by face_value(), which always writes temp[0..4] and
 *   never reads it, then read; temp is reused by the next loop, so the first loop keeps the
 *   last copy (firstprivate + lastprivate) and the second one only needs private(temp).
 * - partial_fill: fill_some() writes temp[0..3] only when its argument is positive: no
 *   copy is right, sequential.
 * - keep_last: the rows are only written (the last j's values survive): an output
 *   dependence, sequential.
 */
#include <stdio.h>

#define N 48

static int grid[3];
static double cv[N], rhon[N];
static double us[N][N][N], lhs[N][N][N];
static double ce[5] = {1.0, 0.5, 0.25, 0.125, 0.0625};
static double face[N][N][5];
static double part[N][4];

static void lhs_rows(void)
{
    int i, j, k;
    for (j = 1; j <= grid[1] - 2; j++) {
        for (k = 1; k <= grid[2] - 2; k++) {
            for (i = 0; i <= grid[0] - 1; i++) {
                cv[i] = us[i][j][k];
                rhon[i] = 0.5 * us[i][j][k] + 1.0;
            }
            for (i = 1; i <= grid[0] - 2; i++)
                lhs[i][j][k] = cv[i - 1] - 2.0 * cv[i] + cv[i + 1] + rhon[i - 1] * rhon[i + 1];
        }
    }
}

static void face_value(double x, double y, double t[5])
{
    int m;
    for (m = 0; m < 5; m++)
        t[m] = ce[m] * x + (1.0 - ce[m]) * y;
}

static void faces(int n)
{
    int j, k, m;
    double temp[5];
    for (j = 0; j < n; j++)
        for (k = 0; k < n; k++) {
            face_value(j * 0.1, k * 0.2, temp);
            for (m = 0; m < 5; m++)
                face[j][k][m] = temp[m];
        }
    for (k = 0; k < n; k++) {
        face_value(1.0, k * 0.3, temp);
        for (m = 0; m < 5; m++)
            face[0][k][m] += temp[m];
    }
}

static void fill_some(double x, double t[4])
{
    int m;
    if (x > 0.0)
        for (m = 0; m < 4; m++)
            t[m] = x * m;
}

static void partial_fill(int n)
{
    int j, m;
    double temp[4] = {0.0, 0.0, 0.0, 0.0};
    for (j = 0; j < n; j++) {
        fill_some(j % 3 - 1.0, temp);
        for (m = 0; m < 4; m++)
            part[j][m] = temp[m];
    }
}

static void keep_last(int n)
{
    int i, j;
    for (j = 0; j < n; j++)
        for (i = 0; i < n; i++)
            cv[i] = us[i][j][0] * 2.0;
}

int main(void)
{
    grid[0] = grid[1] = grid[2] = N;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                us[i][j][k] = 0.01 * ((i * 7 + j * 3 + k) % 17);
    lhs_rows();
    double s = 0.0, sc = 0.0;
    for (int i = 0; i < N; i++) {
        sc += cv[i] * (i + 1) + rhon[i];
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                s += lhs[i][j][k] * (1 + (i + j + k) % 5);
    }
    printf("lhs %.6e rows %.6e\n", s, sc);
    faces(N);
    double sf = 0.0;
    for (int j = 0; j < N; j++)
        for (int k = 0; k < N; k++)
            for (int m = 0; m < 5; m++)
                sf += face[j][k][m] * (1 + (j + k + m) % 3);
    printf("faces %.6e\n", sf);
    partial_fill(N);
    double sp = 0.0;
    for (int j = 0; j < N; j++)
        for (int m = 0; m < 4; m++)
            sp += part[j][m] * (j + m + 1);
    printf("partial %.6e\n", sp);
    keep_last(N);
    double sk = 0.0;
    for (int i = 0; i < N; i++)
        sk += cv[i] * (i + 1);
    printf("last %.6e\n", sk);
    return 0;
}
