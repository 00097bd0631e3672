/* The log-structured merge trees on partly coherent memory: SC-LSM and Prism (see lsm.h). */
#include "workloads/lsm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 64u
#define SPIN_INSTRS 100u
#define IDLE_INSTRS 2000u /* the compactor's pause when it has nothing to do (about 1 us) */
#define STEP_INSTRS 4u  /* a binary search step */
#define MERGE_INSTRS 8u /* an entry merged by the compactor */
#define NONE UINT64_MAX
/* memtable bucket: word 0 its lock (tid + 1), word 1 its clock hand, then 7 slots (key, value) */
#define B_SLOTS 7u
#define B_BYTES 128u
#define B_KEY(i) (16u + 16u * (i))
#define B_VAL(i) (24u + 16u * (i))
/* BUL node: word 0 its count, then 16 keys, then 16 values (5 lines) */
#define N_KEYS 16u
#define N_LINES 5u
#define N_BYTES (N_LINES * LINE)
#define N_IMAGE (1u + 2u * N_KEYS) /* its words: a redo record holds them (idx_wimage) */
#define N_KEY(i) (8u + 8u * (i))
#define N_VAL(i) (8u + 8u * N_KEYS + 8u * (i))
#define RANGE_NODES 16u /* BUL nodes a flush writes out at once */
/* manifest: line 0 its sequence (word 0), then two slots, the current one (sequence / 2) % 2: each a
 * header line (its table count, the next table id), then its entries */
#define M_HDR 64u
#define M_ENTRY 32u /* id; level | extent << 8 | count << 32; least key; greatest key */
#define MAN_CAP 256u
#define MAX_LEVELS 8u
/* a thread's two control lines: the manifest sequence it reads under (0: idle), and its flush request
 * (SC-LSM: 1, the memtable; Prism: a BUL range + 1), which the compactor polls (on a line of its
 * own, so that the polls do not take the announcement's line from its thread) */
#define A_SEQ 0u
#define A_REQ 64u
/* an SSTable: a header line (id, count), a fence index (the first key of each block of 64 entries,
 * whole lines), then the entries, key and value side by side, as a data block holds them */
#define BLOCK 64u
/* the shared control line: the active memtable half (SC-LSM), the clients done (a bit each), the
 * compactor whose bookkeeping is current (tid + 1) */
#define C_ACTIVE 0u
#define C_DONE 8u
#define C_OWNER 16u

enum { L_PROBED, L_TABLE_GETS, L_PROMOTIONS, L_EVICTIONS, L_BUL_INSERTS, L_FLUSHES, L_COMPACTIONS, L_FREED,
       L_STALLS, L_SCAN_RETRIES, L_WRITTEN, L_FREED_READS, L_EARLY_FREES, L_ADOPTIONS, L_NCOUNT };
static const char *const l_leaf[L_NCOUNT] = {"tables_probed", "table_gets",  "promotions", "evictions",
                                             "bul_inserts",   "l0_flushes",  "compactions", "extents_freed",
                                             "write_stalls",  "scan_retries", "entries_written",
                                             "freed_extent_reads", "early_frees", "compactor_takeovers"};
static const char *const l_doc[L_NCOUNT] = {
    "SSTables searched by gets (per get: tables_probed / gets)",
    "gets that reached the SSTables (found in neither the memtable nor the BUL)",
    "keys promoted into the memtable on their second write (Prism)",
    "memtable keys written back to the BUL to make room (Prism)",
    "keys inserted into the BUL (Prism)",
    "L0 SSTables written from the memtable (SC-LSM) or a BUL range (Prism)",
    "merges of SSTables into the level below",
    "extents freed once no thread read under a manifest that listed them",
    "puts that waited for a flush (a full memtable bucket or BUL node)",
    "scans started again (a BUL node or the manifest changed under them)",
    "SSTable entries written by flushes and compactions",
    "SSTable reads under a manifest whose table had left its extent (freed too early; must be 0)",
    "extents freed while a thread still read under a manifest that listed their table (must be 0)",
    "compactor roles taken over (the compactor lost with a failed CN, or a client acting as it done): its "
    "bookkeeping rebuilt from the manifest"};

typedef struct ment {
    uint64_t id, w1, lo, hi;
} ment_t;
static unsigned m_level(uint64_t w1) { return (unsigned)(w1 & 0xff); }
static uint64_t m_ext(uint64_t w1) { return w1 >> 8 & 0xffffff; }
static uint64_t m_count(uint64_t w1) { return w1 >> 32; }
static uint64_t m_w1(unsigned level, uint64_t ext, uint64_t count) { return level | ext << 8 | count << 32; }

typedef struct snap {
    uint64_t seq;
    unsigned n;
    ment_t e[MAN_CAP];
} snap_t;

typedef struct lsm {
    idx_t ix;
    bool prism;
    uint64_t tkeys;         /* entries per SSTable */
    uint64_t ext_bytes, fence_bytes, nexts, ext_base; /* an extent's bytes, its fences', extents, LNR base */
    uint64_t nbuckets, mt;  /* memtable: buckets (SC-LSM: per half, the halves one after the other) */
    uint64_t man, man_max, slot_bytes, ctl, act;
    uint64_t *rseen;        /* per CN (local): per extent the last table id it met there */
    uint64_t bul, bul_nodes;
    unsigned l0_trigger, l1_tables, ratio, bottom;
    /* the compactor's own bookkeeping (host): the manifest as it wrote it, free and retired extents */
    ment_t *mh;
    unsigned mn;
    uint64_t next_id, seq;
    uint64_t *free_ext, nfree;
    uint64_t (*retired)[2]; /* extent, the sequence from which no reader may still use it */
    uint64_t nret;
    unsigned rr[MAX_LEVELS];
    bool redrain; /* SC-LSM: the inactive half may hold keys a lost compactor did not empty */
    char overflow[160]; /* a sizing error met at run time, for the check */
    /* the check's instrument (host, no simulated cost): the id of the table each extent holds now
     * (0: free), and the first read of an extent whose table had left it */
    uint64_t *ext_id, *snap_seq; /* and each thread's manifest sequence while it reads under one (0: none) */
    char freed_read[200], early_free[200];
    uint64_t *stat[L_NCOUNT];
} lsm_t;

void lsm_free(void *state)
{
    lsm_t *L = state;
    if (!L)
        return;
    idx_free(&L->ix);
    free(L->rseen);
    free(L->mh);
    free(L->free_ext);
    free(L->retired);
    free(L->ext_id);
    free(L->snap_seq);
    free(L);
}

static uint64_t bucket_of(const lsm_t *L, unsigned half, uint64_t key)
{
    return L->mt + B_BYTES * (half * L->nbuckets + wl_mix64(key) % L->nbuckets);
}
static uint64_t node_of(const lsm_t *L, uint64_t key) { return ((key >> 31) * L->bul_nodes) >> 32; }
static uint64_t node_at(const lsm_t *L, uint64_t n) { return L->bul + n * N_BYTES; }
static uint64_t ext_at(const lsm_t *L, uint64_t x) { return L->ext_base + x * L->ext_bytes; }
static uint64_t fence_at(const lsm_t *L, uint64_t x, uint64_t b) { return ext_at(L, x) + LINE + 8 * b; }
static uint64_t tkey_at(const lsm_t *L, uint64_t x, uint64_t i)
{
    return ext_at(L, x) + LINE + L->fence_bytes + 16 * i;
}
static uint64_t tval_at(const lsm_t *L, uint64_t x, uint64_t i) { return tkey_at(L, x, i) + 8; }
static uint64_t act_at(const lsm_t *L, unsigned tid) { return L->act + 2 * LINE * tid; }
static uint64_t slot_at(const lsm_t *L, uint64_t seq) { return L->man + M_HDR + (seq / 2 % 2) * L->slot_bytes; }
static uint64_t level_cap(const lsm_t *L, unsigned level)
{
    uint64_t c = L->l1_tables;
    for (unsigned i = 1; i < level; i++)
        c *= L->ratio;
    return c;
}

