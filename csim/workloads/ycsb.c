/* ycsb: YCSB on a key-value store in CXL memory, as the paper runs it (section VI: a store backed by
 * a hashtable, 1.6 M records of 1 KB, 6.4 M operations, 80 % gets, uniform keys; workload.ycsb_ops
 * = 0, the default, makes four operations a record, the paper's ratio, so that ycsb_records alone
 * scales both; workload.ycsb_keys = zipfian draws the keys from YCSB's
 * scrambled Zipfian instead, theta workload.ycsb_zipf_theta).
 *
 * Shared data (CXL memory): an open-addressing hash table (linear probing) of C slots, C the
 * smallest power of two >= 4/3 x ycsb_records (load factor 0.5 .. 0.75); a slot is one record of
 * ycsb_record_size bytes:
 *   word 0 lock, 1 key + 1 (0: empty slot), 2 version, 3 writer (tid + 1; 0: setup), 4.. payload.
 * The lock sits in the record's first line, with the header, as a per-record latch does. Setup
 * inserts every key 0 .. ycsb_records-1 at zero time (version 0). Keys never move after setup, so
 * a lookup probes the key words without a lock.
 *
 * The operations are split evenly over the threads. Each one: client work (wl_compute),
 * a key (uniform or Zipfian) and get-or-put (ycsb_read_pct % gets), seeded per thread; the lookup; then under
 * the record's lock either
 *   get: read version, writer and every payload word, and check that each payload word is the one
 *        the put of (key, version, writer) wrote: a mismatch is a torn read (counted; must be 0);
 *   put: version + 1, writer, every payload word derived from (key, version, writer).
 * Payload word i of (key, version, writer) is a hash of the four. A thread logs each put
 * (key, version) in its CN's local memory and keeps its counts (gets, puts, torn reads, missing
 * keys) there.
 *
 * check(): no torn read, no missing key, gets + puts = the operations; the logs rebuilt into a map: each
 * key's put versions are exactly 1 .. v (puts of one key were serialized), and every record holds
 * its last put (version v, its writer, its payload) -- or its setup value when never put.
 *
 * After a CN failure (docs/architecture.md 11g) the lost threads' logs and counters are gone with
 * their CN's memory, and a lost thread may hold a record's lock, its put cut short. A thread that
 * takes such a lock over (wl_lock) first makes the record whole as the put of the version and
 * writer it holds. The check then covers the live threads: their operations all done, no torn read,
 * no missing key, their puts' versions increasing per key, and every acknowledged (logged) put still
 * readable: the record holds it, or a later put, whole unless a lost thread still holds its lock. */
#include <stdlib.h>

#include "base/config.h"
#include "base/rng.h"
#include "workloads/workloads.h"

#define W_LOCK 0u
#define W_KEY 8u
#define W_VER 16u
#define W_WRITER 24u
#define W_PAYLOAD 32u
#define HDR_WORDS 4u
#define GET_BATCH 256u /* a get's loads per wl_ld_batch */
#define CLIENT_INSTRS 200u /* per operation: the YCSB client's choice, key formatting and hashing */
#define PROBE_INSTRS 6u    /* per probed slot: compare and advance */

/* A thread's counters in local memory (words after its log). */
enum { C_GETS, C_PUTS, C_TORN, C_MISSING, C_WORDS };
static const char *const c_names[C_WORDS] = {"ycsb.gets", "ycsb.puts", "ycsb.torn_reads", "ycsb.missing_keys"};
static const char *const c_docs[C_WORDS] = {"ycsb: gets done", "ycsb: puts done",
                                            "ycsb: gets that read a torn record (must be 0)",
                                            "ycsb: operations whose key the table did not hold (must be 0)"};

typedef struct ycsb {
    uint64_t nrec, rec_bytes, pay_words, mask, ops, read_pct;
    bool zipf;     /* keys from the scrambled Zipfian below, else uniform */
    rng_zipf_t keys;
    unsigned nthreads;
    uint64_t table;      /* remote */
    uint64_t *log, *cnt; /* per thread (local): its put log (key, version), its counters */
    uint64_t *slot_of;   /* host: each key's slot (setup placed them) */
    uint64_t *stat[C_WORDS]; /* the run's statistics (workload.ycsb.*): the counts of every thread */
    uint64_t *probes;        /* workload.ycsb.probes: slots looked at beyond each key's home */
} ycsb_t;

