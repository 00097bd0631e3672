/* megalon: Megalon's data sharing on partly coherent CXL memory (the blog's mechanisms: split
 * metadata, a shared log, dynamic coherence records, the dual-path check, log garbage collection).
 * Objects, operations and the check: share.h.
 *
 * Split metadata. The index (key -> the object's record, if any; the objects' addresses are
 * fixed) is replicated in full in each CN's local memory, with its reverse (record -> key) and the
 * CN's `seen` records (share.h). A key's replica word holds its record + 1 (0: none) and, above it,
 * an epoch that every ALLOC or FREE of the key applied moves on. Only the coherence records live in the SCR: R =
 * workload.share_scr_budget / 4 of them (the blog's 4 bytes: a lock bit and a counter; here a word
 * each, so 8 to a line), a bitmap of the ones in use, and a clock hand for victims.
 * The shared log. workload.megalon_log_entries entries of a line each in the LNR (word 0 the
 * entry's number + 1, written last; then its type, key and record), its tail (entries claimed) and
 * head (entries every CN has applied, so whose slots may be reused) in the SCR, and each CN's
 * applied count (SCR, for the head; local, for itself). To change the index a thread claims the
 * next entry by compare-and-swap on the tail (only while the ring has room; else it advances the
 * head to the slowest CN's applied count, applies its own backlog and tries again), writes the
 * entry, writes it back (clflushopt, fence), then syncs. Sync: if the tail is past this CN's
 * applied count, take the CN's replica lock and apply the entries in order, each read past the
 * cache (flush, fence, read; again until its number is there), then publish the count.
 * Dynamic records. An object has a record only once written: a put of an unrecorded object takes a
 * free record (a bit of the bitmap by CAS) or, when none is free, the clock's next unlocked victim;
 * it locks it and, if its synced replica maps it to a key, announces that key's FREE, bumping the
 * counter; then it announces ALLOC
 * (key, record), syncs, and checks that its replica maps the key to that record: the first ALLOC of
 * a key without a record wins, a later one is void, so puts of a key always lock one record (a put
 * whose ALLOC lost frees its record, bumps and unlocks it, and tries again). A put of
 * a recorded object locks the record by CAS, syncs, checks the mapping again, flushes stale lines
 * (as a get), writes the object and writes it back, then stores the counter's next value unlocked
 * and fences (the put ends visible).
 * Writes (puts, inserts, deletes: share.h) of an object take its record as above; a delete, and a
 * write of a deleted key, is also announced (DELETE with its version, INSERT) before the record is
 * unlocked, so that each replica knows the deleted keys and their versions.
 * Reads. sync, then by the replica: a deleted key's get answers from the replica; a recorded
 * object is read as HCMeta reads it (record, flush unless this CN validated that record, object,
 * record again); an unrecorded one needs no record: nobody writes an object before announcing its
 * record, so copies cached while it had none are current: `seen` keeps the replica word (epoch
 * included) of the read that last flushed them, and a read flushes when the word moved on since.
 * The dual-path check, at the end of every read: load the tail; if it moved since the read's sync, sync and, if the key's
 * mapping changed, retry. workload.megalon_dual_path = false leaves it out (a mutation its check
 * must catch).
 * Threads that have finished keep syncing (the head needs every live CN's count) until every live
 * thread is done (a bit each in the SCR). Setup starts in a steady state: the record pool full,
 * each record a random object's.
 * A CN failure (DIKTAMO's recovery; not in the blog): a locked record word holds its holder, and a
 * survivor finding a lock held by a lost thread takes it over, makes the object whole as the
 * version memory has (share_repair: version, writer and deletion are one word, never torn) and
 * matches the key's deletion in the log; a claimer sets its intent in the SCR before its claim and
 * clears it once its entry is written back, so an applier stuck on an entry no live thread intends
 * fills it with a no-op; the log's head follows the live CNs only. */
#include <stdlib.h>

#include "workloads/share.h"

#define REC_SCR_BYTES 4u   /* the blog's record: a lock bit and a counter */
#define SPIN_INSTRS 100u   /* a spin-wait iteration's pause */
#define APPLY_INSTRS 20u   /* applying an entry to the replica */
#define LINE 64u
#define E_ALLOC 1u
#define E_FREE 2u
#define E_INSERT 3u /* the key is present again (its record: the version) */
#define E_DELETE 4u /* the key was deleted (its record: the delete's result: version | writer << 48) */
#define E_NOP 5u    /* a slot a lost thread claimed and never wrote, filled by a survivor */
#define NONE UINT64_MAX
/* A record word: bit 0 the lock, bits 1 .. 13 its holder (tid + 1) while locked, the counter above. */
#define R_LOCK 1ull
#define R_COUNT_SHIFT 14u
static uint64_t r_count(uint64_t r) { return r >> R_COUNT_SHIFT; }
static unsigned r_holder(uint64_t r) { return (unsigned)(r >> 1 & 0x1fff); }
static uint64_t r_locked_by(uint64_t r, unsigned tid)
{
    return (r & ~((1ull << R_COUNT_SHIFT) - 1)) | ((uint64_t)tid + 1) << 1 | R_LOCK;
}
static uint64_t r_next(uint64_t r) { return (r_count(r) + 1) << R_COUNT_SHIFT; } /* unlocked, counted on */

