/* What the data-sharing workloads have in common (see share.h). */
#include "workloads/share.h"

#include <limits.h>
#include <stdlib.h>

#define LOG_WORDS 4u /* an operation's log: key | op << 60, result, start, end */
#define OP_SHIFT 60u

static const char *const c_leaf[SHARE_NCOUNT] = {"gets", "puts", "inserts", "deletes", "retries", "flushes",
                                                 "torn_reads", "warm_ps", "end_ps", "window_ops"};
static const char *const c_doc[SHARE_NCOUNT] = {
    "gets done", "puts done", "inserts done", "deletes done",
    "validations that failed and were tried again (a record moved or was locked)",
    "object lines flushed: stale copies dropped and new objects written back",
    "gets that validated yet read a torn object (must be 0)",
    "the measured window's start (ps): the latest time a thread finished the first tenth of its operations",
    "the measured window's end (ps): the latest time a thread finished its operations",
    "operations after each thread's first tenth (throughput: window_ops / (end_ps - warm_ps))"};

static uint64_t payload(uint64_t key, uint64_t ver, uint64_t writer, uint64_t i)
{
    return wl_mix64(wl_mix64(wl_mix64(key ^ 0x5348ull) ^ ver) ^ (writer << 40 | i));
}

uint64_t share_thread_ops(const share_t *s, unsigned tid)
{
    return s->ops / s->nthreads + (tid < s->ops % s->nthreads);
}

void share_free(share_t *s)
{
    free(s->seen);
    free(s->log);
    free(s->own_cn);
    free(s->own_of);
    s->seen = s->log = NULL;
    s->own_cn = s->own_of = NULL;
}

int share_setup(wl_env_t *e, share_t *s, const char *name, char *err)
{
    const sim_config_t *c = e->cfg;
    *s = (share_t){.name = name,
                   .nobj = c->workload.share_objects,
                   .obj_bytes = c->workload.share_object_bytes,
                   .ops = c->workload.share_ops,
                   .read_pct = c->workload.share_read_pct,
                   .insert_pct = c->workload.share_insert_pct,
                   .delete_pct = c->workload.share_delete_pct,
                   .zipf = c->workload.share_keys == CFG_KEYS_ZIPFIAN,
                   .skip = c->workload.share_skip_flush,
                   .nthreads = e->nthreads,
                   .num_cn = e->num_cn,
                   .thread_cn = e->thread_cn};
    s->obj_words = s->obj_bytes / 8;
    if (s->read_pct + s->insert_pct + s->delete_pct > 100)
        return wl_errf(err, "%s: %llu %% gets, %llu %% inserts and %llu %% deletes exceed 100 %%", name,
                       (unsigned long long)s->read_pct, (unsigned long long)s->insert_pct,
                       (unsigned long long)s->delete_pct);
    s->pause_instrs = (uint64_t)((double)c->workload.share_read_pause_ps * (double)c->core.freq_hz / 1e12 + 0.5);
    if (s->obj_words <= SHARE_HDR_WORDS || s->obj_bytes % ADDR_LINE_BYTES)
        return wl_errf(err, "%s: an object of %llu bytes is not whole lines with a payload after its header", name,
                       (unsigned long long)s->obj_bytes);
    if (s->zipf && rng_zipf_init(&s->keys, s->nobj, c->workload.share_zipf_theta, true))
        return wl_errf(err, "%s: no Zipfian over %llu keys with theta %g", name, (unsigned long long)s->nobj,
                       c->workload.share_zipf_theta);
    if (!(s->seen = calloc(e->num_cn, sizeof *s->seen)) || !(s->log = calloc(e->nthreads, sizeof *s->log)) ||
        !(s->own_cn = calloc(e->num_cn, sizeof *s->own_cn)) || !(s->own_of = malloc(e->num_cn * sizeof *s->own_of))) {
        share_free(s);
        return wl_errf(err, "%s: out of host memory", name);
    }
    for (unsigned cn = 0; cn < e->num_cn; cn++)
        s->own_of[cn] = UINT_MAX;
    for (unsigned t = 0; t < e->nthreads; t++)
        if (s->own_of[e->thread_cn[t]] == UINT_MAX) {
            s->own_of[e->thread_cn[t]] = s->nown;
            s->own_cn[s->nown++] = e->thread_cn[t];
        }
    s->objects = s->nobj <= UINT64_MAX / s->obj_bytes ? e->ops->alloc_lnr(e, s->nobj * s->obj_bytes) : WL_ALLOC_FAIL;
    if (s->objects == WL_ALLOC_FAIL) {
        share_free(s);
        if (!c->mem.scr_size_bytes)
            return wl_errf(err, "%s: needs a Large Non-coherent Region for its objects (mem.scr_size = 0 makes all "
                           "remote memory coherent)", name);
        return wl_errf(err, "%s: %llu objects of %llu bytes do not fit the Large Non-coherent Region", name,
                       (unsigned long long)s->nobj, (unsigned long long)s->obj_bytes);
    }
    for (unsigned cn = 0; cn < e->num_cn; cn++)
        if ((s->seen[cn] = e->ops->alloc_local(e, cn, s->nobj * 8)) == WL_ALLOC_FAIL) {
            share_free(s);
            return wl_errf(err, "%s: CN %u's table of %llu seen records does not fit its local memory", name, cn,
                           (unsigned long long)s->nobj);
        }
    for (unsigned t = 0; t < e->nthreads; t++) {
        uint64_t bytes = (share_thread_ops(s, t) * LOG_WORDS + 1) * 8;
        if ((s->log[t] = e->ops->alloc_local(e, e->thread_cn[t], bytes)) == WL_ALLOC_FAIL) {
            share_free(s);
            return wl_errf(err, "%s: thread %u's log (%llu bytes) does not fit CN %u's local memory", name, t,
                           (unsigned long long)bytes, e->thread_cn[t]);
        }
    }
    if (wl_counters(e, name, c_leaf, c_doc, SHARE_NCOUNT, s->stat, err)) {
        share_free(s);
        return -1;
    }
    for (uint64_t key = 0; key < s->nobj; key++) {
        uint64_t o = share_obj(s, key);
        e->ops->poke(e, 0, o, key + 1);
        e->ops->poke(e, 0, o + 8, 0); /* version 0 by setup, present */
        for (uint64_t i = SHARE_HDR_WORDS; i < s->obj_words; i++)
            e->ops->poke(e, 0, o + 8 * i, payload(key, 0, 0, i));
    }
    return 0;
}

