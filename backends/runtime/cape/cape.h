/* CAPE runtime: checkpointing-aided parallel execution of OpenMP programs on a cluster.
 *
 * The contract between the code `ppo -cape` writes (transforms/src/cape/) and the runtime
 * (cape.c, built with mpicc together with the program by backends/src/cape.rs).
 *
 * Execution model: every node (MPI rank) runs the whole program. At a translated parallel
 * region each node runs its share of the iterations (with real OpenMP threads inside the
 * node); what each node changed in the shared data is extracted as an incremental
 * checkpoint, the checkpoints are exchanged (MPI collectives), merged and injected on every
 * node, and execution goes on with identical shared data everywhere.
 *
 * Shared data is what is registered: globals of translated files (a constructor per file
 * calls cape_register), heap blocks (malloc/calloc/realloc/free are wrapped below), and the
 * locals a region uses (cape_local, registered for that region only). Checkpoint records are
 * (variable, offset, bytes, timestamp), so addresses need not be equal on every node.
 *
 * Regions do not nest: a region entered while another is active on this node, or from
 * inside an active OpenMP parallel region, runs as plain OpenMP on every node (cape_for
 * gives every node the whole iteration space; begin/end do nothing).
 */
#ifndef PPO_CAPE_H
#define PPO_CAPE_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- life cycle ---------------------------------------------------------------------- */

/* First statement of the translated main (argc/argv may be NULL). Initializes MPI
 * (MPI_THREAD_FUNNELED), probes the write-tracking mode, sends the standard output and
 * error of nodes other than 0 to /dev/null, and registers cape_finalize with atexit. */
void cape_init(int *argc, char ***argv);
/* Ends MPI (called at exit; calling it twice is harmless). */
void cape_finalize(void);
/* This node's rank, and the number of nodes. */
int cape_node(void);
int cape_nodes(void);

/* ---- the variable registry ----------------------------------------------------------- */

/* A global (or any object that lives as long as the program): shared in every region.
 * Registering the same address again updates the size. `name` is kept (a string literal). */
void cape_register(void *addr, size_t bytes, const char *name);
void cape_unregister(void *addr);
/* Heap blocks: registered while allocated. Out of memory ends every node with a message. */
void *cape_malloc(size_t n);
void *cape_calloc(size_t n, size_t size);
void *cape_realloc(void *p, size_t n);
void cape_free(void *p);
/* fopen: on nodes other than 0, a file opened for writing or appending is /dev/null. */
FILE *cape_fopen(const char *path, const char *mode);
/* posix_memalign and aligned_alloc: registered like malloc's blocks. */
int cape_posix_memalign(void **out, size_t align, size_t n);
void *cape_aligned_alloc(size_t align, size_t n);

/* ---- regions --------------------------------------------------------------------------- */

/* Start a region (`where` is "file.c:LINE", for messages): remember the state of the shared
 * data (snapshot, or write tracking). Returns 1 when the region is distributed, 0 when it
 * runs as plain OpenMP on every node (nested). */
int cape_region_begin(const char *where);
/* A local variable of the enclosing function used in the region: shared for this region
 * only (unregistered at cape_region_end). Call right after cape_region_begin. */
void cape_local(void *addr, size_t bytes, const char *name);
/* Not exchanged: its value after the region is this node's own (private copies of the
 * original that the region never writes, threadprivate data). */
void cape_private(void *addr, size_t bytes);
/* reduction(op: v): sets v to the operator's identity on this node now; at the next
 * synchronisation v becomes (its value at this call) op (every node's partial value). */
enum cape_type { CAPE_CHAR, CAPE_SCHAR, CAPE_UCHAR, CAPE_SHORT, CAPE_USHORT, CAPE_INT, CAPE_UINT,
                 CAPE_LONG, CAPE_ULONG, CAPE_LLONG, CAPE_ULLONG, CAPE_FLOAT, CAPE_DOUBLE,
                 CAPE_LDOUBLE, CAPE_BOOL };
enum cape_op { CAPE_SUM, CAPE_PROD, CAPE_MIN, CAPE_MAX, CAPE_BAND, CAPE_BOR, CAPE_BXOR,
               CAPE_LAND, CAPE_LOR };
void cape_reduction(void *addr, enum cape_type type, enum cape_op op, const char *name);
/* The node's share of a loop of n iterations numbered 0 … n-1: iterations first,
 * first + stride, … below stop. CAPE_BLOCK: one contiguous block per node (the first n % N
 * nodes one iteration more); CAPE_CYCLIC: node r runs r, r + N, … (for uneven iterations).
 * Also remembers whether this node runs iteration n-1 (for cape_lastprivate). Pure apart
 * from that: any thread of the node may call it, and every thread gets the same answer. */
