/* The core model (see core.h): an out-of-order x86-TSO core, timed by closed forms and events.
 *
 * THE TIMING MODEL
 *
 * Instructions are numbered i = 0, 1, ... in program order. Each has a dispatch cycle D_i (it
 * enters the ROB), a completion cycle C_i and a retire cycle R_i (it leaves the ROB). The rules,
 * which tb/test_core.c's brute-force model applies instruction by instruction:
 *
 *   D_i = max(ready_i, D_{i-1}, D_{i-W} + 1, R_{i-ROB}, [load: R of the load LQ loads back],
 *             [store: the cycle the store SQ stores back committed])
 *   R_i = max(C_i, R_{i-1}, R_{i-W} + 1)
 *
 * W = width: at most W dispatches and W retirements per cycle. An entry freed by retirement in
 * cycle c can be dispatched into in cycle c (retire before dispatch within a cycle, ChampSim's
 * reverse pipeline order). ready_i is the cycle from which the thread's code can issue i: the
 * thread waits for the values of each call's loads (its code needs them; a batch of independent
 * loads is one call, and its loads all dispatch from the same ready), and for every rmw, fence
 * and flush, so ready is the completion of the last of those. Completions:
 *   compute (one dependent chain per compute(n) call, CPI 1): C = max(D, C of the previous
 *            compute instruction) + 1;
 *   load:    the cycle its value is back (1 cycle after dispatch when forwarded from the core's
 *            own store queue / buffer: a fixed forwarding latency, cheaper than an L1 hit);
 *   store:   D + 1 (address and data are known at dispatch);
 *   rmw, fence, flush: when their wait (below) and their memory access are over.
 *
 * Why these times are computable at dispatch. When instruction i dispatches, every older
 * instruction has a known completion: loads, rmw, fence and flush completed before the thread
 * issued i (it waited for them), stores complete at D + 1 and compute chains at known cycles. So
 * R_i follows from older retire times at dispatch, and so does D_{i+1}: no instruction needs to be
 * revisited, no cycle needs to be ticked. The one exception is a batch of loads, whose
 * completions come back from memory while its later loads dispatch: a load of the batch that
 * needs the LQ or ROB entry of an older one of the batch (min(lq, rob) loads back) waits until
 * that one's retire time is known; each load's retire time is set when it is final, in order.
 * Only the store buffer's drain depends on the memory system, and it is driven by the memory's callbacks; the thread synchronizes with the kernel
 * (suspends its coroutine until the kernel reaches the cycle) only where the memory system is
 * involved: before a load, a store (store-queue space, prefetch) and an rmw, fence or flush.
 * compute(n) never does.
 *
 * compute(n) in O(1). Both recurrences are max-plus linear; their least solution splits into the
 * part driven by the state before the block and the part driven by the block's own inputs:
 *   D_j = max(F_j, R_{b+j-ROB})     F_j: W per cycle from the first free dispatch slot (and ready)
 *   C_j = C_0 + j                   C_0 = max(D_0, end of the previous chain) + 1
 *   R_j = max(P_j, C_j)             P_j: W per cycle from the first free retire slot
 * (block = instructions b .. b+n-1, j = 0 .. n-1). F and P are the "free-running" sequences;
 * R_{b+j-ROB} obeys the same width rule as F (it is a retire sequence), so the max of the two is
 * the least solution of D's recurrence; C rises 1 per instruction, at least as fast as the width
 * rule asks, so likewise for R. C_j = C_0 + j says the ROB never holds the chain back: D_j <=
 * C_{j-1} for j >= 1. The width term: F_j <= F_0 + j <= C_0 - 1 + j. The ROB term is the
 * retirement of an instruction ROB positions older; every instruction older than the block
 * completed by C_0 (loads, rmw, fence, flush before the thread went on, stores one cycle after a
 * dispatch no later than D_0, older chains by the previous chain's end), the chain's own complete
 * one per cycle, and retirement drains a backlog at least one per cycle, so that retirement comes
 * no later than C_{j-1}. tb/test_core.c's brute-force model computes C instruction by instruction
 * and checks this on random programs (an adversarial search over 4e8 instructions found no
 * counterexample either).
 * A compute block is therefore ONE record {b, n, P's start, C_0}; R of any instruction in it is
 * one max, and D of any instruction one max and one lookup (a binary search over the records in
 * the window of the last ROB instructions). The ROB-full stall is the ROB term of D: a chain of
 * n instructions fills the ROB (dispatch W per cycle, completion 1) and then dispatches as the
 * chain retires, one per cycle, so the next memory instruction dispatches about n - ROB cycles
 * after the chain started and reaches the ROB head about ROB cycles later.
 *
 * TSO. Loads take their values in program order (see "Loads" below), stores
 * become visible in program order (the store buffer drains in order, one entry at a time, the
 * next after the previous one's done), a load reads the youngest older store to its word from the
 * core's own queue (forwarding) or else memory; rmw, fence and flush wait for the store buffer to
 * be empty. Store->load is the only reordering: x86-TSO.
 *
 * THE STORE BUFFER AND THE PROTOCOLS
 *
 * A store holds a store-queue entry from dispatch until it commits; the store buffer (SB) is the
 * retired part of the store queue. A store retires into the SB at R (an event): it coalesces into
 * the youngest SB entry when that entry is to the same line, has not started draining and does
 * not hold that word yet; otherwise it opens a new entry. The head entry drains: what it does is
 * the protocol's business (sb_proto_t below: what happens when a store enters the SB and when an
 * entry reaches the head); the protocol reports the commit point (sb_committed: the words are in
 * L1, visible, the commit hook runs, store-queue entries are freed) and the end (sb_done: the next
 * entry may start). WB: mem->store(wt = false). WT: mem->store(wt = true) for remote lines, so the
 * next entry waits for the MN's CMP (TSO: write-throughs do not overlap). DIKTAMO's designs plug
 * in here: baseline/parallel send REPLs from on_head, proactive from on_enter.
 *
 * Exclusive prefetch: at a store's dispatch, for a remote line, unless a store to the same line is
 * already in the store queue or buffer (it will bring the line in; a second prefetch is traffic
 * for nothing). */
#include "cn/core.h"

#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/addr.h"
#include "cn/coro.h"

#define FILTER_BUCKETS 256u /* counting filters of the store queue's words and lines */
#define DEFAULT_STACK (256u * 1024u)

typedef enum thr_state {
    TH_NONE,    /* no thread */
    TH_PENDING, /* core_run called, the start event is scheduled */
    TH_RUNNING, /* the coroutine is running (we are inside it) */
    TH_BLOCKED, /* the coroutine waits (wait_e) */
    TH_ENDING,  /* body returned: waiting for the last retirement and an empty store buffer */
} thr_state_e;

typedef enum wait_kind {
    WAIT_NONE,
    WAIT_TIME,  /* until the kernel reaches the thread's cycle */
    WAIT_SQ,    /* store queue full */
    WAIT_LOAD,  /* a load's value */
    WAIT_DRAIN, /* rmw/fence/flush: older stores to commit */
    WAIT_RMW,   /* the rmw's old value */
    WAIT_FLUSH, /* the flush's done */
    WAIT_PAUSE, /* paused by recovery (core_pause) until core_resume */
    WAIT_FAULT, /* stopped for good by a bad access (core_fault) */
} wait_e;

static const char *const wait_names[] = {"nothing", "its dispatch cycle", "a store-queue entry", "a load",
                                         "the store buffer to drain", "an rmw", "a flush",
                                         "the end of a recovery (paused)", "nothing (stopped by a bad access)"};

/* A record of the ROB's recent history: instructions idx .. idx+n-1 with retire times
 * R(j) = max(p0 + (ps + j) / W, c0 + j). A single instruction retiring at r is {p0 = c0 = r, ps = 0}. */
typedef struct rec {
    uint64_t idx, n;
    uint64_t p0, c0;
    uint32_t ps;
    bool known; /* retire times final (a load waiting for its value: not yet) */
} rec_t;

/* A load of the thread's current call, from dispatch until it is final (value and completion
 * known, retired in order). */
typedef enum ld_state {
    LD_OUT,  /* its access (or replay) is out in the memory system */
    LD_DONE, /* its access performed (val, c), not yet final: an older load is not */
    LD_FWD,  /* forwarded from the core's own store queue at dispatch (val) */
} ld_state_e;

typedef struct ld_ent {
    rec_t *r;
    uint64_t d, c; /* dispatch and completion cycles */
    uint64_t val;
    ld_state_e state;
} ld_ent_t;

/* A store from dispatch to commit. */
typedef struct sq_ent {
    uint64_t addr, value;
    uint64_t d, r; /* dispatch and retire cycles */
    bool ideal;    /* an idealized synchronization write (core_params_t.sync_ideal) */
    bool lnr;      /* a store to the Large Non-coherent Region (not replicated) */
    bool flush;    /* a clflushopt of addr's line (addr: the line), not a store */
} sq_ent_t;

