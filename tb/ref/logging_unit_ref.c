#include "logging_unit_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lu_ref_init(lu_ref_t *r, uint64_t addr_lim)
{
    memset(r, 0, sizeof *r);
    r->addr_lim = addr_lim;
    r->hl_cap = 1024;
    r->hl_line = calloc(r->hl_cap, sizeof *r->hl_line);
    r->hl_ver = calloc(r->hl_cap, sizeof *r->hl_ver);
    r->hl_used = calloc(r->hl_cap, sizeof *r->hl_used);
    r->hl_drained = calloc(r->hl_cap * MSG_WORDS_PER_LINE, sizeof *r->hl_drained);
    if (!r->hl_line || !r->hl_ver || !r->hl_used || !r->hl_drained)
        abort();
}

void lu_ref_free(lu_ref_t *r)
{
    free(r->r);
    free(r->hl_line);
    free(r->hl_ver);
    free(r->hl_used);
    free(r->hl_drained);
}

static size_t hl_slot(const lu_ref_t *r, uint64_t line)
{
    size_t i = (size_t)((line * 0x9e3779b97f4a7c15ull) >> 40) & (r->hl_cap - 1);
    while (r->hl_used[i] && r->hl_line[i] != line)
        i = (i + 1) & (r->hl_cap - 1);
    return i;
}

/* The largest version seen for line (0 and false when none). */
static uint64_t *hl_get(lu_ref_t *r, uint64_t line)
{
    if (2 * (r->hl_n + 1) > r->hl_cap) {
        size_t oc = r->hl_cap;
        uint64_t *ol = r->hl_line, *ov = r->hl_ver, *od = r->hl_drained;
        bool *ou = r->hl_used;
        r->hl_cap *= 2;
        r->hl_line = calloc(r->hl_cap, sizeof *r->hl_line);
        r->hl_ver = calloc(r->hl_cap, sizeof *r->hl_ver);
        r->hl_used = calloc(r->hl_cap, sizeof *r->hl_used);
        r->hl_drained = calloc(r->hl_cap * MSG_WORDS_PER_LINE, sizeof *r->hl_drained);
        if (!r->hl_line || !r->hl_ver || !r->hl_used || !r->hl_drained)
            abort();
        for (size_t i = 0; i < oc; i++)
            if (ou[i]) {
                size_t j = hl_slot(r, ol[i]);
                r->hl_used[j] = true;
                r->hl_line[j] = ol[i];
                r->hl_ver[j] = ov[i];
                memcpy(&r->hl_drained[j * MSG_WORDS_PER_LINE], &od[i * MSG_WORDS_PER_LINE],
                       MSG_WORDS_PER_LINE * sizeof *od);
            }
        free(ol);
        free(ov);
        free(od);
        free(ou);
    }
    size_t i = hl_slot(r, line);
    if (!r->hl_used[i]) {
        r->hl_used[i] = true;
        r->hl_line[i] = line;
        r->hl_ver[i] = 0;
        r->hl_n++;
    }
    return &r->hl_ver[i];
}

/* Version of TS ts on a line whose largest version so far is hi: the one within 64 of hi.
 * Versions start at 1 (the first commit of a line has TS 1). */
static uint64_t unwrap(uint64_t hi, unsigned ts)
{
    int d = (int)((ts - (unsigned)hi) & 0x7f);
    if (d >= 64)
        d -= 128;
    int64_t v = (int64_t)hi + d;
    return v < 0 ? (uint64_t)(v + 128) : (uint64_t)v;
}

