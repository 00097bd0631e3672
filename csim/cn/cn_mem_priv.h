/* The inside of one CN's memory system (cn_mem.h), shared by its parts and included only by them:
 *   cn_mem.c         creation, statistics, the mem_if the cores call;
 *   cn_mem_access.c  accesses from their call to their completion, lines in flight (MSHRs);
 *   cn_mem_cache.c   the private caches (L1 inside L2, both inside the L3), the L3's local
 *                    directory, evictions from the L3 and flushes;
 *   cn_mem_port.c    the port: sending with credits, the answers of memory;
 *   cn_mem_snoop.c   the directories' snoops (the CN's side of section 11c's contract);
 *   cn_mem_peek.c    zero-time access and inspection (peeks, probes, the dump).
 * Here: the state (struct cn_mem, accesses, lines in flight), small inline helpers that every
 * access goes through, and the functions one part calls in another. */
#ifndef CN_CN_MEM_PRIV_H
#define CN_CN_MEM_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "base/addr.h"
#include "cn/cache.h"
#include "cn/cn_mem.h"
#include "mem/dram.h"

#define W ADDR_WORDS_PER_LINE
#define NTAGS (1u << MSG_TAG_W)
#define LT_BUCKETS 256u
#define VER_MASK ((1u << MSG_TS_W) - 1)

/* Accesses. */
enum { K_LOAD, K_STORE, K_RMW, K_PREFETCH, K_FLUSH, K_NUM };
/* Kinds of lines. */
enum { LK_SCR, LK_LNR, LK_LOCAL };

/* The names of the kinds of accesses (statistics, dumps). */
extern const char *const cn_mem_kind_name[K_NUM];

/* One access from a core, from its call to its completion. */
typedef struct op {
    struct op *next;         /* in a line's waiting list or its flushers */
    struct op *aprev, *anext; /* every live access (dumps, free) */
    int kind;
    unsigned core;
    uint64_t addr, key;
    uint8_t mask;
    uint64_t words[W];
    bool wt;
    mem_rmw_e rop;
    uint64_t a, b;
    mem_done_fn done;
    mem_commit_fn committed;
    mem_gate_fn gate; /* store_gated: asked before the commit until store_go */
    mem_rmw_gate_fn rgate; /* rmw_gated: asked before the write */
    uint64_t nv;      /* rmw_gated, pinned: the word it will write */
    void *dobj;
    uint64_t tag;
    uint64_t t_call;
    bool missed;  /* counted as a miss (went to memory) */
    bool counted; /* counted in the level statistics (a parked store goes on without a second count) */
    int lvl;     /* level its lookup found (1 L1, 2 L2, 3 L3 or beyond) */
    uint64_t old; /* rmw: the old word, given to done after a write-through's CMP */
} op_t;

/* A line with something in flight or waiting: the port's MSHR / eviction buffer / write-through
 * entry for the line, and the accesses that wait for it. */
typedef struct lt {
    struct lt *hnext, *anext; /* hash chain; list of lines waiting for an L3 way */
    uint64_t key;
    int lk;
    cn_out_e out;
    uint16_t tag;
    uint8_t core;
    uint64_t t_out;
    bool upg_lost;   /* the S copy was snooped away while the upgrade waited: a CMP_E is void */
    bool has_held;   /* a snoop held until the answer to the read is in, or until the pin ends */
    bool pinned;     /* an rmw_gated holds the line between its read and its write */
    bool ev_snooped; /* a snoop was answered from the eviction buffer: memory has the data */
    bool alloc_wait; /* waits for an L3 way (every way of the set busy) */
    msg_t held;
    uint64_t buf[W]; /* eviction buffer, or the words of a write-through */
    uint8_t bmask;
    uint8_t bver;    /* the line's version sent with a DIRTY_EVICT or WT_WR (section 11b) */
    op_t *wt_op;     /* the store or rmw whose write-through is out */
    op_t *flushers;  /* flushes that complete with this eviction's CMP */
    op_t *wq, *wq_tail; /* accesses waiting for the line, in arrival order */
} lt_t;

