/* The API simulated threads are written against (workloads in csim/workloads/, litmus tests).
 *
 * A workload is C code run as one coroutine per simulated thread (execution-driven): every value
 * a thread reads is the value the simulated memory system holds at that simulated time. The
 * thread does its memory accesses and its non-memory work only through these calls; its C locals
 * are its registers. Two runners implement the calls:
 *   - the core model (csim/cn/core.c): out-of-order TSO timing over the CN's caches and the RTL
 *     fabric;
 *   - the functional runner (tb/harness/wl_func.c): flat memory, no timing, threads interleaved
 *     at every call in a seeded random order (for testing workloads on their own).
 * Both provide the same semantics: 8-byte aligned words, x86-TSO (a thread's own stores are
 * forwarded to its loads; loads take their values in program order, a batch of independent loads
 * too; stores become visible in program order; atomics and fences drain the thread's store
 * buffer).
 *
 * Memory for a workload is allocated in its setup (wl_env_t): shared data on CXL memory
 * (remote), thread-private data in the local memory of the thread's CN, as in the paper. Setup
 * and the final check access memory at zero simulated time (poke / peek of the coherent value). */
#ifndef CN_WL_API_H
#define CN_WL_API_H

#include <stdbool.h>
#include <stdint.h>

#include "base/addr.h"
#include "cn/mem_if.h"

struct sim_config;

/* ---------------------------------------------------------------------------------------------
 * Threads */

typedef struct wl_thread wl_thread_t;

typedef struct wl_thread_ops {
    /** n independent loads, in program order: val[i] = the word at addr[i]. The same as n loads
     *  one after the other, except that no address depends on an earlier load's value, so the
     *  core may overlap their misses (memory-level parallelism, up to its load queue). */
    void (*ld)(wl_thread_t *t, const uint64_t *addr, uint64_t *val, unsigned n);
    void (*st)(wl_thread_t *t, uint64_t addr, uint64_t v);
    /** Atomic; returns the old word (see mem_rmw_e). Drains the store buffer first. */
    uint64_t (*rmw)(wl_thread_t *t, mem_rmw_e op, uint64_t addr, uint64_t a, uint64_t b);
    /** mfence: waits until every earlier store has committed. */
    void (*fence)(wl_thread_t *t);
    /** clflush of addr's line (ordered after earlier stores: drains the store buffer first);
     *  returns when memory has the line. */
    void (*flush)(wl_thread_t *t, uint64_t addr);
    /** clflushopt (clwb too: this model drops the line either way) of addr's line: written back if
     *  dirty and dropped from the CN's caches like flush, but without waiting: ordered after the
     *  thread's older stores (it leaves the store buffer behind them), not before its later loads
     *  and stores; a later fence, rmw or flush (and the thread's end) waits until it is done. */
    void (*flush_opt)(wl_thread_t *t, uint64_t addr);
    /** n non-memory instructions (CPI 1, as in the paper's methodology); O(1) whatever n. */
    void (*compute)(wl_thread_t *t, uint64_t n);
    /** Simulated time now (ps), for workloads that measure themselves. */
    uint64_t (*now)(wl_thread_t *t);
} wl_thread_ops_t;

struct wl_thread {
    const wl_thread_ops_t *ops;
    void *impl;        /* the runner's own state */
    unsigned tid;      /* 0 .. nthreads-1 */
    unsigned nthreads;
    unsigned cn, core; /* where it runs (functional runner: as the system would place it) */
    uint64_t seed;     /* this thread's own seed (derived from the run's seed and tid) */
    /* The runtime's membership (NULL: every thread lives): bit i set while thread i lives. A
     * recovery clears the bits of the threads lost with a failed CN before the survivors resume
     * (docs/architecture.md 11g); the barriers and locks below read it. */
    const uint64_t *live;
    /* Set while the thread runs a lock, an unlock or a barrier (csim/cn/wl_sync.c): its accesses
     * then are synchronization, which a runner may idealize (the core model under core.sync =
     * ideal: their writes are never written through nor replicated). */
    bool sync;
    /* Simulated time (ps, by ops->now) the thread has spent in its locks, unlocks and barriers:
     * waiting for a lock or the other threads, and the accesses themselves. */
    uint64_t sync_ps;
};

