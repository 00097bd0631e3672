/* A random test bench for the CN memory hierarchy (csim/cn/cn_mem): several CNs, each a real
 * cn_mem with its cores driven directly through mem_if by random agents, and one or more homes,
 * the directory controller's reference model (tb/ref/dir_ctrl_ref), joined by a link model.
 *
 * The link gives every message its own seeded delay in [lat_min, lat_max] (so messages overtake
 * each other, also inside one class, as the fabric with jitter may: section 11c needs no order
 * inside a class), or keeps the order of each (source, destination, class) when class_fifo is set.
 * A CN holds `credits` send credits per class; a credit comes back one lat_min after the home
 * took the message into its receive FIFO (the home takes one message per fabric cycle, only when
 * its FIFO of that class has room). Messages toward a CN are consumed by cn_mem_deliver, which must
 * release each exactly once.
 *
 * Each core's agent issues, at random times, loads (several outstanding), stores of 1..max_words
 * words (one at a time: the head of a store buffer), atomics (CAS, FADD, SWAP; with the store
 * buffer empty), flushes and exclusive prefetches, to a few coherent (SCR) lines (mostly hot ones,
 * so that lines bounce), LNR lines and local lines; stores and atomics to remote lines are
 * written through with probability p_wt. Every store value is unique.
 *
 * What it checks as it runs (the first failure stops the run; the message names the seed):
 * - a load of a coherent or local word returns, at the moment it is performed (its callback), the
 *   value of the last committed store to that word (`committed` callbacks in time order are the
 *   global order of writes to a word; single writer makes them serial), or the initial zero; a
 *   load of an LNR word returns a value some store wrote to it, or zero;
 * - an atomic's old value is the word's value at its write (or, when a CAS does not write, at its
 *   completion), and its new value is the operation applied to it;
 * - single writer / multiple readers: when a store or atomic commits, no other CN holds the
 *   coherent line (S or owned) and no other core of the CN holds it in its L1 or L2;
 * - versions (docs/architecture.md section 11b): every commit to a coherent line reports the
 *   previous commit's version plus one, mod 2^MSG_TS_W, whichever core or CN made either (the
 *   bench counts the commits of each line in their global order); LNR and local commits report 0;
 * - no directory violation; every message a home sends passes msg_check; no CN counts an
 *   unexpected snoop or answer; progress (some access completes every stall_ps).
 * And at quiescence (issue stopped, every access done, link empty, homes and CNs idle):
 * - for every coherent word, the newest value (cn_mem_peek over the CNs, at most one of which may
 *   claim it; else the home's memory) equals the last committed store; every S copy equals it;
 *   at most one CN owns a line and then nobody shares it; the directory entry names exactly the
 *   CNs that hold the line; an owner holds the line's true version, and so does the directory
 *   when no CN holds the line dirty;
 * - every local word (cn_mem_local_peek) equals the CN's last committed store;
 * - after every CN flushes its LNR lines, every LNR word in memory is a value some store wrote;
 * - every credit is back at its CN and every delivered message was released. */
#ifndef CN_SYS_H
#define CN_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "base/stats.h"

typedef struct cn_sys_cfg {
    const char *name;
    unsigned ncn, cores;              /* CNs (ids 0 .. ncn-1), cores per CN */
    unsigned mn_shift, gran_shift;    /* 2^mn_shift homes; interleave chunks of 2^gran_shift lines */
    uint64_t lines_per_mn;            /* memory lines of each home */
    uint64_t scr_lo, scr_hi;          /* the SCR (global line addresses); the rest is LNR */
    unsigned nscr, nhot, nlnr, nlocal; /* lines used: coherent (the first nhot hot), LNR, local */
    double hot_share;                 /* share of coherent accesses to hot lines */
    double p_lnr, p_local;            /* shares of accesses to LNR and local lines */
    cfg_cache_t l1, l2, l3;
    uint64_t core_freq_hz, fabric_freq_hz, local_latency_ps;
    uint64_t lat_min_ps, lat_max_ps;  /* link delay of each message */
    bool class_fifo;                  /* keep order per (source, destination, class) */
    unsigned credits;                 /* CN send credits per class */
    unsigned dir_txn, dir_crd, dir_mem_latency; /* home: table entries, FIFO entries per class, memory cycles */
    double p_store, p_rmw, p_flush, p_prefetch; /* shares of attempts (the rest are loads) */
    double p_wt;                      /* share of remote stores and atomics written through */
    unsigned max_loads, max_words;    /* loads outstanding per core; words per store */
    uint64_t think_ps;                /* largest gap between two attempts of a core */
    uint64_t ops;                     /* accesses to complete before draining */
    uint64_t stall_ps;                /* no completion for this long fails the run */
    bool lnr_word_writeback;          /* CNs write back only an LNR line's dirty words (else whole
                                         lines, where a stale word can undo another CN's store) */
    unsigned mutate;                  /* CN_MUT_* bits given to every CN (tests of the tests) */
} cn_sys_cfg_t;

/** A small default: 3 CNs of 2 cores, one home, tiny caches (evictions everywhere). */
cn_sys_cfg_t cn_sys_default_cfg(void);

typedef struct cn_sys_result {
    bool ok;
    char msg[8192];                   /* the first failure, with the seed and a dump */
    uint64_t ops_done, loads, stores, rmws, flushes, prefetches, wts, sim_ps;
    uint64_t commits_checked;         /* commits whose version was checked */
    uint64_t reordered;               /* messages delivered after a later one of the same pair and class */
    /* Sums over the CNs of some cn_mem counters (what the run exercised). */
    uint64_t held, wif, upg_lost, void_cmp_e, ev_clean, ev_dirty, ev_lnr, merges, alloc_waits, l3_misses;
    uint64_t stale_wr;                /* homes: stale writes (a write crossed by a snoop) */
} cn_sys_result_t;

/** Runs cfg with seed; replay (may be NULL) tells how to run it again (printed after the seed). */
void cn_sys_run(const cn_sys_cfg_t *cfg, uint64_t seed, const char *replay, cn_sys_result_t *res);

#endif