enum { M_APPENDS, M_APPLIED, M_ALLOCS, M_EVICTIONS, M_LOST, M_CLOCK, M_GC_HEAD, M_DUAL, M_APPEND_PS, M_GONE_GETS,
       M_TAKEOVERS, M_NOPS, M_NCOUNT };
static const char *const m_names[M_NCOUNT] = {
    "megalon.appends",   "megalon.applied",   "megalon.allocs",   "megalon.evictions",
    "megalon.lost_allocs", "megalon.clock",   "megalon.gc_head",  "megalon.dual_path",
    "megalon.append_ps", "megalon.gone_gets", "megalon.takeovers", "megalon.nop_fills"};
static const char *const m_docs[M_NCOUNT] = {
    "megalon: log entries appended (ALLOC and FREE of records, INSERT and DELETE of keys)",
    "megalon: log entries applied, summed over the CNs' replicas",
    "megalon: records given to objects on their first write (free ones and victims)",
    "megalon: records taken from an object to give to another (announced FREE, then ALLOC)",
    "megalon: records given back because another put's ALLOC of the key came first in the log",
    "megalon: records the clock looked at for a victim",
    "megalon: log entries released by garbage collection (the head)",
    "megalon: reads retried by the dual-path check (the key's record changed during the read)",
    "megalon: time spent appending entries, claim to write-back (ps, summed)",
    "megalon: gets of a deleted key answered by the replica (no object read)",
    "megalon: record locks of threads lost with a failed CN taken over (their object made whole)",
    "megalon: log slots a lost thread claimed and never wrote, filled with a no-op (by each survivor CN that did)"};

typedef struct megalon {
    share_t s;
    uint64_t nrec, nent;                             /* records; log entries */
    uint64_t rec, bitmap, hand, tail, head, applied, done, intent; /* SCR */
    uint64_t log;                                    /* LNR: the ring */
    uint64_t *repl;  /* per CN (local): [0] replica lock, [1] applied, then key -> rid + 1, then rid -> key + 1,
                        then key -> its delete's version + 1 (0: present) */
    bool dual;       /* the dual-path check (false: the mutation) */
    uint64_t *shadow; /* host: each ring slot's last entry as appended (4 words), for the check */
    uint64_t *stat[M_NCOUNT];
} megalon_t;

static void mg_free(void *state)
{
    megalon_t *m = state;
    if (!m)
        return;
    share_free(&m->s);
    free(m->repl);
    free(m->shadow);
    free(m);
}

static uint64_t rec_at(const megalon_t *m, uint64_t rid) { return m->rec + 8 * rid; }
static uint64_t map_at(const megalon_t *m, unsigned cn, uint64_t key) { return m->repl[cn] + 16 + 8 * key; }
static uint64_t rev_at(const megalon_t *m, unsigned cn, uint64_t rid)
{
    return m->repl[cn] + 16 + 8 * m->s.nobj + 8 * rid;
}
static uint64_t gone_at(const megalon_t *m, unsigned cn, uint64_t key)
{
    return m->repl[cn] + 16 + 8 * (m->s.nobj + m->nrec) + 8 * key;
}
static uint64_t seen_val(uint64_t rid, uint64_t rec) { return (rid + 1) << 32 | (r_count(rec) & 0xffffffffu); }
/* seen of an object read without a record, at replica word mw (bit 63: never a record's value) */
static uint64_t seen_norec(uint64_t mw) { return 1ull << 63 | mw; }
#define MW_RID(mw) ((mw) & 0xffffffffu)     /* record + 1, 0: none */
#define MW_NEXT(mw, rid1) ((((mw) >> 32) + 1) << 32 | (rid1)) /* the epoch moved on, a new record */

/* Steady state, as after a long run: the record pool full, each record a random object's (its bit
 * set, every replica mapping it both ways). -1: out of host memory. */
static int fill_pool(wl_env_t *e, megalon_t *m)
{
    const uint64_t n = m->nrec < m->s.nobj ? m->nrec : m->s.nobj;
    uint64_t *perm = malloc(m->s.nobj * sizeof *perm), word = 0;
    if (!perm)
        return -1;
    for (uint64_t k = 0; k < m->s.nobj; k++)
        perm[k] = k;
    rng_t r;
    rng_init_named(&r, e->seed, "megalon.pool");
    for (uint64_t rid = 0; rid < n; rid++) {
        uint64_t j = rid + rng_below(&r, m->s.nobj - rid), key = perm[j];
        perm[j] = perm[rid];
        perm[rid] = key;
        for (unsigned i = 0; i < m->s.nown; i++) {
            e->ops->poke(e, m->s.own_cn[i], map_at(m, m->s.own_cn[i], key), rid + 1);
            e->ops->poke(e, m->s.own_cn[i], rev_at(m, m->s.own_cn[i], rid), key + 1);
        }
        word |= 1ull << (rid % 64);
        if (rid % 64 == 63 || rid + 1 == n) {
            e->ops->poke(e, 0, m->bitmap + 8 * (rid / 64), word);
            word = 0;
        }
    }
    free(perm);
    return 0;
}

