/* A flat, coherent test memory behind mem_if_t (see flat_mem.h). */
#include "cn/flat_mem.h"

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/addr.h"
#include "base/rng.h"
#include "msg_defs.h"

typedef enum { OP_LOAD, OP_STORE, OP_RMW, OP_FLUSH, OP_ACQUIRE } op_kind_e;

typedef struct fm_port fm_port_t;

/* One access in flight: performed at its event. Ops are recycled through a free list. */
typedef struct fm_op {
    struct fm_op *next_free;
    fm_port_t *port;
    op_kind_e kind;
    uint64_t addr; /* word (load, rmw), line (store, flush) */
    uint8_t mask;
    bool wt;
    mem_rmw_e rmw;
    uint64_t a, b;
    uint64_t words[ADDR_WORDS_PER_LINE];
    uint64_t old; /* rmw: the value done() reports */
    mem_commit_fn committed;
    mem_gate_fn gate;
    mem_rmw_gate_fn rgate;
    uint64_t nv; /* a pinned rmw: the word it will write */
    mem_done_fn done;
    void *dobj;
    uint64_t tag;
} fm_op_t;

struct fm_port {
    flat_mem_t *fm;
    unsigned id;
    rng_t rng;
    mem_if_t mi;
    flat_mem_counts_t n;
    fm_op_t *parked; /* a gated store its gate holds back, or a pinned rmw */
    bool pinned;     /* its rmw holds line pin_line between read and write */
    uint64_t pin_line;
};

struct flat_mem {
    kernel_t *k;
    flat_mem_params_t p;
    fm_port_t *ports;
    /* Open-addressing hash map addr -> value; key UINT64_MAX marks an empty slot (no aligned
     * address is odd). */
    uint64_t *keys, *vals;
    size_t cap, used;
    fm_op_t *free_ops;
    uint64_t in_flight;
};

#define EMPTY_KEY UINT64_MAX

static size_t slot_of(uint64_t a, size_t cap)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

static size_t find_slot(const flat_mem_t *fm, uint64_t a)
{
    size_t i = slot_of(a, fm->cap);
    while (fm->keys[i] != EMPTY_KEY && fm->keys[i] != a)
        i = (i + 1) & (fm->cap - 1);
    return i;
}

static void grow(flat_mem_t *fm)
{
    size_t oc = fm->cap;
    uint64_t *ok = fm->keys, *ov = fm->vals;
    fm->cap = oc * 2;
    fm->keys = malloc(fm->cap * sizeof *fm->keys);
    fm->vals = malloc(fm->cap * sizeof *fm->vals);
    if (!fm->keys || !fm->vals)
        abort(); /* a test memory out of memory: nothing sensible to do */
    memset(fm->keys, 0xff, fm->cap * sizeof *fm->keys);
    for (size_t i = 0; i < oc; i++)
        if (ok[i] != EMPTY_KEY) {
            size_t j = find_slot(fm, ok[i]);
            fm->keys[j] = ok[i];
            fm->vals[j] = ov[i];
        }
    free(ok);
    free(ov);
}

static uint64_t map_get(const flat_mem_t *fm, uint64_t key)
{
    size_t i = find_slot(fm, key);
    return fm->keys[i] == EMPTY_KEY ? 0 : fm->vals[i];
}

static void map_put(flat_mem_t *fm, uint64_t addr, uint64_t v)
{
    if (2 * (fm->used + 1) > fm->cap)
        grow(fm);
    size_t i = find_slot(fm, addr);
    if (fm->keys[i] == EMPTY_KEY) {
        fm->keys[i] = addr;
        fm->used++;
    }
    fm->vals[i] = v;
}

/* A line's version lives in the same map under the key line + 1: odd, so never a word's. */
static uint64_t ver_key(uint64_t line) { return addr_line(line) + 1; }

uint64_t flat_mem_peek(const flat_mem_t *fm, uint64_t addr)
{
    assert(addr_aligned(addr));
    return map_get(fm, addr);
}

void flat_mem_poke(flat_mem_t *fm, uint64_t addr, uint64_t v)
{
    assert(addr_aligned(addr));
    map_put(fm, addr, v);
}

uint64_t flat_mem_version(const flat_mem_t *fm, uint64_t addr)
{
    return addr_is_local(addr) ? 0 : map_get(fm, ver_key(addr));
}

