/* hcmeta: HCMeta, the baseline of data sharing on partly coherent CXL memory (the Megalon blog's
 * description: a shared index and one coherence record per shared object in the small coherent
 * region, SCR; the objects in the large non-coherent region, LNR, whose copies in a CN's caches go
 * stale without warning). Objects, operations and the check: share.h.
 *
 * SCR (coherent):
 *   index    C entries of a line each: word 0 key + 1 (0: empty), word 1 the object's LNR address,
 *            word 2 its coherence record (bit 0 lock, the rest a version that only grows). C is
 *            workload.share_scr_budget / 52 (the blog's SCR bytes per shared object; an entry is
 *            padded to its own line here), or, with a budget of 0, enough for every object. The
 *            entries are partitioned by owner, the CNs that run threads (key k's partition is owner
 *            k mod owners), into sets of 4 ways; k's set is (k / owners) mod sets, so that with room
 *            for every object no set overflows. A record word: bit 0 the lock, bits 1 .. 13 its
 *            holder (tid + 1) while locked, the version above.
 *   mailbox  per thread a request word (number, partition, key) and a reply word (the number
 *            answered); per partition a doorbell word that clients add to after writing a request.
 *   done     a bit per thread that has finished its operations.
 * Local (each CN): seen[key], the record (entry, version) this CN last validated key's cached lines
 * against; per partition it serves (its own; a lost owner's, below): a lock, the doorbell count it
 * has served, whether it has adopted the partition, and a FIFO hand per set.
 *
 * get: find the key in its set (4 independent loads). Absent: the object is not shared; ask the
 * owner (below) and look again. Present: read the record (spin while locked); if it is not the one
 * this CN validated, flush the object's lines; read the object; read the record and the key word
 * again: either moved, retry; else remember the record and return the object.
 * A write (put, insert, delete: share.h): find, lock the record by compare-and-swap, check that
 * the entry still holds the key (else unlock and look again), flush stale lines as a get does,
 * read the object's version, write the object (a tombstone for a delete) and write it back
 * (clflushopt each line, fence), then store the record's next version unlocked, and fence so the
 * write ends visible.
 * Sharing an unshared object (churn): a client on another CN writes its request, rings the owner's
 * doorbell and waits, serving its own CN's requests meanwhile; a thread of the owner CN sees the
 * doorbell between operations (or while it waits), takes the owner lock, and for each request
 * installs the key, spends workload.hcmeta_rpc of software time (the blog's 55 us, from Tigon's
 * artifact) and answers. Installing takes an empty way or the set's FIFO victim, whose record it
 * locks first, so a reader in the middle of reading the victim fails its re-check. A client on the
 * owner CN installs the key itself, with the same software time. Threads that have finished keep
 * serving until every live thread has (below).
 * A CN failure (DIKTAMO's recovery, then the survivors go on; not in the blog). How a survivor
 * knows what was lost: the runtime's membership (wl_alive), which the recovery updates before the
 * survivors resume. What the lost threads leave behind: (1) record locks: a survivor that finds a
 * record locked by a thread no longer in the membership takes the lock over by CAS, makes the entry
 * whole (its address the key's, should an install have been cut between its two stores) and the
 * object of the key it holds (share_repair: the state memory has, every payload word written again,
 * written back; version, writer and deletion are one word, so a lost write took effect or did not),
 * and unlocks it with its version moved on (hcmeta.takeovers); (2) the owner role: a partition whose
 * owner CN runs no live thread is served by the next live owner after it (partition p, p + 1, ...:
 * the same answer on every survivor, and a live server never loses a partition to a later failure).
 * The first of its threads to serve the partition adopts it (hcmeta.owner_takeovers): under its own
 * lock for the partition (the lost owner's lock and hands went with its memory; nothing held them
 * since), it takes over the records of the partition's entries that lost threads hold (an install
 * left half done) and starts the partition's FIFO hands afresh (a victim policy: the entries, which
 * are the partition, are in the SCR and survived). Its served count starts at 0, so its first look
 * answers every request of a live client not answered yet: one the lost owner never saw, or
 * installed and never answered (installing is idempotent); a client on the new server's CN is
 * answered by its own CN, or installs itself once it asks after the failure. Requests of lost
 * clients are dropped. (3) The run's end: every live thread done (a bit each). The check covers the
 * live threads' logs (share.h) and tolerates a record a lost thread holds that nobody needed since
 * (its key's object not judged), with the statistics a lost thread kept. */
