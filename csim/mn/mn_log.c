#include "mn/mn_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define TAGS (1u << MSG_TAG_W)

static const char *const err_names[MN_LOG_E_KINDS] = {
    [MN_LOG_E_DST] = "E_DST",           [MN_LOG_E_MALFORMED] = "E_MALFORMED", [MN_LOG_E_EPOCH] = "E_EPOCH",
    [MN_LOG_E_REQ_TWICE] = "E_REQ_TWICE", [MN_LOG_E_REQ_EXTRA] = "E_REQ_EXTRA", [MN_LOG_E_NO_DUMP] = "E_NO_DUMP",
    [MN_LOG_E_ORDER] = "E_ORDER",         [MN_LOG_E_PARTIAL] = "E_PARTIAL",     [MN_LOG_E_INFLATE] = "E_INFLATE",
    [MN_LOG_E_PADDING] = "E_PADDING",     [MN_LOG_E_RECORD] = "E_RECORD",
};

const char *mn_log_err_name(mn_log_err_kind_t k) { return (unsigned)k < MN_LOG_E_KINDS ? err_names[k] : "?"; }

/* Grows *p (elements of size sz) to hold at least n; aborts when memory runs out (the simulator
 * cannot go on without it). */
static void grow(void **p, size_t *cap, size_t n, size_t sz, size_t first)
{
    if (n <= *cap)
        return;
    size_t c = *cap ? *cap : first;
    while (c < n)
        c *= 2;
    void *q = realloc(*p, c * sz);
    if (!q)
        abort();
    *p = q;
    *cap = c;
}

static void report(mn_log_t *l, mn_log_err_kind_t k, const msg_t *m, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void report(mn_log_t *l, mn_log_err_kind_t k, const msg_t *m, const char *fmt, ...)
{
    grow((void **)&l->errs, &l->caperrs, l->nerrs + 1, sizeof *l->errs, 16);
    mn_log_err_t *e = &l->errs[l->nerrs++];
    e->kind = k;
    e->msg = *m;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->what, sizeof e->what, fmt, ap);
    va_end(ap);
    l->st.errors++;
    l->st.err[k]++;
}

static void queue_tx(mn_log_t *l, const msg_t *m)
{
    if (l->tx_n == l->tx_cap) { /* unwrap the ring into a larger one */
        size_t nc = l->tx_cap ? 2 * l->tx_cap : 64;
        msg_t *nv = malloc(nc * sizeof *nv);
        if (!nv)
            abort();
        for (size_t i = 0; i < l->tx_n; i++)
            nv[i] = l->tx[(l->tx_head + i) % l->tx_cap];
        free(l->tx);
        l->tx = nv, l->tx_cap = nc, l->tx_head = 0;
    }
    l->tx[(l->tx_head + l->tx_n++) % l->tx_cap] = *m;
}

int mn_log_init(mn_log_t *l, const mn_log_cfg_t *cfg)
{
    memset(l, 0, sizeof *l);
    l->cfg = *cfg;
    if (cfg->node_id >= MN_LOG_NODES || cfg->lus_per_epoch > MN_LOG_NODES)
        return -1;
    return 0;
}

void mn_log_free(mn_log_t *l)
{
    for (unsigned s = 0; s < MN_LOG_NODES; s++) {
        free(l->src[s].bytes);
        free(l->src[s].got);
        free(l->src[s].recs);
    }
    for (size_t i = 0; i < l->ndumps; i++)
        free(l->dumps[i].bytes);
    free(l->dumps);
    idmap_free(&l->vheads);
    free(l->vers);
    free(l->tx);
    free(l->flv);
    free(l->errs);
    memset(l, 0, sizeof *l);
}

size_t mn_log_tx_pending(const mn_log_t *l) { return l->tx_n; }

bool mn_log_tx_peek(const mn_log_t *l, msg_t *m)
{
    if (!l->tx_n)
        return false;
    *m = l->tx[l->tx_head];
    return true;
}

void mn_log_tx_pop(mn_log_t *l)
{
    if (!l->tx_n)
        return;
    l->tx_head = (l->tx_head + 1) % l->tx_cap;
    l->tx_n--;
}

