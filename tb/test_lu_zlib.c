/* Tests of the Logging Unit's compression engine (csim/drv/lu_zlib) compressing ahead: with a pool of
 * host threads, an engine hands out, after every record, end and chunk taken, the chunks the plain
 * engine does, whether the records announced are those that come or not (a record that differs,
 * fewer or more records, none, more than the engine keeps, records announced during a stream), at
 * levels 9, 6, 1 and 0; the streams it could not compress ahead are counted; an engine freed in
 * the middle of a stream compressed ahead stops its pool's work; and a pool of no thread or too
 * many is refused. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "drv/lu_drv.h"
#include "drv/lu_zlib.h"
#include "sb/mn_lu.h"
#include "tb_seed.h"

/* How the records announced for a stream relate to those that come. */
typedef enum { ANN_SAME, ANN_NONE, ANN_OTHER, ANN_FEWER, ANN_MORE, ANN_KINDS } ann_e;

typedef struct stream {
    uint8_t *rec; /* the records that come */
    size_t n, pushed;
    bool ended;
} stream_t;

/* n records as a LU logs them: few lines and small values (long matches, as in real logs), with
 * `noise` random bytes of value in each (blocks then end inside the stream). */
static void make_stream(rng_t *r, stream_t *s, size_t n, unsigned noise)
{
    s->n = n;
    s->pushed = 0;
    s->ended = false;
    s->rec = malloc(n * LU_ZLIB_REC + 1);
    cr_assert_not_null(s->rec);
    for (size_t i = 0; i < n; i++) {
        lu_rec_t x = {.value = rng_below(r, 1000), .line = 0x4000 + rng_below(r, 64) * 0x111,
                      .word = (unsigned)rng_below(r, 8), .ts = (unsigned)(i & 0x7f), .cn = (unsigned)rng_below(r, 4),
                      .core = (unsigned)rng_below(r, 4), .written = true};
        if (noise)
            x.value ^= rng_next(r) >> (64 - 8 * noise);
        uint32_t w[4];
        lu_rec_pack(&x, w);
        memcpy(s->rec + i * LU_ZLIB_REC, w, LU_ZLIB_REC);
    }
}

/* Announces the stream's records to the pooled engine as `kind` says, keeping at most cap of
 * them as the engine does; true when the records kept are not the stream's. */
static bool announce(rng_t *r, lu_zlib_t *z, const stream_t *s, ann_e kind, size_t cap)
{
    size_t n = s->n;
    uint8_t *a = malloc((n + 8) * LU_ZLIB_REC);
    cr_assert_not_null(a);
    memcpy(a, s->rec, n * LU_ZLIB_REC);
    switch (kind) {
    case ANN_NONE:
        n = 0;
        break;
    case ANN_OTHER:
        if (n)
            a[rng_below(r, n) * LU_ZLIB_REC + rng_below(r, LU_ZLIB_REC)] ^= (uint8_t)(1u << rng_below(r, 8));
        break;
    case ANN_FEWER:
        if (n)
            n -= 1 + rng_below(r, n);
        break;
    case ANN_MORE:
        for (unsigned i = 0; i < 1 + rng_below(r, 8); i++, n++)
            for (unsigned b = 0; b < LU_ZLIB_REC; b++)
                a[n * LU_ZLIB_REC + b] = (uint8_t)rng_below(r, 4);
        break;
    default:
        break;
    }
    for (size_t i = 0; i < n; i++)
        lu_zlib_announce(z, a + i * LU_ZLIB_REC);
    if (n > cap)
        n = cap;
    const bool differ = n != s->n || memcmp(a, s->rec, n * LU_ZLIB_REC) != 0;
    free(a);
    return differ;
}

/* The two engines offer the same chunk, or none; returns whether they offer one. */
static bool same_offer(uint64_t seed, int level, unsigned e, const lu_zlib_t *a, const lu_zlib_t *b, const stream_t *s)
{
    uint8_t ca[LU_ZLIB_CHUNK], cb[LU_ZLIB_CHUNK];
    bool la, lb;
    const bool va = lu_zlib_peek(a, ca, &la), vb = lu_zlib_peek(b, cb, &lb);
    cr_assert(va == vb && la == lb && memcmp(ca, cb, sizeof ca) == 0,
              "seed=%llu level %d engine %u: after %zu of %zu records%s, the pooled engine offers %s%s, the plain "
              "one %s%s",
              (unsigned long long)seed, level, e, s->pushed, s->n, s->ended ? " and the end" : "", vb ? "a chunk" : "none",
              lb ? " (last)" : "", va ? "a chunk" : "none", la ? " (last)" : "");
    return va;
}