/* ---- setup ---- */

static int alloc_or(uint64_t *a, uint64_t v, char *err, const char *name, const char *what)
{
    *a = v;
    return v == WL_ALLOC_FAIL ? wl_errf(err, "%s: %s does not fit", name, what) : 0;
}

int lsm_setup(wl_env_t *e, void **state, char *err, const char *name, bool prism)
{
    const sim_config_t *c = e->cfg;
    *state = NULL;
    lsm_t *L = calloc(1, sizeof *L);
    if (!L)
        return wl_errf(err, "%s: out of host memory", name);
    if (idx_setup(e, &L->ix, name, e->nthreads > 1, err)) {
        free(L);
        return -1;
    }
    idx_t *ix = &L->ix;
    int rc = 0;
    L->prism = prism;
    L->tkeys = c->workload.lsm_table_keys; /* a multiple of 8 (the configuration checks) */
    L->l0_trigger = (unsigned)c->workload.lsm_l0_tables;
    L->l1_tables = (unsigned)c->workload.lsm_l1_tables;
    L->ratio = (unsigned)c->workload.lsm_level_ratio;
    const uint64_t budget = c->workload.share_scr_budget;
    if (!L->tkeys || L->tkeys % 8) {
        rc = wl_errf(err, "%s: tables of %llu keys do not fill whole lines (a multiple of 8)", name,
                     (unsigned long long)L->tkeys);
        goto out;
    }
    if (!budget) {
        rc = wl_errf(err, "%s: its memtable%s and manifest are sized by workload.share_scr_budget, which is 0", name,
                     prism ? ", BUL" : "");
        goto out;
    }
    uint64_t man_bytes = c->workload.lsm_manifest ? c->workload.lsm_manifest : budget / 64;
    uint64_t mt_bytes = c->workload.lsm_memtable ? c->workload.lsm_memtable : prism ? budget / 2 : budget - man_bytes;
    if (man_bytes + mt_bytes > budget) {
        rc = wl_errf(err, "%s: a memtable of %llu bytes and a manifest of %llu exceed the SCR budget of %llu", name,
                     (unsigned long long)mt_bytes, (unsigned long long)man_bytes, (unsigned long long)budget);
        goto out;
    }
    L->man_max = man_bytes > M_HDR ? (man_bytes - M_HDR) / M_ENTRY : 0;
    if (L->man_max > MAN_CAP)
        L->man_max = MAN_CAP;
    L->nbuckets = mt_bytes / B_BYTES / (prism ? 1 : 2);
    const uint64_t tables = (ix->nkeys + L->tkeys - 1) / L->tkeys;
    for (L->bottom = 1; level_cap(L, L->bottom) < tables && L->bottom + 1 < MAX_LEVELS; L->bottom++)
        ;
    /* the manifest's most tables: the bottom level's (a merge never adds to it), each level above at
     * its capacity and one more, L0 two past its trigger and one flush's worth */
    const uint64_t flush = prism ? (RANGE_NODES * N_KEYS + L->tkeys - 1) / L->tkeys
                                 : (B_SLOTS * L->nbuckets + L->tkeys - 1) / L->tkeys;
    uint64_t need = tables + L->l0_trigger + 2 + flush;
    for (unsigned i = 1; i < L->bottom; i++)
        need += level_cap(L, i) + 1;
    if (!L->nbuckets || L->man_max < need) {
        rc = wl_errf(err, "%s: %llu bytes of memtable make %llu buckets of 7 keys and a manifest of %llu bytes holds "
                     "%llu tables, where %llu keys in tables of %llu need %llu", name, (unsigned long long)mt_bytes,
                     (unsigned long long)L->nbuckets, (unsigned long long)man_bytes, (unsigned long long)L->man_max,
                     (unsigned long long)ix->nkeys, (unsigned long long)L->tkeys, (unsigned long long)need);
        goto out;
    }
    /* SCR: manifest, memtable, control lines; the BUL's versions (idx_versions) */
    L->slot_bytes = M_HDR + (L->man_max * M_ENTRY + LINE - 1) / LINE * LINE;
    if ((rc = alloc_or(&L->man, e->ops->alloc_cxl(e, M_HDR + 2 * L->slot_bytes), err, name,
                       "the manifest in the SCR")) ||
        (rc = alloc_or(&L->mt, e->ops->alloc_cxl(e, B_BYTES * L->nbuckets * (prism ? 1 : 2)), err, name,
                       "the memtable in the SCR")) ||
        (rc = alloc_or(&L->ctl, e->ops->alloc_cxl(e, LINE), err, name, "the control line in the SCR")) ||
        (rc = alloc_or(&L->act, e->ops->alloc_cxl(e, 2ull * LINE * e->nthreads), err, name,
                       "the threads' lines in the SCR")))
        goto out;
    if (prism) {
        const uint64_t bul_bytes = budget - man_bytes - mt_bytes;
        L->bul_nodes = bul_bytes / 8 / RANGE_NODES * RANGE_NODES;
        if (!L->bul_nodes) {
            rc = wl_errf(err, "%s: %llu bytes of SCR left for the BUL's versions hold fewer than %u", name,
                         (unsigned long long)bul_bytes, RANGE_NODES);
            goto out;
        }
        if ((rc = alloc_or(&L->bul, e->ops->alloc_lnr(e, L->bul_nodes * N_BYTES), err, name, "the BUL in the LNR")))
            goto out;
        if ((rc = idx_versions(e, ix, L->bul_nodes, 8 * L->bul_nodes, N_IMAGE, err)))
            goto out;
        for (uint64_t w = 0; w < L->bul_nodes * N_BYTES / 8; w++)
            e->ops->poke(e, 0, L->bul + 8 * w, 0);
    }
    /* LNR: the extents, twice the manifest's tables (live ones and ones waiting to be freed) */
    L->fence_bytes = ((L->tkeys + BLOCK - 1) / BLOCK * 8 + LINE - 1) / LINE * LINE;
    L->ext_bytes = LINE + L->fence_bytes + 16 * L->tkeys; /* lsm_table_keys is a multiple of 8: whole lines */
    L->nexts = 2 * L->man_max + 2;
    if (L->nexts > 0xffffff || (rc = alloc_or(&L->ext_base, e->ops->alloc_lnr(e, L->nexts * L->ext_bytes), err, name,
                                              "the SSTables' extents in the LNR"))) {
        if (!rc)
            rc = wl_errf(err, "%s: %llu extents are too many", name, (unsigned long long)L->nexts);
        goto out;
    }
    if (!(L->rseen = calloc(e->num_cn, sizeof *L->rseen)) || !(L->mh = calloc(L->man_max, sizeof *L->mh)) ||
        !(L->free_ext = malloc(L->nexts * sizeof *L->free_ext)) ||
        !(L->retired = malloc(L->nexts * sizeof *L->retired)) || !(L->ext_id = calloc(L->nexts, sizeof *L->ext_id)) ||
        !(L->snap_seq = calloc(e->nthreads, sizeof *L->snap_seq))) {
        rc = wl_errf(err, "%s: out of host memory", name);
        goto out;
    }
    for (unsigned cn = 0; cn < e->num_cn; cn++)
        if ((rc = alloc_or(&L->rseen[cn], e->ops->alloc_local(e, cn, 8 * L->nexts), err, name,
                           "a CN's table of extents seen in its local memory")))
            goto out;
    if ((rc = wl_counters(e, name, l_leaf, l_doc, L_NCOUNT, L->stat, err)))
        goto out;
    /* every word handed out written (whole-line write-backs carry only written words) */
    for (uint64_t w = 0; w < B_BYTES * L->nbuckets * (prism ? 1 : 2) / 8; w++)
        e->ops->poke(e, 0, L->mt + 8 * w, 0);
    for (uint64_t w = 0; w < L->nexts * L->ext_bytes / 8; w++)
        e->ops->poke(e, 0, L->ext_base + 8 * w, 0);
    /* the keys loaded into the bottom level, tables sharing them evenly; every CN has "seen" them
     * (its caches hold nothing yet) */
    L->next_id = 1;
    for (uint64_t i = 0, k = 0; i < tables; i++) {
        const uint64_t n = ix->nkeys / tables + (i < ix->nkeys % tables), id = L->next_id++, a = ext_at(L, i);
        e->ops->poke(e, 0, a, id);
        e->ops->poke(e, 0, a + 8, n);
        L->mh[L->mn++] = (ment_t){id, m_w1(L->bottom, i, n), ix->key[k], ix->key[k + n - 1]};
        L->ext_id[i] = id;
        for (uint64_t j = 0; j < n; j++, k++) {
            e->ops->poke(e, 0, tkey_at(L, i, j), ix->key[k]); /* values: setup's, 0 */
            if (j % BLOCK == 0)
                e->ops->poke(e, 0, fence_at(L, i, j / BLOCK), ix->key[k]);
        }
        for (unsigned cn = 0; cn < e->num_cn; cn++)
            e->ops->poke(e, cn, L->rseen[cn] + 8 * i, id);
    }
    for (uint64_t x = L->nexts; x-- > tables;)
        L->free_ext[L->nfree++] = x;
    L->seq = 2;
    const uint64_t sl = slot_at(L, L->seq);
    e->ops->poke(e, 0, L->man, L->seq);
    e->ops->poke(e, 0, sl, L->mn);
    e->ops->poke(e, 0, sl + 8, L->next_id);
    e->ops->poke(e, 0, L->ctl + C_OWNER, 1);
    for (unsigned i = 0; i < L->mn; i++) {
        const uint64_t a = sl + M_HDR + M_ENTRY * i;
        e->ops->poke(e, 0, a, L->mh[i].id);
        e->ops->poke(e, 0, a + 8, L->mh[i].w1);
        e->ops->poke(e, 0, a + 16, L->mh[i].lo);
        e->ops->poke(e, 0, a + 24, L->mh[i].hi);
    }
out:
    if (rc)
        lsm_free(L);
    else
        *state = L;
    return rc;
}