static void ycsb_free(void *state)
{
    ycsb_t *k = state;
    if (!k)
        return;
    free(k->log);
    free(k->cnt);
    free(k->slot_of);
    free(k);
}

static uint64_t rec(const ycsb_t *k, uint64_t slot) { return k->table + slot * k->rec_bytes; }
static uint64_t home(const ycsb_t *k, uint64_t key) { return wl_mix64(key ^ 0x6b7673ull /* "kvs" */) & k->mask; }
static uint64_t payload(uint64_t key, uint64_t ver, uint64_t writer, uint64_t i)
{
    return wl_mix64(wl_mix64(wl_mix64(key) ^ ver) ^ (writer << 40 | i));
}
static uint64_t thread_ops(const ycsb_t *k, unsigned tid)
{
    return k->ops / k->nthreads + (tid < k->ops % k->nthreads);
}

static int ycsb_setup(wl_env_t *e, void **state, char *err)
{
    const sim_config_t *c = e->cfg;
    *state = NULL;
    ycsb_t *k = calloc(1, sizeof *k);
    uint8_t *used = NULL;
    int rc = 0;
    if (!k) {
        rc = wl_errf(err, "ycsb: out of host memory");
        goto out;
    }
    k->nrec = c->workload.ycsb_records;
    k->rec_bytes = c->workload.ycsb_record_bytes;
    k->ops = c->workload.ycsb_ops ? c->workload.ycsb_ops : 4 * k->nrec;
    k->read_pct = c->workload.ycsb_read_pct;
    k->zipf = c->workload.ycsb_keys == CFG_KEYS_ZIPFIAN;
    if (k->zipf && rng_zipf_init(&k->keys, k->nrec, c->workload.ycsb_zipf_theta, true)) {
        rc = wl_errf(err, "ycsb: no Zipfian over %llu keys with theta %g", (unsigned long long)k->nrec,
                     c->workload.ycsb_zipf_theta);
        goto out;
    }
    k->nthreads = e->nthreads;
    if (k->rec_bytes < 8 * (HDR_WORDS + 1) || k->rec_bytes % 8) {
        rc = wl_errf(err, "ycsb: a record of %llu bytes cannot hold the 32-byte header and a payload word",
                     (unsigned long long)k->rec_bytes);
        goto out;
    }
    k->pay_words = k->rec_bytes / 8 - HDR_WORDS;
    uint64_t cap = 1;
    while (cap * 3 < k->nrec * 4)
        cap *= 2;
    k->mask = cap - 1;
    if (!(k->log = calloc(e->nthreads, sizeof *k->log)) || !(k->cnt = calloc(e->nthreads, sizeof *k->cnt)) ||
        !(k->slot_of = malloc(k->nrec * sizeof *k->slot_of)) || !(used = calloc(cap, 1))) {
        rc = wl_errf(err, "ycsb: out of host memory for %llu records", (unsigned long long)k->nrec);
        goto out;
    }
    k->table = cap <= UINT64_MAX / k->rec_bytes ? e->ops->alloc_cxl(e, cap * k->rec_bytes) : WL_ALLOC_FAIL;
    if (k->table == WL_ALLOC_FAIL) {
        rc = wl_errf(err, "ycsb: a table of %llu slots of %llu bytes (%llu records) does not fit the CXL memory",
                     (unsigned long long)cap, (unsigned long long)k->rec_bytes, (unsigned long long)k->nrec);
        goto out;
    }
    for (unsigned i = 0; i < C_WORDS; i++)
        if (!(k->stat[i] = e->ops->counter(e, c_names[i], c_docs[i], err))) {
            rc = -1;
            goto out;
        }
    if (!(k->probes = e->ops->counter(e, "ycsb.probes", "ycsb: slots probed beyond a key's home slot", err))) {
        rc = -1;
        goto out;
    }
    for (unsigned t = 0; t < e->nthreads; t++) {
        uint64_t bytes = thread_ops(k, t) * 16;
        k->log[t] = e->ops->alloc_local(e, e->thread_cn[t], bytes ? bytes : 8);
        k->cnt[t] = e->ops->alloc_local(e, e->thread_cn[t], 8 * C_WORDS);
        if (k->log[t] == WL_ALLOC_FAIL || k->cnt[t] == WL_ALLOC_FAIL) {
            rc = wl_errf(err, "ycsb: thread %u's put log (%llu bytes) does not fit CN %u's local memory", t,
                         (unsigned long long)bytes, e->thread_cn[t]);
            goto out;
        }
    }
    for (uint64_t key = 0; key < k->nrec; key++) {
        uint64_t s = home(k, key);
        while (used[s])
            s = (s + 1) & k->mask;
        used[s] = 1;
        k->slot_of[key] = s;
        uint64_t r = rec(k, s);
        e->ops->poke(e, 0, r + W_KEY, key + 1);
        for (uint64_t i = 0; i < k->pay_words; i++)
            e->ops->poke(e, 0, r + W_PAYLOAD + 8 * i, payload(key, 0, 0, i));
    }
out:
    free(used);
    if (rc)
        ycsb_free(k);
    else
        *state = k;
    return rc;
}

