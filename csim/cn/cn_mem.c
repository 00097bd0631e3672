/* The memory system of one compute node (cn_mem.h): its creation and statistics, and the mem_if
 * through which the cores reach it. The rest is in its parts (cn_mem_priv.h lists them). */
#include "cn/cn_mem.h"

#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>

#include "cn/cn_mem_priv.h"

const char *const cn_mem_kind_name[K_NUM] = {"load", "store", "rmw", "prefetch_x", "flush"};

/* ---------------------------------------------------------------------------------------------
 * mem_if */

static void mi_load(void *obj, unsigned core, uint64_t addr, mem_done_fn done, void *dobj, uint64_t tag)
{
    cn_mem_t *c = obj;
    op_t *o = cn_mem_op_new(c, K_LOAD, core, addr);
    o->done = done, o->dobj = dobj, o->tag = tag;
    cn_mem_op_start(c, o);
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
    cn_mem_op_start(c, cn_mem_op_new(c, K_PREFETCH, core, addr));
}

/* A prefetch_x with an answer: done when the core's L1 holds the line with write permission (an
 * L1 hit pays the L1's round trip). Counted as a prefetch_x. */
static void mi_acquire(void *obj, unsigned core, uint64_t addr, mem_done_fn done, void *dobj, uint64_t tag)
{
    cn_mem_t *c = obj;
    op_t *o = cn_mem_op_new(c, K_PREFETCH, core, addr & ~(uint64_t)7);
    o->done = done, o->dobj = dobj, o->tag = tag;
    cn_mem_op_start(c, o);
}

static void store_op(cn_mem_t *c, unsigned core, uint64_t line, uint8_t mask, const uint64_t *words, bool wt,
                     mem_gate_fn gate, mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    op_t *o = cn_mem_op_new(c, K_STORE, core, addr_line(line));
    o->mask = mask;
    for (unsigned w = 0; w < W; w++)
        if (mask >> w & 1)
            o->words[w] = words[w];
    o->wt = wt && !addr_is_local(line);
    o->gate = gate;
    o->committed = committed, o->done = done, o->dobj = dobj, o->tag = tag;
    cn_mem_op_start(c, o);
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
    cn_mem_rmw_write(c, o, a, L, o->old, o->nv);
    if (t->has_held) {
        t->has_held = false;
        msg_t h = t->held;
        cn_mem_snoop(c, &h);
    }
    cn_mem_line_kick(c, t);
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
    cn_mem_op_schedule(c, o, 0);
}

static void rmw_op(cn_mem_t *c, unsigned core, uint64_t addr, mem_rmw_e op, uint64_t a, uint64_t b, bool wt,
                   mem_rmw_gate_fn gate, mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    op_t *o = cn_mem_op_new(c, K_RMW, core, addr);
    if (line_kind(c, o->key) == LK_LNR)
        (*c->s.lnr_rmws)++; /* atomic only inside this CN: an error the system's check reports */
    o->rop = op, o->a = a, o->b = b;
    o->wt = wt && !addr_is_local(addr);
    o->rgate = gate;
    o->committed = committed, o->done = done, o->dobj = dobj, o->tag = tag;
    cn_mem_op_start(c, o);
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
    op_t *o = cn_mem_op_new(c, K_FLUSH, core, addr & ~(uint64_t)7);
    o->done = done, o->dobj = dobj, o->tag = tag;
    cn_mem_op_start(c, o);
}

const mem_if_t *cn_mem_if(cn_mem_t *c) { return &c->mif; }

void cn_mem_fail(cn_mem_t *c) { c->failed = true; }

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
        s->acc[k] = ctr(c, st, "accesses of this kind from the cores", "acc.%s", cn_mem_kind_name[k]);
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
