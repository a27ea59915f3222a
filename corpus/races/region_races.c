/* region_races.c -- races that every thread of a parallel region makes alike (patterns seen
 * on a public race benchmark: dynamic storage, a function argument, a static local): each thread
 * writes one shared place -- what a shared pointer points to, a variable passed by address
 * to a function that writes through it, a static local of a called function, a global.
 * Every thread writes the same value, so the output does not show the races, but the C and
 * OpenMP memory models make each one a data race: ppo must report each (PPO123), and none
 * of the synchronized, private or thread-indexed writes of the last region.
 */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

static int *status;
static int mode;

static void set_flag(int *flag)
{
    *flag = 1;
}

static void remember(void)
{
    static int calls_seen;
    calls_seen = 1;
    mode = calls_seen;
}

int main(void)
{
    int done = 0, ok = 0, total = 0;
    int slots[64] = {0};
    status = malloc(sizeof *status);
    if (status == NULL)
        return 1;
    *status = 0;
#pragma omp parallel
    {
        *status = 7;     /* PPO123: *status */
        set_flag(&done); /* PPO123: done, through set_flag's parameter */
        remember();      /* PPO123: calls_seen and mode, in remember */
    }
#pragma omp parallel shared(ok, total, slots)
    {
        int me = omp_get_thread_num();
        slots[me % 64] = 1;
#pragma omp single
        ok = 1;
#pragma omp atomic
        total += 1;
        if (me == 0)
            mode = 2;
    }
    printf("status %d done %d mode %d ok %d slots %d threads %s\n", *status, done, mode, ok, slots[0],
           total >= 1 ? "yes" : "no");
    free(status);
    return 0;
}
