#include "lu_zlib.h"

#include "hostprof.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Steps (records) a pool thread compresses before it looks again for the stream needed soonest. */
#define SLICE 32u
/* A waiting thread's turns between yields (as worker.c: on a loaded machine, it lets the thread it
 * waits for run instead of spinning out its time slice). */
#define YIELD_EVERY 64u

/* A stream compressed ahead. Steps are its records, then its end (n + 1 in all). The thread that
 * holds `claimed` (a pool thread, or the owner helping) owns the engine's z_stream and writes its
 * output buffer from `cur` on; the owner reads the output up to olen[k] once done > k. */
struct lu_zlib_ahead {
    lu_zlib_t *z;
    uint8_t *recs;         /* the records announced: n x LU_ZLIB_REC bytes */
    size_t n;
    uint32_t *olen;        /* [k]: the stream's output bytes after step k */
    size_t cur;            /* output bytes so far (the claimant's) */
    lu_zlib_ahead_t *next; /* the pool's list (under its lock) */
    _Alignas(64) size_t done; /* steps done (stored with release by the claimant) */
    size_t need;           /* steps the owner has reached (a priority only: relaxed) */
    _Alignas(64) uint32_t claimed; /* a thread compresses it (taken by compare-and-swap) */
    uint32_t cancel;       /* the owner dropped it: stop before the next step */
};

