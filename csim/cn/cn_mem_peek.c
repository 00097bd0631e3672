/* The CN's memory system (cn_mem.h), looked at in zero time: peeks and pokes (the oracle's checks,
 * the workloads' setup of local memory), the census, probes of one line, the dump of what waits. */
#include "cn/cn_mem_priv.h"

#include <string.h>

static const char *const out_names[CN_OUT_NUM] = {
    "-", "RD_SHARED", "RD_OWN", "RD_UPGRADE", "LNR_RD", "LOCAL_RD", "CLEAN_EVICT", "DIRTY_EVICT", "LNR_EVICT", "WT",
};
static const char *const l3_names[] = {"I", "PEND", "S", "OWN", "NC", "LOCAL"};

const char *cn_out_name(cn_out_e o) { return o < CN_OUT_NUM ? out_names[o] : "?"; }

/* The core's newest word w of L (const: peeks and probes). */
static uint64_t newest_word(const cn_mem_t *c, const cache_line_t *L, unsigned w, uint8_t *dmask)
{
    uint8_t dm = L->dmask;
    uint64_t v = L->data[w];
    if (L->owner >= 0) {
        const cache_line_t *a = cache_find(c->l1[L->owner], L->key), *b = cache_find(c->l2[L->owner], L->key);
        if (b) {
            dm |= b->dmask;
            v = b->data[w];
        }
        if (a) {
            dm |= a->dmask;
            v = a->data[w];
        }
    }
    if (dmask)
        *dmask = dm;
    return v;
}

uint8_t cn_mem_peek_line(const cn_mem_t *c, uint64_t line_addr, uint64_t v[ADDR_WORDS_PER_LINE])
{
    if (c->failed)
        return 0;
    uint64_t key = addr_line(line_addr);
    const cache_line_t *L = l3_line(c, key);
    const lt_t *t = lt_find(c, key);
    uint8_t have = 0;
    for (unsigned w = 0; w < ADDR_WORDS_PER_LINE; w++) {
        if (L && (L->state == CN_L3_OWN || L->state == CN_L3_NC)) {
            uint8_t dm;
            uint64_t x = newest_word(c, L, w, &dm);
            if (L->state == CN_L3_OWN || (dm >> w & 1)) {
                v[w] = x;
                have |= (uint8_t)(1u << w);
                continue;
            }
        }
        if (t && ((t->out == CN_OUT_DIRTY_EVICT && !t->ev_snooped) || t->out == CN_OUT_LNR_EVICT ||
                  (t->out == CN_OUT_WT && t->lk == LK_LNR)) &&
            (t->bmask >> w & 1)) {
            v[w] = t->buf[w];
            have |= (uint8_t)(1u << w);
        }
    }
    return have;
}

bool cn_mem_peek(const cn_mem_t *c, uint64_t addr, uint64_t *v)
{
    uint64_t line[ADDR_WORDS_PER_LINE];
    unsigned w = addr_word(addr);
    if (!(cn_mem_peek_line(c, addr_line(addr), line) >> w & 1))
        return false;
    *v = line[w];
    return true;
}

uint64_t cn_mem_local_peek(const cn_mem_t *c, uint64_t addr)
{
    uint64_t key = addr_line(addr);
    const cache_line_t *L = l3_line(c, key);
    if (L)
        return newest_word(c, L, addr_word(addr), NULL);
    uint64_t line[W];
    dram_peek(c->dram, local_dline(key), line);
    return line[addr_word(addr)];
}

void cn_mem_local_poke(cn_mem_t *c, uint64_t addr, uint64_t v)
{
    uint64_t key = addr_line(addr);
    unsigned w = addr_word(addr);
    uint64_t line[W] = {0};
    line[w] = v;
    dram_poke(c->dram, local_dline(key), (uint8_t)(1u << w), line);
    lt_t *t = lt_find(c, key);
    if (t && t->out == CN_OUT_LOCAL_RD) { /* the read took DRAM's line before the poke */
        t->buf[w] = v;
        t->bmask |= (uint8_t)(1u << w);
    }
    cache_line_t *L = cache_find(c->l3, key);
    if (!L || L->state < CN_L3_S)
        return;
    L->data[w] = v;
    for (unsigned i = 0; i < c->p.cores; i++) {
        cache_line_t *a = cache_find(c->l1[i], key), *b = cache_find(c->l2[i], key);
        if (a)
            a->data[w] = v;
        if (b)
            b->data[w] = v;
    }
}

void cn_mem_census(const cn_mem_t *c, cn_mem_census_t *out)
{
    *out = (cn_mem_census_t){0};
    for (unsigned i = 0; i < cache_lines(c->l3); i++) {
        const cache_line_t *L = cache_at(c->l3, i);
        if (!L->valid)
            continue;
        if (L->state == CN_L3_S) {
            out->shared++;
        } else if (L->state == CN_L3_OWN) {
            uint8_t dmask = 0;
            for (unsigned w = 0; w < W; w++)
                newest_word(c, L, w, &dmask);
            if (dmask)
                out->dirty++;
            else
                out->exclusive++;
        }
    }
}