/* ---- SSTables and the manifest ---- */

static void idle(wl_thread_t *t, const lsm_t *L)
{
    wl_st(t, act_at(L, t->tid) + A_SEQ, 0);
    L->snap_seq[t->tid] = 0; /* the check's instrument (host) */
}

/* A consistent snapshot of the manifest, announced: the caller idles its announcement when done. */
static void snapshot(wl_thread_t *t, const lsm_t *L, snap_t *s)
{
    uint64_t a[256], v[256];
    for (;;) {
        const uint64_t seq = wl_ld(t, L->man), sl = slot_at(L, seq);
        wl_st(t, act_at(L, t->tid) + A_SEQ, seq);
        wl_fence(t); /* announced before the sequence is read again */
        uint64_t n = wl_ld(t, sl);
        if (n > L->man_max)
            n = L->man_max; /* a torn read: the sequence will not match */
        for (uint64_t w0 = 0; w0 < 4 * n; w0 += 256) {
            const unsigned m = (unsigned)(4 * n - w0 < 256 ? 4 * n - w0 : 256);
            for (unsigned j = 0; j < m; j++)
                a[j] = sl + M_HDR + 8 * (w0 + j);
            wl_ld_batch(t, a, v, m);
            for (unsigned j = 0; j < m; j++) {
                ment_t *e = &s->e[(w0 + j) / 4];
                const unsigned f = (unsigned)((w0 + j) % 4);
                *(f == 0 ? &e->id : f == 1 ? &e->w1 : f == 2 ? &e->lo : &e->hi) = v[j];
            }
        }
        if (wl_ld(t, L->man) == seq) {
            s->seq = seq;
            s->n = (unsigned)n;
            L->snap_seq[t->tid] = seq; /* the check's instrument (host) */
            return;
        }
    }
}

/* Flushes extent x once when the table there is one this CN has not met (flush-once); the check's
 * instrument notes a read of an extent its table has left. */
static void flush_once(wl_thread_t *t, const lsm_t *L, uint64_t x, uint64_t id)
{
    if (L->ext_id[x] != id) {
        lsm_t *M = (lsm_t *)L; /* the instrument is host state, outside the simulated memory */
        if (!(*M->stat[L_FREED_READS])++)
            snprintf(M->freed_read, sizeof M->freed_read, "thread %u read table %llu in extent %llu, which holds %s",
                     t->tid, (unsigned long long)id, (unsigned long long)x,
                     L->ext_id[x] ? "a newer table" : "no table (freed)");
    }
    const uint64_t a = L->rseen[t->cn] + 8 * x;
    if (wl_ld(t, a) == id)
        return;
    if (L->ix.skip != CFG_SKIP_READER) {
        const uint64_t lines = L->ext_bytes / LINE;
        for (uint64_t i = 0; i < lines; i++)
            wl_flush_opt(t, ext_at(L, x) + LINE * i);
        wl_fence(t);
        *L->ix.stat[IDX_FLUSHES] += lines;
    }
    wl_st(t, a, id);
}

/* The index of the first of extent x's n keys that is >= key (n when none): a binary search over the
 * fence index for the last block whose first key is <= key, then one within that block. */
static uint64_t lower_bound(wl_thread_t *t, const lsm_t *L, uint64_t x, uint64_t n, uint64_t key)
{
    uint64_t b = 0, bh = n ? (n - 1) / BLOCK : 0;
    while (b < bh) {
        const uint64_t mid = b + (bh - b + 1) / 2;
        if (wl_ld(t, fence_at(L, x, mid)) <= key)
            b = mid;
        else
            bh = mid - 1;
        wl_compute(t, STEP_INSTRS);
    }
    uint64_t lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (wl_ld(t, tkey_at(L, x, mid)) < key)
            lo = mid + 1;
        else
            hi = mid;
        wl_compute(t, STEP_INSTRS);
    }
    return lo;
}

static bool probe(wl_thread_t *t, const lsm_t *L, const ment_t *e, uint64_t key, uint64_t *val)
{
    const uint64_t x = m_ext(e->w1), n = m_count(e->w1);
    flush_once(t, L, x, e->id);
    (*L->stat[L_PROBED])++;
    const uint64_t i = lower_bound(t, L, x, n, key);
    if (i < n && wl_ld(t, tkey_at(L, x, i)) == key) {
        *val = wl_ld(t, tval_at(L, x, i));
        return true;
    }
    return false;
}

/* The key's value in the tables: L0 newest first, then the table of each level whose range holds it. */
static uint64_t tables_get(wl_thread_t *t, const lsm_t *L, uint64_t key)
{
    snap_t s;
    uint64_t val = NONE;
    snapshot(t, L, &s);
    (*L->stat[L_TABLE_GETS])++;
    for (unsigned i = 0; i < s.n; i++)
        if (s.e[i].lo <= key && key <= s.e[i].hi && probe(t, L, &s.e[i], key, &val))
            break;
    idle(t, L);
    return val; /* NONE: a key lost, which the check reports */
}

