/* The functional runner (see wl_func.h). */
#include "wl_func.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/addr.h"
#include "base/config.h"
#include "base/rng.h"
#include "base/stats.h"
#include "cn/coro.h"

#define STACK_BYTES (256u * 1024u)
#define EMPTY_KEY UINT64_MAX

/* ------------------------------------------------------------------------------------------------
 * Sparse memory: a hash map from word key to value, absent = 0. A remote word's key is its
 * address; a local word's key also carries its CN (local addresses are below 2^48). */

typedef struct mem_map {
    uint64_t *key, *val;
    size_t mask, n;
} mem_map_t;

static uint64_t hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static bool map_init(mem_map_t *m, size_t cap)
{
    m->mask = cap - 1;
    m->n = 0;
    m->key = malloc(cap * sizeof *m->key);
    m->val = malloc(cap * sizeof *m->val);
    if (!m->key || !m->val)
        return false;
    memset(m->key, 0xff, cap * sizeof *m->key);
    return true;
}

static size_t map_slot(const mem_map_t *m, uint64_t k)
{
    size_t s = (size_t)hash64(k) & m->mask;
    while (m->key[s] != EMPTY_KEY && m->key[s] != k)
        s = (s + 1) & m->mask;
    return s;
}

static uint64_t map_get(const mem_map_t *m, uint64_t k)
{
    size_t s = map_slot(m, k);
    return m->key[s] == EMPTY_KEY ? 0 : m->val[s];
}

static void map_put(mem_map_t *m, uint64_t k, uint64_t v)
{
    size_t s = map_slot(m, k);
    if (m->key[s] != EMPTY_KEY) {
        m->val[s] = v;
        return;
    }
    m->key[s] = k;
    m->val[s] = v;
    if (++m->n * 4 <= (m->mask + 1) * 3)
        return;
    mem_map_t g;
    if (!map_init(&g, (m->mask + 1) * 2)) {
        fprintf(stderr, "wl_func: out of memory\n");
        abort();
    }
    for (size_t i = 0; i <= m->mask; i++)
        if (m->key[i] != EMPTY_KEY) {
            size_t t = map_slot(&g, m->key[i]);
            g.key[t] = m->key[i];
            g.val[t] = m->val[i];
        }
    g.n = m->n;
    free(m->key);
    free(m->val);
    *m = g;
}

static void map_free(mem_map_t *m)
{
    free(m->key);
    free(m->val);
}

/* ------------------------------------------------------------------------------------------------
 * The Large Non-coherent Region as real hardware caches it: each CN keeps its own copies of LNR
 * lines (read from memory on first use, written by its stores), which nobody else's writes
 * update; a flush writes a dirty copy back (the whole line, or its dirty words with
 * mem.lnr_writeback = word) and drops it, and so does an eviction, at random moments and when a
 * CN holds LNR_CAP lines. */

#define LNR_CAP 32         /* lines of the LNR a CN holds at most */
#define LNR_EVICT_P 0.002  /* chance per call that some CN evicts one of its LNR lines */

typedef struct lnr_copy {
    uint64_t line;
    uint64_t w[ADDR_WORDS_PER_LINE];
    uint8_t dirty; /* word i written since the line was read */
} lnr_copy_t;

typedef struct lnr_cache {
    lnr_copy_t l[LNR_CAP];
    unsigned n;
} lnr_cache_t;

/* ------------------------------------------------------------------------------------------------
 * The runner */

typedef struct fthread {
    wl_thread_t t; /* first: a wl_thread_t * is an fthread_t * */
    struct wl_func *f;
    coro_t *co;
    const char *last_op; /* for the stall report */
    uint64_t last_addr;
} fthread_t;