/* A store-buffer entry: consecutive stores (store sequence numbers first .. first+nst-1) to one
 * line, at most one per word. */
typedef struct sb_entry {
    uint64_t id; /* tag given to the memory system */
    uint64_t line;
    uint8_t mask;
    uint64_t words[ADDR_WORDS_PER_LINE];
    uint64_t first;
    unsigned nst;
    bool started, committed;
    bool ideal;      /* all its stores are idealized synchronization writes: a plain WB commit */
    bool lnr;        /* its line is in the Large Non-coherent Region: a plain WB commit */
    bool flush;      /* a clflushopt of the line (no words): sent when at the head, not waited for */
    uint64_t t_head; /* cycle the entry started draining */
    uint64_t t_coh;  /* cycle its coherence transaction ended (write permission in L1); 0: not yet */
    /* DIKTAMO: the entry's replication (REPL set sent, every REPL_ACK in, its handle) */
    bool rsent, racked, parked; /* parked: its gated store waits for the REPL_ACKs */
    bool going;                 /* its gated store was let go (store_go): it commits at once */
    uint32_t rh;
} sb_entry_t;

/* What a protocol does with the store buffer (see the file comment). */
typedef struct sb_proto {
    const char *name;
    /** A store entered the SB: merged into e, or opened e. NULL: nothing. */
    void (*on_enter)(core_t *c, sb_entry_t *e, bool merged);
    /** e became the head and starts draining; the protocol calls sb_committed then sb_done. */
    void (*on_head)(core_t *c, sb_entry_t *e);
    /** Whether an rmw on addr writes through. */
    bool (*rmw_wt)(const core_t *c, uint64_t addr);
} sb_proto_t;

struct core {
    kernel_t *k;
    core_params_t p;
    char name[96];
    clock_domain_t clk;
    mem_if_t mem;
    const sb_proto_t *proto;
    repl_if_t repl; /* DIKTAMO protocols */
    unsigned w; /* width */

    char fault[200]; /* the thread's bad access (check_addr), or empty */
    core_commit_fn commit_fn;
    void *commit_obj;
    core_trace_fn trace_fn;
    void *trace_obj;

    /* The thread. */
    thr_state_e thr;
    wait_e wait;
    bool wake_scheduled;
    coro_t *co;
    wl_thread_t *t;
    void (*body)(wl_thread_t *, void *);
    void *body_arg;
    void (*on_exit)(void *);
    void *exit_obj;
    uint64_t start_cycle;
    uint64_t sync_ps0; /* the thread's sync_ps when it started here */
    bool end_wait_drain;
    uint64_t wait_addr; /* for core_dump */

    /* Dispatch / retire state (cycles). */
    uint64_t next_idx;
    uint64_t ready;          /* the thread's code can issue from this cycle */
    uint64_t d_last;         /* cycle of the last dispatch */
    unsigned dc;             /* dispatches in d_last */
    uint64_t r_last;         /* cycle of the last retirement */
    unsigned rc;             /* retirements in r_last */
    uint64_t chain_end;      /* completion of the last compute instruction */

    rec_t *recs;             /* ring of records, oldest first */
    size_t rcap, rhead, rn;
    size_t rhint;            /* the record retire_of found last (from rhead): where the next look starts */

    uint64_t *lq_r;          /* retire cycle of load number m at [m % lq] */
    uint64_t nloads;

    /* Store queue (stores by sequence number; the SB is its retired part). */
    sq_ent_t *sq;
    uint64_t sq_head;        /* oldest uncommitted store */
    unsigned sq_n;
    uint64_t st_next;        /* sequence number of the next store dispatched */
    uint64_t st_retired;     /* stores retired into the SB so far */
    uint16_t word_cnt[FILTER_BUCKETS], line_cnt[FILTER_BUCKETS];

    sb_entry_t *sb;          /* ring of sbcap = sq + 1 entries: the head may stay after its stores
                                left the store queue at commit, until done (WT) */
    unsigned sbcap;
    uint64_t sb_head;        /* entry number of the head */
    unsigned sb_n;
    bool sb_busy;            /* the head is draining or about to start */
    uint64_t sb_ids;

    bool failed;             /* fail-stop (core_fail): nothing happens any more */
    bool paused;             /* recovery (core_pause): the thread dispatches nothing more */

    /* The loads of the thread's current call (op_ld: n independent loads, see ld_advance). */
    ld_ent_t *ld;            /* ring of min(lq, rob) entries: load k at [k % ldcap] */
    unsigned ldcap;
    const uint64_t *ld_addr; /* the call's addresses and values (the thread's, valid during it) */
    uint64_t *ld_val;
    unsigned ld_next;        /* the call's next load to dispatch */
    unsigned ld_fin, ld_want;/* loads final (in program order); the thread waits for ld_want */
    uint64_t ld_base;        /* load number (nloads) of the call's first load */
    uint64_t ld_tag0;        /* memory tag of the call's load k: ld_tag0 + k */
    uint64_t ld_cmax;        /* latest completion among the call's loads */

    /* The access the thread waits for. */
    uint64_t io_tag, io_val, io_cycle;
    /* DIKTAMO: the rmw's replication (its new word, handle; in flight) */
    uint64_t rmw_nv;
    uint32_t rmw_h;
    bool rmw_repl;
    bool rmw_ideal; /* the rmw is an idealized synchronization write */
    bool rmw_lnr;   /* the rmw is on the Large Non-coherent Region (not replicated) */

    /* Statistics. */
    stats_t own_stats;       /* when the caller gave none */
    bool own_stats_used;
    uint64_t *n_sync_ns;
    uint64_t *n_instr, *n_cycles, *n_loads, *n_stores, *n_rmws, *n_fences, *n_flushes, *n_fwd, *n_coal;
    uint64_t *n_rloads, *n_rstores, *n_rrmws; /* to CXL memory (the loads, stores and rmws above, not local) */
    uint64_t *n_sq_stall, *n_rob_stall, *n_lq_stall, *n_ld_replay;
    double *g_ipc;
    stats_hist_t *h_rob, *h_sbwait, *h_coh, *h_repl, *h_drain;
    uint64_t *n_repl_sets, *n_repl_head, *n_repl_refused, *n_ideal, *n_flush_opts;
    unsigned flushes_out; /* clflushopts sent and not done: a fence waits for them */
};

/* ---------------------------------------------------------------------------------------------
 * Helpers: time */

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t edge(const core_t *c, uint64_t cy) { return clock_edge(&c->clk, cy); }
static uint64_t cyc_now(const core_t *c) { return clock_cycle_at_or_after(&c->clk, c->k->now); }

/* The first free slot of a W-per-cycle sequence whose last member is at `last` with `cnt` members
 * in that cycle, no earlier than `floor`: slot j is t0 + (s + j) / W. */
typedef struct slot {
    uint64_t t0;
    unsigned s;
} slot_t;

static slot_t next_slot(uint64_t last, unsigned cnt, unsigned w, uint64_t floor)
{
    if (floor > last)
        return (slot_t){floor, 0};
    if (cnt < w)
        return (slot_t){last, cnt};
    return (slot_t){last + 1, 0};
}

static uint64_t slot_at(slot_t s, unsigned w, uint64_t j) { return s.t0 + (s.s + j) / w; }

/* ---------------------------------------------------------------------------------------------
 * Records */

static uint64_t rec_retire(const core_t *c, const rec_t *r, uint64_t j)
{
    return max64(r->p0 + (r->ps + j) / c->w, r->c0 + j);
}

static rec_t *rec_at(core_t *c, size_t k) { return &c->recs[(c->rhead + k) & (c->rcap - 1)]; }

/* Retire cycle of instruction i, which is in the window of records. The instructions asked about
 * move a record or so from one call to the next (the ROB term of each dispatch, in order; a
 * compute block's last ones, backwards), so the look starts at the record found last. */
static uint64_t retire_of(core_t *c, uint64_t i)
{
    assert(c->rn > 0 && rec_at(c, 0)->idx <= i);
    size_t k = c->rhint < c->rn ? c->rhint : c->rn - 1;
    while (rec_at(c, k)->idx > i)
        k--;
    while (k + 1 < c->rn && rec_at(c, k + 1)->idx <= i)
        k++;
    c->rhint = k;
    const rec_t *r = rec_at(c, k);
    assert(i < r->idx + r->n && r->known);
    return rec_retire(c, r, i - r->idx);
}

/* The ROB term of instruction i's dispatch: it needs the entry of instruction i - ROB. */
static uint64_t rob_bound(core_t *c, uint64_t i) { return i >= c->p.rob ? retire_of(c, i - c->p.rob) : 0; }