/* ---- the memtable ---- */

static void background_or_wait(wl_thread_t *t, lsm_t *L);

/* A memtable bucket's lock (its holder's tid + 1). One a thread lost with a failed CN holds is
 * taken over: the bucket is whole at every step of a put (a slot's value is stored before its key,
 * a key leaves its slot only once it is in the BUL). A client waiting for it does the compactor's
 * work meanwhile when it acts as the compactor (duty): the holder may be waiting for that work. */
static void lock_word(wl_thread_t *t, lsm_t *L, uint64_t a, bool duty)
{
    for (;;) {
        const uint64_t w = wl_ld(t, a);
        if (!w) {
            if (wl_cas(t, a, 0, (uint64_t)t->tid + 1) == 0)
                return;
        } else if (w <= L->ix.nthreads && !wl_alive(t, (unsigned)w - 1)) {
            if (wl_cas(t, a, w, (uint64_t)t->tid + 1) == w) {
                (*L->ix.stat[IDX_TAKEOVERS])++;
                return;
            }
        } else if (duty) {
            background_or_wait(t, L);
        } else {
            wl_compute(t, SPIN_INSTRS);
        }
    }
}

/* The bucket's slot keys, read at once. */
static void slot_keys(wl_thread_t *t, uint64_t b, uint64_t *k)
{
    uint64_t a[B_SLOTS];
    for (unsigned i = 0; i < B_SLOTS; i++)
        a[i] = b + B_KEY(i);
    wl_ld_batch(t, a, k, B_SLOTS);
}

/* Lock-free: the key's value in the bucket (its key word read again after the value: a slot that
 * changed key meanwhile is a miss; its value went on to the BUL or an L0 table first). */
static bool mt_probe(wl_thread_t *t, const lsm_t *L, unsigned half, uint64_t key, uint64_t *val)
{
    const uint64_t b = bucket_of(L, half, key);
    uint64_t k[B_SLOTS];
    slot_keys(t, b, k);
    for (unsigned i = 0; i < B_SLOTS; i++)
        if (k[i] == key) {
            const uint64_t v = wl_ld(t, b + B_VAL(i));
            if (wl_ld(t, b + B_KEY(i)) != key)
                return false;
            *val = v;
            return true;
        }
    return false;
}

static bool mt_get(wl_thread_t *t, const lsm_t *L, uint64_t key, uint64_t *val)
{
    if (L->prism)
        return mt_probe(t, L, 0, key, val);
    const unsigned h = (unsigned)wl_ld(t, L->ctl + C_ACTIVE);
    return mt_probe(t, L, h, key, val) || mt_probe(t, L, 1 - h, key, val);
}

/* ---- the BUL (Prism) ---- */

/* The index of the first of node a's n keys >= key. */
static uint64_t node_lower(wl_thread_t *t, uint64_t a, uint64_t n, uint64_t key)
{
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (wl_ld(t, a + N_KEY(mid)) < key)
            lo = mid + 1;
        else
            hi = mid;
        wl_compute(t, STEP_INSTRS);
    }
    return lo;
}

static bool bul_get(wl_thread_t *t, const lsm_t *L, uint64_t key, uint64_t *val)
{
    const uint64_t n = node_of(L, key), a = node_at(L, n);
    for (;;) {
        const uint64_t v = idx_rbegin(t, &L->ix, n, a, N_LINES);
        uint64_t cnt = wl_ld(t, a), x = 0;
        if (cnt > N_KEYS)
            cnt = N_KEYS; /* a torn read: the version will not match */
        const uint64_t i = node_lower(t, a, cnt, key);
        const bool found = i < cnt && wl_ld(t, a + N_KEY(i)) == key;
        if (found)
            x = wl_ld(t, a + N_VAL(i));
        if (idx_rend(t, &L->ix, n, v)) {
            *val = x;
            return found;
        }
    }
}

/* Updates key in its BUL node or inserts it there (waiting for a flush while the node is full).
 * Returns true when the key was there already. */
static bool bul_upsert(wl_thread_t *t, lsm_t *L, uint64_t key, uint64_t val)
{
    const uint64_t n = node_of(L, key), a = node_at(L, n);
    for (bool stalled = false;; stalled = true) {
        const uint64_t v = idx_wlock(t, &L->ix, n, a, N_LINES), cnt = wl_ld(t, a);
        const uint64_t i = node_lower(t, a, cnt, key);
        if (i < cnt && wl_ld(t, a + N_KEY(i)) == key) {
            const uint64_t d = (a + N_VAL(i)) & ~(uint64_t)(LINE - 1);
            wl_st(t, a + N_VAL(i), val);
            idx_wunlock(t, &L->ix, n, v, &d, 1);
            return true;
        }
        if (cnt < N_KEYS) { /* insert at i: the entries after it move up one */
            uint64_t ad[N_IMAGE], w[2 * N_KEYS], dirty[N_LINES], img[N_IMAGE];
            const unsigned m = (unsigned)(cnt - i);
            for (unsigned j = 0; j < N_IMAGE; j++)
                ad[j] = a + 8 * j;
            wl_ld_batch(t, ad, img, N_IMAGE); /* the node's image, then its new one (a redo record) */
            for (unsigned j = 0; j < m; j++) {
                w[j] = img[1 + i + j];
                w[m + j] = img[1 + N_KEYS + i + j];
            }
            for (unsigned j = m; j-- > 0;) {
                img[1 + i + j + 1] = w[j];
                img[1 + N_KEYS + i + j + 1] = w[m + j];
            }
            img[0] = cnt + 1;
            img[1 + i] = key;
            img[1 + N_KEYS + i] = val;
            idx_wimage(t, &L->ix, n, a, img, N_IMAGE);
            for (unsigned j = m; j-- > 0;) {
                wl_st(t, a + N_KEY(i + j + 1), w[j]);
                wl_st(t, a + N_VAL(i + j + 1), w[m + j]);
            }
            wl_st(t, a + N_KEY(i), key);
            wl_st(t, a + N_VAL(i), val);
            wl_st(t, a, cnt + 1);
            unsigned nd = 0; /* lines written: the count's, the keys' and values' from i on */
            for (unsigned l = 0; l < N_LINES; l++) {
                const uint64_t lo = LINE * l, hi = lo + LINE;
                if (l == 0 || (N_KEY(i) < hi && lo <= N_KEY(cnt)) || (N_VAL(i) < hi && lo <= N_VAL(cnt)))
                    dirty[nd++] = a + lo;
            }
            idx_wunlock(t, &L->ix, n, v, dirty, nd);
            (*L->stat[L_BUL_INSERTS])++;
            return false;
        }
        /* full: ask for its range to be written out, and wait until the compactor takes the request
         * (it clears it, then locks the range's nodes) */
        idx_wabort(t, &L->ix, n, v);
        const uint64_t req = act_at(L, t->tid) + A_REQ;
        wl_st(t, req, n / RANGE_NODES + 1);
        if (!stalled)
            (*L->stat[L_STALLS])++;
        while (wl_ld(t, req))
            background_or_wait(t, L);
    }
}

/* ---- operations ---- */

static uint64_t lsm_get(wl_thread_t *t, void *w, uint64_t key)
{
    const lsm_t *L = w;
    uint64_t v;
    if (mt_get(t, L, key, &v) || (L->prism && bul_get(t, L, key, &v)))
        return v;
    return tables_get(t, L, key);
}

