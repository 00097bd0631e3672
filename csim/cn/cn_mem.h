/* The memory hierarchy of one compute node (CN) and its CXL port: per core a private L1 and L2,
 * one shared inclusive L3 with the CN's local directory (MESI inside the CN), the CN's local DRAM,
 * and the port adapter that turns remote misses, evictions, write-throughs and flushes into
 * messages on the CN's fabric link and answers the directories' back-invalidation snoops.
 * Every level holds real data: the value a load returns is the value the hierarchy holds.
 *
 * The cores reach it only through cn_mem_if() (csim/cn/mem_if.h: load, prefetch_x, store, rmw,
 * flush). Timing, in core cycles from the configuration (paper Table II): an access looks its
 * core's L1 and L2 up when it is called and is performed l1.latency, l2.latency or l3.latency core
 * cycles later (aligned to core clock edges), after the round trip of the level that holds the
 * line with the permission it needs (a flush: the L3's). If the core's copy went away meanwhile
 * (snooped, evicted), the access pays the difference to the next level's round trip. At the L3
 * a miss goes to memory, and the access is performed when the line is filled (local DRAM:
 * local_latency_ps; remote: the answer of the line's directory). An access is performed in one
 * step at its moment, which is when its callback runs: a load reads the word from the core's L1
 * then; a store or rmw writes the core's L1 with write permission held then (the commit point,
 * `committed`). The CN's internal coherence actions happen atomically at the L3 at that moment,
 * included in the level's latency: other cores' copies invalidated (store) or the private owner
 * downgraded (load), dirty data moved to the L3, the line installed in the core's L2 and L1
 * (their victims leave first; an L3 victim back-invalidates every private copy). A core that
 * reads a line nobody else in the CN holds gets it exclusively when the CN may write it (MESI's
 * E). Replacement is LRU at every level; every access touches the L3's LRU too (L1 hits
 * included), so that a line hot in an L1 is not the inclusive L3's victim. Not modelled: port and
 * bank contention, a limit on MSHRs, local DRAM bandwidth (one channel, latency only).
 *
 * A flush drops the line from every level of the CN: a coherent line leaves with CLEAN_EVICT or
 * DIRTY_EVICT, a dirty LNR line with LNR_WR, a dirty local line with a DRAM write, and the flush
 * completes when that is done (its CMP); when the CN holds nothing to write (or no coherent copy)
 * it completes after the L3's round trip.
 *
 * The port follows the CN's side of the directory's contract (docs/architecture.md section 11c):
 *   - one outstanding request per line expecting an answer (RD_SHARED, RD_OWN, RD_UPGRADE, LNR_RD,
 *     CLEAN_EVICT, DIRTY_EVICT, WT_WR, LNR_WR); misses of several cores to one line merge on it
 *     (an MSHR per line), and a line with an eviction or write-through in flight waits for its CMP;
 *   - a coherent (SCR) line leaves the L3 only with CLEAN_EVICT (S, E) or DIRTY_EVICT (M), kept in
 *     an eviction buffer until the CMP; from S, ownership is asked with RD_UPGRADE;
 *   - a BISNP is answered at once from the caches: with WR_IN_FLIGHT (flags bit 2) while an
 *     eviction (I kind, the evicted data when dirty) or a write-through (the line's data from
 *     E/M; BIRSP_I from S) is in flight. A BISNP that finds the CN waiting for the answer to its
 *     own read of the line is held until the answer is in (rule (b)): the waiting accesses are
 *     performed, then the snoop is answered from the cache. The exception: a BISNP_INV while the
 *     CN holds S and waits for its RD_UPGRADE is answered at once (BIRSP_I, the copy dropped); a
 *     CMP_E that comes afterwards is void and the CN asks again with RD_OWN;
 *   - write-through (store or rmw with wt on a remote line): the CN gets ownership, writes the
 *     core's L1 (commit), sends WT_WR with the written words (LNR_WR for an LNR line) and completes
 *     the access on its CMP; the line stays owned;
 *   - Large Non-coherent Region lines (outside [scr_lo, scr_hi)) are read with LNR_RD, cached
 *     without directory state, written back with LNR_WR on eviction or flush when dirty: the whole
 *     line, as real hardware does (so a CN's stale copy of a word another CN wrote goes back
 *     too), or with lnr_word_writeback only its dirty words (a per-word dirty mask is kept at
 *     every level); a clean one is dropped silently.
 *     An rmw on an LNR word works on the CN's copy, atomic only inside the CN: it is counted
 *     (cn_mem_lnr_rmws), and the system's check fails on any.
 * Versions (docs/architecture.md section 11b): every coherent line has a version (7 bits, kept with
 * the L3 line, so the L3 and the cores' copies share it), taken from the grant (DATA_E, DATA_S,
 * CMP_E), one more at every commit (a store entry whatever its word count, an rmw that writes),
 * reported to committed(), and sent with the data when ownership or dirty data leaves the CN
 * (DIRTY_EVICT, WT_WR, BIRSP_*_DATA). LNR and local lines have none: their commits report 0.
 * acquire() is a prefetch_x that answers when the core's L1 holds write permission.
 *
 * Local lines (addr_is_local) use the same hierarchy with local DRAM behind the L3, never the
 * fabric.
 *
 * Messages: the CN sends REQ, RWD and BIRSP through link->send while link->credits shows a credit
 * of the class (otherwise they wait, in order per class, for cn_mem_credit), and takes NDR, DRS
 * and BISNP through cn_mem_deliver, which consumes them at once (link->release). */
