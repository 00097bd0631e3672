/* The Logging Unit's compression engine: a C model of a hardware zlib (deflate) block behind the
 * LU's RTL dump port (DIKTAMO §IV-E: gzip level 9 in the paper). Log records (16 bytes each) go in
 * as the LU extracts them; the compressed stream comes out in 64-byte chunks, the payload of the
 * DUMP_DATA messages. At the end of a dump the stream is finished (zlib format, Adler-32) and its
 * last chunk padded with zeros (inflate stops at the stream's end). The engine then starts a new
 * stream for the next dump.
 *
 * The model is untimed: it takes a record every cycle and its output is available at once. */
#ifndef LU_ZLIB_H
#define LU_ZLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#define LU_ZLIB_CHUNK 64

typedef struct lu_zlib {
    z_stream z;
    int level;
    uint8_t *out; /* compressed bytes not yet handed out (from out_rd) */
    size_t out_n, out_cap, out_rd;
    bool finished; /* the current dump's stream is complete */
    uint64_t in_bytes, out_bytes; /* over all dumps; out_bytes counts whole chunks */
} lu_zlib_t;

/** Level 0 .. 9; returns 0, or -1 when zlib refuses. */
int lu_zlib_init(lu_zlib_t *z, int level);
void lu_zlib_free(lu_zlib_t *z);
/** One 16-byte log record into the current dump's stream. */
void lu_zlib_push(lu_zlib_t *z, const uint8_t rec[16]);
/** End of the dump: the stream is finished; its chunks follow. */
void lu_zlib_finish(lu_zlib_t *z);
/** The oldest chunk ready (false when none): a full 64 bytes, or the padded last one of a finished
 *  stream (*last). */
bool lu_zlib_peek(const lu_zlib_t *z, uint8_t chunk[LU_ZLIB_CHUNK], bool *last);
/** That chunk was taken; after the last one the engine starts the next dump's stream. */
void lu_zlib_pop(lu_zlib_t *z);

#endif
