/* What the range indexes on partly coherent memory have in common (see index.h). */
#include "workloads/index.h"

#include <stdlib.h>

#define LINE 64u
#define SPIN_INSTRS 100u   /* a spin-wait iteration's pause */
#define CLIENT_INSTRS 200u /* per operation: the client's choice of key and operation */
#define MODIFY_INSTRS 50u  /* a read-modify-write's modification */
#define OP_SHIFT 60u       /* a record's word 0: rank | op << OP_SHIFT */
#define REC_MASK ((1ull << IDX_WRITER_SHIFT) - 1)

static const char *const c_leaf[IDX_NCOUNT] = {"gets",    "puts",     "rmws",    "scans",  "node_reads", "retries",
                                               "flushes", "spilled_version_reads", "nodes", "scr_nodes",
                                               "warm_ps", "end_ps", "window_ops", "takeovers", "redone"};
static const char *const c_doc[IDX_NCOUNT] = {
    "gets done (a read-modify-write's get included)",
    "puts done (a read-modify-write's put included)",
    "read-modify-writes done (YCSB-F)",
    "scans done",
    "node reads validated by their version",
    "node reads whose version moved or was locked meanwhile, done again",
    "node lines flushed: stale copies dropped and written lines written back",
    "reads of versions spilled into the LNR (each past the cache: flushed first)",
    "nodes of the index (setup's)",
    "nodes whose version lives in the SCR (the others' spilled into the LNR)",
    "the measured window's start (ps): the latest time a thread finished the first tenth of its operations",
    "the measured window's end (ps): the latest time a thread finished its operations",
    "operations after each thread's first tenth (throughput: window_ops / (end_ps - warm_ps))",
    "locks held by threads lost with a failed CN taken over by a survivor (node versions, stripes of spilled "
    "versions, memtable buckets), the state they guard made whole",
    "of the nodes those locks guarded, the ones a multi-word write of the lost thread may have left partial (its "
    "redo record named them): written again from the record"};

static uint64_t thread_ops(const idx_t *ix, unsigned tid)
{
    if (tid < ix->first_client)
        return 0;
    const unsigned n = ix->nthreads - ix->first_client, c = tid - ix->first_client;
    return ix->ops / n + (c < ix->ops % n);
}
/* Records thread tid's log has room for: an operation's, two for a read-modify-write. */
static uint64_t max_recs(const idx_t *ix, unsigned tid) { return thread_ops(ix, tid) * (ix->rmw_pct ? 2 : 1); }
static uint64_t rec_addr(const idx_t *ix, unsigned tid, uint64_t i) { return ix->log[tid] + 8 * ix->rec_words * i; }

