/* The core model: one out-of-order x86-TSO core running one simulated thread (a coroutine that
 * runs workload C code against csim/cn/wl_api.h), timed event by event, never cycle by cycle.
 *
 * What it models (core.c argues each point):
 *   - A reorder buffer of `rob` entries, `width` instructions dispatched and retired per cycle,
 *     non-memory work at CPI 1 as one dependent chain per compute(n) call, held as ONE record whose
 *     dispatch and retire times are closed forms (O(1) whatever n).
 *   - Loads: a thread's call is one load or a batch of independent ones (wl_ld_batch), each
 *     issued at its dispatch, so a batch's misses overlap up to the load queue; the values are
 *     taken in program order (core.c: a load whose access performed before an older one's is
 *     re-read from the L1, or sent again), and the thread waits for all of them. A store to the
 *     same word still in the core's store queue / buffer is forwarded in 1 cycle. A load holds a
 *     load-queue entry from dispatch to retirement.
 *   - Stores: exclusive prefetch at dispatch (remote lines only), a store-queue entry from dispatch
 *     to commit, retirement in order into the store buffer (the retired part of the store queue),
 *     which drains in order one entry at a time (TSO); a retiring store coalesces into the
 *     youngest not-yet-draining entry of the same line when it writes a different word.
 *   - The drain of the store buffer's head is the protocol's business (one small internal table
 *     of functions per protocol): WB, WT, and DIKTAMO's baseline, parallel and proactive, which
 *     replicate remote entries through repl_if (core.c says when each sends its REPL set).
 *   - rmw and fence wait until every older instruction has retired and the store buffer is empty
 *     (x86 locked instructions, mfence); flush (clflush) too, then flushes. flush_opt (clflushopt)
 *     takes a store-queue entry like a store and is sent when it reaches the store buffer's head,
 *     which goes on at once; rmw, fence, flush and the thread's end also wait for those.
 *
 * Time: the core's clock domain (freq_hz); all internal times are cycle numbers of that domain
 * (edge k at clock_edge(k)). The kernel's time equals a cycle edge whenever the core calls its
 * memory interface.
 *
 * Statistics, under the prefix `name` (e.g. "cn3.core1"):
 *   instructions, cycles (thread start -> thread end: everything retired and the store buffer
 *   drained), ipc (gauge), loads, stores, rmws, fences, flushes, flush_opts, fwd_loads, ld_replays (loads sent
 *   again to keep loads in order), coalesced_stores,
 *   stall.sq_full_cycles, stall.rob_full_cycles, stall.lq_full_cycles (cycles by which each
 *   structure pushed the dispatch of an instruction later than it would otherwise have been),
 *   and for remote stores the latency split in core cycles (histograms, LOG2 buckets):
 *   remote_st.dispatch_to_rob_head, remote_st.rob_head_to_sb_head, remote_st.sb_head_to_coh_end,
 *   remote_st.replication (the paper's Fig. 16: end of coherence to commit), and
 *   remote_st.sb_head_to_done (WT: to the MN's CMP); DIKTAMO: repl_sets, repl_sets_at_head (Fig. 11),
 *   repl_early_refused; ideal_sync_writes (synchronization writes committed as under WB). */
#ifndef CN_CORE_H
#define CN_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/config.h"
#include "base/kernel.h"
#include "base/stats.h"
#include "cn/mem_if.h"
#include "cn/repl_if.h"
#include "cn/wl_api.h"

typedef struct core core_t;

typedef struct core_params {
    unsigned cn, id;          /* CN, and the core's index within it (mem_if's `core`) */
    uint64_t freq_hz;         /* core clock */
    unsigned rob, lq, sq, width;
    cfg_protocol_e protocol;  /* any: the DIKTAMO ones need repl */
    const repl_if_t *repl;    /* the CN's replication engine (copied at creation) */
    const char *name;         /* stats prefix, e.g. "cn3.core1" (a trailing '.' is ignored) */
    bool coalesce;            /* store coalescing in the store buffer (cfg core.coalesce; proactive
                                 without it is the paper's DIKTAMO-proactive-noC) */
    bool sync_ideal;          /* cfg core.sync = ideal: the thread's synchronization writes
                                 (wl_thread_t.sync) commit as under WB: no write-through, no REPL */
    uint64_t lnr_lo;          /* first global line of the Large Non-coherent Region, whose stores the
                                 DIKTAMO protocols do not replicate; 0: none (all remote coherent) */
    size_t stack_bytes;       /* the thread's coroutine stack; 0: 256 KiB */
    uint64_t local_bytes;     /* the CN's local memory, ADDR_LOCAL_BASE + [0, local_bytes) (0: unchecked) */
    uint64_t remote_bytes;    /* the CXL memory, [0, remote_bytes) (0: unchecked) */
} core_params_t;