lu_ref_verdict_e lu_ref_rx(lu_ref_t *r, const msg_t *m, size_t *idx)
{
    msg_class_t cls = msg_class(m->opcode);
    if (m->opcode == OP_REPL) {
        if (m->mask == 0)
            return r->c.err_zero_mask++, LU_REF_ZERO_MASK;
        if (m->addr >= r->addr_lim)
            return r->c.err_addr_range++, LU_REF_ADDR_RANGE;
        if (r->n == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 1024;
            r->r = realloc(r->r, r->cap * sizeof *r->r);
            if (!r->r)
                abort();
        }
        lu_ref_repl_t *p = &r->r[r->n];
        memset(p, 0, sizeof *p);
        p->no_ack = r->int_pending && m->src == r->int_cn;
        p->cn = m->src;
        p->core = m->core;
        p->tag = m->tag;
        p->line = m->addr;
        p->mask = m->mask;
        for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
            if (m->mask >> w & 1) {
                p->value[w] = m->data[w];
                r->c.words++;
            }
        r->c.repls++;
        if (idx)
            *idx = r->n;
        r->n++;
        return LU_REF_REPL;
    }
    if (m->opcode == OP_VAL) {
        /* The lowest (oldest) matching REPL, as the RTL's lowest matching slot: slots are
         * reused, so "lowest slot" is not "oldest"; a duplicate is malformed anyway and the tests
         * never make one. */
        for (size_t i = r->live_lo; i < r->n; i++) {
            lu_ref_repl_t *p = &r->r[i];
            if (!p->valid && !p->purged && p->cn == m->src && p->core == m->core && p->tag == m->tag &&
                p->line == m->addr) {
                uint64_t *hi = hl_get(r, p->line);
                p->valid = true;
                p->ts = m->ts;
                p->version = unwrap(*hi, m->ts);
                if (p->version > *hi)
                    *hi = p->version;
                const uint64_t *dr = &r->hl_drained[(size_t)(hi - r->hl_ver) * MSG_WORDS_PER_LINE];
                for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
                    if ((p->mask >> w & 1) && dr[w] >= p->version && !r->err[0])
                        snprintf(r->err, sizeof r->err,
                                 "line 0x%llx word %u: version %llu (ts %u, cn %u) validated after version %llu "
                                 "of the word was drained",
                                 (unsigned long long)p->line, w, (unsigned long long)p->version, p->ts, p->cn,
                                 (unsigned long long)dr[w]);
                r->c.vals++;
                if (idx)
                    *idx = i;
                return LU_REF_VAL;
            }
        }
        return r->c.err_no_repl++, LU_REF_NO_REPL;
    }
    if (m->opcode == OP_REPL_QUERY_RESP && r->q_out && m->src == r->q.dst && m->core == r->q.core &&
        m->tag == r->q.tag && m->addr == r->q.addr) {
        r->q_out = false;
        if (m->flags & MSG_FLAG_PENDING)
            for (size_t i = r->live_lo; i < r->n; i++) {
                const lu_ref_repl_t *p = &r->r[i];
                if (!p->valid && !p->purged && p->cn == m->src && p->core == m->core && p->tag == m->tag &&
                    p->line == m->addr) {
                    r->c.query_hits++;
                    break;
                }
            }
        return LU_REF_ANSWER;
    }
    if (cls == CLS_DKREQ || cls == CLS_DKRSP || (cls != CLS_MGREQ && cls != CLS_MGRSP))
        return r->c.err_bad_msg++, LU_REF_BAD_MSG;
    if (m->opcode == OP_INTERRUPT && !r->int_pending) {
        r->int_pending = true;
        r->int_cn = m->subject;
    }
    return LU_REF_OTHER;
}

const char *lu_ref_ack(lu_ref_t *r, const msg_t *a, unsigned lu_node)
{
    if (a->opcode != OP_REPL_ACK)
        return "not a REPL_ACK";
    if (a->src != lu_node)
        return "REPL_ACK src is not the LU's node id";
    for (size_t i = r->live_lo; i < r->n; i++) {
        lu_ref_repl_t *p = &r->r[i];
        if (!p->acked && !p->purged && p->cn == a->dst && p->core == a->core && p->tag == a->tag &&
            p->line == a->addr) {
            if (p->no_ack)
                return "REPL_ACK to a failed CN for a REPL that arrived after the INTERRUPT naming it";
            p->acked = true;
            return NULL;
        }
    }
    return "REPL_ACK for no logged, unacknowledged REPL";
}

const char *lu_ref_query(lu_ref_t *r, const msg_t *q, unsigned lu_node)
{
    if (q->opcode != OP_REPL_QUERY)
        return "not a REPL_QUERY";
    if (q->src != lu_node)
        return "REPL_QUERY src is not the LU's node id";
    if (r->q_out)
        return "a second REPL_QUERY while one is outstanding";
    /* (A REPL the model took as validated may still be waiting for its VAL's turn in the LU.) */
    for (size_t i = r->live_lo; i < r->n; i++) {
        const lu_ref_repl_t *p = &r->r[i];
        if (!p->purged && p->drained != p->mask && p->cn == q->dst && p->core == q->core && p->tag == q->tag &&
            p->line == q->addr) {
            r->q_out = true;
            r->q = *q;
            r->c.queries++;
            return NULL;
        }
    }
    return "REPL_QUERY names no REPL in the buffer";
}

