/* The CN's memory system (cn_mem.h), its accesses: from the core's call to completion. An access
 * looks its core's caches up, is performed at the L3 after its level's round trip when the CN can
 * (the CN's own coherence actions included), else waits on its line in flight (one MSHR per line)
 * until memory has answered. Also the lines in flight themselves. */
#include "cn/cn_mem_priv.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Small helpers */

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

lt_t *cn_mem_lt_get(cn_mem_t *c, uint64_t key)
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

op_t *cn_mem_op_new(cn_mem_t *c, int kind, unsigned core, uint64_t addr)
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

void cn_mem_op_done(cn_mem_t *c, op_t *o, uint64_t v)
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
 * Performing accesses */

static void start_wt(cn_mem_t *c, op_t *o, uint8_t mask, const uint64_t *vals)
{
    lt_t *t = cn_mem_lt_get(c, o->key);
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
    cn_mem_send_req(c, t, t->lk == LK_SCR ? OP_WT_WR : OP_LNR_WR, o->core);
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
void cn_mem_rmw_write(cn_mem_t *c, op_t *o, cache_line_t *a, cache_line_t *L, uint64_t old, uint64_t nv)
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
        cn_mem_op_done(c, o, old);
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
                    cn_mem_pv_inval(c, i, L);
            if (b)
                (*c->s.upgrades_local)++;
            cn_mem_pv_install(c, core, L, CN_PV_X);
        } else {
            if (L->owner >= 0 && L->owner != (int)core)
                cn_mem_pv_downgrade(c, (unsigned)L->owner, L);
            bool alone = !(L->pres & ~(1u << core));
            cn_mem_pv_install(c, core, L, alone && ownable(L) ? CN_PV_X : CN_PV_S);
        }
    } else {
        cn_mem_pv_install(c, core, L, lvl == 1 ? a->state : b->state);
    }
    cache_touch(c->l3, L);
    a = cache_find(c->l1[core], o->key);
    assert(a && (!need_x || a->state == CN_PV_X));
    unsigned w = addr_word(o->addr);
    switch (o->kind) {
    case K_LOAD:
        cn_mem_op_done(c, o, a->data[w]);
        return;
    case K_PREFETCH:
        cn_mem_op_done(c, o, 0);
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
            cn_mem_op_done(c, o, 0);
        return;
    case K_RMW: {
        uint64_t old = a->data[w];
        bool writes;
        uint64_t nv = rmw_new(o, old, &writes);
        if (!writes) {
            cn_mem_op_done(c, o, old);
            return;
        }
        if (o->rgate && !o->rgate(o->dobj, o->tag, nv)) {
            /* Pinned until store_go: snoops held, the line kept, the other cores wait. */
            cn_mem_lt_get(c, o->key)->pinned = true;
            assert(!c->parked[core]);
            c->parked[core] = o;
            o->old = old;
            o->nv = nv;
            (*c->s.pins)++;
            return;
        }
        cn_mem_rmw_write(c, o, a, L, old, nv);
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
    if (!L || !cn_mem_l3_evict(c, L, o))
        cn_mem_op_done(c, o, 0);
}

static void start_request(cn_mem_t *c, lt_t *t);

/* Performs the waiting accesses of t that can be performed, in arrival order; flushes too when
 * with_flush (a flush needs nothing in flight). The others stay, in order. */
void cn_mem_run_waiters(cn_mem_t *c, lt_t *t, bool with_flush)
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
void cn_mem_line_kick(cn_mem_t *c, lt_t *t)
{
    if (t->out == CN_OUT_NONE && !t->alloc_wait && !t->pinned) {
        cn_mem_run_waiters(c, t, true);
        /* An rmw among the waiters may have pinned the line: the rest wait for its unpin. */
        if (t->out == CN_OUT_NONE && t->wq && !t->pinned)
            start_request(c, t);
    }
    lt_maybe_free(c, t);
}

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
        cn_mem_send_req(c, t, OP_RD_UPGRADE, core);
        return;
    }
    if (!cn_mem_l3_reserve(c, t)) {
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
        dram_read(c->dram, local_dline(t->key), cn_mem_local_fill, c, (uintptr_t)t);
        break;
    case LK_LNR:
        t->out = CN_OUT_LNR_RD;
        cn_mem_send_req(c, t, OP_LNR_RD, core);
        break;
    default:
        t->out = need_x ? CN_OUT_RD_OWN : CN_OUT_RD_SHARED;
        cn_mem_send_req(c, t, need_x ? OP_RD_OWN : OP_RD_SHARED, core);
    }
}

/* Lines that waited for an L3 way try again (something may have left its set). */
void cn_mem_retry_alloc(cn_mem_t *c)
{
    lt_t *t = c->alloc_head;
    c->alloc_head = NULL;
    while (t) {
        lt_t *next = t->anext;
        t->alloc_wait = false;
        t->anext = NULL;
        cn_mem_line_kick(c, t);
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
        t = cn_mem_lt_get(c, o->key);
    else if (is_read(t->out))
        (*c->s.merges)++;
    lt_enqueue(t, o);
    cn_mem_line_kick(c, t);
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
        cn_mem_op_schedule(c, o, more);
        return;
    }
    op_try(c, o);
}

/* o's lookup is done after the round trip of the level that holds what it needs (the L3's for a
 * miss, which then goes on to memory). */
void cn_mem_op_schedule(cn_mem_t *c, op_t *o, uint64_t cycles)
{
    uint64_t t = clock_edge(&c->clk, clock_cycle_at_or_after(&c->clk, c->k->now) + cycles);
    kernel_at(c->k, t, ev_try, c, (uintptr_t)o);
}

void cn_mem_op_start(cn_mem_t *c, op_t *o)
{
    o->lvl = own_level(c, o);
    cn_mem_op_schedule(c, o, level_cycles(c, o->lvl));
}