enum cape_dist { CAPE_BLOCK, CAPE_CYCLIC };
void cape_for(long long n, enum cape_dist dist, long long *first, long long *stop, long long *stride);
/* lastprivate(v) of the loop of the last cape_for: only the node that ran iteration n-1
 * sends v's new value; the others' changes to v are ignored. */
void cape_lastprivate(void *addr, size_t bytes, const char *name);
/* A barrier of the region (an explicit `barrier`, the end of a `for`/`single`/`sections`
 * without nowait): called by ONE thread per node (the code puts it in `omp master` between
 * two `omp barrier`s). Exchanges and merges what changed since the region began or since the
 * last cape_sync, combines pending reductions and lastprivates, injects, and starts a new
 * interval. */
void cape_sync(void);
/* End of the region: as cape_sync, then forget the region's locals, privates and
 * lastprivates. Two nodes that changed the same bytes (not a reduction; even to the same
 * value, as two increments of one counter do) break Bernstein's conditions: every node stops, and node 0 prints the region, the variable
 * and the offset. */
void cape_region_end(void);

/* The trip count of `for (v = lb; v OP ub; v += step)` (step a non-zero constant; OP `<` or
 * `<=` for a positive step, `>` or `>=` for a negative one; `inclusive` for `<=`/`>=`). */
static inline long long cape_trip(long long lb, long long ub, long long step, int inclusive)
{
    if (step > 0) {
        long long span = ub - lb + (inclusive ? 1 : 0);
        return span <= 0 ? 0 : (span + step - 1) / step;
    } else {
        long long span = lb - ub + (inclusive ? 1 : 0);
        return span <= 0 ? 0 : (span - step - 1) / -step;
    }
}

/* 1 while a distributed region is active on this node (and the caller is in its team):
 * `single` and `master` then run on node 0 only; outside (sequential code, a nested or
 * plain region) every node runs them. */
int cape_active(void);
/* omp_get_thread_num() and omp_get_num_threads() of the cluster-wide team inside a
 * distributed region (thread t of node r is r * T + t of N * T); OpenMP's own elsewhere. */
int cape_thread_num(void);
int cape_num_threads(void);
/* num_threads(n) of a distributed region: this node's share of the n threads (at least 1). */
int cape_team_threads(int n);

/* The synchronisation of a barrier inside a translated `omp parallel` region. */
#define CAPE_BARRIER() do { _Pragma("omp barrier") _Pragma("omp master") cape_sync(); _Pragma("omp barrier") } while (0)

/* ---- measurements (PPO_CAPE_STATS=FILE appends one line per region end at exit) ------ */

/* Totals since start: bytes of the checkpoints this node sent (records with headers), bytes
 * of shared data that actually changed on this node (and the 8-byte words holding them),
 * bytes compared, regions and syncs. */
struct cape_stats {
    unsigned long long checkpoint_bytes, changed_bytes, compared_bytes, dirty_pages;
    /* changed 8-byte words (aligned in their variable) x 8: what the region changed at the
     * granularity of doubles and longs (a double 0.0 -> 288.0 is 2 changed bytes, 1 word) */
    unsigned long long changed_word_bytes;
    unsigned long long regions, syncs;
    double extract_seconds, exchange_seconds, inject_seconds;
};
void cape_get_stats(struct cape_stats *out);
/* The write-tracking mode in use: "uffd-wp" (userfaultfd write-protect, async, with
 * PAGEMAP_SCAN), "mprotect" (write-protect + SIGSEGV) or "compare" (snapshot and compare
 * everything). PPO_CAPE_TRACKING=uffd-wp|mprotect|compare forces one (falling back with a
 * message on stderr when it is not available). */
const char *cape_tracking_mode(void);

#ifdef __cplusplus
}
#endif

/* The wrappers (after the system headers that declare the originals). */
#ifndef CAPE_RUNTIME_SOURCE
#define malloc(n) cape_malloc(n)
#define calloc(n, s) cape_calloc(n, s)
#define realloc(p, n) cape_realloc(p, n)
#define free(p) cape_free(p)
#define fopen(p, m) cape_fopen(p, m)
#define posix_memalign(o, a, n) cape_posix_memalign(o, a, n)
#define aligned_alloc(a, n) cape_aligned_alloc(a, n)
#define omp_get_thread_num() cape_thread_num()
#define omp_get_num_threads() cape_num_threads()
#endif

#endif /* PPO_CAPE_H */