struct wl_func {
    const workload_t *w;
    const sim_config_t *cfg;
    unsigned nthreads, num_cn;
    uint64_t seed;
    wl_env_t env;
    unsigned *thread_cn;
    void *state;
    bool set_up;
    mem_map_t mem;
    oracle_t *oracle;
    uint64_t remote_limit, remote_top;
    uint64_t lnr_limit, lnr_top; /* the non-coherent region: [remote_limit, lnr_limit), cached per CN */
    uint64_t local_limit, *local_top; /* per CN */
    fthread_t *th;
    rng_t sched;
    double burst;          /* chance that the thread just run runs the next call too */
    uint64_t stall_limit, since_write;
    char fault[WL_ERR_MAX]; /* a thread's bad access: the run stops */
    wl_func_stats_t st;
    stats_t wst; /* the workload's own counters (wl_env_ops_t.counter) */
    lnr_cache_t *lnr; /* per CN: its copies of LNR lines */
    unsigned lnr_lines; /* copies held, over all CNs (random evictions only while there are some) */
    uint64_t live;      /* the membership (wl_func_fail_cn): bit i while thread i lives */
    struct {
        unsigned cn;
        uint64_t after; /* calls after which CN cn fails */
    } fails[WL_FUNC_FAILS]; /* the failures to come (wl_func_fail_cn), earliest first */
    unsigned nfails;
};

static bool is_lnr(const struct wl_func *f, uint64_t addr) { return !addr_is_local(addr) && addr >= f->remote_limit; }

/* Writes copy k of CN cn back if dirty, and drops it. */
static void lnr_evict(struct wl_func *f, unsigned cn, unsigned k)
{
    lnr_cache_t *c = &f->lnr[cn];
    lnr_copy_t *x = &c->l[k];
    uint8_t back = f->cfg->mem.lnr_writeback == CFG_LNR_WB_WORD ? x->dirty : x->dirty ? 0xff : 0;
    for (unsigned i = 0; i < ADDR_WORDS_PER_LINE; i++)
        if (back >> i & 1)
            map_put(&f->mem, x->line + 8u * i, x->w[i]);
    *x = c->l[--c->n];
    f->lnr_lines--;
}

/* The index of CN cn's copy of addr's line, or -1. */
static int lnr_find(const struct wl_func *f, unsigned cn, uint64_t addr)
{
    const lnr_cache_t *c = &f->lnr[cn];
    for (unsigned k = 0; k < c->n; k++)
        if (c->l[k].line == addr_line(addr))
            return (int)k;
    return -1;
}

/* CN cn's copy of addr's line, read from memory when it has none (evicting one when full). */
static lnr_copy_t *lnr_copy(struct wl_func *f, unsigned cn, uint64_t addr)
{
    lnr_cache_t *c = &f->lnr[cn];
    uint64_t line = addr_line(addr);
    int k = lnr_find(f, cn, addr);
    if (k >= 0)
        return &c->l[k];
    if (c->n == LNR_CAP)
        lnr_evict(f, cn, (unsigned)rng_below(&f->sched, LNR_CAP));
    lnr_copy_t *x = &c->l[c->n++];
    f->lnr_lines++;
    *x = (lnr_copy_t){.line = line};
    for (unsigned i = 0; i < ADDR_WORDS_PER_LINE; i++)
        x->w[i] = map_get(&f->mem, line + 8u * i);
    return x;
}

/* CN cn flushes addr's line: its copy, if any, goes back and away. */
static void lnr_flush(struct wl_func *f, unsigned cn, uint64_t addr)
{
    int k = lnr_find(f, cn, addr);
    if (k >= 0)
        lnr_evict(f, cn, (unsigned)k);
}

/* The newest value of LNR word addr: a CN's dirty copy of it, else memory's (zero-time reads). */
static uint64_t lnr_peek(const struct wl_func *f, uint64_t addr)
{
    for (unsigned cn = 0; cn < f->num_cn; cn++) {
        int k = lnr_find(f, cn, addr);
        if (k >= 0 && (f->lnr[cn].l[k].dirty >> addr_word(addr) & 1))
            return f->lnr[cn].l[k].w[addr_word(addr)];
    }
    return map_get(&f->mem, addr);
}

static void errf(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void errf(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, WL_ERR_MAX, fmt, ap);
    va_end(ap);
}

static uint64_t local_key(unsigned cn, uint64_t addr) { return addr | ((uint64_t)(cn + 1) << 48); }

/* A valid word address for thread tid (UINT32_MAX: setup, on CN cn), or false with the run's fault set.
 * An rmw on the LNR is a fault too: real hardware makes it atomic only inside one CN. */