const lu_rec_t *mn_log_recs(const mn_log_t *l, unsigned src) { return src < MN_LOG_NODES ? l->src[src].recs : NULL; }
size_t mn_log_nrecs(const mn_log_t *l, unsigned src) { return src < MN_LOG_NODES ? l->src[src].nrecs : 0; }
size_t mn_log_ndumps(const mn_log_t *l) { return l->ndumps; }
const mn_log_dump_t *mn_log_dump(const mn_log_t *l, size_t i) { return i < l->ndumps ? &l->dumps[i] : NULL; }
const mn_log_stats_t *mn_log_stats(const mn_log_t *l) { return &l->st; }
size_t mn_log_nerrors(const mn_log_t *l) { return l->nerrs; }
const mn_log_err_t *mn_log_error(const mn_log_t *l, size_t i) { return i < l->nerrs ? &l->errs[i] : NULL; }

/* ------------------------------------------------------------------------------------------------
 * Dumps */

/* The first synchronization: once every LU of the epoch has asked, DUMP_GO to each. */
static void sync_go(mn_log_t *l)
{
    if (l->asked == 0 || l->asked < l->cfg.lus_per_epoch)
        return;
    for (unsigned k = 0; k < MN_LOG_NODES; k++)
        if (l->src[k].asked && !l->src[k].go) {
            l->src[k].go = true;
            queue_tx(l, &(msg_t){.opcode = OP_DUMP_GO, .src = (uint8_t)l->cfg.node_id, .dst = (uint8_t)k,
                             .tag = l->epoch});
        }
}

/* The second synchronization: once every dump of the epoch is stored, DUMP_DONE to each, and the
 * next epoch. */
static void sync_done(mn_log_t *l)
{
    bool any = false;
    for (unsigned k = 0; k < MN_LOG_NODES; k++) {
        if (l->src[k].go && !l->src[k].ended)
            return;
        any = any || l->src[k].go;
    }
    if (!any)
        return;
    for (unsigned k = 0; k < MN_LOG_NODES; k++) {
        mn_log_src_t *x = &l->src[k];
        if (x->go)
            queue_tx(l, &(msg_t){.opcode = OP_DUMP_DONE, .src = (uint8_t)l->cfg.node_id, .dst = (uint8_t)k,
                             .tag = l->epoch});
        x->asked = x->go = x->ended = false;
    }
    l->asked = 0;
    l->epoch = (uint16_t)((l->epoch + 1) % TAGS);
    l->st.epochs++;
}

void mn_log_drop_lu(mn_log_t *l, unsigned src)
{
    if (src >= MN_LOG_NODES || l->cfg.lus_per_epoch == 0)
        return;
    mn_log_src_t *s = &l->src[src];
    l->cfg.lus_per_epoch--;
    if (s->asked)
        l->asked--;
    if (s->chunks)
        l->st.dumps_discarded++;
    free(s->bytes);
    free(s->got);
    s->bytes = s->got = NULL;
    s->n = s->cap = s->chunks = s->total = 0;
    s->asked = s->go = s->ended = s->broken = false;
    s->dropped = true;
    sync_go(l);
    sync_done(l);
}

static void dump_req(mn_log_t *l, const msg_t *m)
{
    mn_log_src_t *s = &l->src[m->src];
    if (m->tag != l->epoch) {
        report(l, MN_LOG_E_EPOCH, m, "DUMP_REQ from %u for epoch %u, the MN is at epoch %u", m->src, m->tag, l->epoch);
        return;
    }
    if (s->asked) {
        report(l, MN_LOG_E_REQ_TWICE, m, "DUMP_REQ from %u: it already asked in epoch %u", m->src, l->epoch);
        return;
    }
    if (l->asked == l->cfg.lus_per_epoch) {
        report(l, MN_LOG_E_REQ_EXTRA, m, "DUMP_REQ from %u: epoch %u already has its %u LUs", m->src, l->epoch,
               l->cfg.lus_per_epoch);
        return;
    }
    s->asked = true;
    l->asked++;
    sync_go(l);
}

/* Inflates the dump under way of source s (its LAST chunk is m) into records appended to s->recs.
 * Returns false when it does not inflate into whole records (nothing appended). */
