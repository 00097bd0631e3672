#include "dir_ctrl_ref.h"

#include <stdlib.h>
#include <string.h>

/* Or-ed into every instance's mutation mask: -DDIR_REF_MUTATE=<bits> builds a deliberately broken
 * model, to see which tests catch which bug. */
#ifndef DIR_REF_MUTATE
#define DIR_REF_MUTATE 0u
#endif

#define W MSG_WORDS_PER_LINE
#define WIF_FLAG 0x4u /* flags bit 2 on a BIRSP: WR_IN_FLIGHT */

/* ---------------------------------------------------------------------------------------------
 * A FIFO of fixed-size elements (grows; capacity a power of two). */
typedef struct ring {
    unsigned char *v;
    size_t esz, head, n, cap;
} ring_t;

static void ring_init(ring_t *q, size_t esz)
{
    memset(q, 0, sizeof *q);
    q->esz = esz;
}
static void ring_free(ring_t *q) { free(q->v); }
static void *ring_at(const ring_t *q, size_t i) { return q->v + ((q->head + i) & (q->cap - 1)) * q->esz; }
static void ring_push(ring_t *q, const void *e)
{
    if (q->n == q->cap) {
        size_t nc = q->cap ? 2 * q->cap : 16;
        unsigned char *nv = malloc(nc * q->esz);
        if (!nv)
            abort();
        for (size_t i = 0; i < q->n; i++)
            memcpy(nv + i * q->esz, ring_at(q, i), q->esz);
        free(q->v);
        q->v = nv, q->cap = nc, q->head = 0;
    }
    memcpy(q->v + ((q->head + q->n++) & (q->cap - 1)) * q->esz, e, q->esz);
}
static void *ring_front(const ring_t *q) { return q->n ? ring_at(q, 0) : NULL; }
static void ring_pop(ring_t *q)
{
    q->head = (q->head + 1) & (q->cap - 1);
    q->n--;
}

/* ---------------------------------------------------------------------------------------------
 * State */

/* A memory request: a read or write of one 64-byte DRAM line of the data or directory area. */
typedef struct memreq {
    bool write, dir;
    uint64_t addr; /* local line (data) or entry group (directory) */
    uint64_t data[W];
    uint8_t mask;
    int txn; /* a read: the transaction its data goes to */
} memreq_t;

typedef struct memrsp {
    uint64_t due;
    int txn;
    bool dir;
    uint64_t data[W];
} memrsp_t;

enum { T_FREE, T_WAIT, T_FILL, T_RUN };

typedef struct txn {
    int st;
    msg_t req;
    uint64_t lline;
    bool lnr;
    int next;     /* the next transaction of its line, waiting (-1: none) */
    uint64_t seq; /* arrival order */
    dir_tr_e tr;
    dir_entry_t ent;
    bool chg;       /* ent differs from the line's entry in the cache / DRAM */
    uint32_t await; /* CNs whose snoop answer is awaited */
    bool inv;       /* the snoops are BISNP_INV (else BISNP_DATA) */
    bool need_data, have_data, rd_pending, kept_s, responded;
    uint64_t data[W];
} txn_t;

typedef struct dc_way {
    bool valid, dirty;
    uint64_t lline;
    dir_entry_t e;
} dc_way_t;

struct dir_ctrl_ref {
    dir_ctrl_ref_cfg_t cfg;
    unsigned mutate;
    uint64_t cycle, seq;
    uint64_t *mem;  /* data area: lines x 8 words */
    uint64_t *dmem; /* directory area: ceil(lines / 4) x 8 words */
    uint64_t ngroups;
    ring_t in_req, in_rwd, in_bir; /* msg_t */
    ring_t txq;                    /* msg_t to send */
    ring_t mq;                     /* memreq_t not yet issued */
    ring_t mrsp;                   /* memrsp_t read data on its way */
    txn_t *t;
    unsigned active;
    bool rr_req_first; /* the next new-request event tries REQ before RWD */
    dc_way_t *dc;
    unsigned *dc_rr;
    dir_ref_counts_t c;
    dir_ref_viol_t *viol;
    size_t nviol, capviol;
};

/* ---------------------------------------------------------------------------------------------
 * Names, configuration */

dir_ctrl_ref_cfg_t dir_ctrl_ref_default_cfg(void)
{
    return (dir_ctrl_ref_cfg_t){
        .node_id = MSG_MN_BASE, .mn_idx = 0, .mn_shift = 0, .gran_shift = 0, .lines = 1024,
        .scr_lo = 0, .scr_hi = 1024, .txn_entries = 16, .dc_sets = 256, .dc_ways = 4,
        .mem_latency = 45, .crd_per_cls = 4,
    };
}

