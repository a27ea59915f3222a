/* CAPE runtime: checkpointing-aided parallel execution (see cape.h for the contract).
 *
 * Built with `mpicc -O2 -fopenmp` together with the translated program.
 *
 * Design, in short:
 * - Registry: every shared object is a `struct var` with an id taken from one counter in
 *   registration order (globals in constructors, heap blocks allocated outside regions at
 *   OpenMP level 0, region locals). Every node runs the same program, so ids agree across
 *   nodes while addresses need not. Blocks allocated inside a region or a parallel context
 *   are node-private temporaries (not registered, no id consumed).
 * - Old state: at the start of every interval (region begin, after each sync) the runtime
 *   knows the previous content of every registered byte: untracked bytes (locals, small
 *   objects, the partial head/tail pages of tracked objects) are copied into a snapshot
 *   arena; full pages of large objects are tracked:
 *     uffd-wp  — userfaultfd async write-protect; a twin copy of the tracked pages is kept
 *                equal to memory at every interval start, PAGEMAP_SCAN lists the pages
 *                written since, and only those are compared and refreshed;
 *     mprotect — pages read-only during the interval, the SIGSEGV handler copies a page to
 *                its twin on the first write and unprotects it;
 *     compare  — no tracking: everything is snapshot and compared.
 * - Extraction: byte-exact runs of changed bytes; two runs closer than a record header are
 *   merged (the gap bytes carry their old values). A record is a 24-byte header (id,
 *   offset, length, timestamp) and the bytes.
 * - Exchange: MPI_Allgather of the sizes, MPI_Allgatherv of the records.
 * - Merge: a byte of a record is a write when it differs from the old value (identical
 *   everywhere by construction), so gap bytes never overwrite another node's write. Two
 *   nodes writing one byte (even the same value) break Bernstein's conditions; that check
 *   uses only exchanged data and old values, so every rank decides the same.
 * - Reductions: every node's partial value is gathered (one MPI_Allgather for all pending
 *   reductions) and combined in rank order: bit-identical on every node, and any operator
 *   on any type (MPI_LAND has no floating-point version). Lastprivates: MPI_Bcast from the
 *   node that ran iteration n-1.
 */
#define _GNU_SOURCE
#define CAPE_RUNTIME_SOURCE
#include "cape.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/userfaultfd.h>
#endif

/* ---- kernel interfaces newer than some headers ------------------------------------- */

#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef PAGEMAP_SCAN
struct page_region {
    uint64_t start, end, categories;
};
struct pm_scan_arg {
    uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
    uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_WRITTEN (1 << 1)
#define PM_SCAN_WP_MATCHING (1 << 0)
#endif

/* ---- constants -------------------------------------------------------------------------- */

/* Record header: id (8), offset (8), length (4), timestamp (4). */
#define HDR 24
/* Heap blocks from this size on are mmap'd (page aligned, their full pages tracked). */
#define MMAP_MIN ((size_t)64 * 1024)
/* Globals with at least this many full pages are tracked. */
#define TRACK_MIN_PAGES 4
/* Largest record payload (the length field is 32 bits). */
#define REC_MAX ((size_t)1 << 30)

enum mode { MODE_UFFD, MODE_MPROTECT, MODE_COMPARE };
static const char *const mode_names[] = {"uffd-wp", "mprotect", "compare"};
enum vkind { VK_GLOBAL, VK_HEAP, VK_LOCAL };
enum pstate { PS_CLEAN = 0, PS_COPYING = 1, PS_DIRTY = 2 };

struct var {
    unsigned long long id;
    unsigned char *addr;
    size_t bytes;
    const char *name;
    int kind;
    int dead;
    /* tracking: bytes [tlo, thi) of the object are full pages, tracked when thi > tlo */
    int track_ready;   /* tlo/thi/twin set up for the current mode */
    size_t tlo, thi;
    unsigned char *twin;           /* mmap'd, thi - tlo bytes */
    _Atomic unsigned char *pstate; /* mprotect: one state per tracked page */
    int twin_valid;                /* uffd: twin equals memory at the interval start */
    /* untracked bytes [0, tlo) and [thi, bytes) in the snapshot arena */
    size_t snap_off;
};

struct block { /* a heap block the wrappers handed out */
    uintptr_t addr;
    size_t bytes, maplen; /* maplen 0: from libc malloc */
    struct var *v;        /* NULL: node-private */
};

struct excl { /* a range excluded from extraction */
    uintptr_t lo, hi;
};

struct red {
    void *addr;
    enum cape_type type;
    enum cape_op op;
    const char *name;
    unsigned char saved[16];
};

struct lastp {
    void *addr;
    size_t bytes;
    const char *name;
    int owner; /* -1: no node ran iteration n-1 */
};

struct trange { /* for the SIGSEGV handler: read-only while a region runs */
    uintptr_t lo, hi;
    unsigned char *twin;
    _Atomic unsigned char *pstate;
};

struct rec { /* a parsed record */
    unsigned long long id;
    size_t off, len;
    unsigned ts;
    int node;
    const unsigned char *data;
};

struct site {
    const char *where;
    struct cape_stats s;
};

/* ---- state -------------------------------------------------------------------------- */

static int g_rank = 0, g_nodes = 1, g_inited = 0, g_finalized = 0;
static int g_err_fd = 2; /* the original stderr (ranks != 0 have theirs on /dev/null) */
static enum mode g_mode = MODE_COMPARE;
static int g_mode_probed = 0;
static size_t g_page = 4096;
static int g_uffd = -1, g_pagemap = -1;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* registry */
static struct var **g_vars;                                /* sorted by id */
static size_t g_nvars, g_capvars, g_ndead;
static unsigned long long g_next_id = 1;

static struct block *g_blocks; /* open-addressing hash by address */
static size_t g_nblocks, g_capblocks, g_tombs;
#define BLOCK_EMPTY ((uintptr_t)0)
#define BLOCK_TOMB ((uintptr_t)1)

/* region */
static _Atomic int g_active = 0;
static int g_level = 0;
static const char *g_where = "?";
static _Thread_local int tl_nested = 0;
static _Atomic int g_last_owner = -1;
static unsigned g_ts = 0;
static struct excl *g_excl;
static size_t g_nexcl, g_capexcl;
static size_t g_excl_keep; /* privates: the first entries, kept until region end */
static struct red *g_reds;
static size_t g_nreds, g_capreds;
static struct lastp *g_lps;
static size_t g_nlps, g_caplps;
static unsigned char *g_arena;
static size_t g_arena_len, g_arena_cap;

/* mprotect handler */
static struct trange *_Atomic g_tr;
static _Atomic size_t g_ntr;
static _Atomic int g_protecting;
static struct sigaction g_old_segv;
static _Thread_local int tl_altstack = 0;

/* stats */
static struct cape_stats g_stats;
static struct site *g_sites;
static size_t g_nsites, g_capsites;
static struct cape_stats g_region_start;

/* ---- small helpers ------------------------------------------------------------------ */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void write_all(int fd, const char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0) {
            if (w < 0 && errno == EINTR)
                continue;
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A message on this node's original stderr. */
static void msg(const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    write_all(g_err_fd, buf, (size_t)n);
}

/* End every node. */
static void die_all(void) __attribute__((noreturn));
static void die_all(void) {
    int ok = 0, fin = 0;
    MPI_Initialized(&ok);
    MPI_Finalized(&fin);
    if (ok && !fin)
        MPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        msg("cape: node %d: out of memory: the runtime could not allocate %zu bytes\n", g_rank, n);
        die_all();
    }
    return p;
}

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        msg("cape: node %d: out of memory: the runtime could not allocate %zu bytes\n", g_rank, n);
        die_all();
    }
    return q;
}

#define GROW(arr, n, cap)                                                                 \
    do {                                                                                  \
        if ((n) >= (cap)) {                                                               \
            (cap) = (cap) ? 2 * (cap) : 16;                                               \
            (arr) = xrealloc((arr), (cap) * sizeof *(arr));                               \
        }                                                                                 \
    } while (0)

static uintptr_t page_down(uintptr_t a) { return a & ~(uintptr_t)(g_page - 1); }
static uintptr_t page_up(uintptr_t a) { return (a + g_page - 1) & ~(uintptr_t)(g_page - 1); }

/* ---- block hash --------------------------------------------------------------------- */

static size_t hash_addr(uintptr_t a, size_t cap) {
    uint64_t x = (uint64_t)a;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

static void blocks_insert(struct block b);

static void blocks_rehash(size_t cap) {
    struct block *old = g_blocks;
    size_t oldcap = g_capblocks;
    g_blocks = xmalloc(cap * sizeof *g_blocks);
    memset(g_blocks, 0, cap * sizeof *g_blocks);
    g_capblocks = cap;
    g_nblocks = 0;
    g_tombs = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].addr != BLOCK_EMPTY && old[i].addr != BLOCK_TOMB)
            blocks_insert(old[i]);
    free(old);
}