static int mg_setup(wl_env_t *e, void **state, char *err)
{
    const sim_config_t *c = e->cfg;
    *state = NULL;
    megalon_t *m = calloc(1, sizeof *m);
    if (!m)
        return wl_errf(err, "megalon: out of host memory");
    if (share_setup(e, &m->s, "megalon", err)) {
        free(m);
        return -1;
    }
    int rc = 0;
    m->dual = c->workload.megalon_dual_path;
    m->nent = c->workload.megalon_log_entries;
    uint64_t budget = c->workload.share_scr_budget;
    m->nrec = budget ? budget / REC_SCR_BYTES : m->s.nobj;
    if (!m->nrec || m->nrec >= 1ull << 31) {
        rc = wl_errf(err, "megalon: a budget of %llu bytes of SCR buys %llu records of %u bytes: 1 to 2^31 - 1 work",
                     (unsigned long long)budget, (unsigned long long)m->nrec, REC_SCR_BYTES);
        goto out;
    }
    if (!(m->repl = calloc(e->num_cn, sizeof *m->repl)) || !(m->shadow = calloc(4 * m->nent, sizeof *m->shadow))) {
        rc = wl_errf(err, "megalon: out of host memory");
        goto out;
    }
    uint64_t words = (m->nrec + 63) / 64;
    if ((m->rec = e->ops->alloc_cxl(e, 8 * m->nrec)) == WL_ALLOC_FAIL ||
        (m->bitmap = e->ops->alloc_cxl(e, 8 * words)) == WL_ALLOC_FAIL ||
        (m->hand = e->ops->alloc_cxl(e, LINE)) == WL_ALLOC_FAIL || (m->tail = e->ops->alloc_cxl(e, LINE)) == WL_ALLOC_FAIL ||
        (m->head = e->ops->alloc_cxl(e, LINE)) == WL_ALLOC_FAIL ||
        (m->done = e->ops->alloc_cxl(e, 8 * ((e->nthreads + 63) / 64))) == WL_ALLOC_FAIL ||
        (m->intent = e->ops->alloc_cxl(e, (uint64_t)e->nthreads * LINE)) == WL_ALLOC_FAIL ||
        (m->applied = e->ops->alloc_cxl(e, (uint64_t)m->s.nown * LINE)) == WL_ALLOC_FAIL) {
        rc = wl_errf(err, "megalon: %llu records and the log's pointers do not fit the coherent region (mem.scr_size)",
                     (unsigned long long)m->nrec);
        goto out;
    }
    if ((m->log = e->ops->alloc_lnr(e, m->nent * LINE)) == WL_ALLOC_FAIL) {
        rc = wl_errf(err, "megalon: a log of %llu entries does not fit the Large Non-coherent Region",
                     (unsigned long long)m->nent);
        goto out;
    }
    for (uint64_t a = 0; a < m->nent * LINE; a += 8) /* an empty ring (zeroes the oracle knows) */
        e->ops->poke(e, 0, m->log + a, 0);
    for (unsigned i = 0; i < m->s.nown; i++) {
        unsigned cn = m->s.own_cn[i];
        if ((m->repl[cn] = e->ops->alloc_local(e, cn, 16 + 8 * (2 * m->s.nobj + m->nrec))) == WL_ALLOC_FAIL) {
            rc = wl_errf(err, "megalon: CN %u's index replica (%llu bytes) does not fit its local memory", cn,
                         (unsigned long long)(16 + 8 * (2 * m->s.nobj + m->nrec)));
            goto out;
        }
    }
    for (unsigned i = 0; i < M_NCOUNT; i++)
        if (!(m->stat[i] = e->ops->counter(e, m_names[i], m_docs[i], err))) {
            rc = -1;
            goto out;
        }
    if (fill_pool(e, m)) {
        rc = wl_errf(err, "megalon: out of host memory");
        goto out;
    }
out:
    if (rc)
        mg_free(m);
    else
        *state = m;
    return rc;
}

/* A live thread is claiming or writing log entry a (its intent, set before its claim, cleared once
 * its entry is written back). */
static bool live_intent(wl_thread_t *t, const megalon_t *m, uint64_t a)
{
    uint64_t ad[64], v[64];
    for (unsigned u0 = 0; u0 < m->s.nthreads; u0 += 64) {
        unsigned nb = m->s.nthreads - u0 < 64 ? m->s.nthreads - u0 : 64;
        for (unsigned j = 0; j < nb; j++)
            ad[j] = m->intent + LINE * (u0 + j);
        wl_ld_batch(t, ad, v, nb);
        for (unsigned j = 0; j < nb; j++)
            if (v[j] == a + 1 && wl_alive(t, u0 + j))
                return true;
    }
    return false;
}

/* Reads log entry a past the cache into v[4]. */
static void read_entry(wl_thread_t *t, const megalon_t *m, uint64_t a, uint64_t *v)
{
    const uint64_t ent = m->log + LINE * (a % m->nent), addr[4] = {ent, ent + 8, ent + 16, ent + 24};
    wl_flush_opt(t, ent);
    wl_fence(t);
    wl_ld_batch(t, addr, v, 4);
}