static void ycsb_thread(wl_thread_t *t, void *state)
{
    const ycsb_t *k = state;
    rng_t r;
    rng_init_named(&r, t->seed, "ycsb");
    const uint64_t n = thread_ops(k, t->tid), log = k->log[t->tid], me = t->tid + 1;
    uint64_t c[C_WORDS] = {0};
    for (uint64_t op = 0; op < n; op++) {
        wl_compute(t, CLIENT_INSTRS);
        uint64_t key = k->zipf ? rng_zipf_next(&k->keys, &r) : rng_below(&r, k->nrec);
        bool get = rng_below(&r, 100) < k->read_pct;
        uint64_t s = home(k, key), probes = 0, kw;
        while ((kw = wl_ld(t, rec(k, s) + W_KEY)) != key + 1 && kw != 0 && probes++ <= k->mask) {
            wl_compute(t, PROBE_INSTRS);
            s = (s + 1) & k->mask;
        }
        *k->probes += probes;
        if (kw != key + 1) {
            c[C_MISSING]++;
            (*k->stat[C_MISSING])++;
            continue;
        }
        const uint64_t rr = rec(k, s);
        if (wl_lock(t, rr + W_LOCK)) {
            /* Taken over from a thread lost with its CN, maybe in the middle of a put: the record is
             * made whole again as the put of the version and writer it holds (an unacknowledged put
             * may take effect or not, but never half). */
            uint64_t v = wl_ld(t, rr + W_VER), w = wl_ld(t, rr + W_WRITER);
            for (uint64_t i = 0; i < k->pay_words; i++)
                wl_st(t, rr + W_PAYLOAD + 8 * i, payload(key, v, w, i));
        }
        if (get) {
            /* version, writer and payload: independent loads of consecutive words, in batches (an
             * out-of-order core has the whole record's misses in flight) */
            uint64_t ver = 0, writer = 0, a[GET_BATCH], v[GET_BATCH];
            bool torn = false;
            for (uint64_t w0 = 0; w0 < 2 + k->pay_words; w0 += GET_BATCH) {
                unsigned nb = (unsigned)(2 + k->pay_words - w0 < GET_BATCH ? 2 + k->pay_words - w0 : GET_BATCH);
                for (unsigned j = 0; j < nb; j++)
                    a[j] = rr + W_VER + 8 * (w0 + j);
                wl_ld_batch(t, a, v, nb);
                for (unsigned j = 0; j < nb; j++) {
                    uint64_t w = w0 + j;
                    if (w == 0)
                        ver = v[j];
                    else if (w == 1)
                        writer = v[j];
                    else
                        torn |= v[j] != payload(key, ver, writer, w - 2);
                }
            }
            wl_unlock(t, rr + W_LOCK);
            wl_compute(t, k->pay_words); /* the comparisons, one per word */
            c[C_GETS]++;
            c[C_TORN] += torn;
            (*k->stat[C_GETS])++;
            *k->stat[C_TORN] += torn;
        } else {
            uint64_t ver = wl_ld(t, rr + W_VER) + 1;
            wl_st(t, rr + W_VER, ver);
            wl_st(t, rr + W_WRITER, me);
            for (uint64_t i = 0; i < k->pay_words; i++)
                wl_st(t, rr + W_PAYLOAD + 8 * i, payload(key, ver, me, i));
            wl_unlock(t, rr + W_LOCK);
            wl_st(t, log + 16 * c[C_PUTS], key);
            wl_st(t, log + 16 * c[C_PUTS] + 8, ver);
            c[C_PUTS]++;
            (*k->stat[C_PUTS])++;
        }
    }
    for (unsigned i = 0; i < C_WORDS; i++)
        wl_st(t, k->cnt[t->tid] + 8 * i, c[i]);
}