static void blocks_insert(struct block b) {
    if ((g_nblocks + g_tombs + 1) * 2 > g_capblocks)
        blocks_rehash(g_capblocks ? (g_nblocks * 4 > g_capblocks ? g_capblocks * 2 : g_capblocks) : 1024);
    size_t i = hash_addr(b.addr, g_capblocks);
    while (g_blocks[i].addr != BLOCK_EMPTY && g_blocks[i].addr != BLOCK_TOMB)
        i = (i + 1) & (g_capblocks - 1);
    if (g_blocks[i].addr == BLOCK_TOMB)
        g_tombs--;
    g_blocks[i] = b;
    g_nblocks++;
}

static struct block *blocks_find(uintptr_t a) {
    if (!g_capblocks)
        return NULL;
    size_t i = hash_addr(a, g_capblocks);
    while (g_blocks[i].addr != BLOCK_EMPTY) {
        if (g_blocks[i].addr == a)
            return &g_blocks[i];
        i = (i + 1) & (g_capblocks - 1);
    }
    return NULL;
}

static void blocks_remove(struct block *b) {
    b->addr = BLOCK_TOMB;
    g_nblocks--;
    g_tombs++;
}

/* ---- registry ----------------------------------------------------------------------- */

static void track_release(struct var *v);

static struct var *var_new(void *addr, size_t bytes, const char *name, int kind) {
    struct var *v = xmalloc(sizeof *v);
    memset(v, 0, sizeof *v);
    v->id = g_next_id++;
    v->addr = addr;
    v->bytes = bytes;
    v->name = name;
    v->kind = kind;
    GROW(g_vars, g_nvars, g_capvars);
    g_vars[g_nvars++] = v;
    return v;
}

static void var_kill(struct var *v) {
    track_release(v);
    v->dead = 1;
    g_ndead++;
}

/* Drop dead entries (outside regions only: records may name them otherwise). */
static void vars_compact(void) {
    if (g_ndead * 2 < g_nvars + 16)
        return;
    size_t k = 0;
    for (size_t i = 0; i < g_nvars; i++) {
        if (g_vars[i]->dead)
            free(g_vars[i]);
        else
            g_vars[k++] = g_vars[i];
    }
    g_nvars = k;
    g_ndead = 0;
}

static struct var *var_by_id(unsigned long long id) {
    size_t lo = 0, hi = g_nvars;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g_vars[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < g_nvars && g_vars[lo]->id == id && !g_vars[lo]->dead)
        return g_vars[lo];
    return NULL;
}

static const char *var_label(const struct var *v, char *buf, size_t n) {
    if (v->name)
        return v->name;
    snprintf(buf, n, "a heap block of %zu bytes (allocation %llu)", v->bytes, v->id);
    return buf;
}

static void track_setup(struct var *v);
static void snapshot_var(struct var *v);

void cape_register(void *addr, size_t bytes, const char *name) {
    if (!addr)
        return;
    pthread_mutex_lock(&g_lock);
    for (size_t i = 0; i < g_nvars; i++) {
        struct var *v = g_vars[i];
        if (!v->dead && v->kind == VK_GLOBAL && v->addr == addr) {
            if (v->bytes == bytes) { /* the same object again (a static local's declaration) */
                pthread_mutex_unlock(&g_lock);
                return;
            }
            track_release(v);
            v->bytes = bytes;
            v->name = name;
            pthread_mutex_unlock(&g_lock);
            return;
        }
    }
    struct var *v = var_new(addr, bytes, name, VK_GLOBAL);
    /* registered inside a region (a static local first reached there): its state now is
     * the old state of the interval */
    if (atomic_load(&g_active)) {
        track_setup(v);
        snapshot_var(v);
    }
    pthread_mutex_unlock(&g_lock);
}

void cape_unregister(void *addr) {
    pthread_mutex_lock(&g_lock);
    for (size_t i = 0; i < g_nvars; i++) {
        struct var *v = g_vars[i];
        if (!v->dead && v->kind == VK_GLOBAL && v->addr == addr)
            var_kill(v);
    }
    pthread_mutex_unlock(&g_lock);
}

/* ---- heap wrappers ------------------------------------------------------------------ */

static void oom(const char *what, size_t n) __attribute__((noreturn));
static void oom(const char *what, size_t n) {
    /* Every node runs the same allocation, so node 0 speaks for all; a node-private
     * allocation (inside a region) may fail on one node only: that node speaks too. */
    if (g_rank == 0 || atomic_load(&g_active))
        msg("cape: node %d: out of memory: %s of %zu bytes failed\n", g_rank, what, n);
    die_all();
}

/* Whether a block allocated now is shared (registered): only in sequential code, where
 * every node allocates the same blocks in the same order. */
static int shared_context(void) { return !atomic_load(&g_active) && omp_get_level() == 0; }

static void *alloc_block(size_t n, int zero, const char *what) {
    void *p;
    size_t maplen = 0;
    if (n >= MMAP_MIN) {
        maplen = page_up(n);
        p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            oom(what, n);
    } else {
        p = zero ? calloc(1, n ? n : 1) : malloc(n ? n : 1);
        if (!p)
            oom(what, n);
    }
    pthread_mutex_lock(&g_lock);
    struct block b = {(uintptr_t)p, n, maplen, NULL};
    if (shared_context())
        b.v = var_new(p, n, NULL, VK_HEAP);
    blocks_insert(b);
    pthread_mutex_unlock(&g_lock);
    return p;
}

void *cape_malloc(size_t n) { return alloc_block(n, 0, "malloc"); }

int cape_posix_memalign(void **out, size_t align, size_t n) {
    if (!out || align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    if (n >= MMAP_MIN || align <= 16) {
        /* mmap'd blocks are page-aligned; malloc's are 16-byte aligned */
        if (align > (size_t)g_page && n >= MMAP_MIN)
            return EINVAL;
        *out = alloc_block(n, 0, "posix_memalign");
        return 0;
    }
    void *p = NULL;
    int rc = posix_memalign(&p, align, n ? n : 1);
    if (rc)
        return rc;
    pthread_mutex_lock(&g_lock);
    struct block b = {(uintptr_t)p, n, 0, NULL};
    if (shared_context())
        b.v = var_new(p, n, NULL, VK_HEAP);
    blocks_insert(b);
    pthread_mutex_unlock(&g_lock);
    *out = p;
    return 0;
}

void *cape_aligned_alloc(size_t align, size_t n) {
    void *p = NULL;
    return cape_posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, n) == 0 ? p : NULL;
}

void *cape_calloc(size_t n, size_t size) {
    if (size && n > SIZE_MAX / size)
        oom("calloc", SIZE_MAX);
    return alloc_block(n * size, 1, "calloc");
}

static void in_region_block_change(const char *what) {
    msg("cape: region at %s: a shared heap block was %s inside the region (not supported)\n", g_where,
        what);
    die_all();
}

void cape_free(void *p) {
    if (!p)
        return;
    pthread_mutex_lock(&g_lock);
    struct block *b = blocks_find((uintptr_t)p);
    if (!b) {
        pthread_mutex_unlock(&g_lock);
        free(p); /* not ours (strdup, an untranslated file) */
        return;
    }
    struct block copy = *b;
    if (copy.v && atomic_load(&g_active)) {
        pthread_mutex_unlock(&g_lock);
        in_region_block_change("freed");
    }
    if (copy.v)
        var_kill(copy.v);
    blocks_remove(b);
    pthread_mutex_unlock(&g_lock);
    if (copy.maplen)
        munmap(p, copy.maplen);
    else
        free(p);
}

void *cape_realloc(void *p, size_t n) {
    if (!p)
        return cape_malloc(n);
    if (n == 0) {
        cape_free(p);
        return NULL;
    }
    pthread_mutex_lock(&g_lock);
    struct block *b = blocks_find((uintptr_t)p);
    if (!b) {
        pthread_mutex_unlock(&g_lock);
        void *q = realloc(p, n);
        if (!q)
            oom("realloc", n);
        return q;
    }
    struct block old = *b;
    if (old.v && atomic_load(&g_active)) {
        pthread_mutex_unlock(&g_lock);
        in_region_block_change("reallocated");
    }
    pthread_mutex_unlock(&g_lock);
    /* The id stays with the block: every node reallocates in the same order. */
    void *q;
    size_t maplen = 0;
    if (n >= MMAP_MIN) {
        maplen = page_up(n);
        /* A fresh mapping and a copy, not mremap: the old pages may be registered with
         * userfaultfd for write tracking, and mremap refuses (or drops) such ranges. */
        q = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (q == MAP_FAILED)
            oom("realloc", n);
        memcpy(q, p, old.bytes < n ? old.bytes : n);
        if (old.maplen)
            munmap(p, old.maplen);
        else
            free(p);
    } else if (old.maplen) {
        q = malloc(n);
        if (!q)
            oom("realloc", n);
        memcpy(q, p, old.bytes < n ? old.bytes : n);
        munmap(p, old.maplen);
    } else {
        q = realloc(p, n);
        if (!q)
            oom("realloc", n);
    }
    pthread_mutex_lock(&g_lock);
    b = blocks_find((uintptr_t)p);
    if (b)
        blocks_remove(b);
    struct block nb = {(uintptr_t)q, n, maplen, old.v};
    if (old.v) {
        track_release(old.v);
        old.v->addr = q;
        old.v->bytes = n;
    }
    blocks_insert(nb);
    pthread_mutex_unlock(&g_lock);
    return q;
}

