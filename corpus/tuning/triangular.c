/* A triangular nest: row i has i + 1 elements, so the last rows cost thousands of times
 * the first. Parallel wins on any machine with two cores or more; a static schedule gives
 * the last thread most of the work, dynamic or guided balance it. */
#include <math.h>
#include <stdio.h>

#define N 2400

static double m[N][N];

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++)
            m[i][j] = sin(i * 0.001) * cos(j * 0.002) + sqrt((double)(i + j));
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += m[i][i / 2] + m[i][0];
    printf("checksum %.10f\n", s);
    return 0;
}
