#include "drv/lu_zlib.h"

#include "base/config.h"
#include "base/hostprof.h"
#include "base/worker.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(LU_ZLIB_MAX_THREADS == CONFIG_MAX_ZLIB_THREADS, "sim.zlib_threads' range in the configuration");

/* Steps (records) a pool thread compresses before it looks again for the stream needed soonest. */
#define SLICE 32u

/* The records announced for an engine's next (or current) stream and their compression ahead.
 * The thread that holds `claimed` (a pool thread, or the owner) owns the engine's z_stream and
 * writes its output buffer from `cur` on; the owner reads the output up to olen[k] once done > k,
 * and holds the claim while the stream is compressed here (lu_zlib_t.here). */
struct lu_zlib_ahead {
    lu_zlib_t *z;
    uint8_t *recs;         /* announced records: cap x LU_ZLIB_REC bytes */
    uint32_t *olen;        /* [k]: the stream's output bytes after record k */
    size_t cap;
    size_t cur;            /* output bytes so far (the claimant's) */
    lu_zlib_ahead_t *next; /* the pool's list (under its lock) */
    _Alignas(64) size_t n; /* records announced (stored with release by the owner) */
    _Alignas(64) size_t done; /* records compressed (stored with release by the claimant) */
    size_t need;           /* records the owner has reached (a priority only: relaxed) */
    _Alignas(64) uint32_t claimed; /* taken by compare-and-swap */
};

struct lu_zlib_pool {
    pthread_mutex_t mu;
    pthread_cond_t work;   /* records were announced, or the pool stops */
    lu_zlib_ahead_t *list; /* the engines using the pool (under mu) */
    bool stop;
    uint32_t sleepers;     /* threads waiting on `work` (changed under mu, read without) */
    unsigned nthreads;
    pthread_t th[LU_ZLIB_MAX_THREADS];
};

static void reserve(lu_zlib_t *z, size_t more)
{
    if (z->out_n + more <= z->out_cap)
        return;
    if (z->out_rd) { /* drop what was handed out */
        memmove(z->out, z->out + z->out_rd, z->out_n - z->out_rd);
        z->out_n -= z->out_rd;
        z->out_rd = 0;
    }
    while (z->out_n + more > z->out_cap)
        z->out_cap = z->out_cap ? 2 * z->out_cap : 4096;
    z->out = realloc(z->out, z->out_cap);
    if (!z->out)
        abort();
}

/* Runs deflate on the pending input with flush mode `flush`, appending all output. */
static void run(lu_zlib_t *z, int flush)
{
    do {
        reserve(z, 4096);
        z->z.next_out = z->out + z->out_n;
        z->z.avail_out = (uInt)(z->out_cap - z->out_n);
        int rc = deflate(&z->z, flush);
        if (rc == Z_STREAM_ERROR)
            abort();
        z->out_n = z->out_cap - z->z.avail_out;
    } while (z->z.avail_out == 0);
}

/* The record into the stream, compressed here (no stream ahead). */
static void push_here(lu_zlib_t *z, const uint8_t rec[LU_ZLIB_REC])
{
    z->z.next_in = (Bytef *)rec;
    z->z.avail_in = LU_ZLIB_REC;
    run(z, Z_NO_FLUSH);
}

static void ahead_attach(lu_zlib_t *z, size_t cap);