FILE *cape_fopen(const char *path, const char *mode) {
    if (g_rank != 0 && mode && (mode[0] == 'w' || mode[0] == 'a'))
        return fopen("/dev/null", mode);
    return fopen(path, mode);
}

/* ---- write tracking: uffd-wp ---------------------------------------------------------- */

static int uffd_open(void) {
#ifdef __NR_userfaultfd
    int fd = (int)syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct uffdio_api api = {.api = UFFD_API,
                             .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED};
    if (ioctl(fd, UFFDIO_API, &api) == 0 && (api.features & UFFD_FEATURE_WP_ASYNC))
        return fd;
    close(fd);
    fd = (int)syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct uffdio_api api2 = {.api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC};
    if (ioctl(fd, UFFDIO_API, &api2) == 0 && (api2.features & UFFD_FEATURE_WP_ASYNC))
        return fd;
    close(fd);
#endif
    return -1;
}

static int uffd_register(void *a, size_t len) {
    struct uffdio_register r = {.range = {(uint64_t)(uintptr_t)a, len}, .mode = UFFDIO_REGISTER_MODE_WP};
    return ioctl(g_uffd, UFFDIO_REGISTER, &r);
}

static int uffd_protect(void *a, size_t len) {
    struct uffdio_writeprotect w = {.range = {(uint64_t)(uintptr_t)a, len},
                                    .mode = UFFDIO_WRITEPROTECT_MODE_WP};
    return ioctl(g_uffd, UFFDIO_WRITEPROTECT, &w);
}

/* Calls fn(ctx, first page address, end address) for every run of pages of [a, a+len)
 * written since they were last protected; with `reprotect`, protects them again in the
 * same walk. Returns -1 when the scan fails. */
static int uffd_scan(uintptr_t a, size_t len, int reprotect,
                     void (*fn)(void *, uintptr_t, uintptr_t), void *ctx) {
    struct page_region vec[256];
    uintptr_t end = a + len;
    while (a < end) {
        struct pm_scan_arg arg;
        memset(&arg, 0, sizeof arg);
        arg.size = sizeof arg;
        arg.flags = reprotect ? PM_SCAN_WP_MATCHING : 0;
        arg.start = a;
        arg.end = end;
        arg.vec = (uint64_t)(uintptr_t)vec;
        arg.vec_len = 256;
        arg.category_mask = PAGE_IS_WRITTEN;
        arg.return_mask = PAGE_IS_WRITTEN;
        long n = ioctl(g_pagemap, PAGEMAP_SCAN, &arg);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        for (long i = 0; i < n; i++)
            fn(ctx, (uintptr_t)vec[i].start, (uintptr_t)vec[i].end);
        if (arg.walk_end <= a)
            return -1;
        a = (uintptr_t)arg.walk_end;
    }
    return 0;
}

static void count_pages(void *ctx, uintptr_t lo, uintptr_t hi) { *(size_t *)ctx += (hi - lo) / g_page; }

/* Whether uffd-wp with PAGEMAP_SCAN works here: protect, write two pages, scan. */
static int uffd_probe(void) {
    g_uffd = uffd_open();
    if (g_uffd < 0)
        return 0;
    g_pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (g_pagemap < 0)
        goto fail;
    size_t len = 8 * g_page;
    unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        goto fail;
    int ok = 0;
    if (uffd_register(m, len) == 0 && uffd_protect(m, len) == 0) {
        m[2 * g_page + 1] = 1;
        m[5 * g_page] = 1;
        size_t n = 0;
        if (uffd_scan((uintptr_t)m, len, 1, count_pages, &n) == 0 && n == 2) {
            m[5 * g_page + 7] = 2;
            n = 0;
            ok = uffd_scan((uintptr_t)m, len, 0, count_pages, &n) == 0 && n == 1;
        }
    }
    munmap(m, len);
    if (ok)
        return 1;
fail:
    if (g_uffd >= 0)
        close(g_uffd);
    if (g_pagemap >= 0)
        close(g_pagemap);
    g_uffd = g_pagemap = -1;
    return 0;
}

/* ---- write tracking: mprotect ---------------------------------------------------------- */

static struct trange *tr_find(uintptr_t a) {
    struct trange *t = atomic_load(&g_tr);
    size_t lo = 0, hi = atomic_load(&g_ntr);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t[mid].hi <= a)
            lo = mid + 1;
        else if (t[mid].lo > a)
            hi = mid;
        else
            return &t[mid];
    }
    return NULL;
}

static void segv_handler(int sig, siginfo_t *si, void *uc) {
    int saved = errno;
    uintptr_t a = (uintptr_t)si->si_addr;
    struct trange *t = atomic_load(&g_protecting) ? tr_find(a) : NULL;
    if (!t) {
        /* Not ours: the previous handler, or the default action on return. */
        if (g_old_segv.sa_flags & SA_SIGINFO && g_old_segv.sa_sigaction) {
            g_old_segv.sa_sigaction(sig, si, uc);
        } else if (g_old_segv.sa_handler != SIG_DFL && g_old_segv.sa_handler != SIG_IGN &&
                   g_old_segv.sa_handler) {
            g_old_segv.sa_handler(sig);
        } else {
            signal(SIGSEGV, SIG_DFL);
        }
        errno = saved;
        return;
    }
    size_t p = (a - t->lo) / g_page;
    unsigned char exp = PS_CLEAN;
    if (atomic_compare_exchange_strong(&t->pstate[p], &exp, PS_COPYING)) {
        unsigned char *page = (unsigned char *)(t->lo + p * g_page);
        memcpy(t->twin + p * g_page, page, g_page);
        if (mprotect(page, g_page, PROT_READ | PROT_WRITE) != 0) {
            static const char m[] = "cape: mprotect failed in the write-fault handler (too many "
                                    "memory mappings? try PPO_CAPE_TRACKING=uffd-wp or compare)\n";
            write_all(g_err_fd, m, sizeof m - 1);
            _exit(1);
        }
        atomic_store(&t->pstate[p], PS_DIRTY);
    } else {
        while (atomic_load(&t->pstate[p]) == PS_COPYING)
            ;
    }
    errno = saved;
}

static void altstack_here(void) {
    if (tl_altstack)
        return;
    tl_altstack = 1;
    size_t sz = 64 * 1024;
    void *s = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED)
        return;
    stack_t st = {.ss_sp = s, .ss_size = sz, .ss_flags = 0};
    sigaltstack(&st, NULL);
}

static int mprotect_setup(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = segv_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &g_old_segv) != 0)
        return 0;
    altstack_here();
    return 1;
}

/* ---- per-variable tracking -------------------------------------------------------------- */

static void track_release(struct var *v) {
    if (v->twin)
        munmap(v->twin, v->thi - v->tlo);
    if (v->pstate)
        munmap((void *)v->pstate, (v->thi - v->tlo) / g_page);
    v->twin = NULL;
    v->pstate = NULL;
    v->track_ready = 0;
    v->twin_valid = 0;
    v->tlo = v->thi = 0;
}

static void *map_anon(size_t n) {
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        msg("cape: node %d: out of memory: cannot map %zu bytes for write tracking\n", g_rank, n);
        die_all();
    }
    return p;
}

/* Decide which bytes of v are tracked (full pages of large globals and mmap'd blocks). */
static void track_setup(struct var *v) {
    if (v->track_ready)
        return;
    v->track_ready = 1;
    v->tlo = v->thi = 0;
    if (g_mode == MODE_COMPARE || v->kind == VK_LOCAL)
        return;
    uintptr_t a = (uintptr_t)v->addr, lo = page_up(a), hi = page_down(a + v->bytes);
    if (hi <= lo)
        return;
    size_t pages = (hi - lo) / g_page;
    if (v->kind == VK_GLOBAL && pages < TRACK_MIN_PAGES)
        return;
    if (v->kind == VK_HEAP) {
        struct block *b = blocks_find(a);
        if (!b || !b->maplen)
            return;
    }
    if (g_mode == MODE_UFFD && uffd_register((void *)lo, hi - lo) != 0)
        return; /* e.g. a read-only mapping: compared instead */
    v->tlo = lo - a;
    v->thi = hi - a;
    v->twin = map_anon(hi - lo);
    if (g_mode == MODE_MPROTECT)
        v->pstate = map_anon(pages);
    v->twin_valid = 0;
}

static size_t untracked_len(const struct var *v) { return v->tlo + (v->bytes - v->thi); }