/* Applies the entries this CN has not (the tail at the call, at least `upto`). */
static void sync_to(wl_thread_t *t, const megalon_t *m, uint64_t upto)
{
    const unsigned cn = t->cn;
    const uint64_t lock = m->repl[cn], mine = lock + 8;
    if (wl_ld(t, mine) >= upto)
        return;
    wl_lock(t, lock);
    uint64_t a = wl_ld(t, mine), n = 0;
    for (; a < upto; a++, n++) {
        uint64_t v[4];
        for (unsigned k = 0;; k++) { /* read past the cache; the claimer may not have written it yet */
            read_entry(t, m, a, v);
            if (v[0] == a + 1)
                break;
            /* Its claimer lost with a failed CN? Then no live thread has it as its intent (a live
             * claimer set it before its claim and clears it only once the entry is written back:
             * look at the entry again after the intents). Fill it with a no-op (every filler writes
             * the same line; the failed CN's traffic left the fabric before the recovery). */
            if (k >= 8 && wl_any_lost(t) && !live_intent(t, m, a)) {
                read_entry(t, m, a, v);
                if (v[0] == a + 1)
                    break;
                const uint64_t ent = m->log + LINE * (a % m->nent);
                uint64_t *sh = &m->shadow[4 * (a % m->nent)];
                sh[0] = a + 1, sh[1] = E_NOP, sh[2] = 0, sh[3] = 0;
                wl_st(t, ent + 8, E_NOP);
                wl_st(t, ent + 16, 0);
                wl_st(t, ent + 24, 0);
                wl_st(t, ent, a + 1);
                wl_flush_opt(t, ent);
                wl_fence(t);
                (*m->stat[M_NOPS])++;
                v[0] = a + 1, v[1] = E_NOP, v[2] = v[3] = 0;
                break;
            }
            wl_compute(t, SPIN_INSTRS);
        }
        const uint64_t key = v[2], rid = v[3], map = map_at(m, cn, key), mw = v[1] == E_NOP ? 0 : wl_ld(t, map);
        if (v[1] == E_ALLOC) {
            /* The first ALLOC of a key without a record wins; a later one (two puts gave it a
             * record at once) is void: its put finds the key mapped elsewhere and gives it back. */
            if (!MW_RID(mw)) {
                wl_st(t, map, MW_NEXT(mw, rid + 1));
                wl_st(t, rev_at(m, cn, rid), key + 1);
            }
        } else if (v[1] == E_FREE) {
            if (MW_RID(mw) == rid + 1) { /* the key's current record */
                wl_st(t, map, MW_NEXT(mw, 0));
                wl_st(t, rev_at(m, cn, rid), 0);
            }
        } else if (v[1] != E_NOP) {
            wl_st(t, gone_at(m, cn, key), v[1] == E_DELETE ? rid + 1 : 0); /* rid: version | writer << 48 */
        }
        wl_compute(t, APPLY_INSTRS);
    }
    wl_st(t, mine, a);
    wl_st(t, m->applied + LINE * m->s.own_of[cn], a);
    wl_unlock(t, lock);
    *m->stat[M_APPLIED] += n;
}

/* Applies every entry claimed so far; returns the tail it synced to. */
static uint64_t sync(wl_thread_t *t, const megalon_t *m)
{
    uint64_t tail = wl_ld(t, m->tail);
    sync_to(t, m, tail);
    return tail;
}

/* A spin-wait iteration: this CN keeps applying the log meanwhile (the head waits for every CN). */
static void spin(wl_thread_t *t, const megalon_t *m)
{
    sync(t, m);
    wl_compute(t, SPIN_INSTRS);
}

/* Moves the head up to the slowest live CN's applied count (a CN whose threads were all lost with
 * it applies nothing more). */
static void advance_head(wl_thread_t *t, const megalon_t *m)
{
    uint64_t low = UINT64_MAX, a[64], v[64];
    for (unsigned i0 = 0; i0 < m->s.nown; i0 += 64) {
        unsigned nb = m->s.nown - i0 < 64 ? m->s.nown - i0 : 64;
        for (unsigned j = 0; j < nb; j++)
            a[j] = m->applied + LINE * (i0 + j);
        wl_ld_batch(t, a, v, nb);
        for (unsigned j = 0; j < nb; j++) {
            bool live = false;
            for (unsigned u = 0; u < m->s.nthreads && !live; u++)
                live = m->s.thread_cn[u] == m->s.own_cn[i0 + j] && wl_alive(t, u);
            if (live)
                low = v[j] < low ? v[j] : low;
        }
    }
    uint64_t h = wl_ld(t, m->head);
    if (low > h && wl_cas(t, m->head, h, low) == h && low > *m->stat[M_GC_HEAD])
        *m->stat[M_GC_HEAD] = low; /* a statistic kept as a maximum: the head only grows */
}

