/* Tests of the MN's log store (csim/mn/mn_log): dumps of Logging Units arriving as DUMP_DATA chunks
 * and the two synchronizations of a replica group, the errors it lists (each with its message), its
 * search and its FETCH_LATEST_VERS answers, field by field; a randomized run against a reference;
 * and, end to end, the real LU (rtl/lu, Verilated, through csim/drv/lu_drv) dumping to it: the MN log's
 * answer to a FETCH_LATEST_VERS list is the one the LU gave before the dump.
 *
 * The unit tests build their dumps with the LU's compression engine (csim/drv/lu_zlib) from records
 * packed as the LU writes them (lu_rec_pack), so the chunks are what a LU sends. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/cleanup.h"
#include "base/rng.h"
#include "drv/lu_drv.h"
#include "drv/lu_zlib.h"
#include "mn/mn_log.h"
#include "sb/lu_models.h"
#include "sb/mn_lu.h"
#include "tb_seed.h"

#define MN_ID (MSG_MN_BASE + 2)
#define DIR_ID (MSG_MN_BASE + 5) /* a directory controller asking for latest versions */
#define WORDS MSG_WORDS_PER_LINE
#define TAGS (1u << MSG_TAG_W)

static uint64_t line_addr(unsigned i) { return 0x4000 + (uint64_t)i * 0x111; }

static lu_rec_t rec(uint64_t line, unsigned word, unsigned ts, uint64_t value)
{
    return (lu_rec_t){.value = value, .line = line, .word = word, .ts = ts, .cn = 3, .core = 1, .written = true};
}

static void mn_init(mn_log_t *l, unsigned lus)
{
    cr_assert_eq(mn_log_init(l, &(mn_log_cfg_t){.node_id = MN_ID, .lus_per_epoch = lus}), 0);
}

/* A dump as a LU sends it: the records through the compression engine (level 9 unless told), its
 * chunks as DUMP_DATA from src (chunk k: tag = k mod 2^TAG_W, addr = k; LAST on the last one). */
typedef struct dump {
    msg_t *m;
    size_t n;
} dump_t;

static dump_t make_dump_level(unsigned src, const lu_rec_t *r, size_t n, int level)
{
    lu_zlib_t z;
    cr_assert_eq(lu_zlib_init(&z, level, NULL, 0), 0);
    for (size_t i = 0; i < n; i++) {
        uint32_t w[4];
        lu_rec_pack(&r[i], w);
        lu_zlib_push(&z, (const uint8_t *)w);
    }
    lu_zlib_finish(&z);
    dump_t d = {0};
    uint8_t chunk[LU_ZLIB_CHUNK];
    bool last = false;
    while (!last && lu_zlib_peek(&z, chunk, &last)) {
        d.m = realloc(d.m, (d.n + 1) * sizeof *d.m);
        cr_assert(d.m);
        msg_t *m = &d.m[d.n];
        *m = (msg_t){.opcode = OP_DUMP_DATA, .src = (uint8_t)src, .dst = MN_ID, .tag = (uint16_t)(d.n % TAGS),
                     .flags = last ? 1 : 0, .addr = d.n, .mask = 0xff};
        memcpy(m->data, chunk, sizeof m->data);
        d.n++;
        lu_zlib_pop(&z);
    }
    lu_zlib_free(&z);
    cr_assert(last && d.n, "the engine did not finish the dump");
    return d;
}

static dump_t make_dump(unsigned src, const lu_rec_t *r, size_t n) { return make_dump_level(src, r, n, 9); }

/* The length of the zlib stream in a dump's chunks (the rest is padding). */
static size_t stream_len(const dump_t *d)
{
    uint8_t *b = malloc(d->n * 64), out[4096];
    cr_assert(b);
    for (size_t i = 0; i < d->n; i++)
        memcpy(b + 64 * i, d->m[i].data, 64);
    z_stream z;
    memset(&z, 0, sizeof z);
    cr_assert_eq(inflateInit(&z), Z_OK);
    z.next_in = b;
    z.avail_in = (uInt)(d->n * 64);
    int rc;
    do {
        z.next_out = out, z.avail_out = sizeof out;
        rc = inflate(&z, Z_NO_FLUSH);
    } while (rc == Z_OK);
    cr_assert_eq(rc, Z_STREAM_END);
    size_t len = z.total_in;
    inflateEnd(&z);
    free(b);
    return len;
}

static msg_t dump_req(unsigned src, unsigned epoch)
{
    return (msg_t){.opcode = OP_DUMP_REQ, .src = (uint8_t)src, .dst = MN_ID, .tag = (uint16_t)epoch};
}

static msg_t flv(uint64_t line, uint8_t mask, unsigned tag, bool last)
{
    return (msg_t){.opcode = OP_FETCH_LATEST_VERS, .src = DIR_ID, .dst = MN_ID, .subject = 7, .tag = (uint16_t)tag,
                   .flags = last ? 1 : 0, .addr = line, .mask = mask};
}

/* m is taken without a new error (ctx names the run in a failure). */
static void rx_ok_in(const char *ctx, mn_log_t *l, const msg_t *m)
{
    size_t before = mn_log_nerrors(l);
    mn_log_rx_e r = mn_log_rx(l, m);
    const mn_log_err_t *e = mn_log_error(l, before);
    cr_assert(!e, "%s%s from %u tag %u: %s: %s", ctx, msg_name(m->opcode), m->src, m->tag, mn_log_err_name(e->kind),
              e->what);
    cr_assert_eq(r, MN_LOG_RX_OK, "%s%s from %u: %d", ctx, msg_name(m->opcode), m->src, r);
}

static void rx_ok(mn_log_t *l, const msg_t *m) { rx_ok_in("", l, m); }

/* m is taken with exactly one new error, of kind k, listing m itself. */
static void rx_err(mn_log_t *l, const msg_t *m, mn_log_err_kind_t k)
{
    size_t before = mn_log_nerrors(l);
    cr_assert_eq(mn_log_rx(l, m), MN_LOG_RX_ERR, "%s from %u tag %u taken without an error", msg_name(m->opcode),
                 m->src, m->tag);
    cr_assert_eq(mn_log_nerrors(l), before + 1, "%zu errors for one message", mn_log_nerrors(l) - before);
    const mn_log_err_t *e = mn_log_error(l, before);
    cr_assert_eq(e->kind, k, "error %s (%s), expected %s", mn_log_err_name(e->kind), e->what, mn_log_err_name(k));
    cr_assert(msg_equal(&e->msg, m), "the error does not list the offending message");
    cr_assert_gt(strlen(e->what), 10);
    cr_log_info("%s: %s", mn_log_err_name(e->kind), e->what);
}

/* Pops the next queued message; it must be op to dst with tag (ctx names the run in a failure). */
static msg_t expect_tx_in(const char *ctx, mn_log_t *l, msg_op_t op, unsigned dst, unsigned tag)
{
    msg_t m;
    cr_assert(mn_log_tx_peek(l, &m), "%sno message queued, expected %s to %u", ctx, msg_name(op), dst);
    cr_assert(m.opcode == op && m.src == MN_ID && m.dst == dst && m.tag == tag,
              "%squeued %s from %u to %u tag %u, expected %s to %u tag %u", ctx, msg_name(m.opcode), m.src, m.dst,
              m.tag, msg_name(op), dst, tag);
    cr_assert_null(msg_check(&m), "the MN sent a malformed %s: %s", msg_name(m.opcode), msg_check(&m));
    mn_log_tx_pop(l);
    return m;
}

static msg_t expect_tx(mn_log_t *l, msg_op_t op, unsigned dst, unsigned tag)
{
    return expect_tx_in("", l, op, dst, tag);
}

/* One LU's whole dump of an epoch with one LU per epoch: DUMP_REQ, DUMP_GO, chunks, DUMP_DONE. */
static void store_dump(mn_log_t *l, unsigned src, unsigned epoch, const lu_rec_t *r, size_t n)
{
    msg_t q = dump_req(src, epoch);
    rx_ok(l, &q);
    expect_tx(l, OP_DUMP_GO, src, epoch);
    dump_t d = make_dump(src, r, n);
    for (size_t i = 0; i < d.n; i++)
        rx_ok(l, &d.m[i]);
    expect_tx(l, OP_DUMP_DONE, src, epoch);
    cr_assert_eq(mn_log_tx_pending(l), 0);
    free(d.m);
}

/* n records of lines 0 .. nlines - 1, every field varied, in a fixed pattern. */
static lu_rec_t *some_recs(size_t n, unsigned nlines, uint64_t salt)
{
    lu_rec_t *r = calloc(n, sizeof *r);
    cr_assert(r);
    for (size_t i = 0; i < n; i++) {
        r[i] = rec(line_addr((unsigned)(i * 7 % nlines)), (unsigned)(i * 3 % WORDS), (unsigned)(i % 128),
                   salt * 1000003 + i);
        r[i].cn = (unsigned)(i % 5), r[i].core = (unsigned)(i % 4);
    }
    return r;
}

/* ------------------------------------------------------------------------------------------------
 * Chunks */