const char *lu_ref_drained(lu_ref_t *r, const lu_rec_t *rec, char *why, size_t len)
{
    if (!rec->written) {
        snprintf(why, len, "record marker bits are not 01");
        return why;
    }
    lu_ref_repl_t *hit = NULL;
    for (size_t i = r->live_lo; i < r->n; i++) {
        lu_ref_repl_t *p = &r->r[i];
        if (p->valid && !(p->drained >> rec->word & 1) && (p->mask >> rec->word & 1) && p->cn == rec->cn &&
            p->core == rec->core && p->line == rec->line && p->ts == rec->ts && p->value[rec->word] == rec->value) {
            hit = p;
            break;
        }
    }
    if (!hit) {
        snprintf(why, len,
                 "record (line 0x%llx word %u cn %u core %u ts %u value 0x%llx) is no validated, undrained word",
                 (unsigned long long)rec->line, rec->word, rec->cn, rec->core, rec->ts,
                 (unsigned long long)rec->value);
        return why;
    }
    for (size_t i = r->live_lo; i < r->n; i++) {
        lu_ref_repl_t *p = &r->r[i];
        if (p != hit && p->valid && p->line == hit->line && (p->mask >> rec->word & 1) &&
            !(p->drained >> rec->word & 1) && p->version < hit->version) {
            snprintf(why, len,
                     "line 0x%llx word %u: version %llu (ts %u, cn %u) drained before version %llu (ts %u, cn %u), "
                     "validated and waiting",
                     (unsigned long long)hit->line, rec->word, (unsigned long long)hit->version, hit->ts, hit->cn,
                     (unsigned long long)p->version, p->ts, p->cn);
            return why;
        }
    }
    uint64_t *hi = hl_get(r, hit->line);
    r->hl_drained[(size_t)(hi - r->hl_ver) * MSG_WORDS_PER_LINE + rec->word] = hit->version;
    hit->drained |= (uint8_t)(1u << rec->word);
    r->c.drained++;
    while (r->live_lo < r->n && (r->r[r->live_lo].purged ||
                                 (r->r[r->live_lo].valid && r->r[r->live_lo].drained == r->r[r->live_lo].mask)))
        r->live_lo++;
    return NULL;
}

uint64_t lu_ref_interrupt_resp(lu_ref_t *r)
{
    if (!r->int_pending)
        return 0;
    uint64_t n = 0;
    for (size_t i = r->live_lo; i < r->n; i++) {
        lu_ref_repl_t *p = &r->r[i];
        if (p->cn == r->int_cn && !p->valid && !p->purged) {
            p->purged = true;
            n++;
        }
    }
    while (r->live_lo < r->n && r->r[r->live_lo].purged)
        r->live_lo++;
    r->c.purged += n;
    if (r->q_out && r->q.dst == r->int_cn)
        r->q_out = false; /* the failed CN answers nothing */
    r->int_pending = false;
    return n;
}

size_t lu_ref_undrained(const lu_ref_t *r)
{
    size_t k = 0;
    for (size_t i = r->live_lo; i < r->n; i++)
        if (r->r[i].valid)
            k += (size_t)__builtin_popcount(r->r[i].mask & ~r->r[i].drained);
    return k;
}

size_t lu_ref_unvalidated(const lu_ref_t *r)
{
    size_t k = 0;
    for (size_t i = r->live_lo; i < r->n; i++)
        if (!r->r[i].valid && !r->r[i].purged)
            k += (size_t)__builtin_popcount(r->r[i].mask);
    return k;
}

size_t lu_ref_unvalidated_repls(const lu_ref_t *r, unsigned cn)
{
    size_t k = 0;
    for (size_t i = r->live_lo; i < r->n; i++)
        k += !r->r[i].valid && !r->r[i].purged && r->r[i].cn == cn;
    return k;
}

uint64_t lu_ref_version(const lu_ref_t *r, size_t idx) { return r->r[idx].version; }

bool lu_ref_latest(const lu_ref_t *r, uint64_t line, unsigned w, uint64_t *value, unsigned *ts)
{
    return lu_ref_latest_buf(r, line, w, value, ts, NULL);
}

bool lu_ref_latest_buf(const lu_ref_t *r, uint64_t line, unsigned w, uint64_t *value, unsigned *ts, bool *buf)
{
    const lu_ref_repl_t *best = NULL;
    for (size_t i = 0; i < r->n; i++) {
        const lu_ref_repl_t *p = &r->r[i];
        if (p->valid && p->line == line && (p->mask >> w & 1) && (!best || p->version > best->version))
            best = p;
    }
    if (best) {
        *value = best->value[w];
        *ts = best->ts;
        if (buf)
            *buf = !(best->drained >> w & 1);
    }
    return best != NULL;
}