/** A committed store word (the oracle of committed stores records these): t_ps is the commit
 *  point. An rmw that writes reports its new value. unreplicated: a remote word no LU logs (under a
 *  DIKTAMO protocol): an idealized synchronization write (core_params_t.sync_ideal) or an LNR word
 *  (core_params_t.lnr_lo). */
typedef void (*core_commit_fn)(void *obj, unsigned cn, unsigned core, uint64_t addr, uint64_t value, uint64_t t_ps,
                               bool unreplicated);

/** A core on kernel k, reaching memory only through mem (copied; mem->obj must outlive the core),
 *  registering its statistics in st under p->name. NULL with err (256 bytes, one line) on a bad
 *  parameter (rob, lq, sq, width or freq_hz 0, an unsupported protocol, a missing mem function,
 *  a stats name clash) or out of memory. */
core_t *core_create(kernel_t *k, const core_params_t *p, const mem_if_t *mem, stats_t *st, char *err);
/** fn(obj, ...) runs at every committed store word, in commit order (program order per core). */
void core_on_commit(core_t *c, core_commit_fn fn, void *obj);
/** Runs body(t, arg) as this core's thread from time start_ps (t's tid/nthreads/seed set by the
 *  caller; the core fills t->ops, t->impl, t->cn, t->core). on_exit(obj) runs (from a kernel
 *  event) when body has returned AND every instruction has retired AND the store buffer has
 *  drained. The core must be idle (core_idle); a core can run several threads one after the
 *  other. */
void core_run(core_t *c, wl_thread_t *t, void (*body)(wl_thread_t *, void *), void *arg, uint64_t start_ps,
              void (*on_exit)(void *obj), void *obj);
/** No thread running or pending, nothing in flight (store buffer empty); or failed. */
bool core_idle(const core_t *c);
/** Fail-stop (its CN failed): from now on the core does nothing; its thread is abandoned where it
 *  is (its on_exit never runs), its store buffer's stores never commit, no hook runs. */
void core_fail(core_t *c);
bool core_failed(const core_t *c);
/** The thread's bad access (unaligned, or outside the memories of core_params_t) as one line, or
 *  NULL. A bad access stops the thread where it is, for good, and the kernel (kernel_stop): the
 *  run ends, and its caller reports it (a workload's bug, or data it lost with an unrecoverable
 *  failure). */
const char *core_fault(const core_t *c);
/** Recovery's Interrupt (DIKTAMO §V-B): the thread dispatches nothing from its next instruction on
 *  (an instruction under way, a compute block included, completes) until core_resume, which lets
 *  it go on at the resume's cycle. What the core has in flight (loads, the store buffer, its
 *  replication) goes on: some of it may wait for lines only the recovery releases. */
void core_pause(core_t *c);
void core_resume(core_t *c);
bool core_paused(const core_t *c);
/** Instructions dispatched so far (memory operations + compute). */
uint64_t core_instructions(const core_t *c);
/** What the core waits for, one or a few lines (deadlock dumps). */
void core_dump(const core_t *c, FILE *f);
void core_free(core_t *c);

/* ---------------------------------------------------------------------------------------------
 * For tests of the timing model: every instruction record as soon as its times are final.
 * Cycles are core cycles; a compute(n) is one record of n instructions (first/last given). */
typedef enum core_rec_kind {
    CORE_REC_COMPUTE,
    CORE_REC_LOAD,
    CORE_REC_STORE,
    CORE_REC_RMW,
    CORE_REC_FENCE,
    CORE_REC_FLUSH,
    CORE_REC_FLUSH_OPT,
} core_rec_kind_e;

typedef struct core_rec_info {
    core_rec_kind_e kind;
    uint64_t idx, n;               /* first instruction index (0 = the thread's first), count */
    uint64_t d_first, d_last;      /* dispatch cycles of the first and last instruction */
    uint64_t c_last;               /* completion cycle of the last instruction */
    uint64_t r_first, r_last;      /* retire cycles */
} core_rec_info_t;

typedef void (*core_trace_fn)(void *obj, const core_rec_info_t *r);
/** fn(obj, r) for every record (NULL: none). */
void core_on_trace(core_t *c, core_trace_fn fn, void *obj);

#endif