#include <stdlib.h>

#include "workloads/share.h"

#define WAYS 4u
#define ENTRY_SCR_BYTES 52u /* the blog's: a 40-byte key, 8 of location, 4 of record */
#define SPIN_INSTRS 100u    /* a spin-wait iteration's pause */
#define E_KEY 0u
#define E_ADDR 8u
#define E_REC 16u
#define LINE 64u
#define REQ_KEY_BITS 26u /* a request word: number << 32 | partition << 26 | key (share_objects <= 2^26) */
#define REQ_KEY_MASK ((1ull << REQ_KEY_BITS) - 1)
/* A record word: bit 0 the lock, bits 1 .. 13 its holder (tid + 1) while locked, the version above. */
#define R_LOCK 1ull
#define R_VER_SHIFT 14u
static uint64_t r_ver(uint64_t r) { return r >> R_VER_SHIFT; }
static unsigned r_holder(uint64_t r) { return (unsigned)(r >> 1 & 0x1fff); }
static uint64_t r_locked_by(uint64_t r, unsigned tid)
{
    return (r & ~((1ull << R_VER_SHIFT) - 1)) | ((uint64_t)tid + 1) << 1 | R_LOCK;
}
static uint64_t r_next(uint64_t r) { return (r_ver(r) + 1) << R_VER_SHIFT; } /* unlocked, one version on */
/* A CN's local state per partition: these words, a FIFO hand per set, then whether the CN adopted
 * the partition (a lost owner's). Its own partition's comes first (the layout before failures were
 * survived: the same timing), then the others in order after it. */
#define P_LOCK 0u
#define P_SERVED 1u
#define P_HANDS 2u
#define P_ADOPTED UINT64_MAX /* (part's word: the adopted flag, after the hands) */
#define P_WORDS(sets) (P_HANDS + (sets) + 1)

enum { H_RPCS, H_RPC_PS, H_INSTALLS, H_EVICTIONS, H_TAKEOVERS, H_OWNER_TAKEOVERS, H_NCOUNT };
static const char *const h_names[H_NCOUNT] = {"hcmeta.rpcs",     "hcmeta.rpc_ps",    "hcmeta.installs",
                                              "hcmeta.evictions", "hcmeta.takeovers", "hcmeta.owner_takeovers"};
static const char *const h_docs[H_NCOUNT] = {
    "hcmeta: requests to share an object sent to its owner on another CN",
    "hcmeta: the requests' round trips, summed (ps)",
    "hcmeta: objects made shared (by their owner, for another CN's request or its own)",
    "hcmeta: shared objects unshared to make room (their entry given to another)",
    "hcmeta: record locks of threads lost with a failed CN taken over (their entry and object made whole)",
    "hcmeta: index partitions of an owner CN lost with a failure adopted by the next live owner"};

typedef struct hcmeta {
    share_t s;
    uint64_t nent, sets;  /* entries; sets per owner */
    uint64_t index, req, rep, bell, done;
    uint64_t *own;        /* per CN (local): per partition P_WORDS(sets) words (P_LOCK ...) */
    uint64_t *seq;        /* host: each thread's last request number (only that thread touches it) */
    uint64_t rpc_instrs;  /* the owner's software time per request, as core instructions */
    uint64_t *stat[H_NCOUNT];
} hcmeta_t;

static void hc_free(void *state)
{
    hcmeta_t *h = state;
    if (!h)
        return;
    share_free(&h->s);
    free(h->own);
    free(h->seq);
    free(h);
}

static uint64_t ent(const hcmeta_t *h, uint64_t e) { return h->index + LINE * e; }
static unsigned owner(const hcmeta_t *h, uint64_t key) { return (unsigned)(key % h->s.nown); }
/* The first entry of key's set. */
static uint64_t set_base(const hcmeta_t *h, uint64_t key)
{
    uint64_t set = key / h->s.nown % h->sets;
    return (owner(h, key) * h->sets + set) * WAYS;
}
/* A record as seen[] keeps it: the entry and the version, never 0. */
static uint64_t seen_val(uint64_t e, uint64_t rec) { return (e + 1) << 32 | (r_ver(rec) & 0xffffffffu); }
/* Word w of CN cn's local state for partition p. */
static uint64_t part(const hcmeta_t *h, unsigned cn, unsigned p, uint64_t w)
{
    const unsigned slot = (p + h->s.nown - h->s.own_of[cn]) % h->s.nown;
    return h->own[cn] + 8 * (P_WORDS(h->sets) * slot + (w == P_ADOPTED ? P_HANDS + h->sets : w));
}