uint64_t share_next_op(const share_t *s, rng_t *r, share_op_e *op)
{
    uint64_t key = s->zipf ? rng_zipf_next(&s->keys, r) : rng_below(r, s->nobj), p = rng_below(r, 100);
    *op = p < s->read_pct                                  ? SHARE_GET
          : p < s->read_pct + s->insert_pct                 ? SHARE_INSERT
          : p < s->read_pct + s->insert_pct + s->delete_pct ? SHARE_DELETE
                                                            : SHARE_PUT;
    return key;
}

void share_pause(wl_thread_t *t, const share_t *s)
{
    for (uint64_t left = s->pause_instrs; left;) {
        uint64_t n = left < 1000 ? left : 1000;
        wl_compute(t, n);
        left -= n;
    }
}

static void flush_lines(wl_thread_t *t, const share_t *s, uint64_t key)
{
    for (uint64_t a = 0; a < s->obj_bytes; a += ADDR_LINE_BYTES)
        wl_flush_opt(t, share_obj(s, key) + a);
    wl_fence(t);
    *s->stat[SHARE_FLUSHES] += s->obj_bytes / ADDR_LINE_BYTES;
}

void share_flush_stale(wl_thread_t *t, const share_t *s, uint64_t key)
{
    if (s->skip != CFG_SKIP_READER)
        flush_lines(t, s, key);
}

uint64_t share_read(wl_thread_t *t, const share_t *s, uint64_t key, bool *torn)
{
    uint64_t a[SHARE_BATCH], v[SHARE_BATCH], st = 0, o = share_obj(s, key);
    bool bad = false;
    for (uint64_t w0 = 0; w0 < s->obj_words; w0 += SHARE_BATCH) {
        unsigned nb = (unsigned)(s->obj_words - w0 < SHARE_BATCH ? s->obj_words - w0 : SHARE_BATCH);
        for (unsigned j = 0; j < nb; j++)
            a[j] = o + 8 * (w0 + j);
        wl_ld_batch(t, a, v, nb);
        for (unsigned j = 0; j < nb; j++) {
            uint64_t w = w0 + j;
            if (w == 0)
                bad |= v[j] != key + 1;
            else if (w == 1)
                st = v[j];
            else
                bad |= v[j] != payload(key, share_ver(st), share_writer(st), w);
        }
    }
    wl_compute(t, s->obj_words); /* the comparisons, one per word */
    *torn = bad;
    return st;
}

