/* The CN's memory system (cn_mem.h), its port: requests to memory sent as the link's credits
 * allow, and the answers that come back (data, CMPs) filling the L3 or completing writes. Snoops,
 * the other messages that come in, are in cn_mem_snoop.c. */
#include "cn/cn_mem_priv.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "drv/dir_defs.h"

/* ---------------------------------------------------------------------------------------------
 * The port: sending with credits */

static void sq_push(sendq_t *q, const msg_t *m)
{
    if (q->head + q->n == q->cap) {
        if (q->head) {
            memmove(q->m, q->m + q->head, q->n * sizeof *q->m);
            q->head = 0;
        } else {
            q->cap = q->cap ? 2 * q->cap : 8;
            q->m = realloc(q->m, q->cap * sizeof *q->m);
            if (!q->m)
                abort();
        }
    }
    q->m[q->head + q->n++] = *m;
}

void cn_mem_port_send(cn_mem_t *c, msg_t *m)
{
    m->src = (uint8_t)c->p.cn;
    const char *why = msg_check(m);
    if (why) {
        fprintf(stderr, "%s: would send a malformed %s: %s\n", c->name, msg_name(m->opcode), why);
        abort();
    }
    (*c->s.tx[m->opcode])++;
    msg_class_t cls = msg_class(m->opcode);
    sendq_t *q = &c->q[cls];
    if (!q->n && c->link.credits(c->link.obj, cls) > 0)
        c->link.send(c->link.obj, m);
    else
        sq_push(q, m);
}

void cn_mem_credit(cn_mem_t *c, msg_class_t cls)
{
    if (c->failed)
        return; /* fail-stop: a failed CN's hierarchy does nothing more, its contents are lost */
    sendq_t *q = &c->q[cls];
    while (q->n && c->link.credits(c->link.obj, cls) > 0) {
        msg_t m = q->m[q->head++];
        q->n--;
        if (!q->n)
            q->head = 0;
        c->link.send(c->link.obj, &m);
    }
}

static unsigned home_of(const cn_mem_t *c, uint64_t key)
{
    return MSG_MN_BASE + dir_addr_mn(addr_gline(key), c->mn_shift, c->gran_shift);
}

static uint16_t tag_alloc(cn_mem_t *c, lt_t *t)
{
    for (;;) {
        unsigned tag = c->next_tag;
        c->next_tag = (c->next_tag + 1) % NTAGS;
        if (!c->by_tag[tag]) {
            c->by_tag[tag] = t;
            return (uint16_t)tag;
        }
    }
}

/* Sends the request t->out for line t: a new tag; the data of writes from t->buf / t->bmask. */
void cn_mem_send_req(cn_mem_t *c, lt_t *t, msg_op_t opc, unsigned core)
{
    t->tag = tag_alloc(c, t);
    t->core = (uint8_t)core;
    t->t_out = c->k->now;
    msg_t m = {.opcode = opc, .dst = (uint8_t)home_of(c, t->key), .core = (uint8_t)core, .tag = t->tag,
               .addr = addr_gline(t->key)};
    if (opc == OP_DIRTY_EVICT || opc == OP_WT_WR)
        m.ts = t->bver;
    if (msg_data_kind(opc) != MSG_DATA_NONE) {
        m.mask = t->bmask;
        for (unsigned w = 0; w < W; w++)
            if (t->bmask >> w & 1)
                m.data[w] = t->buf[w];
    }
    cn_mem_port_send(c, &m);
}

/* ---------------------------------------------------------------------------------------------
 * Answers */

/* The line of t is in (state st, data when not NULL, the line's version ver): the waiting accesses
 * are performed, then a held snoop is answered from the cache, then what still waits asks again. */
static void fill(cn_mem_t *c, lt_t *t, cn_l3_state_e st, const uint64_t *data, unsigned ver)
{
    cache_line_t *L = cache_find(c->l3, t->key);
    assert(L);
    if (!(c->p.mutate & CN_MUT_VERSION_NOT_KEPT))
        *l3_ver(c, L) = (uint8_t)(ver & VER_MASK);
    if (L->state >= CN_L3_S && data)
        cn_mem_l3_inval_all(c, L); /* clean copies: the new data replace them */
    L->state = st;
    if (data) {
        memcpy(L->data, data, sizeof L->data);
        L->dmask = 0;
    }
    cache_touch(c->l3, L);
    t->out = CN_OUT_NONE;
    cn_mem_run_waiters(c, t, false);
    if (t->has_held) {
        t->has_held = false;
        msg_t h = t->held;
        cn_mem_snoop(c, &h);
    }
    cn_mem_line_kick(c, t);
}