static int hc_setup(wl_env_t *e, void **state, char *err)
{
    const sim_config_t *c = e->cfg;
    *state = NULL;
    hcmeta_t *h = calloc(1, sizeof *h);
    if (!h)
        return wl_errf(err, "hcmeta: out of host memory");
    if (share_setup(e, &h->s, "hcmeta", err)) {
        free(h);
        return -1;
    }
    int rc = 0;
    const unsigned ncn = h->s.nown;
    /* Every object's set in its owner's partition has a way when sets >= sets_all. */
    uint64_t per_owner = (h->s.nobj + ncn - 1) / ncn, sets_all = (per_owner + WAYS - 1) / WAYS;
    uint64_t budget = c->workload.share_scr_budget, cap = budget / ENTRY_SCR_BYTES;
    h->sets = budget ? cap / ((uint64_t)ncn * WAYS) : sets_all;
    if (h->sets > sets_all)
        h->sets = sets_all;
    if (!h->sets) {
        rc = wl_errf(err, "hcmeta: a budget of %llu bytes of SCR buys %llu entries, fewer than a set of %u for each "
                     "CN that runs threads (%u)", (unsigned long long)budget, (unsigned long long)cap, WAYS, ncn * WAYS);
        goto out;
    }
    h->nent = h->sets * ncn * WAYS;
    h->rpc_instrs = (uint64_t)((double)c->workload.hcmeta_rpc_ps * (double)c->core.freq_hz / 1e12 + 0.5);
    if ((h->index = e->ops->alloc_cxl(e, h->nent * LINE)) == WL_ALLOC_FAIL ||
        (h->req = e->ops->alloc_cxl(e, (uint64_t)e->nthreads * LINE)) == WL_ALLOC_FAIL ||
        (h->rep = e->ops->alloc_cxl(e, (uint64_t)e->nthreads * LINE)) == WL_ALLOC_FAIL ||
        (h->bell = e->ops->alloc_cxl(e, (uint64_t)ncn * LINE)) == WL_ALLOC_FAIL ||
        (h->done = e->ops->alloc_cxl(e, 8 * ((e->nthreads + 63) / 64))) == WL_ALLOC_FAIL) {
        rc = wl_errf(err, "hcmeta: an index of %llu entries (%llu bytes) and %u mailboxes do not fit the coherent "
                     "region (mem.scr_size)", (unsigned long long)h->nent, (unsigned long long)(h->nent * LINE),
                     e->nthreads);
        goto out;
    }
    if (!(h->own = calloc(e->num_cn, sizeof *h->own)) || !(h->seq = calloc(e->nthreads, sizeof *h->seq))) {
        rc = wl_errf(err, "hcmeta: out of host memory");
        goto out;
    }
    for (unsigned i = 0; i < ncn; i++)
        if ((h->own[h->s.own_cn[i]] = e->ops->alloc_local(e, h->s.own_cn[i], 8 * P_WORDS(h->sets) * ncn)) ==
            WL_ALLOC_FAIL) {
            rc = wl_errf(err, "hcmeta: CN %u's owner state does not fit its local memory", h->s.own_cn[i]);
            goto out;
        }
    for (unsigned i = 0; i < H_NCOUNT; i++)
        if (!(h->stat[i] = e->ops->counter(e, h_names[i], h_docs[i], err))) {
            rc = -1;
            goto out;
        }
    /* Steady state: each set holds the first keys that map to it. */
    for (uint64_t key = 0; key < h->s.nobj; key++) {
        uint64_t way = key / ncn / h->sets;
        if (way >= WAYS)
            continue;
        uint64_t a = ent(h, set_base(h, key) + way);
        e->ops->poke(e, 0, a + E_KEY, key + 1);
        e->ops->poke(e, 0, a + E_ADDR, share_obj(&h->s, key));
    }
out:
    if (rc)
        hc_free(h);
    else
        *state = h;
    return rc;
}