/* A commit to addr's line: its new version, mod 2^MSG_TS_W (local lines: 0). */
static unsigned commit_version(flat_mem_t *fm, uint64_t addr)
{
    if (addr_is_local(addr))
        return 0;
    uint64_t v = map_get(fm, ver_key(addr)) + 1;
    map_put(fm, ver_key(addr), v);
    return (unsigned)(v & ((1u << MSG_TS_W) - 1));
}

/* ---------------------------------------------------------------------------------------------
 * Accesses */

static fm_op_t *op_new(fm_port_t *p, op_kind_e kind)
{
    flat_mem_t *fm = p->fm;
    fm_op_t *o = fm->free_ops;
    if (o)
        fm->free_ops = o->next_free;
    else if (!(o = malloc(sizeof *o)))
        abort();
    memset(o, 0, sizeof *o);
    o->port = p;
    o->kind = kind;
    fm->in_flight++;
    return o;
}

static void op_free(fm_op_t *o)
{
    flat_mem_t *fm = o->port->fm;
    fm->in_flight--;
    o->next_free = fm->free_ops;
    fm->free_ops = o;
}

static uint64_t latency(fm_port_t *p)
{
    const flat_mem_params_t *q = &p->fm->p;
    return rng_range(&p->rng, q->lat_min_ps, q->lat_max_ps);
}

/* The second half of a write-through access: the MN's completion. */
static void ev_wt_done(void *obj, uint64_t arg)
{
    (void)arg;
    fm_op_t *o = obj;
    o->done(o->dobj, o->tag, o->old);
    op_free(o);
}

/* A port other than p has its rmw holding addr's line (between its read and its write). */
static bool line_pinned_by_other(const fm_port_t *p, uint64_t addr)
{
    const flat_mem_t *fm = p->fm;
    for (unsigned i = 0; i < fm->p.max_ports; i++) {
        const fm_port_t *q = &fm->ports[i];
        if (q != p && q->pinned && q->pin_line == addr_line(addr))
            return true;
    }
    return false;
}

static void ev_perform(void *obj, uint64_t arg)
{
    (void)arg;
    fm_op_t *o = obj;
    flat_mem_t *fm = o->port->fm;
    if (line_pinned_by_other(o->port, o->addr)) {
        kernel_after(fm->k, 1000, ev_perform, o, 0); /* tries again after the write, 1 ns at a time */
        return;
    }
    switch (o->kind) {
    case OP_LOAD: {
        uint64_t v = flat_mem_peek(fm, o->addr);
        o->done(o->dobj, o->tag, v);
        op_free(o);
        return;
    }
    case OP_FLUSH:
    case OP_ACQUIRE: /* one copy: write permission is always there */
        o->done(o->dobj, o->tag, 0);
        op_free(o);
        return;
    case OP_STORE:
        if (o->gate && !o->gate(o->dobj, o->tag)) {
            assert(!o->port->parked);
            o->port->parked = o;
            return;
        }
        for (unsigned w = 0; w < ADDR_WORDS_PER_LINE; w++)
            if (o->mask >> w & 1u)
                flat_mem_poke(fm, o->addr + 8u * w, o->words[w]);
        o->port->n.busy_stores--;
        o->committed(o->dobj, o->tag, 0, commit_version(fm, o->addr));
        o->old = 0;
        break;
    case OP_RMW: {
        uint64_t old = flat_mem_peek(fm, o->addr), nw = old;
        bool writes = true;
        switch (o->rmw) {
        case MEM_RMW_CAS:
            writes = old == o->a;
            nw = o->b;
            break;
        case MEM_RMW_FADD: nw = old + o->a; break;
        case MEM_RMW_SWAP: nw = o->a; break;
        }
        if (writes && o->rgate && !o->rgate(o->dobj, o->tag, nw)) {
            assert(!o->port->parked);
            o->port->parked = o;
            o->port->pinned = true;
            o->port->pin_line = addr_line(o->addr);
            o->old = old;
            o->nv = nw;
            return;
        }
        if (writes) {
            flat_mem_poke(fm, o->addr, nw);
            unsigned ver = commit_version(fm, o->addr);
            if (o->committed)
                o->committed(o->dobj, o->tag, nw, ver);
        }
        o->old = old;
        break;
    }
    }
    if (o->wt) {
        kernel_after(fm->k, fm->p.wt_extra_ps, ev_wt_done, o, 0);
        return;
    }
    o->done(o->dobj, o->tag, o->old);
    op_free(o);
}

