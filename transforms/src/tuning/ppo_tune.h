/* ppo learning-mode runtime (instrumented builds only; never part of ppo's output).
 *
 * Every loop ppo measures is wrapped as
 *     { ppo_tune_begin(ID);
 *       if (ppo_tune_on(ID) && ppo_tune_collapse(ID) == 2) {   (one per other depth)
 *           #pragma omp parallel for ... collapse(2) schedule(runtime) num_threads(...)
 *           for (...) ...                          (a copy of the loop)
 *       } else if (ppo_tune_on(ID) && ppo_tune_level(ID) == 1) {
 *           for (...) { ...                         (a copy of the nest: the outermost
 *               #pragma omp parallel for ...         parallel loops inside it parallel)
 *               for (...) ... }
 *       } else if (ppo_tune_on(ID)) {
 *           #pragma omp parallel for ... schedule(runtime) num_threads(ppo_tune_threads(ID))
 *           for (...) ...
 *       } else {
 *           for (...) { PPO_TUNE_TRIP(ID); ... }   (the same loop, sequential, counting)
 *       }
 *       ppo_tune_end(ID); }
 * so that one build runs each loop in the variant PPO_TUNE_CONFIG names for it: lines
 * "ID ON KIND CHUNK THREADS COLLAPSE LEVEL" (ON 0/1; KIND 1 static, 2 dynamic, 3 guided
 * as omp_sched_t; CHUNK 0 for the default; THREADS 0 for all; COLLAPSE 0 for the
 * directive's own; LEVEL 0 for the loop, 1 for the loops inside it). At exit, one line per loop that ran is
 * appended to PPO_TUNE_OUT:
 *     loop ID CALLS NESTED TOTAL MIN MAX TRIPS SAMPLE...
 * (seconds; NESTED counts entries inside another parallel region, which are not timed;
 * TRIPS the iterations the sequential copy ran; SAMPLE: the first invocations' times). */
#ifndef PPO_TUNE_H
#define PPO_TUNE_H
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef PPO_TUNE_LOOPS
#error "PPO_TUNE_LOOPS must be defined before ppo_tune.h"
#endif
#define PPO_TUNE_SAMPLES 64

struct ppo_tune_loop {
    int on, kind, chunk, threads, collapse, level, depth;
    long calls, nested, trips;
    double t0, total, min, max;
    int nsamples;
    double samples[PPO_TUNE_SAMPLES];
};

static struct ppo_tune_loop ppo_tune_tab[PPO_TUNE_LOOPS];
static int ppo_tune_ready;

static void ppo_tune_dump(void)
{
    const char *path = getenv("PPO_TUNE_OUT");
    FILE *f;
    int i, k;
    if (!path || !(f = fopen(path, "a")))
        return;
    for (i = 0; i < PPO_TUNE_LOOPS; i++) {
        struct ppo_tune_loop *l = &ppo_tune_tab[i];
        if (!l->calls && !l->nested)
            continue;
        fprintf(f, "loop %d %ld %ld %.9e %.9e %.9e %ld", i, l->calls, l->nested, l->total,
                l->calls ? l->min : 0.0, l->max, l->trips);
        for (k = 0; k < l->nsamples; k++)
            fprintf(f, " %.6e", l->samples[k]);
        fputc('\n', f);
    }
    fclose(f);
}

static void ppo_tune_init(void)
{
    const char *path = getenv("PPO_TUNE_CONFIG");
    int i, id, on, kind, chunk, threads, collapse, level;
    ppo_tune_ready = 1;
    for (i = 0; i < PPO_TUNE_LOOPS; i++) {
        ppo_tune_tab[i].on = 1;
        ppo_tune_tab[i].kind = 1;
    }
    if (path) {
        FILE *f = fopen(path, "r");
        if (!f) {
            fprintf(stderr, "ppo_tune: cannot read %s\n", path);
            exit(97);
        }
        while (fscanf(f, "%d %d %d %d %d %d %d", &id, &on, &kind, &chunk, &threads, &collapse, &level) == 7)
            if (id >= 0 && id < PPO_TUNE_LOOPS) {
                ppo_tune_tab[id].on = on;
                ppo_tune_tab[id].kind = kind >= 1 && kind <= 3 ? kind : 1;
                ppo_tune_tab[id].chunk = chunk > 0 ? chunk : 0;
                ppo_tune_tab[id].threads = threads > 0 ? threads : 0;
                ppo_tune_tab[id].collapse = collapse > 0 ? collapse : 0;
                ppo_tune_tab[id].level = level > 0 ? level : 0;
            }
        fclose(f);
    }
    atexit(ppo_tune_dump);
    /* In a run with a parallel loop, start the team before the first measured loop:
     * whichever parallel loop ran first would otherwise pay the threads' creation, and be
     * judged by it. A sequential run starts no thread, so what a program pays once for its
     * threads is still measured as a whole, by the validation runs. */
    for (i = 0; i < PPO_TUNE_LOOPS; i++)
        if (ppo_tune_tab[i].on) {
#pragma omp parallel
            {
                (void)0;
            }
            break;
        }
}

/* One iteration of the sequential copy of loop ID (the observed trip count). */
#define PPO_TUNE_TRIP(id) (ppo_tune_tab[id].trips++)

static int ppo_tune_on(int id)
{
    return ppo_tune_tab[id].on;
}

/* The number of nested loops the parallel loop ID collapses (0: its directive's own). */
static int ppo_tune_collapse(int id)
{
    return ppo_tune_tab[id].collapse;
}

/* The nest level loop ID runs in parallel at (0: itself; 1: the loops inside it). */
static int ppo_tune_level(int id)
{
    return ppo_tune_tab[id].level;
}

static int ppo_tune_threads(int id)
{
    return ppo_tune_tab[id].threads > 0 ? ppo_tune_tab[id].threads : omp_get_max_threads();
}

static void ppo_tune_begin(int id)
{
    struct ppo_tune_loop *l = &ppo_tune_tab[id];
    if (omp_in_parallel()) {
#pragma omp atomic
        l->nested++;
        return;
    }
    if (!ppo_tune_ready)
        ppo_tune_init();
    if (l->depth++ > 0)
        return;
    if (l->on)
        omp_set_schedule((omp_sched_t)l->kind, l->chunk);
    l->t0 = omp_get_wtime();
}

static void ppo_tune_end(int id)
{
    struct ppo_tune_loop *l = &ppo_tune_tab[id];
    double dt;
    if (omp_in_parallel() || --l->depth > 0)
        return;
    dt = omp_get_wtime() - l->t0;
    if (!l->calls || dt < l->min)
        l->min = dt;
    if (dt > l->max)
        l->max = dt;
    l->calls++;
    l->total += dt;
    if (l->nsamples < PPO_TUNE_SAMPLES)
        l->samples[l->nsamples++] = dt;
}
#endif