#ifndef CN_MEM_H
#define CN_MEM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/addr.h"
#include "base/config.h"
#include "base/kernel.h"
#include "base/stats.h"
#include "cn/mem_if.h"
#include "msg_defs.h"

/** Largest number of cores of a CN (the core field of a message has 4 bits). */
#define CN_MEM_MAX_CORES 16u

/** The CN's end of its fabric link. */
typedef struct cn_link {
    void *obj;
    unsigned (*credits)(void *obj, msg_class_t c); /* send credits held for class c */
    void (*send)(void *obj, const msg_t *m);       /* needs a credit */
    void (*release)(void *obj, msg_class_t c);     /* a delivered message of class c consumed */
} cn_link_t;

typedef struct cn_mem_params {
    unsigned cn, cores;         /* the CN's node id; cores (1 .. CN_MEM_MAX_CORES) */
    cfg_cache_t l1, l2, l3;     /* sizes, ways, round-trip hit latencies in core cycles */
    uint64_t core_freq_hz;
    uint64_t local_latency_ps, local_bytes;
    unsigned num_mn;            /* a power of two */
    uint64_t interleave_bytes;  /* a power of two, at least 64 */
    uint64_t scr_lo, scr_hi;    /* global line addresses */
    bool lnr_word_writeback;    /* a dirty LNR line writes back only its dirty words (mem.lnr_writeback =
                                   word); false: the whole line, as real hardware does */
    const char *name;           /* statistics prefix, e.g. "cn3.mem" */
    uint64_t seed;
    unsigned mutate;            /* CN_MUT_* bits: deliberate bugs for the tests; 0 */
} cn_mem_params_t;

/** Deliberate bugs (cn_mem_params_t.mutate), to show that the tests can fail. Never set in a run. */
enum {
    CN_MUT_HOLD_UPG_SNOOP = 1u << 0,    /* a BISNP_INV on an S copy whose upgrade waits is held, not answered */
    CN_MUT_NO_WIF = 1u << 1,            /* snoop answers never carry WR_IN_FLIGHT */
    CN_MUT_CMPE_ALWAYS_VALID = 1u << 2, /* a CMP_E after the S copy was snooped away is taken as a grant */
    CN_MUT_SNOOP_AT_ONCE_INSTALL = 1u << 3, /* a snoop overtaking the answer is answered BIRSP_I at once, and
                                               the answer is installed all the same */
    CN_MUT_VICTIM_LOSES_DIRTY = 1u << 4, /* an L3 victim's private copies are dropped without their data */
    CN_MUT_STORE_KEEPS_SHARERS = 1u << 5, /* a store leaves other cores' shared copies valid */
    CN_MUT_SILENT_CLEAN_DROP = 1u << 6, /* clean coherent victims leave without CLEAN_EVICT */
    CN_MUT_LNR_WRITE_ALL = 1u << 7,     /* with lnr_word_writeback: write-backs carry every word all the same */
    CN_MUT_DOWNGRADE_LOSES_DATA = 1u << 8, /* a downgrade inside the CN drops the owner's dirty words */
    CN_MUT_VERSION_NOT_KEPT = 1u << 9,  /* grants' versions are not taken and commits do not count */
};

typedef struct cn_mem cn_mem_t;

/** A CN's hierarchy; NULL with err filled (one line, at most 256 bytes) when the parameters are
 *  unusable. k, link and st must outlive it. */
cn_mem_t *cn_mem_create(kernel_t *k, const cn_mem_params_t *p, const cn_link_t *link, stats_t *st, char *err);
/** The interface the cores use (core index = 0 .. cores-1). */
const mem_if_t *cn_mem_if(cn_mem_t *c);
/** Fail-stop (its CN failed): from now on the hierarchy does nothing (no access goes on, nothing is
 *  sent, deliveries are ignored) and what its caches held is lost: cn_mem_peek finds nothing,
 *  cn_mem_idle is true. Its memory stays allocated until cn_mem_free. */
void cn_mem_fail(cn_mem_t *c);
/** fn(obj, core, gline, mask) for every store's write-through (WT_WR, LNR_WR) still waiting for its
 *  CMP: committed in the core's L1, not durable yet (a CN failing now may never have it reach
 *  memory). */
void cn_mem_wt_pending(const cn_mem_t *c, void (*fn)(void *obj, unsigned core, uint64_t gline, uint8_t mask),
                       void *obj);
/** fn(obj, gline, mask) for every line of the Large Non-coherent Region whose words this CN stored
 *  and memory may not have: dirty words of an LNR line in its caches, and LNR write-backs (flush or
 *  eviction) still waiting for their CMP. (Stores written through under WT: cn_mem_wt_pending.) */