const char *dir_ctrl_ref_cfg_check(const dir_ctrl_ref_cfg_t *c)
{
    if (!c->send)
        return "send callback missing";
    if (c->mn_shift > 5 || c->mn_idx >= (1u << c->mn_shift))
        return "mn_idx must be below 2^mn_shift (at most 32 MNs)";
    if (c->gran_shift > 31)
        return "gran_shift above 31";
    if (c->lines == 0 || c->lines > (1ull << 32))
        return "lines must be in 1 .. 2^32";
    if (c->txn_entries < 1 || c->txn_entries > (1u << MSG_TAG_W))
        return "txn_entries must be in 1 .. 4096 (a snoop's tag names the transaction)";
    if (c->dc_sets == 0 || (c->dc_sets & (c->dc_sets - 1)) || c->dc_ways == 0)
        return "dc_sets must be a power of two and dc_ways at least 1";
    if (c->mem_latency < 1)
        return "mem_latency must be at least one cycle";
    if (c->node_id >= (1u << MSG_NODE_ID_W))
        return "node_id beyond the node id width";
    return NULL;
}

dir_ctrl_ref_t *dir_ctrl_ref_init(const dir_ctrl_ref_cfg_t *cfg)
{
    if (dir_ctrl_ref_cfg_check(cfg))
        abort();
    dir_ctrl_ref_t *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    r->cfg = *cfg;
    r->mutate = cfg->mutate | DIR_REF_MUTATE;
    r->ngroups = (cfg->lines + 3) / 4;
    r->mem = calloc(cfg->lines * W, sizeof *r->mem);
    r->dmem = calloc(r->ngroups * W, sizeof *r->dmem);
    r->t = calloc(cfg->txn_entries, sizeof *r->t);
    r->dc = calloc((size_t)cfg->dc_sets * cfg->dc_ways, sizeof *r->dc);
    r->dc_rr = calloc(cfg->dc_sets, sizeof *r->dc_rr);
    if (!r->mem || !r->dmem || !r->t || !r->dc || !r->dc_rr)
        abort();
    ring_init(&r->in_req, sizeof(msg_t));
    ring_init(&r->in_rwd, sizeof(msg_t));
    ring_init(&r->in_bir, sizeof(msg_t));
    ring_init(&r->txq, sizeof(msg_t));
    ring_init(&r->mq, sizeof(memreq_t));
    ring_init(&r->mrsp, sizeof(memrsp_t));
    r->rr_req_first = false;
    return r;
}

void dir_ctrl_ref_free(dir_ctrl_ref_t *r)
{
    if (!r)
        return;
    ring_free(&r->in_req);
    ring_free(&r->in_rwd);
    ring_free(&r->in_bir);
    ring_free(&r->txq);
    ring_free(&r->mq);
    ring_free(&r->mrsp);
    free(r->mem);
    free(r->dmem);
    free(r->t);
    free(r->dc);
    free(r->dc_rr);
    free(r->viol);
    free(r);
}

/* ---------------------------------------------------------------------------------------------
 * Helpers: violations, sending, memory, directory entries */

static void violation(dir_ctrl_ref_t *r, dir_viol_e kind, const msg_t *m)
{
    r->c.viol[kind]++;
    if (r->nviol == r->capviol) {
        r->capviol = r->capviol ? 2 * r->capviol : 16;
        r->viol = realloc(r->viol, r->capviol * sizeof *r->viol);
        if (!r->viol)
            abort();
    }
    r->viol[r->nviol++] = (dir_ref_viol_t){.kind = kind, .msg = *m, .cycle = r->cycle};
}

static void tx_push(dir_ctrl_ref_t *r, const msg_t *m) { ring_push(&r->txq, m); }

static void mem_write(dir_ctrl_ref_t *r, bool dir, uint64_t addr, const uint64_t *data, uint8_t mask)
{
    memreq_t q = {.write = true, .dir = dir, .addr = addr, .mask = mask, .txn = -1};
    for (unsigned i = 0; i < W; i++)
        q.data[i] = (mask >> i & 1) ? data[i] : 0;
    ring_push(&r->mq, &q);
    r->c.mem_writes++;
}

static void mem_read(dir_ctrl_ref_t *r, bool dir, uint64_t addr, int txn)
{
    memreq_t q = {.write = false, .dir = dir, .addr = addr, .txn = txn};
    ring_push(&r->mq, &q);
    r->c.mem_reads++;
}

#define VER_MASK ((1u << MSG_TS_W) - 1)

/* Entry of local line l in its 64-byte directory line: words 2(l & 3) and 2(l & 3) + 1, bits
 * [1:0] state, [33:2] CN vector, [65:34] stale-write vector, [72:66] version. */