/* Snapshot v's untracked bytes into the arena. */
static void snapshot_var(struct var *v) {
    size_t n = untracked_len(v);
    if (g_arena_len + n > g_arena_cap) {
        g_arena_cap = (g_arena_len + n) * 2;
        g_arena = xrealloc(g_arena, g_arena_cap);
    }
    v->snap_off = g_arena_len;
    memcpy(g_arena + g_arena_len, v->addr, v->tlo);
    memcpy(g_arena + g_arena_len + v->tlo, v->addr + v->thi, v->bytes - v->thi);
    g_arena_len += n;
}

struct twin_ctx {
    struct var *v;
    unsigned long long pages;
};

static void refresh_twin(void *ctx, uintptr_t lo, uintptr_t hi) {
    struct twin_ctx *c = ctx;
    uintptr_t base = (uintptr_t)c->v->addr + c->v->tlo;
    memcpy(c->v->twin + (lo - base), (void *)lo, hi - lo);
    c->pages += (hi - lo) / g_page;
}

/* Start an interval: old state of every registered byte. */
static void interval_start(void) {
    g_arena_len = 0;
    size_t ntr = 0;
    for (size_t i = 0; i < g_nvars; i++) {
        struct var *v = g_vars[i];
        if (v->dead)
            continue;
        track_setup(v);
        snapshot_var(v);
        if (v->thi <= v->tlo)
            continue;
        uintptr_t lo = (uintptr_t)v->addr + v->tlo;
        size_t len = v->thi - v->tlo;
        if (g_mode == MODE_UFFD) {
            if (!v->twin_valid) {
                uffd_protect((void *)lo, len);
                memcpy(v->twin, (void *)lo, len);
                v->twin_valid = 1;
            } else {
                /* Pages written since the last interval (sequential code, injection). */
                struct twin_ctx c = {v, 0};
                if (uffd_scan(lo, len, 1, refresh_twin, &c) != 0) {
                    uffd_protect((void *)lo, len);
                    memcpy(v->twin, (void *)lo, len);
                }
            }
        } else if (g_mode == MODE_MPROTECT) {
            ntr++;
        }
    }
    if (g_mode == MODE_MPROTECT) {
        struct trange *t = xmalloc((ntr ? ntr : 1) * sizeof *t);
        size_t k = 0;
        for (size_t i = 0; i < g_nvars; i++) {
            struct var *v = g_vars[i];
            if (v->dead || v->thi <= v->tlo)
                continue;
            t[k].lo = (uintptr_t)v->addr + v->tlo;
            t[k].hi = (uintptr_t)v->addr + v->thi;
            t[k].twin = v->twin;
            t[k].pstate = v->pstate;
            memset((void *)v->pstate, PS_CLEAN, (v->thi - v->tlo) / g_page);
            k++;
        }
        /* sorted by address for the handler's binary search */
        for (size_t i = 1; i < k; i++) {
            struct trange x = t[i];
            size_t j = i;
            while (j > 0 && t[j - 1].lo > x.lo) {
                t[j] = t[j - 1];
                j--;
            }
            t[j] = x;
        }
        struct trange *old = atomic_load(&g_tr);
        atomic_store(&g_ntr, 0);
        atomic_store(&g_tr, t);
        atomic_store(&g_ntr, k);
        free(old);
        atomic_store(&g_protecting, 1);
        for (size_t i = 0; i < k; i++)
            mprotect((void *)t[i].lo, t[i].hi - t[i].lo, PROT_READ);
    }
}

/* mprotect mode: make every tracked page writable again (before the runtime writes). */
static void unprotect_all(void) {
    if (g_mode != MODE_MPROTECT || !atomic_load(&g_protecting))
        return;
    struct trange *t = atomic_load(&g_tr);
    size_t n = atomic_load(&g_ntr);
    for (size_t i = 0; i < n; i++)
        mprotect((void *)t[i].lo, t[i].hi - t[i].lo, PROT_READ | PROT_WRITE);
    atomic_store(&g_protecting, 0);
}

/* The old content of v at offset off, and how many bytes from there come from the same
 * place (*avail). */
static const unsigned char *old_at(const struct var *v, size_t off, size_t *avail) {
    if (off < v->tlo) {
        *avail = v->tlo - off;
        return g_arena + v->snap_off + off;
    }
    if (off >= v->thi) {
        *avail = v->bytes - off;
        return g_arena + v->snap_off + v->tlo + (off - v->thi);
    }
    size_t t = off - v->tlo;
    if (g_mode == MODE_MPROTECT) {
        size_t p = t / g_page;
        *avail = (p + 1) * g_page - t;
        if (atomic_load(&v->pstate[p]) == PS_DIRTY)
            return v->twin + t;
        return v->addr + off;
    }
    *avail = v->thi - off;
    return v->twin + t;
}

/* ---- extraction --------------------------------------------------------------------------- */

struct out {
    unsigned char *buf;
    size_t len, cap;
};
static struct out g_out;

struct builder {
    struct var *v;
    size_t start, end; /* pending run [start, end), end == 0: none */
    int pending;
    unsigned long long changed, records;
    /* 8-byte words (aligned in the variable) holding a changed byte: the data changed at
     * the granularity of doubles and longs */
    unsigned long long words;
};

static void out_record(struct var *v, size_t off, size_t len) {
    while (len > 0) {
        size_t n = len < REC_MAX ? len : REC_MAX;
        if (g_out.len + HDR + n > g_out.cap) {
            g_out.cap = (g_out.len + HDR + n) * 2;
            g_out.buf = xrealloc(g_out.buf, g_out.cap);
        }
        unsigned char *h = g_out.buf + g_out.len;
        uint64_t id = v->id, o = off;
        uint32_t l = (uint32_t)n, ts = g_ts;
        memcpy(h, &id, 8);
        memcpy(h + 8, &o, 8);
        memcpy(h + 16, &l, 4);
        memcpy(h + 20, &ts, 4);
        memcpy(h + HDR, v->addr + off, n);
        g_out.len += HDR + n;
        off += n;
        len -= n;
    }
}

static void b_flush(struct builder *b) {
    if (b->pending) {
        out_record(b->v, b->start, b->end - b->start);
        b->records++;
        b->pending = 0;
    }
}

static void b_emit(struct builder *b, size_t s, size_t e) {
    if (b->pending && s - b->end < HDR) {
        b->end = e;
        return;
    }
    b_flush(b);
    b->start = s;
    b->end = e;
    b->pending = 1;
}

static size_t first_diff(const unsigned char *cur, const unsigned char *old, size_t i, size_t n) {
    while (i + 256 <= n && memcmp(cur + i, old + i, 256) == 0)
        i += 256;
    while (i + 8 <= n) {
        uint64_t a, b;
        memcpy(&a, cur + i, 8);
        memcpy(&b, old + i, 8);
        if (a != b)
            return i + (size_t)__builtin_ctzll(a ^ b) / 8;
        i += 8;
    }
    while (i < n && cur[i] == old[i])
        i++;
    return i;
}

/* Diff cur against old over n bytes (at var offset base), emitting runs to b. */
static void diff_span(struct builder *b, const unsigned char *cur, const unsigned char *old, size_t n,
                      size_t base) {
    size_t i = 0;
    while (i < n) {
        size_t s = first_diff(cur, old, i, n);
        if (s >= n)
            break;
        /* extend: the run ends when HDR equal bytes follow its last differing byte */
        size_t e = s + 1, j = s + 1;
        unsigned long long changed = 1;
        while (j < n && j - e < HDR) {
            if (j + 8 <= n) {
                uint64_t x, y;
                memcpy(&x, cur + j, 8);
                memcpy(&y, old + j, 8);
                uint64_t d = x ^ y;
                if (d == 0) {
                    j += 8;
                    continue;
                }
                size_t fb = j + (size_t)__builtin_ctzll(d) / 8;
                if (fb - e >= HDR)
                    break;
                for (size_t k = 0; k < 8; k++)
                    changed += ((d >> (8 * k)) & 0xff) != 0;
                e = j + (size_t)(63 - __builtin_clzll(d)) / 8 + 1;
                j += 8;
            } else {
                if (cur[j] != old[j]) {
                    e = j + 1;
                    changed++;
                }
                j++;
            }
        }
        b->changed += changed;
        for (size_t w = (base + s) & ~(size_t)7; w < base + e; w += 8) {
            size_t lo = w > base + s ? w - base : s, hi = w + 8 < base + e ? w + 8 - base : e;
            b->words += memcmp(cur + lo, old + lo, hi - lo) != 0;
        }
        b_emit(b, base + s, base + e);
        i = e;
    }
}

/* Diff the bytes [lo, hi) of v (none excluded) against their old content. */
static void diff_piece(struct builder *b, size_t lo, size_t hi, const unsigned char *dirty_map,
                       unsigned long long *compared) {
    struct var *v = b->v;
    size_t off = lo;
    while (off < hi) {
        size_t avail;
        const unsigned char *old = old_at(v, off, &avail);
        size_t n = hi - off < avail ? hi - off : avail;
        if (off >= v->tlo && off < v->thi) {
            /* tracked pages: only the written ones */
            size_t t = off - v->tlo, end = t + n;
            while (t < end) {
                size_t p = t / g_page, pe = (p + 1) * g_page;
                if (pe > end)
                    pe = end;
                if (dirty_map[p]) {
                    diff_span(b, v->addr + v->tlo + t, old + (t - (off - v->tlo)), pe - t, v->tlo + t);
                    *compared += pe - t;
                }
                t = pe;
            }
        } else {
            diff_span(b, v->addr + off, old, n, off);
            *compared += n;
        }
        off += n;
    }
}

