#include "coh_home_ref.h"

#include <stdlib.h>
#include <string.h>

typedef struct home_ref {
    dir_ctrl_ref_t *r;
    msg_t *out; /* sent, not yet collected */
    size_t head, n, cap;
} home_ref_t;

static void on_send(void *arg, const msg_t *m)
{
    home_ref_t *h = arg;
    if (h->head + h->n == h->cap) {
        if (h->head) {
            memmove(h->out, h->out + h->head, h->n * sizeof *h->out);
            h->head = 0;
        } else {
            h->cap = h->cap ? 2 * h->cap : 16;
            h->out = realloc(h->out, h->cap * sizeof *h->out);
            if (!h->out)
                abort();
        }
    }
    h->out[h->head + h->n++] = *m;
}

static bool hr_can_recv(void *h, const msg_t *m) { return dir_ctrl_ref_can_recv(((home_ref_t *)h)->r, m); }
static void hr_recv(void *h, const msg_t *m) { dir_ctrl_ref_recv(((home_ref_t *)h)->r, m); }
static void hr_tick(void *h) { dir_ctrl_ref_tick(((home_ref_t *)h)->r); }
static bool hr_pop(void *hv, msg_t *m)
{
    home_ref_t *h = hv;
    if (!h->n)
        return false;
    *m = h->out[h->head++];
    h->n--;
    if (!h->n)
        h->head = 0;
    return true;
}
static bool hr_idle(void *h) { return dir_ctrl_ref_idle(((home_ref_t *)h)->r) && !((home_ref_t *)h)->n; }
static bool hr_peek_line(void *h, uint64_t addr, uint64_t data[MSG_WORDS_PER_LINE])
{
    return dir_ctrl_ref_mem_peek(((home_ref_t *)h)->r, addr, data);
}
static bool hr_peek_dir(void *h, uint64_t addr, unsigned *state, uint32_t *vec, uint32_t *stale, unsigned *ver)
{
    dir_entry_t e;
    if (!dir_ctrl_ref_peek_entry(((home_ref_t *)h)->r, addr, &e))
        return false;
    *state = e.state, *vec = e.vec, *stale = e.stale, *ver = e.ver;
    return true;
}
static uint64_t hr_violations(void *h)
{
    size_t n;
    dir_ctrl_ref_violations(((home_ref_t *)h)->r, &n);
    return n;
}
static void hr_dump(void *hv, FILE *f)
{
    home_ref_t *h = hv;
    dir_ctrl_ref_dump(h->r, f);
    size_t n;
    const dir_ref_viol_t *v = dir_ctrl_ref_violations(h->r, &n);
    for (size_t i = 0; i < n && i < 8; i++)
        fprintf(f, "    violation %s at cycle %llu: %s from node %u tag %u line 0x%llx flags %u\n",
                dir_viol_name(v[i].kind), (unsigned long long)v[i].cycle,
                msg_name(v[i].msg.opcode) ? msg_name(v[i].msg.opcode) : "?", v[i].msg.src, v[i].msg.tag,
                (unsigned long long)v[i].msg.addr, v[i].msg.flags);
}
static void hr_free(void *hv)
{
    home_ref_t *h = hv;
    dir_ctrl_ref_free(h->r);
    free(h->out);
    free(h);
}

static const coh_home_ops_t home_ref_ops = {
    .can_recv = hr_can_recv, .recv = hr_recv, .tick = hr_tick, .pop = hr_pop, .idle = hr_idle,
    .peek_line = hr_peek_line, .peek_dir = hr_peek_dir, .violations = hr_violations, .dump = hr_dump,
    .free = hr_free,
};

bool coh_home_ref_make(void *arg, const coh_cfg_t *cfg, unsigned mn, coh_home_t *out)
{
    (void)arg;
    home_ref_t *h = calloc(1, sizeof *h);
    if (!h)
        return false;
    dir_ctrl_ref_cfg_t c = dir_ctrl_ref_default_cfg();
    c.node_id = MSG_MN_BASE + mn;
    c.mn_idx = mn;
    c.mn_shift = cfg->mn_shift;
    c.gran_shift = cfg->gran_shift;
    c.lines = cfg->lines_per_mn;
    c.scr_lo = cfg->scr_lo;
    c.scr_hi = cfg->scr_hi;
    c.txn_entries = cfg->txn_entries;
    c.dc_sets = cfg->dc_sets;
    c.dc_ways = cfg->dc_ways;
    c.mem_latency = cfg->mem_latency;
    c.crd_per_cls = cfg->crd_per_cls;
    c.mutate = cfg->mutate;
    c.send = on_send;
    c.send_arg = h;
    if (dir_ctrl_ref_cfg_check(&c)) {
        free(h);
        return false;
    }
    h->r = dir_ctrl_ref_init(&c);
    *out = (coh_home_t){.ops = &home_ref_ops, .h = h};
    return true;
}

dir_ctrl_ref_t *coh_home_ref_model(const coh_home_t *h) { return ((home_ref_t *)h->h)->r; }