void share_done_mark(wl_thread_t *t, uint64_t done) { wl_fadd(t, done + 8 * (t->tid / 64), 1ull << (t->tid % 64)); }

bool share_all_done(wl_thread_t *t, const share_t *s, uint64_t done)
{
    for (unsigned w = 0; w < (s->nthreads + 63) / 64; w++) {
        uint64_t d = wl_ld(t, done + 8 * w);
        for (unsigned u = 64 * w; u < s->nthreads && u < 64 * w + 64; u++)
            if (!(d >> (u % 64) & 1) && wl_alive(t, u))
                return false;
    }
    return true;
}

int share_done_check(wl_env_t *e, const share_t *s, uint64_t done, const char *name, char *err)
{
    for (unsigned u = 0; u < s->nthreads; u++)
        if (wl_env_alive(e, u) && !(e->ops->peek(e, 0, done + 8 * (u / 64)) >> (u % 64) & 1))
            return wl_errf(err, "%s: thread %u never counted itself done", name, u);
    if (s->nthreads % 64 && e->ops->peek(e, 0, done + 8 * (s->nthreads / 64)) >> (s->nthreads % 64))
        return wl_errf(err, "%s: the done words count threads beyond its %u", name, s->nthreads);
    return 0;
}

uint64_t share_repair(wl_thread_t *t, const share_t *s, uint64_t key)
{
    flush_lines(t, s, key);
    const uint64_t o = share_obj(s, key), st = wl_ld(t, o + 8);
    for (uint64_t i = SHARE_HDR_WORDS; i < s->obj_words; i++)
        wl_st(t, o + 8 * i, payload(key, share_ver(st), share_writer(st), i));
    flush_lines(t, s, key);
    return st;
}

void share_write(wl_thread_t *t, const share_t *s, uint64_t key, uint64_t ver, bool gone)
{
    uint64_t o = share_obj(s, key), me = t->tid + 1;
    wl_st(t, o, key + 1);
    wl_st(t, o + 8, ver | me << SHARE_WRITER_SHIFT | (gone ? SHARE_GONE : 0)); /* one word: never torn */
    for (uint64_t i = SHARE_HDR_WORDS; i < s->obj_words; i++)
        wl_st(t, o + 8 * i, payload(key, ver, me, i));
    if (s->skip != CFG_SKIP_WRITER)
        flush_lines(t, s, key);
}

void share_log(wl_thread_t *t, const share_t *s, uint64_t n, share_op_e op, uint64_t key, uint64_t res, uint64_t t0,
               uint64_t t1)
{
    uint64_t a = s->log[t->tid] + 8 * LOG_WORDS * n;
    if (op != SHARE_GET)
        res = (res & ~SHARE_WRITER_MASK) | ((uint64_t)t->tid + 1) << SHARE_WRITER_SHIFT;
    wl_st(t, a, key | (uint64_t)op << OP_SHIFT);
    wl_st(t, a + 8, res);
    wl_st(t, a + 16, t0);
    wl_st(t, a + 24, t1);
    (*s->stat[op == SHARE_GET ? SHARE_GETS : op == SHARE_PUT ? SHARE_PUTS : op == SHARE_INSERT ? SHARE_INSERTS
                                                                                              : SHARE_DELETES])++;
    wl_window(s->stat[SHARE_WARM_PS], s->stat[SHARE_END_PS], s->stat[SHARE_WIN_OPS], n, share_thread_ops(s, t->tid),
              t1);
}

#define CLIENT_INSTRS 200u /* per operation: the client's choice of key and its hashing */

void share_run(wl_thread_t *t, const share_t *s, const void *w, const char *stream,
               uint64_t (*get)(wl_thread_t *, const void *, uint64_t),
               uint64_t (*write)(wl_thread_t *, const void *, uint64_t, share_op_e),
               void (*between)(wl_thread_t *, const void *))
{
    rng_t r;
    rng_init_named(&r, t->seed, stream);
    const uint64_t n = share_thread_ops(s, t->tid);
    for (uint64_t op = 0; op < n; op++) {
        if (between)
            between(t, w);
        wl_compute(t, CLIENT_INSTRS);
        share_op_e kind;
        uint64_t key = share_next_op(s, &r, &kind), t0 = wl_now(t);
        uint64_t res = kind == SHARE_GET ? get(t, w, key) : write(t, w, key, kind);
        share_log(t, s, op, kind, key, res, t0, wl_now(t));
    }
    wl_st(t, s->log[t->tid] + 8 * LOG_WORDS * n, n);
}