/* Appends an entry (type, key, rid), then syncs. */
static void append(wl_thread_t *t, const megalon_t *m, uint64_t type, uint64_t key, uint64_t rid)
{
    const uint64_t t0 = wl_now(t);
    uint64_t i;
    for (;;) {
        i = wl_ld(t, m->tail);
        if (i - wl_ld(t, m->head) >= m->nent) { /* the ring is full: wait for the slowest CN */
            advance_head(t, m);
            sync_to(t, m, i);
            wl_compute(t, SPIN_INSTRS);
            continue;
        }
        wl_st(t, m->intent + LINE * t->tid, i + 1); /* before the claim (the CAS orders it) */
        if (wl_cas(t, m->tail, i, i + 1) == i)
            break;
        wl_st(t, m->intent + LINE * t->tid, 0); /* not ours: whoever claimed it may be waited for */
    }
    const uint64_t ent = m->log + LINE * (i % m->nent);
    uint64_t *sh = &m->shadow[4 * (i % m->nent)];
    sh[0] = i + 1, sh[1] = type, sh[2] = key, sh[3] = rid;
    wl_st(t, ent + 8, type);
    wl_st(t, ent + 16, key);
    wl_st(t, ent + 24, rid);
    wl_st(t, ent, i + 1); /* last: a reader takes the entry once it sees its number */
    wl_flush_opt(t, ent);
    wl_fence(t);
    wl_st(t, m->intent + LINE * t->tid, 0);
    (*m->stat[M_APPENDS])++;
    *m->stat[M_APPEND_PS] += wl_now(t) - t0;
    sync_to(t, m, i + 1);
}

/* key's word in this CN's replica (MW_RID: its record + 1). */
static uint64_t map_word(wl_thread_t *t, const megalon_t *m, uint64_t key) { return wl_ld(t, map_at(m, t->cn, key)); }
/* The record key maps to in this CN's replica, or NONE. */
static uint64_t mapped(wl_thread_t *t, const megalon_t *m, uint64_t key)
{
    uint64_t r1 = MW_RID(map_word(t, m, key));
    return r1 ? r1 - 1 : NONE;
}

/* The dual-path check at the end of a read synced to `tail` with key's replica words mw and gw
 * (record, deletion): true when an entry of the key came meanwhile. */
static bool moved(wl_thread_t *t, const megalon_t *m, uint64_t key, uint64_t tail, uint64_t mw, uint64_t gw)
{
    if (!m->dual)
        return false;
    uint64_t now = wl_ld(t, m->tail);
    if (now == tail)
        return false;
    sync_to(t, m, now);
    if (map_word(t, m, key) == mw && wl_ld(t, gone_at(m, t->cn, key)) == gw)
        return false;
    (*m->stat[M_DUAL])++;
    return true;
}

/* Record rid's word r is locked by a thread lost with a failed CN: take the lock over (true, and
 * the record released again, its counter moved on) after making the state it guards whole: the
 * object of the key it maps to (its header as memory has it, every payload word written again,
 * and its deletion announced or taken back to match). False: the holder lives, or another
 * survivor was first. */
static bool takeover(wl_thread_t *t, const megalon_t *m, uint64_t rid, uint64_t r)
{
    const unsigned h = r_holder(r);
    if (!(r & R_LOCK) || !h || wl_alive(t, h - 1) || wl_cas(t, rec_at(m, rid), r, r_locked_by(r, t->tid)) != r)
        return false;
    sync(t, m);
    const uint64_t owner = wl_ld(t, rev_at(m, t->cn, rid));
    if (owner) {
        const uint64_t key = owner - 1, res = share_repair(t, &m->s, key), gw = wl_ld(t, gone_at(m, t->cn, key));
        const uint64_t del = res & ~SHARE_GONE; /* a DELETE's record: version | writer << 48 */
        if ((res & SHARE_GONE) && gw != del + 1)
            append(t, m, E_DELETE, key, del);
        else if (!(res & SHARE_GONE) && gw)
            append(t, m, E_INSERT, key, share_ver(res));
    } /* else: the lost thread was taking it; its bit stays (a live allocator may have set it and be
       * waiting for this lock): the clock gives it out again */
    wl_st(t, rec_at(m, rid), r_next(r));
    (*m->stat[M_TAKEOVERS])++;
    return true;
}

static uint64_t get(wl_thread_t *t, const megalon_t *m, uint64_t key)
{
    const uint64_t seen = share_seen(&m->s, t->cn, key);
    for (;;) {
        const uint64_t tail = sync(t, m), mw = map_word(t, m, key), gw = wl_ld(t, gone_at(m, t->cn, key));
        bool torn;
        if (gw) { /* deleted, says the replica: no object to read */
            if (moved(t, m, key, tail, mw, gw)) {
                (*m->s.stat[SHARE_RETRIES])++;
                continue;
            }
            (*m->stat[M_GONE_GETS])++;
            return (gw - 1) | SHARE_GONE;
        }
        share_pause(t, &m->s);
        if (!MW_RID(mw)) {
            if (wl_ld(t, seen) != seen_norec(mw))
                share_flush_stale(t, &m->s, key);
            uint64_t res = share_read(t, &m->s, key, &torn);
            if (moved(t, m, key, tail, mw, gw)) {
                (*m->s.stat[SHARE_RETRIES])++;
                continue;
            }
            wl_st(t, seen, seen_norec(mw));
            *m->s.stat[SHARE_TORN] += torn;
            return res;
        }
        const uint64_t rid = MW_RID(mw) - 1, r = wl_ld(t, rec_at(m, rid));
        if (r & R_LOCK) {
            (*m->s.stat[SHARE_RETRIES])++;
            if (!takeover(t, m, rid, r))
                wl_compute(t, SPIN_INSTRS); /* the loop syncs */
            continue;
        }
        if (wl_ld(t, seen) != seen_val(rid, r))
            share_flush_stale(t, &m->s, key);
        uint64_t res = share_read(t, &m->s, key, &torn);
        if (wl_ld(t, rec_at(m, rid)) != r || moved(t, m, key, tail, mw, gw)) {
            (*m->s.stat[SHARE_RETRIES])++;
            continue;
        }
        wl_st(t, seen, seen_val(rid, r));
        *m->s.stat[SHARE_TORN] += torn;
        return res;
    }
}