/* Loads the key words of key's set into v (4 independent loads); returns the set's first entry. */
static uint64_t load_set(wl_thread_t *t, const hcmeta_t *h, uint64_t key, uint64_t v[WAYS])
{
    uint64_t base = set_base(h, key), a[WAYS];
    for (unsigned w = 0; w < WAYS; w++)
        a[w] = ent(h, base + w) + E_KEY;
    wl_ld_batch(t, a, v, WAYS);
    return base;
}

/* key's entry, or UINT64_MAX when it is not shared. */
static uint64_t find(wl_thread_t *t, const hcmeta_t *h, uint64_t key)
{
    uint64_t v[WAYS], base = load_set(t, h, key, v);
    for (unsigned w = 0; w < WAYS; w++)
        if (v[w] == key + 1)
            return base + w;
    return UINT64_MAX;
}

/* Owner p's CN runs a live thread. */
static bool owner_lives(wl_thread_t *t, const hcmeta_t *h, unsigned p)
{
    for (unsigned u = 0; u < h->s.nthreads; u++)
        if (h->s.thread_cn[u] == h->s.own_cn[p] && wl_alive(t, u))
            return true;
    return false;
}

/* The owner whose CN serves partition p: p while its CN lives, else the next live owner after it. */
static unsigned server(wl_thread_t *t, const hcmeta_t *h, unsigned p)
{
    for (unsigned k = 0; k < h->s.nown; k++)
        if (owner_lives(t, h, (p + k) % h->s.nown))
            return (p + k) % h->s.nown;
    return p; /* (none lives: nobody asks) */
}

/* Entry e's record word r is locked by a thread lost with a failed CN: take the lock over (true, and
 * the record unlocked again, its version moved on) after making the entry whole (its address the
 * key's: an install may have been cut between its two stores) and the object of the key it holds
 * (share_repair: a write may have been cut part way). False: the holder lives, or another survivor
 * was first. */
static bool takeover(wl_thread_t *t, const hcmeta_t *h, uint64_t e, uint64_t r)
{
    const unsigned holder = r_holder(r);
    const uint64_t rec = ent(h, e) + E_REC;
    if (!(r & R_LOCK) || !holder || wl_alive(t, holder - 1) || wl_cas(t, rec, r, r_locked_by(r, t->tid)) != r)
        return false;
    const uint64_t kw = wl_ld(t, ent(h, e) + E_KEY);
    if (kw) {
        wl_st(t, ent(h, e) + E_ADDR, share_obj(&h->s, kw - 1));
        share_repair(t, &h->s, kw - 1);
    }
    wl_st(t, rec, r_next(r));
    (*h->stat[H_TAKEOVERS])++;
    return true;
}

/* Shares key in partition p (the caller holds p's lock, on a thread of the CN that serves p). */
static void install(wl_thread_t *t, const hcmeta_t *h, unsigned p, uint64_t key)
{
    uint64_t v[WAYS], base = load_set(t, h, key, v), e = UINT64_MAX;
    for (unsigned w = 0; w < WAYS; w++)
        if (v[w] == key + 1)
            return; /* shared meanwhile, by an earlier request */
        else if (!v[w] && e == UINT64_MAX)
            e = base + w;
    if (e == UINT64_MAX) {
        uint64_t hand = part(h, t->cn, p, P_HANDS + (base / WAYS) % h->sets), w = wl_ld(t, hand);
        e = base + w;
        wl_st(t, hand, (w + 1) % WAYS);
        (*h->stat[H_EVICTIONS])++;
    }
    /* Lock the victim's record: its readers fail their re-check, its writer finishes first (or,
     * lost with a failed CN, is taken over). */
    uint64_t rec = ent(h, e) + E_REC, r;
    for (;;) {
        r = wl_ld(t, rec);
        if (!(r & R_LOCK) && wl_cas(t, rec, r, r_locked_by(r, t->tid)) == r)
            break;
        if (!takeover(t, h, e, r))
            wl_compute(t, SPIN_INSTRS);
    }
    wl_st(t, ent(h, e) + E_KEY, key + 1);
    wl_st(t, ent(h, e) + E_ADDR, share_obj(&h->s, key));
    wl_st(t, rec, r_next(r));
    (*h->stat[H_INSTALLS])++;
}

/* This CN serves partition p, a lost owner's, and the caller holds p's lock here: adopts p unless
 * the CN has. The lost owner's lock and hands went with its memory; the partition is its entries,
 * in the SCR: the records of them that lost threads hold (an install left half done) are taken
 * over, and the hands start afresh (zeroed). */
