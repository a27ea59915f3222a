/* Micro-benchmark of the CAPE runtime's write tracking (scripts/bench_cape_tracking.sh).
 *
 * A shared heap array of SIZE_MB MiB (mmap'd by the runtime, so its pages are tracked);
 * regions in which the nodes write one 8-byte word in 1 %, 10 % and 100 % of its pages
 * (pages p with p % stride == 0, each node its block of them). For each fraction: one warm-up
 * region, then REPS measured ones; node 0 prints one line with the mean time spent in
 * cape_region_begin, in the loop beyond the same loop on an untracked array (write faults:
 * SIGSEGV for mprotect, the kernel's async write-protect fault for uffd-wp), and in
 * cape_region_end; the dirty pages and bytes compared per region; the total overhead per
 * page written and the bytes compared per second of overhead.
 *   usage: tracking [SIZE_MB [REPS]]   (the mode: PPO_CAPE_TRACKING, as for any program) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "cape.h"
#undef malloc /* the baseline array: not registered, not tracked */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
    cape_init(&argc, &argv);
    size_t mb = argc > 1 ? (size_t)atol(argv[1]) : 256;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    size_t page = 4096, bytes = mb << 20, pages = bytes / page, words = page / 8;
    unsigned long long *a = cape_malloc(bytes), *base = malloc(bytes);
    if (!base)
        return 1;
    for (size_t i = 0; i < bytes / 8; i++)
        a[i] = base[i] = i;
    const int strides[] = {100, 10, 1};
    unsigned long long stamp = 1;
    for (int s = 0; s < 3; s++) {
        int stride = strides[s];
        long long chosen = (long long)((pages + stride - 1) / stride);
        double tb = 0, te = 0, tl = 0;
        struct cape_stats s0, s1;
        for (int r = 0; r <= reps; r++) {
            if (r == 1)
                cape_get_stats(&s0);
            stamp++;
            double t0 = now();
            cape_region_begin("tracking.c:40");
            cape_local(&a, sizeof a, "a");
            long long f, e, st;
            cape_for(chosen, CAPE_BLOCK, &f, &e, &st);
            double t1 = now();
            const long long lo = f, hi = e, step = st;
            long long k;
            #pragma omp parallel for
            for (k = lo; k < hi; k += step)
                a[(size_t)k * stride * words + (size_t)k % words] = stamp * 1000003 + (unsigned long long)k;
            double t2 = now();
            cape_region_end();
            double t3 = now();
            #pragma omp parallel for
            for (k = lo; k < hi; k += step)
                base[(size_t)k * stride * words + (size_t)k % words] = stamp * 1000003 + (unsigned long long)k;
            double t4 = now();
            if (r > 0) {
                tb += t1 - t0;
                te += t3 - t2;
                tl += (t2 - t1) - (t4 - t3);
            }
        }
        cape_get_stats(&s1);
        double per = (tb + tl + te) / reps, dirty = (double)(s1.dirty_pages - s0.dirty_pages) / reps;
        double cmp = (double)(s1.compared_bytes - s0.compared_bytes) / reps;
        double written = (double)chosen / cape_nodes(); /* pages this node wrote */
        printf("%-8s %6zu MiB %4d%% written  %8.0f pages written/node  %8.0f dirty pages  begin %7.3f ms  "
               "loop +%7.3f ms  end %8.3f ms  %7.2f us/page written  %8.1f MiB compared  %6.2f GB/s compared\n",
               cape_tracking_mode(), mb, 100 / stride, written, dirty, 1e3 * tb / reps, 1e3 * tl / reps,
               1e3 * te / reps,
               1e6 * per / (written > 0 ? written : 1), cmp / 1048576.0, cmp / per / 1e9);
    }
    cape_free(a);
    free(base);
    return 0;
}