Test(mn_log, chunks_in_order_are_kept_compressed_and_inflated_at_the_last)
{
    mn_log_t l;
    mn_init(&l, 1);
    lu_rec_t *r = some_recs(400, 12, 1);
    dump_t d = make_dump(5, r, 400);
    cr_assert_geq(d.n, 3, "only %zu chunks", d.n);
    /* GIVEN a DUMP_REQ of epoch 0 THEN DUMP_GO */
    msg_t q = dump_req(5, 0);
    rx_ok(&l, &q);
    expect_tx(&l, OP_DUMP_GO, 5, 0);
    /* WHEN every chunk but the last arrives THEN nothing is stored or sent yet */
    for (size_t i = 0; i + 1 < d.n; i++)
        rx_ok(&l, &d.m[i]);
    cr_assert_eq(mn_log_nrecs(&l, 5), 0);
    cr_assert_eq(mn_log_ndumps(&l), 0);
    cr_assert_eq(mn_log_tx_pending(&l), 0);
    /* WHEN the last one arrives THEN the records, in order, and DUMP_DONE */
    rx_ok(&l, &d.m[d.n - 1]);
    expect_tx(&l, OP_DUMP_DONE, 5, 0);
    cr_assert_eq(mn_log_nrecs(&l, 5), 400);
    for (size_t i = 0; i < 400; i++)
        cr_assert(lu_rec_eq(&mn_log_recs(&l, 5)[i], &r[i]), "record %zu", i);
    /* THEN the dump keeps the compressed bytes as they arrived, and counts them */
    cr_assert_eq(mn_log_ndumps(&l), 1);
    const mn_log_dump_t *dp = mn_log_dump(&l, 0);
    cr_assert(dp->src == 5 && dp->epoch == 0 && dp->chunks == d.n && dp->first == 0 && dp->nrecs == 400);
    for (size_t i = 0; i < d.n; i++)
        cr_assert_eq(memcmp(dp->bytes + 64 * i, d.m[i].data, 64), 0, "chunk %zu kept differently", i);
    cr_assert_eq(dp->stream_bytes, stream_len(&d));
    const mn_log_stats_t *st = mn_log_stats(&l);
    cr_assert(st->epochs == 1 && st->dumps == 1 && st->dumps_discarded == 0 && st->chunks == d.n &&
              st->bytes_compressed == 64 * d.n && st->bytes_stream == dp->stream_bytes &&
              st->bytes_decompressed == 16 * 400 && st->records == 400 && st->errors == 0);
    cr_assert_lt(st->bytes_compressed, st->bytes_decompressed, "level 9 did not compress");
    free(d.m);
    free(r);
    mn_log_free(&l);
}

/* The fabric may deliver a dump's chunks in any order (link jitter): each goes to its place (its
 * addr), and the dump is stored once every chunk up to LAST has come. A chunk that came already, a
 * tag not its addr's and a chunk beyond LAST are reported, and the dump is discarded when it ends
 * (its LU still gets its DUMP_DONE). */
Test(mn_log, chunks_out_of_order_are_put_in_their_place_bad_ones_reported)
{
    mn_log_t l;
    mn_init(&l, 1);
    lu_rec_t *r = some_recs(400, 12, 2);
    dump_t d = make_dump(5, r, 400);
    cr_assert_geq(d.n, 4);
    msg_t q = dump_req(5, 0);
    rx_ok(&l, &q);
    expect_tx(&l, OP_DUMP_GO, 5, 0);
    /* WHEN the chunks come in reverse order, LAST first THEN the dump is stored whole at the last one */
    for (size_t i = d.n; i-- > 0;) {
        cr_assert_eq(mn_log_ndumps(&l), 0, "stored with chunks %zu .. 0 missing", i);
        rx_ok(&l, &d.m[i]);
    }
    expect_tx(&l, OP_DUMP_DONE, 5, 0);
    cr_assert_eq(mn_log_ndumps(&l), 1);
    cr_assert_eq(mn_log_nrecs(&l, 5), 400);
    cr_assert_eq(mn_log_stats(&l)->errors, 0);
    /* WHEN the next epoch's dump repeats a chunk THEN the repeat is reported and the dump, once its
     * chunks have all come, discarded */
    q = dump_req(5, 1);
    rx_ok(&l, &q);
    expect_tx(&l, OP_DUMP_GO, 5, 1);
    rx_ok(&l, &d.m[1]);
    rx_err(&l, &d.m[1], MN_LOG_E_ORDER);
    for (size_t i = 0; i < d.n; i++)
        if (i != 1)
            rx_ok(&l, &d.m[i]);
    expect_tx(&l, OP_DUMP_DONE, 5, 1);
    cr_assert_eq(mn_log_ndumps(&l), 1);
    cr_assert(mn_log_stats(&l)->dumps_discarded == 1 && mn_log_stats(&l)->err[MN_LOG_E_ORDER] == 1);
    /* WHEN a chunk's tag is not its addr's THEN it is reported, and the dump discarded */
    q = dump_req(5, 2);
    rx_ok(&l, &q);
    expect_tx(&l, OP_DUMP_GO, 5, 2);
    for (size_t i = 0; i < d.n; i++) {
        msg_t m = d.m[i];
        if (i == 2) {
            m.tag = 7;
            rx_err(&l, &m, MN_LOG_E_ORDER);
        } else {
            rx_ok(&l, &m);
        }
    }
    expect_tx(&l, OP_DUMP_DONE, 5, 2);
    cr_assert_eq(mn_log_stats(&l)->dumps_discarded, 2);
    /* WHEN a chunk beyond LAST comes before the dump has ended THEN it is reported */
    q = dump_req(5, 3);
    rx_ok(&l, &q);
    expect_tx(&l, OP_DUMP_GO, 5, 3);
    rx_ok(&l, &d.m[d.n - 1]);
    msg_t beyond = d.m[0];
    beyond.addr = d.n;
    beyond.tag = (uint16_t)(d.n % TAGS);
    rx_err(&l, &beyond, MN_LOG_E_ORDER);
    for (size_t i = 0; i + 1 < d.n; i++)
        rx_ok(&l, &d.m[i]);
    expect_tx(&l, OP_DUMP_DONE, 5, 3);
    cr_assert_eq(mn_log_stats(&l)->dumps_discarded, 3);
    /* WHEN a whole dump comes in order afterwards (epoch 4) THEN it is stored */
    store_dump(&l, 5, 4, r, 400);
    cr_assert_eq(mn_log_nrecs(&l, 5), 800);
    cr_assert_eq(mn_log_ndumps(&l), 2);
    free(d.m);
    free(r);
    mn_log_free(&l);
}

/* Chunk k of a dump is tag k mod 2^TAG_W and addr k (messages.toml: addr = byte offset / 64): past
 * 4096 chunks the tag wraps and the addr goes on. */
Test(mn_log, a_dump_of_more_than_4096_chunks_wraps_its_tag_not_its_addr)
{
    mn_log_t l;
    mn_init(&l, 1);
    /* GIVEN a dump of 16 500 records stored by the engine (level 0: 16 bytes per record) */
    lu_rec_t *r = some_recs(16500, 12, 7);
    dump_t d = make_dump_level(5, r, 16500, 0);
    cr_assert_gt(d.n, TAGS + 1, "only %zu chunks", d.n);
    cr_assert(d.m[TAGS].tag == 0 && d.m[TAGS].addr == TAGS);
    /* WHEN it arrives in order THEN it is stored whole */
    msg_t q = dump_req(5, 0);
    rx_ok(&l, &q);
    expect_tx(&l, OP_DUMP_GO, 5, 0);
    for (size_t i = 0; i < d.n; i++)
        rx_ok(&l, &d.m[i]);
    expect_tx(&l, OP_DUMP_DONE, 5, 0);
    cr_assert_eq(mn_log_ndumps(&l), 1);
    cr_assert_eq(mn_log_dump(&l, 0)->chunks, d.n);
    cr_assert_eq(mn_log_nrecs(&l, 5), 16500);
    /* WHEN the next epoch's dump numbers its addr in TAG_W bits too, wrapping to 0 at chunk 4096
     * THEN every chunk from there on is one that came already, and the dump is discarded at its LAST */
    q = dump_req(5, 1);
    rx_ok(&l, &q);
    expect_tx(&l, OP_DUMP_GO, 5, 1);
    for (size_t i = 0; i < d.n; i++) {
        msg_t m = d.m[i];
        m.addr %= TAGS;
        if (i >= TAGS)
            rx_err(&l, &m, MN_LOG_E_ORDER);
        else
            rx_ok(&l, &m);
    }
    expect_tx(&l, OP_DUMP_DONE, 5, 1);
    cr_assert_eq(mn_log_ndumps(&l), 1);
    cr_assert_eq(mn_log_stats(&l)->dumps_discarded, 1);
    free(d.m);
    free(r);
    mn_log_free(&l);
}

/* ------------------------------------------------------------------------------------------------
 * The two synchronizations of a replica group */

Test(mn_log, dump_go_only_after_every_lu_of_the_epoch_asked)
{
    mn_log_t l;
    mn_init(&l, 3);
    /* GIVEN three LUs per epoch WHEN two have asked THEN nothing is sent */
    msg_t a = dump_req(9, 0), b = dump_req(4, 0), c = dump_req(1, 0);
    rx_ok(&l, &a);
    rx_ok(&l, &b);
    cr_assert_eq(mn_log_tx_pending(&l), 0, "DUMP_GO before the third LU asked");
    /* WHEN the third asks THEN each of the three gets DUMP_GO of epoch 0 */
    rx_ok(&l, &c);
    cr_assert_eq(mn_log_tx_pending(&l), 3);
    expect_tx(&l, OP_DUMP_GO, 1, 0);
    expect_tx(&l, OP_DUMP_GO, 4, 0);
    expect_tx(&l, OP_DUMP_GO, 9, 0);
    mn_log_free(&l);
}