int lu_zlib_init(lu_zlib_t *z, int level, lu_zlib_pool_t *pool, size_t max_recs)
{
    memset(z, 0, sizeof *z);
    z->level = level;
    if (deflateInit(&z->z, level) != Z_OK)
        return -1;
    if (pool && max_recs) {
        z->pool = pool;
        ahead_attach(z, max_recs);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Compressing ahead */

static bool claim(lu_zlib_ahead_t *a)
{
    uint32_t free_ = 0;
    return __atomic_compare_exchange_n(&a->claimed, &free_, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

static void unclaim(lu_zlib_ahead_t *a) { __atomic_store_n(&a->claimed, 0, __ATOMIC_RELEASE); }

/* The owner: takes the claim, waiting for a pool thread's slice to end. */
static void claim_wait(lu_zlib_ahead_t *a)
{
    for (unsigned i = 1; !claim(a); i++)
        worker_spin(i);
}

/* The claimant: compresses records until `upto` are done, with the calls push_here makes, into a
 * buffer that holds a whole stream (ahead_attach). */
static void ahead_run(lu_zlib_ahead_t *a, size_t upto)
{
    lu_zlib_t *z = a->z;
    for (size_t d = a->done; d < upto; d++) {
        z->z.next_in = a->recs + d * LU_ZLIB_REC;
        z->z.avail_in = LU_ZLIB_REC;
        z->z.next_out = z->out + a->cur;
        z->z.avail_out = (uInt)(z->out_cap - a->cur);
        if (deflate(&z->z, Z_NO_FLUSH) != Z_OK || z->z.avail_out == 0) {
            fprintf(stderr, "lu_zlib: deflate ahead failed at record %zu (%s)\n", d,
                    z->z.avail_out ? "stream error" : "output past deflateBound");
            abort();
        }
        a->cur = z->out_cap - z->z.avail_out;
        a->olen[d] = (uint32_t)a->cur;
        __atomic_store_n(&a->done, d + 1, __ATOMIC_RELEASE);
    }
}

/* The owner: returns once `recs` records are compressed, compressing them itself while no pool
 * thread is at the stream. */
static void ahead_wait(lu_zlib_ahead_t *a, size_t recs)
{
    __atomic_store_n(&a->need, recs, __ATOMIC_RELAXED);
    if (__atomic_load_n(&a->done, __ATOMIC_ACQUIRE) >= recs)
        return;
    hostprof_zone_e prev = hostprof_enter(HOSTPROF_WAIT);
    for (unsigned i = 1; __atomic_load_n(&a->done, __ATOMIC_ACQUIRE) < recs; i++) {
        if (claim(a)) {
            hostprof_enter(HOSTPROF_MODELS);
            ahead_run(a, recs);
            unclaim(a);
            hostprof_enter(HOSTPROF_WAIT);
        } else
            worker_spin(i);
    }
    hostprof_leave(prev);
}

/* The engine's records announced and compressed ahead: room for streams of cap records and their
 * output, taken from the system as it is touched (a pool thread writes the output buffer, so it is
 * never reallocated while a stream is compressed ahead). */
static void ahead_attach(lu_zlib_t *z, size_t cap)
{
    size_t out = (size_t)deflateBound(&z->z, (uLong)(cap * LU_ZLIB_REC)) + 4096;
    if (out > UINT32_MAX || cap > SIZE_MAX / LU_ZLIB_REC) {
        z->pool = NULL; /* olen's lengths would not fit: compressed here */
        return;
    }
    lu_zlib_ahead_t *a = aligned_alloc(64, (sizeof *a + 63) / 64 * 64);
    if (!a)
        abort();
    memset(a, 0, sizeof *a);
    a->z = z;
    a->cap = cap;
    a->recs = malloc(cap * LU_ZLIB_REC);
    a->olen = malloc(cap * sizeof *a->olen);
    z->out = malloc(out);
    if (!a->recs || !a->olen || !z->out)
        abort();
    z->out_cap = out;
    z->ah = a;
    lu_zlib_pool_t *p = z->pool;
    pthread_mutex_lock(&p->mu);
    a->next = p->list;
    p->list = a;
    pthread_mutex_unlock(&p->mu);
}

/* The records that came are not those announced: the owner takes the stream (and keeps it until
 * the stream ends), compresses its records so far (all of them announced ones) again, and goes on
 * without the pool. The output is the same bytes the owner has seen (those handed out stay
 * handed out). */
static void miss(lu_zlib_t *z)
{
    lu_zlib_ahead_t *a = z->ah;
    claim_wait(a);
    z->here = true;
    size_t seen = z->out_n, rd = z->out_rd;
    deflateReset(&z->z);
    z->out_n = z->out_rd = 0;
    for (size_t i = 0; i < z->n_in; i++)
        push_here(z, a->recs + i * LU_ZLIB_REC);
    if (z->out_n != seen) {
        fprintf(stderr, "lu_zlib: %zu records compressed again give %zu bytes, not %zu\n", z->n_in, z->out_n, seen);
        abort();
    }
    z->out_rd = rd;
    z->missed++;
}

void lu_zlib_announce(lu_zlib_t *z, const uint8_t rec[LU_ZLIB_REC])
{
    lu_zlib_ahead_t *a = z->ah;
    if (!a || z->here || z->n_in || z->finished || a->n == a->cap)
        return;
    memcpy(a->recs + a->n * LU_ZLIB_REC, rec, LU_ZLIB_REC);
    __atomic_store_n(&a->n, a->n + 1, __ATOMIC_RELEASE);
    lu_zlib_pool_t *p = z->pool;
    if (a->n % SLICE == 0 && __atomic_load_n(&p->sleepers, __ATOMIC_RELAXED)) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_signal(&p->work);
        pthread_mutex_unlock(&p->mu);
    }
}

uint64_t lu_zlib_missed(const lu_zlib_t *z) { return z->missed; }

/* ---------------------------------------------------------------------------------------------
 * The engine */

void lu_zlib_free(lu_zlib_t *z)
{
    lu_zlib_ahead_t *a = z->ah;
    if (a) {
        lu_zlib_pool_t *p = z->pool;
        pthread_mutex_lock(&p->mu);
        for (lu_zlib_ahead_t **pp = &p->list; *pp; pp = &(*pp)->next)
            if (*pp == a) {
                *pp = a->next;
                break;
            }
        pthread_mutex_unlock(&p->mu);
        if (!z->here)
            claim_wait(a); /* no pool thread is at it any more */
        free(a->recs);
        free(a->olen);
        free(a);
    }
    deflateEnd(&z->z);
    free(z->out);
}

void lu_zlib_push(lu_zlib_t *z, const uint8_t rec[LU_ZLIB_REC])
{
    lu_zlib_ahead_t *a = z->ah;
    if (a && !z->here) {
        if (z->n_in < a->n && memcmp(rec, a->recs + z->n_in * LU_ZLIB_REC, LU_ZLIB_REC) == 0) {
            ahead_wait(a, z->n_in + 1);
            z->out_n = a->olen[z->n_in++];
            z->in_bytes += LU_ZLIB_REC;
            return;
        }
        miss(z);
    }
    z->n_in++;
    z->in_bytes += LU_ZLIB_REC;
    push_here(z, rec);
}

void lu_zlib_finish(lu_zlib_t *z)
{
    lu_zlib_ahead_t *a = z->ah;
    if (a && !z->here) {
        if (z->n_in != a->n)
            miss(z); /* records announced that did not come */
        else {
            /* Every record came and was compressed (each push waited for its own): the rest is
             * done here, in the owner's buffer, as without a pool. */
            claim_wait(a);
            z->here = true;
        }
    }
    z->z.next_in = NULL;
    z->z.avail_in = 0;
    for (;;) {
        reserve(z, 4096);
        z->z.next_out = z->out + z->out_n;
        z->z.avail_out = (uInt)(z->out_cap - z->out_n);
        int rc = deflate(&z->z, Z_FINISH);
        z->out_n = z->out_cap - z->z.avail_out;
        if (rc == Z_STREAM_END)
            break;
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            abort();
    }
    z->finished = true;
}

bool lu_zlib_peek(const lu_zlib_t *z, uint8_t chunk[LU_ZLIB_CHUNK], bool *last)
{
    size_t avail = z->out_n - z->out_rd;
    *last = false;
    memset(chunk, 0, LU_ZLIB_CHUNK);
    if (avail >= LU_ZLIB_CHUNK) {
        memcpy(chunk, z->out + z->out_rd, LU_ZLIB_CHUNK);
        *last = z->finished && avail == LU_ZLIB_CHUNK;
        return true;
    }
    if (z->finished && avail > 0) {
        memcpy(chunk, z->out + z->out_rd, avail);
        *last = true;
        return true;
    }
    return false;
}

void lu_zlib_pop(lu_zlib_t *z)
{
    size_t avail = z->out_n - z->out_rd, take = avail < LU_ZLIB_CHUNK ? avail : LU_ZLIB_CHUNK;
    z->out_rd += take;
    z->out_bytes += LU_ZLIB_CHUNK;
    if (z->finished && z->out_rd == z->out_n) {
        /* The dump's stream is out: the next dump starts a new one (with the pool's threads, whose
         * claim the owner holds since the end, back at it as records are announced). */
        z->out_n = z->out_rd = 0;
        z->n_in = 0;
        z->finished = false;
        deflateReset(&z->z);
        lu_zlib_ahead_t *a = z->ah;
        if (a) {
            __atomic_store_n(&a->n, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&a->done, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&a->need, 0, __ATOMIC_RELAXED);
            a->cur = 0;
            z->here = false;
            unclaim(a);
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * The pool */

static void *pool_run(void *arg)
{
    lu_zlib_pool_t *p = arg;
    worker_block_signals();
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        /* The engine with records to compress, no thread at it, and the least lead over its owner. */
        lu_zlib_ahead_t *best = NULL;
        long best_lead = 0;
        for (lu_zlib_ahead_t *a = p->list; a; a = a->next) {
            size_t d = __atomic_load_n(&a->done, __ATOMIC_RELAXED);
            if (d >= __atomic_load_n(&a->n, __ATOMIC_ACQUIRE) || __atomic_load_n(&a->claimed, __ATOMIC_RELAXED))
                continue;
            long lead = (long)d - (long)__atomic_load_n(&a->need, __ATOMIC_RELAXED);
            if (!best || lead < best_lead)
                best = a, best_lead = lead;
        }
        if (!best) {
            __atomic_add_fetch(&p->sleepers, 1, __ATOMIC_RELAXED);
            pthread_cond_wait(&p->work, &p->mu);
            __atomic_sub_fetch(&p->sleepers, 1, __ATOMIC_RELAXED);
            continue;
        }
        if (!claim(best)) { /* its owner took it */
            pthread_mutex_unlock(&p->mu);
            sched_yield();
            pthread_mutex_lock(&p->mu);
            continue;
        }
        pthread_mutex_unlock(&p->mu);
        /* Under the claim, done and n are the stream's own (the owner resets them under it). */
        size_t n = __atomic_load_n(&best->n, __ATOMIC_ACQUIRE);
        ahead_run(best, best->done + SLICE < n ? best->done + SLICE : n);
        unclaim(best);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

lu_zlib_pool_t *lu_zlib_pool_create(unsigned threads)
{
    if (threads < 1 || threads > LU_ZLIB_MAX_THREADS) {
        errno = EINVAL;
        return NULL;
    }
    lu_zlib_pool_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    for (; p->nthreads < threads; p->nthreads++) {
        int e = pthread_create(&p->th[p->nthreads], NULL, pool_run, p);
        if (e) {
            lu_zlib_pool_free(p);
            errno = e;
            return NULL;
        }
    }
    return p;
}

void lu_zlib_pool_free(lu_zlib_pool_t *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->nthreads; i++)
        pthread_join(p->th[i], NULL);
    if (p->list) {
        fprintf(stderr, "lu_zlib: a pool freed before an engine that uses it\n");
        abort();
    }
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