static void fm_load(void *obj, unsigned core, uint64_t addr, mem_done_fn done, void *dobj, uint64_t tag)
{
    (void)core;
    fm_port_t *p = obj;
    assert(addr_aligned(addr));
    p->n.loads++;
    fm_op_t *o = op_new(p, OP_LOAD);
    o->addr = addr;
    o->done = done;
    o->dobj = dobj;
    o->tag = tag;
    kernel_after(p->fm->k, latency(p), ev_perform, o, 0);
}

/* One copy, always readable, unless another port's rmw holds the line. */
static bool fm_load_hit(void *obj, unsigned core, uint64_t addr, uint64_t *value)
{
    (void)core;
    fm_port_t *p = obj;
    assert(addr_aligned(addr));
    if (line_pinned_by_other(p, addr))
        return false;
    *value = flat_mem_peek(p->fm, addr);
    return true;
}

static void fm_prefetch_x(void *obj, unsigned core, uint64_t addr)
{
    (void)core;
    fm_port_t *p = obj;
    p->n.prefetches++;
    if (addr_is_local(addr))
        p->n.prefetch_local++;
    p->n.last_prefetch = addr;
}

static void fm_acquire(void *obj, unsigned core, uint64_t addr, mem_done_fn done, void *dobj, uint64_t tag)
{
    (void)core;
    fm_port_t *p = obj;
    p->n.acquires++;
    fm_op_t *o = op_new(p, OP_ACQUIRE);
    o->addr = addr_line(addr);
    o->done = done;
    o->dobj = dobj;
    o->tag = tag;
    kernel_after(p->fm->k, latency(p), ev_perform, o, 0);
}

static void store_op(fm_port_t *p, uint64_t line, uint8_t mask, const uint64_t *words, bool wt, mem_gate_fn gate,
                     mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    assert(addr_line(line) == line && mask != 0);
    p->n.stores++;
    p->n.wt_stores += wt;
    if (++p->n.busy_stores > p->n.max_busy_stores)
        p->n.max_busy_stores = p->n.busy_stores;
    fm_op_t *o = op_new(p, OP_STORE);
    o->addr = line;
    o->mask = mask;
    o->wt = wt;
    for (unsigned w = 0; w < ADDR_WORDS_PER_LINE; w++)
        o->words[w] = mask >> w & 1u ? words[w] : 0;
    o->gate = gate;
    o->committed = committed;
    o->done = done;
    o->dobj = dobj;
    o->tag = tag;
    kernel_after(p->fm->k, latency(p), ev_perform, o, 0);
}

static void fm_store(void *obj, unsigned core, uint64_t line, uint8_t mask, const uint64_t *words, bool wt,
                     mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    (void)core;
    store_op(obj, line, mask, words, wt, NULL, committed, done, dobj, tag);
}

static void fm_store_gated(void *obj, unsigned core, uint64_t line, uint8_t mask, const uint64_t *words,
                           mem_gate_fn gate, mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    (void)core;
    fm_port_t *p = obj;
    p->n.gated_stores++;
    store_op(p, line, mask, words, false, gate, committed, done, dobj, tag);
}

/* A pinned rmw writes now and releases its line. */
static void ev_unpin(void *obj, uint64_t arg)
{
    (void)arg;
    fm_op_t *o = obj;
    flat_mem_t *fm = o->port->fm;
    o->port->pinned = false;
    flat_mem_poke(fm, o->addr, o->nv);
    unsigned ver = commit_version(fm, o->addr);
    if (o->committed)
        o->committed(o->dobj, o->tag, o->nv, ver);
    o->done(o->dobj, o->tag, o->old);
    op_free(o);
}

/* The parked store commits at once: one copy, write permission never goes away; a pinned rmw
 * writes at once. */
static void fm_store_go(void *obj, unsigned core)
{
    (void)core;
    fm_port_t *p = obj;
    fm_op_t *o = p->parked;
    assert(o);
    p->parked = NULL;
    if (o->kind == OP_RMW) {
        kernel_after(p->fm->k, 0, ev_unpin, o, 0);
        return;
    }
    o->gate = NULL;
    kernel_after(p->fm->k, 0, ev_perform, o, 0);
}