/* A record for key, locked (its word's value, unlocked, in *r): a free one (its bit set by CAS),
 * else the clock's next unlocked victim. Whoever holds a record's lock may give it away: once
 * locked, the synced replica says whose it is, and that key's FREE is announced first (the counter
 * bumped, so its readers' validation changes). Then ALLOC(key). */
static uint64_t take_record(wl_thread_t *t, const megalon_t *m, uint64_t key, uint64_t *r)
{
    const uint64_t words = (m->nrec + 63) / 64, start = wl_mix64(key) % words;
    uint64_t rid = NONE;
    for (uint64_t k = 0; k < words && rid == NONE; k++) { /* a free record: set its bit */
        const uint64_t wi = (start + k) % words, w = m->bitmap + 8 * wi;
        const uint64_t valid = wi == words - 1 && m->nrec % 64 ? (1ull << (m->nrec % 64)) - 1 : ~0ull;
        uint64_t b = wl_ld(t, w);
        while ((~b & valid) && rid == NONE) {
            unsigned bit = (unsigned)__builtin_ctzll(~b & valid);
            uint64_t got = wl_cas(t, w, b, b | 1ull << bit);
            if (got == b)
                rid = wi * 64 + bit;
            b = got;
        }
    }
    if (rid != NONE) {
        for (;;) { /* free, so unlocked unless a victim taker or its last user still holds it */
            *r = wl_ld(t, rec_at(m, rid));
            if (!(*r & R_LOCK) && wl_cas(t, rec_at(m, rid), *r, r_locked_by(*r, t->tid)) == *r)
                break;
            if (!takeover(t, m, rid, *r))
                spin(t, m);
        }
    } else {
        for (;;) { /* none free: the clock's next unlocked victim */
            rid = wl_fadd(t, m->hand, 1) % m->nrec;
            (*m->stat[M_CLOCK])++;
            *r = wl_ld(t, rec_at(m, rid));
            if (!(*r & R_LOCK) && wl_cas(t, rec_at(m, rid), *r, r_locked_by(*r, t->tid)) == *r)
                break;
            if (!takeover(t, m, rid, *r))
                spin(t, m);
        }
        /* Its bit may have been cleared by a put that gave it back: set it again (by CAS: an
         * allocator that found it clear may be setting it too; it then waits for the lock, and
         * gives it away in turn). */
        const uint64_t w = m->bitmap + 8 * (rid / 64), bit = 1ull << (rid % 64);
        for (uint64_t b = wl_ld(t, w); !(b & bit);) {
            uint64_t got = wl_cas(t, w, b, b | bit);
            if (got == b)
                break;
            b = got;
        }
    }
    sync(t, m);
    uint64_t owner = wl_ld(t, rev_at(m, t->cn, rid));
    if (owner) {
        append(t, m, E_FREE, owner - 1, rid);
        *r = r_next(*r);
        (*m->stat[M_EVICTIONS])++;
    }
    (*m->stat[M_ALLOCS])++;
    append(t, m, E_ALLOC, key, rid);
    return rid;
}

/* A write: a put or an insert (the object's next version) or a delete (a tombstone). A delete, and
 * a write of a deleted key, is announced too (DELETE, INSERT), before the record is unlocked, so
 * that the replicas answer gets of a deleted key. Returns its result (share_log). */
static uint64_t write(wl_thread_t *t, const megalon_t *m, uint64_t key, share_op_e op)
{
    for (;;) {
        sync(t, m);
        uint64_t rid = mapped(t, m, key), r;
        const bool taken = rid == NONE; /* a record this write takes (its bit set for it) */
        if (taken) {
            rid = take_record(t, m, key, &r);
        } else {
            r = wl_ld(t, rec_at(m, rid));
            if ((r & R_LOCK) || wl_cas(t, rec_at(m, rid), r, r_locked_by(r, t->tid)) != r) {
                (*m->s.stat[SHARE_RETRIES])++;
                if (!(r & R_LOCK) || !takeover(t, m, rid, r))
                    wl_compute(t, SPIN_INSTRS); /* the loop syncs */
                continue;
            }
            sync(t, m);
        }
        /* Locked at r. The key must still map to it: else a concurrent write announced another
         * record for the key (one this write took: give it back), or it was reassigned. */
        if (mapped(t, m, key) != rid) {
            if (taken && !wl_ld(t, rev_at(m, t->cn, rid))) /* mapped to no key: free it, before the unlock */
                wl_fadd(t, m->bitmap + 8 * (rid / 64), (uint64_t)0 - (1ull << (rid % 64)));
            wl_st(t, rec_at(m, rid), r_next(r));
            (*m->stat[M_LOST])++;
            (*m->s.stat[SHARE_RETRIES])++;
            continue;
        }
        if (wl_ld(t, share_seen(&m->s, t->cn, key)) != seen_val(rid, r))
            share_flush_stale(t, &m->s, key);
        const uint64_t state = wl_ld(t, share_obj(&m->s, key) + 8), ver = share_ver(state) + 1;
        const bool gone = op == SHARE_DELETE, was_gone = state & SHARE_GONE;
        share_write(t, &m->s, key, ver, gone);
        if (gone || was_gone)
            append(t, m, gone ? E_DELETE : E_INSERT, key,
                   gone ? ver | ((uint64_t)t->tid + 1) << SHARE_WRITER_SHIFT : ver);
        wl_st(t, rec_at(m, rid), r_next(r));
        wl_fence(t); /* the write ends visible: its log's end bounds its commit */
        wl_st(t, share_seen(&m->s, t->cn, key), seen_val(rid, r_next(r)));
        return ver | (gone ? SHARE_GONE : 0);
    }
}