static bool addr_ok(struct wl_func *f, unsigned cn, uint64_t addr, const char *op, unsigned tid)
{
    const char *why = NULL;
    if (!addr_aligned(addr))
        why = "unaligned";
    else if (addr_is_local(addr) ? addr - ADDR_LOCAL_BASE >= f->local_top[cn]
                                 : addr >= f->remote_top && (addr < f->remote_limit || addr >= f->lnr_top))
        why = "not allocated";
    else if (!strcmp(op, "rmw") && !addr_is_local(addr) && addr >= f->remote_limit)
        why = "a Large Non-coherent Region (atomic only inside one CN)";
    if (!why)
        return true;
    if (f->fault[0])
        return false;
    if (tid == UINT32_MAX)
        errf(f->fault, "%s of %s address 0x%" PRIx64 " (cn %u)", op, why, addr, cn);
    else
        errf(f->fault, "thread %u: %s of %s address 0x%" PRIx64, tid, op, why, addr);
    return false;
}

static uint64_t key_of(unsigned cn, uint64_t addr) { return addr_is_local(addr) ? local_key(cn, addr) : addr; }

/* A scheduling point: the calling thread gives way; its call is performed when the scheduler
 * picks it again. After a fault the thread is never resumed. */
static fthread_t *enter(wl_thread_t *t, const char *op, uint64_t addr)
{
    fthread_t *ft = (fthread_t *)t;
    ft->last_op = op;
    ft->last_addr = addr;
    coro_yield(ft->co);
    struct wl_func *f = ft->f;
    f->st.calls++;
    f->since_write++;
    if (f->lnr_lines && rng_chance(&f->sched, LNR_EVICT_P)) { /* an eviction somewhere, at a random moment */
        unsigned cn = (unsigned)rng_below(&f->sched, f->num_cn);
        if (f->lnr[cn].n)
            lnr_evict(f, cn, (unsigned)rng_below(&f->sched, f->lnr[cn].n));
    }
    return ft;
}

static uint64_t now_ps(const struct wl_func *f) { return f->st.calls * 1000u; }

static void write_word(struct wl_func *f, fthread_t *ft, uint64_t addr, uint64_t v)
{
    /* Any write is progress (a spinning thread only loads, computes and fails CASes); a sweep
     * that rewrites converged values unchanged is still progress. */
    f->since_write = 0;
    if (is_lnr(f, addr)) {
        lnr_copy_t *x = lnr_copy(f, ft->t.cn, addr);
        x->w[addr_word(addr)] = v;
        x->dirty |= (uint8_t)(1u << addr_word(addr));
    } else {
        map_put(&f->mem, key_of(ft->t.cn, addr), v);
    }
    if (!addr_is_local(addr))
        oracle_commit(f->oracle, addr, v, now_ps(f), ft->t.cn, ft->t.core);
}

/* A batch is its loads one after the other, each a scheduling point. */
static void op_ld(wl_thread_t *t, const uint64_t *addr, uint64_t *val, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        fthread_t *ft = enter(t, "ld", addr[i]);
        struct wl_func *f = ft->f;
        if (!addr_ok(f, t->cn, addr[i], "ld", t->tid))
            coro_yield(ft->co); /* never resumed */
        addr_is_local(addr[i]) ? f->st.local_loads++ : f->st.loads++;
        val[i] = is_lnr(f, addr[i]) ? lnr_copy(f, t->cn, addr[i])->w[addr_word(addr[i])]
                                    : map_get(&f->mem, key_of(t->cn, addr[i]));
    }
}

static void op_st(wl_thread_t *t, uint64_t addr, uint64_t v)
{
    fthread_t *ft = enter(t, "st", addr);
    struct wl_func *f = ft->f;
    if (!addr_ok(f, t->cn, addr, "st", t->tid))
        coro_yield(ft->co);
    addr_is_local(addr) ? f->st.local_stores++ : f->st.stores++;
    write_word(f, ft, addr, v);
}