Test(lu_zlib, with_a_pool_the_chunks_are_those_of_the_plain_engine, .timeout = 120)
{
    const uint64_t seed = tb_seed(11);
    rng_t r;
    rng_init(&r, seed);
    enum { ENGINES = 3, STREAMS = 6, LONGEST = 4000 };
    static const int levels[] = {9, 6, 1, 0};
    static const size_t caps[ENGINES] = {LONGEST + 8, 1000, 4096}; /* records an engine announces */
    for (unsigned round = 0; round < 4; round++) {
        const int level = levels[round];
        const unsigned threads = 1 + (unsigned)rng_below(&r, 3);
        lu_zlib_pool_t *p = lu_zlib_pool_create(threads);
        cr_assert_not_null(p, "seed=%llu: a pool of %u threads", (unsigned long long)seed, threads);
        lu_zlib_t plain[ENGINES], pooled[ENGINES];
        stream_t s[ENGINES];
        unsigned left[ENGINES];
        uint64_t missed[ENGINES] = {0};
        for (unsigned e = 0; e < ENGINES; e++) {
            cr_assert_eq(lu_zlib_init(&plain[e], level, NULL, 0), 0);
            cr_assert_eq(lu_zlib_init(&pooled[e], level, p, caps[e]), 0);
            s[e].rec = NULL;
            s[e].ended = true; /* and its chunks taken: a new stream is due */
            left[e] = STREAMS;
        }
        for (unsigned live = ENGINES; live;) {
            const unsigned e = (unsigned)rng_below(&r, ENGINES);
            lu_zlib_t *a = &plain[e], *b = &pooled[e];
            const bool va = same_offer(seed, level, e, a, b, &s[e]);
            if (s[e].ended && !va) { /* every chunk taken: the next stream */
                free(s[e].rec);
                s[e].rec = NULL;
                if (!left[e]) {
                    s[e].ended = false, live--;
                    continue;
                }
                left[e]--;
                const size_t n = rng_below(&r, 5) == 0 ? rng_below(&r, 4) : rng_below(&r, LONGEST);
                make_stream(&r, &s[e], n, (unsigned)rng_below(&r, 9));
                missed[e] += announce(&r, b, &s[e], (ann_e)rng_below(&r, ANN_KINDS), caps[e]);
                continue;
            }
            if (!s[e].rec)
                continue; /* this engine is done */
            if (rng_chance(&r, 0.05) && (s[e].pushed || s[e].ended)) {
                /* Records announced while a stream is under way are not kept for the next one. */
                uint8_t junk[LU_ZLIB_REC] = {1, 2, 3};
                lu_zlib_announce(b, junk);
            } else if (va && rng_chance(&r, 0.3)) {
                lu_zlib_pop(a);
                lu_zlib_pop(b);
            } else if (s[e].pushed < s[e].n) {
                /* A run of records, as the LU gives them one a cycle. */
                for (unsigned k = 1 + (unsigned)rng_below(&r, 200); k-- && s[e].pushed < s[e].n;) {
                    lu_zlib_push(a, s[e].rec + s[e].pushed * LU_ZLIB_REC);
                    lu_zlib_push(b, s[e].rec + s[e].pushed * LU_ZLIB_REC);
                    s[e].pushed++;
                    same_offer(seed, level, e, a, b, &s[e]);
                }
            } else if (!s[e].ended) {
                lu_zlib_finish(a);
                lu_zlib_finish(b);
                s[e].ended = true;
            }
        }
        for (unsigned e = 0; e < ENGINES; e++) {
            cr_assert_eq(lu_zlib_missed(&pooled[e]), missed[e],
                         "seed=%llu level %d engine %u: %llu streams not compressed ahead, expected %llu",
                         (unsigned long long)seed, level, e, (unsigned long long)lu_zlib_missed(&pooled[e]),
                         (unsigned long long)missed[e]);
            cr_assert_eq(pooled[e].in_bytes, plain[e].in_bytes);
            cr_assert_eq(pooled[e].out_bytes, plain[e].out_bytes);
            cr_assert_gt(plain[e].out_bytes, 0);
            lu_zlib_free(&plain[e]);
            lu_zlib_free(&pooled[e]);
        }
        lu_zlib_pool_free(p);
    }
}

/* A stream announced and left in the middle (its engine freed: a run that ends during a dump), or
 * never begun: the pool stops working on it, and then stops. */
Test(lu_zlib, an_engine_freed_while_its_stream_is_compressed_ahead_stops_the_pools_work, .timeout = 60)
{
    rng_t r;
    rng_init(&r, 5);
    stream_t s;
    make_stream(&r, &s, 20000, 3);
    lu_zlib_pool_t *p = lu_zlib_pool_create(2);
    cr_assert_not_null(p);
    lu_zlib_t z[3];
    for (unsigned e = 0; e < 3; e++) {
        cr_assert_eq(lu_zlib_init(&z[e], 9, p, s.n), 0);
        for (size_t i = 0; i < s.n; i++)
            lu_zlib_announce(&z[e], s.rec + i * LU_ZLIB_REC);
    }
    for (unsigned i = 0; i < 10; i++)
        lu_zlib_push(&z[0], s.rec + i * LU_ZLIB_REC);
    lu_zlib_push(&z[1], s.rec);
    lu_zlib_push(&z[1], s.rec); /* not the second record: compressed again, then without the pool */
    cr_assert_eq(lu_zlib_missed(&z[1]), 1);
    cr_assert_eq(lu_zlib_missed(&z[0]), 0);
    for (unsigned e = 0; e < 3; e++)
        lu_zlib_free(&z[e]);
    lu_zlib_pool_free(p);
    free(s.rec);
}

Test(lu_zlib, a_pool_of_no_thread_or_too_many_is_refused)
{
    errno = 0;
    cr_assert_null(lu_zlib_pool_create(0));
    cr_assert_eq(errno, EINVAL);
    errno = 0;
    cr_assert_null(lu_zlib_pool_create(LU_ZLIB_MAX_THREADS + 1));
    cr_assert_eq(errno, EINVAL);
    lu_zlib_pool_t *p = lu_zlib_pool_create(LU_ZLIB_MAX_THREADS);
    cr_assert_not_null(p);
    lu_zlib_pool_free(p);
    lu_zlib_pool_free(NULL);
}
