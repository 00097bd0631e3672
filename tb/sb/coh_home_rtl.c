#include "coh_home_rtl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dir_models.h"

typedef struct home_rtl {
    dir_drv_t *d;
    dir_drv_cfg_t cfg;
    msg_t *out; /* sent, not yet collected (ring) */
    size_t head, n, cap;
    uint64_t walked_at; /* the cycle the last walk (directory cache flush) ended, + 1 */
} home_rtl_t;

static void on_tx(void *arg, const msg_t *m, uint64_t cycle)
{
    (void)cycle;
    home_rtl_t *h = arg;
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 16;
        msg_t *o = malloc(cap * sizeof *o);
        if (!o)
            abort();
        for (size_t i = 0; i < h->n; i++)
            o[i] = h->out[(h->head + i) % h->cap];
        free(h->out);
        h->out = o, h->head = 0, h->cap = cap;
    }
    h->out[(h->head + h->n++) % h->cap] = *m;
}

static bool hr_can_recv(void *h, const msg_t *m) { return dir_drv_credits(((home_rtl_t *)h)->d, msg_class(m->opcode)) > 0; }
static void hr_recv(void *h, const msg_t *m) { dir_drv_send(((home_rtl_t *)h)->d, m, 1); }
static void hr_tick(void *h) { dir_drv_step(((home_rtl_t *)h)->d); }
static bool hr_pop(void *hv, msg_t *m)
{
    home_rtl_t *h = hv;
    if (!h->n)
        return false;
    *m = h->out[h->head];
    h->head = (h->head + 1) % h->cap;
    h->n--;
    return true;
}
static bool hr_idle(void *hv)
{
    home_rtl_t *h = hv;
    return dir_drv_idle(h->d) && !h->n;
}
static bool hr_peek_line(void *hv, uint64_t addr, uint64_t data[MSG_WORDS_PER_LINE])
{
    home_rtl_t *h = hv;
    if (dir_addr_mn(addr, h->cfg.mn_shift, h->cfg.gran_shift) != h->cfg.mn_idx)
        return false;
    uint64_t l = dir_addr_local(addr, h->cfg.mn_shift, h->cfg.gran_shift);
    if (l >= h->cfg.lines)
        return false;
    dir_drv_mem_peek(h->d, (uint32_t)l, data);
    return true;
}
/* The directory entry as DRAM holds it, after a WALK through the management port: with no failed
 * CN the walk changes nothing, but it writes the directory cache back first. One walk serves every
 * look-up until the home runs again. */
static bool hr_peek_dir(void *hv, uint64_t addr, unsigned *state, uint32_t *vec, uint32_t *stale, unsigned *ver)
{
    home_rtl_t *h = hv;
    if (dir_addr_mn(addr, h->cfg.mn_shift, h->cfg.gran_shift) != h->cfg.mn_idx)
        return false;
    uint64_t l = dir_addr_local(addr, h->cfg.mn_shift, h->cfg.gran_shift);
    if (l >= h->cfg.lines)
        return false;
    if (h->walked_at != dir_drv_cycle(h->d) + 1) {
        size_t before = dir_drv_mg_rsps(h->d);
        dir_drv_mg_send(h->d, &(dir_mg_cmd_t){.op = DIR_MG_WALK});
        for (uint64_t i = 0; i < 10000000 && dir_drv_mg_rsps(h->d) == before; i++)
            dir_drv_step(h->d);
        const dir_mg_rsp_t *r = dir_drv_mg_rsp(h->d, before);
        if (!r || r->kind != DIR_MR_WALKED || dir_drv_mg_rsps(h->d) != before + 1) {
            fprintf(stderr, "coh_home_rtl: MN %u: the directory walk did not end with WALKED alone\n", h->cfg.mn_idx);
            abort(); /* a crash the test reports, never a check skipped */
        }
        h->walked_at = dir_drv_cycle(h->d) + 1;
    }
    dir_entry_t e;
    dir_drv_entry_peek(h->d, (uint32_t)l, &e);
    *state = e.state, *vec = e.vec, *stale = e.stale, *ver = e.ver;
    return true;
}

static uint64_t hr_violations(void *h) { return dir_drv_viols(((home_rtl_t *)h)->d); }
static void hr_dump(void *hv, FILE *f)
{
    home_rtl_t *h = hv;
    fprintf(f, "    RTL home MN %u: cycle %llu, %zu messages on its link, idle %d, %zu not collected\n",
            h->cfg.mn_idx, (unsigned long long)dir_drv_cycle(h->d), dir_drv_in_flight(h->d),
            (int)dir_drv_out(h->d)->idle_o, h->n);
    for (size_t i = 0; i < dir_drv_viols(h->d) && i < 8; i++) {
        const dir_viol_rec_t *v = dir_drv_viol(h->d, i);
        fprintf(f, "    violation %s at cycle %llu: %s from node %u tag %u line 0x%llx\n", dir_viol_name(v->kind),
                (unsigned long long)v->cycle, msg_name(v->m.opcode) ? msg_name(v->m.opcode) : "?", v->m.src,
                v->m.tag, (unsigned long long)v->m.addr);
    }
}
static void hr_free(void *hv)
{
    home_rtl_t *h = hv;
    dir_drv_free(h->d);
    free(h->out);
    free(h);
}

static const coh_home_ops_t home_rtl_ops = {
    .can_recv = hr_can_recv, .recv = hr_recv, .tick = hr_tick, .pop = hr_pop, .idle = hr_idle,
    .peek_line = hr_peek_line, .peek_dir = hr_peek_dir, .violations = hr_violations, .dump = hr_dump,
    .free = hr_free,
};

bool coh_home_rtl_make(void *arg, const coh_cfg_t *cfg, unsigned mn, coh_home_t *out)
{
    if (cfg->mutate)
        return false; /* mutations are the reference model's */
    home_rtl_t *h = calloc(1, sizeof *h);
    if (!h)
        return false;
    dir_drv_cfg_t c = dir_drv_cfg_default();
    c.node_id = MSG_MN_BASE + mn;
    c.mn_idx = mn;
    c.mn_shift = cfg->mn_shift;
    c.gran_shift = cfg->gran_shift;
    c.lines = (uint32_t)cfg->lines_per_mn;
    c.scr_lo = cfg->scr_lo;
    c.scr_hi = cfg->scr_hi;
    c.mem_latency_ps = (uint64_t)cfg->mem_latency * c.period_ps;
    bool small = cfg->txn_entries <= 4 || (uint64_t)cfg->dc_sets * cfg->dc_ways <= 2 || cfg->crd_per_cls <= 2;
    h->cfg = c;
    const dir_model_ops_t *ops = arg ? (const dir_model_ops_t *)arg : small ? &dir_ops_small : &dir_ops_default;
    h->d = dir_drv_create(ops, &c, 1000 + mn, on_tx, h);
    *out = (coh_home_t){.ops = &home_rtl_ops, .h = h};
    return true;
}

dir_drv_t *coh_home_rtl_drv(const coh_home_t *h) { return ((home_rtl_t *)h->h)->d; }
