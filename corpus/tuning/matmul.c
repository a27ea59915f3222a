/* Matrix multiplication: regular, compute-bound, the textbook case for a parallel outer
 * loop. */
#include <stdio.h>

#define N 360

static double A[N][N], B[N][N], C[N][N];

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = (double)((i * 7 + j * 3) % 11) / 11.0;
            B[i][j] = (double)((i * 5 + j) % 13) / 13.0;
        }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int k = 0; k < N; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
    double t = 0.0;
    for (int i = 0; i < N; i++)
        t += C[i][(i * 13) % N];
    printf("checksum %.10f\n", t);
    return 0;
}