static void adopt(wl_thread_t *t, const hcmeta_t *h, unsigned p)
{
    const uint64_t flag = part(h, t->cn, p, P_ADOPTED), first = (uint64_t)p * h->sets * WAYS, n = h->sets * WAYS;
    if (p == h->s.own_of[t->cn] || wl_ld(t, flag))
        return;
    uint64_t a[64], v[64];
    for (uint64_t i0 = 0; i0 < n; i0 += 64) {
        unsigned nb = n - i0 < 64 ? (unsigned)(n - i0) : 64;
        for (unsigned j = 0; j < nb; j++)
            a[j] = ent(h, first + i0 + j) + E_REC;
        wl_ld_batch(t, a, v, nb);
        for (unsigned j = 0; j < nb; j++)
            takeover(t, h, first + i0 + j, v[j]);
    }
    wl_st(t, flag, 1);
    (*h->stat[H_OWNER_TAKEOVERS])++;
}

/* Answers the requests to partition p, which this thread's CN serves, if its doorbell rang and no
 * other thread of the CN is at it (adopting p first when it was a lost owner's). */
static void serve_part(wl_thread_t *t, const hcmeta_t *h, unsigned p)
{
    const uint64_t lock = part(h, t->cn, p, P_LOCK), served = part(h, t->cn, p, P_SERVED);
    if (p != h->s.own_of[t->cn] && !wl_ld(t, part(h, t->cn, p, P_ADOPTED)) && wl_cas(t, lock, 0, t->tid + 1) == 0) {
        adopt(t, h, p);
        wl_unlock(t, lock);
    }
    const uint64_t rung = wl_ld(t, h->bell + LINE * p);
    if (rung == wl_ld(t, served) || wl_cas(t, lock, 0, t->tid + 1) != 0)
        return;
    wl_st(t, served, rung);
    for (unsigned u = 0; u < h->s.nthreads; u++) {
        if (!wl_alive(t, u))
            continue; /* a lost client's request is dropped */
        uint64_t a[2] = {h->req + LINE * u, h->rep + LINE * u}, v[2];
        wl_ld_batch(t, a, v, 2);
        if (v[0] >> 32 == v[1] || (v[0] >> REQ_KEY_BITS & 63) != p)
            continue;
        install(t, h, p, v[0] & REQ_KEY_MASK);
        wl_compute(t, h->rpc_instrs);
        wl_st(t, h->rep + LINE * u, v[0] >> 32);
    }
    wl_unlock(t, lock);
}

/* Answers the requests to the partitions this thread's CN serves: its own and, after a failure,
 * those of the lost owners it is the server of. */
static void serve(wl_thread_t *t, const hcmeta_t *h)
{
    const unsigned me = h->s.own_of[t->cn];
    serve_part(t, h, me);
    if (wl_any_lost(t))
        for (unsigned p = 0; p < h->s.nown; p++)
            if (p != me && server(t, h, p) == me)
                serve_part(t, h, p);
}

/* Makes key shared: by this thread when its CN serves key's partition, else through the server. */
static void request(wl_thread_t *t, const hcmeta_t *h, uint64_t key)
{
    const unsigned o = owner(h, key);
    if (server(t, h, o) == h->s.own_of[t->cn]) {
        const uint64_t lock = part(h, t->cn, o, P_LOCK);
        wl_lock(t, lock);
        adopt(t, h, o);
        install(t, h, o, key);
        wl_compute(t, h->rpc_instrs);
        wl_unlock(t, lock);
        return;
    }
    const uint64_t seq = ++h->seq[t->tid], t0 = wl_now(t);
    wl_st(t, h->req + LINE * t->tid, seq << 32 | (uint64_t)o << REQ_KEY_BITS | key);
    wl_fadd(t, h->bell + LINE * o, 1);
    /* (the partition's server may change meanwhile, a failure taking its CN: the next one answers) */
    while (wl_ld(t, h->rep + LINE * t->tid) != seq) {
        serve(t, h);
        wl_compute(t, SPIN_INSTRS);
    }
    (*h->stat[H_RPCS])++;
    *h->stat[H_RPC_PS] += wl_now(t) - t0;
}

/* The record of key's entry, unlocked and validated: this CN's copies of the object are no older
 * than it (flushed when the CN last validated another). *ent_out: the entry. */
