#include "lu_zlib.h"

#include <stdlib.h>
#include <string.h>

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

int lu_zlib_init(lu_zlib_t *z, int level)
{
    memset(z, 0, sizeof *z);
    z->level = level;
    return deflateInit(&z->z, level) == Z_OK ? 0 : -1;
}

void lu_zlib_free(lu_zlib_t *z)
{
    deflateEnd(&z->z);
    free(z->out);
}

void lu_zlib_push(lu_zlib_t *z, const uint8_t rec[16])
{
    z->z.next_in = (Bytef *)rec;
    z->z.avail_in = 16;
    run(z, Z_NO_FLUSH);
    z->in_bytes += 16;
}

void lu_zlib_finish(lu_zlib_t *z)
{
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
        z->finished = false;
        deflateReset(&z->z);
    }
}