static bool inflate_dump(mn_log_t *l, unsigned src, const msg_t *m, size_t *stream_bytes)
{
    mn_log_src_t *s = &l->src[src];
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK)
        abort();
    z.next_in = s->bytes;
    z.avail_in = (uInt)s->n;
    size_t first = s->nrecs;
    uint8_t part[MN_LOG_REC_BYTES]; /* a record split across two output buffers */
    size_t npart = 0;
    uint8_t buf[16 * 1024];
    int rc;
    do {
        z.next_out = buf;
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END)
            break;
        size_t out = sizeof buf - z.avail_out;
        if (rc == Z_OK && out == 0 && z.avail_in == 0)
            break; /* the bytes end before the stream does */
        for (size_t i = 0; i < out; i++) {
            part[npart++] = buf[i];
            if (npart < MN_LOG_REC_BYTES)
                continue;
            npart = 0;
            uint32_t x[4];
            memcpy(x, part, sizeof x);
            grow((void **)&s->recs, &s->caprecs, s->nrecs + 1, sizeof *s->recs, 1024);
            lu_rec_unpack(x, &s->recs[s->nrecs++]);
        }
    } while (rc != Z_STREAM_END);
    bool ok = rc == Z_STREAM_END && npart == 0;
    if (!ok) {
        const char *why = rc == Z_STREAM_END                ? "not whole records"
                          : rc == Z_OK || rc == Z_BUF_ERROR ? "the stream is cut short"
                          : z.msg                           ? z.msg
                                                            : "zlib error";
        report(l, MN_LOG_E_INFLATE, m, "the dump of %u (%zu chunks) does not inflate: %s after %lu bytes out", src,
               s->chunks, why, (unsigned long)z.total_out);
        s->nrecs = first;
    } else {
        *stream_bytes = z.total_in;
        size_t bad = 0;
        for (size_t i = z.total_in; i < s->n; i++)
            bad += s->bytes[i] != 0;
        if (bad)
            report(l, MN_LOG_E_PADDING, m, "the dump of %u: %zu non-zero bytes after its stream (bytes %lu .. %zu)",
                   src, bad, (unsigned long)z.total_in, s->n - 1);
        size_t unmarked = 0, first_unmarked = 0;
        for (size_t i = first; i < s->nrecs; i++)
            if (!s->recs[i].written && !unmarked++)
                first_unmarked = i - first;
        if (unmarked)
            report(l, MN_LOG_E_RECORD, m,
                   "the dump of %u: %zu records without the written marker (the first: record %zu)", src, unmarked,
                   first_unmarked);
    }
    inflateEnd(&z);
    return ok;
}

/* A compact store keeps record r of source src's dump of this epoch as the source's last version
 * of its word (written records only: a search never returns the others). */
static void keep_version(mn_log_t *l, unsigned src, const lu_rec_t *r)
{
    if (!r->written)
        return;
    uint32_t *head = idmap_get(&l->vheads, r->line * MSG_WORDS_PER_LINE + r->word + 1, true, NULL);
    uint32_t prev = UINT32_MAX, at = *head; /* the word's version of src, or where it goes */
    while (at != UINT32_MAX && l->vers[at].src < src)
        prev = at, at = l->vers[at].next;
    if (at == UINT32_MAX || l->vers[at].src != src) {
        if (l->nvers >= UINT32_MAX - 1)
            abort();
        grow((void **)&l->vers, &l->capvers, l->nvers + 1, sizeof *l->vers, 1024); /* moves vers */
        l->vers[l->nvers] = (struct mn_log_ver){.next = at, .src = (uint8_t)src};
        at = (uint32_t)l->nvers++;
        *(prev == UINT32_MAX ? head : &l->vers[prev].next) = at;
    }
    struct mn_log_ver *v = &l->vers[at];
    v->value = r->value;
    v->epoch = l->epoch;
    v->ts = (uint8_t)r->ts;
}

/* The LAST chunk of source src's dump arrived: store the dump (or discard it), and when every LU of
 * the epoch has ended its dump, the second synchronization. */
static void end_dump(mn_log_t *l, unsigned src, const msg_t *m)
{
    mn_log_src_t *s = &l->src[src];
    size_t first = s->nrecs, stream = 0;
    if (!s->broken && inflate_dump(l, src, m, &stream)) {
        grow((void **)&l->dumps, &l->capdumps, l->ndumps + 1, sizeof *l->dumps, 16);
        l->dumps[l->ndumps++] = (mn_log_dump_t){.src = src, .epoch = l->epoch, .bytes = s->bytes,
                                                .chunks = s->chunks, .stream_bytes = stream, .first = first,
                                                .nrecs = s->nrecs - first};
        l->st.dumps++;
        l->st.chunks += s->chunks;
        l->st.bytes_compressed += s->n;
        l->st.bytes_stream += stream;
        l->st.records += s->nrecs - first;
        l->st.bytes_decompressed += (uint64_t)(s->nrecs - first) * MN_LOG_REC_BYTES;
        s->bytes = NULL; /* the dump keeps them */
        s->cap = 0;
        if (l->cfg.compact) { /* of the dump, only each word's last version */
            mn_log_dump_t *dp = &l->dumps[l->ndumps - 1];
            for (size_t i = first; i < s->nrecs; i++)
                keep_version(l, src, &s->recs[i]);
            free(dp->bytes);
            dp->bytes = NULL;
            dp->first = 0;
            free(s->recs);
            s->recs = NULL;
            s->nrecs = s->caprecs = 0;
        }
    } else {
        l->st.dumps_discarded++;
    }
    s->n = s->chunks = s->total = 0;
    free(s->got);
    s->got = NULL;
    s->broken = false;
    s->ended = true;
    sync_done(l);
}

