/* The planes of an image, filtered plane by plane. Two nests whose best parallel form
 * depends on the machine and the compiler, which only a measurement tells:
 * - `gain`: 4 planes, a constant the analysis sees. ppo's rule collapses a nest whose outer
 *   loop is too short to feed many threads, but a collapsed nest computes its indices per
 *   iteration, which keeps the compiler from vectorizing the inner loop: on 2 or 4 threads
 *   the planes alone balance, and the nest runs faster without `collapse`.
 * - `tone`: a number of planes known only at run time (3 here), with work the compiler
 *   does not vectorize (a recurrence per element). Without `collapse`, 3 planes on 2
 *   threads leave one thread idle a third of the time; collapsed, they balance. */
#include <stdio.h>
#include <stdlib.h>

#define CH 4
#define N (1 << 17)
#define PASSES 100

static float img[CH][N], out[CH][N];

static void gain(float g)
{
    for (int c = 0; c < CH; c++)
        for (int i = 0; i < N; i++)
            out[c][i] = out[c][i] * 0.5f + g * img[c][i] / (1.0f + img[c][i] * img[c][i]);
}

static void tone(int planes, int steps)
{
    for (int c = 0; c < planes; c++)
        for (int i = 0; i < N; i++) {
            float v = out[c][i];
            for (int k = 0; k < steps; k++)
                v = v * 0.75f + 0.25f / (1.0f + v);
            out[c][i] = v;
        }
}

int main(int argc, char **argv)
{
    int planes = argc > 1 ? atoi(argv[1]) : 3;
    int steps = argc > 2 ? atoi(argv[2]) : 6;
    if (planes < 1 || planes > CH)
        planes = 3;
    for (int c = 0; c < CH; c++)
        for (int i = 0; i < N; i++)
            img[c][i] = (float)((i * 7 + c * 13) % 101) / 101.0f;
    for (int p = 0; p < PASSES; p++) {
        gain(0.5f + 0.01f * p);
        tone(planes, steps);
    }
    double s = 0.0;
    for (int c = 0; c < CH; c++)
        for (int i = 0; i < N; i += 97)
            s += out[c][i];
    printf("checksum %.4f\n", s);
    return 0;
}