static void ent_encode(const dir_entry_t *e, uint64_t w[2])
{
    w[0] = (uint64_t)(e->state & 3) | (uint64_t)e->vec << 2 | (uint64_t)e->stale << 34;
    w[1] = (uint64_t)e->stale >> 30 | (uint64_t)(e->ver & VER_MASK) << 2;
}
static dir_entry_t ent_decode(const uint64_t w[2])
{
    return (dir_entry_t){.state = (unsigned)(w[0] & 3), .vec = (uint32_t)(w[0] >> 2),
                         .stale = (uint32_t)(w[0] >> 34 | w[1] << 30),
                         .ver = (unsigned)(w[1] >> 2) & VER_MASK};
}

/* The line's version comes with the owner's data (write-back, write-through, snoop answer): it is
 * the newest, since only the owner commits stores to the line (section 11b). */
static void set_version(txn_t *t, unsigned ver)
{
    if (t->ent.ver != (ver & VER_MASK)) {
        t->ent.ver = ver & VER_MASK;
        t->chg = true;
    }
}

/* A write of local line l's entry to the directory area (two words of its group). */
static void ent_write_dram(dir_ctrl_ref_t *r, uint64_t l, const dir_entry_t *e)
{
    uint64_t d[W] = {0};
    unsigned k = (unsigned)(l & 3);
    ent_encode(e, &d[2 * k]);
    mem_write(r, true, l >> 2, d, (uint8_t)(3u << (2 * k)));
}

static dc_way_t *dc_find(dir_ctrl_ref_t *r, uint64_t l)
{
    dc_way_t *set = &r->dc[(l & (r->cfg.dc_sets - 1)) * r->cfg.dc_ways];
    for (unsigned w = 0; w < r->cfg.dc_ways; w++)
        if (set[w].valid && set[w].lline == l)
            return &set[w];
    return NULL;
}

/* Installs l's entry (just read from DRAM, clean): an invalid way, else the set's round-robin
 * victim, written back first when dirty. */
static void dc_install(dir_ctrl_ref_t *r, uint64_t l, const dir_entry_t *e)
{
    unsigned s = (unsigned)(l & (r->cfg.dc_sets - 1));
    dc_way_t *set = &r->dc[(size_t)s * r->cfg.dc_ways];
    dc_way_t *v = NULL;
    for (unsigned w = 0; w < r->cfg.dc_ways && !v; w++)
        if (!set[w].valid)
            v = &set[w];
    if (!v) {
        v = &set[r->dc_rr[s]];
        r->dc_rr[s] = (r->dc_rr[s] + 1) % r->cfg.dc_ways;
        if (v->dirty) {
            ent_write_dram(r, v->lline, &v->e);
            r->c.dc_wbs++;
        }
    }
    *v = (dc_way_t){.valid = true, .dirty = false, .lline = l, .e = *e};
}

static bool addr_map(const dir_ctrl_ref_t *r, uint64_t addr, uint64_t *l)
{
    if (dir_addr_mn(addr, r->cfg.mn_shift, r->cfg.gran_shift) != r->cfg.mn_idx)
        return false;
    *l = dir_addr_local(addr, r->cfg.mn_shift, r->cfg.gran_shift);
    return *l < r->cfg.lines;
}
static bool in_scr(const dir_ctrl_ref_t *r, uint64_t addr) { return addr >= r->cfg.scr_lo && addr < r->cfg.scr_hi; }

static msg_t response(const dir_ctrl_ref_t *r, const txn_t *t, msg_op_t op, const uint64_t *data)
{
    msg_t m = {.opcode = op, .src = (uint8_t)r->cfg.node_id, .dst = t->req.src, .core = t->req.core,
               .tag = t->req.tag, .addr = t->req.addr};
    if (data) {
        m.mask = 0xff;
        memcpy(m.data, data, sizeof m.data);
    }
    /* Every grant carries the line's version (section 11b). */
    if (op == OP_DATA_E || op == OP_DATA_S || op == OP_CMP_E)
        m.ts = (uint8_t)t->ent.ver;
    return m;
}

/* ---------------------------------------------------------------------------------------------
 * Transactions */

static void txn_start(dir_ctrl_ref_t *r, int i);

/* The end: the entry back to the cache (or to DRAM when it left the cache), the entry freed, the
 * next transaction of the line started. */
static void txn_end(dir_ctrl_ref_t *r, int i)
{
    txn_t *t = &r->t[i];
    if (!t->lnr && t->chg) {
        dc_way_t *w = dc_find(r, t->lline);
        if (w) {
            w->e = t->ent;
            w->dirty = true;
        } else {
            ent_write_dram(r, t->lline, &t->ent);
        }
    }
    int next = t->next;
    t->st = T_FREE;
    r->active--;
    if (next >= 0)
        txn_start(r, next);
}