Test(mn_log, dump_done_only_after_every_dump_of_the_epoch_is_stored)
{
    mn_log_t l;
    mn_init(&l, 3);
    const unsigned src[3] = {9, 4, 1};
    lu_rec_t *r[3];
    dump_t d[3];
    for (unsigned k = 0; k < 3; k++) {
        r[k] = some_recs(150 + 100 * k, 8, k + 10);
        d[k] = make_dump(src[k], r[k], 150 + 100 * k);
        msg_t q = dump_req(src[k], 0);
        rx_ok(&l, &q);
    }
    cr_assert_eq(mn_log_tx_pending(&l), 3);
    while (mn_log_tx_pending(&l))
        mn_log_tx_pop(&l);
    /* WHEN the chunks of the three dumps arrive interleaved, 9's ending first and 1's last THEN no
     * DUMP_DONE until the last LU's last chunk */
    size_t i[3] = {0, 0, 0};
    const unsigned order[3] = {0, 2, 1}; /* the LU whose dump ends first, second, third */
    for (unsigned e = 0; e < 3; e++) {
        unsigned k = order[e];
        while (i[k] + 1 < d[k].n) /* every chunk but the last, with a chunk of the others between */
            for (unsigned j = 0; j < 3; j++)
                if (i[j] + 1 < d[j].n && (j == k || i[j] + 2 < d[j].n))
                    rx_ok(&l, &d[j].m[i[j]++]);
        rx_ok(&l, &d[k].m[i[k]++]);
        cr_assert_eq(mn_log_ndumps(&l), e + 1);
        cr_assert_eq(mn_log_dump(&l, e)->src, src[k], "dump %u stored from %u", e, mn_log_dump(&l, e)->src);
        if (e < 2)
            cr_assert_eq(mn_log_tx_pending(&l), 0, "DUMP_DONE with %u of 3 dumps stored", e + 1);
    }
    /* THEN DUMP_DONE of epoch 0 to each; each LU's records are its own */
    cr_assert_eq(mn_log_tx_pending(&l), 3);
    expect_tx(&l, OP_DUMP_DONE, 1, 0);
    expect_tx(&l, OP_DUMP_DONE, 4, 0);
    expect_tx(&l, OP_DUMP_DONE, 9, 0);
    for (unsigned k = 0; k < 3; k++) {
        cr_assert_eq(mn_log_nrecs(&l, src[k]), 150 + 100 * k);
        for (size_t j = 0; j < mn_log_nrecs(&l, src[k]); j++)
            cr_assert(lu_rec_eq(&mn_log_recs(&l, src[k])[j], &r[k][j]));
    }
    cr_assert_eq(mn_log_stats(&l)->epochs, 1);
    /* THEN the next epoch synchronizes again, with tag 1 */
    for (unsigned k = 0; k < 3; k++) {
        msg_t q = dump_req(src[k], 1);
        rx_ok(&l, &q);
        cr_assert_eq(mn_log_tx_pending(&l), k == 2 ? 3 : 0);
    }
    expect_tx(&l, OP_DUMP_GO, 1, 1);
    for (unsigned k = 0; k < 3; k++) {
        free(d[k].m);
        free(r[k]);
    }
    mn_log_free(&l);
}

Test(mn_log, a_failed_lu_leaves_the_group_and_the_epoch_goes_on_without_it)
{
    mn_log_t l;
    mn_init(&l, 3);
    /* GIVEN three LUs per epoch, two of which asked */
    msg_t a = dump_req(9, 0), b = dump_req(4, 0);
    rx_ok(&l, &a);
    rx_ok(&l, &b);
    cr_assert_eq(mn_log_tx_pending(&l), 0);
    /* WHEN the third fails THEN the two that asked get their DUMP_GO */
    mn_log_drop_lu(&l, 1);
    cr_assert_eq(mn_log_tx_pending(&l), 2);
    expect_tx(&l, OP_DUMP_GO, 4, 0);
    expect_tx(&l, OP_DUMP_GO, 9, 0);
    /* WHEN 9 stores its dump and 4, which had a dump under way, fails THEN 9 gets its DUMP_DONE,
     * 4's partial dump is discarded, and the next epoch has one LU */
    lu_rec_t *r9 = some_recs(40, 8, 3), *r4 = some_recs(300, 8, 4);
    dump_t d9 = make_dump(9, r9, 40), d4 = make_dump(4, r4, 300);
    cr_assert_gt(d4.n, 1);
    rx_ok(&l, &d4.m[0]);
    for (size_t i = 0; i < d9.n; i++)
        rx_ok(&l, &d9.m[i]);
    cr_assert_eq(mn_log_tx_pending(&l), 0, "DUMP_DONE while 4's dump is under way");
    mn_log_drop_lu(&l, 4);
    cr_assert_eq(mn_log_tx_pending(&l), 1);
    expect_tx(&l, OP_DUMP_DONE, 9, 0);
    cr_assert_eq(mn_log_ndumps(&l), 1);
    cr_assert_eq(mn_log_stats(&l)->dumps_discarded, 1);
    msg_t c = dump_req(9, 1);
    rx_ok(&l, &c);
    expect_tx(&l, OP_DUMP_GO, 9, 1);
    free(d9.m), free(d4.m), free(r9), free(r4);
    mn_log_free(&l);
}

/* ------------------------------------------------------------------------------------------------
 * Errors: each listed with the message that showed it */

Test(mn_log, a_dump_req_of_a_wrong_epoch_is_reported_and_gets_no_go)
{
    mn_log_t l;
    mn_init(&l, 1);
    msg_t q1 = dump_req(5, 1), q0 = dump_req(5, 0);
    rx_err(&l, &q1, MN_LOG_E_EPOCH);
    cr_assert_eq(mn_log_tx_pending(&l), 0);
    /* THEN the right epoch still works, and afterwards the old one is wrong */
    store_dump(&l, 5, 0, NULL, 0);
    rx_err(&l, &q0, MN_LOG_E_EPOCH);
    cr_assert_eq(mn_log_tx_pending(&l), 0);
    cr_assert(mn_log_stats(&l)->err[MN_LOG_E_EPOCH] == 2 && mn_log_stats(&l)->errors == 2);
    mn_log_free(&l);
}

Test(mn_log, a_dump_req_twice_or_beyond_the_epochs_lus_is_reported)
{
    mn_log_t l;
    mn_init(&l, 2);
    msg_t a = dump_req(3, 0), b = dump_req(6, 0), c = dump_req(8, 0);
    rx_ok(&l, &a);
    rx_err(&l, &a, MN_LOG_E_REQ_TWICE);
    cr_assert_eq(mn_log_tx_pending(&l), 0, "a LU asking twice counted as two");
    rx_ok(&l, &b);
    cr_assert_eq(mn_log_tx_pending(&l), 2);
    rx_err(&l, &c, MN_LOG_E_REQ_EXTRA);
    cr_assert_eq(mn_log_tx_pending(&l), 2, "a third LU got DUMP_GO");
    mn_log_free(&l);
}

Test(mn_log, a_chunk_from_a_lu_with_no_dump_under_way_is_reported)
{
    mn_log_t l;
    mn_init(&l, 2);
    lu_rec_t *r = some_recs(50, 4, 3);
    dump_t d = make_dump(3, r, 50), e = make_dump(6, r, 50);
    /* WHEN a LU sends a chunk before asking, and after asking but before DUMP_GO THEN both reported */
    rx_err(&l, &d.m[0], MN_LOG_E_NO_DUMP);
    msg_t q = dump_req(3, 0);
    rx_ok(&l, &q);
    rx_err(&l, &d.m[0], MN_LOG_E_NO_DUMP);
    q = dump_req(6, 0);
    rx_ok(&l, &q);
    /* WHEN LU 3 has sent its whole dump and sends a chunk again before DUMP_DONE THEN reported */
    for (size_t i = 0; i < d.n; i++)
        rx_ok(&l, &d.m[i]);
    rx_err(&l, &d.m[0], MN_LOG_E_NO_DUMP);
    cr_assert_eq(mn_log_nrecs(&l, 3), 50, "a chunk without a dump under way changed what is stored");
    for (size_t i = 0; i < e.n; i++)
        rx_ok(&l, &e.m[i]);
    cr_assert_eq(mn_log_tx_pending(&l), 4); /* two DUMP_GO, two DUMP_DONE */
    cr_assert_eq(mn_log_stats(&l)->errors, 3);
    free(d.m);
    free(e.m);
    free(r);
    mn_log_free(&l);
}

Test(mn_log, a_chunk_that_is_not_a_whole_line_is_reported_and_its_dump_discarded)
{
    mn_log_t l;
    mn_init(&l, 1);
    lu_rec_t *r = some_recs(300, 8, 4);
    dump_t d = make_dump(5, r, 300);
    cr_assert_geq(d.n, 3);
    msg_t q = dump_req(5, 0);
    rx_ok(&l, &q);
    rx_ok(&l, &d.m[0]);
    d.m[1].mask = 0x7f, d.m[1].data[7] = 0;
    rx_err(&l, &d.m[1], MN_LOG_E_PARTIAL);
    for (size_t i = 2; i < d.n; i++)
        rx_ok(&l, &d.m[i]);
    cr_assert_eq(mn_log_nrecs(&l, 5), 0);
    cr_assert_eq(mn_log_stats(&l)->dumps_discarded, 1);
    mn_log_tx_pop(&l);
    expect_tx(&l, OP_DUMP_DONE, 5, 0);
    free(d.m);
    free(r);
    mn_log_free(&l);
}

