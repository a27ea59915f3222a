/* particle_steps.c -- a particle filter's time steps (Rodinia's particlefilter): each
 * particle draws from its own random stream, seed[x], through a helper that reads and
 * writes that one element; the loops over the particles sit inside a sequential loop over
 * the frames, their trip count n fixed for the whole run.
 *
 * - A call that reaches one element of its pointer argument at an index another argument
 *   gives (`randn(seed, x)` touches seed[x] only) is that element access: the motion loop
 *   is parallel.
 * - A helper that also touches the next element (`drift(seed, x)`: seed[x + 1]) is not.
 * - Loops over the n particles with no calls get if(n > ...): n is the same in every
 *   frame, so the test decides for the whole run.
 * - The cumulative sum carries a dependence and stays sequential.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const int A = 1103515245;
static const int C = 12345;
static const int M = 2147483647;

static double randu(int *seed, int index)
{
    long long num = (long long)A * seed[index] + C;
    seed[index] = (int)(num % M);
    return fabs(seed[index] / (double)M);
}

static double randn(int *seed, int index)
{
    double u = randu(seed, index);
    double v = randu(seed, index);
    return sqrt(-2.0 * log(u + 1e-12)) * cos(6.283185307179586 * v);
}

/* Reads the stream of the next particle too. */
static double drift(int *seed, int index)
{
    seed[index] = (seed[index] * 7 + seed[index + 1]) % 1000;
    return seed[index] / 1000.0;
}

static void filter(int n, int frames, int *seed, double *x, double *w, double *cdf)
{
    for (int f = 0; f < frames; f++) {
        for (int i = 0; i < n; i++)
            x[i] += 1.0 + 0.5 * randn(seed, i);
        for (int i = 0; i < n - 1; i++)
            x[i] += 0.001 * drift(seed, i);
        double sum = 0;
        for (int i = 0; i < n; i++)
            sum += w[i];
        for (int i = 0; i < n; i++)
            w[i] = 0.5 * w[i] / sum + 0.5 / n;
        double xe = 0;
        for (int i = 0; i < n; i++)
            xe += x[i] * w[i];
        cdf[0] = w[0];
        for (int i = 1; i < n; i++)
            cdf[i] = cdf[i - 1] + w[i];
        printf("frame %d xe %.6f cdf %.6f\n", f, xe, cdf[n - 1]);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    int *seed = malloc(sizeof(int) * (size_t)n);
    double *x = malloc(sizeof(double) * (size_t)n);
    double *w = malloc(sizeof(double) * (size_t)n);
    double *cdf = malloc(sizeof(double) * (size_t)n);
    if (!seed || !x || !w || !cdf)
        return 1;
    for (int i = 0; i < n; i++) {
        seed[i] = i * 31 + 7;
        x[i] = 0;
        w[i] = 1.0 / n;
    }
    filter(n, 4, seed, x, w, cdf);
    long check = 0;
    for (int i = 0; i < n; i++)
        check += seed[i] % 1000;
    printf("check %ld\n", check);
    free(seed);
    free(x);
    free(w);
    free(cdf);
    return 0;
}