static int excl_cmp(const void *a, const void *b) {
    const struct excl *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

struct dirty_ctx {
    struct var *v;
    unsigned char *map;
    unsigned long long pages;
};

static void mark_dirty(void *ctx, uintptr_t lo, uintptr_t hi) {
    struct dirty_ctx *c = ctx;
    uintptr_t base = (uintptr_t)c->v->addr + c->v->tlo;
    for (uintptr_t a = lo; a < hi; a += g_page) {
        c->map[(a - base) / g_page] = 1;
        c->pages++;
    }
}

static unsigned char *g_dmap;
static size_t g_dmap_cap;

/* This node's records of the interval into g_out. */
static void extract(void) {
    g_out.len = 0;
    qsort(g_excl, g_nexcl, sizeof *g_excl, excl_cmp);
    unsigned long long changed = 0, words = 0, compared = 0, pages = 0;
    for (size_t i = 0; i < g_nvars; i++) {
        struct var *v = g_vars[i];
        if (v->dead)
            continue;
        /* which tracked pages were written */
        size_t np = (v->thi - v->tlo) / g_page;
        if (np > g_dmap_cap) {
            g_dmap_cap = np * 2;
            g_dmap = xrealloc(g_dmap, g_dmap_cap);
        }
        if (np) {
            if (g_mode == MODE_UFFD) {
                memset(g_dmap, 0, np);
                struct dirty_ctx c = {v, g_dmap, 0};
                if (uffd_scan((uintptr_t)v->addr + v->tlo, v->thi - v->tlo, 0, mark_dirty, &c) != 0)
                    memset(g_dmap, 1, np);
                pages += c.pages;
            } else {
                for (size_t p = 0; p < np; p++) {
                    g_dmap[p] = atomic_load(&v->pstate[p]) == PS_DIRTY;
                    pages += g_dmap[p];
                }
            }
        }
        struct builder b = {v, 0, 0, 0, 0, 0, 0};
        uintptr_t a = (uintptr_t)v->addr, ae = a + v->bytes;
        size_t off = 0;
        for (size_t k = 0; k < g_nexcl && off < v->bytes; k++) {
            if (g_excl[k].hi <= a + off || g_excl[k].lo >= ae)
                continue;
            size_t xlo = g_excl[k].lo > a ? g_excl[k].lo - a : 0;
            size_t xhi = g_excl[k].hi < ae ? g_excl[k].hi - a : v->bytes;
            if (xlo > off) {
                diff_piece(&b, off, xlo, g_dmap, &compared);
                b_flush(&b); /* never across excluded bytes */
            }
            if (xhi > off)
                off = xhi;
        }
        if (off < v->bytes)
            diff_piece(&b, off, v->bytes, g_dmap, &compared);
        b_flush(&b);
        changed += b.changed;
        words += b.words;
    }
    g_stats.changed_bytes += changed;
    g_stats.changed_word_bytes += 8 * words;
    g_stats.compared_bytes += compared;
    g_stats.dirty_pages += pages;
    g_stats.checkpoint_bytes += g_out.len;
}

/* ---- exchange ------------------------------------------------------------------------------ */

static unsigned char *g_in;
static size_t g_in_cap;
static uint64_t *g_sizes;
static size_t *g_displ;

/* Every node's records into g_in (node k's at g_displ[k], g_sizes[k] bytes). */
static void exchange(void) {
    int n = g_nodes;
    if (!g_sizes) {
        g_sizes = xmalloc(n * sizeof *g_sizes);
        g_displ = xmalloc((n + 1) * sizeof *g_displ);
    }
    uint64_t mine = g_out.len;
    MPI_Allgather(&mine, 1, MPI_UINT64_T, g_sizes, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    size_t total = 0;
    uint64_t maxsz = 0;
    for (int k = 0; k < n; k++) {
        g_displ[k] = total;
        total += g_sizes[k];
        if (g_sizes[k] > maxsz)
            maxsz = g_sizes[k];
    }
    g_displ[n] = total;
    if (total > g_in_cap) {
        g_in_cap = total;
        free(g_in);
        g_in = xmalloc(g_in_cap);
    }
    if (total == 0)
        return;
    int *counts = xmalloc(n * sizeof *counts), *displs = xmalloc(n * sizeof *displs);
    if (total <= (size_t)INT_MAX) {
        for (int k = 0; k < n; k++) {
            counts[k] = (int)g_sizes[k];
            displs[k] = (int)g_displ[k];
        }
        MPI_Allgatherv(g_out.buf, (int)mine, MPI_BYTE, g_in, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
    } else {
        /* rounds of at most INT_MAX / n bytes per node */
        size_t chunk = (size_t)INT_MAX / (size_t)n;
        unsigned char *tmp = xmalloc(chunk * (size_t)n);
        for (size_t done = 0; done < maxsz; done += chunk) {
            size_t at = 0;
            for (int k = 0; k < n; k++) {
                size_t left = g_sizes[k] > done ? g_sizes[k] - done : 0;
                counts[k] = (int)(left < chunk ? left : chunk);
                displs[k] = (int)at;
                at += (size_t)counts[k];
            }
            MPI_Allgatherv(g_out.buf + (mine > done ? done : mine), counts[g_rank], MPI_BYTE, tmp, counts,
                           displs, MPI_BYTE, MPI_COMM_WORLD);
            for (int k = 0; k < n; k++)
                memcpy(g_in + g_displ[k] + done, tmp + displs[k], (size_t)counts[k]);
        }
        free(tmp);
    }
    free(counts);
    free(displs);
}

/* ---- merge --------------------------------------------------------------------------------- */

static struct rec *g_recs, *g_recs_tmp;
static size_t g_nrecs, g_recs_cap, g_recs_tmp_cap;

static int rec_less(const struct rec *a, const struct rec *b) {
    if (a->id != b->id)
        return a->id < b->id;
    if (a->off != b->off)
        return a->off < b->off;
    return a->node < b->node;
}

/* Parse every node's records; each node's are sorted already, merge the runs. */
static void parse_records(void) {
    g_nrecs = 0;
    size_t *runs = xmalloc((g_nodes + 1) * sizeof *runs);
    for (int k = 0; k < g_nodes; k++) {
        runs[k] = g_nrecs;
        const unsigned char *p = g_in + g_displ[k], *end = p + g_sizes[k];
        while (p + HDR <= end) {
            uint64_t id, off;
            uint32_t len, ts;
            memcpy(&id, p, 8);
            memcpy(&off, p + 8, 8);
            memcpy(&len, p + 16, 4);
            memcpy(&ts, p + 20, 4);
            if (p + HDR + len > end)
                break;
            if (g_nrecs >= g_recs_cap) {
                /* g_recs may be the smaller of the two swapped buffers: grow from scratch */
                size_t cap = g_recs_cap ? 2 * g_recs_cap : 64;
                struct rec *n = xmalloc(cap * sizeof *n);
                memcpy(n, g_recs, g_nrecs * sizeof *n);
                free(g_recs);
                g_recs = n;
                g_recs_cap = cap;
            }
            g_recs[g_nrecs++] = (struct rec){id, off, len, ts, k, p + HDR};
            p += HDR + len;
        }
    }
    runs[g_nodes] = g_nrecs;
    /* both buffers have g_recs_cap entries: they are swapped below */
    if (g_recs_tmp_cap < g_recs_cap) {
        free(g_recs_tmp);
        g_recs_tmp = xmalloc(g_recs_cap * sizeof *g_recs_tmp);
        g_recs_tmp_cap = g_recs_cap;
    }
    /* bottom-up merge of the per-node runs */
    size_t nruns = (size_t)g_nodes;
    while (nruns > 1) {
        size_t k = 0;
        for (size_t r = 0; r < nruns; r += 2) {
            size_t lo = runs[r], mid = runs[r + 1], hi = r + 2 <= nruns ? runs[r + 2] : mid;
            if (r + 1 >= nruns) {
                memcpy(g_recs_tmp + lo, g_recs + lo, (mid - lo) * sizeof *g_recs);
                runs[k++] = lo;
                continue;
            }
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                g_recs_tmp[o++] = rec_less(&g_recs[j], &g_recs[i]) ? g_recs[j++] : g_recs[i++];
            while (i < mid)
                g_recs_tmp[o++] = g_recs[i++];
            while (j < hi)
                g_recs_tmp[o++] = g_recs[j++];
            runs[k++] = lo;
        }
        runs[k] = g_nrecs;
        nruns = k;
        struct rec *t = g_recs;
        g_recs = g_recs_tmp;
        g_recs_tmp = t;
        size_t c = g_recs_cap;
        g_recs_cap = g_recs_tmp_cap;
        g_recs_tmp_cap = c;
    }
    free(runs);
}

static void bernstein_violation(const struct var *v, int a, int b, size_t off, size_t n) {
    if (g_rank == 0) {
        char buf[128];
        msg("cape: region at %s: nodes %d and %d both wrote %s (offset %zu, %zu bytes): the loop breaks "
            "Bernstein's conditions (not a reduction)\n",
            g_where, a, b, var_label(v, buf, sizeof buf), off, n);
        die_all();
    }
    /* Node 0 reached the same verdict and aborts the job; give it time to say why. */
    for (int i = 0; i < 1000; i++)
        usleep(10000);
    die_all();
}

/* Bytes of two records over [lo, hi) of v that both nodes wrote (changed from the old
 * value), whatever the new values: returns 1 (a conflict) or 0. Equal new values are a
 * conflict too: two nodes that each add 1 to a shared counter write the same value, and
 * accepting it would lose one of the increments. */
static int conflicts(const struct var *v, const struct rec *x, const struct rec *y, size_t lo, size_t hi) {
    size_t off = lo;
    while (off < hi) {
        size_t avail;
        const unsigned char *o = old_at(v, off, &avail);
        size_t n = hi - off < avail ? hi - off : avail;
        const unsigned char *a = x->data + (off - x->off), *b = y->data + (off - y->off);
        for (size_t i = 0; i < n; i++)
                if (a[i] != o[i] && b[i] != o[i])
                    return 1;
        off += n;
    }
    return 0;
}

static struct var *rec_var(const struct rec *r) {
    struct var *v = var_by_id(r->id);
    if (!v || r->off + r->len > v->bytes) {
        if (g_rank == 0)
            msg("cape: region at %s: node %d sent a change to shared object %llu that this node does not "
                "have (the nodes allocated different objects: allocation inside parallel code?)\n",
                g_where, r->node, r->id);
        die_all();
    }
    return v;
}

static void check_conflicts(void) {
    for (size_t i = 0; i < g_nrecs; i++) {
        const struct rec *x = &g_recs[i];
        size_t xe = x->off + x->len;
        struct var *v = NULL;
        for (size_t j = i + 1; j < g_nrecs && g_recs[j].id == x->id && g_recs[j].off < xe; j++) {
            const struct rec *y = &g_recs[j];
            if (y->node == x->node)
                continue;
            if (!v)
                v = rec_var(x);
            size_t ye = y->off + y->len, hi = xe < ye ? xe : ye;
            if (conflicts(v, x, y, y->off, hi)) {
                int a = x->node < y->node ? x->node : y->node, b = x->node ^ y->node ^ a;
                bernstein_violation(v, a, b, y->off, hi - y->off);
            }
        }
    }
}

/* mprotect mode: twin the clean pages foreign records touch, so old_at stays right. */
static void prepare_old(void) {
    if (g_mode != MODE_MPROTECT)
        return;
    for (size_t i = 0; i < g_nrecs; i++) {
        const struct rec *r = &g_recs[i];
        if (r->node == g_rank)
            continue;
        struct var *v = rec_var(r);
        if (v->thi <= v->tlo)
            continue;
        size_t lo = r->off > v->tlo ? r->off : v->tlo, hi = r->off + r->len < v->thi ? r->off + r->len : v->thi;
        if (lo >= hi)
            continue;
        for (size_t p = (lo - v->tlo) / g_page; p * g_page < hi - v->tlo; p++)
            if (atomic_load(&v->pstate[p]) == PS_CLEAN) {
                memcpy(v->twin + p * g_page, v->addr + v->tlo + p * g_page, g_page);
                atomic_store(&v->pstate[p], PS_DIRTY);
            }
    }
}

/* Write the foreign records' written bytes (those that differ from the old value). */
static void apply(void) {
    for (size_t i = 0; i < g_nrecs; i++) {
        const struct rec *r = &g_recs[i];
        if (r->node == g_rank)
            continue;
        struct var *v = rec_var(r);
        size_t off = r->off, end = r->off + r->len;
        while (off < end) {
            size_t avail;
            const unsigned char *o = old_at(v, off, &avail);
            size_t n = end - off < avail ? end - off : avail;
            const unsigned char *d = r->data + (off - r->off);
            unsigned char *m = v->addr + off;
            size_t k = 0;
            for (; k + 8 <= n; k += 8) {
                uint64_t dv, ov, mv;
                memcpy(&dv, d + k, 8);
                memcpy(&ov, o + k, 8);
                if (dv == ov)
                    continue;
                memcpy(&mv, m + k, 8);
                if (mv == ov) {
                    memcpy(m + k, &dv, 8);
                } else {
                    for (size_t q = k; q < k + 8; q++)
                        if (d[q] != o[q])
                            m[q] = d[q];
                }
            }
            for (; k < n; k++)
                if (d[k] != o[k])
                    m[k] = d[k];
            off += n;
        }
    }
}

/* ---- reductions and lastprivates -------------------------------------------------------------- */

static size_t type_size(enum cape_type t) {
    switch (t) {
    case CAPE_CHAR: case CAPE_SCHAR: case CAPE_UCHAR: return 1;
    case CAPE_SHORT: case CAPE_USHORT: return sizeof(short);
    case CAPE_INT: case CAPE_UINT: return sizeof(int);
    case CAPE_LONG: case CAPE_ULONG: return sizeof(long);
    case CAPE_LLONG: case CAPE_ULLONG: return sizeof(long long);
    case CAPE_FLOAT: return sizeof(float);
    case CAPE_DOUBLE: return sizeof(double);
    case CAPE_LDOUBLE: return sizeof(long double);
    case CAPE_BOOL: return sizeof(_Bool);
    }
    return 0;
}

/* Integer reductions: identity and combine. */
#define INT_OPS(T, MINV, MAXV)                                                                 \
    static void ident_##T(T *p, enum cape_op op) {                                             \
        switch (op) {                                                                          \
        case CAPE_SUM: case CAPE_BOR: case CAPE_BXOR: case CAPE_LOR: *p = 0; break;            \
        case CAPE_PROD: case CAPE_LAND: *p = 1; break;                                         \
        case CAPE_MIN: *p = MAXV; break;                                                       \
        case CAPE_MAX: *p = MINV; break;                                                       \
        case CAPE_BAND: *p = (T)~(T)0; break;                                                  \
        }                                                                                      \
    }                                                                                          \
    static T comb_##T(T a, T b, enum cape_op op) {                                             \
        switch (op) {                                                                          \
        case CAPE_SUM: return (T)(a + b);                                                      \
        case CAPE_PROD: return (T)(a * b);                                                     \
        case CAPE_MIN: return b < a ? b : a;                                                   \
        case CAPE_MAX: return b > a ? b : a;                                                   \
        case CAPE_BAND: return (T)(a & b);                                                     \
        case CAPE_BOR: return (T)(a | b);                                                      \
        case CAPE_BXOR: return (T)(a ^ b);                                                     \
        case CAPE_LAND: return (T)(a && b);                                                    \
        case CAPE_LOR: return (T)(a || b);                                                     \
        }                                                                                      \
        return a;                                                                              \
    }
#define FLT_OPS(T, MAXV)                                                                       \
    static void ident_##T(T *p, enum cape_op op) {                                             \
        switch (op) {                                                                          \
        case CAPE_PROD: case CAPE_LAND: *p = 1; break;                                         \
        case CAPE_MIN: *p = MAXV; break;                                                       \
        case CAPE_MAX: *p = -(MAXV); break;                                                    \
        default: *p = 0; break;                                                                \
        }                                                                                      \
    }                                                                                          \
    static T comb_##T(T a, T b, enum cape_op op) {                                             \
        switch (op) {                                                                          \
        case CAPE_SUM: return a + b;                                                           \
        case CAPE_PROD: return a * b;                                                          \
        case CAPE_MIN: return b < a ? b : a;                                                   \
        case CAPE_MAX: return b > a ? b : a;                                                   \
        case CAPE_LAND: return a && b;                                                         \
        case CAPE_LOR: return a || b;                                                          \
        default: return a;                                                                     \
        }                                                                                      \
    }
