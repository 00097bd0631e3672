#include "cn/cn_mem.h"

#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cn/addr.h"
#include "cn/cache.h"
#include "dir_defs.h"
#include "mem/dram.h"

#define W ADDR_WORDS_PER_LINE
#define NTAGS (1u << MSG_TAG_W)
#define LT_BUCKETS 256u

/* Accesses. */
enum { K_LOAD, K_STORE, K_RMW, K_PREFETCH, K_FLUSH, K_NUM };
static const char *const k_name[K_NUM] = {"load", "store", "rmw", "prefetch_x", "flush"};
/* Kinds of lines. */
enum { LK_SCR, LK_LNR, LK_LOCAL };

static const char *const out_names[CN_OUT_NUM] = {
    "-", "RD_SHARED", "RD_OWN", "RD_UPGRADE", "LNR_RD", "LOCAL_RD", "CLEAN_EVICT", "DIRTY_EVICT", "LNR_EVICT", "WT",
};
static const char *const l3_names[] = {"I", "PEND", "S", "OWN", "NC", "LOCAL"};

const char *cn_out_name(cn_out_e o) { return o < CN_OUT_NUM ? out_names[o] : "?"; }

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
 * Small helpers */

static int line_kind(const cn_mem_t *c, uint64_t key)
{
    if (addr_is_local(key))
        return LK_LOCAL;
    uint64_t g = addr_gline(key);
    return g >= c->p.scr_lo && g < c->p.scr_hi ? LK_SCR : LK_LNR;
}

static uint64_t local_dline(uint64_t key) { return (key - ADDR_LOCAL_BASE) / ADDR_LINE_BYTES; }

/* The L3 line of key when it holds data (not a way reserved for a fill). */
static cache_line_t *l3_line(const cn_mem_t *c, uint64_t key)
{
    cache_line_t *L = cache_find(c->l3, key);
    return L && L->state >= CN_L3_S ? L : NULL;
}

#define VER_MASK ((1u << MSG_TS_W) - 1)

/* The version of L3 line L. */
static uint8_t *l3_ver(const cn_mem_t *c, const cache_line_t *L) { return &c->l3ver[L - c->l3->line]; }

/* A commit to L (a store entry, whatever its word count, or an rmw that writes): a coherent line's
 * version goes one up; returns the new one (0 for LNR and local lines, which have none). */
static unsigned commit_version(const cn_mem_t *c, const cache_line_t *L)
{
    if (L->state != CN_L3_OWN)
        return 0;
    uint8_t *v = l3_ver(c, L);
    if (!(c->p.mutate & CN_MUT_VERSION_NOT_KEPT))
        *v = (uint8_t)((*v + 1) & VER_MASK);
    return *v;
}

/* May a core get write permission from this L3 line without asking anyone? */
static bool ownable(const cache_line_t *L) { return L->state != CN_L3_S; }