/* Drops the records no dispatch from next_idx on can ask about, then appends one. */
static rec_t *rec_push(core_t *c, uint64_t idx, uint64_t n)
{
    while (c->rn > 0) {
        const rec_t *f = rec_at(c, 0);
        if (idx < c->p.rob || f->idx + f->n > idx - c->p.rob)
            break;
        c->rhead = (c->rhead + 1) & (c->rcap - 1);
        c->rn--;
        c->rhint -= c->rhint > 0;
    }
    assert(c->rn < c->rcap);
    rec_t *r = rec_at(c, c->rn++);
    *r = (rec_t){.idx = idx, .n = n};
    return r;
}

static void trace_rec(core_t *c, core_rec_kind_e kind, const rec_t *r, uint64_t d_first, uint64_t d_last,
                      uint64_t c_last)
{
    core_rec_info_t info = {.kind = kind,
                            .idx = r->idx,
                            .n = r->n,
                            .d_first = d_first,
                            .d_last = d_last,
                            .c_last = c_last,
                            .r_first = rec_retire(c, r, 0),
                            .r_last = rec_retire(c, r, r->n - 1)};
    c->trace_fn(c->trace_obj, &info);
}

/* The instruction's record to the trace, if one is open (its test inline: most runs have none). */
static inline void trace(core_t *c, core_rec_kind_e kind, const rec_t *r, uint64_t d_first, uint64_t d_last,
                         uint64_t c_last)
{
    if (c->trace_fn)
        trace_rec(c, kind, r, d_first, d_last, c_last);
}

/* ---------------------------------------------------------------------------------------------
 * The thread: coroutine plumbing */

static void thread_ended(core_t *c);

static void ev_resume(void *obj, uint64_t arg)
{
    (void)arg;
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's core does nothing more */
    c->wake_scheduled = false;
    c->thr = TH_RUNNING;
    c->wait = WAIT_NONE;
    coro_resume(c->co);
    if (coro_done(c->co))
        thread_ended(c);
}

/* Resumes the thread at cycle cy (from outside the coroutine). */
static void wake_at(core_t *c, uint64_t cy)
{
    assert(c->thr == TH_BLOCKED && !c->wake_scheduled);
    c->wake_scheduled = true;
    kernel_at(c->k, edge(c, cy), ev_resume, c, 0);
}

/* Inside the thread: waits until woken. */
static void block(core_t *c, wait_e why)
{
    assert(c->thr == TH_RUNNING);
    c->thr = TH_BLOCKED;
    c->wait = why;
    coro_yield(c->co);
    assert(c->thr == TH_RUNNING);
}

/* Inside the thread: waits until the kernel reaches cycle cy. */
static void sync_to(core_t *c, uint64_t cy)
{
    uint64_t t = edge(c, cy);
    assert(t >= c->k->now);
    if (t == c->k->now)
        return;
    assert(!c->wake_scheduled);
    c->wake_scheduled = true;
    kernel_at(c->k, t, ev_resume, c, 0);
    block(c, WAIT_TIME);
}

/* Inside the thread, before each instruction: a paused core's thread waits here until
 * core_resume, and dispatches nothing before the resume's cycle. */
static void pause_point(core_t *c)
{
    if (!c->paused)
        return;
    block(c, WAIT_PAUSE);
    c->ready = max64(c->ready, cyc_now(c));
}

/* Inside the thread: a load, store, rmw or flush of addr must be aligned and in a memory; else the
 * thread stops here for good and the run with it (core_fault). */
static void check_addr(core_t *c, const char *what, uint64_t addr)
{
    const bool local = addr_is_local(addr);
    const uint64_t off = local ? addr - ADDR_LOCAL_BASE : addr, lim = local ? c->p.local_bytes : c->p.remote_bytes;
    const char *why = !addr_aligned(addr)   ? "unaligned"
                      : lim && off >= lim ? (local ? "outside its CN's local memory" : "outside the CXL memory")
                                          : NULL;
    if (!why)
        return;
    snprintf(c->fault, sizeof c->fault, "%s: thread %u: %s of 0x%" PRIx64 ", %s", c->name, c->t ? c->t->tid : 0, what,
             addr, why);
    kernel_stop(c->k);
    block(c, WAIT_FAULT); /* never resumed */
    abort();
}

/* ---------------------------------------------------------------------------------------------
 * Dispatch and retirement of one instruction */

/* The earliest dispatch cycle of the next single instruction (width, ready, ROB). */
static uint64_t dispatch_base(core_t *c)
{
    slot_t f = next_slot(c->d_last, c->dc, c->w, c->ready);
    uint64_t rb = rob_bound(c, c->next_idx);
    if (rb > f.t0)
        *c->n_rob_stall += rb - f.t0;
    return max64(f.t0, rb);
}

/* Instruction next_idx dispatches at cycle d (>= dispatch_base): book it, open its record. */
static rec_t *dispatch_one(core_t *c, uint64_t d)
{
    assert(d >= c->d_last);
    if (d == c->d_last && c->next_idx > 0) {
        assert(c->dc < c->w);
        c->dc++;
    } else {
        c->d_last = d;
        c->dc = 1;
    }
    (*c->n_instr)++;
    return rec_push(c, c->next_idx++, 1);
}

/* The single instruction of record r completed at cycle cc: its retire cycle, in order. */
static uint64_t retire_one(core_t *c, rec_t *r, uint64_t cc)
{
    slot_t p = next_slot(c->r_last, c->rc, c->w, 0);
    uint64_t rr = max64(p.t0, cc);
    if (rr == c->r_last && r->idx > 0)
        c->rc++;
    else {
        c->r_last = rr;
        c->rc = 1;
    }
    r->p0 = r->c0 = rr;
    r->ps = 0;
    r->known = true;
    return rr;
}

/* ---------------------------------------------------------------------------------------------
 * Store queue: forwarding and the prefetch filter */

static unsigned hash_bucket(uint64_t a) { return (unsigned)((a * 0x9e3779b97f4a7c15ull) >> 56) % FILTER_BUCKETS; }
static sq_ent_t *sq_ent(core_t *c, uint64_t seq) { return &c->sq[seq % c->p.sq]; }

/* The youngest uncommitted store to addr's word, if any. */
static bool sq_forward(core_t *c, uint64_t addr, uint64_t *v)
{
    if (c->word_cnt[hash_bucket(addr)] == 0)
        return false;
    for (uint64_t s = c->sq_head + c->sq_n; s-- > c->sq_head;)
        if (sq_ent(c, s)->addr == addr && !sq_ent(c, s)->flush) {
            *v = sq_ent(c, s)->value;
            return true;
        }
    return false;
}

static bool sq_has_line(core_t *c, uint64_t line)
{
    if (c->line_cnt[hash_bucket(line)] == 0)
        return false;
    for (uint64_t s = c->sq_head; s < c->sq_head + c->sq_n; s++)
        if (addr_line(sq_ent(c, s)->addr) == line && !sq_ent(c, s)->flush)
            return true;
    return false;
}

/* ---------------------------------------------------------------------------------------------
 * Store buffer */

static sb_entry_t *sb_at(core_t *c, uint64_t n) { return &c->sb[n % c->sbcap]; }
static void flush_head(core_t *c, sb_entry_t *e);

static void sb_start_head(core_t *c)
{
    sb_entry_t *e = sb_at(c, c->sb_head);
    assert(c->sb_n > 0 && !e->started);
    e->started = true;
    e->t_head = cyc_now(c);
    if (e->flush)
        flush_head(c, e);
    else
        c->proto->on_head(c, e);
}

static void ev_sb_next(void *obj, uint64_t arg)
{
    (void)arg;
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's core does nothing more */
    sb_start_head(c);
}

/* addr is in the Large Non-coherent Region. Its stores become visible to other CNs only when
 * written back to MN memory, which then holds them (durable against a CN's failure); the
 * coherent region's ordering, which the DIKTAMO protocols replicate with its versions, does not
 * exist for them. So they commit as under WB, unreplicated. */
static bool in_lnr(const core_t *c, uint64_t addr)
{
    return c->p.lnr_lo && !addr_is_local(addr) && addr_gline(addr_line(addr)) >= c->p.lnr_lo;
}

/* The commit point of the head entry: its words are visible. */
static void sb_committed(core_t *c, sb_entry_t *e)
{
    assert(c->sb_n > 0 && e == sb_at(c, c->sb_head) && e->started && !e->committed);
    e->committed = true;
    bool remote = !addr_is_local(e->line);
    uint64_t now_cy = cyc_now(c);
    if (!e->t_coh)
        e->t_coh = now_cy; /* committed as soon as it had write permission: no replication time */
    for (unsigned i = 0; i < e->nst; i++) {
        assert(c->sq_n > 0 && c->sq_head == e->first + i);
        sq_ent_t *s = sq_ent(c, c->sq_head);
        if (e->flush) { /* a clflushopt: no word committed */
            c->sq_head++;
            c->sq_n--;
            continue;
        }
        if (c->commit_fn)
            c->commit_fn(c->commit_obj, c->p.cn, c->p.id, s->addr, s->value, c->k->now, e->ideal || e->lnr);
        *c->n_ideal += e->ideal;
        if (remote) {
            stats_hist_add(c->h_rob, s->r - s->d);
            stats_hist_add(c->h_sbwait, e->t_head - s->r);
            stats_hist_add(c->h_coh, e->t_coh - e->t_head);
            stats_hist_add(c->h_repl, now_cy - e->t_coh);
        }
        c->word_cnt[hash_bucket(s->addr)]--;
        c->line_cnt[hash_bucket(addr_line(s->addr))]--;
        c->sq_head++;
        c->sq_n--;
    }
    if (c->thr == TH_BLOCKED && c->wait == WAIT_SQ && !c->wake_scheduled)
        wake_at(c, now_cy);
}