static void sclsm_put(wl_thread_t *t, lsm_t *L, uint64_t key, uint64_t val)
{
    for (bool stalled = false;; stalled = true) {
        const unsigned h = (unsigned)wl_ld(t, L->ctl + C_ACTIVE);
        const uint64_t b = bucket_of(L, h, key);
        lock_word(t, L, b, true);
        if (wl_ld(t, L->ctl + C_ACTIVE) == h) { /* still the active half: the compactor drains it after the switch */
            uint64_t k[B_SLOTS];
            slot_keys(t, b, k);
            unsigned i = 0, e = B_SLOTS;
            while (i < B_SLOTS && k[i] != key) {
                if (!k[i] && e == B_SLOTS)
                    e = i;
                i++;
            }
            if (i < B_SLOTS || e < B_SLOTS) {
                const unsigned s = i < B_SLOTS ? i : e;
                wl_st(t, b + B_VAL(s), val);
                wl_st(t, b + B_KEY(s), key); /* after the value (TSO keeps the order) */
                wl_st(t, b, 0);
                return;
            }
        }
        wl_st(t, b, 0);
        /* the bucket is full: ask for the memtable to be written out, and wait for the switch */
        wl_st(t, act_at(L, t->tid) + A_REQ, 1);
        if (!stalled)
            (*L->stat[L_STALLS])++;
        while (wl_ld(t, L->ctl + C_ACTIVE) == h)
            background_or_wait(t, L);
    }
}

static void prism_put(wl_thread_t *t, lsm_t *L, uint64_t key, uint64_t val)
{
    const uint64_t b = bucket_of(L, 0, key);
    lock_word(t, L, b, true); /* the puts of a key serialize here */
    uint64_t k[B_SLOTS];
    slot_keys(t, b, k);
    for (unsigned i = 0; i < B_SLOTS; i++)
        if (k[i] == key) { /* hot: in place */
            wl_st(t, b + B_VAL(i), val);
            wl_st(t, b, 0);
            return;
        }
    if (bul_upsert(t, L, key, val)) { /* its second write: promoted */
        unsigned s = 0;
        while (s < B_SLOTS && k[s])
            s++;
        if (s == B_SLOTS) { /* the clock's next slot leaves for the BUL */
            const uint64_t hand = wl_ld(t, b + 8);
            s = (unsigned)(hand % B_SLOTS);
            wl_st(t, b + 8, hand + 1);
            bul_upsert(t, L, k[s], wl_ld(t, b + B_VAL(s)));
            wl_st(t, b + B_KEY(s), 0);
            (*L->stat[L_EVICTIONS])++;
        }
        wl_st(t, b + B_VAL(s), val);
        wl_st(t, b + B_KEY(s), key);
        (*L->stat[L_PROMOTIONS])++;
    }
    wl_st(t, b, 0);
}

static void lsm_put(wl_thread_t *t, void *w, uint64_t key, uint64_t val)
{
    lsm_t *L = w;
    if (L->prism)
        prism_put(t, L, key, val);
    else
        sclsm_put(t, L, key, val);
    wl_fence(t); /* the put ends visible */
}

/* A scan's candidate: a key, its value and its source's age (0 the newest). */
typedef struct cand {
    uint64_t key, val, prio;
} cand_t;

static int cand_cmp(const void *a, const void *b)
{
    const cand_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->prio < y->prio ? -1 : x->prio > y->prio;
}

/* Up to want entries of extent x's table from its first key >= key on, as candidates of age prio. */
static unsigned table_run(wl_thread_t *t, const lsm_t *L, const ment_t *e, uint64_t key, unsigned want,
                          uint64_t prio, cand_t *c)
{
    const uint64_t x = m_ext(e->w1), n = m_count(e->w1);
    flush_once(t, L, x, e->id);
    const uint64_t i = key <= e->lo ? 0 : lower_bound(t, L, x, n, key);
    const unsigned m = (unsigned)(n - i < want ? n - i : want);
    uint64_t a[2 * IDX_SCAN_MAX], v[2 * IDX_SCAN_MAX];
    for (unsigned j = 0; j < m; j++) {
        a[j] = tkey_at(L, x, i + j);
        a[m + j] = tval_at(L, x, i + j);
    }
    wl_ld_batch(t, a, v, 2 * m);
    for (unsigned j = 0; j < m; j++)
        c[j] = (cand_t){v[j], v[m + j], prio};
    return m;
}

static unsigned lsm_scan(wl_thread_t *t, void *w, uint64_t key, unsigned want, uint64_t *keys, uint64_t *vals)
{
    lsm_t *L = w;
    snap_t s;
    cand_t *c = NULL;
    uint64_t *node = NULL, cap = 0; /* the BUL nodes read and their versions, in pairs */
    unsigned done;
    for (;;) {
        snapshot(t, L, &s);
        cand_t *nc_ = realloc(c, (size_t)(s.n + 1) * want * sizeof *c);
        if (!nc_)
            abort();
        c = nc_;
        unsigned nc = 0;
        uint64_t nn = 0;
        /* each L0 table that reaches the key; in each level, its tables from the key's on */
        for (unsigned i = 0; i < s.n; i++) {
            const ment_t *e = &s.e[i];
            const unsigned lv = m_level(e->w1);
            if (e->hi < key)
                continue;
            if (lv == 0) {
                nc += table_run(t, L, e, key, want, 1 + i, c + nc);
                continue;
            }
            unsigned got = 0; /* this level's tables in key order, from the first that reaches the key */
            for (unsigned j = i; j < s.n && m_level(s.e[j].w1) == lv && got < want; j++) {
                const unsigned m = table_run(t, L, &s.e[j], key, want - got, 1000 + lv, c + nc);
                nc += m;
                got += m;
            }
            while (i + 1 < s.n && m_level(s.e[i + 1].w1) == lv)
                i++;
        }
        qsort(c, nc, sizeof *c, cand_cmp);
        wl_compute(t, MERGE_INSTRS * nc);
        /* every key is in the tables (the bottom level holds them all): the scan's keys are the first
         * `want` of them; the BUL's nodes up to the last one's, each under its version, hold newer
         * values of some */
        done = 0;
        for (unsigned i = 0; i < nc && done < want; i++)
            if (!done || c[i].key != keys[done - 1]) {
                keys[done] = c[i].key;
                vals[done++] = c[i].val;
            }
        if (L->prism && done)
            for (uint64_t n = node_of(L, key), last = node_of(L, keys[done - 1]); n <= last; n++) {
                const uint64_t a = node_at(L, n);
                uint64_t v, cnt, ad[2 * N_KEYS], kv[2 * N_KEYS];
                do {
                    v = idx_rbegin(t, &L->ix, n, a, N_LINES);
                    cnt = wl_ld(t, a);
                    if (cnt > N_KEYS)
                        cnt = N_KEYS; /* a torn read: the version will not match */
                    for (unsigned j = 0; j < cnt; j++) {
                        ad[j] = a + N_KEY(j);
                        ad[cnt + j] = a + N_VAL(j);
                    }
                    wl_ld_batch(t, ad, kv, (unsigned)(2 * cnt));
                } while (!idx_rend(t, &L->ix, n, v));
                for (unsigned j = 0, r = 0; j < cnt; j++) { /* both in key order */
                    while (r < done && keys[r] < kv[j])
                        r++;
                    if (r < done && keys[r] == kv[j])
                        vals[r] = kv[cnt + j];
                }
                if (nn == cap && !(node = realloc(node, 2 * (cap = cap ? 2 * cap : 64) * sizeof *node)))
                    abort();
                node[2 * nn] = n;
                node[2 * nn++ + 1] = v;
            }
        for (unsigned i = 0; i < done; i++) { /* the memtable shadows every other tier */
            uint64_t v;
            if (mt_get(t, L, keys[i], &v))
                vals[i] = v;
        }
        bool ok = wl_ld(t, L->man) == s.seq;
        for (uint64_t i = 0; i < nn && ok; i++)
            ok = idx_rvalid(t, &L->ix, node[2 * i], node[2 * i + 1]);
        idle(t, L);
        if (ok)
            break;
        (*L->stat[L_SCAN_RETRIES])++;
    }
    free(c);
    free(node);
    return done;
}