static uint64_t rmw_new(const op_t *o, uint64_t old, bool *writes)
{
    switch (o->rop) {
    case MEM_RMW_CAS:
        *writes = old == o->a;
        return *writes ? o->b : old;
    case MEM_RMW_FADD:
        *writes = true;
        return old + o->a;
    case MEM_RMW_SWAP:
    default:
        *writes = true;
        return o->a;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Lines in flight */

static unsigned lt_hash(uint64_t key)
{
    uint64_t h = (key >> 6) * 0x9e3779b97f4a7c15ull;
    return (unsigned)(h >> 40) % LT_BUCKETS;
}

static lt_t *lt_find(const cn_mem_t *c, uint64_t key)
{
    for (lt_t *t = c->bucket[lt_hash(key)]; t; t = t->hnext)
        if (t->key == key)
            return t;
    return NULL;
}

static lt_t *lt_get(cn_mem_t *c, uint64_t key)
{
    lt_t *t = lt_find(c, key);
    if (t)
        return t;
    t = calloc(1, sizeof *t);
    if (!t)
        abort();
    t->key = key;
    t->lk = line_kind(c, key);
    unsigned b = lt_hash(key);
    t->hnext = c->bucket[b];
    c->bucket[b] = t;
    c->nlt++;
    return t;
}

static void lt_maybe_free(cn_mem_t *c, lt_t *t)
{
    if (t->out != CN_OUT_NONE || t->wq || t->has_held || t->alloc_wait || t->flushers || t->wt_op || t->pinned)
        return;
    lt_t **pp = &c->bucket[lt_hash(t->key)];
    while (*pp != t)
        pp = &(*pp)->hnext;
    *pp = t->hnext;
    c->nlt--;
    free(t);
}

static void lt_enqueue(lt_t *t, op_t *o)
{
    o->next = NULL;
    if (t->wq_tail)
        t->wq_tail->next = o;
    else
        t->wq = o;
    t->wq_tail = o;
}

static bool is_read(cn_out_e o) { return o >= CN_OUT_RD_SHARED && o <= CN_OUT_LOCAL_RD; }

/* ---------------------------------------------------------------------------------------------
 * Accesses */

static op_t *op_new(cn_mem_t *c, int kind, unsigned core, uint64_t addr)
{
    assert(core < c->p.cores);
    assert(addr_aligned(addr));
    assert(!addr_is_local(addr) || addr - ADDR_LOCAL_BASE < c->p.local_bytes);
    op_t *o = c->free_ops;
    if (o) {
        c->free_ops = o->anext;
        memset(o, 0, sizeof *o);
    } else if (!(o = calloc(1, sizeof *o))) {
        abort();
    }
    o->kind = kind;
    o->core = core;
    o->addr = addr;
    o->key = addr_line(addr);
    o->t_call = c->k->now;
    o->anext = c->ops;
    if (c->ops)
        c->ops->aprev = o;
    c->ops = o;
    c->nops++;
    (*c->s.acc[kind])++;
    return o;
}

static void op_free(cn_mem_t *c, op_t *o)
{
    if (o->aprev)
        o->aprev->anext = o->anext;
    else
        c->ops = o->anext;
    if (o->anext)
        o->anext->aprev = o->aprev;
    c->nops--;
    o->anext = c->free_ops;
    c->free_ops = o;
}

static void op_done(cn_mem_t *c, op_t *o, uint64_t v)
{
    if (o->missed)
        stats_hist_add(c->s.miss_ns, (c->k->now - o->t_call) / PS_PER_NS);
    mem_done_fn done = o->done;
    void *dobj = o->dobj;
    uint64_t tag = o->tag;
    op_free(c, o);
    if (done)
        done(dobj, tag, v);
}

/* ---------------------------------------------------------------------------------------------
 * The port: sending with credits */

static void sq_push(sendq_t *q, const msg_t *m)
{
    if (q->head + q->n == q->cap) {
        if (q->head) {
            memmove(q->m, q->m + q->head, q->n * sizeof *q->m);
            q->head = 0;
        } else {
            q->cap = q->cap ? 2 * q->cap : 8;
            q->m = realloc(q->m, q->cap * sizeof *q->m);
            if (!q->m)
                abort();
        }
    }
    q->m[q->head + q->n++] = *m;
}

static void port_send(cn_mem_t *c, msg_t *m)
{
    m->src = (uint8_t)c->p.cn;
    const char *why = msg_check(m);
    if (why) {
        fprintf(stderr, "%s: would send a malformed %s: %s\n", c->name, msg_name(m->opcode), why);
        abort();
    }
    (*c->s.tx[m->opcode])++;
    msg_class_t cls = msg_class(m->opcode);
    sendq_t *q = &c->q[cls];
    if (!q->n && c->link.credits(c->link.obj, cls) > 0)
        c->link.send(c->link.obj, m);
    else
        sq_push(q, m);
}

void cn_mem_credit(cn_mem_t *c, msg_class_t cls)
{
    if (c->failed)
        return; /* fail-stop: a failed CN's hierarchy does nothing more, its contents are lost */
    sendq_t *q = &c->q[cls];
    while (q->n && c->link.credits(c->link.obj, cls) > 0) {
        msg_t m = q->m[q->head++];
        q->n--;
        if (!q->n)
            q->head = 0;
        c->link.send(c->link.obj, &m);
    }
}

static unsigned home_of(const cn_mem_t *c, uint64_t key)
{
    return MSG_MN_BASE + dir_addr_mn(addr_gline(key), c->mn_shift, c->gran_shift);
}

static uint16_t tag_alloc(cn_mem_t *c, lt_t *t)
{
    for (;;) {
        unsigned tag = c->next_tag;
        c->next_tag = (c->next_tag + 1) % NTAGS;
        if (!c->by_tag[tag]) {
            c->by_tag[tag] = t;
            return (uint16_t)tag;
        }
    }
}

/* Sends the request t->out for line t: a new tag; the data of writes from t->buf / t->bmask. */
static void send_req(cn_mem_t *c, lt_t *t, msg_op_t opc, unsigned core)
{
    t->tag = tag_alloc(c, t);
    t->core = (uint8_t)core;
    t->t_out = c->k->now;
    msg_t m = {.opcode = opc, .dst = (uint8_t)home_of(c, t->key), .core = (uint8_t)core, .tag = t->tag,
               .addr = addr_gline(t->key)};
    if (opc == OP_DIRTY_EVICT || opc == OP_WT_WR)
        m.ts = t->bver;
    if (msg_data_kind(opc) != MSG_DATA_NONE) {
        m.mask = t->bmask;
        for (unsigned w = 0; w < W; w++)
            if (t->bmask >> w & 1)
                m.data[w] = t->buf[w];
    }
    port_send(c, &m);
}

/* ---------------------------------------------------------------------------------------------
 * Private caches (L1 inside L2, both inside the L3) and the L3's local directory */

static void pv_evict_l1(cn_mem_t *c, unsigned core, cache_line_t *a)
{
    if (a->dmask) {
        cache_line_t *b = cache_find(c->l2[core], a->key);
        assert(b);
        memcpy(b->data, a->data, sizeof b->data);
        b->dmask |= a->dmask;
    }
    cache_invalidate(a);
    (*c->s.ev_l1)++;
}

/* An L2 victim leaves the core: its L1 copy with it, dirty data to the L3. */
static void pv_evict_l2(cn_mem_t *c, unsigned core, cache_line_t *b)
{
    cache_line_t *a = cache_find(c->l1[core], b->key);
    if (a)
        pv_evict_l1(c, core, a);
    cache_line_t *L = l3_line(c, b->key);
    assert(L);
    if (b->dmask) {
        memcpy(L->data, b->data, sizeof L->data);
        L->dmask |= b->dmask;
    }
    L->pres &= ~(1u << core);
    if (L->owner == (int)core)
        L->owner = -1;
    cache_invalidate(b);
    (*c->s.ev_l2)++;
}

/* Moves the core's newest data of line L into the L3 (its copies become clean). */
static void pv_gather(cn_mem_t *c, unsigned core, cache_line_t *L)
{
    cache_line_t *a = cache_find(c->l1[core], L->key), *b = cache_find(c->l2[core], L->key);
    if (a && a->dmask) {
        assert(b);
        memcpy(b->data, a->data, sizeof b->data);
        b->dmask |= a->dmask;
        a->dmask = 0;
    }
    if (b && b->dmask) {
        memcpy(L->data, b->data, sizeof L->data);
        L->dmask |= b->dmask;
        b->dmask = 0;
    }
}

static void pv_inval(cn_mem_t *c, unsigned core, cache_line_t *L)
{
    pv_gather(c, core, L);
    cache_line_t *a = cache_find(c->l1[core], L->key), *b = cache_find(c->l2[core], L->key);
    if (a)
        cache_invalidate(a);
    if (b)
        cache_invalidate(b);
    L->pres &= ~(1u << core);
    if (L->owner == (int)core)
        L->owner = -1;
}

static void pv_downgrade(cn_mem_t *c, unsigned core, cache_line_t *L)
{
    if (c->p.mutate & CN_MUT_DOWNGRADE_LOSES_DATA) {
        cache_line_t *x = cache_find(c->l1[core], L->key), *y = cache_find(c->l2[core], L->key);
        if (x)
            x->dmask = 0;
        if (y)
            y->dmask = 0;
    }
    pv_gather(c, core, L);
    cache_line_t *a = cache_find(c->l1[core], L->key), *b = cache_find(c->l2[core], L->key);
    if (a)
        a->state = CN_PV_S;
    if (b)
        b->state = CN_PV_S;
    if (L->owner == (int)core)
        L->owner = -1;
}

/* Every private copy of L invalidated, dirty data in L. */
static void l3_inval_all(cn_mem_t *c, cache_line_t *L)
{
    for (unsigned i = 0; i < c->p.cores; i++)
        if (L->pres >> i & 1)
            pv_inval(c, i, L);
    assert(!L->pres && L->owner < 0);
}

/* The private owner of L (if any) keeps a shared copy; dirty data in L. */
static void l3_downgrade_all(cn_mem_t *c, cache_line_t *L)
{
    if (L->owner >= 0)
        pv_downgrade(c, (unsigned)L->owner, L);
}

/* Gives the core copies of L in its L2 and L1 in state st (at least): existing copies keep their
 * data (they are the core's newest), new ones are filled from the L3 (victims leave first). */
static void pv_install(cn_mem_t *c, unsigned core, cache_line_t *L, uint8_t st)
{
    cache_t *c1 = c->l1[core], *c2 = c->l2[core];
    cache_line_t *b = cache_find(c2, L->key);
    if (!b) {
        b = cache_victim(c2, L->key, NULL, NULL);
        if (b->valid)
            pv_evict_l2(c, core, b);
        cache_install(c2, b, L->key);
        memcpy(b->data, L->data, sizeof b->data);
    }
    if (st > b->state)
        b->state = st;
    cache_touch(c2, b);
    cache_line_t *a = cache_find(c1, L->key);
    if (!a) {
        a = cache_victim(c1, L->key, NULL, NULL);
        if (a->valid)
            pv_evict_l1(c, core, a);
        cache_install(c1, a, L->key);
        memcpy(a->data, b->data, sizeof a->data);
    }
    a->state = b->state;
    cache_touch(c1, a);
    L->pres |= 1u << core;
    if (b->state == CN_PV_X)
        L->owner = (int8_t)core;
}

/* The core's newest word w of L (const: peeks and probes). */
static uint64_t newest_word(const cn_mem_t *c, const cache_line_t *L, unsigned w, uint8_t *dmask)
{
    uint8_t dm = L->dmask;
    uint64_t v = L->data[w];
    if (L->owner >= 0) {
        const cache_line_t *a = cache_find(c->l1[L->owner], L->key), *b = cache_find(c->l2[L->owner], L->key);
        if (b) {
            dm |= b->dmask;
            v = b->data[w];
        }
        if (a) {
            dm |= a->dmask;
            v = a->data[w];
        }
    }
    if (dmask)
        *dmask = dm;
    return v;
}

/* ---------------------------------------------------------------------------------------------
 * Evictions from the L3 and flushes */

static void nop_dram_done(void *obj, uint64_t tag, const uint64_t *line)
{
    (void)obj, (void)tag, (void)line;
}

static void flush_dram_done(void *obj, uint64_t tag, const uint64_t *line)
{
    (void)line;
    cn_mem_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's hierarchy does nothing more, its contents are lost */
    op_done(c, (op_t *)(uintptr_t)tag, 0);
}

/* Line L leaves the L3 (a victim, or flushed by fop): private copies first (inclusion), then the
 * line goes to its memory when dirty, or is announced (coherent lines). Returns true when fop
 * completes later (with the write's CMP or the DRAM write), false when it is complete. */
static bool l3_evict(cn_mem_t *c, cache_line_t *L, op_t *fop)
{
    if (c->p.mutate & CN_MUT_VICTIM_LOSES_DIRTY)
        for (unsigned i = 0; i < c->p.cores; i++) {
            cache_line_t *x = cache_find(c->l1[i], L->key), *y = cache_find(c->l2[i], L->key);
            if (x)
                x->dmask = 0;
            if (y)
                y->dmask = 0;
        }
    l3_inval_all(c, L);
    uint64_t key = L->key;
    bool later = false;
    switch (L->state) {
    case CN_L3_LOCAL:
        (*c->s.ev_local)++;
        if (L->dmask) {
            dram_write(c->dram, local_dline(key), L->dmask, L->data, fop ? flush_dram_done : nop_dram_done, c,
                       (uintptr_t)fop);
            later = fop != NULL;
        }
        break;
    case CN_L3_NC:
        if (L->dmask) {
            lt_t *t = lt_get(c, key);
            assert(t->out == CN_OUT_NONE);
            t->out = CN_OUT_LNR_EVICT;
            memcpy(t->buf, L->data, sizeof t->buf);
            t->bmask = !c->p.lnr_word_writeback || (c->p.mutate & CN_MUT_LNR_WRITE_ALL) ? 0xff : L->dmask;
            send_req(c, t, OP_LNR_WR, fop ? fop->core : 0);
            (*c->s.ev_lnr)++;
            if (fop) {
                fop->next = t->flushers;
                t->flushers = fop;
                later = true;
            }
        } else {
            (*c->s.ev_lnr_silent)++;
        }
        break;
    case CN_L3_S:
    case CN_L3_OWN: {
        if ((c->p.mutate & CN_MUT_SILENT_CLEAN_DROP) && !L->dmask && !fop)
            break;
        lt_t *t = lt_get(c, key);
        assert(t->out == CN_OUT_NONE);
        bool dirty = L->dmask != 0;
        t->out = dirty ? CN_OUT_DIRTY_EVICT : CN_OUT_CLEAN_EVICT;
        t->ev_snooped = false;
        memcpy(t->buf, L->data, sizeof t->buf);
        t->bmask = 0xff;
        t->bver = *l3_ver(c, L);
        send_req(c, t, dirty ? OP_DIRTY_EVICT : OP_CLEAN_EVICT, fop ? fop->core : 0);
        (*(dirty ? c->s.ev_dirty : c->s.ev_clean))++;
        if (fop) {
            fop->next = t->flushers;
            t->flushers = fop;
        }
        later = fop != NULL;
        break;
    }
    default:
        assert(0);
    }
    cache_invalidate(L);
    return later;
}

/* Lines that may not leave the L3 now: a way reserved for a fill, or something in flight. */
static bool l3_busy(void *arg, const cache_line_t *l)
{
    const cn_mem_t *c = arg;
    if (l->state == CN_L3_PEND)
        return true;
    const lt_t *t = lt_find(c, l->key);
    return t && (t->out != CN_OUT_NONE || t->wq || t->has_held || t->pinned);
}

/* A way of the L3 for line t (its own if it has one), or NULL when every way of the set is busy. */
static cache_line_t *l3_reserve(cn_mem_t *c, lt_t *t)
{
    cache_line_t *L = cache_find(c->l3, t->key);
    if (L)
        return L;
    L = cache_victim(c->l3, t->key, l3_busy, c);
    if (!L)
        return NULL;
    if (L->valid)
        l3_evict(c, L, NULL);
    cache_install(c->l3, L, t->key);
    L->state = CN_L3_PEND;
    return L;
}

/* ---------------------------------------------------------------------------------------------
 * Performing accesses */

static void start_wt(cn_mem_t *c, op_t *o, uint8_t mask, const uint64_t *vals)
{
    lt_t *t = lt_get(c, o->key);
    assert(t->out == CN_OUT_NONE);
    t->out = CN_OUT_WT;
    t->wt_op = o;
    t->bmask = mask;
    const cache_line_t *L = l3_line(c, o->key);
    t->bver = L ? *l3_ver(c, L) : 0;
    memset(t->buf, 0, sizeof t->buf);
    for (unsigned w = 0; w < W; w++)
        if (mask >> w & 1)
            t->buf[w] = vals[w];
    send_req(c, t, t->lk == LK_SCR ? OP_WT_WR : OP_LNR_WR, o->core);
    (*c->s.wts)++;
}

/* Writes the masked words into the core's L1 (a: its line). A write-through writes them into the
 * core's L2 and the L3 as well and leaves them clean: the WT_WR / LNR_WR carries them to memory. */
static void write_words(cn_mem_t *c, const op_t *o, cache_line_t *a, cache_line_t *L, uint8_t mask,
                        const uint64_t *vals, bool wt)
{
    for (unsigned w = 0; w < W; w++)
        if (mask >> w & 1)
            a->data[w] = vals[w];
    if (!wt) {
        a->dmask |= mask;
        return;
    }
    cache_line_t *b = cache_find(c->l2[o->core], o->key);
    assert(b);
    for (unsigned w = 0; w < W; w++)
        if (mask >> w & 1)
            b->data[w] = L->data[w] = vals[w];
    a->dmask &= (uint8_t)~mask;
    b->dmask &= (uint8_t)~mask;
    L->dmask &= (uint8_t)~mask;
}

static void count_level(cn_mem_t *c, unsigned core, int lvl)
{
    cn_stats_t *s = &c->s;
    if (lvl == 1) {
        (*s->l1_hits)++, (*s->c_l1_hits[core])++;
        return;
    }
    (*s->l1_misses)++, (*s->c_l1_misses[core])++;
    if (lvl == 2) {
        (*s->l2_hits)++, (*s->c_l2_hits[core])++;
        return;
    }
    (*s->l2_misses)++, (*s->c_l2_misses[core])++;
    if (lvl == 3)
        (*s->l3_hits)++;
    else
        (*s->l3_misses)++;
}

/* Can o be performed now, inside the CN? */
static bool can_perform(const cn_mem_t *c, const op_t *o, const lt_t *t)
{
    const cache_line_t *L = l3_line(c, o->key);
    if (!L || (t && t->pinned))
        return false; /* absent, or another core's rmw holds it between its read and its write */
    if (o->kind == K_LOAD)
        return true;
    if (!ownable(L))
        return false;
    /* One write-through per line at a time: a second waits for the first one's CMP. */
    return !(o->wt && t && t->out != CN_OUT_NONE);
}

/* The write of an rmw o that read old and writes nv into the core's L1 line a (L3 line L). */
static void rmw_write(cn_mem_t *c, op_t *o, cache_line_t *a, cache_line_t *L, uint64_t old, uint64_t nv)
{
    unsigned w = addr_word(o->addr);
    uint64_t vals[W] = {0};
    vals[w] = nv;
    write_words(c, o, a, L, (uint8_t)(1u << w), vals, o->wt);
    unsigned ver = commit_version(c, L);
    if (o->committed)
        o->committed(o->dobj, o->tag, nv, ver);
    if (o->wt) {
        o->old = old;
        start_wt(c, o, (uint8_t)(1u << w), vals);
    } else {
        op_done(c, o, old);
    }
}

/* Performs o (can_perform holds): the CN's internal coherence actions at the L3, then the access
 * on the core's L1, all at this moment. */
static void perform(cn_mem_t *c, op_t *o)
{
    unsigned core = o->core;
    cache_line_t *L = l3_line(c, o->key);
    cache_line_t *a = cache_find(c->l1[core], o->key), *b = cache_find(c->l2[core], o->key);
    bool need_x = o->kind != K_LOAD;
    int lvl = a && (!need_x || a->state == CN_PV_X) ? 1 : b && (!need_x || b->state == CN_PV_X) ? 2 : 3;
    if (!o->missed && !o->counted)
        count_level(c, core, lvl);
    o->counted = true;
    if (lvl == 3) {
        if (need_x) {
            for (unsigned i = 0; i < c->p.cores; i++)
                if (i != core && (L->pres >> i & 1) &&
                    !((c->p.mutate & CN_MUT_STORE_KEEPS_SHARERS) && L->owner != (int)i))
                    pv_inval(c, i, L);
            if (b)
                (*c->s.upgrades_local)++;
            pv_install(c, core, L, CN_PV_X);
        } else {
            if (L->owner >= 0 && L->owner != (int)core)
                pv_downgrade(c, (unsigned)L->owner, L);
            bool alone = !(L->pres & ~(1u << core));
            pv_install(c, core, L, alone && ownable(L) ? CN_PV_X : CN_PV_S);
        }
    } else {
        pv_install(c, core, L, lvl == 1 ? a->state : b->state);
    }
    cache_touch(c->l3, L);
    a = cache_find(c->l1[core], o->key);
    assert(a && (!need_x || a->state == CN_PV_X));
    unsigned w = addr_word(o->addr);
    switch (o->kind) {
    case K_LOAD:
        op_done(c, o, a->data[w]);
        return;
    case K_PREFETCH:
        op_done(c, o, 0);
        return;
    case K_STORE:
        if (o->gate && !o->gate(o->dobj, o->tag)) {
            assert(!c->parked[core]);
            c->parked[core] = o; /* the permission stays in L1 but is not held: snoops take it */
            return;
        }
        write_words(c, o, a, L, o->mask, o->words, o->wt);
        unsigned ver = commit_version(c, L);
        if (o->committed)
            o->committed(o->dobj, o->tag, 0, ver);
        if (o->wt)
            start_wt(c, o, o->mask, o->words);
        else
            op_done(c, o, 0);
        return;
    case K_RMW: {
        uint64_t old = a->data[w];
        bool writes;
        uint64_t nv = rmw_new(o, old, &writes);
        if (!writes) {
            op_done(c, o, old);
            return;
        }
        if (o->rgate && !o->rgate(o->dobj, o->tag, nv)) {
            /* Pinned until store_go: snoops held, the line kept, the other cores wait. */
            lt_get(c, o->key)->pinned = true;
            assert(!c->parked[core]);
            c->parked[core] = o;
            o->old = old;
            o->nv = nv;
            (*c->s.pins)++;
            return;
        }
        rmw_write(c, o, a, L, old, nv);
        return;
    }
    default:
        assert(0);
    }
}

/* A flush whose line has nothing in flight: write back and drop, or complete at once. */
static void do_flush(cn_mem_t *c, op_t *o)
{
    cache_line_t *L = l3_line(c, o->key);
    if (!L || !l3_evict(c, L, o))
        op_done(c, o, 0);
}

static void start_request(cn_mem_t *c, lt_t *t);

/* Performs the waiting accesses of t that can be performed, in arrival order; flushes too when
 * with_flush (a flush needs nothing in flight). The others stay, in order. */
static void run_waiters(cn_mem_t *c, lt_t *t, bool with_flush)
{
    op_t *o = t->wq, *keep = NULL, *keep_tail = NULL;
    t->wq = t->wq_tail = NULL;
    while (o) {
        op_t *next = o->next;
        o->next = NULL;
        bool go = o->kind == K_FLUSH ? with_flush && t->out == CN_OUT_NONE && !t->pinned : can_perform(c, o, t);
        if (go && o->kind == K_FLUSH)
            do_flush(c, o);
        else if (go)
            perform(c, o);
        else {
            if (keep_tail)
                keep_tail->next = o;
            else
                keep = o;
            keep_tail = o;
        }
        o = next;
    }
    /* Nothing can have joined meanwhile (new accesses come through events), but keep order. */
    if (keep) {
        keep_tail->next = t->wq;
        if (!t->wq)
            t->wq_tail = keep_tail;
        t->wq = keep;
    }
}

/* Something changed for line t: perform what can be, then ask memory for what the rest needs. */
static void line_kick(cn_mem_t *c, lt_t *t)
{
    if (t->out == CN_OUT_NONE && !t->alloc_wait && !t->pinned) {
        run_waiters(c, t, true);
        /* An rmw among the waiters may have pinned the line: the rest wait for its unpin. */
        if (t->out == CN_OUT_NONE && t->wq && !t->pinned)
            start_request(c, t);
    }
    lt_maybe_free(c, t);
}

static void local_fill(void *obj, uint64_t tag, const uint64_t *line);

/* The waiting accesses of t need the line (or write permission) from memory: one request. */
static void start_request(cn_mem_t *c, lt_t *t)
{
    bool need_x = false;
    for (const op_t *o = t->wq; o; o = o->next)
        need_x |= o->kind != K_LOAD;
    unsigned core = t->wq->core;
    cache_line_t *L = l3_line(c, t->key);
    if (L) {
        /* Present without write permission: a shared coherent line. */
        assert(L->state == CN_L3_S && need_x);
        t->out = CN_OUT_RD_UPGRADE;
        t->upg_lost = false;
        send_req(c, t, OP_RD_UPGRADE, core);
        return;
    }
    if (!l3_reserve(c, t)) {
        if (!t->alloc_wait) {
            t->alloc_wait = true;
            t->anext = c->alloc_head;
            c->alloc_head = t;
            (*c->s.alloc_waits)++;
        }
        return;
    }
    switch (t->lk) {
    case LK_LOCAL:
        t->out = CN_OUT_LOCAL_RD;
        t->t_out = c->k->now;
        t->bmask = 0; /* words poked while the read is out (cn_mem_local_poke) */
        dram_read(c->dram, local_dline(t->key), local_fill, c, (uintptr_t)t);
        break;
    case LK_LNR:
        t->out = CN_OUT_LNR_RD;
        send_req(c, t, OP_LNR_RD, core);
        break;
    default:
        t->out = need_x ? CN_OUT_RD_OWN : CN_OUT_RD_SHARED;
        send_req(c, t, need_x ? OP_RD_OWN : OP_RD_SHARED, core);
    }
}

/* Lines that waited for an L3 way try again (something may have left its set). */
static void retry_alloc(cn_mem_t *c)
{
    lt_t *t = c->alloc_head;
    c->alloc_head = NULL;
    while (t) {
        lt_t *next = t->anext;
        t->alloc_wait = false;
        t->anext = NULL;
        line_kick(c, t);
        t = next;
    }
}

/* The level (1 L1, 2 L2, 3 L3 or beyond) that holds what o needs in its core's own caches. */
static int own_level(const cn_mem_t *c, const op_t *o)
{
    if (o->kind == K_FLUSH)
        return 3;
    const bool need_x = o->kind != K_LOAD;
    const cache_line_t *a = cache_find(c->l1[o->core], o->key);
    if (a && (!need_x || a->state == CN_PV_X))
        return 1;
    const cache_line_t *b = cache_find(c->l2[o->core], o->key);
    return b && (!need_x || b->state == CN_PV_X) ? 2 : 3;
}

static uint64_t level_cycles(const cn_mem_t *c, int lvl)
{
    return lvl == 1 ? c->p.l1.latency_cycles : lvl == 2 ? c->p.l2.latency_cycles : c->p.l3.latency_cycles;
}

static void op_schedule(cn_mem_t *c, op_t *o, uint64_t cycles);

/* An access at its perform moment. */
static void op_try(cn_mem_t *c, op_t *o)
{
    lt_t *t = lt_find(c, o->key);
    if (t && t->pinned) {
        lt_enqueue(t, o); /* another core's rmw holds the line: after its write */
        return;
    }
    if (o->kind == K_FLUSH) {
        if (t && (t->out != CN_OUT_NONE || t->alloc_wait || t->wq)) {
            lt_enqueue(t, o);
            return;
        }
        do_flush(c, o);
        return;
    }
    if (can_perform(c, o, t)) {
        perform(c, o);
        return;
    }
    if (!o->missed) {
        o->missed = true;
        if (!o->counted)
            count_level(c, o->core, 4);
        o->counted = true;
    }
    if (!t)
        t = lt_get(c, o->key);
    else if (is_read(t->out))
        (*c->s.merges)++;
    lt_enqueue(t, o);
    line_kick(c, t);
}

static void ev_try(void *obj, uint64_t arg)
{
    cn_mem_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's hierarchy does nothing more, its contents are lost */
    op_t *o = (op_t *)(uintptr_t)arg;
    /* The core's copy went away (snooped, evicted) since the lookup: the access goes on to the
     * next level and pays the difference of round trips. */
    int lvl = own_level(c, o);
    if (lvl > o->lvl) {
        uint64_t more = level_cycles(c, lvl) - level_cycles(c, o->lvl);
        o->lvl = lvl;
        op_schedule(c, o, more);
        return;
    }
    op_try(c, o);
}

/* o's lookup is done after the round trip of the level that holds what it needs (the L3's for a
 * miss, which then goes on to memory). */
static void op_schedule(cn_mem_t *c, op_t *o, uint64_t cycles)
{
    uint64_t t = clock_edge(&c->clk, clock_cycle_at_or_after(&c->clk, c->k->now) + cycles);
    kernel_at(c->k, t, ev_try, c, (uintptr_t)o);
}

static void op_start(cn_mem_t *c, op_t *o)
{
    o->lvl = own_level(c, o);
    op_schedule(c, o, level_cycles(c, o->lvl));
}

/* ---------------------------------------------------------------------------------------------
 * mem_if */

static void mi_load(void *obj, unsigned core, uint64_t addr, mem_done_fn done, void *dobj, uint64_t tag)
{
    cn_mem_t *c = obj;
    op_t *o = op_new(c, K_LOAD, core, addr);
    o->done = done, o->dobj = dobj, o->tag = tag;
    op_start(c, o);
}

/* What perform() would read for a load that finds its line in the core's L1: a valid L1 line is
 * readable (S or X) and holds the CN's current words. */
static bool mi_load_hit(void *obj, unsigned core, uint64_t addr, uint64_t *value)
{
    cn_mem_t *c = obj;
    assert(core < c->p.cores && addr_aligned(addr));
    if (c->failed)
        return false;
    const lt_t *t = lt_find(c, addr_line(addr));
    const cache_line_t *a = cache_find(c->l1[core], addr_line(addr));
    if (!a || (t && t->pinned))
        return false;
    *value = a->data[addr_word(addr)];
    return true;
}

static void mi_prefetch_x(void *obj, unsigned core, uint64_t addr)
{
    cn_mem_t *c = obj;
    addr &= ~(uint64_t)7;
    const cache_line_t *a = cache_find(c->l1[core], addr_line(addr));
    if (a && a->state == CN_PV_X)
        return; /* already there: dropped */
    op_start(c, op_new(c, K_PREFETCH, core, addr));
}

/* A prefetch_x with an answer: done when the core's L1 holds the line with write permission (an
 * L1 hit pays the L1's round trip). Counted as a prefetch_x. */
static void mi_acquire(void *obj, unsigned core, uint64_t addr, mem_done_fn done, void *dobj, uint64_t tag)
{
    cn_mem_t *c = obj;
    op_t *o = op_new(c, K_PREFETCH, core, addr & ~(uint64_t)7);
    o->done = done, o->dobj = dobj, o->tag = tag;
    op_start(c, o);
}

static void store_op(cn_mem_t *c, unsigned core, uint64_t line, uint8_t mask, const uint64_t *words, bool wt,
                     mem_gate_fn gate, mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    op_t *o = op_new(c, K_STORE, core, addr_line(line));
    o->mask = mask;
    for (unsigned w = 0; w < W; w++)
        if (mask >> w & 1)
            o->words[w] = words[w];
    o->wt = wt && !addr_is_local(line);
    o->gate = gate;
    o->committed = committed, o->done = done, o->dobj = dobj, o->tag = tag;
    op_start(c, o);
}

static void mi_store(void *obj, unsigned core, uint64_t line, uint8_t mask, const uint64_t *words, bool wt,
                     mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    store_op(obj, core, line, mask, words, wt, NULL, committed, done, dobj, tag);
}

static void mi_store_gated(void *obj, unsigned core, uint64_t line, uint8_t mask, const uint64_t *words,
                           mem_gate_fn gate, mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    store_op(obj, core, line, mask, words, false, gate, committed, done, dobj, tag);
}

static void snoop(cn_mem_t *c, const msg_t *m);

/* A pinned rmw writes at the next edge (the line never left its L1), then the line is released:
 * a held snoop is answered, the waiting accesses go on. */
static void ev_unpin(void *obj, uint64_t arg)
{
    cn_mem_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's hierarchy does nothing more, its contents are lost */
    op_t *o = (op_t *)(uintptr_t)arg;
    lt_t *t = lt_find(c, o->key);
    cache_line_t *L = l3_line(c, o->key), *a = cache_find(c->l1[o->core], o->key);
    assert(t && t->pinned && L && a && a->state == CN_PV_X);
    t->pinned = false;
    rmw_write(c, o, a, L, o->old, o->nv);
    if (t->has_held) {
        t->has_held = false;
        msg_t h = t->held;
        snoop(c, &h);
    }
    line_kick(c, t);
}

/* The parked store goes on at the next edge: at once if its L1 still holds the line with write
 * permission (ev_try finds level 1), else it pays the way to the level that has it, or misses. A
 * pinned rmw writes at the next edge. */
static void mi_store_go(void *obj, unsigned core)
{
    cn_mem_t *c = obj;
    op_t *o = c->parked[core];
    assert(o && (o->gate || o->rgate));
    c->parked[core] = NULL;
    if (o->kind == K_RMW) {
        kernel_at(c->k, clock_edge(&c->clk, clock_cycle_at_or_after(&c->clk, c->k->now)), ev_unpin, c,
                  (uintptr_t)o);
        return;
    }
    const cache_line_t *a = cache_find(c->l1[core], o->key);
    if (!a || a->state != CN_PV_X)
        (*c->s.parked_lost)++;
    o->gate = NULL;
    o->lvl = 1;
    op_schedule(c, o, 0);
}

static void rmw_op(cn_mem_t *c, unsigned core, uint64_t addr, mem_rmw_e op, uint64_t a, uint64_t b, bool wt,
                   mem_rmw_gate_fn gate, mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    op_t *o = op_new(c, K_RMW, core, addr);
    if (line_kind(c, o->key) == LK_LNR)
        (*c->s.lnr_rmws)++; /* atomic only inside this CN: an error the system's check reports */
    o->rop = op, o->a = a, o->b = b;
    o->wt = wt && !addr_is_local(addr);
    o->rgate = gate;
    o->committed = committed, o->done = done, o->dobj = dobj, o->tag = tag;
    op_start(c, o);
}

static void mi_rmw(void *obj, unsigned core, uint64_t addr, mem_rmw_e op, uint64_t a, uint64_t b, bool wt,
                   mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    rmw_op(obj, core, addr, op, a, b, wt, NULL, committed, done, dobj, tag);
}

static void mi_rmw_gated(void *obj, unsigned core, uint64_t addr, mem_rmw_e op, uint64_t a, uint64_t b,
                         mem_rmw_gate_fn gate, mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    rmw_op(obj, core, addr, op, a, b, false, gate, committed, done, dobj, tag);
}

static void mi_flush(void *obj, unsigned core, uint64_t addr, mem_done_fn done, void *dobj, uint64_t tag)
{
    cn_mem_t *c = obj;
    op_t *o = op_new(c, K_FLUSH, core, addr & ~(uint64_t)7);
    o->done = done, o->dobj = dobj, o->tag = tag;
    op_start(c, o);
}

const mem_if_t *cn_mem_if(cn_mem_t *c) { return &c->mif; }

void cn_mem_fail(cn_mem_t *c) { c->failed = true; }

/* ---------------------------------------------------------------------------------------------
 * Snoops */

/* Answers (or holds) a BISNP. Section 11c, the CN's side of the contract. */
static void snoop(cn_mem_t *c, const msg_t *m)
{
    uint64_t key = m->addr * ADDR_LINE_BYTES;
    lt_t *t = lt_find(c, key);
    cache_line_t *L = l3_line(c, key);
    bool inv = m->opcode == OP_BISNP_INV;
    msg_t r = {.dst = m->src, .tag = m->tag, .addr = m->addr};
    if (t && t->pinned && line_kind(c, key) == LK_SCR) {
        /* An rmw holds the line between its read and its write: the answer waits for the write
         * (ev_unpin); the directory sends one snoop of a line at a time. */
        if (t->has_held)
            abort();
        t->has_held = true;
        t->held = *m;
        (*c->s.sn_pinned)++;
        return;
    }
    if (line_kind(c, key) != LK_SCR) {
        (*c->s.sn_unexpected)++;
        r.opcode = OP_BIRSP_I;
    } else if (t && (t->out == CN_OUT_CLEAN_EVICT || t->out == CN_OUT_DIRTY_EVICT)) {
        /* The eviction crossed the snoop: answer as the holder that is leaving (I kind). */
        if (t->ev_snooped)
            (*c->s.sn_unexpected)++;
        t->ev_snooped = true;
        r.opcode = t->out == CN_OUT_DIRTY_EVICT ? OP_BIRSP_I_DATA : OP_BIRSP_I;
        r.flags = MSG_FLAG_WR_IN_FLIGHT;
        if (t->out == CN_OUT_DIRTY_EVICT) {
            r.mask = 0xff;
            memcpy(r.data, t->buf, sizeof r.data);
            r.ts = t->bver;
        }
    } else if (t && t->out == CN_OUT_WT) {
        /* A write-through in flight: the CN still holds the line. */
        r.flags = MSG_FLAG_WR_IN_FLIGHT;
        if (L && L->state == CN_L3_OWN) {
            if (inv)
                l3_inval_all(c, L);
            else
                l3_downgrade_all(c, L);
            r.opcode = inv ? OP_BIRSP_I_DATA : OP_BIRSP_S_DATA;
            memcpy(r.data, L->data, sizeof r.data);
            r.ts = *l3_ver(c, L);
            if (inv) {
                cache_invalidate(L);
            } else {
                L->state = CN_L3_S;
                L->dmask = 0;
            }
        } else {
            if (!(L && inv))
                (*c->s.sn_unexpected)++;
            r.opcode = OP_BIRSP_I; /* from S: the data went with an earlier answer */
            if (L) {
                l3_inval_all(c, L);
                cache_invalidate(L);
            }
        }
    } else if (t && (t->out == CN_OUT_RD_SHARED || t->out == CN_OUT_RD_OWN || t->out == CN_OUT_RD_UPGRADE)) {
        if (t->out == CN_OUT_RD_UPGRADE && L && L->state == CN_L3_S && inv &&
            !(c->p.mutate & CN_MUT_HOLD_UPG_SNOOP)) {
            /* Possibly about the S copy, from a transaction ahead of the upgrade that waits for
             * this answer: answered at once, the copy dropped; a CMP_E coming now is void. */
            l3_inval_all(c, L);
            L->state = CN_L3_PEND;
            L->dmask = 0;
            t->upg_lost = true;
            r.opcode = OP_BIRSP_I;
            (*c->s.sn_upg_lost)++;
        } else if (t->has_held) {
            (*c->s.sn_unexpected)++;
            r.opcode = OP_BIRSP_I;
        } else if (c->p.mutate & CN_MUT_SNOOP_AT_ONCE_INSTALL) {
            r.opcode = OP_BIRSP_I;
            if (L) {
                l3_inval_all(c, L);
                L->state = CN_L3_PEND;
            }
        } else {
            /* About the answer already decided: held until it is in (rule (b)). */
            t->has_held = true;
            t->held = *m;
            (*c->s.sn_held)++;
            return;
        }
    } else if (L && L->state == CN_L3_OWN) {
        if (inv)
            l3_inval_all(c, L);
        else
            l3_downgrade_all(c, L);
        bool data = L->dmask != 0;
        r.opcode = inv ? (data ? OP_BIRSP_I_DATA : OP_BIRSP_I) : (data ? OP_BIRSP_S_DATA : OP_BIRSP_S);
        memcpy(r.data, L->data, sizeof r.data);
        r.ts = *l3_ver(c, L);
        if (inv) {
            cache_invalidate(L);
        } else {
            L->state = CN_L3_S;
            L->dmask = 0;
        }
    } else if (L && L->state == CN_L3_S) {
        if (inv) {
            l3_inval_all(c, L);
            cache_invalidate(L);
            r.opcode = OP_BIRSP_I;
        } else {
            (*c->s.sn_unexpected)++; /* the directory asks only an owner for data */
            r.opcode = OP_BIRSP_S;
        }
    } else {
        (*c->s.sn_unexpected)++; /* the CN holds nothing and waits for nothing */
        r.opcode = OP_BIRSP_I;
    }
    if (r.opcode == OP_BIRSP_I_DATA || r.opcode == OP_BIRSP_S_DATA) {
        r.mask = 0xff;
    } else {
        memset(r.data, 0, sizeof r.data);
        r.ts = 0; /* a clean answer: the directory's version is the line's */
    }
    if (c->p.mutate & CN_MUT_NO_WIF)
        r.flags = 0;
    if (r.flags & MSG_FLAG_WR_IN_FLIGHT)
        (*c->s.sn_wif)++;
    port_send(c, &r);
}

/* ---------------------------------------------------------------------------------------------
 * Answers */

/* The line of t is in (state st, data when not NULL, the line's version ver): the waiting accesses
 * are performed, then a held snoop is answered from the cache, then what still waits asks again. */
static void fill(cn_mem_t *c, lt_t *t, cn_l3_state_e st, const uint64_t *data, unsigned ver)
{
    cache_line_t *L = cache_find(c->l3, t->key);
    assert(L);
    if (!(c->p.mutate & CN_MUT_VERSION_NOT_KEPT))
        *l3_ver(c, L) = (uint8_t)(ver & VER_MASK);
    if (L->state >= CN_L3_S && data)
        l3_inval_all(c, L); /* clean copies: the new data replace them */
    L->state = st;
    if (data) {
        memcpy(L->data, data, sizeof L->data);
        L->dmask = 0;
    }
    cache_touch(c->l3, L);
    t->out = CN_OUT_NONE;
    run_waiters(c, t, false);
    if (t->has_held) {
        t->has_held = false;
        msg_t h = t->held;
        snoop(c, &h);
    }
    line_kick(c, t);
}

static void local_fill(void *obj, uint64_t tag, const uint64_t *line)
{
    cn_mem_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's hierarchy does nothing more, its contents are lost */
    lt_t *t = (lt_t *)(uintptr_t)tag;
    uint64_t d[W];
    for (unsigned w = 0; w < W; w++)
        d[w] = t->bmask >> w & 1 ? t->buf[w] : line[w];
    fill(c, t, CN_L3_LOCAL, d, 0);
    retry_alloc(c);
}

/* Completes the write of t (an eviction, flush or write-through) on its CMP. */
static void write_done(cn_mem_t *c, lt_t *t)
{
    cn_out_e was = t->out;
    t->out = CN_OUT_NONE;
    if (was == CN_OUT_WT) {
        op_t *o = t->wt_op;
        t->wt_op = NULL;
        op_done(c, o, o->kind == K_RMW ? o->old : 0);
    } else {
        op_t *f = t->flushers;
        t->flushers = NULL;
        while (f) {
            op_t *next = f->next;
            op_done(c, f, 0);
            f = next;
        }
    }
    line_kick(c, t);
}

static bool answer_fits(const lt_t *t, msg_op_t op)
{
    switch (t->out) {
    case CN_OUT_RD_SHARED:
        return op == OP_DATA_S || op == OP_DATA_E;
    case CN_OUT_RD_OWN:
        return op == OP_DATA_E;
    case CN_OUT_RD_UPGRADE:
        return op == OP_CMP_E || op == OP_DATA_E;
    case CN_OUT_LNR_RD:
        return op == OP_DATA_NC;
    case CN_OUT_CLEAN_EVICT:
    case CN_OUT_DIRTY_EVICT:
    case CN_OUT_LNR_EVICT:
    case CN_OUT_WT:
        return op == OP_CMP;
    default:
        return false;
    }
}

void cn_mem_deliver(cn_mem_t *c, const msg_t *m)
{
    if (c->failed)
        return; /* fail-stop: a failed CN's hierarchy does nothing more, its contents are lost */
    msg_class_t cls = msg_class(m->opcode);
    if (m->opcode < MSG_NUM_MSGS)
        (*c->s.rx[m->opcode])++;
    if (m->dst != c->p.cn || (cls != CLS_NDR && cls != CLS_DRS && cls != CLS_BISNP)) {
        (*c->s.rx_unexpected)++;
    } else if (cls == CLS_BISNP) {
        snoop(c, m);
    } else {
        lt_t *t = c->by_tag[m->tag];
        if (!t || addr_gline(t->key) != m->addr || m->core != t->core || !answer_fits(t, m->opcode)) {
            (*c->s.rx_unexpected)++;
        } else {
            c->by_tag[m->tag] = NULL;
            switch (m->opcode) {
            case OP_DATA_S:
                fill(c, t, CN_L3_S, m->data, m->ts);
                break;
            case OP_DATA_E:
                t->upg_lost = false;
                fill(c, t, CN_L3_OWN, m->data, m->ts);
                break;
            case OP_DATA_NC:
                fill(c, t, CN_L3_NC, m->data, 0);
                break;
            case OP_CMP_E:
                if (t->upg_lost && !(c->p.mutate & CN_MUT_CMPE_ALWAYS_VALID)) {
                    /* Granted, then snooped away before it arrived: void; ask again for the
                     * whole line (the CN holds no copy now, so RD_OWN). */
                    (*c->s.sn_void_cmpe)++;
                    t->upg_lost = false;
                    t->out = CN_OUT_NONE;
                    if (t->has_held) { /* cannot happen: nobody counts the CN as a holder */
                        (*c->s.sn_unexpected)++;
                        t->has_held = false;
                        msg_t h = t->held;
                        snoop(c, &h);
                    }
                    line_kick(c, t);
                } else {
                    t->upg_lost = false;
                    /* The S copy's version is the line's (nobody wrote it since); CMP_E carries
                     * it all the same. */
                    fill(c, t, CN_L3_OWN, NULL, m->ts);
                }
                break;
            default: /* CMP */
                write_done(c, t);
            }
        }
    }
    c->link.release(c->link.obj, cls);
    retry_alloc(c);
}

/* ---------------------------------------------------------------------------------------------
 * Zero-time access, inspection */

uint8_t cn_mem_peek_line(const cn_mem_t *c, uint64_t line_addr, uint64_t v[ADDR_WORDS_PER_LINE])
{
    if (c->failed)
        return 0;
    uint64_t key = addr_line(line_addr);
    const cache_line_t *L = l3_line(c, key);
    const lt_t *t = lt_find(c, key);
    uint8_t have = 0;
    for (unsigned w = 0; w < ADDR_WORDS_PER_LINE; w++) {
        if (L && (L->state == CN_L3_OWN || L->state == CN_L3_NC)) {
            uint8_t dm;
            uint64_t x = newest_word(c, L, w, &dm);
            if (L->state == CN_L3_OWN || (dm >> w & 1)) {
                v[w] = x;
                have |= (uint8_t)(1u << w);
                continue;
            }
        }
        if (t && ((t->out == CN_OUT_DIRTY_EVICT && !t->ev_snooped) || t->out == CN_OUT_LNR_EVICT ||
                  (t->out == CN_OUT_WT && t->lk == LK_LNR)) &&
            (t->bmask >> w & 1)) {
            v[w] = t->buf[w];
            have |= (uint8_t)(1u << w);
        }
    }
    return have;
}

bool cn_mem_peek(const cn_mem_t *c, uint64_t addr, uint64_t *v)
{
    uint64_t line[ADDR_WORDS_PER_LINE];
    unsigned w = addr_word(addr);
    if (!(cn_mem_peek_line(c, addr_line(addr), line) >> w & 1))
        return false;
    *v = line[w];
    return true;
}

uint64_t cn_mem_local_peek(const cn_mem_t *c, uint64_t addr)
{
    uint64_t key = addr_line(addr);
    const cache_line_t *L = l3_line(c, key);
    if (L)
        return newest_word(c, L, addr_word(addr), NULL);
    uint64_t line[W];
    dram_peek(c->dram, local_dline(key), line);
    return line[addr_word(addr)];
}

void cn_mem_local_poke(cn_mem_t *c, uint64_t addr, uint64_t v)
{
    uint64_t key = addr_line(addr);
    unsigned w = addr_word(addr);
    uint64_t line[W] = {0};
    line[w] = v;
    dram_poke(c->dram, local_dline(key), (uint8_t)(1u << w), line);
    lt_t *t = lt_find(c, key);
    if (t && t->out == CN_OUT_LOCAL_RD) { /* the read took DRAM's line before the poke */
        t->buf[w] = v;
        t->bmask |= (uint8_t)(1u << w);
    }
    cache_line_t *L = cache_find(c->l3, key);
    if (!L || L->state < CN_L3_S)
        return;
    L->data[w] = v;
    for (unsigned i = 0; i < c->p.cores; i++) {
        cache_line_t *a = cache_find(c->l1[i], key), *b = cache_find(c->l2[i], key);
        if (a)
            a->data[w] = v;
        if (b)
            b->data[w] = v;
    }
}

void cn_mem_census(const cn_mem_t *c, cn_mem_census_t *out)
{
    *out = (cn_mem_census_t){0};
    for (unsigned i = 0; i < cache_lines(c->l3); i++) {
        const cache_line_t *L = cache_at(c->l3, i);
        if (!L->valid)
            continue;
        if (L->state == CN_L3_S) {
            out->shared++;
        } else if (L->state == CN_L3_OWN) {
            uint8_t dmask = 0;
            for (unsigned w = 0; w < W; w++)
                newest_word(c, L, w, &dmask);
            if (dmask)
                out->dirty++;
            else
                out->exclusive++;
        }
    }
}

void cn_mem_probe(const cn_mem_t *c, uint64_t addr, cn_mem_probe_t *p)
{
    memset(p, 0, sizeof *p);
    uint64_t key = addr_line(addr);
    p->owner = -1;
    const cache_line_t *L = cache_find(c->l3, key);
    if (L) {
        p->l3 = (cn_l3_state_e)L->state;
        p->ver = *l3_ver(c, L);
        if (L->state >= CN_L3_S) {
            p->pres = L->pres;
            p->owner = L->owner;
            for (unsigned w = 0; w < W; w++)
                p->data[w] = newest_word(c, L, w, &p->dmask);
        }
    }
    for (unsigned i = 0; i < c->p.cores; i++) {
        const cache_line_t *a = cache_find(c->l1[i], key), *b = cache_find(c->l2[i], key);
        p->l1[i] = a ? a->state : CN_PV_I;
        p->l2[i] = b ? b->state : CN_PV_I;
    }
    const lt_t *t = lt_find(c, key);
    if (t) {
        p->out = t->out;
        p->held = t->has_held;
        for (const op_t *o = t->wq; o; o = o->next)
            p->waiting++;
    }
}

uint64_t cn_mem_lnr_rmws(const cn_mem_t *c) { return *c->s.lnr_rmws; }

bool cn_mem_idle(const cn_mem_t *c)
{
    if (c->failed)
        return true; /* fail-stop: a failed CN's hierarchy does nothing more, its contents are lost */
    if (c->nops || c->nlt || dram_busy(c->dram))
        return false;
    for (unsigned i = 0; i < MSG_NUM_CLASSES; i++)
        if (c->q[i].n)
            return false;
    return true;
}

void cn_mem_wt_pending(const cn_mem_t *c, void (*fn)(void *obj, unsigned core, uint64_t gline, uint8_t mask),
                       void *obj)
{
    for (unsigned b = 0; b < LT_BUCKETS; b++)
        for (const lt_t *t = c->bucket[b]; t; t = t->hnext)
            if (t->out == CN_OUT_WT && t->wt_op)
                fn(obj, t->wt_op->core, addr_gline(t->key), t->bmask);
}

void cn_mem_lnr_unwritten(const cn_mem_t *c, void (*fn)(void *obj, uint64_t gline, uint8_t mask), void *obj)
{
    for (unsigned i = 0; i < cache_lines(c->l3); i++) {
        const cache_line_t *L = cache_at(c->l3, i);
        if (!L->valid || L->state != CN_L3_NC)
            continue;
        uint8_t dmask = 0;
        for (unsigned w = 0; w < W; w++)
            newest_word(c, L, w, &dmask);
        if (dmask)
            fn(obj, addr_gline(L->key), dmask);
    }
    for (unsigned b = 0; b < LT_BUCKETS; b++)
        for (const lt_t *t = c->bucket[b]; t; t = t->hnext)
            if (t->out == CN_OUT_LNR_EVICT)
                fn(obj, addr_gline(t->key), t->bmask);
}

void cn_mem_dump(const cn_mem_t *c, FILE *f)
{
    fprintf(f, "  %s (CN %u): %llu accesses live, %u lines in flight, %u local DRAM accesses\n", c->name, c->p.cn,
            (unsigned long long)c->nops, c->nlt, dram_busy(c->dram));
    for (unsigned b = 0; b < LT_BUCKETS; b++)
        for (const lt_t *t = c->bucket[b]; t; t = t->hnext) {
            const cache_line_t *L = cache_find(c->l3, t->key);
            fprintf(f, "    line 0x%llx (%s, L3 %s): %s", (unsigned long long)t->key,
                    t->lk == LK_SCR ? "SCR" : t->lk == LK_LNR ? "LNR" : "local", L ? l3_names[L->state] : "I",
                    out_names[t->out]);
            if (t->out != CN_OUT_NONE && t->out != CN_OUT_LOCAL_RD)
                fprintf(f, " tag %u core %u since %llu ps", t->tag, t->core, (unsigned long long)t->t_out);
            if (t->upg_lost)
                fprintf(f, ", S copy snooped away (a CMP_E is void)");
            if (t->has_held)
                fprintf(f, ", holds %s tag %u from node %u", msg_name(t->held.opcode), t->held.tag, t->held.src);
            if (t->ev_snooped)
                fprintf(f, ", eviction crossed by a snoop");
            if (t->alloc_wait)
                fprintf(f, ", waits for an L3 way");
            fprintf(f, "\n");
            for (const op_t *o = t->wq; o; o = o->next)
                fprintf(f, "      waits: %s of core %u at 0x%llx since %llu ps%s\n", k_name[o->kind], o->core,
                        (unsigned long long)o->addr, (unsigned long long)o->t_call, o->wt ? " (write-through)" : "");
            if (t->wt_op)
                fprintf(f, "      write-through of core %u waits for its CMP\n", t->wt_op->core);
            for (const op_t *o = t->flushers; o; o = o->next)
                fprintf(f, "      flush of core %u waits for the CMP\n", o->core);
        }
    for (unsigned i = 0; i < c->p.cores; i++)
        if (c->parked[i])
            fprintf(f, "    core %u's %s to line 0x%llx is %s: its gate (replication) has not let it commit\n", i,
                    k_name[c->parked[i]->kind], (unsigned long long)c->parked[i]->key,
                    c->parked[i]->kind == K_RMW ? "pinned" : "parked");
    for (unsigned i = 0; i < MSG_NUM_CLASSES; i++)
        if (c->q[i].n)
            fprintf(f, "    %zu %s messages wait for a credit (%u held), the first %s line 0x%llx\n", c->q[i].n,
                    msg_class_name((msg_class_t)i), c->link.credits(c->link.obj, (msg_class_t)i),
                    msg_name(c->q[i].m[c->q[i].head].opcode), (unsigned long long)c->q[i].m[c->q[i].head].addr);
}

/* ---------------------------------------------------------------------------------------------
 * Creation */

static bool pow2(uint64_t x) { return x && !(x & (x - 1)); }
static unsigned log2u(uint64_t x)
{
    unsigned n = 0;
    while (x > 1)
        x >>= 1, n++;
    return n;
}

static uint64_t *ctr(cn_mem_t *c, stats_t *st, const char *doc, const char *fmt, ...)
{
    char name[160];
    int n = snprintf(name, sizeof name, "%s.", c->name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name + n, sizeof name - (size_t)n, fmt, ap);
    va_end(ap);
    uint64_t *p = stats_counter(st, name, doc);
    if (!p) {
        fprintf(stderr, "%s: statistics: %s\n", c->name, stats_error(st));
        abort();
    }
    return p;
}

static void make_stats(cn_mem_t *c, stats_t *st)
{
    cn_stats_t *s = &c->s;
    for (int k = 0; k < K_NUM; k++)
        s->acc[k] = ctr(c, st, "accesses of this kind from the cores", "acc.%s", k_name[k]);
    s->l1_hits = ctr(c, st, "accesses served by an L1", "l1.hits");
    s->l1_misses = ctr(c, st, "accesses an L1 could not serve", "l1.misses");
    s->l2_hits = ctr(c, st, "accesses served by an L2", "l2.hits");
    s->l2_misses = ctr(c, st, "accesses an L2 could not serve", "l2.misses");
    s->l3_hits = ctr(c, st, "accesses served by the L3 (with the CN's own coherence actions)", "l3.hits");
    s->l3_misses = ctr(c, st, "accesses that needed memory or the directory", "l3.misses");
    for (unsigned i = 0; i < c->p.cores; i++) {
        s->c_l1_hits[i] = ctr(c, st, "accesses served by this core's L1", "core%u.l1.hits", i);
        s->c_l1_misses[i] = ctr(c, st, "accesses this core's L1 could not serve", "core%u.l1.misses", i);
        s->c_l2_hits[i] = ctr(c, st, "accesses served by this core's L2", "core%u.l2.hits", i);
        s->c_l2_misses[i] = ctr(c, st, "accesses this core's L2 could not serve", "core%u.l2.misses", i);
    }
    static const msg_op_t txo[] = {OP_RD_SHARED, OP_RD_OWN,  OP_RD_UPGRADE, OP_CLEAN_EVICT, OP_LNR_RD, OP_DIRTY_EVICT,
                                   OP_WT_WR,     OP_LNR_WR,  OP_BIRSP_I,    OP_BIRSP_S,     OP_BIRSP_I_DATA,
                                   OP_BIRSP_S_DATA};
    static const msg_op_t rxo[] = {OP_CMP, OP_CMP_E, OP_DATA_S, OP_DATA_E, OP_DATA_NC, OP_BISNP_INV, OP_BISNP_DATA};
    for (unsigned i = 0; i < MSG_NUM_MSGS; i++)
        s->tx[i] = s->rx[i] = &s->sink;
    for (size_t i = 0; i < sizeof txo / sizeof *txo; i++)
        s->tx[txo[i]] = ctr(c, st, "messages sent", "port.tx.%s", msg_name(txo[i]));
    for (size_t i = 0; i < sizeof rxo / sizeof *rxo; i++)
        s->rx[rxo[i]] = ctr(c, st, "messages received", "port.rx.%s", msg_name(rxo[i]));
    s->sn_held = ctr(c, st, "snoops held until the answer to the CN's own read was in", "snoop.held");
    s->sn_pinned = ctr(c, st, "snoops held until a gated rmw's write (the line pinned)", "snoop.held_by_pin");
    s->pins = ctr(c, st, "gated rmws that pinned their line until their replication was done", "rmw_pins");
    s->parked_lost = ctr(c, st,
                         "gated stores whose L1 lost write permission (snooped or evicted) while they waited for "
                         "their replication: looked up again at the go",
                         "parked_lost");
    s->lnr_rmws = ctr(c, st,
                      "read-modify-writes on LNR words: atomic only inside this CN, so an error (the run fails "
                      "its check)",
                      "lnr_rmws");
    s->sn_wif = ctr(c, st, "snoops answered with WR_IN_FLIGHT (an eviction or write-through in flight)",
                    "snoop.wr_in_flight");
    s->sn_upg_lost = ctr(c, st, "BISNP_INV on an S copy answered at once while its upgrade waited",
                         "snoop.upgrade_lost");
    s->sn_void_cmpe = ctr(c, st, "CMP_E void (the S copy was snooped away): asked again with RD_OWN",
                          "snoop.void_cmp_e");
    s->sn_unexpected = ctr(c, st, "snoops the contract does not allow (answered BIRSP_I)", "snoop.unexpected");
    s->rx_unexpected = ctr(c, st, "answers naming no outstanding request, or messages not for the CN",
                           "port.rx_unexpected");
    s->ev_clean = ctr(c, st, "coherent lines leaving the L3 clean (CLEAN_EVICT)", "evict.clean");
    s->ev_dirty = ctr(c, st, "coherent lines leaving the L3 dirty (DIRTY_EVICT)", "evict.dirty");
    s->ev_lnr = ctr(c, st, "LNR lines leaving the L3 with dirty words (LNR_WR)", "evict.lnr");
    s->ev_lnr_silent = ctr(c, st, "clean LNR lines dropped from the L3", "evict.lnr_clean");
    s->ev_local = ctr(c, st, "local lines leaving the L3", "evict.local");
    s->ev_l1 = ctr(c, st, "L1 victims", "evict.l1");
    s->ev_l2 = ctr(c, st, "L2 victims (their L1 copies with them)", "evict.l2");
    s->wts = ctr(c, st, "write-throughs sent (WT_WR, LNR_WR of a store)", "write_throughs");
    s->merges = ctr(c, st, "misses merged on a line's outstanding read (MSHR)", "mshr.merges");
    s->alloc_waits = ctr(c, st, "misses that waited for an L3 way (every way of the set busy)", "l3.alloc_waits");
    s->upgrades_local = ctr(c, st, "private S copies upgraded inside the CN", "l3.local_upgrades");
    char name[160];
    snprintf(name, sizeof name, "%s.miss_ns", c->name);
    s->miss_ns = stats_hist(st, name, "time from call to completion of accesses that missed the L3 (ns)",
                            (stats_buckets_t){.kind = STATS_LOG2});
    if (!s->miss_ns)
        abort();
}

static bool bad(char *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, 256, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool params_ok(const cn_mem_params_t *p, char *err)
{
    if (!p->name || !*p->name)
        return bad(err, "cn_mem: a statistics name is needed");
    if (p->cn >= MSG_MAX_CN)
        return bad(err, "%s: CN id %u is not below %u", p->name, p->cn, MSG_MAX_CN);
    if (p->cores < 1 || p->cores > CN_MEM_MAX_CORES)
        return bad(err, "%s: %u cores; 1 .. %u", p->name, p->cores, CN_MEM_MAX_CORES);
    const cfg_cache_t *lv[3] = {&p->l1, &p->l2, &p->l3};
    for (int i = 0; i < 3; i++)
        if (lv[i]->ways < 1 || lv[i]->size_bytes < lv[i]->ways * ADDR_LINE_BYTES)
            return bad(err, "%s: L%d of %llu bytes cannot hold %llu ways of 64-byte lines", p->name, i + 1,
                       (unsigned long long)lv[i]->size_bytes, (unsigned long long)lv[i]->ways);
    if (!p->core_freq_hz)
        return bad(err, "%s: the core frequency is 0", p->name);
    if (!p->local_latency_ps)
        return bad(err, "%s: the local DRAM latency is 0", p->name);
    if (!pow2(p->num_mn) || p->num_mn > MSG_MAX_MN)
        return bad(err, "%s: %u MNs: a power of two up to %u", p->name, p->num_mn, MSG_MAX_MN);
    if (!pow2(p->interleave_bytes) || p->interleave_bytes < ADDR_LINE_BYTES)
        return bad(err, "%s: interleave of %llu bytes: a power of two of at least 64", p->name,
                   (unsigned long long)p->interleave_bytes);
    if (p->scr_lo > p->scr_hi)
        return bad(err, "%s: the SCR [%llu, %llu) is reversed", p->name, (unsigned long long)p->scr_lo,
                   (unsigned long long)p->scr_hi);
    return true;
}

cn_mem_t *cn_mem_create(kernel_t *k, const cn_mem_params_t *p, const cn_link_t *link, stats_t *st, char *err)
{
    if (!params_ok(p, err))
        return NULL;
    cn_mem_t *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->k = k;
    c->p = *p;
    c->link = *link;
    snprintf(c->name, sizeof c->name, "%s", p->name);
    c->p.name = c->name;
    c->clk = clock_domain("core", p->core_freq_hz);
    c->mn_shift = log2u(p->num_mn);
    c->gran_shift = log2u(p->interleave_bytes / ADDR_LINE_BYTES);
    for (unsigned i = 0; i < p->cores; i++) {
        c->l1[i] = cache_create(p->l1.size_bytes, (unsigned)p->l1.ways);
        c->l2[i] = cache_create(p->l2.size_bytes, (unsigned)p->l2.ways);
    }
    c->l3 = cache_create(p->l3.size_bytes, (unsigned)p->l3.ways);
    c->l3ver = calloc(cache_lines(c->l3), sizeof *c->l3ver);
    c->parked = calloc(p->cores, sizeof *c->parked);
    if (!c->l3ver || !c->parked)
        abort();
    make_stats(c, st);
    char dn[128];
    snprintf(dn, sizeof dn, "%s.dram", c->name);
    c->dram = dram_create(k, &(dram_params_t){.name = dn, .latency_ps = p->local_latency_ps, .channels = 1}, st);
    if (!c->dram)
        abort();
    c->mif = (mem_if_t){.obj = c, .load = mi_load, .load_hit = mi_load_hit, .prefetch_x = mi_prefetch_x,
                        .acquire = mi_acquire, .store = mi_store, .store_gated = mi_store_gated,
                        .store_go = mi_store_go, .rmw = mi_rmw, .rmw_gated = mi_rmw_gated, .flush = mi_flush};
    return c;
}

/* Frees a list of accesses linked by anext. */
static void free_ops(op_t *o)
{
    while (o) {
        op_t *next = o->anext;
        free(o);
        o = next;
    }
}

void cn_mem_free(cn_mem_t *c)
{
    if (!c)
        return;
    for (unsigned b = 0; b < LT_BUCKETS; b++)
        while (c->bucket[b]) {
            lt_t *t = c->bucket[b];
            c->bucket[b] = t->hnext;
            free(t);
        }
    free_ops(c->ops);
    free_ops(c->free_ops);
    for (unsigned i = 0; i < c->p.cores; i++) {
        cache_free(c->l1[i]);
        cache_free(c->l2[i]);
    }
    cache_free(c->l3);
    free(c->l3ver);
    free(c->parked);
    dram_free(c->dram);
    for (unsigned i = 0; i < MSG_NUM_CLASSES; i++)
        free(c->q[i].m);
    free(c);
}