static void ev_end_check(void *obj, uint64_t arg);
static bool sb_empty(const core_t *c);
static void drain_check(core_t *c);

/* The head entry is done: the next one may start. */
static void sb_done(core_t *c, sb_entry_t *e)
{
    assert(c->sb_n > 0 && e == sb_at(c, c->sb_head) && e->committed);
    uint64_t now_cy = cyc_now(c);
    if (!addr_is_local(e->line) && !e->flush)
        for (unsigned i = 0; i < e->nst; i++)
            stats_hist_add(c->h_drain, now_cy - e->t_head);
    c->sb_head++;
    c->sb_n--;
    if (c->sb_n > 0) {
        kernel_at(c->k, edge(c, now_cy), ev_sb_next, c, 0);
        return;
    }
    c->sb_busy = false;
    drain_check(c);
}

/* Every older store committed and every clflushopt done (sb_empty) now: what waits for that goes
 * on (an rmw, fence or flush; the thread's end). */
static void drain_check(core_t *c)
{
    if (!sb_empty(c))
        return;
    uint64_t now_cy = cyc_now(c);
    if (c->thr == TH_BLOCKED && c->wait == WAIT_DRAIN && !c->wake_scheduled)
        wake_at(c, now_cy);
    if (c->thr == TH_ENDING && c->end_wait_drain) {
        c->end_wait_drain = false;
        kernel_at(c->k, edge(c, now_cy), ev_end_check, c, 0);
    }
}

/* clflushopt (op_flush_opt) at the head: every older store has committed; the flush is sent and the
 * buffer goes on at once; fences and the like wait for its done (flushes_out). */
static void cb_flush_opt_done(void *obj, uint64_t tag, uint64_t v)
{
    (void)tag, (void)v;
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: what the memory or the replication engine answers is lost */
    assert(c->flushes_out > 0);
    c->flushes_out--;
    drain_check(c);
}

static void flush_head(core_t *c, sb_entry_t *e)
{
    c->flushes_out++;
    c->mem.flush(c->mem.obj, c->p.id, e->line, cb_flush_opt_done, c, 0);
    sb_committed(c, e);
    sb_done(c, e);
}

static sb_entry_t *sb_by_tag(core_t *c, uint64_t tag)
{
    sb_entry_t *e = sb_at(c, c->sb_head);
    assert(c->sb_n > 0 && e->id == tag);
    (void)tag;
    return e;
}

static void cb_st_committed(void *obj, uint64_t tag, uint64_t v, unsigned version)
{
    (void)v;
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: what the memory or the replication engine answers is lost */
    sb_entry_t *e = sb_by_tag(c, tag);
    if (e->rsent) {
        assert(e->racked);
        c->repl.val(c->repl.obj, e->rh, version);
    }
    sb_committed(c, e);
}

static void cb_st_done(void *obj, uint64_t tag, uint64_t v)
{
    (void)v;
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: what the memory or the replication engine answers is lost */
    sb_done(c, sb_by_tag(c, tag));
}

/* A store retires into the SB (event at its retire cycle, in program order). */
static void ev_st_retire(void *obj, uint64_t seq)
{
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's core does nothing more */
    assert(seq == c->st_retired);
    c->st_retired++;
    const sq_ent_t *s = sq_ent(c, seq);
    uint64_t line = addr_line(s->addr);
    uint8_t bit = (uint8_t)(1u << addr_word(s->addr));
    if (c->p.coalesce && c->sb_n > 0) {
        sb_entry_t *y = sb_at(c, c->sb_head + c->sb_n - 1);
        if (!y->started && y->line == line && !(y->mask & bit) && !y->flush && !s->flush) {
            y->ideal = y->ideal && s->ideal; /* a replicated entry replicates all of its words */
            y->mask |= bit;
            y->words[addr_word(s->addr)] = s->value;
            y->nst++;
            (*c->n_coal)++;
            if (c->proto->on_enter)
                c->proto->on_enter(c, y, true);
            return;
        }
    }
    assert(c->sb_n < c->sbcap);
    sb_entry_t *e = sb_at(c, c->sb_head + c->sb_n++);
    *e = (sb_entry_t){
        .id = ++c->sb_ids, .line = line, .mask = bit, .first = seq, .nst = 1, .ideal = s->ideal, .lnr = s->lnr,
        .flush = s->flush};
    e->words[addr_word(s->addr)] = s->value;
    if (c->proto->on_enter)
        c->proto->on_enter(c, e, false);
    if (!c->sb_busy) {
        assert(c->sb_n == 1);
        c->sb_busy = true;
        sb_start_head(c);
    }
}

static bool sb_empty(const core_t *c) { return c->sq_n == 0 && c->sb_n == 0 && c->flushes_out == 0; }

/* ---------------------------------------------------------------------------------------------
 * Protocols */

static void store_head(core_t *c, sb_entry_t *e, bool wt)
{
    c->mem.store(c->mem.obj, c->p.id, e->line, e->mask, e->words, wt, cb_st_committed, cb_st_done, c, e->id);
}

static void wb_on_head(core_t *c, sb_entry_t *e) { store_head(c, e, false); }
static bool wb_rmw_wt(const core_t *c, uint64_t addr)
{
    (void)c;
    (void)addr;
    return false;
}

/* WT: remote lines write through; done (the MN's CMP) gates the next entry, so under TSO two
 * write-throughs of a core never overlap. Local lines are plain. */
static void wt_on_head(core_t *c, sb_entry_t *e) { store_head(c, e, !addr_is_local(e->line) && !e->ideal); }
static bool wt_rmw_wt(const core_t *c, uint64_t addr)
{
    (void)c;
    return !addr_is_local(addr);
}

static const sb_proto_t proto_wb = {.name = "wb", .on_head = wb_on_head, .rmw_wt = wb_rmw_wt};
static const sb_proto_t proto_wt = {.name = "wt", .on_head = wt_on_head, .rmw_wt = wt_rmw_wt};

/* DIKTAMO (§IV-C, §IV-D). A remote entry commits when its coherence transaction has ended (the
 * gated store holds write permission: dk_gate) and every replica has acknowledged its REPL set
 * (cb_acked), whichever comes last; the VALs leave at the commit, with the line's version
 * (cb_st_committed). Local entries are plain WB stores. What differs is when the REPL set leaves:
 *   baseline   at the end of the coherence transaction (the gate's first call);
 *   parallel   when the entry reaches the head, together with the coherence transaction;
 *   proactive  when the entry can no longer grow: at once without coalescing (proactive-noC), else
 *              when the next store opens a new entry behind it (§IV-D.5), or at the head if it got
 *              there first. The engine may refuse an early REPL set (its share of the replica's
 *              buffer is in use, csim/cn/cn_repl.h): it then leaves at the head.
 * A store reaches the store buffer only when it retires, so no REPL is ever sent for a store that
 * could still be squashed (this core model does not speculate past anything it would squash).
 * An rmw to a remote line is replicated too (op_rmw, cb_rmw_gate). */
static sb_entry_t *sb_by_id(core_t *c, uint64_t id)
{
    assert(c->sb_n > 0);
    uint64_t k = id - sb_at(c, c->sb_head)->id; /* entries hold consecutive ids */
    assert(k < c->sb_n);
    sb_entry_t *e = sb_at(c, c->sb_head + k);
    assert(e->id == id);
    return e;
}

static bool cb_acked(void *obj, uint64_t tag, bool acked)
{
    core_t *c = obj;
    if (c->failed)
        return false; /* fail-stop: what the memory or the replication engine answers is lost */
    sb_entry_t *e = sb_by_id(c, tag);
    if (!acked) {
        /* Taken back (a replica failed; its replacement has the REPL set now): the entry has not
         * committed (its VALs would be out), so its gate has not let it go unless store_go did. */
        if (!e->racked || e->going)
            return false;
        e->racked = false;
        return true;
    }
    assert(e->rsent && !e->racked);
    e->racked = true;
    if (e->parked) {
        e->parked = false;
        e->going = true;
        c->mem.store_go(c->mem.obj, c->p.id);
    }
    return true;
}