/* A chunk of a dump: the fabric may deliver them in any order (link jitter), so each goes to its
 * place (its addr), and the dump ends once every chunk up to its LAST has come. A bad chunk (a tag
 * not its addr's, not a whole line) or a message too many (a chunk repeated, beyond LAST, a LAST
 * below a chunk that came) breaks the dump: it is discarded when it ends. */
static void dump_data(mn_log_t *l, const msg_t *m)
{
    mn_log_src_t *s = &l->src[m->src];
    bool last = m->flags & MSG_FLAG_LAST;
    if (!s->go || s->ended) {
        report(l, MN_LOG_E_NO_DUMP, m, "DUMP_DATA tag %u from %u, which has no dump under way (%s)", m->tag, m->src,
               s->ended ? "its LAST chunk came already" : "no DUMP_GO sent to it");
        return;
    }
    const uint64_t i = m->addr;
    const size_t have = s->n / MSG_LINE_BYTES;
    const char *extra = i >= MN_LOG_MAX_CHUNKS                      ? "beyond the most chunks a dump has"
                        : i < have && (s->got[i / 8] >> (i % 8) & 1u) ? "a chunk that came already"
                        : s->total && i >= s->total                   ? "beyond its dump's LAST chunk"
                        : last && (s->total || i + 1 < have)          ? "a LAST below a chunk that came"
                                                                      : NULL;
    if (extra) { /* a message too many: not a chunk of the dump */
        report(l, MN_LOG_E_ORDER, m, "DUMP_DATA from %u: tag %u addr %llu: %s", m->src, m->tag, (unsigned long long)i,
               extra);
        s->broken = true;
        if (last && !s->total)
            end_dump(l, m->src, m); /* nothing else says where the dump ends */
        return;
    }
    if (m->tag != i % TAGS) {
        report(l, MN_LOG_E_ORDER, m, "DUMP_DATA from %u: tag %u addr %llu: its tag is not its addr's", m->src,
               m->tag, (unsigned long long)i);
        s->broken = true;
    } else if (m->mask != 0xff) {
        report(l, MN_LOG_E_PARTIAL, m, "DUMP_DATA %llu from %u: mask 0x%02x, not a whole 64-byte line",
               (unsigned long long)i, m->src, m->mask);
        s->broken = true;
    }
    /* chunk i, in its place (a bad one too: it still counts toward the dump's end) */
    if (i >= have) {
        grow((void **)&s->bytes, &s->cap, (size_t)(i + 1) * MSG_LINE_BYTES, 1, 4096);
        memset(s->bytes + s->n, 0, (size_t)(i + 1) * MSG_LINE_BYTES - s->n);
        size_t gb = (size_t)(i + 8) / 8, ob = (have + 7) / 8;
        if (gb > ob) {
            s->got = realloc(s->got, gb);
            if (!s->got)
                abort();
            memset(s->got + ob, 0, gb - ob);
        }
        s->n = (size_t)(i + 1) * MSG_LINE_BYTES;
    }
    memcpy(s->bytes + i * MSG_LINE_BYTES, m->data, MSG_LINE_BYTES);
    s->got[i / 8] |= (uint8_t)(1u << (i % 8));
    s->chunks++;
    if (last)
        s->total = (size_t)i + 1;
    if (s->total && s->chunks == s->total)
        end_dump(l, m->src, m);
}

/* ------------------------------------------------------------------------------------------------
 * Search */

typedef struct qref {
    uint64_t line;
    size_t i;
} qref_t;

static int qref_cmp(const void *a, const void *b)
{
    const qref_t *x = a, *y = b;
    return x->line < y->line ? -1 : x->line > y->line ? 1 : (x->i > y->i) - (x->i < y->i);
}

bool mn_log_ts_after(unsigned a, unsigned b)
{
    unsigned d = (a - b) & 127u;
    return d >= 1 && d <= 63;
}

