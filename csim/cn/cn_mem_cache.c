/* The CN's memory system (cn_mem.h), its caches: the private L1 and L2 of each core (L1 inside L2,
 * both inside the L3), the L3's local directory of them (presence bits, the private owner), and
 * lines leaving the L3 (victims, flushes). */
#include "cn/cn_mem_priv.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Private caches (L1 inside L2, both inside the L3) and the L3's local directory */

static void pv_evict_l1(cn_mem_t *c, unsigned core, cache_line_t *a)
{
    if (a->dmask) {
        cache_line_t *b = cache_find(c->l2[core], a->key);
        assert(b);
        memcpy(b->data, a->data, sizeof b->data);
        b->dmask |= a->dmask;
    }
    cache_invalidate(a);
    (*c->s.ev_l1)++;
}

/* An L2 victim leaves the core: its L1 copy with it, dirty data to the L3. */
static void pv_evict_l2(cn_mem_t *c, unsigned core, cache_line_t *b)
{
    cache_line_t *a = cache_find(c->l1[core], b->key);
    if (a)
        pv_evict_l1(c, core, a);
    cache_line_t *L = l3_line(c, b->key);
    assert(L);
    if (b->dmask) {
        memcpy(L->data, b->data, sizeof L->data);
        L->dmask |= b->dmask;
    }
    L->pres &= ~(1u << core);
    if (L->owner == (int)core)
        L->owner = -1;
    cache_invalidate(b);
    (*c->s.ev_l2)++;
}

/* Moves the core's newest data of line L into the L3 (its copies become clean). */
static void pv_gather(cn_mem_t *c, unsigned core, cache_line_t *L)
{
    cache_line_t *a = cache_find(c->l1[core], L->key), *b = cache_find(c->l2[core], L->key);
    if (a && a->dmask) {
        assert(b);
        memcpy(b->data, a->data, sizeof b->data);
        b->dmask |= a->dmask;
        a->dmask = 0;
    }
    if (b && b->dmask) {
        memcpy(L->data, b->data, sizeof L->data);
        L->dmask |= b->dmask;
        b->dmask = 0;
    }
}

void cn_mem_pv_inval(cn_mem_t *c, unsigned core, cache_line_t *L)
{
    pv_gather(c, core, L);
    cache_line_t *a = cache_find(c->l1[core], L->key), *b = cache_find(c->l2[core], L->key);
    if (a)
        cache_invalidate(a);
    if (b)
        cache_invalidate(b);
    L->pres &= ~(1u << core);
    if (L->owner == (int)core)
        L->owner = -1;
}

void cn_mem_pv_downgrade(cn_mem_t *c, unsigned core, cache_line_t *L)
{
    if (c->p.mutate & CN_MUT_DOWNGRADE_LOSES_DATA) {
        cache_line_t *x = cache_find(c->l1[core], L->key), *y = cache_find(c->l2[core], L->key);
        if (x)
            x->dmask = 0;
        if (y)
            y->dmask = 0;
    }
    pv_gather(c, core, L);
    cache_line_t *a = cache_find(c->l1[core], L->key), *b = cache_find(c->l2[core], L->key);
    if (a)
        a->state = CN_PV_S;
    if (b)
        b->state = CN_PV_S;
    if (L->owner == (int)core)
        L->owner = -1;
}

/* Every private copy of L invalidated, dirty data in L. */
void cn_mem_l3_inval_all(cn_mem_t *c, cache_line_t *L)
{
    for (unsigned i = 0; i < c->p.cores; i++)
        if (L->pres >> i & 1)
            cn_mem_pv_inval(c, i, L);
    assert(!L->pres && L->owner < 0);
}

/* The private owner of L (if any) keeps a shared copy; dirty data in L. */
void cn_mem_l3_downgrade_all(cn_mem_t *c, cache_line_t *L)
{
    if (L->owner >= 0)
        cn_mem_pv_downgrade(c, (unsigned)L->owner, L);
}

/* Gives the core copies of L in its L2 and L1 in state st (at least): existing copies keep their
 * data (they are the core's newest), new ones are filled from the L3 (victims leave first). */
void cn_mem_pv_install(cn_mem_t *c, unsigned core, cache_line_t *L, uint8_t st)
{
    cache_t *c1 = c->l1[core], *c2 = c->l2[core];
    cache_line_t *b = cache_find(c2, L->key);
    if (!b) {
        b = cache_victim(c2, L->key, NULL, NULL);
        if (b->valid)
            pv_evict_l2(c, core, b);
        cache_install(c2, b, L->key);
        memcpy(b->data, L->data, sizeof b->data);
    }
    if (st > b->state)
        b->state = st;
    cache_touch(c2, b);
    cache_line_t *a = cache_find(c1, L->key);
    if (!a) {
        a = cache_victim(c1, L->key, NULL, NULL);
        if (a->valid)
            pv_evict_l1(c, core, a);
        cache_install(c1, a, L->key);
        memcpy(a->data, b->data, sizeof a->data);
    }
    a->state = b->state;
    cache_touch(c1, a);
    L->pres |= 1u << core;
    if (b->state == CN_PV_X)
        L->owner = (int8_t)core;
}