/** Thread tid still lives (the membership; always without one). */
static inline bool wl_alive(const wl_thread_t *t, unsigned tid) { return !t->live || (*t->live >> tid & 1u); }
/** Some thread was lost with a failed CN (the membership, after the recovery). */
static inline bool wl_any_lost(const wl_thread_t *t)
{
    for (unsigned i = 0; i < t->nthreads; i++)
        if (!wl_alive(t, i))
            return true;
    return false;
}

static inline uint64_t wl_ld(wl_thread_t *t, uint64_t a)
{
    uint64_t v;
    t->ops->ld(t, &a, &v, 1);
    return v;
}
/** Independent loads (see wl_thread_ops_t.ld): what a streaming loop, a gather or a record read
 *  would have in flight at once on an out-of-order core. A pointer chase is wl_ld after wl_ld. */
static inline void wl_ld_batch(wl_thread_t *t, const uint64_t *addr, uint64_t *val, unsigned n)
{
    t->ops->ld(t, addr, val, n);
}
static inline void wl_st(wl_thread_t *t, uint64_t a, uint64_t v) { t->ops->st(t, a, v); }
static inline uint64_t wl_cas(wl_thread_t *t, uint64_t a, uint64_t expect, uint64_t desired)
{
    return t->ops->rmw(t, MEM_RMW_CAS, a, expect, desired);
}
static inline uint64_t wl_fadd(wl_thread_t *t, uint64_t a, uint64_t v) { return t->ops->rmw(t, MEM_RMW_FADD, a, v, 0); }
static inline uint64_t wl_swap(wl_thread_t *t, uint64_t a, uint64_t v) { return t->ops->rmw(t, MEM_RMW_SWAP, a, v, 0); }
static inline void wl_fence(wl_thread_t *t) { t->ops->fence(t); }
static inline void wl_flush(wl_thread_t *t, uint64_t a) { t->ops->flush(t, a); }
static inline void wl_flush_opt(wl_thread_t *t, uint64_t a) { t->ops->flush_opt(t, a); }
static inline void wl_compute(wl_thread_t *t, uint64_t n) { t->ops->compute(t, n); }
static inline uint64_t wl_now(wl_thread_t *t) { return t->ops->now(t); }

/* Locks and barriers built on the atomics (csim/cn/wl_sync.c). Each is one or two words of
 * memory the workload allocates (remote, so that threads of every CN share it) and zeroes. */
/** Test-and-test-and-set spin lock on the word at lock (it holds the owner's tid + 1). A lock whose
 *  owner was lost with a failed CN is taken over (CAS from the dead owner's value): whatever the
 *  dead owner left half-done in its critical section is the workload's to tolerate. */
bool wl_lock(wl_thread_t *t, uint64_t lock); /* true: taken over from a lost owner */
void wl_unlock(wl_thread_t *t, uint64_t lock);
/** Barrier over threads 0 .. n - 1 (n <= 64) that survives their loss: four words at bar, each on
 *  its own line (allocate WL_BARRIER_BYTES): the phase released last, and three arrival masks used
 *  in turn. A thread adds its bit to its phase's mask; the phase is released when the mask holds
 *  every *live* thread (wl_alive), by whoever sees it first: it zeroes the mask of the phase after
 *  next, then moves the phase on by CAS. So a failure never leaves the barrier half-released: a
 *  releaser lost before its CAS is replaced by the next waiter to look. `phase` is the thread's
 *  own count of phases (start at 0; the call increments it). */
#define WL_BARRIER_BYTES 256u
void wl_barrier(wl_thread_t *t, uint64_t bar, unsigned n, unsigned *phase);

/* ---------------------------------------------------------------------------------------------
 * Workloads */

#define WL_ALLOC_FAIL UINT64_MAX

/** A runner's bump allocation in a region of limit bytes: bytes rounded up to whole lines taken at
 *  *next (an offset in the region), which moves past them; WL_ALLOC_FAIL when they do not fit. */