void cn_mem_probe(const cn_mem_t *c, uint64_t addr, cn_mem_probe_t *p)
{
    memset(p, 0, sizeof *p);
    uint64_t key = addr_line(addr);
    p->owner = -1;
    const cache_line_t *L = cache_find(c->l3, key);
    if (L) {
        p->l3 = (cn_l3_state_e)L->state;
        p->ver = *l3_ver(c, L);
        if (L->state >= CN_L3_S) {
            p->pres = L->pres;
            p->owner = L->owner;
            for (unsigned w = 0; w < W; w++)
                p->data[w] = newest_word(c, L, w, &p->dmask);
        }
    }
    for (unsigned i = 0; i < c->p.cores; i++) {
        const cache_line_t *a = cache_find(c->l1[i], key), *b = cache_find(c->l2[i], key);
        p->l1[i] = a ? a->state : CN_PV_I;
        p->l2[i] = b ? b->state : CN_PV_I;
    }
    const lt_t *t = lt_find(c, key);
    if (t) {
        p->out = t->out;
        p->held = t->has_held;
        for (const op_t *o = t->wq; o; o = o->next)
            p->waiting++;
    }
}

uint64_t cn_mem_lnr_rmws(const cn_mem_t *c) { return *c->s.lnr_rmws; }

bool cn_mem_idle(const cn_mem_t *c)
{
    if (c->failed)
        return true; /* fail-stop: a failed CN's hierarchy does nothing more, its contents are lost */
    if (c->nops || c->nlt || dram_busy(c->dram))
        return false;
    for (unsigned i = 0; i < MSG_NUM_CLASSES; i++)
        if (c->q[i].n)
            return false;
    return true;
}

void cn_mem_wt_pending(const cn_mem_t *c, void (*fn)(void *obj, unsigned core, uint64_t gline, uint8_t mask),
                       void *obj)
{
    for (unsigned b = 0; b < LT_BUCKETS; b++)
        for (const lt_t *t = c->bucket[b]; t; t = t->hnext)
            if (t->out == CN_OUT_WT && t->wt_op)
                fn(obj, t->wt_op->core, addr_gline(t->key), t->bmask);
}

void cn_mem_lnr_unwritten(const cn_mem_t *c, void (*fn)(void *obj, uint64_t gline, uint8_t mask), void *obj)
{
    for (unsigned i = 0; i < cache_lines(c->l3); i++) {
        const cache_line_t *L = cache_at(c->l3, i);
        if (!L->valid || L->state != CN_L3_NC)
            continue;
        uint8_t dmask = 0;
        for (unsigned w = 0; w < W; w++)
            newest_word(c, L, w, &dmask);
        if (dmask)
            fn(obj, addr_gline(L->key), dmask);
    }
    for (unsigned b = 0; b < LT_BUCKETS; b++)
        for (const lt_t *t = c->bucket[b]; t; t = t->hnext)
            if (t->out == CN_OUT_LNR_EVICT)
                fn(obj, addr_gline(t->key), t->bmask);
}

void cn_mem_dump(const cn_mem_t *c, FILE *f)
{
    fprintf(f, "  %s (CN %u): %llu accesses live, %u lines in flight, %u local DRAM accesses\n", c->name, c->p.cn,
            (unsigned long long)c->nops, c->nlt, dram_busy(c->dram));
    for (unsigned b = 0; b < LT_BUCKETS; b++)
        for (const lt_t *t = c->bucket[b]; t; t = t->hnext) {
            const cache_line_t *L = cache_find(c->l3, t->key);
            fprintf(f, "    line 0x%llx (%s, L3 %s): %s", (unsigned long long)t->key,
                    t->lk == LK_SCR ? "SCR" : t->lk == LK_LNR ? "LNR" : "local", L ? l3_names[L->state] : "I",
                    out_names[t->out]);
            if (t->out != CN_OUT_NONE && t->out != CN_OUT_LOCAL_RD)
                fprintf(f, " tag %u core %u since %llu ps", t->tag, t->core, (unsigned long long)t->t_out);
            if (t->upg_lost)
                fprintf(f, ", S copy snooped away (a CMP_E is void)");
            if (t->has_held)
                fprintf(f, ", holds %s tag %u from node %u", msg_name(t->held.opcode), t->held.tag, t->held.src);
            if (t->ev_snooped)
                fprintf(f, ", eviction crossed by a snoop");
            if (t->alloc_wait)
                fprintf(f, ", waits for an L3 way");
            fprintf(f, "\n");
            for (const op_t *o = t->wq; o; o = o->next)
                fprintf(f, "      waits: %s of core %u at 0x%llx since %llu ps%s\n", cn_mem_kind_name[o->kind], o->core,
                        (unsigned long long)o->addr, (unsigned long long)o->t_call, o->wt ? " (write-through)" : "");
            if (t->wt_op)
                fprintf(f, "      write-through of core %u waits for its CMP\n", t->wt_op->core);
            for (const op_t *o = t->flushers; o; o = o->next)
                fprintf(f, "      flush of core %u waits for the CMP\n", o->core);
        }
    for (unsigned i = 0; i < c->p.cores; i++)
        if (c->parked[i])
            fprintf(f, "    core %u's %s to line 0x%llx is %s: its gate (replication) has not let it commit\n", i,
                    cn_mem_kind_name[c->parked[i]->kind], (unsigned long long)c->parked[i]->key,
                    c->parked[i]->kind == K_RMW ? "pinned" : "parked");
    for (unsigned i = 0; i < MSG_NUM_CLASSES; i++)
        if (c->q[i].n)
            fprintf(f, "    %zu %s messages wait for a credit (%u held), the first %s line 0x%llx\n", c->q[i].n,
                    msg_class_name((msg_class_t)i), c->link.credits(c->link.obj, (msg_class_t)i),
                    msg_name(c->q[i].m[c->q[i].head].opcode), (unsigned long long)c->q[i].m[c->q[i].head].addr);
}