static void set_entry(txn_t *t, unsigned state, uint32_t vec)
{
    if (t->ent.state != state || t->ent.vec != vec) {
        t->ent.state = state;
        t->ent.vec = vec;
        t->chg = true;
    }
}

/* Every answer and the data are in: the response, the new entry, the end. */
static void txn_finish(dir_ctrl_ref_t *r, int i)
{
    txn_t *t = &r->t[i];
    uint32_t rb = 1u << t->req.src;
    msg_t m;
    switch (t->tr) {
    case DIR_TR_I_RdS:
    case DIR_TR_I_RdOwn:
    case DIR_TR_S_RdOwn:
    case DIR_TR_EM_RdOwn:
        m = response(r, t, OP_DATA_E, t->data);
        set_entry(t, DIR_EM, rb);
        break;
    case DIR_TR_S_RdS:
        m = response(r, t, OP_DATA_S, t->data);
        set_entry(t, DIR_S, t->ent.vec | rb);
        break;
    case DIR_TR_S_Upg:
        m = response(r, t, OP_CMP_E, NULL);
        set_entry(t, DIR_EM, rb);
        break;
    case DIR_TR_EM_RdS:
        /* The owner kept a shared copy: both share. Otherwise the requester alone, granted E. */
        if (t->kept_s || (r->mutate & DIR_MUT_KEEP_OLD_OWNER)) {
            m = response(r, t, OP_DATA_S, t->data);
            set_entry(t, DIR_S, t->ent.vec | rb);
        } else {
            m = response(r, t, OP_DATA_E, t->data);
            set_entry(t, DIR_EM, rb);
        }
        break;
    case DIR_TR_LNR_Rd:
        m = response(r, t, OP_DATA_NC, t->data);
        break;
    default:
        abort(); /* the other rows end at their decision */
    }
    if (!t->responded)
        tx_push(r, &m);
    txn_end(r, i);
}

/* Sends the BISNPs of transaction i to the CNs of targets, lowest first; awaits their answers. */
static void snoop(dir_ctrl_ref_t *r, int i, uint32_t targets, bool inv)
{
    txn_t *t = &r->t[i];
    t->await = targets;
    t->inv = inv;
    for (unsigned cn = 0; cn < MSG_MAX_CN; cn++)
        if (targets >> cn & 1) {
            msg_t m = {.opcode = inv ? OP_BISNP_INV : OP_BISNP_DATA, .src = (uint8_t)r->cfg.node_id,
                       .dst = (uint8_t)cn, .tag = (uint16_t)i, .addr = t->req.addr};
            tx_push(r, &m);
            r->c.bisnp_sent++;
        }
}

/* A request from CN x that the directory serves clears x's stale-write bit: x sends a request for
 * a line only after the CMP of its previous write, so no write of x is on its way. (A bit can be
 * left set by a write-through already done when x answered a snoop: its CMP was still on its way,
 * so x announced it as in flight.) */
static void served(dir_ctrl_ref_t *r, txn_t *t)
{
    uint32_t rb = 1u << t->req.src;
    if ((t->ent.stale & rb) && !(r->mutate & DIR_MUT_KEEP_STALE_BIT)) {
        t->ent.stale &= ~rb;
        t->chg = true;
    }
}

/* A write or eviction the state does not allow: stale when the CN's snoop answer announced it
 * (answered CMP, its data dropped, its bit cleared), else a violation. */
static void stale_or_violation(dir_ctrl_ref_t *r, int i)
{
    txn_t *t = &r->t[i];
    uint32_t rb = 1u << t->req.src;
    if (t->ent.stale & rb) {
        t->ent.stale &= ~rb;
        t->chg = true;
        r->c.stale_wr++;
        if ((r->mutate & DIR_MUT_APPLY_STALE_WR) && t->req.opcode != OP_CLEAN_EVICT)
            mem_write(r, false, t->lline, t->req.data, t->req.opcode == OP_DIRTY_EVICT ? 0xff : t->req.mask);
        msg_t m = response(r, t, OP_CMP, NULL);
        tx_push(r, &m);
    } else {
        violation(r, DIR_VIOL_NOT_OWNER, &t->req);
    }
    txn_end(r, i);
}