static uint64_t op_rmw(wl_thread_t *t, mem_rmw_e op, uint64_t addr, uint64_t a, uint64_t b)
{
    fthread_t *ft = enter(t, "rmw", addr);
    struct wl_func *f = ft->f;
    if (!addr_ok(f, t->cn, addr, "rmw", t->tid))
        coro_yield(ft->co);
    f->st.rmws++;
    uint64_t old = map_get(&f->mem, key_of(t->cn, addr));
    switch (op) {
    case MEM_RMW_CAS:
        if (old == a)
            write_word(f, ft, addr, b);
        break;
    case MEM_RMW_FADD:
        write_word(f, ft, addr, old + a);
        break;
    case MEM_RMW_SWAP:
        write_word(f, ft, addr, a);
        break;
    }
    return old;
}

static void op_fence(wl_thread_t *t)
{
    enter(t, "fence", 0)->f->st.fences++;
}

static void op_flush(wl_thread_t *t, uint64_t addr)
{
    fthread_t *ft = enter(t, "flush", addr);
    if (!addr_ok(ft->f, t->cn, addr & ~7ull, "flush", t->tid))
        coro_yield(ft->co);
    ft->f->st.flushes++;
    if (is_lnr(ft->f, addr))
        lnr_flush(ft->f, t->cn, addr);
}

static void op_flush_opt(wl_thread_t *t, uint64_t addr)
{
    fthread_t *ft = enter(t, "flush_opt", addr);
    if (!addr_ok(ft->f, t->cn, addr & ~7ull, "flush_opt", t->tid))
        coro_yield(ft->co);
    ft->f->st.flushes++;
    if (is_lnr(ft->f, addr)) /* sequentially consistent here: done at once */
        lnr_flush(ft->f, t->cn, addr);
}

static void op_compute(wl_thread_t *t, uint64_t n)
{
    fthread_t *ft = enter(t, "compute", 0);
    ft->f->st.compute_calls++;
    ft->f->st.instructions += n;
}

static uint64_t op_now(wl_thread_t *t)
{
    fthread_t *ft = enter(t, "now", 0);
    return now_ps(ft->f);
}

static const wl_thread_ops_t thread_ops = {
    .ld = op_ld, .st = op_st, .rmw = op_rmw, .fence = op_fence, .flush = op_flush, .flush_opt = op_flush_opt,
    .compute = op_compute,
    .now = op_now,
};

/* ------------------------------------------------------------------------------------------------
 * The environment */

static uint64_t env_alloc_cxl(wl_env_t *e, uint64_t bytes)
{
    struct wl_func *f = e->obj;
    uint64_t n = (bytes + ADDR_LINE_BYTES - 1) & ~(uint64_t)(ADDR_LINE_BYTES - 1);
    if (n < bytes || n > f->remote_limit - f->remote_top)
        return WL_ALLOC_FAIL;
    uint64_t a = f->remote_top;
    f->remote_top += n;
    f->st.remote_bytes += n;
    return a;
}

/* The runner's memory is one flat, sequentially consistent copy: the non-coherent region is only a
 * separate range of it (no stale copies to flush). */
static uint64_t env_alloc_lnr(wl_env_t *e, uint64_t bytes)
{
    struct wl_func *f = e->obj;
    uint64_t n = (bytes + ADDR_LINE_BYTES - 1) & ~(uint64_t)(ADDR_LINE_BYTES - 1);
    if (n < bytes || n > f->lnr_limit - f->lnr_top)
        return WL_ALLOC_FAIL;
    uint64_t a = f->lnr_top;
    f->lnr_top += n;
    f->st.remote_bytes += n;
    return a;
}

static uint64_t env_alloc_local(wl_env_t *e, unsigned cn, uint64_t bytes)
{
    struct wl_func *f = e->obj;
    uint64_t n = (bytes + ADDR_LINE_BYTES - 1) & ~(uint64_t)(ADDR_LINE_BYTES - 1);
    if (cn >= f->num_cn || n < bytes || n > f->local_limit - f->local_top[cn])
        return WL_ALLOC_FAIL;
    uint64_t a = ADDR_LOCAL_BASE + f->local_top[cn];
    f->local_top[cn] += n;
    f->st.local_bytes += n;
    return a;
}

