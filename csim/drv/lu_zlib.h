/* The Logging Unit's compression engine: a C model of a hardware zlib (deflate) block behind the
 * LU's RTL dump port (DIKTAMO §IV-E: gzip level 9 in the paper). Log records (16 bytes each) go in
 * as the LU extracts them; the compressed stream comes out in 64-byte chunks, the payload of the
 * DUMP_DATA messages. At the end of a dump the stream is finished (zlib format, Adler-32) and its
 * last chunk padded with zeros (inflate stops at the stream's end). The engine then starts a new
 * stream for the next dump.
 *
 * The model is untimed: it takes a record every cycle and its output is available at once: after
 * each record, whatever deflate (called on that record alone, without flushing) has put out.
 *
 * Compressing ahead (host speed only; nothing simulated changes). Level 9 costs the host about 12 µs
 * a record on log records (its hash chains are long: the records share many zero bytes), more than
 * the rest of a DIKTAMO-proactive run. The engine's output after each record decides when the LU
 * may send each chunk, so the compression cannot be batched or lagged; but a dump's records are
 * known long before it: the log's records, oldest first, of the LU's buckets, which the LU appends
 * one by one between dumps. With a pool of host threads (lu_zlib_pool_create), the caller announces
 * each record as the log takes it (lu_zlib_announce), and the pool's threads compress the next
 * stream's records meanwhile, with the same deflate calls, noting the output's length after each.
 * Each record that then goes in is compared with the announced one and takes the output noted for
 * it, waited for if the pool is behind (the waiting thread compresses it itself when no pool thread
 * is at it). A record that differs, or one more than announced, or an end before the last one
 * announced, ends compressing ahead for the stream: the engine compresses its records so far again
 * and goes on as without a pool, so the chunks are always those of the plain engine
 * (lu_zlib_missed counts those streams). Records announced while a stream is under way are not
 * kept (the next stream then misses at its first record, which costs nothing). */
#ifndef LU_ZLIB_H
#define LU_ZLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#define LU_ZLIB_CHUNK 64
#define LU_ZLIB_REC 16
/** Most host threads a pool may have. */
#define LU_ZLIB_MAX_THREADS 64u

typedef struct lu_zlib_pool lu_zlib_pool_t;
typedef struct lu_zlib_ahead lu_zlib_ahead_t;

typedef struct lu_zlib {
    z_stream z;
    int level;
    uint8_t *out; /* compressed bytes not yet handed out (from out_rd) */
    size_t out_n, out_cap, out_rd;
    bool finished; /* the current dump's stream is complete */
    uint64_t in_bytes, out_bytes; /* over all dumps; out_bytes counts whole chunks */
    size_t n_in;                  /* records of the current stream */
    lu_zlib_pool_t *pool;         /* NULL: no compressing ahead */
    lu_zlib_ahead_t *ah;          /* the records announced and compressed ahead (with a pool) */
    bool here;                    /* the current stream is compressed here (ah's claim held) */
    uint64_t missed;              /* streams whose announced records were not those that came */
} lu_zlib_t;

/** Level 0 .. 9; pool NULL, or one that outlives the engine, with streams of at most max_recs
 *  records compressed ahead (longer ones are compressed here). Returns 0, or -1 when zlib
 *  refuses. */
int lu_zlib_init(lu_zlib_t *z, int level, lu_zlib_pool_t *pool, size_t max_recs);
void lu_zlib_free(lu_zlib_t *z);
/** One 16-byte log record into the current dump's stream. */
void lu_zlib_push(lu_zlib_t *z, const uint8_t rec[LU_ZLIB_REC]);
/** End of the dump: the stream is finished; its chunks follow. */
void lu_zlib_finish(lu_zlib_t *z);
/** The oldest chunk ready (false when none): a full 64 bytes, or the padded last one of a finished
 *  stream (*last). */
bool lu_zlib_peek(const lu_zlib_t *z, uint8_t chunk[LU_ZLIB_CHUNK], bool *last);
/** That chunk was taken; after the last one the engine starts the next dump's stream. */
void lu_zlib_pop(lu_zlib_t *z);

/** The next record of the next stream, once none of the current one is under way (copied; nothing
 *  without a pool): the pool starts compressing it. */
void lu_zlib_announce(lu_zlib_t *z, const uint8_t rec[LU_ZLIB_REC]);
/** Streams whose announced records were not those that came (each was compressed again). */
uint64_t lu_zlib_missed(const lu_zlib_t *z);

/** A pool of `threads` host threads (1 .. LU_ZLIB_MAX_THREADS) shared by engines; NULL (and errno)
 *  when they cannot be started. The threads sleep while no engine has records announced. */
lu_zlib_pool_t *lu_zlib_pool_create(unsigned threads);
/** Stops the threads (every engine using the pool must be freed first). NULL is allowed. */
void lu_zlib_pool_free(lu_zlib_pool_t *p);

#endif