/* ---- the check ---- */

typedef struct op {
    uint64_t key, res, t0, t1; /* res: the version read or written (SHARE_GONE: deleted) */
    share_op_e op;
    unsigned tid;
} op_t;

static uint64_t ver_of(const op_t *o) { return share_ver(o->res); }
static uint64_t writer_of(const op_t *o) { return share_writer(o->res); }

static int op_cmp(const void *a, const void *b)
{
    const op_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return ver_of(x) < ver_of(y) ? -1 : ver_of(x) > ver_of(y);
}

static const char *const op_name[] = {"get", "put", "insert", "delete"};

int share_check(wl_env_t *e, const share_t *s, bool (*in_doubt)(wl_env_t *e, const void *obj, uint64_t key),
                const void *obj, char *err)
{
    const char *nm = s->name;
    const unsigned lost = wl_env_lost(e);
    uint64_t torn = *s->stat[SHARE_TORN];
    if (torn)
        return wl_errf(err, "%s: %llu gets validated a torn object (a read mixed two versions)", nm,
                       (unsigned long long)torn);
    op_t *wr = malloc((s->ops ? s->ops : 1) * sizeof *wr), *gets = malloc((s->ops ? s->ops : 1) * sizeof *gets);
    uint64_t *first = calloc(s->nobj + 1, sizeof *first); /* index + 1 into wr of each key's first logged write */
    uint64_t nw = 0, ng = 0;
    int rc = 0;
    if (!wr || !gets || !first) {
        rc = wl_errf(err, "%s: check: out of host memory", nm);
        goto out;
    }
    for (unsigned t = 0; t < s->nthreads; t++) {
        unsigned cn = s->thread_cn[t];
        if (!wl_env_alive(e, t))
            continue; /* its log was in its failed CN's memory */
        uint64_t n = share_thread_ops(s, t), done = e->ops->peek(e, cn, s->log[t] + 8 * LOG_WORDS * n);
        if (done != n) {
            rc = wl_errf(err, "%s: thread %u did %llu of its %llu operations", nm, t, (unsigned long long)done,
                         (unsigned long long)n);
            goto out;
        }
        for (uint64_t i = 0; i < n; i++) {
            uint64_t a = s->log[t] + 8 * LOG_WORDS * i, kw = e->ops->peek(e, cn, a);
            op_t o = {kw & ((1ull << OP_SHIFT) - 1), e->ops->peek(e, cn, a + 8), e->ops->peek(e, cn, a + 16),
                      e->ops->peek(e, cn, a + 24), (share_op_e)(kw >> OP_SHIFT), t};
            if (o.key >= s->nobj || kw >> OP_SHIFT > SHARE_DELETE) {
                rc = wl_errf(err, "%s: thread %u's operation %llu names key %llu (%llu objects), operation %llu", nm,
                             t, (unsigned long long)i, (unsigned long long)o.key, (unsigned long long)s->nobj,
                             (unsigned long long)(kw >> OP_SHIFT));
                goto out;
            }
            if (o.op == SHARE_GET)
                gets[ng++] = o;
            else
                wr[nw++] = o;
        }
    }
    /* The writes of a key serialized: versions 1, 2, 3, ... (with threads lost, their writes are
     * missing: versions only grow), a delete's a tombstone, the others not. */
    qsort(wr, nw, sizeof *wr, op_cmp);
    for (uint64_t i = 0; i < nw; i++) {
        bool new_key = i == 0 || wr[i - 1].key != wr[i].key;
        uint64_t want = new_key ? 1 : ver_of(&wr[i - 1]) + 1;
        if ((lost ? ver_of(&wr[i]) < want : ver_of(&wr[i]) != want) ||
            (bool)(wr[i].res & SHARE_GONE) != (wr[i].op == SHARE_DELETE)) {
            rc = wl_errf(err, "%s: key %llu: thread %u's %s wrote version %llu%s where %llu was due (its writes were "
                         "not serialized, or one read a stale version)", nm, (unsigned long long)wr[i].key,
                         wr[i].tid, op_name[wr[i].op], (unsigned long long)ver_of(&wr[i]),
                         wr[i].res & SHARE_GONE ? " (deleted)" : "", (unsigned long long)want);
            goto out;
        }
        if (new_key)
            first[wr[i].key] = i + 1;
    }
    /* Each get's result was the key's latest committed write at some instant during the get. */
    for (uint64_t i = 0; i < ng; i++) {
        const op_t *g = &gets[i];
        const uint64_t f = first[g->key], v = ver_of(g), w = writer_of(g);
        const op_t *mine = NULL, *next = NULL; /* the logged write of v, the first logged one after it */
        for (uint64_t j = f ? f - 1 : nw; j < nw && wr[j].key == g->key && !next; j++)
            if (ver_of(&wr[j]) == v)
                mine = &wr[j];
            else if (ver_of(&wr[j]) > v)
                next = &wr[j];
        /* v is setup's (writer 0), a logged write's (its writer, a tombstone exactly when a delete),
         * or, with threads lost, an unlogged write of a lost thread */
        bool ok = v == 0 ? w == 0 && !(g->res & SHARE_GONE)
                  : mine ? w == mine->tid + 1 && (bool)(g->res & SHARE_GONE) == (mine->op == SHARE_DELETE)
                         : lost && w && w <= s->nthreads && !wl_env_alive(e, (unsigned)(w - 1));
        if (!ok) {
            rc = wl_errf(err, "%s: thread %u's get of key %llu returned version %llu by writer %llu%s, never written "
                         "so", nm, g->tid, (unsigned long long)g->key, (unsigned long long)v,
                         (unsigned long long)w, g->res & SHARE_GONE ? " (deleted)" : "");
            goto out;
        }
        if (mine && mine->t0 > g->t1) {
            rc = wl_errf(err, "%s: thread %u's get of key %llu (%llu .. %llu ps) returned version %llu, whose %s began "
                         "only at %llu ps", nm, g->tid, (unsigned long long)g->key, (unsigned long long)g->t0,
                         (unsigned long long)g->t1, (unsigned long long)v, op_name[mine->op],
                         (unsigned long long)mine->t0);
            goto out;
        }
        if (next && next->t1 < g->t0) {
            rc = wl_errf(err, "%s: thread %u's get of key %llu (%llu .. %llu ps) returned version %llu, stale: thread "
                         "%u's %s of version %llu had ended at %llu ps", nm, g->tid, (unsigned long long)g->key,
                         (unsigned long long)g->t0, (unsigned long long)g->t1, (unsigned long long)v, next->tid,
                         op_name[next->op], (unsigned long long)ver_of(next), (unsigned long long)next->t1);
            goto out;
        }
    }
    /* Memory holds every key's last logged write (or, with threads lost, a later one of a lost
     * thread), whole. */
    for (uint64_t key = 0, j = 0; key < s->nobj; key++) {
        uint64_t ver = 0, writer = 0, gone = 0;
        while (j < nw && wr[j].key == key) {
            ver = ver_of(&wr[j]);
            gone = wr[j].res & SHARE_GONE;
            writer = wr[j].tid + 1;
            j++;
        }
        if (lost && in_doubt && in_doubt(e, obj, key))
            continue;
        uint64_t o = share_obj(s, key), got_k = e->ops->peek(e, 0, o), got = e->ops->peek(e, 0, o + 8);
        const uint64_t got_v = share_ver(got), got_w = share_writer(got);
        const bool later = lost && got_v > ver && got_w && got_w <= s->nthreads &&
                           !wl_env_alive(e, (unsigned)(got_w - 1));
        if (later) {
            ver = got_v;
            writer = got_w;
            gone = got & SHARE_GONE;
        }
        if (got_k != key + 1 || got != (ver | writer << SHARE_WRITER_SHIFT | gone)) {
            rc = wl_errf(err, "%s: key %llu's object holds key word 0x%llx, state 0x%llx (version %llu by writer "
                         "%llu); want version %llu by writer %llu%s (its last write)", nm, (unsigned long long)key,
                         (unsigned long long)got_k, (unsigned long long)got, (unsigned long long)got_v,
                         (unsigned long long)got_w, (unsigned long long)ver, (unsigned long long)writer,
                         gone ? ", deleted" : "");
            goto out;
        }
        for (uint64_t i = SHARE_HDR_WORDS; i < s->obj_words; i++) {
            uint64_t got = e->ops->peek(e, 0, o + 8 * i), want = payload(key, ver, writer, i);
            if (got != want) {
                rc = wl_errf(err, "%s: key %llu's payload word %llu is 0x%llx, want 0x%llx (version %llu by writer "
                             "%llu)", nm, (unsigned long long)key, (unsigned long long)i, (unsigned long long)got,
                             (unsigned long long)want, (unsigned long long)ver, (unsigned long long)writer);
                goto out;
            }
        }
    }
out:
    free(wr);
    free(gets);
    free(first);
    return rc;
}