void idx_free(idx_t *ix)
{
    free(ix->key);
    free(ix->log);
    free(ix->seen);
    ix->key = ix->log = ix->seen = NULL;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int idx_setup(wl_env_t *e, idx_t *ix, const char *name, unsigned background, char *err)
{
    const sim_config_t *c = e->cfg;
    *ix = (idx_t){.name = name,
                  .nkeys = c->workload.share_objects,
                  .ops = c->workload.share_ops,
                  .read_pct = c->workload.share_read_pct,
                  .rmw_pct = c->workload.share_rmw_pct,
                  .scan_pct = c->workload.share_scan_pct,
                  .scan_len = c->workload.share_scan_len,
                  .zipf = c->workload.share_keys == CFG_KEYS_ZIPFIAN,
                  .skip = c->workload.share_skip_flush,
                  .nthreads = e->nthreads,
                  .first_client = background < e->nthreads ? background : 0,
                  .num_cn = e->num_cn,
                  .thread_cn = e->thread_cn};
    if (ix->read_pct + ix->rmw_pct + ix->scan_pct > 100)
        return wl_errf(err, "%s: %llu %% gets, %llu %% read-modify-writes and %llu %% scans exceed 100 %%", name,
                       (unsigned long long)ix->read_pct, (unsigned long long)ix->rmw_pct,
                       (unsigned long long)ix->scan_pct);
    if (!c->mem.scr_size_bytes)
        return wl_errf(err, "%s: needs a Large Non-coherent Region for its nodes (mem.scr_size = 0 makes all remote "
                       "memory coherent)", name);
    if (c->workload.share_insert_pct || c->workload.share_delete_pct)
        return wl_errf(err, "%s: its key set is fixed (puts update present keys): no inserts or deletes", name);
    if (ix->zipf && rng_zipf_init(&ix->keys_z, ix->nkeys, c->workload.share_zipf_theta, true))
        return wl_errf(err, "%s: no Zipfian over %llu keys with theta %g", name, (unsigned long long)ix->nkeys,
                       c->workload.share_zipf_theta);
    ix->rec_words = 4 + (ix->scan_pct ? 2 * ix->scan_len : 0);
    if (!(ix->key = malloc(ix->nkeys * sizeof *ix->key)) || !(ix->log = calloc(e->nthreads, sizeof *ix->log))) {
        idx_free(ix);
        return wl_errf(err, "%s: out of host memory", name);
    }
    /* distinct random keys over 63 bits, none 0: drawn, sorted, a repeat drawn again */
    rng_t r;
    rng_init_named(&r, e->seed, "index-keys");
    for (uint64_t i = 0; i < ix->nkeys; i++)
        ix->key[i] = (rng_next(&r) >> 1) | 1;
    for (bool again = true; again;) {
        qsort(ix->key, ix->nkeys, sizeof *ix->key, u64_cmp);
        again = false;
        for (uint64_t i = 1; i < ix->nkeys; i++)
            if (ix->key[i] == ix->key[i - 1]) {
                ix->key[i] = (rng_next(&r) >> 1) | 1;
                again = true;
            }
    }
    for (unsigned t = 0; t < e->nthreads; t++) {
        uint64_t bytes = (max_recs(ix, t) * ix->rec_words + 1) * 8;
        if ((ix->log[t] = e->ops->alloc_local(e, e->thread_cn[t], bytes)) == WL_ALLOC_FAIL) {
            idx_free(ix);
            return wl_errf(err, "%s: thread %u's log (%llu bytes) does not fit CN %u's local memory", name, t,
                           (unsigned long long)bytes, e->thread_cn[t]);
        }
    }
    if (wl_counters(e, name, c_leaf, c_doc, IDX_NCOUNT, ix->stat, err)) {
        idx_free(ix);
        return -1;
    }
    return 0;
}

static bool spilled(const idx_t *ix, uint64_t n) { return n >= ix->nscr; }
/* A thread's redo record (SCR): a header line (the node + 1 whose write it is, 0: none; the node's
 * address; its words), then the node's image. */
static uint64_t redo_bytes(const idx_t *ix) { return LINE + (8ull * ix->image_words + LINE - 1) / LINE * LINE; }
static uint64_t redo_at(const idx_t *ix, unsigned tid) { return ix->redo + (uint64_t)tid * redo_bytes(ix); }
static uint64_t ver_addr(const idx_t *ix, uint64_t n)
{
    return spilled(ix, n) ? ix->ver_lnr + 8 * (n - ix->nscr) : ix->ver_scr + 8 * n;
}

int idx_versions(wl_env_t *e, idx_t *ix, uint64_t nnodes, uint64_t budget, unsigned image_words, char *err)
{
    ix->nnodes = nnodes;
    ix->nscr = !budget || budget / 8 >= nnodes ? nnodes : budget / 8;
    const uint64_t nspill = nnodes - ix->nscr;
    *ix->stat[IDX_NODES] = nnodes;
    *ix->stat[IDX_SCR_NODES] = ix->nscr;
    if ((ix->ver_scr = e->ops->alloc_cxl(e, (ix->nscr ? ix->nscr : 1) * 8)) == WL_ALLOC_FAIL ||
        (ix->stripes = e->ops->alloc_cxl(e, IDX_STRIPES * 8)) == WL_ALLOC_FAIL)
        return wl_errf(err, "%s: %llu node versions do not fit the Small Coherent Region", ix->name,
                       (unsigned long long)ix->nscr);
    if (nspill && (ix->ver_lnr = e->ops->alloc_lnr(e, nspill * 8)) == WL_ALLOC_FAIL)
        return wl_errf(err, "%s: %llu spilled node versions do not fit the Large Non-coherent Region", ix->name,
                       (unsigned long long)nspill);
    ix->image_words = image_words;
    if (image_words && (ix->redo = e->ops->alloc_cxl(e, (uint64_t)e->nthreads * redo_bytes(ix))) == WL_ALLOC_FAIL)
        return wl_errf(err, "%s: the threads' redo records (%u words each) do not fit the Small Coherent Region",
                       ix->name, image_words);
    if (!(ix->seen = calloc(e->num_cn, sizeof *ix->seen)))
        return wl_errf(err, "%s: out of host memory", ix->name);
    for (unsigned cn = 0; cn < e->num_cn; cn++)
        if ((ix->seen[cn] = e->ops->alloc_local(e, cn, nnodes * 8)) == WL_ALLOC_FAIL)
            return wl_errf(err, "%s: CN %u's table of %llu seen versions does not fit its local memory", ix->name,
                           cn, (unsigned long long)nnodes);
    /* every version 0 (setup writes each word it hands out, so that whole-line write-backs of a
     * spilled version's line carry only written words); no CN caches anything yet, so each CN's
     * copies (none) are current at version 0 */
    for (uint64_t n = 0; n < ix->nscr; n++)
        e->ops->poke(e, 0, ver_addr(ix, n), 0);
    for (uint64_t w = 0; w < (nspill + 7) / 8 * 8; w++) /* the last line's tail too */
        e->ops->poke(e, 0, ix->ver_lnr + 8 * w, 0);
    for (unsigned cn = 0; cn < e->num_cn; cn++)
        for (uint64_t n = 0; n < nnodes; n++)
            e->ops->poke(e, cn, ix->seen[cn] + 8 * n, 0);
    return 0;
}

uint64_t idx_rank(const idx_t *ix, uint64_t key)
{
    uint64_t lo = 0, hi = ix->nkeys;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (ix->key[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->nkeys && ix->key[lo] == key ? lo : ix->nkeys;
}

/* ---- node versions ---- */

/* A version word: unlocked, a multiple of V_STEP (each write moves it on by one step); locked, that
 * value | its holder (tid + 1) << 1 | 1, so that a survivor knows a lock a lost thread holds. A
 * stripe lock word: its holder (tid + 1) | the node whose version it writes + 1 << S_NODE_SHIFT. */
#define V_STEP (1ull << 14)
#define V_HOLDER(w) ((unsigned)((w) >> 1 & 0x1fff))
#define V_BASE(w) ((w) & ~(V_STEP - 1))
#define S_NODE_SHIFT 14u
static uint64_t v_locked(uint64_t v, unsigned tid) { return v | ((uint64_t)tid + 1) << 1 | 1; }
static uint64_t stripe_addr(const idx_t *ix, uint64_t n) { return ix->stripes + 8 * ((n - ix->nscr) / 8 % IDX_STRIPES); }
static uint64_t stripe_word(unsigned tid, uint64_t n) { return ((uint64_t)tid + 1) | (n + 1) << S_NODE_SHIFT; }

static uint64_t seen_addr(const idx_t *ix, const wl_thread_t *t, uint64_t n) { return ix->seen[t->cn] + 8 * n; }

static uint64_t ver_read(wl_thread_t *t, const idx_t *ix, uint64_t n)
{
    const uint64_t a = ver_addr(ix, n);
    if (spilled(ix, n)) { /* past the cache */
        wl_flush_opt(t, a);
        wl_fence(t);
        (*ix->stat[IDX_SPILLED])++;
    }
    return wl_ld(t, a);
}

static void flush_lines(wl_thread_t *t, const idx_t *ix, uint64_t addr, uint64_t lines)
{
    for (uint64_t i = 0; i < lines; i++)
        wl_flush_opt(t, addr + LINE * i);
    wl_fence(t);
    *ix->stat[IDX_FLUSHES] += lines;
}

/* Thread `lost` (lost with a failed CN) held node n's lock: makes the node whole. A write of one
 * word left it whole either way; a write of several words recorded the node's image in the lost
 * thread's redo record first, and cleared it only once its lines were written back: while the
 * record names n, write the image again (this CN's stale copies dropped first) and clear it. */
static void repair(wl_thread_t *t, const idx_t *ix, uint64_t n, unsigned lost)
{
    if (!ix->image_words || ix->skip == CFG_SKIP_REDO)
        return;
    const uint64_t r = redo_at(ix, lost);
    uint64_t h[3];
    const uint64_t ha[3] = {r, r + 8, r + 16};
    wl_ld_batch(t, ha, h, 3);
    if (h[0] != n + 1 || h[2] > ix->image_words)
        return;
    uint64_t a[IDX_IMAGE_MAX], w[IDX_IMAGE_MAX];
    const unsigned nw = (unsigned)h[2];
    const uint64_t lines = (8ull * nw + LINE - 1) / LINE;
    for (unsigned i = 0; i < nw; i++)
        a[i] = r + LINE + 8 * i;
    wl_ld_batch(t, a, w, nw);
    flush_lines(t, ix, h[1], lines);
    for (unsigned i = 0; i < nw; i++)
        wl_st(t, h[1] + 8 * i, w[i]);
    flush_lines(t, ix, h[1], lines);
    wl_st(t, r, 0);
    (*ix->stat[IDX_REDONE])++;
}

/* Spilled version stripe sa's lock word s is held by a thread lost with a failed CN: take it over,
 * make the node it was writing whole (its version, locked by the lost thread, moved on unlocked
 * and written back) and release the stripe. False: the holder lives, or another survivor was first. */
static bool stripe_takeover(wl_thread_t *t, const idx_t *ix, uint64_t sa, uint64_t s)
{
    const unsigned h = (unsigned)(s & (V_STEP - 1));
    const uint64_t n = (s >> S_NODE_SHIFT) - 1;
    if (!s || !h || h > ix->nthreads || wl_alive(t, h - 1) || wl_cas(t, sa, s, stripe_word(t->tid, n)) != s)
        return false;
    if (n < ix->nnodes && spilled(ix, n)) {
        const uint64_t va = ver_addr(ix, n), w = ver_read(t, ix, n);
        if ((w & 1) && V_HOLDER(w) == h) { /* the version reached memory locked: the write may be partial */
            repair(t, ix, n, h - 1);
            wl_st(t, va, V_BASE(w) + V_STEP);
            wl_flush_opt(t, va);
            wl_fence(t);
        } /* else unlocked: the write had not begun, or had ended (its version written back) */
    }
    wl_st(t, sa, 0);
    wl_fence(t);
    (*ix->stat[IDX_TAKEOVERS])++;
    return true;
}

/* Node n's version word w is locked by a thread lost with a failed CN: take the lock over, make the
 * node whole (repair) and publish its next version (true). False: the holder lives, or another
 * survivor was first. */
static bool takeover(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t w)
{
    const unsigned h = V_HOLDER(w);
    if (!(w & 1) || !h || h > ix->nthreads || wl_alive(t, h - 1))
        return false;
    if (spilled(ix, n)) { /* its stripe is held by the same thread */
        const uint64_t sa = stripe_addr(ix, n);
        return stripe_takeover(t, ix, sa, wl_ld(t, sa));
    }
    const uint64_t va = ver_addr(ix, n);
    if (wl_cas(t, va, w, v_locked(V_BASE(w), t->tid)) != w)
        return false;
    repair(t, ix, n, h - 1);
    wl_st(t, va, V_BASE(w) + V_STEP);
    wl_fence(t);
    (*ix->stat[IDX_TAKEOVERS])++;
    return true;
}

uint64_t idx_rbegin(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t addr, uint64_t lines)
{
    uint64_t v;
    while ((v = ver_read(t, ix, n)) & 1)
        if (!takeover(t, ix, n, v))
            wl_compute(t, SPIN_INSTRS);
    if (wl_ld(t, seen_addr(ix, t, n)) != v && ix->skip != CFG_SKIP_READER)
        flush_lines(t, ix, addr, lines);
    return v;
}

bool idx_rend(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t v)
{
    if (ver_read(t, ix, n) != v) {
        (*ix->stat[IDX_RETRIES])++;
        return false;
    }
    wl_st(t, seen_addr(ix, t, n), v);
    (*ix->stat[IDX_NODE_READS])++;
    return true;
}

bool idx_rvalid(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t v) { return ver_read(t, ix, n) == v; }

uint64_t idx_wlock(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t addr, uint64_t lines)
{
    const uint64_t va = ver_addr(ix, n);
    uint64_t v;
    if (!spilled(ix, n)) {
        for (;;) {
            v = wl_ld(t, va);
            if (!(v & 1) && wl_cas(t, va, v, v_locked(v, t->tid)) == v)
                break;
            if (!(v & 1) || !takeover(t, ix, n, v))
                wl_compute(t, SPIN_INSTRS);
        }
    } else { /* the line's stripe lock, then the version, locked, written back */
        const uint64_t sa = stripe_addr(ix, n), mine = stripe_word(t->tid, n);
        for (uint64_t s; (s = wl_ld(t, sa)) || wl_cas(t, sa, 0, mine);)
            if (!s || !stripe_takeover(t, ix, sa, s))
                wl_compute(t, SPIN_INSTRS);
        v = ver_read(t, ix, n);
        wl_st(t, va, v_locked(v, t->tid));
        wl_flush_opt(t, va);
        wl_fence(t);
    }
    if (wl_ld(t, seen_addr(ix, t, n)) != v) { /* copies dropped: what this CN reads now is version v */
        flush_lines(t, ix, addr, lines);
        wl_st(t, seen_addr(ix, t, n), v);
    }
    return v;
}

void idx_wimage(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t addr, const uint64_t *img, unsigned nw)
{
    const uint64_t r = redo_at(ix, t->tid);
    for (unsigned i = 0; i < nw; i++)
        wl_st(t, r + LINE + 8 * i, img[i]);
    wl_st(t, r + 8, addr);
    wl_st(t, r + 16, nw);
    wl_st(t, r, n + 1); /* last (TSO keeps the order): the record names the node once it is whole */
}

void idx_wunlock(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t v, const uint64_t *dirty, unsigned ndirty)
{
    if (ix->skip != CFG_SKIP_WRITER) {
        for (unsigned i = 0; i < ndirty; i++)
            wl_flush_opt(t, dirty[i]);
        *ix->stat[IDX_FLUSHES] += ndirty;
    }
    wl_fence(t); /* the lines in memory before the version says so */
    if (ix->image_words)
        wl_st(t, redo_at(ix, t->tid), 0); /* the write is whole in memory: no redo */
    const uint64_t va = ver_addr(ix, n);
    wl_st(t, va, v + V_STEP);
    if (spilled(ix, n)) {
        wl_flush_opt(t, va);
        wl_fence(t);
        wl_st(t, stripe_addr(ix, n), 0);
    }
    wl_st(t, seen_addr(ix, t, n), v + V_STEP);
    wl_fence(t);
}

void idx_wabort(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t v)
{
    const uint64_t va = ver_addr(ix, n);
    wl_st(t, va, v);
    if (spilled(ix, n)) {
        wl_flush_opt(t, va);
        wl_fence(t);
        wl_st(t, stripe_addr(ix, n), 0);
    }
}

/* ---- the clients ---- */

static void log_rec(wl_thread_t *t, const idx_t *ix, uint64_t i, idx_op_e op, uint64_t rank, uint64_t res,
                    uint64_t t0, unsigned n, const uint64_t *keys, const uint64_t *vals)
{
    const uint64_t a = rec_addr(ix, t->tid, i);
    wl_st(t, a, rank | (uint64_t)op << OP_SHIFT);
    wl_st(t, a + 8, res);
    wl_st(t, a + 16, t0);
    wl_st(t, a + 24, wl_now(t));
    for (unsigned j = 0; j < n; j++) {
        wl_st(t, a + 32 + 16 * j, keys[j]);
        wl_st(t, a + 40 + 16 * j, vals[j]);
    }
}

void idx_run(wl_thread_t *t, const idx_t *ix, void *w, const idx_ops_t *ops)
{
    rng_t r;
    rng_init_named(&r, t->seed, ix->name);
    const uint64_t n = thread_ops(ix, t->tid);
    uint64_t rec = 0, keys[IDX_SCAN_MAX], vals[IDX_SCAN_MAX];
    for (uint64_t op = 0; op < n; op++) {
        if (ops->between)
            ops->between(t, w);
        wl_compute(t, CLIENT_INSTRS);
        const uint64_t rank = ix->zipf ? rng_zipf_next(&ix->keys_z, &r) : rng_below(&r, ix->nkeys);
        const uint64_t p = rng_below(&r, 100), key = ix->key[rank];
        uint64_t t0 = wl_now(t);
        if (p < ix->read_pct) {
            log_rec(t, ix, rec++, IDX_GET, rank, ops->get(t, w, key), t0, 0, NULL, NULL);
            (*ix->stat[IDX_GETS])++;
        } else if (p < ix->read_pct + ix->rmw_pct) { /* a get, then a put: two records */
            log_rec(t, ix, rec++, IDX_GET, rank, ops->get(t, w, key), t0, 0, NULL, NULL);
            wl_compute(t, MODIFY_INSTRS);
            const uint64_t val = ((uint64_t)t->tid + 1) << IDX_WRITER_SHIFT | (rec + 1);
            uint64_t t1 = wl_now(t);
            ops->put(t, w, key, val);
            log_rec(t, ix, rec++, IDX_RMW, rank, val, t1, 0, NULL, NULL);
            (*ix->stat[IDX_GETS])++;
            (*ix->stat[IDX_PUTS])++;
            (*ix->stat[IDX_RMWS])++;
        } else if (p < ix->read_pct + ix->rmw_pct + ix->scan_pct) {
            unsigned got = ops->scan(t, w, key, (unsigned)ix->scan_len, keys, vals);
            log_rec(t, ix, rec++, IDX_SCAN, rank, got, t0, got, keys, vals);
            (*ix->stat[IDX_SCANS])++;
        } else {
            const uint64_t val = ((uint64_t)t->tid + 1) << IDX_WRITER_SHIFT | (rec + 1);
            ops->put(t, w, key, val);
            log_rec(t, ix, rec++, IDX_PUT, rank, val, t0, 0, NULL, NULL);
            (*ix->stat[IDX_PUTS])++;
        }
        wl_window(ix->stat[IDX_WARM_PS], ix->stat[IDX_END_PS], ix->stat[IDX_WIN_OPS], op, n, wl_now(t));
    }
    wl_st(t, rec_addr(ix, t->tid, max_recs(ix, t->tid)), rec);
}

/* ---- the check ---- */

typedef struct put {
    uint64_t rank, t0, t1;
    unsigned tid;
    uint64_t rec;
} put_t;

static int put_cmp(const void *a, const void *b)
{
    const put_t *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

typedef struct hist {
    const idx_t *ix;
    wl_env_t *e;      /* the membership: a lost thread's log is gone with its CN's memory */
    put_t *put;       /* sorted by key rank, then start */
    uint64_t nput;
    uint64_t *first;  /* per rank: its first put's index (nput: none), and first[nkeys] = nput */
    uint64_t *sufmin; /* per put: the index of the earliest-ending put of its key from it on */
    uint64_t **at;    /* per thread, per record: its put's index (UINT64_MAX: not a put) */
    uint64_t *nrec;   /* per thread: records logged */
} hist_t;

/* The first put of rank's key that began after time t (its range's end when none). */
static uint64_t first_after(const hist_t *h, uint64_t rank, uint64_t t)
{
    uint64_t lo = h->first[rank], hi = h->first[rank + 1];
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (h->put[mid].t0 <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A read of rank's key from t0 to t1 that returned val: 0, or -1 with err filled. */
static int check_read(const hist_t *h, const char *what, unsigned tid, uint64_t rank, uint64_t val, uint64_t t0,
                      uint64_t t1, char *err)
{
    const idx_t *ix = h->ix;
    const char *nm = ix->name;
    const uint64_t end = h->first[rank + 1];
    uint64_t from = h->first[rank]; /* the puts that follow the value read */
    if (val) {
        const uint64_t w = val >> IDX_WRITER_SHIFT, rec = (val & REC_MASK) - 1;
        if (w && w <= ix->nthreads && !wl_env_alive(h->e, (unsigned)(w - 1)) && rec < max_recs(ix, (unsigned)(w - 1)))
            return 0; /* a put of a thread lost with a failed CN: when it ran, its log took with it */
        const uint64_t pi = w && w <= ix->nthreads && rec < h->nrec[w - 1] ? h->at[w - 1][rec] : UINT64_MAX;
        if (pi == UINT64_MAX || h->put[pi].rank != rank)
            return wl_errf(err, "%s: thread %u's %s of key %llu returned 0x%llx, which no put of that key wrote", nm,
                           tid, what, (unsigned long long)ix->key[rank], (unsigned long long)val);
        const put_t *p = &h->put[pi];
        if (p->t0 > t1)
            return wl_errf(err, "%s: thread %u's %s of key %llu (%llu .. %llu ps) returned thread %u's put, which "
                           "began only at %llu ps", nm, tid, what, (unsigned long long)ix->key[rank],
                           (unsigned long long)t0, (unsigned long long)t1, p->tid, (unsigned long long)p->t0);
        from = first_after(h, rank, p->t1);
    }
    if (from < end && h->put[h->sufmin[from]].t1 < t0) {
        const put_t *q = &h->put[h->sufmin[from]];
        return wl_errf(err, "%s: thread %u's %s of key %llu (%llu .. %llu ps) returned a stale value (%s): thread "
                       "%u's put after it had ended at %llu ps", nm, tid, what, (unsigned long long)ix->key[rank],
                       (unsigned long long)t0, (unsigned long long)t1, val ? "a put that ended before" : "setup's",
                       q->tid, (unsigned long long)q->t1);
    }
    return 0;
}

int idx_check(wl_env_t *e, const idx_t *ix, void *w, const idx_ops_t *ops, char *err)
{
    const char *nm = ix->name;
    hist_t h = {.ix = ix, .e = e};
    int rc = 0;
    uint64_t total = 0;
    h.at = calloc(ix->nthreads, sizeof *h.at);
    h.nrec = calloc(ix->nthreads, sizeof *h.nrec);
    h.first = malloc((ix->nkeys + 1) * sizeof *h.first);
    for (unsigned t = 0; t < ix->nthreads; t++)
        total += max_recs(ix, t);
    h.put = malloc((total ? total : 1) * sizeof *h.put);
    h.sufmin = malloc((total ? total : 1) * sizeof *h.sufmin);
    if (!h.at || !h.nrec || !h.first || !h.put || !h.sufmin) {
        rc = wl_errf(err, "%s: check: out of host memory", nm);
        goto out;
    }
    /* the logs: every thread that lived to the end did its operations; the puts (a thread lost with
     * a failed CN: none known, its log lost with its CN's memory) */
    for (unsigned t = 0; t < ix->nthreads && !rc; t++) {
        const unsigned cn = ix->thread_cn[t];
        const bool alive = wl_env_alive(e, t);
        const uint64_t cap = max_recs(ix, t), n = alive ? e->ops->peek(e, cn, rec_addr(ix, t, cap)) : 0;
        uint64_t ops_done = 0;
        if (n > cap || !(h.at[t] = malloc((n ? n : 1) * sizeof *h.at[t]))) {
            rc = wl_errf(err, "%s: thread %u logged %llu records, room for %llu", nm, t, (unsigned long long)n,
                         (unsigned long long)cap);
            break;
        }
        h.nrec[t] = n;
        for (uint64_t i = 0; i < n; i++) {
            const uint64_t a = rec_addr(ix, t, i), w0 = e->ops->peek(e, cn, a), op = w0 >> OP_SHIFT;
            const uint64_t rank = w0 & ((1ull << OP_SHIFT) - 1);
            h.at[t][i] = UINT64_MAX;
            if (op > IDX_SCAN || rank >= ix->nkeys) {
                rc = wl_errf(err, "%s: thread %u's record %llu names operation %llu on key rank %llu", nm, t,
                             (unsigned long long)i, (unsigned long long)op, (unsigned long long)rank);
                break;
            }
            ops_done += op != IDX_RMW; /* a read-modify-write is its get's record and its put's */
            if (op == IDX_PUT || op == IDX_RMW) {
                h.at[t][i] = h.nput;
                h.put[h.nput++] = (put_t){rank, e->ops->peek(e, cn, a + 16), e->ops->peek(e, cn, a + 24), t, i};
            }
        }
        if (!rc && alive && ops_done != thread_ops(ix, t))
            rc = wl_errf(err, "%s: thread %u did %llu of its %llu operations", nm, t, (unsigned long long)ops_done,
                         (unsigned long long)thread_ops(ix, t));
    }
    if (rc)
        goto out;
    /* sorted by key, then start; a put's index moves with it */
    qsort(h.put, h.nput, sizeof *h.put, put_cmp);
    for (uint64_t i = 0; i < h.nput; i++)
        h.at[h.put[i].tid][h.put[i].rec] = i;
    for (uint64_t r = 0, i = 0; r <= ix->nkeys; r++) {
        h.first[r] = i;
        while (r < ix->nkeys && i < h.nput && h.put[i].rank == r)
            i++;
    }
    for (uint64_t r = 0; r < ix->nkeys; r++)
        for (uint64_t i = h.first[r + 1]; i-- > h.first[r];)
            h.sufmin[i] = i + 1 < h.first[r + 1] && h.put[h.sufmin[i + 1]].t1 < h.put[i].t1 ? h.sufmin[i + 1] : i;
    /* every get and every pair a scan returned */
    for (unsigned t = 0; t < ix->nthreads && !rc; t++) {
        const unsigned cn = ix->thread_cn[t];
        for (uint64_t i = 0; i < h.nrec[t] && !rc; i++) {
            const uint64_t a = rec_addr(ix, t, i), w0 = e->ops->peek(e, cn, a), op = w0 >> OP_SHIFT;
            const uint64_t rank = w0 & ((1ull << OP_SHIFT) - 1), res = e->ops->peek(e, cn, a + 8);
            const uint64_t t0 = e->ops->peek(e, cn, a + 16), t1 = e->ops->peek(e, cn, a + 24);
            if (op == IDX_GET)
                rc = check_read(&h, "get", t, rank, res, t0, t1, err);
            if (op != IDX_SCAN)
                continue;
            const uint64_t want = ix->nkeys - rank < ix->scan_len ? ix->nkeys - rank : ix->scan_len;
            if (res != want) {
                rc = wl_errf(err, "%s: thread %u's scan from key %llu returned %llu keys, not %llu", nm, t,
                             (unsigned long long)ix->key[rank], (unsigned long long)res, (unsigned long long)want);
                break;
            }
            for (uint64_t j = 0; j < res && !rc; j++) {
                const uint64_t k = e->ops->peek(e, cn, a + 32 + 16 * j), v = e->ops->peek(e, cn, a + 40 + 16 * j);
                if (k != ix->key[rank + j])
                    rc = wl_errf(err, "%s: thread %u's scan from key %llu returned key %llu at %llu, where %llu is "
                                 "next in order (a key lost, repeated or out of order)", nm, t,
                                 (unsigned long long)ix->key[rank], (unsigned long long)k, (unsigned long long)j,
                                 (unsigned long long)ix->key[rank + j]);
                else
                    rc = check_read(&h, "scan", t, rank + j, v, t0, t1, err);
            }
        }
    }
    /* memory: each key's last put (no put of the key began after it ended), or setup's value; or a
     * put of a thread lost with a failed CN (its place among the others unknown: its log is lost) */
    for (uint64_t r = 0; r < ix->nkeys && !rc; r++) {
        const uint64_t v = ops->final(e, w, ix->key[r]), end = h.first[r + 1];
        uint64_t pi = UINT64_MAX;
        if (v) {
            const uint64_t wr = v >> IDX_WRITER_SHIFT, rec = (v & REC_MASK) - 1;
            if (wr && wr <= ix->nthreads && !wl_env_alive(e, (unsigned)(wr - 1)) && rec < max_recs(ix, (unsigned)(wr - 1)))
                continue;
            pi = wr && wr <= ix->nthreads && rec < h.nrec[wr - 1] ? h.at[wr - 1][rec] : UINT64_MAX;
        }
        if (v ? pi == UINT64_MAX || h.put[pi].rank != r || first_after(&h, r, h.put[pi].t1) != end
              : h.first[r] != end)
            rc = wl_errf(err, "%s: key %llu holds 0x%llx at the end, not its last put's value (%llu puts)", nm,
                         (unsigned long long)ix->key[r], (unsigned long long)v,
                         (unsigned long long)(end - h.first[r]));
    }
out:
    if (h.at)
        for (unsigned t = 0; t < ix->nthreads; t++)
            free(h.at[t]);
    free(h.at);
    free(h.nrec);
    free(h.first);
    free(h.put);
    free(h.sufmin);
    return rc;
}