static uint64_t mg_get(wl_thread_t *t, const void *w, uint64_t key) { return get(t, w, key); }
static uint64_t mg_write(wl_thread_t *t, const void *w, uint64_t key, share_op_e op) { return write(t, w, key, op); }

static void mg_thread(wl_thread_t *t, void *state)
{
    const megalon_t *m = state;
    share_run(t, &m->s, m, "megalon", mg_get, mg_write, NULL);
    share_done_mark(t, m->done);
    while (!share_all_done(t, &m->s, m->done)) { /* appenders may need this CN's count for the head */
        sync(t, m);
        wl_compute(t, SPIN_INSTRS);
    }
    sync(t, m);
}

/* CN cn runs a thread that lived to the end (its replica survives). */
static bool cn_lives(const wl_env_t *e, const megalon_t *m, unsigned cn)
{
    for (unsigned u = 0; u < m->s.nthreads; u++)
        if (m->s.thread_cn[u] == cn && wl_env_alive(e, u))
            return true;
    return false;
}

/* Key's record (in a live replica) is locked by a thread lost with a failed CN that nobody needed
 * since: the write it was doing took effect in part (in memory, unannounced) until a survivor takes
 * the lock over. */
static bool held_by_lost(wl_env_t *e, const void *state, uint64_t key)
{
    const megalon_t *m = state;
    for (unsigned i = 0; i < m->s.nown; i++) {
        const unsigned cn = m->s.own_cn[i];
        if (!cn_lives(e, m, cn))
            continue;
        const uint64_t r1 = MW_RID(e->ops->peek(e, cn, map_at(m, cn, key)));
        if (!r1)
            return false;
        const uint64_t r = e->ops->peek(e, 0, rec_at(m, r1 - 1));
        return (r & R_LOCK) && r_holder(r) && r_holder(r) <= m->s.nthreads && !wl_env_alive(e, r_holder(r) - 1);
    }
    return false;
}