static void env_poke(wl_env_t *e, unsigned cn, uint64_t addr, uint64_t v)
{
    struct wl_func *f = e->obj;
    if (!addr_ok(f, cn, addr, "poke", UINT32_MAX))
        return; /* a workload bug at setup: wl_func_setup reports it */
    map_put(&f->mem, key_of(cn, addr), v);
    if (!addr_is_local(addr))
        oracle_init(f->oracle, addr, v);
}

static uint64_t env_peek(wl_env_t *e, unsigned cn, uint64_t addr)
{
    struct wl_func *f = e->obj;
    return is_lnr(f, addr) ? lnr_peek(f, addr) : map_get(&f->mem, key_of(cn, addr));
}

static uint64_t *env_counter(wl_env_t *e, const char *name, const char *doc, char *err)
{
    struct wl_func *f = e->obj;
    uint64_t *p = stats_counter_in(&f->wst, "workload", name, doc);
    if (!p)
        errf(err, "statistic workload.%s: %s", name, stats_error(&f->wst));
    return p;
}

static const wl_env_ops_t env_ops = {
    .alloc_cxl = env_alloc_cxl, .alloc_local = env_alloc_local, .poke = env_poke, .peek = env_peek,
    .alloc_lnr = env_alloc_lnr, .counter = env_counter,
};

/* ------------------------------------------------------------------------------------------------ */

static void thread_main(void *arg)
{
    fthread_t *ft = arg;
    ft->f->w->thread(&ft->t, ft->f->state);
}

wl_func_t *wl_func_create(const workload_t *w, const sim_config_t *cfg, unsigned nthreads, unsigned num_cn,
                          uint64_t seed)
{
    struct wl_func *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    *f = (struct wl_func){.w = w, .cfg = cfg, .nthreads = nthreads, .num_cn = num_cn, .seed = seed,
                          .stall_limit = 1u << 24};
    f->thread_cn = calloc(nthreads ? nthreads : 1, sizeof *f->thread_cn);
    f->local_top = calloc(num_cn ? num_cn : 1, sizeof *f->local_top);
    f->th = calloc(nthreads ? nthreads : 1, sizeof *f->th);
    f->oracle = oracle_create();
    f->lnr = calloc(num_cn ? num_cn : 1, sizeof *f->lnr);
    if (!f->thread_cn || !f->local_top || !f->th || !f->oracle || !f->lnr || !map_init(&f->mem, 1u << 12)) {
        wl_func_free(f);
        return NULL;
    }
    f->remote_limit = cfg->mem.scr_size_bytes ? cfg->mem.scr_size_bytes : cfg->system.num_mn * cfg->mem.mn_size_bytes;
    f->lnr_top = f->remote_limit;
    f->lnr_limit = cfg->system.num_mn * cfg->mem.mn_size_bytes;
    f->local_limit = cfg->mem.local_size_bytes;
    for (unsigned i = 0; i < nthreads; i++) {
        f->thread_cn[i] = i % num_cn;
        rng_t r;
        rng_init_named(&r, seed + i, "wl_func.thread");
        f->th[i] = (fthread_t){.t = {.ops = &thread_ops, .impl = f, .tid = i, .nthreads = nthreads,
                                     .cn = i % num_cn, .core = i / num_cn, .seed = rng_next(&r)},
                               .f = f, .last_op = "start"};
        f->th[i].co = coro_create(thread_main, &f->th[i], STACK_BYTES);
        if (!f->th[i].co) {
            wl_func_free(f);
            return NULL;
        }
    }
    f->env = (wl_env_t){.ops = &env_ops, .obj = f, .cfg = cfg, .nthreads = nthreads, .thread_cn = f->thread_cn,
                        .num_cn = num_cn, .seed = seed};
    rng_init_named(&f->sched, seed, "wl_func.sched");
    /* Runs alternate between fine interleavings (a switch at almost every call) and coarse ones
     * (long bursts of one thread), which expose different races. */
    static const double bursts[] = {0.0, 0.5, 0.9};
    f->burst = bursts[rng_below(&f->sched, 3)];
    return f;
}

