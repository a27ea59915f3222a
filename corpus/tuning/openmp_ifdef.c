/* A loop whose header is chosen by the preprocessor (as NPB LU writes its sweeps: one
 * direction with OpenMP, another without). The analysis sees the #else branch; learning
 * mode must not wrap or copy a loop whose text straddles the branches (the build of the
 * instrumented program would not compile), and the program must still be tuned. */
#include <stdio.h>

#define N 600

static double a[N][N];

int main(void)
{
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            a[i][j] = (double)((i * 31 + j * 17) % 97);
#if defined(_OPENMP)
    for (i = N - 1; i >= 0; i--) {
        for (j = N - 1; j >= 0; j--) {
#else
    for (i = 0; i < N; i++) {
        for (j = 0; j < N; j++) {
#endif
            a[i][j] = a[i][j] * 0.5 + 1.0;
        }
    }
    double s = 0.0;
    for (i = 0; i < N; i++)
        s += a[i][(i * 7) % N];
    printf("checksum %.6f\n", s);
    return 0;
}