Test(mn_log, a_dump_that_does_not_inflate_is_reported_and_discarded)
{
    mn_log_t l;
    mn_init(&l, 1);
    lu_rec_t *r = some_recs(300, 8, 5);
    /* GIVEN a dump with a byte changed in its middle */
    dump_t d = make_dump(5, r, 300);
    cr_assert_geq(d.n, 3);
    ((uint8_t *)d.m[1].data)[17] ^= 0x40;
    msg_t q = dump_req(5, 0);
    rx_ok(&l, &q);
    for (size_t i = 0; i + 1 < d.n; i++)
        rx_ok(&l, &d.m[i]);
    /* THEN its LAST chunk is reported, nothing is stored, the LU gets DUMP_DONE */
    rx_err(&l, &d.m[d.n - 1], MN_LOG_E_INFLATE);
    cr_assert_eq(mn_log_nrecs(&l, 5), 0);
    cr_assert_eq(mn_log_ndumps(&l), 0);
    mn_log_tx_pop(&l);
    expect_tx(&l, OP_DUMP_DONE, 5, 0);
    /* GIVEN a dump cut short: LAST on its second chunk THEN reported */
    dump_t e = make_dump(5, r, 300);
    e.m[1].flags = 1;
    q = dump_req(5, 1);
    rx_ok(&l, &q);
    rx_ok(&l, &e.m[0]);
    rx_err(&l, &e.m[1], MN_LOG_E_INFLATE);
    cr_assert(strstr(mn_log_error(&l, 1)->what, "cut short"), "%s", mn_log_error(&l, 1)->what);
    /* GIVEN a stream that inflates into 40 bytes, not whole 16-byte records THEN reported */
    uint8_t raw[40], zb[128];
    memset(raw, 0x11, sizeof raw);
    uLongf zn = sizeof zb;
    cr_assert_eq(compress2(zb, &zn, raw, sizeof raw, 9), Z_OK);
    msg_t c = {.opcode = OP_DUMP_DATA, .src = 5, .dst = MN_ID, .flags = 1, .mask = 0xff};
    memcpy(c.data, zb, zn);
    q = dump_req(5, 2);
    rx_ok(&l, &q);
    rx_err(&l, &c, MN_LOG_E_INFLATE);
    cr_assert(strstr(mn_log_error(&l, 2)->what, "not whole records"), "%s", mn_log_error(&l, 2)->what);
    cr_assert_eq(mn_log_nrecs(&l, 5), 0);
    cr_assert(mn_log_stats(&l)->dumps_discarded == 3 && mn_log_stats(&l)->epochs == 3);
    free(d.m);
    free(e.m);
    free(r);
    mn_log_free(&l);
}

Test(mn_log, bytes_after_the_stream_that_are_not_zero_are_reported)
{
    mn_log_t l;
    mn_init(&l, 1);
    /* GIVEN a dump whose last chunk has padding, a byte of it not zero */
    size_t n = 100;
    lu_rec_t *r = NULL;
    dump_t d = {0};
    for (;; n++) {
        free(r);
        free(d.m);
        r = some_recs(n, 8, 6);
        d = make_dump(5, r, n);
        if (stream_len(&d) < 64 * d.n - 2)
            break;
    }
    ((uint8_t *)d.m[d.n - 1].data)[63] = 0x5a;
    msg_t q = dump_req(5, 0);
    rx_ok(&l, &q);
    for (size_t i = 0; i + 1 < d.n; i++)
        rx_ok(&l, &d.m[i]);
    /* THEN the LAST chunk is reported; the stream passed its checksum, so the dump is kept */
    rx_err(&l, &d.m[d.n - 1], MN_LOG_E_PADDING);
    cr_assert_eq(mn_log_nrecs(&l, 5), n);
    cr_assert_eq(mn_log_ndumps(&l), 1);
    free(d.m);
    free(r);
    mn_log_free(&l);
}

/* (The same in a compact store.) */
Test(mn_log, a_record_without_the_written_marker_is_reported_and_never_found)
{
    for (int compact = 0; compact < 2; compact++) {
        mn_log_t l;
        cr_assert_eq(mn_log_init(&l, &(mn_log_cfg_t){.node_id = MN_ID, .lus_per_epoch = 1, .compact = compact}), 0);
        lu_rec_t r[3] = {rec(line_addr(0), 1, 5, 111), rec(line_addr(0), 2, 5, 222), rec(line_addr(0), 1, 6, 333)};
        r[2].written = false;
        msg_t q = dump_req(5, 0);
        rx_ok(&l, &q);
        dump_t d = make_dump(5, r, 3);
        cr_assert_eq(d.n, 1);
        rx_err(&l, &d.m[0], MN_LOG_E_RECORD);
        mn_log_found_t f;
        uint64_t a = line_addr(0);
        uint8_t m = 0xff;
        mn_log_search(&l, &a, &m, 1, &f);
        cr_assert(f.mask == 0x06 && f.value[1] == 111 && f.value[2] == 222, "compact %d: mask 0x%x word 1 %llu",
                  compact, f.mask, (unsigned long long)f.value[1]);
        cr_assert_eq(mn_log_stats(&l)->records_scanned, 3, "compact %d", compact);
        free(d.m);
        mn_log_free(&l);
    }
}

Test(mn_log, messages_for_another_node_or_malformed_are_reported_others_are_not_taken)
{
    mn_log_t l;
    mn_init(&l, 1);
    msg_t q = dump_req(5, 0);
    q.dst = MN_ID + 1;
    rx_err(&l, &q, MN_LOG_E_DST);
    q = dump_req(5, 0);
    q.addr = 12; /* a field DUMP_REQ does not use */
    rx_err(&l, &q, MN_LOG_E_MALFORMED);
    msg_t f = flv(line_addr(0), 0xff, 1, true);
    f.ts = 3;
    rx_err(&l, &f, MN_LOG_E_MALFORMED);
    cr_assert_eq(mn_log_tx_pending(&l), 0);
    /* THEN messages that are not the log store's are left to the caller, and not counted */
    msg_t x = {.opcode = OP_EARLY_FLUSH, .src = 1, .dst = MN_ID};
    cr_assert_eq(mn_log_rx(&l, &x), MN_LOG_RX_NOT_MINE);
    x = (msg_t){.opcode = OP_INIT_RECOV, .src = 1, .dst = MN_ID, .subject = 2};
    cr_assert_eq(mn_log_rx(&l, &x), MN_LOG_RX_NOT_MINE);
    cr_assert_eq(mn_log_stats(&l)->errors, 3);
    cr_assert_eq(mn_log_nerrors(&l), 3);
    cr_assert_eq(mn_log_stats(&l)->err[MN_LOG_E_MALFORMED], 2);
    mn_log_free(&l);
}

/* ------------------------------------------------------------------------------------------------
 * Search and answers */

Test(mn_log, search_after_one_dump_finds_the_last_record_of_each_word)
{
    mn_log_t l;
    mn_init(&l, 1);
    uint64_t a = line_addr(0), b = line_addr(1);
    /* GIVEN one dump in which words are logged several times (dump order is commit order) */
    lu_rec_t r[] = {rec(a, 0, 1, 10), rec(a, 3, 1, 13), rec(b, 0, 4, 20), rec(a, 0, 2, 11),
                    rec(a, 3, 9, 14), rec(a, 0, 3, 12), rec(b, 7, 5, 27)};
    store_dump(&l, 5, 0, r, sizeof r / sizeof r[0]);
    /* WHEN a and b are searched (b twice, with two masks) THEN each word's last record */
    uint64_t lines[3] = {a, b, b};
    uint8_t masks[3] = {0xff, 0x01, 0xfe};
    mn_log_found_t f[3];
    mn_log_search(&l, lines, masks, 3, f);
    cr_assert(f[0].mask == 0x09 && f[0].value[0] == 12 && f[0].ts[0] == 3 && f[0].value[3] == 14 && f[0].ts[3] == 9,
              "line a: mask 0x%x word 0 %llu ts %u", f[0].mask, (unsigned long long)f[0].value[0], f[0].ts[0]);
    cr_assert(f[1].mask == 0x01 && f[1].value[0] == 20 && f[1].ts[0] == 4);
    cr_assert(f[2].mask == 0x80 && f[2].value[7] == 27 && f[2].ts[7] == 5);
    /* THEN one pass over every stored record */
    cr_assert_eq(mn_log_stats(&l)->searches, 1);
    cr_assert_eq(mn_log_stats(&l)->records_scanned, 7);
    mn_log_free(&l);
}