typedef signed char schar;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef long long llong;
typedef unsigned long long ullong;
typedef long double ldouble;
typedef _Bool cbool;
INT_OPS(char, CHAR_MIN, CHAR_MAX)
INT_OPS(schar, SCHAR_MIN, SCHAR_MAX)
INT_OPS(uchar, 0, UCHAR_MAX)
INT_OPS(short, SHRT_MIN, SHRT_MAX)
INT_OPS(ushort, 0, USHRT_MAX)
INT_OPS(int, INT_MIN, INT_MAX)
INT_OPS(uint, 0, UINT_MAX)
INT_OPS(long, LONG_MIN, LONG_MAX)
INT_OPS(ulong, 0, ULONG_MAX)
INT_OPS(llong, LLONG_MIN, LLONG_MAX)
INT_OPS(ullong, 0, ULLONG_MAX)
static void ident_cbool(cbool *p, enum cape_op op) {
    *p = op == CAPE_PROD || op == CAPE_LAND || op == CAPE_MIN || op == CAPE_BAND;
}
static cbool comb_cbool(cbool a, cbool b, enum cape_op op) {
    switch (op) {
    case CAPE_PROD: case CAPE_MIN: case CAPE_BAND: case CAPE_LAND: return a && b;
    case CAPE_BXOR: return a != b;
    default: return a || b;
    }
}
FLT_OPS(float, __builtin_inff())
FLT_OPS(double, __builtin_inf())
FLT_OPS(ldouble, __builtin_infl())

