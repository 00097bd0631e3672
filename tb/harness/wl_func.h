/* The functional runner: workloads (csim/cn/wl_api.h) without the timing model.
 *
 * Memory is flat and sparse: the remote words, and each CN's local words. Every simulated thread
 * is a coroutine; at every API call (ld, st, rmw, fence, flush, compute, now) the thread yields
 * and a seeded random scheduler picks the thread whose call is performed next, so that races
 * between threads are exercised. Semantics are sequentially consistent (no store buffer: a
 * subset of TSO's behaviours, which is what a correct workload must tolerate anyway). compute()
 * only counts instructions. Each remote store and each rmw that writes is reported to an oracle
 * (csim/sys/oracle.h) at a pseudo-time (the number of calls performed so far, in ns), and each setup
 * poke of a remote word sets its initial value there, so the tests exercise the oracle end to end.
 *
 * Threads are placed as the system places them: thread i on CN i % num_cn, core i / num_cn.
 * Memory limits are the configuration's: remote = mem.scr_size when nonzero (the coherent region
 * the workloads need), else system.num_mn x mem.mn_size; local = mem.local_size per CN.
 *
 * A workload bug is reported as a run error, never a crash: an unaligned or unallocated address
 * (the run stops at that call), or a stall (no thread wrote memory or finished during
 * stall_limit consecutive calls: a deadlock or livelock). */
#ifndef WL_FUNC_H
#define WL_FUNC_H

#include <stdint.h>
#include <stdio.h>

#include "cn/wl_api.h"
#include "sys/oracle.h"

struct sim_config;

typedef struct wl_func wl_func_t;

typedef struct wl_func_stats {
    uint64_t calls;                       /* API calls performed (each one a scheduling point) */
    uint64_t switches;                    /* calls performed by another thread than the one before */
    uint64_t loads, stores, rmws;         /* remote */
    uint64_t local_loads, local_stores;   /* local */
    uint64_t fences, flushes;
    uint64_t compute_calls, instructions; /* compute(): calls and the n they add up to */
    uint64_t remote_bytes, local_bytes;   /* allocated (local: summed over the CNs) */
} wl_func_stats_t;

/** A runner of workload w with nthreads threads on num_cn CNs (cfg sizes the workload and the
 *  memories; it must outlive the runner). NULL when out of memory. */
wl_func_t *wl_func_create(const workload_t *w, const struct sim_config *cfg, unsigned nthreads, unsigned num_cn,
                          uint64_t seed);
void wl_func_free(wl_func_t *f);

/** Calls after stall_limit consecutive calls without a memory write or a thread finishing mean a
 *  stall (default 1 << 24). */
void wl_func_set_stall_limit(wl_func_t *f, uint64_t calls);

/** The workload's setup. 0, or -1 with err (WL_ERR_MAX bytes) filled. */
int wl_func_setup(wl_func_t *f, char *err);
/** CN cn fails once the threads have made `after` calls in all (before wl_func_threads; at most 64
 *  threads): its threads stop for good and leave the membership (wl_thread_t.live, wl_env_t.live:
 *  the survivors and the check see them lost), its copies of LNR lines are lost (their words not
 *  written back are in doubt for the oracle: oracle_doubt_unwritten), and its local memory is
 *  the check's no more (a check skips lost threads). Coherent stores are never lost here (flat
 *  memory: what DIKTAMO's replication gives the system). Called once per failure, up to
 *  WL_FUNC_FAILS of them, each at its own point. */
void wl_func_fail_cn(wl_func_t *f, unsigned cn, uint64_t after);
#define WL_FUNC_FAILS 8
/** The membership: bit i while thread i lives (every thread's bit without a failure). */
uint64_t wl_func_live(const wl_func_t *f);
/** Runs every thread to its end. 0, or -1 with err filled (bad address, stall). */
int wl_func_threads(wl_func_t *f, char *err);
/** The workload's check. 0, or -1 with err filled. */
int wl_func_check(wl_func_t *f, char *err);
/** The oracle's check of every remote word against the flat memory (lines to out, may be NULL). */
void wl_func_oracle_check(wl_func_t *f, FILE *out, size_t max_lines, oracle_report_t *r);

/** Remote words the flat memory holds that the oracle never heard of (a runner bug: a write it
 *  did not report); *first = the lowest such address. */
uint64_t wl_func_unrecorded(const wl_func_t *f, uint64_t *first);

/** The environment the workload sees (peek/poke/alloc); poking a remote word through it sets the
 *  word's initial value in the oracle. */
wl_env_t *wl_func_env(wl_func_t *f);
oracle_t *wl_func_oracle(wl_func_t *f);
const wl_func_stats_t *wl_func_stats(const wl_func_t *f);
/** The workload's own counter called name (registered through wl_env_ops_t.counter), or NULL. */
const uint64_t *wl_func_counter(const wl_func_t *f, const char *name);
/** Writes a word of memory behind everyone's back (no oracle record): tests corrupt memory with it.
 *  Local addresses name CN cn's memory. */
void wl_func_corrupt(wl_func_t *f, unsigned cn, uint64_t addr, uint64_t v);

/** The whole run: create, setup, threads, check, oracle (any lost or phantom word is an error).
 *  Every remote word in memory must be known to the oracle. 0, or -1 with err (WL_ERR_MAX bytes)
 *  filled with one line. */
int wl_func_run(const workload_t *w, const struct sim_config *cfg, unsigned nthreads, unsigned num_cn, uint64_t seed,
                char *err);

#endif