/* Sends e's REPL set; an early one may be refused (false). */
static bool dk_send(core_t *c, sb_entry_t *e, bool early)
{
    assert(!e->rsent && !addr_is_local(e->line));
    uint32_t h = c->repl.send(c->repl.obj, c->p.id, addr_gline(e->line), e->mask, e->words, early, cb_acked, c,
                              e->id);
    if (h == REPL_REFUSED) {
        assert(early);
        (*c->n_repl_refused)++;
        return false;
    }
    e->rsent = true;
    e->rh = h;
    (*c->n_repl_sets)++;
    if (!early)
        (*c->n_repl_head)++; /* Fig. 11: sent while at the head */
    return true;
}

static void ev_dk_send(void *obj, uint64_t id)
{
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's core does nothing more */
    sb_entry_t *e = sb_by_id(c, id);
    if (!e->rsent)
        dk_send(c, e, false);
}

static bool dk_gate(void *obj, uint64_t tag)
{
    core_t *c = obj;
    if (c->failed)
        return false; /* fail-stop: what the memory or the replication engine answers is lost */
    sb_entry_t *e = sb_by_tag(c, tag);
    if (!e->t_coh)
        e->t_coh = cyc_now(c);
    if (c->p.protocol == CFG_PROTO_BASELINE && !e->rsent)
        kernel_at(c->k, c->k->now, ev_dk_send, c, e->id); /* not from inside the memory system */
    if (e->racked)
        return true;
    e->parked = true;
    return false;
}

static void dk_on_head(core_t *c, sb_entry_t *e)
{
    if (addr_is_local(e->line) || e->ideal || e->lnr) {
        store_head(c, e, false);
        return;
    }
    if (c->p.protocol != CFG_PROTO_BASELINE && !e->rsent)
        dk_send(c, e, false);
    else if (e->rsent && c->repl.head)
        c->repl.head(c->repl.obj, e->rh);
    c->mem.store_gated(c->mem.obj, c->p.id, e->line, e->mask, e->words, dk_gate, cb_st_committed, cb_st_done, c,
                       e->id);
}

/* Proactive: a store entered the SB, merged into e or opening e. */
static void proactive_on_enter(core_t *c, sb_entry_t *e, bool merged)
{
    if (merged)
        return; /* e may grow further: it waits */
    sb_entry_t *y = e;
    if (c->p.coalesce) {
        if (c->sb_n < 2)
            return;
        y = sb_at(c, c->sb_head + c->sb_n - 2); /* can no longer grow: e opened behind it */
    }
    if (!y->started && !y->rsent && !addr_is_local(y->line) && !y->ideal && !y->lnr && !y->flush)
        dk_send(c, y, y != sb_at(c, c->sb_head)); /* at the head already (about to start): not early */
}

static const sb_proto_t proto_baseline = {.name = "baseline", .on_head = dk_on_head, .rmw_wt = wb_rmw_wt};
static const sb_proto_t proto_parallel = {.name = "parallel", .on_head = dk_on_head, .rmw_wt = wb_rmw_wt};
static const sb_proto_t proto_proactive = {
    .name = "proactive", .on_enter = proactive_on_enter, .on_head = dk_on_head, .rmw_wt = wb_rmw_wt};

/* ---------------------------------------------------------------------------------------------
 * The thread's operations (wl_thread_ops_t) */

static void cb_io_done(void *obj, uint64_t tag, uint64_t v)
{
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: what the memory or the replication engine answers is lost */
    assert(tag == c->io_tag && c->thr == TH_BLOCKED && (c->wait == WAIT_RMW || c->wait == WAIT_FLUSH));
    (void)tag;
    c->io_val = v;
    c->io_cycle = cyc_now(c);
    wake_at(c, c->io_cycle);
}

static void cb_rmw_committed(void *obj, uint64_t tag, uint64_t v, unsigned version)
{
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: what the memory or the replication engine answers is lost */
    assert(tag == c->io_tag && c->wait == WAIT_RMW);
    (void)tag;
    if (c->rmw_repl) {
        c->rmw_repl = false;
        c->repl.val(c->repl.obj, c->rmw_h, version);
    }
    if (c->commit_fn)
        c->commit_fn(c->commit_obj, c->p.cn, c->p.id, c->wait_addr, v, c->k->now, c->rmw_ideal || c->rmw_lnr);
    *c->n_ideal += c->rmw_ideal;
}

/* DIKTAMO: an rmw's write is a remote store, replicated before it commits like a store-buffer
 * entry of one word; the memory system pins the line between the read and the write
 * (mem_if.rmw_gated), so that the rmw stays atomic while the REPL_ACKs come. Its REPL set counts
 * as sent at the head (the store buffer is empty). */
static bool cb_rmw_acked(void *obj, uint64_t tag, bool acked)
{
    core_t *c = obj;
    if (c->failed || !acked)
        return false; /* fail-stop; or taken back: the pinned rmw writes at once, it cannot wait */
    assert(tag == c->io_tag && c->rmw_repl);
    (void)tag;
    c->mem.store_go(c->mem.obj, c->p.id);
    return true;
}

static void ev_rmw_send(void *obj, uint64_t tag)
{
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's core does nothing more */
    assert(tag == c->io_tag && c->rmw_repl);
    uint64_t words[ADDR_WORDS_PER_LINE] = {0};
    unsigned w = addr_word(c->wait_addr);
    words[w] = c->rmw_nv;
    c->rmw_h = c->repl.send(c->repl.obj, c->p.id, addr_gline(c->wait_addr), (uint8_t)(1u << w), words, false,
                            cb_rmw_acked, c, tag);
    (*c->n_repl_sets)++;
    (*c->n_repl_head)++;
}

static bool cb_rmw_gate(void *obj, uint64_t tag, uint64_t nv)
{
    core_t *c = obj;
    if (c->failed)
        return false; /* fail-stop: what the memory or the replication engine answers is lost */
    c->rmw_nv = nv;
    c->rmw_repl = true;
    kernel_at(c->k, c->k->now, ev_rmw_send, c, tag); /* not from inside the memory system */
    return false;
}

/* Loads. A call of the thread is n independent loads (wl_ld: n = 1; wl_ld_batch): their addresses
 * are known at the call, so they dispatch back to back (width per cycle, each with its load-queue
 * entry) and each one's access goes out at its dispatch; their misses overlap, as an out-of-order
 * core's do, up to the load queue (and the ROB: load k dispatches when load k - min(lq, rob) has
 * retired). The thread waits until every value is back.
 *
 * TSO keeps loads in program order: each load's value must be what memory held at some instant
 * no earlier than the instant the older loads took theirs. A load whose access performs while an
 * older one is still out took its value too early; a real core would squash it if its line were
 * snooped away before the older load performed. Here loads are made *final* in program order
 * (ld_advance): a load is final at the instant it becomes the oldest non-final one with its
 * access performed, and takes its value at that instant: from its own access if that is what
 * just performed, else from the core's L1 (mem_if.load_hit: the line is still there, so the
 * value is the one the access read unless the line was taken and given back meanwhile), else by
 * a replay (the line left: the access is sent again and the load becomes final when it
 * performs, counted in ld_replays). A load forwarded from the core's own store queue at dispatch
 * takes the store's value again at that instant, or memory's if the store has committed since.
 * So the values are those of loads performed one after the other in program order; completion
 * cycles are those of the loads' own accesses (a replayed load: the replay's), and retirement is
 * in order anyway. A single load is the old blocking load, to the event. */

static ld_ent_t *ld_at(core_t *c, unsigned k) { return &c->ld[k % c->ldcap]; }

/* Load k of the call is final: value v, completion cycle cc. */
static void ld_final(core_t *c, unsigned k, uint64_t v, uint64_t cc)
{
    ld_ent_t *e = ld_at(c, k);
    uint64_t rr = retire_one(c, e->r, cc);
    c->lq_r[(c->ld_base + k) % c->p.lq] = rr;
    c->nloads++;
    c->ld_val[k] = v;
    c->ld_cmax = max64(c->ld_cmax, cc);
    c->ld_fin = k + 1;
    trace(c, CORE_REC_LOAD, e->r, e->d, e->d, cc);
}

static void ev_ld_replay(void *obj, uint64_t k);
static void cb_ld_done(void *obj, uint64_t tag, uint64_t v);

/* Makes final, in program order, every load that can be now (see above); just: the load whose
 * access performed at this instant (or UINT_MAX). Wakes the thread when what it waits for is
 * final. */