void cn_mem_lnr_unwritten(const cn_mem_t *c, void (*fn)(void *obj, uint64_t gline, uint8_t mask), void *obj);
/** A message arrived on the link (NDR, DRS or BISNP for this CN); consumed at once
 *  (link->release). Other classes are not the hierarchy's: route them elsewhere (they are counted
 *  as unexpected and released). */
void cn_mem_deliver(cn_mem_t *c, const msg_t *m);
/** A send credit of class cls came back (call it after link->credits counts it): messages
 *  waiting for one leave, in order. */
void cn_mem_credit(cn_mem_t *c, msg_class_t cls);
/** Zero time: true and the word at addr when this CN holds the newest copy of the remote word
 *  (its line owned, E or M, anywhere in the CN; an LNR word dirty in it; or a write of it in
 *  flight whose data memory does not have yet), else false. */
bool cn_mem_peek(const cn_mem_t *c, uint64_t addr, uint64_t *v);
/** Zero time: cn_mem_peek of every word of the remote line at line_addr at once; bit w of the
 *  result set where v[w] is this CN's newest copy of word w. */
uint8_t cn_mem_peek_line(const cn_mem_t *c, uint64_t line_addr, uint64_t v[ADDR_WORDS_PER_LINE]);
/** Zero time: the word at local addr as the CN's cores see it (caches, else local DRAM). */
uint64_t cn_mem_local_peek(const cn_mem_t *c, uint64_t addr);
/** Zero time: writes the word at local addr in local DRAM and in every cached copy. */
void cn_mem_local_poke(cn_mem_t *c, uint64_t addr, uint64_t v);
/** Nothing in flight: no access, request, eviction, queued message or local DRAM access. */
bool cn_mem_idle(const cn_mem_t *c);
/** Read-modify-writes on words of the Large Non-coherent Region so far: performed on the CN's
 *  own copy, so atomic only inside this CN, never across CNs; the system's check fails on any
 *  (statistic `lnr_rmws`). */
uint64_t cn_mem_lnr_rmws(const cn_mem_t *c);
/** Prints what waits on what: lines with something in flight, their waiting accesses, held
 *  snoops, queued messages and credits. */
void cn_mem_dump(const cn_mem_t *c, FILE *f);
void cn_mem_free(cn_mem_t *c);

/* ---------------------------------------------------------------------------------------------
 * Inspection (tests and checkers). */

/** State of a line in the L3. */
typedef enum cn_l3_state {
    CN_L3_I = 0,  /* not held */
    CN_L3_PEND,   /* a way is reserved for the line, its data are on their way */
    CN_L3_S,      /* coherent line, shared */
    CN_L3_OWN,    /* coherent line, owned (E or M; dirty when the dirty mask is not 0) */
    CN_L3_NC,     /* LNR line, no coherence state */
    CN_L3_LOCAL,  /* local memory line */
} cn_l3_state_e;

/** What is in flight for a line. */
typedef enum cn_out {
    CN_OUT_NONE = 0,
    CN_OUT_RD_SHARED, CN_OUT_RD_OWN, CN_OUT_RD_UPGRADE, CN_OUT_LNR_RD, CN_OUT_LOCAL_RD,
    CN_OUT_CLEAN_EVICT, CN_OUT_DIRTY_EVICT, CN_OUT_LNR_EVICT, /* eviction or flush, until its CMP */
    CN_OUT_WT,                                               /* WT_WR or LNR_WR of a store, until its CMP */
    CN_OUT_NUM
} cn_out_e;

/** Private copy states. */
enum { CN_PV_I = 0, CN_PV_S = 1, CN_PV_X = 2 /* exclusive: E or M */ };

typedef struct cn_mem_probe {
    cn_l3_state_e l3;
    uint8_t dmask;                     /* words dirty toward memory (L3 and the owner's copies) */
    uint32_t pres;                     /* cores holding a private copy */
    int owner;                         /* core holding it exclusively, or -1 */
    uint8_t l1[CN_MEM_MAX_CORES], l2[CN_MEM_MAX_CORES]; /* CN_PV_* per core */
    uint64_t data[ADDR_WORDS_PER_LINE]; /* the CN's newest data (when l3 holds the line) */
    unsigned ver;                      /* the line's version (when l3 holds the line; 0 for LNR, local) */
    cn_out_e out;                      /* what is in flight */
    bool held;                         /* a snoop is held until the answer is in */
    unsigned waiting;                  /* accesses waiting for the line */
} cn_mem_probe_t;

/** Zero time: the line of addr as the CN holds it. */
void cn_mem_probe(const cn_mem_t *c, uint64_t addr, cn_mem_probe_t *p);
/** The coherent lines the CN's L3 holds (Fig. 15 at a failure): shared, and owned split into dirty
 *  (a word newer than memory in the L3 or a core's copy) and exclusive (clean). */
typedef struct cn_mem_census {
    uint64_t shared, dirty, exclusive;
} cn_mem_census_t;
void cn_mem_census(const cn_mem_t *c, cn_mem_census_t *out);
/** Name of a cn_out_e ("RD_OWN"). */
const char *cn_out_name(cn_out_e o);

#endif