static void rmw_op(fm_port_t *p, uint64_t addr, mem_rmw_e op, uint64_t a, uint64_t b, bool wt, mem_rmw_gate_fn gate,
                   mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    assert(addr_aligned(addr));
    p->n.rmws++;
    fm_op_t *o = op_new(p, OP_RMW);
    o->addr = addr;
    o->rmw = op;
    o->a = a;
    o->b = b;
    o->wt = wt;
    o->rgate = gate;
    o->committed = committed;
    o->done = done;
    o->dobj = dobj;
    o->tag = tag;
    kernel_after(p->fm->k, latency(p), ev_perform, o, 0);
}

static void fm_rmw(void *obj, unsigned core, uint64_t addr, mem_rmw_e op, uint64_t a, uint64_t b, bool wt,
                   mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    (void)core;
    rmw_op(obj, addr, op, a, b, wt, NULL, committed, done, dobj, tag);
}

static void fm_rmw_gated(void *obj, unsigned core, uint64_t addr, mem_rmw_e op, uint64_t a, uint64_t b,
                         mem_rmw_gate_fn gate, mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag)
{
    (void)core;
    fm_port_t *p = obj;
    p->n.gated_rmws++;
    rmw_op(p, addr, op, a, b, false, gate, committed, done, dobj, tag);
}

static void fm_flush(void *obj, unsigned core, uint64_t addr, mem_done_fn done, void *dobj, uint64_t tag)
{
    (void)core;
    fm_port_t *p = obj;
    p->n.flushes++;
    fm_op_t *o = op_new(p, OP_FLUSH);
    o->addr = addr_line(addr);
    o->done = done;
    o->dobj = dobj;
    o->tag = tag;
    kernel_after(p->fm->k, latency(p), ev_perform, o, 0);
}

/* ---------------------------------------------------------------------------------------------
 * Life cycle */

flat_mem_t *flat_mem_create(kernel_t *k, const flat_mem_params_t *p)
{
    if (!k || !p || p->lat_min_ps > p->lat_max_ps || p->max_ports == 0)
        return NULL;
    flat_mem_t *fm = calloc(1, sizeof *fm);
    if (!fm)
        return NULL;
    fm->k = k;
    fm->p = *p;
    fm->cap = 1024;
    fm->keys = malloc(fm->cap * sizeof *fm->keys);
    fm->vals = malloc(fm->cap * sizeof *fm->vals);
    fm->ports = calloc(p->max_ports, sizeof *fm->ports);
    if (!fm->keys || !fm->vals || !fm->ports) {
        flat_mem_free(fm);
        return NULL;
    }
    memset(fm->keys, 0xff, fm->cap * sizeof *fm->keys);
    for (unsigned i = 0; i < p->max_ports; i++) {
        fm_port_t *q = &fm->ports[i];
        char name[48];
        snprintf(name, sizeof name, "flat_mem.port%u", i);
        q->fm = fm;
        q->id = i;
        rng_init_named(&q->rng, p->seed, name);
        q->mi = (mem_if_t){.obj = q,
                           .load = fm_load,
                           .load_hit = fm_load_hit,
                           .prefetch_x = fm_prefetch_x,
                           .acquire = fm_acquire,
                           .store = fm_store,
                           .store_gated = fm_store_gated,
                           .store_go = fm_store_go,
                           .rmw = fm_rmw,
                           .rmw_gated = fm_rmw_gated,
                           .flush = fm_flush};
    }
    return fm;
}

void flat_mem_free(flat_mem_t *fm)
{
    if (!fm)
        return;
    while (fm->free_ops) {
        fm_op_t *o = fm->free_ops;
        fm->free_ops = o->next_free;
        free(o);
    }
    free(fm->keys);
    free(fm->vals);
    free(fm->ports);
    free(fm);
}

const mem_if_t *flat_mem_port(flat_mem_t *fm, unsigned id)
{
    assert(id < fm->p.max_ports);
    return &fm->ports[id].mi;
}

void flat_mem_set_latency(flat_mem_t *fm, uint64_t lat_min_ps, uint64_t lat_max_ps)
{
    assert(lat_min_ps <= lat_max_ps);
    fm->p.lat_min_ps = lat_min_ps;
    fm->p.lat_max_ps = lat_max_ps;
}

const flat_mem_counts_t *flat_mem_counts(const flat_mem_t *fm, unsigned id)
{
    assert(id < fm->p.max_ports);
    return &fm->ports[id].n;
}

uint64_t flat_mem_in_flight(const flat_mem_t *fm) { return fm->in_flight; }