static void ld_advance(core_t *c, unsigned just)
{
    while (c->ld_fin < c->ld_next) {
        unsigned k = c->ld_fin;
        ld_ent_t *e = ld_at(c, k);
        uint64_t v;
        if (e->state == LD_OUT)
            break;
        if (e->state == LD_FWD && sq_forward(c, c->ld_addr[k], &v))
            ld_final(c, k, v, e->c);
        else if (k == just)
            ld_final(c, k, e->val, e->c);
        else if (c->mem.load_hit(c->mem.obj, c->p.id, c->ld_addr[k], &v))
            ld_final(c, k, v, e->c);
        else {
            e->state = LD_OUT;
            (*c->n_ld_replay)++;
            kernel_at(c->k, c->k->now, ev_ld_replay, c, k); /* not from inside the memory system */
            break;
        }
    }
    if (c->thr == TH_BLOCKED && c->wait == WAIT_LOAD && c->ld_fin >= c->ld_want && !c->wake_scheduled)
        wake_at(c, cyc_now(c));
}

static void ev_ld_replay(void *obj, uint64_t k)
{
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's core does nothing more */
    c->mem.load(c->mem.obj, c->p.id, c->ld_addr[k], cb_ld_done, c, c->ld_tag0 + k);
}

static void cb_ld_done(void *obj, uint64_t tag, uint64_t v)
{
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: what the memory or the replication engine answers is lost */
    unsigned k = (unsigned)(tag - c->ld_tag0);
    ld_ent_t *e = ld_at(c, k);
    assert(k < c->ld_next && k >= c->ld_fin && e->state == LD_OUT);
    e->state = LD_DONE;
    e->val = v;
    e->c = cyc_now(c);
    ld_advance(c, k);
}

/* Inside the thread: waits until the call's first `want` loads are final. */
static void ld_wait(core_t *c, unsigned want)
{
    while (c->ld_fin < want) {
        c->ld_want = want;
        c->wait_addr = c->ld_addr[c->ld_fin];
        block(c, WAIT_LOAD);
    }
}

static void op_ld(wl_thread_t *t, const uint64_t *addr, uint64_t *val, unsigned n)
{
    core_t *c = t->impl;
    c->ld_addr = addr;
    c->ld_val = val;
    c->ld_next = c->ld_fin = 0;
    c->ld_base = c->nloads;
    c->ld_tag0 = c->io_tag + 1;
    c->io_tag += n;
    c->ld_cmax = 0;
    for (unsigned k = 0; k < n; k++) {
        pause_point(c);
        check_addr(c, "load", addr[k]);
        if (k >= c->ldcap)
            ld_wait(c, k - c->ldcap + 1); /* its LQ entry (or ROB entry) is freed by that load */
        uint64_t d = dispatch_base(c);
        uint64_t lb = c->lq_r[(c->ld_base + k) % c->p.lq];
        if (lb > d) {
            *c->n_lq_stall += lb - d;
            d = lb;
        }
        d = max64(d, cyc_now(c));
        sync_to(c, d);
        ld_ent_t *e = ld_at(c, k);
        *e = (ld_ent_t){.r = dispatch_one(c, d), .d = d};
        (*c->n_loads)++;
        *c->n_rloads += !addr_is_local(addr[k]);
        c->ld_next = k + 1;
        if (sq_forward(c, addr[k], &e->val)) {
            (*c->n_fwd)++;
            e->state = LD_FWD;
            e->c = d + 1;
            ld_advance(c, UINT_MAX);
        } else {
            e->state = LD_OUT;
            c->mem.load(c->mem.obj, c->p.id, addr[k], cb_ld_done, c, c->ld_tag0 + k);
        }
    }
    ld_wait(c, n);
    c->ready = max64(c->ready, c->ld_cmax);
}

/* A store or a clflushopt (flush: addr is its line) takes a store-queue entry at its dispatch,
 * completes a cycle later and retires into the store buffer in order. */
static void sq_dispatch(core_t *c, uint64_t addr, uint64_t v, bool flush)
{
    uint64_t d = dispatch_base(c);
    sync_to(c, d);
    if (c->sq_n == c->p.sq) {
        c->wait_addr = addr;
        while (c->sq_n == c->p.sq)
            block(c, WAIT_SQ);
        uint64_t d2 = cyc_now(c);
        *c->n_sq_stall += d2 - d;
        d = d2;
    }
    rec_t *r = dispatch_one(c, d);
    uint64_t line = addr_line(addr);
    if (!flush) {
        (*c->n_stores)++;
        *c->n_rstores += !addr_is_local(addr);
        if (!addr_is_local(addr) && !sq_has_line(c, line))
            c->mem.prefetch_x(c->mem.obj, c->p.id, addr);
        c->word_cnt[hash_bucket(addr)]++;
        c->line_cnt[hash_bucket(line)]++;
    } else {
        (*c->n_flush_opts)++;
    }
    uint64_t seq = c->st_next++;
    assert(seq == c->sq_head + c->sq_n);
    c->sq_n++;
    sq_ent_t *s = sq_ent(c, seq);
    uint64_t rr = retire_one(c, r, d + 1);
    bool ideal = !flush && c->p.sync_ideal && c->t->sync && !addr_is_local(addr);
    *s = (sq_ent_t){.addr = addr, .value = v, .d = d, .r = rr, .ideal = ideal, .lnr = !flush && in_lnr(c, addr),
                    .flush = flush};
    kernel_at(c->k, edge(c, rr), ev_st_retire, c, seq);
    trace(c, flush ? CORE_REC_FLUSH_OPT : CORE_REC_STORE, r, d, d, d + 1);
}

static void op_st(wl_thread_t *t, uint64_t addr, uint64_t v)
{
    core_t *c = t->impl;
    pause_point(c);
    check_addr(c, "store", addr);
    sq_dispatch(c, addr, v, false);
}

/* clflushopt: after the thread's older stores (it drains in order with them), not waited for. */
static void op_flush_opt(wl_thread_t *t, uint64_t addr)
{
    core_t *c = t->impl;
    pause_point(c);
    check_addr(c, "flush", addr & ~(uint64_t)7);
    sq_dispatch(c, addr_line(addr), 0, true);
}

/* rmw, fence, flush: dispatch, then wait until every older instruction has retired and every older
 * store has committed (and its protocol is done with it). Returns the cycle it may proceed. */
static uint64_t serialize(core_t *c, rec_t **rp, uint64_t *dp)
{
    uint64_t d = dispatch_base(c);
    uint64_t older = c->next_idx > 0 ? c->r_last : 0;
    *rp = dispatch_one(c, d);
    *dp = d;
    sync_to(c, max64(d, older));
    while (!sb_empty(c))
        block(c, WAIT_DRAIN);
    return cyc_now(c);
}

static uint64_t op_rmw(wl_thread_t *t, mem_rmw_e op, uint64_t addr, uint64_t a, uint64_t b)
{
    core_t *c = t->impl;
    pause_point(c);
    check_addr(c, "rmw", addr);
    rec_t *r;
    uint64_t d;
    c->wait_addr = addr;
    serialize(c, &r, &d);
    (*c->n_rmws)++;
    *c->n_rrmws += !addr_is_local(addr);
    c->rmw_ideal = c->p.sync_ideal && t->sync && !addr_is_local(addr);
    c->rmw_lnr = in_lnr(c, addr);
    if (c->p.protocol >= CFG_PROTO_BASELINE && !addr_is_local(addr) && !c->rmw_ideal && !c->rmw_lnr)
        c->mem.rmw_gated(c->mem.obj, c->p.id, addr, op, a, b, cb_rmw_gate, cb_rmw_committed, cb_io_done, c,
                         ++c->io_tag);
    else
        c->mem.rmw(c->mem.obj, c->p.id, addr, op, a, b, c->proto->rmw_wt(c, addr) && !c->rmw_ideal, cb_rmw_committed,
                   cb_io_done, c, ++c->io_tag);
    block(c, WAIT_RMW);
    uint64_t cc = c->io_cycle;
    retire_one(c, r, cc);
    c->ready = max64(c->ready, cc);
    trace(c, CORE_REC_RMW, r, d, d, cc);
    return c->io_val;
}

static void op_fence(wl_thread_t *t)
{
    core_t *c = t->impl;
    pause_point(c);
    rec_t *r;
    uint64_t d;
    uint64_t cc = serialize(c, &r, &d);
    (*c->n_fences)++;
    retire_one(c, r, cc);
    c->ready = max64(c->ready, cc);
    trace(c, CORE_REC_FENCE, r, d, d, cc);
}

static void op_flush(wl_thread_t *t, uint64_t addr)
{
    core_t *c = t->impl;
    pause_point(c);
    check_addr(c, "flush", addr & ~(uint64_t)7);
    rec_t *r;
    uint64_t d;
    c->wait_addr = addr;
    serialize(c, &r, &d);
    (*c->n_flushes)++;
    c->mem.flush(c->mem.obj, c->p.id, addr_line(addr), cb_io_done, c, ++c->io_tag);
    block(c, WAIT_FLUSH);
    uint64_t cc = c->io_cycle;
    retire_one(c, r, cc);
    c->ready = max64(c->ready, cc);
    trace(c, CORE_REC_FLUSH, r, d, d, cc);
}