/* ---- the compactor ---- */

static int ment_cmp(const void *a, const void *b)
{
    const ment_t *x = a, *y = b;
    const unsigned lx = m_level(x->w1), ly = m_level(y->w1);
    if (lx != ly)
        return lx < ly ? -1 : 1;
    if (lx == 0) /* L0 newest first */
        return x->id > y->id ? -1 : x->id < y->id;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Writes the host manifest into the SCR: into the slot readers do not use (the next sequence's),
 * then the sequence, one store, makes it current. */
static void publish(wl_thread_t *t, lsm_t *L)
{
    qsort(L->mh, L->mn, sizeof *L->mh, ment_cmp);
    const uint64_t sl = slot_at(L, L->seq + 2);
    wl_st(t, sl, L->mn);
    wl_st(t, sl + 8, L->next_id);
    for (unsigned i = 0; i < L->mn; i++) {
        const uint64_t a = sl + M_HDR + M_ENTRY * i;
        wl_st(t, a, L->mh[i].id);
        wl_st(t, a + 8, L->mh[i].w1);
        wl_st(t, a + 16, L->mh[i].lo);
        wl_st(t, a + 24, L->mh[i].hi);
    }
    wl_fence(t);
    L->seq += 2;
    wl_st(t, L->man, L->seq);
    wl_fence(t);
}

/* Frees the retired extents no thread can still be reading (all of them with the mutation). */
static void reclaim(wl_thread_t *t, lsm_t *L)
{
    if (!L->nret)
        return;
    uint64_t a[64], v[64], least = UINT64_MAX;
    for (unsigned u0 = L->ix.first_client; u0 < L->ix.nthreads; u0 += 64) {
        const unsigned m = L->ix.nthreads - u0 < 64 ? L->ix.nthreads - u0 : 64;
        for (unsigned j = 0; j < m; j++)
            a[j] = act_at(L, u0 + j) + A_SEQ;
        wl_ld_batch(t, a, v, m);
        for (unsigned j = 0; j < m; j++)
            if (v[j] && v[j] < least && wl_alive(t, u0 + j)) /* a thread lost with a failed CN reads nothing */
                least = v[j];
    }
    uint64_t k = 0;
    for (uint64_t i = 0; i < L->nret; i++)
        if (L->retired[i][1] <= least || L->ix.skip == CFG_SKIP_COMPACTOR) {
            for (unsigned u = 0; u < L->ix.nthreads; u++) /* the instrument: is anyone still reading under it? */
                if (L->snap_seq[u] && L->snap_seq[u] < L->retired[i][1] && wl_alive(t, u) &&
                    !(*L->stat[L_EARLY_FREES])++)
                    snprintf(L->early_free, sizeof L->early_free, "extent %llu freed while thread %u read under "
                             "manifest %llu, older than the one that removed its table (%llu)",
                             (unsigned long long)L->retired[i][0], u, (unsigned long long)L->snap_seq[u],
                             (unsigned long long)L->retired[i][1]);
            L->ext_id[L->retired[i][0]] = 0;
            L->free_ext[L->nfree++] = L->retired[i][0];
            (*L->stat[L_FREED])++;
        } else {
            L->retired[k][0] = L->retired[i][0];
            L->retired[k++][1] = L->retired[i][1];
        }
    L->nret = k;
}

/* Writes n sorted entries as tables of the level (up to lsm_table_keys each) into free extents,
 * every line written back, and adds them to the host manifest; false (L->overflow said why) when
 * the extents or the manifest are short. */
static bool write_tables(wl_thread_t *t, lsm_t *L, unsigned level, const uint64_t *k, const uint64_t *v, uint64_t n)
{
    const uint64_t tables = (n + L->tkeys - 1) / L->tkeys;
    if (tables > L->nfree || L->mn + tables > L->man_max) {
        snprintf(L->overflow, sizeof L->overflow, "%s: %llu more tables did not fit: %llu free extents, %u of %llu "
                 "manifest entries used", L->ix.name, (unsigned long long)tables, (unsigned long long)L->nfree,
                 L->mn, (unsigned long long)L->man_max);
        return false;
    }
    for (uint64_t i = 0, at = 0; i < tables; i++) {
        const uint64_t m = n / tables + (i < n % tables), x = L->free_ext[--L->nfree], id = L->next_id++;
        const uint64_t a = ext_at(L, x);
        L->ext_id[x] = id;
        wl_st(t, a, id);
        wl_st(t, a + 8, m);
        for (uint64_t j = 0; j < m; j++) {
            wl_st(t, tkey_at(L, x, j), k[at + j]);
            wl_st(t, tval_at(L, x, j), v[at + j]);
            if (j % BLOCK == 0)
                wl_st(t, fence_at(L, x, j / BLOCK), k[at + j]);
        }
        if (L->ix.skip != CFG_SKIP_WRITER) { /* the header, the fences' lines, the entries' lines */
            const uint64_t fl = ((m + BLOCK - 1) / BLOCK * 8 + LINE - 1) / LINE, el = (m + 3) / 4;
            wl_flush_opt(t, a);
            for (uint64_t l = 0; l < fl; l++)
                wl_flush_opt(t, a + LINE * (1 + l));
            for (uint64_t l = 0; l < el; l++)
                wl_flush_opt(t, tkey_at(L, x, 4 * l));
            *L->ix.stat[IDX_FLUSHES] += 1 + fl + el;
        }
        wl_fence(t);
        wl_st(t, L->rseen[t->cn] + 8 * x, id); /* written here, then dropped: nothing stale cached */
        L->mh[L->mn++] = (ment_t){id, m_w1(level, x, m), k[at], k[at + m - 1]};
        *L->stat[L_WRITTEN] += m;
        at += m;
    }
    return true;
}

/* Reads table e's entries (flush-once first) into k, v at prio. */
static uint64_t read_table(wl_thread_t *t, const lsm_t *L, const ment_t *e, uint64_t prio, cand_t *c)
{
    const uint64_t x = m_ext(e->w1), n = m_count(e->w1);
    flush_once(t, L, x, e->id);
    uint64_t a[256], v[256];
    for (uint64_t j0 = 0; j0 < n; j0 += 128) {
        const unsigned m = (unsigned)(n - j0 < 128 ? n - j0 : 128);
        for (unsigned j = 0; j < m; j++) {
            a[j] = tkey_at(L, x, j0 + j);
            a[m + j] = tval_at(L, x, j0 + j);
        }
        wl_ld_batch(t, a, v, 2 * m);
        for (unsigned j = 0; j < m; j++)
            c[j0 + j] = (cand_t){v[j], v[m + j], prio};
    }
    return n;
}

/* Sorts the candidates, keeps each key's newest, writes them as tables of `level`, replaces the
 * inputs (marked in `in`) in the manifest and retires their extents. */
static void merge_out(wl_thread_t *t, lsm_t *L, cand_t *c, uint64_t nc, unsigned level, const bool *in)
{
    qsort(c, nc, sizeof *c, cand_cmp);
    wl_compute(t, MERGE_INSTRS * nc);
    uint64_t *k = malloc((nc ? nc : 1) * sizeof *k), *v = malloc((nc ? nc : 1) * sizeof *v), n = 0;
    if (!k || !v)
        abort();
    for (uint64_t i = 0; i < nc; i++)
        if (!n || c[i].key != k[n - 1]) {
            k[n] = c[i].key;
            v[n++] = c[i].val;
        }
    /* the inputs leave the host manifest first (their entries are reused by the outputs) */
    uint64_t gone[MAN_CAP];
    unsigned ng = 0, keep = 0;
    ment_t old[MAN_CAP];
    const unsigned was = L->mn;
    memcpy(old, L->mh, was * sizeof *old);
    for (unsigned i = 0; i < was; i++)
        if (in && in[i])
            gone[ng++] = m_ext(old[i].w1);
        else
            L->mh[keep++] = old[i];
    L->mn = keep;
    if (!write_tables(t, L, level, k, v, n)) {
        L->mn = was; /* nothing changed */
        memcpy(L->mh, old, was * sizeof *old);
    } else {
        publish(t, L);
        for (unsigned i = 0; i < ng; i++) {
            L->retired[L->nret][0] = gone[i];
            L->retired[L->nret++][1] = L->seq;
        }
    }
    free(k);
    free(v);
}

static unsigned level_count(const lsm_t *L, unsigned level)
{
    unsigned n = 0;
    for (unsigned i = 0; i < L->mn; i++)
        n += m_level(L->mh[i].w1) == level;
    return n;
}

/* Merges into level+1: all of L0 (level 0) or one table of the level, with the tables of level+1
 * their keys overlap. */
static void compact(wl_thread_t *t, lsm_t *L, unsigned level)
{
    bool in[MAN_CAP] = {false};
    uint64_t lo = UINT64_MAX, hi = 0, total = 0;
    unsigned pick = L->rr[level]++ % level_count(L, level), seen = 0;
    for (unsigned i = 0; i < L->mn; i++)
        if (m_level(L->mh[i].w1) == level && (level == 0 || seen++ == pick)) {
            in[i] = true;
            lo = L->mh[i].lo < lo ? L->mh[i].lo : lo;
            hi = L->mh[i].hi > hi ? L->mh[i].hi : hi;
        }
    for (unsigned i = 0; i < L->mn; i++)
        if (m_level(L->mh[i].w1) == level + 1 && L->mh[i].lo <= hi && L->mh[i].hi >= lo)
            in[i] = true;
    for (unsigned i = 0; i < L->mn; i++)
        total += in[i] ? m_count(L->mh[i].w1) : 0;
    cand_t *c = malloc((total ? total : 1) * sizeof *c);
    if (!c)
        abort();
    uint64_t nc = 0;
    for (unsigned i = 0; i < L->mn; i++) /* age: L0 by position (newest first), a level below by its number */
        if (in[i])
            nc += read_table(t, L, &L->mh[i], level == 0 && m_level(L->mh[i].w1) == 0 ? i : 1000 + m_level(L->mh[i].w1),
                             c + nc);
    merge_out(t, L, c, nc, level + 1, in);
    (*L->stat[L_COMPACTIONS])++;
    free(c);
}

/* Clears every thread's request for the same work (req), once the work is under way. */
static void take_requests(wl_thread_t *t, const lsm_t *L, uint64_t req)
{
    for (unsigned u = 0; u < L->ix.nthreads; u++)
        if (wl_ld(t, act_at(L, u) + A_REQ) == req)
            wl_st(t, act_at(L, u) + A_REQ, 0);
}

/* SC-LSM: half h, no longer the active one, drained (each bucket's lock taken once, so that a put
 * that locked it before the switch has finished), written out as L0 tables, published, then
 * emptied. */
static void drain(wl_thread_t *t, lsm_t *L, unsigned h)
{
    cand_t *c = malloc(B_SLOTS * L->nbuckets * sizeof *c);
    if (!c)
        abort();
    uint64_t nc = 0;
    for (uint64_t i = 0; i < L->nbuckets; i++) {
        const uint64_t b = L->mt + B_BYTES * (h * L->nbuckets + i);
        uint64_t a[2 * B_SLOTS], v[2 * B_SLOTS];
        lock_word(t, L, b, false);
        for (unsigned j = 0; j < B_SLOTS; j++) {
            a[j] = b + B_KEY(j);
            a[B_SLOTS + j] = b + B_VAL(j);
        }
        wl_ld_batch(t, a, v, 2 * B_SLOTS);
        wl_st(t, b, 0);
        for (unsigned j = 0; j < B_SLOTS; j++)
            if (v[j])
                c[nc++] = (cand_t){v[j], v[B_SLOTS + j], 0};
    }
    const unsigned before = L->mn;
    if (nc)
        merge_out(t, L, c, nc, 0, NULL);
    if (L->mn != before || !nc) { /* published (or nothing to write): empty the half */
        for (uint64_t i = 0; i < L->nbuckets; i++)
            for (unsigned j = 0; j < B_SLOTS; j++)
                wl_st(t, L->mt + B_BYTES * (h * L->nbuckets + i) + B_KEY(j), 0);
        *L->stat[L_FLUSHES] += nc != 0;
    }
    free(c);
}

/* SC-LSM: the active half becomes the other one; the full one is drained. */
static void flush_memtable(wl_thread_t *t, lsm_t *L)
{
    const unsigned h = (unsigned)wl_ld(t, L->ctl + C_ACTIVE);
    wl_st(t, L->ctl + C_ACTIVE, 1 - h);
    wl_fence(t);
    take_requests(t, L, 1);
    drain(t, L, h);
}

/* Prism: a BUL range's nodes locked, their keys written out as an L0 table, published, the nodes
 * emptied and unlocked. */
static void flush_range(wl_thread_t *t, lsm_t *L, uint64_t r)
{
    uint64_t v[RANGE_NODES], nc = 0;
    cand_t *c = malloc(RANGE_NODES * N_KEYS * sizeof *c);
    if (!c)
        abort();
    for (unsigned i = 0; i < RANGE_NODES; i++) {
        const uint64_t n = r * RANGE_NODES + i, a = node_at(L, n);
        v[i] = idx_wlock(t, &L->ix, n, a, N_LINES);
        uint64_t cnt = wl_ld(t, a), ad[2 * N_KEYS], kv[2 * N_KEYS];
        for (unsigned j = 0; j < cnt; j++) {
            ad[j] = a + N_KEY(j);
            ad[cnt + j] = a + N_VAL(j);
        }
        wl_ld_batch(t, ad, kv, (unsigned)(2 * cnt));
        for (unsigned j = 0; j < cnt; j++)
            c[nc++] = (cand_t){kv[j], kv[cnt + j], 0};
    }
    take_requests(t, L, r + 1); /* the range is held: its writers wait on the nodes' locks now */
    const unsigned before = L->mn;
    if (nc)
        merge_out(t, L, c, nc, 0, NULL);
    const bool out = !nc || L->mn != before;
    for (unsigned i = 0; i < RANGE_NODES; i++) {
        const uint64_t n = r * RANGE_NODES + i, a = node_at(L, n);
        if (out) {
            wl_st(t, a, 0);
            idx_wunlock(t, &L->ix, n, v[i], &a, 1);
        } else {
            idx_wabort(t, &L->ix, n, v[i]);
        }
    }
    if (out && nc)
        (*L->stat[L_FLUSHES])++;
    free(c);
}

/* Thread t becomes the compactor (the one before it lost with a failed CN, or a client that acted
 * as it done): its bookkeeping is rebuilt from what the SCR holds. The manifest's current slot is
 * whole (a change is published by one store of the sequence), so a change the last compactor did
 * not publish is undone: its outputs are in extents the manifest does not list. Every extent the
 * manifest does not list is retired at the current sequence (freed once no live thread reads under
 * an older one); table ids go on from the slot's next id; SC-LSM drains the inactive half again
 * (a flush may have been lost before it was published, or before the half was emptied: its keys
 * then are in L0 twice, with the same values). */
static void adopt(wl_thread_t *t, lsm_t *L)
{
    const uint64_t seq = wl_ld(t, L->man), sl = slot_at(L, seq);
    uint64_t n = wl_ld(t, sl), a[4], v[4];
    L->next_id = wl_ld(t, sl + 8);
    L->seq = seq;
    L->mn = 0;
    if (n > L->man_max)
        n = L->man_max; /* (cannot be: the slot was written whole before the sequence named it) */
    bool *live = calloc(L->nexts, sizeof *live);
    if (!live)
        abort();
    for (unsigned i = 0; i < n; i++) {
        for (unsigned f = 0; f < 4; f++)
            a[f] = sl + M_HDR + M_ENTRY * i + 8 * f;
        wl_ld_batch(t, a, v, 4);
        L->mh[L->mn++] = (ment_t){v[0], v[1], v[2], v[3]};
        if (m_ext(v[1]) < L->nexts)
            live[m_ext(v[1])] = true;
    }
    L->nfree = L->nret = 0;
    for (uint64_t x = 0; x < L->nexts; x++)
        if (!live[x]) {
            L->retired[L->nret][0] = x;
            L->retired[L->nret++][1] = seq;
        }
    free(live);
    L->redrain = !L->prism;
    wl_st(t, L->ctl + C_OWNER, (uint64_t)t->tid + 1);
    wl_fence(t);
    (*L->stat[L_ADOPTIONS])++;
}

/* One piece of background work: true when it did some. Order: free what can be freed; merge L0
 * when it is two tables past its trigger (puts wait meanwhile: the LSM's write stall); the flushes
 * asked for; then L0 at its trigger and each level over its capacity. */
static bool lsm_step(wl_thread_t *t, lsm_t *L)
{
    if (t->tid && wl_ld(t, L->ctl + C_OWNER) != (uint64_t)t->tid + 1)
        adopt(t, L);
    reclaim(t, L);
    if (L->overflow[0])
        return false;
    const unsigned l0 = level_count(L, 0);
    if (l0 >= L->l0_trigger + 2) {
        compact(t, L, 0);
        return true;
    }
    if (L->redrain) { /* before any switch of halves: the inactive one's keys are older than the active one's */
        L->redrain = false;
        drain(t, L, 1 - (unsigned)wl_ld(t, L->ctl + C_ACTIVE));
        return true;
    }
    uint64_t a[64], v[64];
    for (unsigned u0 = 0; u0 < L->ix.nthreads; u0 += 64) {
        const unsigned m = L->ix.nthreads - u0 < 64 ? L->ix.nthreads - u0 : 64;
        for (unsigned j = 0; j < m; j++)
            a[j] = act_at(L, u0 + j) + A_REQ;
        wl_ld_batch(t, a, v, m);
        for (unsigned j = 0; j < m; j++)
            if (v[j]) {
                if (L->prism)
                    flush_range(t, L, v[j] - 1);
                else
                    flush_memtable(t, L);
                return true;
            }
    }
    if (l0 >= L->l0_trigger) {
        compact(t, L, 0);
        return true;
    }
    for (unsigned lv = 1; lv < L->bottom; lv++)
        if (level_count(L, lv) > level_cap(L, lv)) {
            compact(t, L, lv);
            return true;
        }
    return false;
}

/* Thread t is the compactor: the background thread 0 while it lives; else (or with no background
 * thread) the least client that lives and has not done its operations. */
static bool acting(wl_thread_t *t, const lsm_t *L)
{
    if (L->ix.first_client && wl_alive(t, 0))
        return t->tid == 0;
    const uint64_t done = wl_ld(t, L->ctl + C_DONE);
    for (unsigned u = L->ix.first_client; u < L->ix.nthreads; u++)
        if (wl_alive(t, u) && !(done >> u & 1))
            return u == t->tid;
    return false;
}

static void background_or_wait(wl_thread_t *t, lsm_t *L)
{
    if (acting(t, L)) /* a client that acts as the compactor does its work */
        lsm_step(t, L);
    else
        wl_compute(t, SPIN_INSTRS);
}

static void client_between(wl_thread_t *t, void *w)
{
    if (acting(t, w))
        while (lsm_step(t, w))
            ;
}

/* ---- the check's view, the threads ---- */

static uint64_t pk(wl_env_t *e, uint64_t a) { return e->ops->peek(e, 0, a); }

static uint64_t lsm_final(wl_env_t *e, void *w, uint64_t key)
{
    const lsm_t *L = w;
    const unsigned h = L->prism ? 0 : (unsigned)pk(e, L->ctl + C_ACTIVE);
    for (unsigned half = 0; half < (L->prism ? 1u : 2u); half++) { /* the memtable: the active half first */
        const uint64_t b = bucket_of(L, half ? 1 - h : h, key);
        for (unsigned i = 0; i < B_SLOTS; i++)
            if (pk(e, b + B_KEY(i)) == key)
                return pk(e, b + B_VAL(i));
    }
    if (L->prism) {
        const uint64_t a = node_at(L, node_of(L, key)), cnt = pk(e, a);
        for (uint64_t i = 0; i < cnt && i < N_KEYS; i++)
            if (pk(e, a + N_KEY(i)) == key)
                return pk(e, a + N_VAL(i));
    }
    const uint64_t sl = slot_at(L, pk(e, L->man)), n = pk(e, sl);
    for (uint64_t i = 0; i < n && i < L->man_max; i++) {
        const uint64_t a = sl + M_HDR + M_ENTRY * i, w1 = pk(e, a + 8), x = m_ext(w1), cnt = m_count(w1);
        if (pk(e, a + 16) > key || pk(e, a + 24) < key)
            continue;
        uint64_t lo = 0, hi = cnt;
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo) / 2;
            if (pk(e, tkey_at(L, x, mid)) < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < cnt && pk(e, tkey_at(L, x, lo)) == key)
            return pk(e, tval_at(L, x, lo));
    }
    return NONE;
}

static const idx_ops_t ops = {
    .get = lsm_get, .put = lsm_put, .scan = lsm_scan, .between = client_between, .final = lsm_final};

/* Every client that lives has done its operations. */
static bool all_done(wl_thread_t *t, const lsm_t *L)
{
    const uint64_t done = wl_ld(t, L->ctl + C_DONE);
    for (unsigned u = L->ix.first_client; u < L->ix.nthreads; u++)
        if (wl_alive(t, u) && !(done >> u & 1))
            return false;
    return true;
}

void lsm_thread(wl_thread_t *t, void *state)
{
    lsm_t *L = state;
    if (t->tid < L->ix.first_client) { /* the compactor, until every client that lives is done */
        while (lsm_step(t, L) || !all_done(t, L))
            wl_compute(t, IDLE_INSTRS);
        return;
    }
    idx_run(t, &L->ix, L, &ops);
    wl_fadd(t, L->ctl + C_DONE, 1ull << t->tid);
}

int lsm_check(wl_env_t *e, void *state, char *err)
{
    lsm_t *L = state;
    if (L->overflow[0])
        return wl_errf(err, "%s", L->overflow);
    if (*L->stat[L_EARLY_FREES])
        return wl_errf(err, "%s: %llu extents freed while a thread could still read them; first: %s", L->ix.name,
                       (unsigned long long)*L->stat[L_EARLY_FREES], L->early_free);
    if (*L->stat[L_FREED_READS])
        return wl_errf(err, "%s: %llu SSTable reads in an extent its table had left (freed too early); first: %s",
                       L->ix.name, (unsigned long long)*L->stat[L_FREED_READS], L->freed_read);
    return idx_check(e, &L->ix, L, &ops, err);
}