static uint64_t validate(wl_thread_t *t, const hcmeta_t *h, uint64_t key, uint64_t *ent_out)
{
    for (;;) {
        uint64_t e = find(t, h, key);
        if (e == UINT64_MAX) {
            request(t, h, key);
            continue;
        }
        uint64_t r = wl_ld(t, ent(h, e) + E_REC);
        if (r & R_LOCK) {
            (*h->s.stat[SHARE_RETRIES])++;
            if (!takeover(t, h, e, r))
                wl_compute(t, SPIN_INSTRS);
            continue;
        }
        uint64_t seen = share_seen(&h->s, t->cn, key);
        if (wl_ld(t, seen) != seen_val(e, r))
            share_flush_stale(t, &h->s, key);
        *ent_out = e;
        return r;
    }
}

static uint64_t get(wl_thread_t *t, const hcmeta_t *h, uint64_t key)
{
    for (;;) {
        uint64_t e, r = validate(t, h, key, &e);
        bool torn;
        share_pause(t, &h->s);
        uint64_t ver = share_read(t, &h->s, key, &torn);
        uint64_t a[2] = {ent(h, e) + E_REC, ent(h, e) + E_KEY}, v[2];
        wl_ld_batch(t, a, v, 2);
        if (v[0] != r || v[1] != key + 1) {
            (*h->s.stat[SHARE_RETRIES])++;
            continue;
        }
        wl_st(t, share_seen(&h->s, t->cn, key), seen_val(e, r));
        *h->s.stat[SHARE_TORN] += torn;
        return ver;
    }
}

/* A write: a put or an insert (the object's next version) or a delete (a tombstone). Returns its
 * result (share_log). */
static uint64_t write(wl_thread_t *t, const hcmeta_t *h, uint64_t key, share_op_e op)
{
    for (;;) {
        uint64_t e, r = validate(t, h, key, &e), rec = ent(h, e) + E_REC;
        if (wl_cas(t, rec, r, r_locked_by(r, t->tid)) != r) {
            (*h->s.stat[SHARE_RETRIES])++;
            continue;
        }
        /* Locked at the version validated. The entry may have been given to another key between
         * finding it and reading its record (its new record is what was read): then unlock it as it
         * was and look again. Else it is key's until unlocked, and this CN's copies are current. */
        if (wl_ld(t, ent(h, e) + E_KEY) != key + 1) {
            wl_st(t, rec, r);
            (*h->s.stat[SHARE_RETRIES])++;
            continue;
        }
        const bool gone = op == SHARE_DELETE;
        uint64_t ver = share_ver(wl_ld(t, share_obj(&h->s, key) + 8)) + 1;
        share_write(t, &h->s, key, ver, gone);
        wl_st(t, rec, r_next(r));
        wl_fence(t); /* the write ends visible: its log's end bounds its commit */
        wl_st(t, share_seen(&h->s, t->cn, key), seen_val(e, r_next(r)));
        return ver | (gone ? SHARE_GONE : 0);
    }
}

static uint64_t hc_get(wl_thread_t *t, const void *w, uint64_t key) { return get(t, w, key); }
static uint64_t hc_write(wl_thread_t *t, const void *w, uint64_t key, share_op_e op) { return write(t, w, key, op); }
static void hc_serve(wl_thread_t *t, const void *w) { serve(t, w); }

static void hc_thread(wl_thread_t *t, void *state)
{
    const hcmeta_t *h = state;
    share_run(t, &h->s, h, "hcmeta", hc_get, hc_write, hc_serve);
    share_done_mark(t, h->done);
    while (!share_all_done(t, &h->s, h->done)) { /* clients may still ask this CN */
        serve(t, h);
        wl_compute(t, SPIN_INSTRS);
    }
}

/* Record word r is locked by a thread lost with a failed CN. */
static bool lost_holds(const wl_env_t *e, const hcmeta_t *h, uint64_t r)
{
    return (r & R_LOCK) && r_holder(r) && r_holder(r) <= h->s.nthreads && !wl_env_alive(e, r_holder(r) - 1);
}

/* Key's entry is locked by a thread lost with a failed CN that nobody needed since: the write it
 * was doing took effect in part (in memory) until a survivor takes the lock over. */
static bool held_by_lost(wl_env_t *e, const void *state, uint64_t key)
{
    const hcmeta_t *h = state;
    const uint64_t base = set_base(h, key);
    for (unsigned w = 0; w < WAYS; w++)
        if (e->ops->peek(e, 0, ent(h, base + w) + E_KEY) == key + 1)
            return lost_holds(e, h, e->ops->peek(e, 0, ent(h, base + w) + E_REC));
    return false;
}

