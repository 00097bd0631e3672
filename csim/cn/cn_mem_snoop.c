/* The CN's memory system (cn_mem.h), the directories' back-invalidation snoops: the CN's side of
 * the contract of docs/architecture.md section 11c (answered at once, or held, with WR_IN_FLIGHT
 * while a write of the line is in flight). */
#include "cn/cn_mem_priv.h"

#include <stdlib.h>
#include <string.h>

/* Answers (or holds) a BISNP. Section 11c, the CN's side of the contract. */
void cn_mem_snoop(cn_mem_t *c, const msg_t *m)
{
    uint64_t key = m->addr * ADDR_LINE_BYTES;
    lt_t *t = lt_find(c, key);
    cache_line_t *L = l3_line(c, key);
    bool inv = m->opcode == OP_BISNP_INV;
    msg_t r = {.dst = m->src, .tag = m->tag, .addr = m->addr};
    if (t && t->pinned && line_kind(c, key) == LK_SCR) {
        /* An rmw holds the line between its read and its write: the answer waits for the write
         * (ev_unpin); the directory sends one snoop of a line at a time. */
        if (t->has_held)
            abort();
        t->has_held = true;
        t->held = *m;
        (*c->s.sn_pinned)++;
        return;
    }
    if (line_kind(c, key) != LK_SCR) {
        (*c->s.sn_unexpected)++;
        r.opcode = OP_BIRSP_I;
    } else if (t && (t->out == CN_OUT_CLEAN_EVICT || t->out == CN_OUT_DIRTY_EVICT)) {
        /* The eviction crossed the snoop: answer as the holder that is leaving (I kind). */
        if (t->ev_snooped)
            (*c->s.sn_unexpected)++;
        t->ev_snooped = true;
        r.opcode = t->out == CN_OUT_DIRTY_EVICT ? OP_BIRSP_I_DATA : OP_BIRSP_I;
        r.flags = MSG_FLAG_WR_IN_FLIGHT;
        if (t->out == CN_OUT_DIRTY_EVICT) {
            r.mask = 0xff;
            memcpy(r.data, t->buf, sizeof r.data);
            r.ts = t->bver;
        }
    } else if (t && t->out == CN_OUT_WT) {
        /* A write-through in flight: the CN still holds the line. */
        r.flags = MSG_FLAG_WR_IN_FLIGHT;
        if (L && L->state == CN_L3_OWN) {
            if (inv)
                cn_mem_l3_inval_all(c, L);
            else
                cn_mem_l3_downgrade_all(c, L);
            r.opcode = inv ? OP_BIRSP_I_DATA : OP_BIRSP_S_DATA;
            memcpy(r.data, L->data, sizeof r.data);
            r.ts = *l3_ver(c, L);
            if (inv) {
                cache_invalidate(L);
            } else {
                L->state = CN_L3_S;
                L->dmask = 0;
            }
        } else {
            if (!(L && inv))
                (*c->s.sn_unexpected)++;
            r.opcode = OP_BIRSP_I; /* from S: the data went with an earlier answer */
            if (L) {
                cn_mem_l3_inval_all(c, L);
                cache_invalidate(L);
            }
        }
    } else if (t && (t->out == CN_OUT_RD_SHARED || t->out == CN_OUT_RD_OWN || t->out == CN_OUT_RD_UPGRADE)) {
        if (t->out == CN_OUT_RD_UPGRADE && L && L->state == CN_L3_S && inv &&
            !(c->p.mutate & CN_MUT_HOLD_UPG_SNOOP)) {
            /* Possibly about the S copy, from a transaction ahead of the upgrade that waits for
             * this answer: answered at once, the copy dropped; a CMP_E coming now is void. */
            cn_mem_l3_inval_all(c, L);
            L->state = CN_L3_PEND;
            L->dmask = 0;
            t->upg_lost = true;
            r.opcode = OP_BIRSP_I;
            (*c->s.sn_upg_lost)++;
        } else if (t->has_held) {
            (*c->s.sn_unexpected)++;
            r.opcode = OP_BIRSP_I;
        } else if (c->p.mutate & CN_MUT_SNOOP_AT_ONCE_INSTALL) {
            r.opcode = OP_BIRSP_I;
            if (L) {
                cn_mem_l3_inval_all(c, L);
                L->state = CN_L3_PEND;
            }
        } else {
            /* About the answer already decided: held until it is in (rule (b)). */
            t->has_held = true;
            t->held = *m;
            (*c->s.sn_held)++;
            return;
        }
    } else if (L && L->state == CN_L3_OWN) {
        if (inv)
            cn_mem_l3_inval_all(c, L);
        else
            cn_mem_l3_downgrade_all(c, L);
        bool data = L->dmask != 0;
        r.opcode = inv ? (data ? OP_BIRSP_I_DATA : OP_BIRSP_I) : (data ? OP_BIRSP_S_DATA : OP_BIRSP_S);
        memcpy(r.data, L->data, sizeof r.data);
        r.ts = *l3_ver(c, L);
        if (inv) {
            cache_invalidate(L);
        } else {
            L->state = CN_L3_S;
            L->dmask = 0;
        }
    } else if (L && L->state == CN_L3_S) {
        if (inv) {
            cn_mem_l3_inval_all(c, L);
            cache_invalidate(L);
            r.opcode = OP_BIRSP_I;
        } else {
            (*c->s.sn_unexpected)++; /* the directory asks only an owner for data */
            r.opcode = OP_BIRSP_S;
        }
    } else {
        (*c->s.sn_unexpected)++; /* the CN holds nothing and waits for nothing */
        r.opcode = OP_BIRSP_I;
    }
    if (r.opcode == OP_BIRSP_I_DATA || r.opcode == OP_BIRSP_S_DATA) {
        r.mask = 0xff;
    } else {
        memset(r.data, 0, sizeof r.data);
        r.ts = 0; /* a clean answer: the directory's version is the line's */
    }
    if (c->p.mutate & CN_MUT_NO_WIF)
        r.flags = 0;
    if (r.flags & MSG_FLAG_WR_IN_FLIGHT)
        (*c->s.sn_wif)++;
    cn_mem_port_send(c, &r);
}