/* compute(n): one record, closed forms (see the file comment). */
static void op_compute(wl_thread_t *t, uint64_t n)
{
    core_t *c = t->impl;
    pause_point(c);
    if (n == 0)
        return;
    const unsigned w = c->w;
    const uint64_t b = c->next_idx;
    slot_t f = next_slot(c->d_last, c->dc, w, c->ready);
    slot_t p = next_slot(c->r_last, c->rc, w, 0);
    uint64_t d0 = max64(slot_at(f, w, 0), rob_bound(c, b));
    uint64_t c0 = max64(d0, c->chain_end) + 1;
    rec_t *r = rec_push(c, b, n);
    r->p0 = p.t0;
    r->ps = p.s;
    r->c0 = c0;
    r->known = true;
    c->next_idx = b + n;

#define D_OF(j) max64(slot_at(f, w, (j)), rob_bound(c, b + (j)))
    uint64_t dl = D_OF(n - 1);
    unsigned dcnt = 0;
    for (uint64_t j = n; j-- > 0;) {
        if (D_OF(j) != dl)
            break;
        dcnt++;
        if (j == 0 && f.t0 == dl)
            dcnt += f.s; /* the instructions before the block that dispatched in the same cycle */
    }
#undef D_OF
    uint64_t rl = rec_retire(c, r, n - 1);
    unsigned rcnt = 0;
    for (uint64_t j = n; j-- > 0;) {
        if (rec_retire(c, r, j) != rl)
            break;
        rcnt++;
        if (j == 0 && p.t0 == rl)
            rcnt += p.s;
    }
    assert(dcnt <= w && rcnt <= w);
    *c->n_rob_stall += dl - slot_at(f, w, n - 1);
    *c->n_instr += n;
    c->d_last = dl;
    c->dc = dcnt;
    c->r_last = rl;
    c->rc = rcnt;
    c->chain_end = c0 + n - 1;
    trace(c, CORE_REC_COMPUTE, r, d0, dl, c->chain_end);
}

static uint64_t op_now(wl_thread_t *t)
{
    core_t *c = t->impl;
    return edge(c, next_slot(c->d_last, c->dc, c->w, c->ready).t0);
}

static const wl_thread_ops_t core_ops = {
    .ld = op_ld,
    .st = op_st,
    .rmw = op_rmw,
    .fence = op_fence,
    .flush = op_flush,
    .flush_opt = op_flush_opt,
    .compute = op_compute,
    .now = op_now,
};

/* ---------------------------------------------------------------------------------------------
 * Thread start and end */

static void thread_main(void *arg)
{
    core_t *c = arg;
    c->body(c->t, c->body_arg);
}

static void ev_start(void *obj, uint64_t arg)
{
    (void)arg;
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's core does nothing more */
    assert(c->thr == TH_PENDING);
    c->thr = TH_BLOCKED;
    ev_resume(c, 0);
}

static void ev_finish(void *obj, uint64_t arg)
{
    (void)arg;
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's core does nothing more */
    assert(c->thr == TH_ENDING && sb_empty(c));
    uint64_t end = cyc_now(c);
    *c->n_cycles += end - c->start_cycle;
    *c->n_sync_ns += (c->t->sync_ps - c->sync_ps0) / 1000;
    *c->g_ipc = *c->n_cycles ? (double)*c->n_instr / (double)*c->n_cycles : 0.0;
    coro_free(c->co);
    c->co = NULL;
    c->thr = TH_NONE;
    void (*fn)(void *) = c->on_exit;
    void *obj2 = c->exit_obj;
    c->on_exit = NULL;
    if (fn)
        fn(obj2);
}

/* At (or after) the last retirement: the thread ends once the store buffer is empty. */
static void ev_end_check(void *obj, uint64_t arg)
{
    (void)arg;
    core_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's core does nothing more */
    if (sb_empty(c))
        ev_finish(c, 0);
    else
        c->end_wait_drain = true;
}

static void thread_ended(core_t *c)
{
    c->thr = TH_ENDING;
    kernel_at(c->k, edge(c, max64(c->r_last, cyc_now(c))), ev_end_check, c, 0);
}

void core_run(core_t *c, wl_thread_t *t, void (*body)(wl_thread_t *, void *), void *arg, uint64_t start_ps,
              void (*on_exit)(void *obj), void *obj)
{
    assert(core_idle(c) && body && t);
    c->co = coro_create(thread_main, c, c->p.stack_bytes ? c->p.stack_bytes : DEFAULT_STACK);
    if (!c->co) {
        fprintf(stderr, "%s: out of memory for a thread stack\n", c->name);
        abort();
    }
    t->ops = &core_ops;
    t->impl = c;
    t->cn = c->p.cn;
    t->core = c->p.id;
    c->t = t;
    c->sync_ps0 = t->sync_ps;
    c->body = body;
    c->body_arg = arg;
    c->on_exit = on_exit;
    c->exit_obj = obj;
    c->thr = TH_PENDING;
    c->wait = WAIT_NONE;
    c->end_wait_drain = false;
    start_ps = max64(start_ps, c->k->now);
    c->start_cycle = clock_cycle_at_or_after(&c->clk, start_ps);
    c->next_idx = 0;
    c->ready = c->start_cycle;
    c->d_last = c->r_last = c->chain_end = 0;
    c->dc = c->rc = 0;
    c->rn = c->rhint = 0;
    c->nloads = 0;
    memset(c->lq_r, 0, c->p.lq * sizeof *c->lq_r);
    kernel_at(c->k, start_ps, ev_start, c, 0);
}

/* ---------------------------------------------------------------------------------------------
 * Life cycle */

static int reg_counter(core_t *c, stats_t *st, uint64_t **dst, const char *leaf, const char *doc, char *err)
{
    char name[160];
    snprintf(name, sizeof name, "%s.%s", c->name, leaf);
    *dst = stats_counter(st, name, doc);
    if (!*dst) {
        snprintf(err, 256, "core %s: statistics: %s", c->name, stats_error(st));
        return -1;
    }
    return 0;
}

static int reg_hist(core_t *c, stats_t *st, stats_hist_t **dst, const char *leaf, const char *doc, char *err)
{
    char name[160];
    snprintf(name, sizeof name, "%s.%s", c->name, leaf);
    *dst = stats_hist(st, name, doc, (stats_buckets_t){.kind = STATS_LOG2});
    if (!*dst) {
        snprintf(err, 256, "core %s: statistics: %s", c->name, stats_error(st));
        return -1;
    }
    return 0;
}

static int reg_stats(core_t *c, stats_t *st, char *err)
{
    char name[160];
    if (reg_counter(c, st, &c->n_instr, "instructions", "instructions dispatched (memory + compute)", err) ||
        reg_counter(c, st, &c->n_cycles, "cycles", "core cycles from thread start to thread end", err) ||
        reg_counter(c, st, &c->n_sync_ns, "sync_ns",
                    "time the thread spent in locks, unlocks and barriers (waiting, and their accesses), ns", err) ||
        reg_counter(c, st, &c->n_loads, "loads", "loads", err) ||
        reg_counter(c, st, &c->n_stores, "stores", "stores", err) ||
        reg_counter(c, st, &c->n_rmws, "rmws", "atomic read-modify-writes", err) ||
        reg_counter(c, st, &c->n_rloads, "remote_loads", "loads of CXL memory (the rest of loads: local memory)", err) ||
        reg_counter(c, st, &c->n_rstores, "remote_stores", "stores to CXL memory", err) ||
        reg_counter(c, st, &c->n_rrmws, "remote_rmws", "atomic read-modify-writes of CXL memory", err) ||
        reg_counter(c, st, &c->n_fences, "fences", "fences", err) ||
        reg_counter(c, st, &c->n_flushes, "flushes", "cache-line flushes", err) ||
        reg_counter(c, st, &c->n_fwd, "fwd_loads", "loads forwarded from the core's own store queue/buffer", err) ||
        reg_counter(c, st, &c->n_coal, "coalesced_stores", "stores merged into an older store-buffer entry", err) ||
        reg_counter(c, st, &c->n_sq_stall, "stall.sq_full_cycles", "dispatch cycles lost to a full store queue",
                    err) ||
        reg_counter(c, st, &c->n_rob_stall, "stall.rob_full_cycles", "dispatch cycles lost to a full ROB", err) ||
        reg_counter(c, st, &c->n_lq_stall, "stall.lq_full_cycles", "dispatch cycles lost to a full load queue",
                    err) ||
        reg_counter(c, st, &c->n_ld_replay, "ld_replays",
                    "loads sent again: their line left the L1 between their access and the older loads' (TSO)",
                    err) ||
        reg_hist(c, st, &c->h_rob, "remote_st.dispatch_to_rob_head",
                 "remote stores: cycles from dispatch to retirement (ROB head)", err) ||
        reg_hist(c, st, &c->h_sbwait, "remote_st.rob_head_to_sb_head",
                 "remote stores: cycles from retirement to the start of their store-buffer entry's drain", err) ||
        reg_hist(c, st, &c->h_coh, "remote_st.sb_head_to_coh_end",
                 "remote stores: cycles from the start of the drain to the end of the coherence transaction "
                 "(write permission in L1; WB, WT: the commit)", err) ||
        reg_hist(c, st, &c->h_repl, "remote_st.replication",
                 "remote stores: cycles from the end of the coherence transaction to the commit (waiting for "
                 "REPL_ACKs; 0 under WB and WT)", err) ||
        reg_hist(c, st, &c->h_drain, "remote_st.sb_head_to_done",
                 "remote stores: cycles from the start of the drain to the entry's end (the commit; WT: the "
                 "MN's CMP)", err) ||
        reg_counter(c, st, &c->n_repl_sets, "repl_sets", "DIKTAMO: REPL sets sent (one per store-buffer entry)",
                    err) ||
        reg_counter(c, st, &c->n_repl_head, "repl_sets_at_head",
                    "DIKTAMO: REPL sets sent when their entry was at the store buffer's head (Fig. 11)", err) ||
        reg_counter(c, st, &c->n_repl_refused, "repl_early_refused",
                    "proactive: early REPL sets the engine refused (its share of a replica's buffer in use)", err) ||
        reg_counter(c, st, &c->n_flush_opts, "flush_opts",
                    "clflushopts: sent from the store buffer's head without waiting; a fence waits for them",
                    err) ||
        reg_counter(c, st, &c->n_ideal, "ideal_sync_writes",
                    "core.sync = ideal: lock and barrier writes committed as under WB (not written through, not "
                    "replicated)", err))
        return -1;
    snprintf(name, sizeof name, "%s.ipc", c->name);
    c->g_ipc = stats_gauge(st, name, "instructions per cycle over the threads run");
    if (!c->g_ipc) {
        snprintf(err, 256, "core %s: statistics: %s", c->name, stats_error(st));
        return -1;
    }
    return 0;
}