Test(mn_log, the_latest_version_is_each_lus_last_record_then_the_latest_epoch_then_ts)
{
    mn_log_t l;
    mn_init(&l, 2);
    uint64_t a = line_addr(0), b = line_addr(1);
    /* GIVEN three epochs of two LUs, 4 and 6, replicas of lines a and b (each dumps its whole log):
     *   - a.3 and a.5: the later epoch's version (301 of LU 4, 509 of LU 6);
     *   - a.4 in epoch 1: LU 6's dump is stored first, yet its TS 5 (405) is later than LU 4's 4;
     *   - b.3 in epoch 2: LU 6 logged TS 126 then 1 (its last record wins, the TS wrapped), and 1
     *     is after LU 4's 127 too;
     *   - b.7: epoch 1's TS 40 (740) wins over epoch 0's 50 (750): the epoch decides first. */
    lu_rec_t r40[] = {rec(a, 2, 1, 100), rec(a, 5, 1, 500), rec(b, 7, 50, 750)},
             r41[] = {rec(a, 2, 2, 101), rec(a, 3, 2, 301), rec(a, 4, 4, 404)},
             r42[] = {rec(a, 2, 3, 102), rec(a, 6, 3, 602), rec(b, 3, 127, 3)};
    lu_rec_t r60[] = {rec(b, 1, 7, 71), rec(b, 1, 8, 72), rec(a, 3, 1, 300)},
             r61[] = {rec(a, 5, 9, 509), rec(a, 4, 5, 405), rec(b, 7, 40, 740)},
             r62[] = {rec(b, 1, 9, 73), rec(b, 2, 9, 82), rec(b, 3, 126, 1), rec(b, 3, 1, 2)};
    struct {
        unsigned src;
        const lu_rec_t *r;
        size_t n;
    } order[3][2] = {{{4, r40, 3}, {6, r60, 3}}, {{6, r61, 3}, {4, r41, 3}}, {{4, r42, 3}, {6, r62, 4}}};
    for (unsigned e = 0; e < 3; e++) {
        for (unsigned k = 0; k < 2; k++) {
            msg_t q = dump_req(order[e][k].src, e);
            rx_ok(&l, &q);
        }
        for (unsigned k = 0; k < 2; k++) {
            dump_t d = make_dump(order[e][k].src, order[e][k].r, order[e][k].n);
            for (size_t i = 0; i < d.n; i++)
                rx_ok(&l, &d.m[i]);
            free(d.m);
            cr_assert_eq(mn_log_dump(&l, mn_log_ndumps(&l) - 1)->src, order[e][k].src);
        }
        while (mn_log_tx_pending(&l))
            mn_log_tx_pop(&l);
    }
    cr_assert_eq(mn_log_ndumps(&l), 6);
    /* WHEN a and b are fetched THEN per (epoch, TS) group, in the order of its lowest word, the tag
     * its epoch */
    msg_t req[2] = {flv(a, 0xff, 1, false), flv(b, 0xff, 2, true)}, out[2 * WORDS];
    size_t n = mn_log_answer(&l, req, 2, out);
    struct {
        unsigned mask, ts, tag, flags;
        uint64_t v[WORDS];
    } want[7] = {
        {0x44, 3, 2, 0, {[2] = 102, [6] = 602}}, {0x08, 2, 1, 0, {[3] = 301}}, {0x10, 5, 1, 0, {[4] = 405}},
        {0x20, 9, 1, 2, {[5] = 509}},           {0x06, 9, 2, 0, {[1] = 73, [2] = 82}}, {0x08, 1, 2, 0, {[3] = 2}},
        {0x80, 40, 1, 3, {[7] = 740}},
    };
    cr_assert_eq(n, 7, "%zu answers", n);
    for (unsigned i = 0; i < 7; i++) {
        cr_assert(out[i].mask == want[i].mask && out[i].ts == want[i].ts && out[i].tag == want[i].tag &&
                      out[i].flags == want[i].flags && out[i].addr == (i < 4 ? a : b),
                  "answer %u: mask 0x%x ts %u tag %u flags %u", i, out[i].mask, out[i].ts, out[i].tag, out[i].flags);
        for (unsigned w = 0; w < WORDS; w++)
            cr_assert_eq(out[i].data[w], want[i].v[w], "answer %u word %u: %llu", i, w,
                         (unsigned long long)out[i].data[w]);
    }
    cr_assert_eq(mn_log_stats(&l)->records_scanned, 19);
    cr_assert(mn_log_epoch_after(0, 4095) && mn_log_epoch_after(2047, 0) && !mn_log_epoch_after(2048, 0) &&
              !mn_log_epoch_after(3, 3));
    mn_log_free(&l);
}

/* The answer to req from what was found: lu_search.sv's format but for the tag (the group's
 * epoch), written independently of mn_log.c (distinct (epoch, TS) in the order their lowest word
 * comes). */
static size_t ref_answer(const msg_t *req, const mn_log_found_t *f, msg_t *out)
{
    unsigned done = 0, n = 0;
    for (unsigned w = 0; w < WORDS; w++) {
        if (!(f->mask >> w & 1) || (done >> w & 1))
            continue;
        msg_t m = {.opcode = OP_FETCH_LATEST_VERS_RESP, .src = MN_ID, .dst = req->src, .subject = req->subject,
                   .tag = f->epoch[w], .addr = req->addr, .ts = f->ts[w]};
        for (unsigned v = w; v < WORDS; v++)
            if ((f->mask >> v & 1) && f->ts[v] == f->ts[w] && f->epoch[v] == f->epoch[w])
                m.mask |= (uint8_t)(1u << v), m.data[v] = f->value[v];
        done |= m.mask;
        out[n++] = m;
    }
    if (!n)
        out[n++] = (msg_t){.opcode = OP_FETCH_LATEST_VERS_RESP, .src = MN_ID, .dst = req->src,
                           .subject = req->subject, .tag = req->tag, .addr = req->addr};
    out[n - 1].flags = (uint8_t)(2 | (req->flags & 1));
    return n;
}

Test(mn_log, words_never_logged_get_one_answer_with_mask_0)
{
    mn_log_t l;
    mn_init(&l, 1);
    lu_rec_t r[] = {rec(line_addr(0), 1, 4, 41)};
    store_dump(&l, 5, 0, r, 1);
    /* WHEN a line never logged, and words of a logged line that were not, are fetched */
    msg_t req[3] = {flv(line_addr(3), 0xff, 10, false), flv(line_addr(0), 0xfd, 11, false),
                    flv(line_addr(0), 0x02, 12, true)};
    msg_t out[3 * WORDS];
    size_t n = mn_log_answer(&l, req, 3, out);
    /* THEN one message each with mask 0, ts 0, no data, END (and LAST on the last request) */
    cr_assert_eq(n, 3);
    for (unsigned i = 0; i < 2; i++) {
        msg_t want = {.opcode = OP_FETCH_LATEST_VERS_RESP, .src = MN_ID, .dst = DIR_ID, .subject = 7,
                      .tag = (uint16_t)(10 + i), .flags = 2, .addr = req[i].addr};
        cr_assert(msg_equal(&out[i], &want), "answer %u: mask 0x%x ts %u flags %u", i, out[i].mask, out[i].ts,
                  out[i].flags);
        cr_assert_null(msg_check(&out[i]));
    }
    cr_assert(out[2].mask == 0x02 && out[2].data[1] == 41 && out[2].flags == 3);
    mn_log_free(&l);
}

Test(mn_log, an_answer_groups_words_by_ts_with_end_and_last_field_by_field)
{
    mn_log_t l;
    mn_init(&l, 1);
    uint64_t a = line_addr(2);
    /* GIVEN line a: words 0, 2, 7 at ts 5; 1, 4 at ts 9; 5 at ts 7; 6 at ts 9 (not requested); 3 never */
    lu_rec_t r[] = {rec(a, 0, 5, 1000), rec(a, 1, 9, 1001), rec(a, 2, 5, 1002), rec(a, 4, 9, 1004),
                    rec(a, 5, 7, 1005), rec(a, 6, 9, 1006), rec(a, 7, 5, 1007)};
    store_dump(&l, 5, 0, r, sizeof r / sizeof r[0]);
    /* WHEN words 0..5 and 7 are fetched, first without LAST, then again with LAST (through rx; a
     * request's tag is its place in the list) */
    msg_t q0 = flv(a, 0xbf, 0, false), q1 = flv(a, 0xbf, 1, true);
    rx_ok(&l, &q0);
    cr_assert_eq(mn_log_tx_pending(&l), 0, "answered before the list's LAST");
    rx_ok(&l, &q1);
    /* THEN per request: ts 5 (words 0, 2, 7), ts 9 (1, 4), ts 7 (5, END); LAST on the list's last;
     * the tag is the dump's epoch, 0 */
    struct {
        unsigned tag, mask, ts, flags;
    } want[6] = {{0, 0x85, 5, 0}, {0, 0x12, 9, 0}, {0, 0x20, 7, 2},
                 {0, 0x85, 5, 0}, {0, 0x12, 9, 0}, {0, 0x20, 7, 3}};
    cr_assert_eq(mn_log_tx_pending(&l), 6);
    for (unsigned i = 0; i < 6; i++) {
        msg_t m;
        mn_log_tx_peek(&l, &m);
        mn_log_tx_pop(&l);
        cr_assert_eq(m.opcode, OP_FETCH_LATEST_VERS_RESP, "%u", i);
        cr_assert_eq(m.src, MN_ID, "%u", i);
        cr_assert_eq(m.dst, DIR_ID, "%u", i);
        cr_assert_eq(m.core, 0, "%u", i);
        cr_assert_eq(m.subject, 7, "%u", i);
        cr_assert_eq(m.tag, want[i].tag, "%u", i);
        cr_assert_eq(m.addr, a, "%u", i);
        cr_assert_eq(m.mask, want[i].mask, "answer %u: mask 0x%x", i, m.mask);
        cr_assert_eq(m.ts, want[i].ts, "answer %u: ts %u", i, m.ts);
        cr_assert_eq(m.flags, want[i].flags, "answer %u: flags %u", i, m.flags);
        for (unsigned w = 0; w < WORDS; w++)
            cr_assert_eq(m.data[w], (want[i].mask >> w & 1) ? 1000 + w : 0, "answer %u word %u", i, w);
        cr_assert_null(msg_check(&m), "answer %u: %s", i, msg_check(&m));
    }
    /* THEN the list of two took one pass: 7 records scanned */
    const mn_log_stats_t *st = mn_log_stats(&l);
    cr_assert(st->fetch_reqs == 2 && st->fetch_resps == 6 && st->searches == 1 && st->records_scanned == 7);
    mn_log_free(&l);
}