#define EACH_TYPE(X)                                                                           \
    X(CAPE_CHAR, char) X(CAPE_SCHAR, schar) X(CAPE_UCHAR, uchar) X(CAPE_SHORT, short)           \
    X(CAPE_USHORT, ushort) X(CAPE_INT, int) X(CAPE_UINT, uint) X(CAPE_LONG, long)               \
    X(CAPE_ULONG, ulong) X(CAPE_LLONG, llong) X(CAPE_ULLONG, ullong) X(CAPE_FLOAT, float)       \
    X(CAPE_DOUBLE, double) X(CAPE_LDOUBLE, ldouble) X(CAPE_BOOL, cbool)

static void red_identity(void *p, enum cape_type t, enum cape_op op) {
#define X(K, T)                                                                                \
    case K: { T v = 0; ident_##T(&v, op); memcpy(p, &v, sizeof v); break; }
    switch (t) { EACH_TYPE(X) }
#undef X
}

/* *acc = *acc op *b */
static void red_combine(void *acc, const void *b, enum cape_type t, enum cape_op op) {
#define X(K, T)                                                                                \
    case K: { T x, y; memcpy(&x, acc, sizeof x); memcpy(&y, b, sizeof y);                       \
              x = comb_##T(x, y, op); memcpy(acc, &x, sizeof x); break; }
    switch (t) { EACH_TYPE(X) }
#undef X
}

static void reduce_all(void) {
    if (g_nreds == 0)
        return;
    size_t total = 0;
    for (size_t i = 0; i < g_nreds; i++)
        total += type_size(g_reds[i].type);
    unsigned char *mine = xmalloc(total), *all = xmalloc(total * (size_t)g_nodes);
    size_t at = 0;
    for (size_t i = 0; i < g_nreds; i++) {
        size_t s = type_size(g_reds[i].type);
        memcpy(mine + at, g_reds[i].addr, s);
        at += s;
    }
    /* Every node's partial values, combined in rank order: the same result everywhere. */
    MPI_Allgather(mine, (int)total, MPI_BYTE, all, (int)total, MPI_BYTE, MPI_COMM_WORLD);
    at = 0;
    for (size_t i = 0; i < g_nreds; i++) {
        struct red *r = &g_reds[i];
        size_t s = type_size(r->type);
        unsigned char acc[16];
        memcpy(acc, all + at, s);
        for (int k = 1; k < g_nodes; k++)
            red_combine(acc, all + (size_t)k * total + at, r->type, r->op);
        unsigned char res[16];
        memcpy(res, r->saved, s);
        red_combine(res, acc, r->type, r->op);
        memcpy(r->addr, res, s);
        at += s;
    }
    free(mine);
    free(all);
    g_nreds = 0;
}

static void lastprivates_all(void) {
    for (size_t i = 0; i < g_nlps; i++) {
        struct lastp *l = &g_lps[i];
        if (l->owner < 0 || l->bytes == 0)
            continue;
        unsigned char *tmp = xmalloc(l->bytes);
        if (g_rank == l->owner)
            memcpy(tmp, l->addr, l->bytes);
        for (size_t done = 0; done < l->bytes; done += (size_t)INT_MAX) {
            size_t n = l->bytes - done < (size_t)INT_MAX ? l->bytes - done : (size_t)INT_MAX;
            MPI_Bcast(tmp + done, (int)n, MPI_BYTE, l->owner, MPI_COMM_WORLD);
        }
        if (g_rank != l->owner)
            memcpy(l->addr, tmp, l->bytes);
        if (g_rank == l->owner)
            g_stats.checkpoint_bytes += l->bytes;
        free(tmp);
    }
    g_nlps = 0;
}

/* ---- regions ----------------------------------------------------------------------------- */

static void ensure_init(void) {
    if (!g_inited)
        cape_init(NULL, NULL);
}

/* Whether calls now belong to a plain-OpenMP (nested or absent) region. */
static int in_plain(void) {
    if (!atomic_load(&g_active) || tl_nested > 0)
        return 1;
    return omp_get_level() > g_level + 1;
}

int cape_region_begin(const char *where) {
    if (atomic_load(&g_active) || tl_nested > 0 || omp_in_parallel() || omp_get_level() > 0) {
        tl_nested++;
        return 0;
    }
    ensure_init();
    if (g_finalized) {
        tl_nested++;
        return 0;
    }
    g_where = where ? where : "?";
    g_level = omp_get_level();
    g_region_start = g_stats;
    double t0 = now();
    pthread_mutex_lock(&g_lock);
    vars_compact();
    pthread_mutex_unlock(&g_lock);
    g_nexcl = g_excl_keep = 0;
    g_nreds = g_nlps = 0;
    atomic_store(&g_last_owner, -1);
    if (g_mode == MODE_MPROTECT)
        altstack_here();
    interval_start();
    g_stats.extract_seconds += now() - t0;
    g_stats.regions++;
    atomic_store(&g_active, 1);
    return 1;
}

void cape_local(void *addr, size_t bytes, const char *name) {
    if (in_plain() || !addr)
        return;
    pthread_mutex_lock(&g_lock);
    struct var *v = var_new(addr, bytes, name, VK_LOCAL);
    track_setup(v);
    snapshot_var(v);
    pthread_mutex_unlock(&g_lock);
}

static void add_excl(void *addr, size_t bytes) {
    GROW(g_excl, g_nexcl, g_capexcl);
    g_excl[g_nexcl++] = (struct excl){(uintptr_t)addr, (uintptr_t)addr + bytes};
}

void cape_private(void *addr, size_t bytes) {
    if (in_plain() || !addr)
        return;
    add_excl(addr, bytes);
    /* privates stay excluded until the region ends: keep them first */
    struct excl x = g_excl[g_nexcl - 1];
    memmove(g_excl + g_excl_keep + 1, g_excl + g_excl_keep, (g_nexcl - 1 - g_excl_keep) * sizeof *g_excl);
    g_excl[g_excl_keep++] = x;
}

void cape_reduction(void *addr, enum cape_type type, enum cape_op op, const char *name) {
    if (in_plain() || !addr)
        return;
    GROW(g_reds, g_nreds, g_capreds);
    struct red *r = &g_reds[g_nreds++];
    r->addr = addr;
    r->type = type;
    r->op = op;
    r->name = name;
    memset(r->saved, 0, sizeof r->saved);
    memcpy(r->saved, addr, type_size(type));
    add_excl(addr, type_size(type));
    red_identity(addr, type, op);
}

void cape_for(long long n, enum cape_dist dist, long long *first, long long *stop, long long *stride) {
    if (in_plain() || n <= 0) {
        *first = 0;
        *stop = n > 0 ? n : 0;
        *stride = 1;
        if (!in_plain())
            atomic_store(&g_last_owner, -1);
        return;
    }
    if (g_mode == MODE_MPROTECT)
        altstack_here();
    long long N = g_nodes, r = g_rank;
    if (dist == CAPE_CYCLIC) {
        *first = r;
        *stop = n;
        *stride = N;
        atomic_store(&g_last_owner, (int)((n - 1) % N));
    } else {
        long long q = n / N, rem = n % N;
        long long f = r * q + (r < rem ? r : rem);
        *first = f;
        *stop = f + q + (r < rem ? 1 : 0);
        *stride = 1;
        atomic_store(&g_last_owner, (int)(n >= N ? N - 1 : n - 1));
    }
}

void cape_lastprivate(void *addr, size_t bytes, const char *name) {
    if (in_plain() || !addr)
        return;
    GROW(g_lps, g_nlps, g_caplps);
    g_lps[g_nlps++] = (struct lastp){addr, bytes, name, atomic_load(&g_last_owner)};
    add_excl(addr, bytes);
}

/* Exchange and merge the interval; `more`: the region goes on (start a new interval). */
static void synchronize(int more) {
    double t0 = now();
    extract();
    double t1 = now();
    exchange();
    double t2 = now();
    parse_records();
    check_conflicts();
    prepare_old();
    unprotect_all();
    apply();
    reduce_all();
    lastprivates_all();
    g_nexcl = g_excl_keep; /* reductions and lastprivates are done */
    g_ts++;
    if (g_mode == MODE_UFFD) {
        /* the twins follow memory (own writes, injected bytes, reductions) */
        for (size_t i = 0; i < g_nvars; i++) {
            struct var *v = g_vars[i];
            if (v->dead || v->thi <= v->tlo || !v->twin_valid)
                continue;
            struct twin_ctx c = {v, 0};
            if (uffd_scan((uintptr_t)v->addr + v->tlo, v->thi - v->tlo, 1, refresh_twin, &c) != 0)
                v->twin_valid = 0;
        }
    }
    if (more)
        interval_start();
    double t3 = now();
    g_stats.extract_seconds += t1 - t0;
    g_stats.exchange_seconds += t2 - t1;
    g_stats.inject_seconds += t3 - t2;
}

int cape_active(void) { return !in_plain(); }

/* The region's team is every node's team: thread t of node r is thread r*T + t of T*N
 * (T: the threads of this node's team; every node runs the same team size). */
int cape_thread_num(void) {
    if (in_plain() || omp_get_level() != g_level + 1)
        return omp_get_thread_num();
    return g_rank * omp_get_num_threads() + omp_get_thread_num();
}

int cape_team_threads(int n) {
    if (in_plain() || n < 1)
        return n;
    int share = n / g_nodes + (g_rank < n % g_nodes ? 1 : 0);
    return share > 0 ? share : 1;
}

int cape_num_threads(void) {
    if (in_plain() || omp_get_level() != g_level + 1)
        return omp_get_num_threads();
    return g_nodes * omp_get_num_threads();
}

void cape_sync(void) {
    if (in_plain())
        return;
    g_stats.syncs++;
    synchronize(1);
}

static struct site *site_for(const char *where) {
    for (size_t i = 0; i < g_nsites; i++)
        if (g_sites[i].where == where || strcmp(g_sites[i].where, where) == 0)
            return &g_sites[i];
    GROW(g_sites, g_nsites, g_capsites);
    struct site *s = &g_sites[g_nsites++];
    memset(s, 0, sizeof *s);
    s->where = where;
    return s;
}

static void stats_add(struct cape_stats *to, const struct cape_stats *a, const struct cape_stats *b) {
    to->checkpoint_bytes += a->checkpoint_bytes - b->checkpoint_bytes;
    to->changed_bytes += a->changed_bytes - b->changed_bytes;
    to->changed_word_bytes += a->changed_word_bytes - b->changed_word_bytes;
    to->compared_bytes += a->compared_bytes - b->compared_bytes;
    to->dirty_pages += a->dirty_pages - b->dirty_pages;
    to->regions += a->regions - b->regions;
    to->syncs += a->syncs - b->syncs;
    to->extract_seconds += a->extract_seconds - b->extract_seconds;
    to->exchange_seconds += a->exchange_seconds - b->exchange_seconds;
    to->inject_seconds += a->inject_seconds - b->inject_seconds;
}

void cape_region_end(void) {
    if (tl_nested > 0) {
        tl_nested--;
        return;
    }
    if (!atomic_load(&g_active))
        return;
    synchronize(0);
    atomic_store(&g_protecting, 0);
    /* forget the region's locals */
    pthread_mutex_lock(&g_lock);
    for (size_t i = 0; i < g_nvars; i++)
        if (!g_vars[i]->dead && g_vars[i]->kind == VK_LOCAL)
            var_kill(g_vars[i]);
    pthread_mutex_unlock(&g_lock);
    g_nexcl = g_excl_keep = 0;
    g_nreds = g_nlps = 0;
    atomic_store(&g_active, 0);
    stats_add(&site_for(g_where)->s, &g_stats, &g_region_start);
}

/* ---- life cycle --------------------------------------------------------------------------- */

static void choose_mode(void) {
    if (g_mode_probed)
        return;
    g_mode_probed = 1;
    long ps = sysconf(_SC_PAGESIZE);
    if (ps > 0)
        g_page = (size_t)ps;
    const char *want = getenv("PPO_CAPE_TRACKING");
    if (want && *want) {
        if (strcmp(want, "compare") == 0) {
            g_mode = MODE_COMPARE;
            return;
        }
        if (strcmp(want, "mprotect") == 0) {
            g_mode = mprotect_setup() ? MODE_MPROTECT : MODE_COMPARE;
            if (g_mode != MODE_MPROTECT && g_rank == 0)
                msg("cape: PPO_CAPE_TRACKING=mprotect is not available here; using compare\n");
            return;
        }
        if (strcmp(want, "uffd-wp") == 0) {
            if (uffd_probe()) {
                g_mode = MODE_UFFD;
                return;
            }
            if (g_rank == 0)
                msg("cape: PPO_CAPE_TRACKING=uffd-wp is not available here (userfaultfd with "
                    "UFFD_FEATURE_WP_ASYNC and PAGEMAP_SCAN need Linux 6.7 and the permission to use "
                    "userfaultfd); using mprotect\n");
            g_mode = mprotect_setup() ? MODE_MPROTECT : MODE_COMPARE;
            return;
        }
        if (g_rank == 0)
            msg("cape: PPO_CAPE_TRACKING=%s: unknown mode (uffd-wp, mprotect or compare); probing\n", want);
    }
    if (uffd_probe())
        g_mode = MODE_UFFD;
    else if (mprotect_setup())
        g_mode = MODE_MPROTECT;
    else
        g_mode = MODE_COMPARE;
}

void cape_init(int *argc, char ***argv) {
    if (g_inited)
        return;
    g_inited = 1;
    int ok = 0;
    MPI_Initialized(&ok);
    if (!ok) {
        int provided;
        MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_nodes);
    if (g_rank != 0) {
        fflush(stdout);
        fflush(stderr);
        g_err_fd = dup(2);
        if (g_err_fd < 0)
            g_err_fd = 2;
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
    }
    choose_mode();
    atexit(cape_finalize);
}

/* PPO_CAPE_STATS=FILE: at exit node 0 appends one line per region site (the source
 * position given to cape_region_begin), then one line `where=total`, each with the totals
 * of all nodes:
 *   cape where=FILE:LINE nodes=N threads=T tracking=MODE regions=R syncs=S
 *        checkpoint_bytes=B changed_bytes=B changed_word_bytes=B compared_bytes=B dirty_pages=P
 *        extract_s=X exchange_s=X inject_s=X
 * (one line each; bytes and pages summed over nodes, regions and syncs as counted by node
 * 0, seconds summed over nodes). */
static void write_stats(void) {
    const char *file = getenv("PPO_CAPE_STATS");
    if (!file || !*file)
        return;
    /* every node ran the same regions in the same order: the site tables line up */
    unsigned long long n = g_nsites, nmin = 0;
    MPI_Allreduce(&n, &nmin, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    size_t rows = (size_t)nmin + 1, K = 10;
    double *mine = xmalloc(rows * K * sizeof *mine), *sum = xmalloc(rows * K * sizeof *sum);
    for (size_t i = 0; i < rows; i++) {
        const struct cape_stats *s = i < nmin ? &g_sites[i].s : &g_stats;
        double row[10] = {(double)s->regions, (double)s->syncs, (double)s->checkpoint_bytes,
                          (double)s->changed_bytes, (double)s->compared_bytes, (double)s->dirty_pages,
                          s->extract_seconds, s->exchange_seconds, s->inject_seconds,
                          (double)s->changed_word_bytes};
        memcpy(mine + i * K, row, sizeof row);
    }
    MPI_Reduce(mine, sum, (int)(rows * K), MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (g_rank == 0) {
        FILE *f = fopen(file, "a");
        if (!f) {
            msg("cape: PPO_CAPE_STATS=%s: cannot open: %s\n", file, strerror(errno));
        } else {
            for (size_t i = 0; i < rows; i++) {
                const double *r = sum + i * K;
                const struct cape_stats *own = i < nmin ? &g_sites[i].s : &g_stats;
                fprintf(f,
                        "cape where=%s nodes=%d threads=%d tracking=%s regions=%llu syncs=%llu "
                        "checkpoint_bytes=%.0f changed_bytes=%.0f changed_word_bytes=%.0f compared_bytes=%.0f "
                        "dirty_pages=%.0f extract_s=%.6f exchange_s=%.6f inject_s=%.6f\n",
                        i < nmin ? g_sites[i].where : "total", g_nodes, omp_get_max_threads(),
                        mode_names[g_mode], own->regions, own->syncs, r[2], r[3], r[9], r[4], r[5], r[6],
                        r[7], r[8]);
            }
            fclose(f);
        }
    }
    free(mine);
    free(sum);
}

void cape_finalize(void) {
    if (!g_inited || g_finalized)
        return;
    g_finalized = 1;
    int fin = 0;
    MPI_Finalized(&fin);
    if (fin)
        return;
    fflush(stdout);
    write_stats();
    MPI_Finalize();
}

int cape_node(void) { return g_rank; }
int cape_nodes(void) { return g_nodes; }

void cape_get_stats(struct cape_stats *out) {
    if (out)
        *out = g_stats;
}

const char *cape_tracking_mode(void) {
    choose_mode();
    return mode_names[g_mode];
}
