/* latin1.c -- a comment in Latin-1 (Österreich, naïve): compilers accept bytes that
 * are not UTF-8 in comments, and ppo keeps them byte for byte in its output. */
#include <stdio.h>

#define N 100000

static double x[N], y[N];

int main(void)
{
    /* Größe: the size of the vectors */
    for (int i = 0; i < N; i++) {
        x[i] = 0.5 * i;
        y[i] = 1.0 / (i + 1);
    }
    for (int i = 0; i < N; i++)
        y[i] = y[i] + 2.0 * x[i];
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += y[i];
    printf("sum %.6e\n", s);
    return 0;
}