typedef struct sendq {
    msg_t *m;
    size_t head, n, cap;
} sendq_t;

typedef struct cn_stats {
    uint64_t *acc[K_NUM];
    uint64_t *l1_hits, *l1_misses, *l2_hits, *l2_misses, *l3_hits, *l3_misses;
    uint64_t *c_l1_hits[CN_MEM_MAX_CORES], *c_l1_misses[CN_MEM_MAX_CORES];
    uint64_t *c_l2_hits[CN_MEM_MAX_CORES], *c_l2_misses[CN_MEM_MAX_CORES];
    uint64_t *tx[MSG_NUM_MSGS], *rx[MSG_NUM_MSGS];
    uint64_t *pins, *sn_pinned, *lnr_rmws, *parked_lost;
    uint64_t *sn_held, *sn_wif, *sn_upg_lost, *sn_void_cmpe, *sn_unexpected, *rx_unexpected;
    uint64_t *ev_clean, *ev_dirty, *ev_lnr, *ev_lnr_silent, *ev_local, *ev_l1, *ev_l2;
    uint64_t *wts, *merges, *alloc_waits, *upgrades_local;
    stats_hist_t *miss_ns;
    uint64_t sink; /* counts messages the CN neither sends nor takes (no statistic) */
} cn_stats_t;

struct cn_mem {
    kernel_t *k;
    cn_mem_params_t p;
    cn_link_t link;
    char name[96];
    clock_domain_t clk;
    mem_if_t mif;
    op_t **parked; /* per core: its store_gated whose gate said wait, or its pinned rmw_gated */
    bool failed;   /* fail-stop (cn_mem_fail) */
    cache_t *l1[CN_MEM_MAX_CORES], *l2[CN_MEM_MAX_CORES], *l3;
    /* The version of each L3 line (docs/architecture.md section 11b), beside the L3's array: an
     * inclusive L3 holds every line a core holds, so one version per L3 line serves the L3 and
     * its private copies. Coherent lines only; LNR and local lines keep 0. */
    uint8_t *l3ver;
    dram_t *dram;
    unsigned mn_shift, gran_shift;
    lt_t *bucket[LT_BUCKETS];
    unsigned nlt;
    lt_t *by_tag[NTAGS];
    unsigned next_tag;
    lt_t *alloc_head;
    sendq_t q[MSG_NUM_CLASSES];
    op_t *ops;
    op_t *free_ops; /* finished accesses, kept for the next ones (linked by anext) */
    uint64_t nops;
    cn_stats_t s;
};

/* ---------------------------------------------------------------------------------------------
 * Small helpers, inline in every part (an access goes through them several times) */

static inline int line_kind(const cn_mem_t *c, uint64_t key)
{
    if (addr_is_local(key))
        return LK_LOCAL;
    uint64_t g = addr_gline(key);
    return g >= c->p.scr_lo && g < c->p.scr_hi ? LK_SCR : LK_LNR;
}

static inline uint64_t local_dline(uint64_t key) { return (key - ADDR_LOCAL_BASE) / ADDR_LINE_BYTES; }

/* The L3 line of key when it holds data (not a way reserved for a fill). */
static inline cache_line_t *l3_line(const cn_mem_t *c, uint64_t key)
{
    cache_line_t *L = cache_find(c->l3, key);
    return L && L->state >= CN_L3_S ? L : NULL;
}

/* The version of L3 line L. */
static inline uint8_t *l3_ver(const cn_mem_t *c, const cache_line_t *L) { return &c->l3ver[L - c->l3->line]; }

static inline unsigned lt_hash(uint64_t key)
{
    uint64_t h = (key >> 6) * 0x9e3779b97f4a7c15ull;
    return (unsigned)(h >> 40) % LT_BUCKETS;
}