/* The fabric may deliver a list's requests out of order (link jitter): the store answers when the
 * list is complete (LAST's tag + 1 requests of its source), not at LAST; lists of two sources
 * interleave. */
Test(mn_log, a_list_is_answered_when_complete_whatever_the_arrival_order)
{
    mn_log_t l;
    mn_init(&l, 1);
    const uint64_t a = line_addr(2);
    lu_rec_t r[] = {rec(a, 0, 5, 1000)};
    store_dump(&l, 5, 0, r, 1);
    /* GIVEN a list of three from DIR_ID whose LAST overtook the others, and one of two from another
     * source interleaved with it */
    msg_t q[3] = {flv(a, 0x01, 0, false), flv(a, 0x01, 1, false), flv(a, 0x01, 2, true)};
    msg_t o[2] = {flv(a, 0x01, 0, false), flv(a, 0x01, 1, true)};
    o[0].src = o[1].src = DIR_ID + 1;
    rx_ok(&l, &q[2]);
    cr_assert_eq(mn_log_tx_pending(&l), 0, "WHEN LAST comes first THEN nothing is answered yet");
    rx_ok(&l, &o[1]);
    rx_ok(&l, &q[0]);
    cr_assert_eq(mn_log_tx_pending(&l), 0, "nor when one of its list's others has come");
    rx_ok(&l, &o[0]);
    cr_assert_eq(mn_log_tx_pending(&l), 4, "WHEN the other source's list is complete THEN all four collected are "
                 "answered (one pass)");
    rx_ok(&l, &q[1]);
    cr_assert_eq(mn_log_tx_pending(&l), 5, "AND the straggler completes DIR_ID's list and is answered");
    unsigned ends = 0;
    while (mn_log_tx_pending(&l)) {
        msg_t m;
        mn_log_tx_peek(&l, &m);
        mn_log_tx_pop(&l);
        cr_assert(m.mask == 0x01 && m.data[0] == 1000, "every request finds word 0");
        ends += (m.flags & 2) != 0;
    }
    cr_assert_eq(ends, 5, "one END per request");
    cr_assert_eq(mn_log_stats(&l)->searches, 2);
    mn_log_free(&l);
}

/* ------------------------------------------------------------------------------------------------
 * Randomized: several LUs, several epochs, chunks of the group interleaved at random, random
 * searches, against a reference that keeps every record sent and scans them itself. */

#define RND_LUS 3
#define RND_LINES 24

/* Random dumps (12 epochs of three LUs, up to 600 records each, few lines and TS) and random
 * FETCH_LATEST_VERS lists after each epoch, against a reference that keeps every record; a compact
 * store (cfg.compact, the system's) gives the same answers and counters and keeps no record. */
static void random_dumps_and_searches(bool compact)
{
    uint64_t seed = tb_seed(61);
    char ctx[120], at[160];
    snprintf(ctx, sizeof ctx, "mn_log random%s seed=%llu (replay: TB_SEED=%llu)", compact ? " compact" : "",
             (unsigned long long)seed, (unsigned long long)seed);
    cleanup_set_note(ctx);
    rng_t rng;
    rng_init_named(&rng, seed, "mn_log_test.random");
    mn_log_t l;
    cr_assert_eq(mn_log_init(&l, &(mn_log_cfg_t){.node_id = MN_ID, .lus_per_epoch = RND_LUS, .compact = compact}), 0);
    const unsigned src[RND_LUS] = {2, 0, 11}, by_id[RND_LUS] = {0, 2, 11};
    /* the reference: every record stored, in the order the dumps end, with its LU (index) and epoch */
    lu_rec_t *all = NULL;
    unsigned *all_k = NULL, *all_e = NULL;
    size_t nall = 0, nsrc[RND_LUS] = {0}, scanned = 0;
    for (unsigned e = 0; e < 12; e++) {
        /* each LU's dump of this epoch: 0 .. 600 records (an empty dump too) */
        dump_t d[RND_LUS];
        lu_rec_t *r[RND_LUS];
        size_t n[RND_LUS], next[RND_LUS] = {0};
        for (unsigned k = 0; k < RND_LUS; k++) {
            n[k] = rng_chance(&rng, 0.1) ? 0 : rng_below(&rng, 601);
            r[k] = calloc(n[k] ? n[k] : 1, sizeof *r[k]);
            for (size_t i = 0; i < n[k]; i++) {
                r[k][i] = rec(line_addr((unsigned)rng_below(&rng, RND_LINES)), (unsigned)rng_below(&rng, WORDS),
                              (unsigned)rng_below(&rng, 4), rng_next(&rng)); /* few TS: groups */
                r[k][i].cn = (unsigned)rng_below(&rng, 32), r[k][i].core = (unsigned)rng_below(&rng, 16);
            }
            d[k] = make_dump(src[k], r[k], n[k]);
        }
        /* DUMP_REQs in random order; DUMP_GO only with the last */
        unsigned perm[RND_LUS] = {0, 1, 2};
        for (unsigned k = RND_LUS - 1; k > 0; k--) {
            unsigned j = (unsigned)rng_below(&rng, k + 1), t = perm[k];
            perm[k] = perm[j], perm[j] = t;
        }
        for (unsigned k = 0; k < RND_LUS; k++) {
            msg_t q = dump_req(src[perm[k]], e);
            snprintf(at, sizeof at, "%s: epoch %u: ", ctx, e);
            rx_ok_in(at, &l, &q);
            cr_assert_eq(mn_log_tx_pending(&l), k + 1 < RND_LUS ? 0 : RND_LUS, "%s: epoch %u", ctx, e);
        }
        while (mn_log_tx_pending(&l))
            mn_log_tx_pop(&l);
        /* chunks interleaved at random; DUMP_DONE only with the last dump's LAST chunk */
        for (unsigned left = RND_LUS; left;) {
            unsigned k = (unsigned)rng_below(&rng, RND_LUS);
            if (next[k] == d[k].n)
                continue;
            rx_ok_in(at, &l, &d[k].m[next[k]]);
            if (++next[k] == d[k].n) {
                all = realloc(all, (nall + n[k] + 1) * sizeof *all);
                all_k = realloc(all_k, (nall + n[k] + 1) * sizeof *all_k);
                all_e = realloc(all_e, (nall + n[k] + 1) * sizeof *all_e);
                cr_assert(all && all_k && all_e);
                memcpy(all + nall, r[k], n[k] * sizeof *all);
                for (size_t i = 0; i < n[k]; i++)
                    all_k[nall + i] = k, all_e[nall + i] = e;
                nall += n[k], nsrc[k] += n[k];
                left--;
            }
            cr_assert_eq(mn_log_tx_pending(&l), left ? 0 : RND_LUS, "%s: epoch %u: %u dumps left", ctx, e, left);
        }
        for (unsigned k = 0; k < RND_LUS; k++) { /* to each, in node id order */
            expect_tx_in(at, &l, OP_DUMP_DONE, by_id[k], e);
            free(d[k].m);
            free(r[k]);
        }
        /* a random list of FETCH_LATEST_VERS (some lines twice), answered at its LAST */
        unsigned nq = 1 + (unsigned)rng_below(&rng, 10);
        msg_t req[10], got[10 * WORDS], want[WORDS];
        for (unsigned i = 0; i < nq; i++) {
            uint8_t mask = rng_chance(&rng, 0.5) ? 0xff : (uint8_t)rng_next(&rng);
            req[i] = flv(line_addr((unsigned)rng_below(&rng, RND_LINES + 2)), mask, i, i + 1 == nq);
            rx_ok_in(at, &l, &req[i]);
        }
        size_t ng = 0;
        for (msg_t m; mn_log_tx_peek(&l, &m); mn_log_tx_pop(&l))
            got[ng++] = m;
        size_t g = 0;
        for (unsigned i = 0; i < nq; i++) {
            /* per word: each LU's last record; of those the latest epoch, then the later TS (ts in
             * 0 .. 3: plain order), then the lowest node id */
            mn_log_found_t f = {0};
            for (unsigned w = 0; w < WORDS; w++) {
                if (!(req[i].mask >> w & 1))
                    continue;
                long best = -1;
                for (unsigned kk = 0; kk < RND_LUS; kk++) {
                    unsigned k = 0;
                    while (src[k] != by_id[kk])
                        k++;
                    long last = -1;
                    for (size_t x = 0; x < nall; x++)
                        if (all_k[x] == k && all[x].line == req[i].addr && all[x].word == w)
                            last = (long)x;
                    if (last >= 0 && (best < 0 || all_e[last] > all_e[best] ||
                                      (all_e[last] == all_e[best] && all[last].ts > all[best].ts)))
                        best = last;
                }
                if (best >= 0) {
                    f.mask |= (uint8_t)(1u << w);
                    f.ts[w] = (uint8_t)all[best].ts, f.epoch[w] = (uint16_t)all_e[best];
                    f.value[w] = all[best].value;
                }
            }
            size_t nw = ref_answer(&req[i], &f, want);
            for (size_t j = 0; j < nw; j++, g++) {
                cr_assert_lt(g, ng, "%s: epoch %u: %zu answers", ctx, e, ng);
                cr_assert(msg_equal(&got[g], &want[j]),
                          "%s: epoch %u request %u answer %zu: mask 0x%x ts %u flags %u, expected mask 0x%x ts %u "
                          "flags %u",
                          ctx, e, i, j, got[g].mask, got[g].ts, got[g].flags, want[j].mask, want[j].ts, want[j].flags);
            }
        }
        cr_assert_eq(g, ng, "%s: epoch %u: %zu answers, expected %zu", ctx, e, ng, g);
        scanned += nall;
    }
    /* THEN every LU's records are stored in order (none kept when compact); the counts agree */
    const mn_log_stats_t *st = mn_log_stats(&l);
    for (unsigned k = 0; k < RND_LUS; k++)
        cr_assert_eq(mn_log_nrecs(&l, src[k]), compact ? 0 : nsrc[k], "%s: LU %u", ctx, src[k]);
    for (size_t i = 0; i < mn_log_ndumps(&l); i++)
        cr_assert_eq(mn_log_dump(&l, i)->bytes == NULL, compact, "%s: dump %zu", ctx, i);
    cr_assert(st->records == nall && st->bytes_decompressed == 16 * nall && st->epochs == 12 &&
                  st->dumps == 12 * RND_LUS && st->searches == 12 && st->records_scanned == scanned && !st->errors,
              "%s: counters", ctx);
    free(all);
    free(all_k);
    free(all_e);
    mn_log_free(&l);
}

