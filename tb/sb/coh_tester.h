/* A seeded random coherence tester in the style of gem5's Ruby random tester, for the directory
 * controllers of section 11c (docs/architecture.md).
 *
 * N CN agents (ids 0 .. N-1), each with a small fully associative cache of real 8-word lines in
 * states I / S / E / M (with the transients of its requests), issue random loads, stores (one to
 * three words), write-through stores, clean and dirty evictions, and LNR reads and writes, mostly
 * to a few hot lines so that races are frequent. They obey the CN's side of the contract in 11c:
 * one outstanding request per (CN, line); every eviction announced (CLEAN_EVICT / DIRTY_EVICT);
 * evictions and write-throughs wait for their CMP; BISNP answered from the cache, with data when
 * dirty, with WR_IN_FLIGHT (and the line's data when the write carries data) when an eviction or
 * write-through of the line is in flight; a BISNP that overtakes the answer to the CN's own request
 * handled by one of the two rules of 11c (answer at once and treat the answer as void, or hold the
 * snoop until the answer is in: cfg.snoop_policy).
 *
 * The homes are reached only through coh_home_ops_t (send a message, step a cycle, collect what it
 * sent, idle?, peek memory), one home per MN, so the RTL driver can replace the reference model.
 * Messages cross a link model with a seeded random delay per message: any two messages may overtake
 * each other, also of one (source, destination, class) — the fabric with jitter reorders them
 * (architecture section 5), and section 11c needs no order inside a class: a CN has one request per
 * line outstanding and waits for its CMP before the next, a home sends a CN one snoop per line at a
 * time and answers each request once. Messages toward a home wait while it has no credit for their
 * class, and each home takes at most one message per cycle (one link).
 *
 * What it checks, as it runs (the first failure ends the run; the message names the seed):
 * - data value: a write completes when its CN holds the line in E or M and writes its cache; the
 *   tester then records the word's value in a global shadow. Every load must return the shadow
 *   value of its word, and every line a CN installs from a grant must equal the shadow line;
 * - single writer / multiple readers: when a CN writes a line, no other CN holds it readable;
 * - the protocol seen from a CN: every answer names an outstanding request of the CN (tag, line,
 *   expected opcode), a BISNP reaches only a CN that holds the line or waits for its grant, every
 *   message of a home passes msg_check;
 * - LNR words are regular registers: a read returns the value of a write to that word that began
 *   before the read ended and was not overwritten, before the read began, by a write that began
 *   after it completed (or zero when no write had completed);
 * - progress: no operation completes for cfg.stall_limit cycles -> failure with a dump of what every
 *   agent, the link and every home waits for;
 * and at quiescence (issue stopped, every operation complete, link empty, homes idle):
 * - every line: at most one E/M holder and then no S holder; every cached copy equals the shadow;
 *   memory equals the shadow unless a CN holds the line in M (the oracle's "coherent value equals
 *   the last committed store");
 * - when the home can show its directory: the entry says exactly who holds the line (I, S(sharers),
 *   EM(owner)) and no stale-write bit is left;
 * - the homes counted no violation; every LNR word in memory is an allowed final value;
 * - versions (docs/architecture.md section 11b): every completed write adds one to its line's
 *   true version; the writing CN must hold the true version when it writes (it came with the
 *   grant, from the previous writer through the home); every grant a CN installs (DATA_S, DATA_E,
 *   CMP_E) must carry the true version mod 2^MSG_TS_W; writes and snoop answers with data carry
 *   the writer's; at quiescence every entry the home shows holds the true version unless a CN
 *   holds the line in M (its version then is the true one).
 *
 * Replay: everything random is drawn from seeded streams; the same cfg and seed give the same run. */
#ifndef COH_TESTER_H
#define COH_TESTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/rng.h"
#include "msg_defs.h"

/** A home (one MN's directory controller) behind opaque pointers. */
typedef struct coh_home_ops {
    /** True when the home has a credit for m's class now. */
    bool (*can_recv)(void *h, const msg_t *m);
    /** A message arrives at the home. */
    void (*recv)(void *h, const msg_t *m);
    /** One home cycle. */
    void (*tick)(void *h);
    /** The oldest message the home sent and the tester has not collected (false: none). */
    bool (*pop)(void *h, msg_t *m);
    /** Nothing in flight inside the home. */
    bool (*idle)(void *h);
    /** Memory contents of global line addr (false: not this home's). */
    bool (*peek_line)(void *h, uint64_t addr, uint64_t data[MSG_WORDS_PER_LINE]);
    /** Optional: the directory entry of global line addr (state 0 I, 1 S, 2 EM; ver: the line's
     *  version mod 2^MSG_TS_W). */
    bool (*peek_dir)(void *h, uint64_t addr, unsigned *state, uint32_t *vec, uint32_t *stale, unsigned *ver);
    /** Optional: violations the home counted. */
    uint64_t (*violations)(void *h);
    /** Optional: print what the home waits for. */
    void (*dump)(void *h, FILE *f);
    void (*free)(void *h);
} coh_home_ops_t;

typedef struct coh_home {
    const coh_home_ops_t *ops;
    void *h;
} coh_home_t;