/* The line in flight of key, or NULL. */
static inline lt_t *lt_find(const cn_mem_t *c, uint64_t key)
{
    for (lt_t *t = c->bucket[lt_hash(key)]; t; t = t->hnext)
        if (t->key == key)
            return t;
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Accesses and lines in flight (cn_mem_access.c) */

/** The line in flight of key, made when there is none. */
lt_t *cn_mem_lt_get(cn_mem_t *c, uint64_t key);
/** A new access of kind K_* from core to addr, counted. */
op_t *cn_mem_op_new(cn_mem_t *c, int kind, unsigned core, uint64_t addr);
/** o completes with value v: its done is called, o is freed. */
void cn_mem_op_done(cn_mem_t *c, op_t *o, uint64_t v);
/** o's lookup in its core's caches: it is performed after its level's round trip. */
void cn_mem_op_start(cn_mem_t *c, op_t *o);
/** o's lookup is done cycles core cycles from now (the next edge for 0). */
void cn_mem_op_schedule(cn_mem_t *c, op_t *o, uint64_t cycles);
/** The write of an rmw o that read old and writes nv into the core's L1 line a (L3 line L). */
void cn_mem_rmw_write(cn_mem_t *c, op_t *o, cache_line_t *a, cache_line_t *L, uint64_t old, uint64_t nv);
/** Performs the waiting accesses of t that can be performed (flushes too when with_flush). */
void cn_mem_run_waiters(cn_mem_t *c, lt_t *t, bool with_flush);
/** Something changed for line t: perform what can be, then ask memory for what the rest needs. */
void cn_mem_line_kick(cn_mem_t *c, lt_t *t);
/** Lines that waited for an L3 way try again. */
void cn_mem_retry_alloc(cn_mem_t *c);

/* ---------------------------------------------------------------------------------------------
 * Private caches, the L3's local directory, evictions (cn_mem_cache.c) */

/** Core's copies of L invalidated, their dirty data in L. */
void cn_mem_pv_inval(cn_mem_t *c, unsigned core, cache_line_t *L);
/** Core's copies of L shared, their dirty data in L. */
void cn_mem_pv_downgrade(cn_mem_t *c, unsigned core, cache_line_t *L);
/** Gives the core copies of L in its L2 and L1 in state st (at least). */
void cn_mem_pv_install(cn_mem_t *c, unsigned core, cache_line_t *L, uint8_t st);
/** Every private copy of L invalidated, dirty data in L. */
void cn_mem_l3_inval_all(cn_mem_t *c, cache_line_t *L);
/** The private owner of L (if any) keeps a shared copy; dirty data in L. */
void cn_mem_l3_downgrade_all(cn_mem_t *c, cache_line_t *L);
/** Line L leaves the L3 (a victim, or flushed by fop); true when fop completes later. */
bool cn_mem_l3_evict(cn_mem_t *c, cache_line_t *L, op_t *fop);
/** A way of the L3 for line t (its own if it has one), or NULL when every way of the set is busy. */
cache_line_t *cn_mem_l3_reserve(cn_mem_t *c, lt_t *t);

/* ---------------------------------------------------------------------------------------------
 * The port (cn_mem_port.c) and snoops (cn_mem_snoop.c) */

/** Sends m now, or queues it until its class has a credit. */
void cn_mem_port_send(cn_mem_t *c, msg_t *m);
/** Sends the request t->out for line t: a new tag; the data of writes from t->buf / t->bmask. */
void cn_mem_send_req(cn_mem_t *c, lt_t *t, msg_op_t opc, unsigned core);
/** The local DRAM's answer to the read of line t (tag): a dram_done_fn. */
void cn_mem_local_fill(void *obj, uint64_t tag, const uint64_t *line);
/** Answers (or holds) a BISNP. */
void cn_mem_snoop(cn_mem_t *c, const msg_t *m);

#endif