static int mg_check(wl_env_t *e, void *state, char *err)
{
    const megalon_t *m = state;
    if (share_check(e, &m->s, held_by_lost, m, err))
        return -1;
    /* Every live CN applied the whole log, and their replicas agree: with each other, with the
     * objects (deleted ones, their versions and writers), with the bitmap (a record in use exactly
     * when some key maps to it) and with the reverse maps; no record is left locked. With threads
     * lost with a failed CN: its replica is gone with its memory, a record it was taking may keep
     * its bit unmapped, and a lock it held that nobody needed since may stay. */
    const unsigned lost = wl_env_lost(e);
    const uint64_t tail = e->ops->peek(e, 0, m->tail);
    uint8_t *used = calloc(m->nrec ? m->nrec : 1, 1);
    if (!used)
        return wl_errf(err, "megalon: check: out of host memory");
    int rc = 0, first = 1;
    unsigned cn0 = 0;
    for (unsigned i = 0; i < m->s.nown && !rc; i++) {
        unsigned cn = m->s.own_cn[i];
        if (!cn_lives(e, m, cn))
            continue;
        if (first)
            cn0 = cn;
        uint64_t a = e->ops->peek(e, cn, m->repl[cn] + 8), pub = e->ops->peek(e, 0, m->applied + LINE * i);
        if (a != tail || pub != tail)
            rc = wl_errf(err, "megalon: CN %u applied %llu entries (published %llu) of %llu", cn,
                         (unsigned long long)a, (unsigned long long)pub, (unsigned long long)tail);
        for (uint64_t key = 0; key < m->s.nobj && !rc; key++) {
            uint64_t w = e->ops->peek(e, cn, map_at(m, cn, key)), w0 = e->ops->peek(e, cn0, map_at(m, cn0, key));
            uint64_t v = MW_RID(w), g = e->ops->peek(e, cn, gone_at(m, cn, key));
            uint64_t hs = e->ops->peek(e, 0, share_obj(&m->s, key) + 8);
            if (g != (hs & SHARE_GONE ? (hs & ~SHARE_GONE) + 1 : 0) && !held_by_lost(e, m, key))
                rc = wl_errf(err, "megalon: key %llu: CN %u's replica has it %s (0x%llx), its object %s (state 0x%llx)",
                             (unsigned long long)key, cn, g ? "deleted" : "present", (unsigned long long)g,
                             hs & SHARE_GONE ? "deleted" : "present", (unsigned long long)hs);
            else if (w != w0)
                rc = wl_errf(err, "megalon: key %llu: CN %u's replica word is 0x%llx, CN %u's 0x%llx",
                             (unsigned long long)key, cn, (unsigned long long)w, cn0, (unsigned long long)w0);
            else if (v && (v > m->nrec || e->ops->peek(e, cn, rev_at(m, cn, v - 1)) != key + 1))
                rc = wl_errf(err, "megalon: key %llu maps record %llu, whose reverse is not the key on CN %u",
                             (unsigned long long)key, (unsigned long long)(v - 1), cn);
            else if (v && first) {
                if (used[v - 1])
                    rc = wl_errf(err, "megalon: record %llu maps two keys", (unsigned long long)(v - 1));
                used[v - 1] = 1;
            }
        }
        first = 0;
    }
    for (uint64_t rid = 0; rid < m->nrec && !rc; rid++) {
        uint64_t w = e->ops->peek(e, 0, m->bitmap + 8 * (rid / 64)), r = e->ops->peek(e, 0, rec_at(m, rid));
        const bool bit = w >> (rid % 64) & 1, held_by_lost = (r & R_LOCK) && lost && r_holder(r) &&
                                                             r_holder(r) <= m->s.nthreads &&
                                                             !wl_env_alive(e, r_holder(r) - 1);
        if (((r & R_LOCK) && !held_by_lost) || (!(r & R_LOCK) && r_holder(r)) || (used[rid] && !bit) ||
            (bit && !used[rid] && !lost))
            rc = wl_errf(err, "megalon: record %llu: word 0x%llx, in the bitmap %d, mapped %d",
                         (unsigned long long)rid, (unsigned long long)r, (int)bit, used[rid]);
    }
    if (!rc && m->nrec % 64 && e->ops->peek(e, 0, m->bitmap + 8 * (m->nrec / 64)) >> (m->nrec % 64))
        rc = wl_errf(err, "megalon: the bitmap has bits beyond its %llu records", (unsigned long long)m->nrec);
    if (!rc)
        rc = share_done_check(e, &m->s, m->done, "megalon", err);
    /* Each record's counter moved once per write under it, per eviction, per allocation that lost
     * and per takeover (not checked with threads lost: a lost thread's steps and the statistics it
     * kept may part at any point). */
    uint64_t csum = 0;
    for (uint64_t rid = 0; rid < m->nrec; rid++)
        csum += r_count(e->ops->peek(e, 0, rec_at(m, rid)));
    const uint64_t writes = *m->s.stat[SHARE_PUTS] + *m->s.stat[SHARE_INSERTS] + *m->s.stat[SHARE_DELETES];
    const uint64_t want = writes + *m->stat[M_EVICTIONS] + *m->stat[M_LOST] + *m->stat[M_TAKEOVERS];
    if (!rc && !lost && csum != want)
        rc = wl_errf(err, "megalon: the records' counters add up to %llu, not %llu writes + %llu evictions + %llu "
                     "lost allocations + %llu takeovers", (unsigned long long)csum, (unsigned long long)writes,
                     (unsigned long long)*m->stat[M_EVICTIONS], (unsigned long long)*m->stat[M_LOST],
                     (unsigned long long)*m->stat[M_TAKEOVERS]);
    /* (a lost thread may have moved the hand or the head and not its statistic) */
    const uint64_t hand = e->ops->peek(e, 0, m->hand), head = e->ops->peek(e, 0, m->head);
    if (!rc && (lost ? hand < *m->stat[M_CLOCK] || head < *m->stat[M_GC_HEAD]
                     : hand != *m->stat[M_CLOCK] || head != *m->stat[M_GC_HEAD]))
        rc = wl_errf(err, "megalon: the clock hand is %llu after %llu looks, the log's head %llu after releasing %llu",
                     (unsigned long long)e->ops->peek(e, 0, m->hand), (unsigned long long)*m->stat[M_CLOCK],
                     (unsigned long long)e->ops->peek(e, 0, m->head), (unsigned long long)*m->stat[M_GC_HEAD]);
    /* The ring holds the last entries appended (or filled), as written. */
    for (uint64_t j = 0; j < m->nent && j < tail && !rc; j++)
        for (unsigned w = 0; w < 4 && !rc; w++) {
            uint64_t got = e->ops->peek(e, 0, m->log + LINE * j + 8 * w);
            if (got != m->shadow[4 * j + w])
                rc = wl_errf(err, "megalon: log slot %llu's word %u is 0x%llx, appended as 0x%llx", (unsigned long long)j,
                             w, (unsigned long long)got, (unsigned long long)m->shadow[4 * j + w]);
        }
    /* (with threads lost, entries they claimed may have been filled by several survivors at once) */
    const uint64_t claimed = *m->stat[M_APPENDS] + (lost ? 0 : *m->stat[M_NOPS]);
    if (!rc && (lost ? tail < claimed : tail != claimed))
        rc = wl_errf(err, "megalon: the log's tail is %llu after %llu appends and %llu no-ops", (unsigned long long)tail,
                     (unsigned long long)*m->stat[M_APPENDS], (unsigned long long)*m->stat[M_NOPS]);
    free(used);
    return rc;
}

const workload_t wl_megalon = {
    .name = "megalon",
    .doc = "Megalon: objects in the LNR, index replicas in local memory kept by a shared log, coherence records in "
           "the SCR only for objects written",
    .setup = mg_setup,
    .thread = mg_thread,
    .check = mg_check,
    .free = mg_free,
};
