/* dead_branches.c -- timers and traces behind conditions that are constants once the macros
 * are expanded (NPB's `if (TIMERS_ENABLED == TRUE) timer_start(3);` inside EP's batch loop,
 * `#define DEBUG 0` traces): the branch never runs, so its calls are no obstacle, as text
 * under `#if 0` is none. A condition read from a variable, or a dead branch holding a label
 * that a `goto` reaches, still counts.
 */
#include <stdio.h>

#define TRUE 1
#define FALSE 0
#define TIMERS_ENABLED FALSE
#define DEBUG 0
#define N 4096

static double a[N], b[N], c[N];
static double elapsed[4];
static int trace = 0;

static void timer_start(int t)
{
    elapsed[t] -= 1.0;
    printf("timer %d started\n", t);
}

static void timer_stop(int t)
{
    elapsed[t] += 1.0;
}

int main(void)
{
    int i;
    for (i = 0; i < N; i++)
        a[i] = 0.25 * (i % 13);
    /* Parallel: the timer calls are under a condition that is always false. */
    for (i = 0; i < N; i++) {
        if (TIMERS_ENABLED == TRUE)
            timer_start(1);
        b[i] = 2.0 * a[i] + 1.0;
        if (TIMERS_ENABLED == TRUE)
            timer_stop(1);
    }
    /* Parallel: the trace is in the branch `if (1)` never takes. */
    for (i = 0; i < N; i++) {
        if (!DEBUG)
            c[i] = b[i] - a[i];
        else
            printf("c[%d]\n", i);
    }
    /* Sequential: `trace` is a variable; the printf may run. */
    for (i = 0; i < N; i++) {
        if (trace)
            printf("a[%d]\n", i);
        a[i] = a[i] + c[i];
    }
    /* Sequential: the dead branch holds a label the goto reaches. */
    for (i = 0; i < N; i++) {
        if (i % 1000 == 999)
            goto report;
        if (DEBUG) {
        report:
            printf("at %d\n", i);
        }
        b[i] = b[i] * 0.5;
    }
    double s = 0.0;
    for (i = 0; i < N; i++)
        s += a[i] + b[i] + c[i];
    printf("sum %.4f timers %.1f\n", s, elapsed[1]);
    return 0;
}