Test(mn_log, random_dumps_and_searches_match_a_reference) { random_dumps_and_searches(false); }

Test(mn_log, a_compact_store_answers_random_searches_as_the_reference) { random_dumps_and_searches(true); }

/* Many words, each logged by several LUs in turn (so that a word's versions are inserted before,
 * between and after others while the compact store's version array grows and moves): a compact
 * store answers every word as the full one does. */
Test(mn_log, a_compact_store_answers_as_the_full_one_over_many_words)
{
    const uint64_t seed = tb_seed(62);
    rng_t rng;
    rng_init_named(&rng, seed, "mn_log_test.many");
    enum { LUS = 4, LINES = 3000, EPOCHS = 30, RECS = 600 };
    /* The dumps' messages are kept to the end: allocations between the store's, so that its arrays
     * do not just grow in place. */
    msg_t *keep[EPOCHS * LUS];
    size_t nkeep = 0;
    static const unsigned src[LUS] = {9, 3, 12, 0};
    mn_log_t st[2];
    for (int c = 0; c < 2; c++)
        cr_assert_eq(mn_log_init(&st[c], &(mn_log_cfg_t){.node_id = MN_ID, .lus_per_epoch = LUS, .compact = c}), 0);
    for (unsigned e = 0; e < EPOCHS; e++) {
        for (unsigned k = 0; k < LUS; k++) {
            msg_t q = dump_req(src[k], e);
            for (int c = 0; c < 2; c++)
                rx_ok(&st[c], &q);
        }
        for (int c = 0; c < 2; c++)
            while (mn_log_tx_pending(&st[c]))
                mn_log_tx_pop(&st[c]);
        for (unsigned k = 0; k < LUS; k++) {
            lu_rec_t *r = calloc(RECS, sizeof *r);
            cr_assert_not_null(r);
            for (size_t i = 0; i < RECS; i++)
                r[i] = rec(line_addr((unsigned)rng_below(&rng, LINES)), (unsigned)rng_below(&rng, WORDS),
                           (unsigned)rng_below(&rng, 128), rng_next(&rng));
            dump_t d = make_dump(src[k], r, RECS);
            for (size_t i = 0; i < d.n; i++)
                for (int c = 0; c < 2; c++)
                    rx_ok(&st[c], &d.m[i]);
            keep[nkeep++] = d.m;
            free(r);
        }
        for (int c = 0; c < 2; c++)
            while (mn_log_tx_pending(&st[c]))
                mn_log_tx_pop(&st[c]);
    }
    static uint64_t lines[LINES];
    static uint8_t masks[LINES];
    static mn_log_found_t f[2][LINES];
    for (unsigned i = 0; i < LINES; i++)
        lines[i] = line_addr(i), masks[i] = 0xff;
    for (int c = 0; c < 2; c++)
        mn_log_search(&st[c], lines, masks, LINES, f[c]);
    for (unsigned i = 0; i < LINES; i++)
        cr_assert(memcmp(&f[0][i], &f[1][i], sizeof f[0][i]) == 0,
                  "seed=%llu: line %u: the compact store finds mask 0x%x, the full one 0x%x (or other versions)",
                  (unsigned long long)seed, i, f[1][i].mask, f[0][i].mask);
    cr_assert_eq(mn_log_stats(&st[1])->records_scanned, mn_log_stats(&st[0])->records_scanned);
    for (int c = 0; c < 2; c++)
        mn_log_free(&st[c]);
    for (size_t i = 0; i < nkeep; i++)
        free(keep[i]);
}

/* ------------------------------------------------------------------------------------------------
 * End to end: the Logging Unit's RTL dumps to the MN log store; the MN log's answer to a
 * FETCH_LATEST_VERS list equals the LU's own answer before the dump. */

#define E2E_LINES 24
#define E2E_OUT 8 /* stores between REPL and VAL */

typedef struct e2e_st {
    unsigned line, tag;
    uint8_t mask;
    uint64_t val[WORDS];
    bool acked;
} e2e_st_t;

typedef struct e2e {
    char ctx[160];
    rng_t rng;
    lu_drv_t *d;
    mn_log_t mn;
    e2e_st_t *st;
    size_t nst, created, done;
    uint64_t version[E2E_LINES];
    msg_t *resp; /* FETCH_LATEST_VERS_RESP from the LU */
    size_t nresp;
    unsigned dumps_seen;
    msg_t answer; /* CN 1's answer to the LU's REPL_QUERY, waiting for a DKRSP credit */
    bool answer_due;
} e2e_t;

static void e2e_on_tx(void *ctx, const msg_t *m, uint64_t cyc)
{
    e2e_t *t = ctx;
    switch (m->opcode) {
    case OP_REPL_ACK:
        cr_assert(m->tag < t->created && !t->st[m->tag].acked, "%s: REPL_ACK tag %u", t->ctx, m->tag);
        t->st[m->tag].acked = true;
        return;
    case OP_EARLY_FLUSH: /* the dump's epoch requested of CN 1, the writer, which has no LU here */
        cr_assert_eq(m->dst, 1, "%s: EARLY_FLUSH to %u", t->ctx, m->dst);
        return;
    case OP_FETCH_LATEST_VERS_RESP:
        t->resp = realloc(t->resp, (t->nresp + 1) * sizeof *t->resp);
        cr_assert(t->resp);
        t->resp[t->nresp++] = *m;
        return;
    case OP_REPL_QUERY: { /* CN 1 answers as its engine does: PENDING while the store has no VAL yet */
        cr_assert(m->dst == 1 && m->tag < t->created && !t->answer_due, "%s: REPL_QUERY to %u tag %u", t->ctx, m->dst,
                  m->tag);
        const bool pending = m->tag >= t->done && line_addr(t->st[m->tag].line) == m->addr;
        t->answer = (msg_t){.opcode = OP_REPL_QUERY_RESP, .src = 1, .dst = 0, .core = m->core, .tag = m->tag,
                            .addr = m->addr, .flags = pending ? (uint8_t)MSG_FLAG_PENDING : 0};
        t->answer_due = true;
        return;
    }
    default:
        cr_assert_neq(mn_log_rx(&t->mn, m), MN_LOG_RX_NOT_MINE, "%s cycle=%llu: the LU sent %s", t->ctx,
                      (unsigned long long)cyc, msg_name(m->opcode));
        mn_lu_assert_clean(&t->mn, t->ctx);
    }
}

static void e2e_init(e2e_t *t, uint64_t seed, size_t nst)
{
    memset(t, 0, sizeof *t);
    snprintf(t->ctx, sizeof t->ctx, "mn_log e2e seed=%llu (replay: TB_SEED=%llu)", (unsigned long long)seed,
             (unsigned long long)seed);
    cleanup_set_note(t->ctx);
    rng_init_named(&t->rng, seed, "mn_log_test.e2e");
    lu_drv_cfg_t dc = lu_drv_cfg_default();
    dc.node_id = 0;
    dc.addr_lim = 1ull << 30;
    dc.log_cap = 1u << 20;
    dc.hwm = 1u << 19;
    dc.mn_id = MN_ID;
    dc.num_cn = 2;
    t->d = lu_drv_create(&lu_ops_default, &dc, seed, e2e_on_tx, t);
    cr_assert_eq(mn_log_init(&t->mn, &(mn_log_cfg_t){.node_id = MN_ID, .lus_per_epoch = 1}), 0);
    t->nst = nst;
    t->st = calloc(nst, sizeof *t->st);
    cr_assert(t->st && nst <= (1u << MSG_TAG_W));
}

static void e2e_free(e2e_t *t)
{
    lu_drv_free(t->d);
    mn_log_free(&t->mn);
    free(t->st);
    free(t->resp);
}

/* Stores of CN 1 to random words of the lines (tag = store number), up to E2E_OUT between REPL
 * and VAL; each commits, in order, once acknowledged, with its line's next version as TS. */