struct lu_zlib_pool {
    pthread_mutex_t mu;
    pthread_cond_t work;   /* a stream was announced, or the pool stops */
    lu_zlib_ahead_t *list; /* the streams announced (under mu) */
    bool stop;
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

int lu_zlib_init(lu_zlib_t *z, int level, lu_zlib_pool_t *pool)
{
    memset(z, 0, sizeof *z);
    z->level = level;
    z->pool = pool;
    return deflateInit(&z->z, level) == Z_OK ? 0 : -1;
}

/* ---------------------------------------------------------------------------------------------
 * Compressing ahead */

static bool claim(lu_zlib_ahead_t *a)
{
    uint32_t free_ = 0;
    return __atomic_compare_exchange_n(&a->claimed, &free_, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

static void unclaim(lu_zlib_ahead_t *a) { __atomic_store_n(&a->claimed, 0, __ATOMIC_RELEASE); }

static void spin(unsigned i)
{
    if (i % YIELD_EVERY == 0)
        sched_yield();
    else
        __builtin_ia32_pause();
}

/* The claimant: steps until `upto` are done, or the owner cancels. The same deflate calls as
 * push_here and lu_zlib_finish, into a buffer that holds the whole stream (lu_zlib_expect). */
static void ahead_run(lu_zlib_ahead_t *a, size_t upto)
{
    lu_zlib_t *z = a->z;
    size_t d = a->done;
    while (d < upto && !__atomic_load_n(&a->cancel, __ATOMIC_RELAXED)) {
        z->z.next_out = z->out + a->cur;
        z->z.avail_out = (uInt)(z->out_cap - a->cur);
        int rc;
        if (d < a->n) {
            z->z.next_in = a->recs + d * LU_ZLIB_REC;
            z->z.avail_in = LU_ZLIB_REC;
            rc = deflate(&z->z, Z_NO_FLUSH);
        } else {
            z->z.next_in = NULL;
            z->z.avail_in = 0;
            rc = deflate(&z->z, Z_FINISH) == Z_STREAM_END ? Z_OK : Z_STREAM_ERROR;
        }
        if (rc != Z_OK || z->z.avail_out == 0) {
            fprintf(stderr, "lu_zlib: deflate ahead: %s at record %zu of %zu\n",
                    rc != Z_OK ? "stream error" : "output past deflateBound", d, a->n);
            abort();
        }
        a->cur = z->out_cap - z->z.avail_out;
        a->olen[d] = (uint32_t)a->cur;
        __atomic_store_n(&a->done, ++d, __ATOMIC_RELEASE);
    }
}

/* The owner: returns once `steps` steps are done, compressing them itself while no pool thread is
 * at the stream. */
static void ahead_wait(lu_zlib_ahead_t *a, size_t steps)
{
    __atomic_store_n(&a->need, steps, __ATOMIC_RELAXED);
    if (__atomic_load_n(&a->done, __ATOMIC_ACQUIRE) >= steps)
        return;
    hostprof_zone_e prev = hostprof_enter(HOSTPROF_WAIT);
    for (unsigned i = 1; __atomic_load_n(&a->done, __ATOMIC_ACQUIRE) < steps; i++) {
        if (claim(a)) {
            hostprof_enter(HOSTPROF_MODELS);
            ahead_run(a, steps);
            unclaim(a);
            hostprof_enter(HOSTPROF_WAIT);
        } else
            spin(i);
    }
    hostprof_leave(prev);
}

/* The owner: takes the stream out of the pool and waits until no thread works on it; returns it
 * (to be freed by ahead_free). */
static lu_zlib_ahead_t *ahead_stop(lu_zlib_t *z)
{
    lu_zlib_ahead_t *a = z->ah;
    lu_zlib_pool_t *p = z->pool;
    __atomic_store_n(&a->cancel, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&p->mu);
    for (lu_zlib_ahead_t **pp = &p->list; *pp; pp = &(*pp)->next)
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 1; __atomic_load_n(&a->claimed, __ATOMIC_ACQUIRE); i++)
        spin(i);
    z->ah = NULL;
    return a;
}

static void ahead_free(lu_zlib_ahead_t *a)
{
    free(a->recs);
    free(a->olen);
    free(a);
}

/* The records that came are not those announced: the stream's records so far (the announced ones,
 * all of them equal so far) are compressed again here, and the stream goes on without the pool. The
 * output is the same bytes the owner has seen (those handed out stay handed out). */
static void miss(lu_zlib_t *z)
{
    lu_zlib_ahead_t *a = ahead_stop(z);
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
    ahead_free(a);
}

bool lu_zlib_expecting(const lu_zlib_t *z) { return z->pool && !z->ah && z->n_in == 0 && !z->finished; }

void lu_zlib_expect(lu_zlib_t *z, const uint8_t *recs, size_t n)
{
    if (!lu_zlib_expecting(z) || z->out_n != 0) {
        fprintf(stderr, "lu_zlib: records announced to a stream under way\n");
        abort();
    }
    if (n == 0)
        return;
    size_t cap = (size_t)deflateBound(&z->z, (uLong)(n * LU_ZLIB_REC)) + 4096;
    if (cap > UINT32_MAX)
        return; /* olen's lengths would not fit: compressed here */
    lu_zlib_ahead_t *a = calloc(1, sizeof *a);
    if (!a || !(a->recs = malloc(n * LU_ZLIB_REC)) || !(a->olen = malloc((n + 1) * sizeof *a->olen)))
        abort();
    memcpy(a->recs, recs, n * LU_ZLIB_REC);
    a->n = n;
    a->z = z;
    if (z->out_cap < cap) {
        z->out = realloc(z->out, cap);
        if (!z->out)
            abort();
        z->out_cap = cap;
    }
    z->ah = a;
    lu_zlib_pool_t *p = z->pool;
    pthread_mutex_lock(&p->mu);
    a->next = p->list;
    p->list = a;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
}

uint64_t lu_zlib_missed(const lu_zlib_t *z) { return z->missed; }

/* ---------------------------------------------------------------------------------------------
 * The engine */

void lu_zlib_free(lu_zlib_t *z)
{
    if (z->ah)
        ahead_free(ahead_stop(z));
    deflateEnd(&z->z);
    free(z->out);
}

void lu_zlib_push(lu_zlib_t *z, const uint8_t rec[LU_ZLIB_REC])
{
    lu_zlib_ahead_t *a = z->ah;
    if (a && (z->n_in >= a->n || memcmp(rec, a->recs + z->n_in * LU_ZLIB_REC, LU_ZLIB_REC) != 0)) {
        miss(z);
        a = NULL;
    }
    size_t k = z->n_in++;
    z->in_bytes += LU_ZLIB_REC;
    if (!a) {
        push_here(z, rec);
        return;
    }
    ahead_wait(a, k + 1);
    z->out_n = a->olen[k];
}

void lu_zlib_finish(lu_zlib_t *z)
{
    if (z->ah && z->n_in != z->ah->n)
        miss(z);
    if (z->ah) {
        lu_zlib_ahead_t *a = z->ah;
        ahead_wait(a, a->n + 1);
        z->out_n = a->olen[a->n];
        ahead_free(ahead_stop(z));
        z->finished = true;
        return;
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
        /* The dump's stream is out: the next dump starts a new one. */
        z->out_n = z->out_rd = 0;
        z->n_in = 0;
        z->finished = false;
        deflateReset(&z->z);
    }
}

/* ---------------------------------------------------------------------------------------------
 * The pool */

static void *pool_run(void *arg)
{
    lu_zlib_pool_t *p = arg;
    sigset_t set; /* as worker.c: the main thread handles the asynchronous signals */
    sigfillset(&set);
    sigdelset(&set, SIGPROF);
    sigdelset(&set, SIGSEGV);
    sigdelset(&set, SIGBUS);
    sigdelset(&set, SIGFPE);
    sigdelset(&set, SIGILL);
    sigdelset(&set, SIGABRT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        /* The stream with steps left, no thread at it, and the least lead over its owner. */
        lu_zlib_ahead_t *best = NULL;
        long best_lead = 0;
        for (lu_zlib_ahead_t *a = p->list; a; a = a->next) {
            size_t d = __atomic_load_n(&a->done, __ATOMIC_ACQUIRE);
            if (d > a->n || __atomic_load_n(&a->claimed, __ATOMIC_RELAXED))
                continue;
            long lead = (long)d - (long)__atomic_load_n(&a->need, __ATOMIC_RELAXED);
            if (!best || lead < best_lead)
                best = a, best_lead = lead;
        }
        if (!best) {
            pthread_cond_wait(&p->work, &p->mu);
            continue;
        }
        if (!claim(best)) { /* the owner is at it */
            pthread_mutex_unlock(&p->mu);
            sched_yield();
            pthread_mutex_lock(&p->mu);
            continue;
        }
        pthread_mutex_unlock(&p->mu);
        ahead_run(best, best->done + SLICE < best->n + 1 ? best->done + SLICE : best->n + 1);
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