void wl_func_free(wl_func_t *f)
{
    if (!f)
        return;
    if (f->set_up && f->w->free)
        f->w->free(f->state);
    for (unsigned i = 0; f->th && i < f->nthreads; i++)
        coro_free(f->th[i].co);
    free(f->th);
    free(f->thread_cn);
    free(f->local_top);
    free(f->lnr);
    oracle_free(f->oracle);
    map_free(&f->mem);
    stats_free(&f->wst);
    free(f);
}

const uint64_t *wl_func_counter(const wl_func_t *f, const char *name)
{
    char full[160];
    snprintf(full, sizeof full, "workload.%s", name);
    return stats_find_counter(&f->wst, full);
}

void wl_func_set_stall_limit(wl_func_t *f, uint64_t calls) { f->stall_limit = calls; }

int wl_func_setup(wl_func_t *f, char *err)
{
    if (f->nthreads == 0 || f->num_cn == 0) {
        errf(err, "%s: no threads or no CNs", f->w->name);
        return -1;
    }
    err[0] = 0;
    if (f->w->setup(&f->env, &f->state, err) != 0) {
        if (!err[0])
            errf(err, "%s: setup failed", f->w->name);
        return -1;
    }
    f->set_up = true;
    if (f->fault[0]) {
        errf(err, "%s: setup: %s", f->w->name, f->fault);
        return -1;
    }
    return 0;
}

void wl_func_fail_cn(wl_func_t *f, unsigned cn, uint64_t after)
{
    if (f->nfails == WL_FUNC_FAILS) {
        fprintf(stderr, "wl_func_fail_cn: more than %d failures\n", WL_FUNC_FAILS);
        abort();
    }
    after = after ? after : 1;
    unsigned i = f->nfails++;
    for (; i && f->fails[i - 1].after > after; i--)
        f->fails[i] = f->fails[i - 1];
    f->fails[i].cn = cn;
    f->fails[i].after = after;
    f->live = f->nthreads >= 64 ? ~0ull : (1ull << f->nthreads) - 1;
    for (unsigned t = 0; t < f->nthreads; t++)
        f->th[t].t.live = &f->live;
    f->env.live = &f->live;
}

uint64_t wl_func_live(const wl_func_t *f)
{
    return f->env.live ? f->live : f->nthreads >= 64 ? ~0ull : (1ull << f->nthreads) - 1;
}

/* CN cn fails now: its threads are dropped from live[] (n of them) and from the membership, its
 * copies of LNR lines are lost (their words not written back in doubt). Returns the new count. */
static unsigned fail_now(struct wl_func *f, unsigned cn, unsigned *live, unsigned n)
{
    for (unsigned i = 0; i < n;)
        if (f->th[live[i]].t.cn == cn) {
            f->live &= ~(1ull << live[i]);
            live[i] = live[--n];
        } else {
            i++;
        }
    lnr_cache_t *c = &f->lnr[cn];
    for (unsigned k = 0; k < c->n; k++)
        for (unsigned w = 0; w < ADDR_WORDS_PER_LINE; w++)
            if (c->l[k].dirty >> w & 1)
                oracle_doubt_unwritten(f->oracle, c->l[k].line + 8u * w, cn);
    f->lnr_lines -= c->n;
    c->n = 0;
    return n;
}

int wl_func_threads(wl_func_t *f, char *err)
{
    unsigned *live = malloc(f->nthreads * sizeof *live);
    if (!live) {
        errf(err, "wl_func: out of memory");
        return -1;
    }
    unsigned nlive = f->nthreads;
    for (unsigned i = 0; i < nlive; i++)
        live[i] = i;
    unsigned cur = 0, prev = UINT32_MAX; /* index into live[] of the thread run last */
    int rc = 0;
    while (nlive) {
        if (f->nfails && f->st.calls >= f->fails[0].after) {
            nlive = fail_now(f, f->fails[0].cn, live, nlive);
            f->nfails--;
            memmove(f->fails, f->fails + 1, f->nfails * sizeof f->fails[0]);
            prev = UINT32_MAX;
            if (!nlive)
                break;
        }
        if (prev == UINT32_MAX || !rng_chance(&f->sched, f->burst))
            cur = (unsigned)rng_below(&f->sched, nlive);
        fthread_t *ft = &f->th[live[cur]];
        if (prev != UINT32_MAX && live[cur] != prev)
            f->st.switches++;
        prev = live[cur];
        coro_resume(ft->co);
        if (f->fault[0]) {
            errf(err, "%s: %s", f->w->name, f->fault);
            rc = -1;
            break;
        }
        if (coro_done(ft->co)) {
            live[cur] = live[--nlive];
            prev = UINT32_MAX;
            f->since_write = 0;
        } else if (f->since_write >= f->stall_limit) {
            /* Name what every live thread waits on: the last call it made. */
            int n = snprintf(err, WL_ERR_MAX, "%s: stall: no thread wrote memory or finished in %" PRIu64
                             " calls; waiting:", f->w->name, f->since_write);
            for (unsigned i = 0; i < nlive && n > 0 && n < WL_ERR_MAX; i++) {
                const fthread_t *x = &f->th[live[i]];
                n += snprintf(err + n, WL_ERR_MAX - (size_t)n, " t%u %s 0x%" PRIx64, x->t.tid, x->last_op,
                              x->last_addr);
            }
            rc = -1;
            break;
        }
    }
    free(live);
    return rc;
}