core_t *core_create(kernel_t *k, const core_params_t *p, const mem_if_t *mem, stats_t *st, char *err)
{
    char dummy[256];
    if (!err)
        err = dummy;
    err[0] = 0;
    if (!k || !p || !mem) {
        snprintf(err, 256, "core: missing kernel, parameters or memory interface");
        return NULL;
    }
    const char *nm = p->name && *p->name ? p->name : "core";
    if (p->rob == 0 || p->lq == 0 || p->sq == 0 || p->width == 0 || p->freq_hz == 0) {
        snprintf(err, 256, "core %s: rob, lq, sq, width and freq_hz must be at least 1 (rob %u, lq %u, sq %u, width %u)",
                 nm, p->rob, p->lq, p->sq, p->width);
        return NULL;
    }
    if (p->rob > (1u << 20) || p->lq > (1u << 20) || p->sq > 4096 || p->width > 64) {
        snprintf(err, 256, "core %s: rob and lq at most 2^20, sq at most 4096, width at most 64", nm);
        return NULL;
    }
    static const sb_proto_t *const protos[CFG_PROTO_COUNT] = {
        [CFG_PROTO_WB] = &proto_wb, [CFG_PROTO_WT] = &proto_wt, [CFG_PROTO_BASELINE] = &proto_baseline,
        [CFG_PROTO_PARALLEL] = &proto_parallel, [CFG_PROTO_PROACTIVE] = &proto_proactive};
    if ((unsigned)p->protocol >= CFG_PROTO_COUNT) {
        snprintf(err, 256, "core %s: unknown protocol %u", nm, (unsigned)p->protocol);
        return NULL;
    }
    const sb_proto_t *proto = protos[p->protocol];
    if (!mem->load || !mem->load_hit || !mem->prefetch_x || !mem->store || !mem->rmw || !mem->flush) {
        snprintf(err, 256, "core %s: the memory interface lacks a function", nm);
        return NULL;
    }
    bool dk = p->protocol >= CFG_PROTO_BASELINE;
    if (dk && (!p->repl || !p->repl->send || !p->repl->val || !mem->store_gated || !mem->rmw_gated ||
               !mem->store_go)) {
        snprintf(err, 256, "core %s: protocol %s needs a replication engine and gated stores", nm, proto->name);
        return NULL;
    }
    core_t *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, 256, "core %s: out of memory", nm);
        return NULL;
    }
    c->k = k;
    c->p = *p;
    snprintf(c->name, sizeof c->name, "%s", nm);
    size_t len = strlen(c->name);
    if (len > 0 && c->name[len - 1] == '.')
        c->name[len - 1] = 0;
    c->p.name = c->name;
    c->clk = clock_domain(c->name, p->freq_hz);
    c->mem = *mem;
    c->proto = proto;
    if (dk)
        c->repl = *p->repl;
    c->p.repl = NULL; /* copied: the caller's table need not outlive the call */
    c->w = p->width;
    c->rcap = 4;
    while (c->rcap < (size_t)p->rob + 2)
        c->rcap *= 2;
    c->recs = calloc(c->rcap, sizeof *c->recs);
    c->lq_r = calloc(p->lq, sizeof *c->lq_r);
    c->ldcap = p->lq < p->rob ? p->lq : p->rob;
    c->ld = calloc(c->ldcap, sizeof *c->ld);
    c->sq = calloc(p->sq, sizeof *c->sq);
    c->sbcap = p->sq + 1;
    c->sb = calloc(c->sbcap, sizeof *c->sb);
    if (!c->recs || !c->lq_r || !c->ld || !c->sq || !c->sb) {
        snprintf(err, 256, "core %s: out of memory", nm);
        core_free(c);
        return NULL;
    }
    if (!st) {
        stats_init(&c->own_stats);
        c->own_stats_used = true;
        st = &c->own_stats;
    }
    if (reg_stats(c, st, err)) {
        core_free(c);
        return NULL;
    }
    return c;
}

void core_on_commit(core_t *c, core_commit_fn fn, void *obj)
{
    c->commit_fn = fn;
    c->commit_obj = obj;
}

void core_on_trace(core_t *c, core_trace_fn fn, void *obj)
{
    c->trace_fn = fn;
    c->trace_obj = obj;
}

bool core_idle(const core_t *c) { return c->failed || (c->thr == TH_NONE && sb_empty(c)); }

void core_fail(core_t *c) { c->failed = true; }

void core_pause(core_t *c) { c->paused = true; }

void core_resume(core_t *c)
{
    c->paused = false;
    if (!c->failed && c->thr == TH_BLOCKED && c->wait == WAIT_PAUSE && !c->wake_scheduled)
        wake_at(c, cyc_now(c));
}

bool core_paused(const core_t *c) { return c->paused; }
bool core_failed(const core_t *c) { return c->failed; }
const char *core_fault(const core_t *c) { return c->fault[0] ? c->fault : NULL; }

uint64_t core_instructions(const core_t *c) { return *c->n_instr; }

void core_dump(const core_t *c, FILE *f)
{
    static const char *const thr_names[] = {"no thread", "starting", "running", "blocked", "ending"};
    fprintf(f, "%s (%s): %s", c->name, c->proto->name, thr_names[c->thr]);
    if (c->thr == TH_BLOCKED) {
        fprintf(f, " on %s", wait_names[c->wait]);
        if (c->wait == WAIT_LOAD || c->wait == WAIT_RMW || c->wait == WAIT_FLUSH || c->wait == WAIT_SQ ||
            c->wait == WAIT_DRAIN)
            fprintf(f, " (addr 0x%" PRIx64 ")", c->wait_addr);
        if (c->wake_scheduled)
            fprintf(f, ", wake-up scheduled");
    }
    if (c->thr == TH_ENDING)
        fprintf(f, "%s", c->end_wait_drain ? " (waiting for the store buffer)" : " (waiting for retirement)");
    fprintf(f, "; %" PRIu64 " instructions, last dispatch cycle %" PRIu64 ", last retire cycle %" PRIu64
               "; store queue %u/%u, store buffer %u entries",
            *c->n_instr, c->d_last, c->r_last, c->sq_n, c->p.sq, c->sb_n);
    if (c->sb_n > 0) {
        const sb_entry_t *e = &c->sb[c->sb_head % c->sbcap];
        fprintf(f, ", head line 0x%" PRIx64 " mask 0x%02x %s", e->line, e->mask,
                !e->started ? "waiting to start" : !e->committed ? "waiting for its commit" : "waiting for done");
    }
    fprintf(f, "\n");
}


void core_free(core_t *c)
{
    if (!c)
        return;
    if (c->co)
        coro_free(c->co);
    free(c->recs);
    free(c->lq_r);
    free(c->ld);
    free(c->sq);
    free(c->sb);
    if (c->own_stats_used)
        stats_free(&c->own_stats);
    free(c);
}