typedef struct put {
    uint64_t key, ver, writer;
} put_t;

static int put_cmp(const void *a, const void *b)
{
    const put_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->ver < y->ver ? -1 : x->ver > y->ver;
}

static int ycsb_check(wl_env_t *e, void *state, char *err)
{
    const ycsb_t *k = state;
    const unsigned lost = wl_env_lost(e);
    uint64_t tot[C_WORDS] = {0}, want_ops = 0;
    for (unsigned t = 0; t < k->nthreads; t++) {
        if (!wl_env_alive(e, t))
            continue; /* its counters and log were in its failed CN's memory */
        for (unsigned i = 0; i < C_WORDS; i++)
            tot[i] += e->ops->peek(e, e->thread_cn[t], k->cnt[t] + 8 * i);
        want_ops += thread_ops(k, t);
    }
    if (tot[C_TORN])
        return wl_errf(err, "ycsb: %llu torn reads (a get saw a record half written by a put)",
                       (unsigned long long)tot[C_TORN]);
    if (tot[C_MISSING])
        return wl_errf(err, "ycsb: %llu lookups did not find their key", (unsigned long long)tot[C_MISSING]);
    if (tot[C_GETS] + tot[C_PUTS] != want_ops)
        return wl_errf(err, "ycsb: %llu gets + %llu puts, want %llu operations", (unsigned long long)tot[C_GETS],
                       (unsigned long long)tot[C_PUTS], (unsigned long long)want_ops);
    /* The reference map: every logged put, sorted by key then version. */
    put_t *p = malloc((tot[C_PUTS] ? tot[C_PUTS] : 1) * sizeof *p);
    uint64_t *last = calloc(k->nrec, sizeof *last); /* index + 1 into p of each key's last put */
    int rc = 0;
    if (!p || !last) {
        rc = wl_errf(err, "ycsb: check: out of host memory");
        goto out;
    }
    uint64_t np = 0;
    for (unsigned t = 0; t < k->nthreads; t++) {
        unsigned cn = e->thread_cn[t];
        if (!wl_env_alive(e, t))
            continue;
        uint64_t n = e->ops->peek(e, cn, k->cnt[t] + 8 * C_PUTS);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t key = e->ops->peek(e, cn, k->log[t] + 16 * i);
            if (key >= k->nrec) {
                rc = wl_errf(err, "ycsb: thread %u's put %llu names key %llu (%llu records)", t,
                             (unsigned long long)i, (unsigned long long)key, (unsigned long long)k->nrec);
                goto out;
            }
            p[np++] = (put_t){key, e->ops->peek(e, cn, k->log[t] + 16 * i + 8), t + 1};
        }
    }
    qsort(p, np, sizeof *p, put_cmp);
    for (uint64_t i = 0; i < np; i++) {
        uint64_t want = i > 0 && p[i - 1].key == p[i].key ? p[i - 1].ver + 1 : 1;
        /* With threads lost, their puts are missing from the logs: versions only increase. */
        if (lost ? p[i].ver < want : p[i].ver != want) {
            rc = wl_errf(err, "ycsb: key %llu: a put by thread %llu logged version %llu where %llu was due (the "
                         "versions of a key's puts must run 1, 2, 3, ...: its puts were not serialized)",
                         (unsigned long long)p[i].key, (unsigned long long)(p[i].writer - 1),
                         (unsigned long long)p[i].ver, (unsigned long long)want);
            goto out;
        }
        last[p[i].key] = i + 1;
    }
    for (uint64_t key = 0; key < k->nrec; key++) {
        uint64_t r = rec(k, k->slot_of[key]);
        uint64_t ver = last[key] ? p[last[key] - 1].ver : 0, writer = last[key] ? p[last[key] - 1].writer : 0;
        uint64_t got_key = e->ops->peek(e, 0, r + W_KEY), got_ver = e->ops->peek(e, 0, r + W_VER);
        uint64_t got_wr = e->ops->peek(e, 0, r + W_WRITER), lock = e->ops->peek(e, 0, r + W_LOCK);
        /* Every acknowledged (logged) put stays readable: the record holds the key's last one, or,
         * with threads lost, a later put (a lost thread's, acknowledged or not, whole: taken over
         * and repaired by the next locker if it was cut short). */
        bool later = lost && got_key == key + 1 && got_ver > ver;
        if (later) {
            ver = got_ver;
            writer = got_wr;
        }
        /* A record whose lock a lost thread still holds may be half written by its put: no one
         * read it since (the next locker would take the lock over and repair it). */
        const bool dead_lock = lock && lock <= k->nthreads && !wl_env_alive(e, (unsigned)(lock - 1));
        if (dead_lock && got_key == key + 1 && got_ver >= ver)
            continue;
        if (got_key != key + 1 || got_ver != ver || got_wr != writer) {
            rc = wl_errf(err, "ycsb: key %llu's record holds key word %llu, version %llu by writer %llu; want %llu, "
                         "version %llu by writer %llu (its last put)", (unsigned long long)key,
                         (unsigned long long)got_key, (unsigned long long)got_ver, (unsigned long long)got_wr,
                         (unsigned long long)(key + 1), (unsigned long long)ver, (unsigned long long)writer);
            goto out;
        }
        if (lock && (lock > k->nthreads || wl_env_alive(e, (unsigned)(lock - 1)))) {
            rc = wl_errf(err, "ycsb: key %llu's lock is still held (0x%llx) after every thread ended",
                         (unsigned long long)key, (unsigned long long)lock);
            goto out;
        }
        for (uint64_t i = 0; i < k->pay_words; i++) {
            uint64_t got = e->ops->peek(e, 0, r + W_PAYLOAD + 8 * i), want = payload(key, ver, writer, i);
            if (got != want) {
                rc = wl_errf(err, "ycsb: key %llu's payload word %llu is 0x%llx, want 0x%llx (version %llu by writer "
                             "%llu)", (unsigned long long)key, (unsigned long long)i, (unsigned long long)got,
                             (unsigned long long)want, (unsigned long long)ver, (unsigned long long)writer);
                goto out;
            }
        }
    }
    /* Slots setup left empty stay empty: a put never lands outside its key's record (a put
     * writes the header, so looking at the header is enough). */
    for (uint64_t s = 0; s <= k->mask; s++) {
        uint64_t kw = e->ops->peek(e, 0, rec(k, s) + W_KEY);
        if (kw == 0)
            for (uint64_t i = 0; i < HDR_WORDS; i++)
                if (e->ops->peek(e, 0, rec(k, s) + 8 * i) != 0) {
                    rc = wl_errf(err, "ycsb: empty slot %llu's word %llu is not 0", (unsigned long long)s,
                                 (unsigned long long)i);
                    goto out;
                }
    }
out:
    free(p);
    free(last);
    return rc;
}

const workload_t wl_ycsb = {
    .name = "ycsb",
    .doc = "YCSB: a key-value store, a hash table of records on CXL memory, per-record locks, gets and puts",
    .setup = ycsb_setup,
    .thread = ycsb_thread,
    .check = ycsb_check,
    .free = ycsb_free,
};