bool mn_log_epoch_after(unsigned a, unsigned b)
{
    unsigned d = (a - b) & (TAGS - 1u);
    return d >= 1 && d < TAGS / 2;
}

bool mn_log_newer(unsigned epoch_a, unsigned ts_a, unsigned epoch_b, unsigned ts_b)
{
    return mn_log_epoch_after(epoch_a, epoch_b) || (epoch_a == epoch_b && mn_log_ts_after(ts_a, ts_b));
}

/* One source's latest version of word w (epoch, ts, value) against what f holds from the sources
 * before it: it replaces it when f has none or it is newer. */
static void take_newer(mn_log_found_t *f, unsigned w, uint16_t epoch, uint8_t ts, uint64_t value)
{
    if ((f->mask >> w & 1) && !mn_log_newer(epoch, ts, f->epoch[w], f->ts[w]))
        return;
    f->mask |= (uint8_t)(1u << w);
    f->ts[w] = ts;
    f->epoch[w] = epoch;
    f->value[w] = value;
}

void mn_log_search(mn_log_t *l, const uint64_t *lines, const uint8_t *masks, size_t n, mn_log_found_t *found)
{
    memset(found, 0, n * sizeof *found);
    if (l->cfg.compact) { /* each word's versions, by source id, as the pass below takes them */
        for (size_t i = 0; i < n; i++)
            for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++) {
                const uint32_t *p = masks[i] >> w & 1
                                        ? idmap_get(&l->vheads, lines[i] * MSG_WORDS_PER_LINE + w + 1, false, NULL)
                                        : NULL;
                for (uint32_t v = p ? *p : UINT32_MAX; v != UINT32_MAX; v = l->vers[v].next)
                    take_newer(&found[i], w, l->vers[v].epoch, l->vers[v].ts, l->vers[v].value);
            }
        l->st.records_scanned += l->st.records;
        l->st.searches++;
        return;
    }
    qref_t *q = malloc((n ? n : 1) * sizeof *q);
    mn_log_found_t *mine = calloc(n ? n : 1, sizeof *mine); /* one source LU's latest */
    if (!q || !mine)
        abort();
    for (size_t i = 0; i < n; i++)
        q[i] = (qref_t){lines[i], i};
    qsort(q, n, sizeof *q, qref_cmp);
    /* One pass, source LU by source LU: its dumps in the order they were stored (epoch order),
     * records in dump order, a later record of a word replacing an earlier one (an LU logs a word's
     * versions in order); then its latest of each word against the other sources' by epoch, and
     * within an epoch by TS. A record is matched against the queries by binary search on the line. */
    for (unsigned s = 0; s < MN_LOG_NODES; s++) {
        if (!l->src[s].nrecs)
            continue;
        memset(mine, 0, n * sizeof *mine);
        for (size_t d = 0; d < l->ndumps; d++) {
            const mn_log_dump_t *dp = &l->dumps[d];
            if (dp->src != s)
                continue;
            const lu_rec_t *r = l->src[s].recs + dp->first;
            for (size_t k = 0; k < dp->nrecs; k++, r++) {
                if (!r->written || !n)
                    continue;
                size_t lo = 0, hi = n;
                while (lo < hi) {
                    size_t mid = (lo + hi) / 2;
                    if (q[mid].line < r->line)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                for (; lo < n && q[lo].line == r->line; lo++) {
                    size_t i = q[lo].i;
                    if (!(masks[i] >> r->word & 1))
                        continue;
                    mine[i].mask |= (uint8_t)(1u << r->word);
                    mine[i].ts[r->word] = (uint8_t)r->ts;
                    mine[i].epoch[r->word] = dp->epoch;
                    mine[i].value[r->word] = r->value;
                }
            }
            l->st.records_scanned += dp->nrecs;
        }
        for (size_t i = 0; i < n; i++)
            for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
                if (mine[i].mask >> w & 1)
                    take_newer(&found[i], w, mine[i].epoch[w], mine[i].ts[w], mine[i].value[w]);
    }
    l->st.searches++;
    free(mine);
    free(q);
}