/** How an agent handles a BISNP that overtakes the answer to its own request (section 11c). */
enum coh_snoop_policy {
    COH_SNOOP_AT_ONCE, /* answer at once (BIRSP_I, or BIRSP_S keeping S); the grant is then void */
    COH_SNOOP_DEFER,   /* hold the snoop until the answer is in, then answer from the cache */
    COH_SNOOP_MIXED,   /* odd agents defer, even ones answer at once */
};

typedef struct coh_cfg {
    const char *name;
    unsigned ncn;                    /* agents, CN ids 0 .. ncn-1 (at most 32) */
    unsigned mn_shift, gran_shift;   /* 2^mn_shift homes; interleave chunks of 2^gran_shift lines */
    uint64_t lines_per_mn;           /* memory lines of each home (a multiple of 2^gran_shift) */
    uint64_t scr_lo, scr_hi;         /* the SCR (global line addresses); LNR lines are the rest */
    unsigned nlines, nhot;           /* SCR lines used; the first nhot of them are hot */
    double hot_share;                /* share of coherent operations on hot lines */
    unsigned nlnr;                   /* LNR lines used (0: no LNR traffic) */
    double p_lnr;                    /* share of operations that are LNR reads or writes */
    unsigned cache_lines, max_out;   /* cache entries per agent; operations outstanding per agent */
    double p_issue;                  /* chance per cycle that an agent starts an operation */
    double p_store, p_evict, p_wt;   /* shares of stores and evictions (the rest are loads); share of
                                        stores written through */
    unsigned max_words;              /* words a store writes (1 .. max_words) */
    unsigned lat_min, lat_max;       /* link delay of each message, cycles (uniform) */
    int snoop_policy;                /* enum coh_snoop_policy */
    double p_keep_s;                 /* chance an agent keeps S when a BISNP_DATA lets it */
    uint64_t ops;                    /* operations to complete before draining */
    uint64_t stall_limit;            /* cycles without a completed operation that fail the run */
    uint64_t max_cycles;             /* hard limit (0: none) */
    /* The reference home (coh_home_ref): its parameters. */
    unsigned txn_entries, dc_sets, dc_ways, mem_latency, crd_per_cls, mutate;
} coh_cfg_t;

/** Makes home number mn (0 .. 2^mn_shift - 1) for cfg; false on failure. */
typedef bool (*coh_home_make_fn)(void *arg, const coh_cfg_t *cfg, unsigned mn, coh_home_t *out);

typedef struct coh_stats {
    uint64_t cycles, ops_done;
    uint64_t loads, load_hits, stores, store_hits, wts, evicts, dirty_evicts, lnr_rds, lnr_wrs;
    uint64_t snoops, wif_answers, data_answers, keep_s, voids, deferred, retries;
    uint64_t msgs, reordered; /* messages carried; delivered after a later one of the same pair */
    uint64_t max_op_age;      /* cycles, the longest operation */
} coh_stats_t;

typedef struct coh_agent coh_agent_t;
typedef struct coh_flight coh_flight_t;
typedef struct coh_lnr_hist coh_lnr_hist_t;

typedef struct coh_tester {
    coh_cfg_t cfg;
    uint64_t seed;
    char ctx[200]; /* "name seed=N (replay: ...)" */
    rng_t rng_link;
    unsigned nhomes;
    coh_home_t *homes;
    coh_agent_t *ag;
    uint64_t *addr;   /* SCR lines used (nlines), then LNR lines (nlnr) */
    uint64_t *shadow; /* per SCR line used: 8 words, the last completed write */
    uint64_t *sver;   /* per SCR line used: its true version (completed writes, unwrapped) */
    coh_lnr_hist_t *lnr; /* per LNR line used, per word: its writes */
    uint64_t *hkey;   /* addr -> index + 1, open addressing */
    size_t hcap;
    coh_flight_t *fl;
    size_t nfl, capfl;
    uint64_t flseq;
    uint64_t *pair_last; /* last delivered sequence number per (source, destination) node pair */
    uint64_t cycle, last_progress;
    bool stopping, failed;
    char msg[8192];
    coh_stats_t st;
} coh_tester_t;

/** A small default configuration (one home, 4 CNs, 16 lines, 4 hot). */
coh_cfg_t coh_cfg_default(void);
/** The named configurations the tests and the regression campaign run (NULL-terminated). */
extern const char *const coh_presets[];
/** Fills *c with preset name; false when there is none. */
bool coh_cfg_preset(const char *name, coh_cfg_t *c);
/** NULL when cfg is usable, else what is wrong. */
const char *coh_cfg_check(const coh_cfg_t *cfg);

/** Sets up a run (homes made by make(arg, ...)). ctx_name names the run in failure messages;
 *  replay tells how to rerun it (printed after the seed). */
void coh_tester_init(coh_tester_t *t, const coh_cfg_t *cfg, uint64_t seed, coh_home_make_fn make, void *arg,
                     const char *replay);
/** Runs to the end; true when every check passed, else t->msg says what failed first. */
bool coh_tester_run(coh_tester_t *t);
void coh_tester_free(coh_tester_t *t);

#endif