static inline uint64_t wl_alloc_lines(uint64_t *next, uint64_t limit, uint64_t bytes)
{
    uint64_t b = (bytes + ADDR_LINE_BYTES - 1) / ADDR_LINE_BYTES * ADDR_LINE_BYTES;
    if (b > limit || *next > limit - b)
        return WL_ALLOC_FAIL;
    uint64_t a = *next;
    *next += b;
    return a;
}

typedef struct wl_env wl_env_t;
typedef struct wl_env_ops {
    /** bytes of CXL memory, line-aligned, zeroed; WL_ALLOC_FAIL when it does not fit. */
    uint64_t (*alloc_cxl)(wl_env_t *e, uint64_t bytes);
    /** bytes of CN cn's local memory, line-aligned, zeroed; WL_ALLOC_FAIL when it does not fit. */
    uint64_t (*alloc_local)(wl_env_t *e, unsigned cn, uint64_t bytes);
    /** Zero-time write of a word (setup): local addresses name CN cn's memory. */
    void (*poke)(wl_env_t *e, unsigned cn, uint64_t addr, uint64_t v);
    /** Zero-time read of the coherent value of a word (what a core of CN cn would read now). */
    uint64_t (*peek)(wl_env_t *e, unsigned cn, uint64_t addr);
    /** bytes of CXL memory in the Large Non-coherent Region (lines above mem.scr_size), line-
     *  aligned, zeroed: cached without coherence, so a writer flushes its lines for others to see
     *  them and a reader flushes its stale copies (the Megalon/Prism model). WL_ALLOC_FAIL when
     *  there is no such region (mem.scr_size = 0: all memory coherent) or it does not fit. */
    uint64_t (*alloc_lnr)(wl_env_t *e, uint64_t bytes);
    /** A counter of the workload's own in the run's statistics, "workload.<name>" (dotted
     *  segments of [A-Za-z0-9_-]), registered in setup, zero at first; the threads add to it
     *  directly (host memory: it costs no simulated time, and a count of a thread lost with a
     *  failed CN stays). NULL (and err says why, WL_ERR_MAX) on a bad or repeated name. */
    uint64_t *(*counter)(wl_env_t *e, const char *name, const char *doc, char *err);
} wl_env_ops_t;

struct wl_env {
    const wl_env_ops_t *ops;
    void *obj;                     /* the runner */
    const struct sim_config *cfg;  /* workload.* keys size the workload */
    unsigned nthreads;
    const unsigned *thread_cn;     /* CN of each thread */
    unsigned num_cn;
    uint64_t seed;
    /* The threads' membership at the check (NULL: all lived), as wl_thread_t.live. A failed CN's
     * threads are lost, and so is its local memory (their logs and counters). */
    const uint64_t *live;
};

/** Thread tid lived to the end (always when the run had no failure). */
static inline bool wl_env_alive(const wl_env_t *e, unsigned tid) { return !e->live || (*e->live >> tid & 1u); }
/** Threads lost with a failed CN. */
static inline unsigned wl_env_lost(const wl_env_t *e)
{
    unsigned n = 0;
    for (unsigned t = 0; t < e->nthreads; t++)
        n += !wl_env_alive(e, t);
    return n;
}

/** Error text of a failed setup or check (one line, no file prefix). */
#define WL_ERR_MAX 256

typedef struct workload {
    const char *name;
    const char *doc; /* one line */
    /** Allocates and initializes the workload's memory; *state is the workload's own. Returns 0,
     *  or -1 with err filled (e.g. it does not fit the configured memory). */
    int (*setup)(wl_env_t *e, void **state, char *err);
    /** The body of thread t. */
    void (*thread)(wl_thread_t *t, void *state);
    /** After every thread has returned: checks the result. 0, or -1 with err filled. */
    int (*check)(wl_env_t *e, void *state, char *err);
    void (*free)(void *state);
} workload_t;

/** The workloads (csim/workloads/workloads.c), NULL-terminated. */
extern const workload_t *const workloads[];
/** The workload called name, or NULL. */
const workload_t *workload_find(const char *name);

#endif