void cn_mem_local_fill(void *obj, uint64_t tag, const uint64_t *line)
{
    cn_mem_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's hierarchy does nothing more, its contents are lost */
    lt_t *t = (lt_t *)(uintptr_t)tag;
    uint64_t d[W];
    for (unsigned w = 0; w < W; w++)
        d[w] = t->bmask >> w & 1 ? t->buf[w] : line[w];
    fill(c, t, CN_L3_LOCAL, d, 0);
    cn_mem_retry_alloc(c);
}

/* Completes the write of t (an eviction, flush or write-through) on its CMP. */
static void write_done(cn_mem_t *c, lt_t *t)
{
    cn_out_e was = t->out;
    t->out = CN_OUT_NONE;
    if (was == CN_OUT_WT) {
        op_t *o = t->wt_op;
        t->wt_op = NULL;
        cn_mem_op_done(c, o, o->kind == K_RMW ? o->old : 0);
    } else {
        op_t *f = t->flushers;
        t->flushers = NULL;
        while (f) {
            op_t *next = f->next;
            cn_mem_op_done(c, f, 0);
            f = next;
        }
    }
    cn_mem_line_kick(c, t);
}

static bool answer_fits(const lt_t *t, msg_op_t op)
{
    switch (t->out) {
    case CN_OUT_RD_SHARED:
        return op == OP_DATA_S || op == OP_DATA_E;
    case CN_OUT_RD_OWN:
        return op == OP_DATA_E;
    case CN_OUT_RD_UPGRADE:
        return op == OP_CMP_E || op == OP_DATA_E;
    case CN_OUT_LNR_RD:
        return op == OP_DATA_NC;
    case CN_OUT_CLEAN_EVICT:
    case CN_OUT_DIRTY_EVICT:
    case CN_OUT_LNR_EVICT:
    case CN_OUT_WT:
        return op == OP_CMP;
    default:
        return false;
    }
}

void cn_mem_deliver(cn_mem_t *c, const msg_t *m)
{
    if (c->failed)
        return; /* fail-stop: a failed CN's hierarchy does nothing more, its contents are lost */
    msg_class_t cls = msg_class(m->opcode);
    if (m->opcode < MSG_NUM_MSGS)
        (*c->s.rx[m->opcode])++;
    if (m->dst != c->p.cn || (cls != CLS_NDR && cls != CLS_DRS && cls != CLS_BISNP)) {
        (*c->s.rx_unexpected)++;
    } else if (cls == CLS_BISNP) {
        cn_mem_snoop(c, m);
    } else {
        lt_t *t = c->by_tag[m->tag];
        if (!t || addr_gline(t->key) != m->addr || m->core != t->core || !answer_fits(t, m->opcode)) {
            (*c->s.rx_unexpected)++;
        } else {
            c->by_tag[m->tag] = NULL;
            switch (m->opcode) {
            case OP_DATA_S:
                fill(c, t, CN_L3_S, m->data, m->ts);
                break;
            case OP_DATA_E:
                t->upg_lost = false;
                fill(c, t, CN_L3_OWN, m->data, m->ts);
                break;
            case OP_DATA_NC:
                fill(c, t, CN_L3_NC, m->data, 0);
                break;
            case OP_CMP_E:
                if (t->upg_lost && !(c->p.mutate & CN_MUT_CMPE_ALWAYS_VALID)) {
                    /* Granted, then snooped away before it arrived: void; ask again for the
                     * whole line (the CN holds no copy now, so RD_OWN). */
                    (*c->s.sn_void_cmpe)++;
                    t->upg_lost = false;
                    t->out = CN_OUT_NONE;
                    if (t->has_held) { /* cannot happen: nobody counts the CN as a holder */
                        (*c->s.sn_unexpected)++;
                        t->has_held = false;
                        msg_t h = t->held;
                        cn_mem_snoop(c, &h);
                    }
                    cn_mem_line_kick(c, t);
                } else {
                    t->upg_lost = false;
                    /* The S copy's version is the line's (nobody wrote it since); CMP_E carries
                     * it all the same. */
                    fill(c, t, CN_L3_OWN, NULL, m->ts);
                }
                break;
            default: /* CMP */
                write_done(c, t);
            }
        }
    }
    c->link.release(c->link.obj, cls);
    cn_mem_retry_alloc(c);
}