/* ---------------------------------------------------------------------------------------------
 * Evictions from the L3 and flushes */

static void nop_dram_done(void *obj, uint64_t tag, const uint64_t *line)
{
    (void)obj, (void)tag, (void)line;
}

static void flush_dram_done(void *obj, uint64_t tag, const uint64_t *line)
{
    (void)line;
    cn_mem_t *c = obj;
    if (c->failed)
        return; /* fail-stop: a failed CN's hierarchy does nothing more, its contents are lost */
    cn_mem_op_done(c, (op_t *)(uintptr_t)tag, 0);
}

/* Line L leaves the L3 (a victim, or flushed by fop): private copies first (inclusion), then the
 * line goes to its memory when dirty, or is announced (coherent lines). Returns true when fop
 * completes later (with the write's CMP or the DRAM write), false when it is complete. */
bool cn_mem_l3_evict(cn_mem_t *c, cache_line_t *L, op_t *fop)
{
    if (c->p.mutate & CN_MUT_VICTIM_LOSES_DIRTY)
        for (unsigned i = 0; i < c->p.cores; i++) {
            cache_line_t *x = cache_find(c->l1[i], L->key), *y = cache_find(c->l2[i], L->key);
            if (x)
                x->dmask = 0;
            if (y)
                y->dmask = 0;
        }
    cn_mem_l3_inval_all(c, L);
    uint64_t key = L->key;
    bool later = false;
    switch (L->state) {
    case CN_L3_LOCAL:
        (*c->s.ev_local)++;
        if (L->dmask) {
            dram_write(c->dram, local_dline(key), L->dmask, L->data, fop ? flush_dram_done : nop_dram_done, c,
                       (uintptr_t)fop);
            later = fop != NULL;
        }
        break;
    case CN_L3_NC:
        if (L->dmask) {
            lt_t *t = cn_mem_lt_get(c, key);
            assert(t->out == CN_OUT_NONE);
            t->out = CN_OUT_LNR_EVICT;
            memcpy(t->buf, L->data, sizeof t->buf);
            t->bmask = !c->p.lnr_word_writeback || (c->p.mutate & CN_MUT_LNR_WRITE_ALL) ? 0xff : L->dmask;
            cn_mem_send_req(c, t, OP_LNR_WR, fop ? fop->core : 0);
            (*c->s.ev_lnr)++;
            if (fop) {
                fop->next = t->flushers;
                t->flushers = fop;
                later = true;
            }
        } else {
            (*c->s.ev_lnr_silent)++;
        }
        break;
    case CN_L3_S:
    case CN_L3_OWN: {
        if ((c->p.mutate & CN_MUT_SILENT_CLEAN_DROP) && !L->dmask && !fop)
            break;
        lt_t *t = cn_mem_lt_get(c, key);
        assert(t->out == CN_OUT_NONE);
        bool dirty = L->dmask != 0;
        t->out = dirty ? CN_OUT_DIRTY_EVICT : CN_OUT_CLEAN_EVICT;
        t->ev_snooped = false;
        memcpy(t->buf, L->data, sizeof t->buf);
        t->bmask = 0xff;
        t->bver = *l3_ver(c, L);
        cn_mem_send_req(c, t, dirty ? OP_DIRTY_EVICT : OP_CLEAN_EVICT, fop ? fop->core : 0);
        (*(dirty ? c->s.ev_dirty : c->s.ev_clean))++;
        if (fop) {
            fop->next = t->flushers;
            t->flushers = fop;
        }
        later = fop != NULL;
        break;
    }
    default:
        assert(0);
    }
    cache_invalidate(L);
    return later;
}

/* Lines that may not leave the L3 now: a way reserved for a fill, or something in flight. */
static bool l3_busy(void *arg, const cache_line_t *l)
{
    const cn_mem_t *c = arg;
    if (l->state == CN_L3_PEND)
        return true;
    const lt_t *t = lt_find(c, l->key);
    return t && (t->out != CN_OUT_NONE || t->wq || t->has_held || t->pinned);
}

/* A way of the L3 for line t (its own if it has one), or NULL when every way of the set is busy. */
cache_line_t *cn_mem_l3_reserve(cn_mem_t *c, lt_t *t)
{
    cache_line_t *L = cache_find(c->l3, t->key);
    if (L)
        return L;
    L = cache_victim(c->l3, t->key, l3_busy, c);
    if (!L)
        return NULL;
    if (L->valid)
        cn_mem_l3_evict(c, L, NULL);
    cache_install(c->l3, L, t->key);
    L->state = CN_L3_PEND;
    return L;
}