int wl_func_check(wl_func_t *f, char *err)
{
    err[0] = 0;
    if (f->w->check(&f->env, f->state, err) == 0)
        return 0;
    if (!err[0])
        errf(err, "%s: check failed", f->w->name);
    return -1;
}

static uint64_t peek_remote(void *obj, uint64_t addr)
{
    const struct wl_func *f = obj;
    return is_lnr(f, addr) ? lnr_peek(f, addr) : map_get(&f->mem, addr);
}

void wl_func_oracle_check(wl_func_t *f, FILE *out, size_t max_lines, oracle_report_t *r)
{
    oracle_check(f->oracle, peek_remote, f, out, max_lines, r);
}

uint64_t wl_func_unrecorded(const wl_func_t *f, uint64_t *first)
{
    uint64_t n = 0;
    oracle_word_t w;
    for (size_t i = 0; i <= f->mem.mask; i++) {
        uint64_t k = f->mem.key[i];
        if (k == EMPTY_KEY || addr_is_local(k) || (k >> 48) || oracle_lookup(f->oracle, k, &w))
            continue;
        if (n++ == 0 || k < *first)
            *first = k;
    }
    return n;
}

wl_env_t *wl_func_env(wl_func_t *f) { return &f->env; }
oracle_t *wl_func_oracle(wl_func_t *f) { return f->oracle; }
const wl_func_stats_t *wl_func_stats(const wl_func_t *f) { return &f->st; }

void wl_func_corrupt(wl_func_t *f, unsigned cn, uint64_t addr, uint64_t v) { map_put(&f->mem, key_of(cn, addr), v); }

int wl_func_run(const workload_t *w, const sim_config_t *cfg, unsigned nthreads, unsigned num_cn, uint64_t seed,
                char *err)
{
    wl_func_t *f = wl_func_create(w, cfg, nthreads, num_cn, seed);
    if (!f) {
        errf(err, "wl_func: out of memory");
        return -1;
    }
    int rc = -1;
    if (wl_func_setup(f, err) == 0 && wl_func_threads(f, err) == 0 && wl_func_check(f, err) == 0) {
        oracle_report_t r;
        char line[WL_ERR_MAX] = "";
        FILE *m = fmemopen(line, sizeof line, "w");
        wl_func_oracle_check(f, m, 1, &r);
        if (m)
            fclose(m);
        uint64_t first = 0, unrec = wl_func_unrecorded(f, &first);
        if (unrec) {
            errf(err, "%s: %" PRIu64 " remote words written but unknown to the oracle; first: 0x%" PRIx64, w->name,
                 unrec, first);
        } else if (r.lost || r.phantom) {
            line[strcspn(line, "\n")] = 0;
            const char *first = strncmp(line, "oracle: ", 8) == 0 ? line + 8 : line;
            errf(err, "%s: oracle: %" PRIu64 " lost, %" PRIu64 " phantom of %" PRIu64 " words; first: %s", w->name,
                 r.lost, r.phantom, r.words, first);
        } else {
            rc = 0;
        }
    }
    wl_func_free(f);
    return rc;
}