static void e2e_run(e2e_t *t)
{
    for (uint64_t cyc = 0; t->done < t->nst; cyc++) {
        cr_assert_lt(cyc, 2000 * (uint64_t)t->nst, "%s: %zu of %zu stores done", t->ctx, t->done, t->nst);
        while (t->created < t->nst && t->created - t->done < E2E_OUT && lu_drv_credits(t->d, CLS_DKREQ)) {
            e2e_st_t *s = &t->st[t->created];
            s->line = rng_chance(&t->rng, 0.2) ? 0 : (unsigned)rng_below(&t->rng, E2E_LINES - 4); /* 4 untouched */
            s->tag = (unsigned)t->created;
            do
                s->mask = rng_chance(&t->rng, 0.4) ? (uint8_t)rng_next(&t->rng)
                                                   : (uint8_t)(1u << rng_below(&t->rng, WORDS));
            while (!s->mask);
            msg_t m = {.opcode = OP_REPL, .src = 1, .dst = 0, .core = 2, .tag = (uint16_t)s->tag,
                       .addr = line_addr(s->line), .mask = s->mask};
            for (unsigned w = 0; w < WORDS; w++)
                if (s->mask >> w & 1)
                    m.data[w] = s->val[w] = rng_next(&t->rng);
            lu_drv_send(t->d, &m, 1 + rng_below(&t->rng, 4));
            t->created++;
        }
        if (t->answer_due && lu_drv_credits(t->d, CLS_DKRSP)) { /* before any later VAL, as the CN's queue */
            lu_drv_send(t->d, &t->answer, 1);
            t->answer_due = false;
        }
        while (!t->answer_due && t->done < t->created && t->st[t->done].acked && lu_drv_credits(t->d, CLS_DKRSP)) {
            e2e_st_t *s = &t->st[t->done++];
            uint64_t v = ++t->version[s->line];
            msg_t m = {.opcode = OP_VAL, .src = 1, .dst = 0, .core = 2, .tag = (uint16_t)s->tag,
                       .addr = line_addr(s->line), .ts = (uint8_t)(v & 127)};
            lu_drv_send(t->d, &m, 1);
        }
        lu_drv_step(t->d);
    }
    for (int i = 0; i < 100000 && !lu_drv_idle(t->d); i++)
        lu_drv_step(t->d);
    cr_assert(lu_drv_idle(t->d), "%s: the LU did not settle", t->ctx);
}

/* The LU dumps (the dump period) to the MN log store, which answers it; until the DUMP_DONE is
 * taken and the LU is idle again. */
static void e2e_dump(e2e_t *t)
{
    uint64_t before = mn_log_stats(&t->mn)->epochs;
    lu_drv_dump_start(t->d);
    int i = 0;
    do {
        mn_lu_pump(&t->mn, t->d, 10);
        lu_drv_step(t->d);
    } while (++i < 500000 && !(mn_log_stats(&t->mn)->epochs > before && !mn_log_tx_pending(&t->mn) &&
                               lu_drv_idle(t->d)));
    cr_assert_eq(mn_log_stats(&t->mn)->epochs, before + 1, "%s: the dump did not finish", t->ctx);
    cr_assert(lu_drv_idle(t->d), "%s: the LU did not settle after its dump", t->ctx);
    bool err = true;
    cr_assert_eq(lu_drv_csr(t->d, LU_CSR_LOG_COUNT, &err), 0, "%s: the LU's log was not cleared", t->ctx);
    cr_assert(!err);
}

/* A FETCH_LATEST_VERS list: every line (and two never written), random masks, LAST on the last. */
static size_t e2e_list(e2e_t *t, msg_t *req)
{
    size_t n = 0;
    for (unsigned i = 0; i < E2E_LINES; i++) {
        uint8_t mask = rng_chance(&t->rng, 0.6) ? 0xff : (uint8_t)rng_next(&t->rng);
        req[n] = flv(line_addr(i), mask, i, false);
        n++;
    }
    req[n - 1].flags = 1;
    return n;
}

/* The LU's answer to the list (sent to it as the directory controller DIR_ID would). */
static size_t e2e_ask_lu(e2e_t *t, const msg_t *req, size_t n, msg_t **out)
{
    size_t from = t->nresp, ended = 0;
    for (size_t i = 0; i < n; i++) {
        msg_t q = req[i];
        q.dst = 0;
        lu_send_when_credit(t->d, &q);
    }
    for (uint64_t c = 0; ended < n; c++) {
        cr_assert_lt(c, 1000000, "%s: %zu of %zu requests answered by the LU", t->ctx, ended, n);
        lu_drv_step(t->d);
        ended = 0;
        for (size_t k = from; k < t->nresp; k++)
            ended += (t->resp[k].flags & 2) != 0;
    }
    *out = t->resp + from;
    return t->nresp - from;
}

/* The MN log store's answer to the list, through mn_log_rx (answered at the list's LAST). */
static size_t e2e_ask_mn(e2e_t *t, const msg_t *req, size_t n, msg_t *out)
{
    for (size_t i = 0; i < n; i++) {
        mn_log_rx_e r = mn_log_rx(&t->mn, &req[i]);
        cr_assert_eq(r, MN_LOG_RX_OK, "%s: FETCH_LATEST_VERS %zu", t->ctx, i);
        if (i + 1 < n)
            cr_assert_eq(mn_log_tx_pending(&t->mn), 0, "%s: answered before the list's LAST", t->ctx);
    }
    size_t k = 0;
    for (msg_t m; mn_log_tx_peek(&t->mn, &m); mn_log_tx_pop(&t->mn))
        out[k++] = m;
    return k;
}

Test(mn_log, end_to_end_the_mn_log_answers_as_the_lu_did_before_its_dump)
{
    e2e_t t;
    e2e_init(&t, tb_seed(62), 1500);
    /* GIVEN the LU's log after a run of stores (every store validated and drained) */
    e2e_run(&t);
    size_t nlog = lu_drv_log_writes(t.d);
    cr_assert_gt(nlog, 1500);
    /* GIVEN the LU's own answer to a FETCH_LATEST_VERS list */
    msg_t req[E2E_LINES], *lu_ans;
    size_t nreq = e2e_list(&t, req);
    size_t nlu = e2e_ask_lu(&t, req, nreq, &lu_ans);
    msg_t *lu_copy = malloc(nlu * sizeof *lu_copy);
    cr_assert(lu_copy);
    memcpy(lu_copy, lu_ans, nlu * sizeof *lu_copy);
    /* WHEN the LU dumps its log to the MN */
    e2e_dump(&t);
    cr_assert_eq(mn_log_nrecs(&t.mn, 0), nlog, "%s: the MN holds %zu of the log's %zu records", t.ctx,
                 mn_log_nrecs(&t.mn, 0), nlog);
    /* THEN the MN log store answers the same list exactly as the LU did (but for the source, and the
     * tag of a group found: its epoch) */
    msg_t mn_ans[E2E_LINES * WORDS];
    size_t nmn = e2e_ask_mn(&t, req, nreq, mn_ans);
    cr_assert_eq(nmn, nlu, "%s: %zu answers from the MN, %zu from the LU", t.ctx, nmn, nlu);
    unsigned groups = 0, empty = 0;
    for (size_t i = 0; i < nlu; i++) {
        msg_t want = lu_copy[i];
        cr_assert_eq(want.src, 0);
        want.src = MN_ID;
        if (want.mask)
            want.tag = 0; /* the dump's epoch */
        cr_assert(msg_equal(&mn_ans[i], &want),
                  "%s: answer %zu: MN tag %u mask 0x%x ts %u flags %u, the LU's tag %u mask 0x%x ts %u flags %u",
                  t.ctx, i, mn_ans[i].tag, mn_ans[i].mask, mn_ans[i].ts, mn_ans[i].flags, want.tag, want.mask,
                  want.ts, want.flags);
        groups += !(want.flags & 2);
        empty += want.mask == 0;
    }
    cr_assert(groups > 0 && empty >= 4, "%s: %u answers not the last of their request, %u with mask 0", t.ctx,
              groups, empty);
    /* THEN the LU itself, its log cleared, now finds nothing: the answer really is the MN's */
    msg_t *after;
    size_t nafter = e2e_ask_lu(&t, req, nreq, &after);
    cr_assert_eq(nafter, nreq);
    for (size_t i = 0; i < nafter; i++)
        cr_assert_eq(after[i].mask, 0, "%s: the LU still has line %zu", t.ctx, i);
    const mn_log_stats_t *st = mn_log_stats(&t.mn);
    cr_log_info("%s: %zu records, %llu bytes compressed into %llu (%llu in chunks), one pass of %llu records",
                t.ctx, nlog, (unsigned long long)st->bytes_decompressed, (unsigned long long)st->bytes_stream,
                (unsigned long long)st->bytes_compressed, (unsigned long long)st->records_scanned);
    cr_assert(st->searches == 1 && st->records_scanned == nlog);
    free(lu_copy);
    e2e_free(&t);
}

/* An MN that no LU dumps to (more MNs than CNs: lu_map_lus_of_mn gives 0) has a store of its own
 * with no LU per epoch: it refuses a DUMP_REQ and answers a search with nothing. (mn_log_init
 * refused it, and every DIKTAMO run on 6 CNs and 8 MNs failed to start.) */
Test(mn_log, a_store_no_lu_dumps_to_answers_with_nothing)
{
    mn_log_t l;
    mn_init(&l, 0);
    msg_t q = dump_req(3, 0);
    rx_err(&l, &q, MN_LOG_E_REQ_EXTRA);
    cr_assert_eq(mn_log_tx_pending(&l), 0, "a DUMP_GO to an LU the store does not synchronize");
    msg_t f = flv(5, 0xff, 0, true);
    rx_ok(&l, &f);
    msg_t a = expect_tx(&l, OP_FETCH_LATEST_VERS_RESP, DIR_ID, 0);
    cr_assert_eq(a.mask, 0);
    mn_log_free(&l);
}