/* The answer to one request from what was found (lu_search.sv's format); returns the messages. */
static size_t answer_one(const mn_log_t *l, const msg_t *req, const mn_log_found_t *f, msg_t *out)
{
    msg_t h = {.opcode = OP_FETCH_LATEST_VERS_RESP, .src = (uint8_t)l->cfg.node_id, .dst = req->src,
               .subject = req->subject, .tag = req->tag, .addr = req->addr};
    unsigned rem = f->mask, n = 0;
    if (!rem) {
        out[0] = h;
        out[0].flags = (uint8_t)(MSG_FLAG_END | (req->flags & MSG_FLAG_LAST));
        return 1;
    }
    while (rem) {
        unsigned w0 = (unsigned)__builtin_ctz(rem), grp = 0;
        for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
            if ((rem >> w & 1) && f->ts[w] == f->ts[w0] && f->epoch[w] == f->epoch[w0])
                grp |= 1u << w;
        msg_t *m = &out[n++];
        *m = h;
        m->mask = (uint8_t)grp;
        m->ts = f->ts[w0];
        m->tag = f->epoch[w0];
        for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
            if (grp >> w & 1)
                m->data[w] = f->value[w];
        rem &= ~grp;
        if (!rem)
            m->flags = (uint8_t)(MSG_FLAG_END | (req->flags & MSG_FLAG_LAST));
    }
    return n;
}

size_t mn_log_answer(mn_log_t *l, const msg_t *reqs, size_t n, msg_t *out)
{
    uint64_t *lines = calloc(n ? n : 1, sizeof *lines);
    uint8_t *masks = calloc(n ? n : 1, 1);
    mn_log_found_t *f = calloc(n ? n : 1, sizeof *f);
    if (!lines || !masks || !f)
        abort();
    for (size_t i = 0; i < n; i++)
        lines[i] = reqs[i].addr, masks[i] = reqs[i].mask;
    mn_log_search(l, lines, masks, n, f);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += answer_one(l, &reqs[i], &f[i], out + k);
    l->st.fetch_reqs += n;
    l->st.fetch_resps += k;
    free(lines);
    free(masks);
    free(f);
    return k;
}

static void fetch(mn_log_t *l, const msg_t *m)
{
    grow((void **)&l->flv, &l->capflv, l->nflv + 1, sizeof *l->flv, 16);
    l->flv[l->nflv++] = *m;
    /* A list is complete when as many of its requests as LAST's tag + 1 have come (mod 2^TAG_W). */
    const unsigned s = m->src;
    l->flv_seen[s] = (uint16_t)((l->flv_seen[s] + 1u) & (TAGS - 1u));
    if (m->flags & MSG_FLAG_LAST)
        l->flv_len[s] = (uint16_t)(((m->tag + 1u) & (TAGS - 1u)) | TAGS); /* TAGS: LAST has come */
    if (!(l->flv_len[s] & TAGS) || (l->flv_len[s] & (TAGS - 1u)) != l->flv_seen[s])
        return;
    l->flv_seen[s] = 0;
    l->flv_len[s] = 0;
    msg_t *out = malloc(l->nflv * MSG_WORDS_PER_LINE * sizeof *out);
    if (!out)
        abort();
    size_t k = mn_log_answer(l, l->flv, l->nflv, out);
    for (size_t i = 0; i < k; i++)
        queue_tx(l, &out[i]);
    free(out);
    l->nflv = 0;
}

/* ------------------------------------------------------------------------------------------------ */

mn_log_rx_e mn_log_rx(mn_log_t *l, const msg_t *m)
{
    if (m->opcode != OP_DUMP_REQ && m->opcode != OP_DUMP_DATA && m->opcode != OP_FETCH_LATEST_VERS)
        return MN_LOG_RX_NOT_MINE;
    size_t before = l->nerrs;
    /* A DUMP_DATA that is not a whole line is reported as such by dump_data, not as malformed. */
    msg_t c = *m;
    if (c.opcode == OP_DUMP_DATA)
        c.mask = 0xff;
    const char *bad;
    if (m->dst != l->cfg.node_id)
        report(l, MN_LOG_E_DST, m, "%s from %u to %u: this MN is %u", msg_name(m->opcode), m->src, m->dst,
               l->cfg.node_id);
    else if ((bad = msg_check(&c)) != NULL)
        report(l, MN_LOG_E_MALFORMED, m, "%s from %u: %s", msg_name(m->opcode), m->src, bad);
    else if (m->opcode != OP_FETCH_LATEST_VERS && l->src[m->src].dropped)
        l->st.from_dropped++;
    else if (m->opcode == OP_DUMP_REQ)
        dump_req(l, m);
    else if (m->opcode == OP_DUMP_DATA)
        dump_data(l, m);
    else
        fetch(l, m);
    return l->nerrs == before ? MN_LOG_RX_OK : MN_LOG_RX_ERR;
}