static int highest_bit(uint32_t v)
{
    int b = -1;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

/* The row of the state x event table, and its first actions. */
static void txn_decide(dir_ctrl_ref_t *r, int i)
{
    txn_t *t = &r->t[i];
    t->st = T_RUN;
    msg_op_t op = t->req.opcode;
    unsigned src = t->req.src;
    uint32_t rb = 1u << src;

    if (t->lnr) {
        if (op == OP_LNR_RD) {
            t->tr = DIR_TR_LNR_Rd;
            r->c.tr[t->tr]++;
            t->need_data = t->rd_pending = true;
            mem_read(r, false, t->lline, i);
        } else {
            t->tr = DIR_TR_LNR_Wr;
            r->c.tr[t->tr]++;
            mem_write(r, false, t->lline, t->req.data, t->req.mask);
            msg_t m = response(r, t, OP_CMP, NULL);
            tx_push(r, &m);
            txn_end(r, i);
        }
        return;
    }

    const dir_entry_t e = t->ent;
    bool is_rd = op == OP_RD_SHARED || op == OP_RD_OWN || op == OP_RD_UPGRADE;
    switch (e.state) {
    case DIR_I:
        if (is_rd) {
            t->tr = op == OP_RD_SHARED ? DIR_TR_I_RdS : DIR_TR_I_RdOwn;
            r->c.tr[t->tr]++;
            served(r, t);
            t->need_data = t->rd_pending = true;
            mem_read(r, false, t->lline, i);
        } else {
            t->tr = DIR_TR_I_Evict;
            r->c.tr[t->tr]++;
            stale_or_violation(r, i);
        }
        return;

    case DIR_S: {
        bool sh = e.vec & rb;
        if (op == OP_RD_SHARED || (op == OP_RD_OWN && sh)) {
            /* A sharer asks for ownership with RD_UPGRADE only: with RD_OWN it could not tell a
             * snoop of its S copy from a snoop of the line just granted (both answered DATA_E). */
            if (sh) {
                t->tr = DIR_TR_S_ReRead;
                r->c.tr[t->tr]++;
                violation(r, DIR_VIOL_DUP_REQ, &t->req);
                txn_end(r, i);
            } else {
                t->tr = DIR_TR_S_RdS;
                r->c.tr[t->tr]++;
                served(r, t);
                t->need_data = t->rd_pending = true;
                mem_read(r, false, t->lline, i);
            }
        } else if (op == OP_RD_OWN || op == OP_RD_UPGRADE) {
            uint32_t targets = e.vec & ~rb;
            if ((r->mutate & DIR_MUT_SKIP_ONE_SHARER) && targets)
                targets &= ~(1u << highest_bit(targets));
            if (op == OP_RD_UPGRADE && sh) {
                t->tr = DIR_TR_S_Upg;
                r->c.tr[t->tr]++;
                served(r, t);
                snoop(r, i, targets, true);
                if (r->mutate & DIR_MUT_UPG_NO_WAIT) {
                    msg_t m = response(r, t, OP_CMP_E, NULL);
                    tx_push(r, &m);
                    t->responded = true;
                }
                if (!t->await)
                    txn_finish(r, i);
            } else {
                t->tr = DIR_TR_S_RdOwn;
                r->c.tr[t->tr]++;
                served(r, t);
                snoop(r, i, targets, true);
                t->need_data = t->rd_pending = true;
                mem_read(r, false, t->lline, i);
            }
        } else if (op == OP_CLEAN_EVICT && sh) {
            t->tr = DIR_TR_S_CleanEvict;
            r->c.tr[t->tr]++;
            served(r, t);
            uint32_t v = e.vec & ~rb;
            set_entry(t, v ? DIR_S : DIR_I, v);
            msg_t m = response(r, t, OP_CMP, NULL);
            tx_push(r, &m);
            txn_end(r, i);
        } else {
            t->tr = DIR_TR_S_StaleWr;
            r->c.tr[t->tr]++;
            stale_or_violation(r, i);
        }
        return;
    }

    default: { /* EM */
        bool own = e.vec & rb;
        if (is_rd) {
            if (own) {
                t->tr = DIR_TR_EM_ReRead;
                r->c.tr[t->tr]++;
                violation(r, DIR_VIOL_DUP_REQ, &t->req);
                txn_end(r, i);
            } else {
                t->tr = op == OP_RD_SHARED ? DIR_TR_EM_RdS : DIR_TR_EM_RdOwn;
                r->c.tr[t->tr]++;
                served(r, t);
                t->need_data = true;
                snoop(r, i, e.vec, op != OP_RD_SHARED);
            }
        } else if (!own) {
            t->tr = DIR_TR_EM_StaleWr;
            r->c.tr[t->tr]++;
            stale_or_violation(r, i);
        } else {
            msg_t m = response(r, t, OP_CMP, NULL);
            if (op == OP_CLEAN_EVICT) {
                t->tr = DIR_TR_EM_CleanEvict;
                set_entry(t, DIR_I, 0);
            } else if (op == OP_DIRTY_EVICT) {
                t->tr = DIR_TR_EM_DirtyEvict;
                mem_write(r, false, t->lline, t->req.data, 0xff);
                set_entry(t, DIR_I, 0);
            } else { /* WT_WR */
                t->tr = DIR_TR_EM_WtWr;
                mem_write(r, false, t->lline, t->req.data, t->req.mask);
            }
            if (op != OP_CLEAN_EVICT && !(r->mutate & DIR_MUT_WR_NO_VERSION))
                set_version(t, t->req.ts);
            r->c.tr[t->tr]++;
            served(r, t);
            tx_push(r, &m); /* a write's CMP leaves when memory has taken it (the port is in order) */
            txn_end(r, i);
        }
        return;
    }
    }
}

/* The transaction becomes its line's active one: look its entry up (LNR lines have none). */
static void txn_start(dir_ctrl_ref_t *r, int i)
{
    txn_t *t = &r->t[i];
    if (t->lnr) {
        txn_decide(r, i);
        return;
    }
    dc_way_t *w = dc_find(r, t->lline);
    if (w) {
        r->c.dc_hits++;
        t->ent = w->e;
        txn_decide(r, i);
    } else {
        r->c.dc_misses++;
        t->st = T_FILL;
        mem_read(r, true, t->lline >> 2, i);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Events */

static void ev_memrsp(dir_ctrl_ref_t *r, const memrsp_t *p)
{
    txn_t *t = &r->t[p->txn];
    if (p->dir) {
        t->ent = ent_decode(&p->data[2 * (t->lline & 3)]);
        dc_install(r, t->lline, &t->ent);
        txn_decide(r, p->txn);
        return;
    }
    t->rd_pending = false;
    if (!t->have_data) { /* an owner's data that came meanwhile is newer than memory's */
        memcpy(t->data, p->data, sizeof t->data);
        t->have_data = true;
    }
    if (!t->await)
        txn_finish(r, p->txn);
}

static void ev_birsp(dir_ctrl_ref_t *r, const msg_t *m)
{
    r->c.birsp_rcvd++;
    r->c.op_in[m->opcode]++;
    int i = -1;
    if (m->src < MSG_MAX_CN)
        for (unsigned k = 0; k < r->cfg.txn_entries; k++) {
            const txn_t *t = &r->t[k];
            if (t->st == T_RUN && !t->lnr && t->req.addr == m->addr && (t->await >> m->src & 1)) {
                i = (int)k;
                break;
            }
        }
    if (i < 0) {
        violation(r, DIR_VIOL_BIRSP, m);
        return;
    }
    txn_t *t = &r->t[i];
    bool data = m->opcode == OP_BIRSP_I_DATA || m->opcode == OP_BIRSP_S_DATA;
    bool kept = m->opcode == OP_BIRSP_S || m->opcode == OP_BIRSP_S_DATA;
    /* Only the owner of an EM line may answer with data; only a BISNP_DATA lets the CN keep S. A
     * wrong answer is dropped: the transaction still awaits a valid one from that CN. */
    if ((kept && t->inv) || (data && t->tr != DIR_TR_EM_RdS && t->tr != DIR_TR_EM_RdOwn)) {
        violation(r, DIR_VIOL_BIRSP, m);
        return;
    }
    uint32_t b = 1u << m->src;
    t->await &= ~b;
    if ((m->flags & WIF_FLAG) && !(r->mutate & DIR_MUT_NO_STALE_BIT)) {
        t->ent.stale |= b;
        t->chg = true;
    }
    if (kept)
        t->kept_s = true;
    if (data && !(r->mutate & DIR_MUT_STALE_FORWARD)) {
        /* The owner's dirty line: to memory, and forwarded to the requester. */
        mem_write(r, false, t->lline, m->data, 0xff);
        memcpy(t->data, m->data, sizeof t->data);
        t->have_data = true;
        if (!(r->mutate & DIR_MUT_SNOOP_NO_VERSION))
            set_version(t, m->ts);
    }
    if (t->await)
        return;
    if (!t->need_data || t->have_data) {
        if (!t->rd_pending)
            txn_finish(r, i);
        /* else: S_RdOwn's read is still on its way; its response finishes the transaction. */
    } else if (!t->rd_pending) {
        t->rd_pending = true; /* the owner answered without data: memory is current */
        mem_read(r, false, t->lline, i);
    }
}

/* Takes the head of a REQ or RWD FIFO if it can: checked, then into the table behind the youngest
 * transaction of its line, if any. Returns false when it needs a free entry and there is none. */
static bool ev_new(dir_ctrl_ref_t *r, ring_t *q)
{
    const msg_t *m = ring_front(q);
    uint64_t l = 0;
    dir_viol_e v = DIR_VIOL_NONE;
    bool lnr_op = m->opcode == OP_LNR_RD || m->opcode == OP_LNR_WR;
    if (m->src >= MSG_MAX_CN)
        v = DIR_VIOL_BAD_MSG;
    else if (!addr_map(r, m->addr, &l))
        v = DIR_VIOL_ADDR;
    else if (in_scr(r, m->addr) == lnr_op)
        v = DIR_VIOL_REGION;
    if (v != DIR_VIOL_NONE) {
        r->c.op_in[m->opcode]++;
        violation(r, v, m);
        ring_pop(q);
        return true;
    }
    int i = -1;
    for (unsigned k = 0; k < r->cfg.txn_entries && i < 0; k++)
        if (r->t[k].st == T_FREE)
            i = (int)k;
    if (i < 0)
        return false;
    r->c.op_in[m->opcode]++;
    r->c.reqs++;
    txn_t *t = &r->t[i];
    memset(t, 0, sizeof *t);
    t->req = *m;
    t->lline = l;
    t->lnr = lnr_op;
    t->next = -1;
    t->seq = r->seq++;
    ring_pop(q);
    r->active++;
    if (r->active > r->c.max_active)
        r->c.max_active = r->active;

    /* The line's transactions: the active one first, then the waiting ones in arrival order. */
    int head = -1;
    for (unsigned k = 0; k < r->cfg.txn_entries; k++)
        if ((int)k != i && r->t[k].st != T_FREE && r->t[k].st != T_WAIT && r->t[k].req.addr == t->req.addr)
            head = (int)k;
    if (head < 0) {
        txn_start(r, i);
        return true;
    }
    r->c.waited++;
    t->st = T_WAIT;
    int tail = head;
    if (r->mutate & DIR_MUT_LIFO_WAIT) {
        t->next = r->t[head].next;
    } else {
        while (r->t[tail].next >= 0)
            tail = r->t[tail].next;
    }
    r->t[tail].next = i;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Link side */

static ring_t *in_fifo(dir_ctrl_ref_t *r, msg_class_t c)
{
    return c == CLS_REQ ? &r->in_req : c == CLS_RWD ? &r->in_rwd : c == CLS_BIRSP ? &r->in_bir : NULL;
}

bool dir_ctrl_ref_can_recv(const dir_ctrl_ref_t *r, const msg_t *m)
{
    if ((unsigned)m->opcode >= MSG_NUM_MSGS)
        return true;
    ring_t *q = in_fifo((dir_ctrl_ref_t *)r, msg_class(m->opcode));
    return !q || !r->cfg.crd_per_cls || q->n < r->cfg.crd_per_cls;
}

void dir_ctrl_ref_recv(dir_ctrl_ref_t *r, const msg_t *m)
{
    if ((unsigned)m->opcode >= MSG_NUM_MSGS) {
        violation(r, DIR_VIOL_BAD_MSG, m);
        return;
    }
    msg_class_t c = msg_class(m->opcode);
    ring_t *q = in_fifo(r, c);
    if (q) {
        ring_push(q, m);
    } else if (c == CLS_MGREQ || c == CLS_MGRSP || c == CLS_DUMP) {
        r->c.op_in[m->opcode]++;
        r->c.sw_rx++;
        if (r->cfg.sw_rx)
            r->cfg.sw_rx(r->cfg.sw_arg, m);
    } else { /* NDR, DRS, BISNP, DKREQ, DKRSP: not for a directory */
        r->c.op_in[m->opcode]++;
        violation(r, DIR_VIOL_BAD_MSG, m);
    }
}

void dir_ctrl_ref_tick(dir_ctrl_ref_t *r)
{
    r->cycle++;

    /* Send port: one message per cycle. */
    msg_t *out = ring_front(&r->txq);
    if (out) {
        msg_t m = *out;
        ring_pop(&r->txq);
        r->cfg.send(r->cfg.send_arg, &m);
    }

    /* Memory port: one request per cycle, in order; a write takes effect when issued, a read
     * returns the line as it is at its issue, mem_latency cycles later. */
    memreq_t *q = ring_front(&r->mq);
    if (q) {
        uint64_t *line = q->dir ? &r->dmem[q->addr * W] : &r->mem[q->addr * W];
        if (q->write) {
            for (unsigned k = 0; k < W; k++)
                if (q->mask >> k & 1)
                    line[k] = q->data[k];
        } else {
            memrsp_t p = {.due = r->cycle + r->cfg.mem_latency, .txn = q->txn, .dir = q->dir};
            memcpy(p.data, line, sizeof p.data);
            ring_push(&r->mrsp, &p);
        }
        ring_pop(&r->mq);
    }

    /* The engine: one event per cycle. A memory response, then a BIRSP, then a new RWD or REQ
     * (the two in turn, so that neither class can starve the other). */
    memrsp_t *p = ring_front(&r->mrsp);
    if (p && p->due <= r->cycle) {
        memrsp_t x = *p;
        ring_pop(&r->mrsp);
        ev_memrsp(r, &x);
    } else if (r->in_bir.n) {
        msg_t m = *(msg_t *)ring_front(&r->in_bir);
        ring_pop(&r->in_bir);
        ev_birsp(r, &m);
    } else {
        ring_t *first = r->rr_req_first ? &r->in_req : &r->in_rwd;
        ring_t *second = r->rr_req_first ? &r->in_rwd : &r->in_req;
        if (first->n && ev_new(r, first))
            r->rr_req_first = first == &r->in_rwd;
        else if (second->n && ev_new(r, second))
            r->rr_req_first = second == &r->in_rwd;
    }
    if (r->active == r->cfg.txn_entries && (r->in_req.n || r->in_rwd.n))
        r->c.table_full_cycles++;
}

bool dir_ctrl_ref_idle(const dir_ctrl_ref_t *r)
{
    return !r->in_req.n && !r->in_rwd.n && !r->in_bir.n && !r->txq.n && !r->mq.n && !r->mrsp.n && !r->active;
}

uint64_t dir_ctrl_ref_cycle(const dir_ctrl_ref_t *r) { return r->cycle; }
const dir_ref_counts_t *dir_ctrl_ref_counts(const dir_ctrl_ref_t *r) { return &r->c; }
unsigned dir_ctrl_ref_active(const dir_ctrl_ref_t *r) { return r->active; }

const dir_ref_viol_t *dir_ctrl_ref_violations(const dir_ctrl_ref_t *r, size_t *n)
{
    *n = r->nviol;
    return r->viol;
}

/* ---------------------------------------------------------------------------------------------
 * Peek and poke */

bool dir_ctrl_ref_peek_entry(const dir_ctrl_ref_t *r, uint64_t addr, dir_entry_t *e)
{
    uint64_t l;
    if (!addr_map(r, addr, &l) || !in_scr(r, addr))
        return false;
    dc_way_t *w = dc_find((dir_ctrl_ref_t *)r, l);
    *e = w ? w->e : ent_decode(&r->dmem[(l >> 2) * W + 2 * (l & 3)]);
    return true;
}

bool dir_ctrl_ref_poke_entry(dir_ctrl_ref_t *r, uint64_t addr, const dir_entry_t *e)
{
    uint64_t l;
    if (!addr_map(r, addr, &l) || !in_scr(r, addr))
        return false;
    dc_way_t *w = dc_find(r, l);
    if (w)
        w->valid = false;
    ent_encode(e, &r->dmem[(l >> 2) * W + 2 * (l & 3)]);
    return true;
}

bool dir_ctrl_ref_mem_peek(const dir_ctrl_ref_t *r, uint64_t addr, uint64_t data[MSG_WORDS_PER_LINE])
{
    uint64_t l;
    if (!addr_map(r, addr, &l))
        return false;
    memcpy(data, &r->mem[l * W], W * sizeof *data);
    return true;
}

bool dir_ctrl_ref_mem_poke(dir_ctrl_ref_t *r, uint64_t addr, const uint64_t data[MSG_WORDS_PER_LINE])
{
    uint64_t l;
    if (!addr_map(r, addr, &l))
        return false;
    memcpy(&r->mem[l * W], data, W * sizeof *data);
    return true;
}

void dir_ctrl_ref_dump(const dir_ctrl_ref_t *r, FILE *f)
{
    static const char *const st[] = {"free", "wait", "fill", "run"};
    fprintf(f, "  dir_ctrl_ref MN %u, cycle %llu: %u transactions; in REQ %zu RWD %zu BIRSP %zu; to send %zu; "
               "memory requests %zu, reads on their way %zu\n",
            r->cfg.mn_idx, (unsigned long long)r->cycle, r->active, r->in_req.n, r->in_rwd.n, r->in_bir.n,
            r->txq.n, r->mq.n, r->mrsp.n);
    for (unsigned k = 0; k < r->cfg.txn_entries; k++) {
        const txn_t *t = &r->t[k];
        if (t->st == T_FREE)
            continue;
        fprintf(f, "    txn %u: %s %s from CN %u line 0x%llx (arrival %llu), %s, entry %s vec 0x%x stale 0x%x "
                   "version %u, awaiting answers 0x%x%s, next %d\n",
                k, st[t->st], msg_name(t->req.opcode), t->req.src, (unsigned long long)t->req.addr,
                (unsigned long long)t->seq, t->st == T_RUN ? dir_tr_name(t->tr) : "-",
                t->ent.state == DIR_I ? "I" : t->ent.state == DIR_S ? "S" : "EM", t->ent.vec, t->ent.stale,
                t->ent.ver, t->await,
                t->rd_pending ? ", memory data" : "", t->next);
    }
}