static int hc_check(wl_env_t *e, void *state, char *err)
{
    const hcmeta_t *h = state;
    const unsigned lost = wl_env_lost(e);
    if (share_check(e, &h->s, held_by_lost, h, err))
        return -1;
    /* The index: every key at most once, in its own set, with its object's address; no record
     * left locked (but by a lost thread, whose install may have been cut before the address). */
    uint8_t *in = calloc(h->s.nobj, 1);
    if (!in)
        return wl_errf(err, "hcmeta: check: out of host memory");
    int rc = 0;
    uint64_t vsum = 0;
    for (uint64_t i = 0; i < h->nent && !rc; i++) {
        uint64_t a = ent(h, i), kw = e->ops->peek(e, 0, a + E_KEY), r = e->ops->peek(e, 0, a + E_REC);
        const bool held = lost_holds(e, h, r);
        vsum += r_ver(r);
        if (((r & R_LOCK) && !held) || (!(r & R_LOCK) && r_holder(r)))
            rc = wl_errf(err, "hcmeta: entry %llu's record is still locked (word 0x%llx)", (unsigned long long)i,
                         (unsigned long long)r);
        else if (kw && (kw > h->s.nobj || in[kw - 1] || set_base(h, kw - 1) != i / WAYS * WAYS ||
                        (e->ops->peek(e, 0, a + E_ADDR) != share_obj(&h->s, kw - 1) && !held)))
            rc = wl_errf(err, "hcmeta: entry %llu holds key word %llu: unknown, twice, outside its set or with "
                         "another address", (unsigned long long)i, (unsigned long long)kw);
        else if (kw)
            in[kw - 1] = 1;
    }
    /* Every version step is a write's, an install's or a takeover's; every request rang a doorbell
     * and was answered (not checked with threads lost: a lost thread's steps and the statistics it
     * kept may part at any point; it may have rung and never counted its request). */
    const uint64_t writes = *h->s.stat[SHARE_PUTS] + *h->s.stat[SHARE_INSERTS] + *h->s.stat[SHARE_DELETES];
    const uint64_t steps = writes + *h->stat[H_INSTALLS] + *h->stat[H_TAKEOVERS];
    if (!rc && !lost && vsum != steps)
        rc = wl_errf(err, "hcmeta: the records' versions add up to %llu, not the %llu writes + %llu installs + %llu "
                     "takeovers", (unsigned long long)vsum, (unsigned long long)writes,
                     (unsigned long long)*h->stat[H_INSTALLS], (unsigned long long)*h->stat[H_TAKEOVERS]);
    uint64_t rung = 0;
    for (unsigned i = 0; i < h->s.nown; i++)
        rung += e->ops->peek(e, 0, h->bell + LINE * i);
    if (!rc && (lost ? rung < *h->stat[H_RPCS] : rung != *h->stat[H_RPCS]))
        rc = wl_errf(err, "hcmeta: the doorbells rang %llu times for %llu requests", (unsigned long long)rung,
                     (unsigned long long)*h->stat[H_RPCS]);
    for (unsigned u = 0; u < h->s.nthreads && !rc; u++) {
        if (!wl_env_alive(e, u))
            continue; /* its last request may have been dropped */
        uint64_t q = e->ops->peek(e, 0, h->req + LINE * u);
        if (q >> 32 != e->ops->peek(e, 0, h->rep + LINE * u) || q >> 32 != h->seq[u] ||
            (q && ((q >> REQ_KEY_BITS & 63) >= h->s.nown || (q & REQ_KEY_MASK) >= h->s.nobj)))
            rc = wl_errf(err, "hcmeta: thread %u's request word 0x%llx: unanswered, or not its last (%llu)", u,
                         (unsigned long long)q, (unsigned long long)h->seq[u]);
    }
    if (!rc)
        rc = share_done_check(e, &h->s, h->done, "hcmeta", err);
    free(in);
    return rc;
}

const workload_t wl_hcmeta = {
    .name = "hcmeta",
    .doc = "HCMeta: objects in the LNR, a shared index with a coherence record per object in the SCR, owners "
           "sharing more on request",
    .setup = hc_setup,
    .thread = hc_thread,
    .check = hc_check,
    .free = hc_free,
};
