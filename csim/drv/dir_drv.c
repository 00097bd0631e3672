#include "drv/dir_drv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hostprof.h"
#include "drv/link_q.h"
#include "drv/tx_owed.h"

dir_drv_cfg_t dir_drv_cfg_default(void)
{
    return (dir_drv_cfg_t){
        .node_id = MSG_MN_BASE,
        .mn_idx = 0,
        .mn_shift = 0,
        .gran_shift = 0,
        .lines = 1u << 20,
        .scr_lo = 0,
        .scr_hi = 1ull << MSG_LINE_ADDR_W,
        .period_ps = 1000,
        .mem_latency_ps = 45000,
        .mem_burst_ps = 0,
        .mem_max_out = 64,
        .tx_credits = 4,
        .tx_stall = 0.0,
        .sw_stall = 0.0,
    };
}

typedef struct rsp {
    bool done;
    uint64_t line[MSG_WORDS_PER_LINE];
} rsp_t;

struct dir_drv {
    const dir_model_ops_t *ops;
    void *m;
    dir_drv_cfg_t cfg;
    uint64_t cyc;
    dir_in_t in;
    dir_out_t out;
    dir_msg_fn on_tx, on_sw;
    dir_mem_fn on_mem;
    void *ctx;
    dir_drv_sys_t sys; /* inside the system (sys.k set): the kernel is the system's */
    bool quiet;        /* idle after the last edge: the edges after it change nothing until an input comes */
    bool check_idle;   /* DIKTAMO_CHECK_IDLE (vw_port.h) */
    bool stalled;      /* the last edge only counted a new request waiting for the full table (stall_o, no
                        * input): so do the edges after it until an input comes */
    uint64_t skipped;  /* the stalled edges skipped since (skip_i of the next edge) */
    uint64_t stall_skips; /* all stalled edges skipped */
    rng_t rng;
    unsigned crd[MSG_NUM_CLASSES];     /* held toward the controller's receive port */
    tx_owed_t owed;                    /* consumed, credit not yet returned */
    link_q_t link;                     /* messages on their way in */
    msg_t *swq; /* the software's messages waiting for the port (ring) */
    size_t swq_cap, swq_head, swq_n;
    kernel_t k;  /* on its own: the driver's kernel (DRAM) and statistics */
    stats_t st;
    dram_t *dram;
    rsp_t *rq; /* reads in request order (ring) */
    size_t rq_cap, rq_head, rq_n;
    dir_viol_rec_t *viol;
    size_t nviol, capviol;
    uint64_t mem_stalls;
    dir_mg_cmd_t *mgq; /* management commands not yet taken (in order) */
    size_t mgq_head, mgq_n, mgq_cap;
    dir_mg_rsp_t *mgr; /* its answers */
    size_t nmgr, capmgr;
};

/* The directory's configuration inputs (sampled during reset; they must not change after it: the
 * RTL asserts it). */
static void put_cfg(const dir_drv_t *d, dir_in_t *in)
{
    in->node_id_i = d->cfg.node_id;
    in->cfg_mn_idx_i = d->cfg.mn_idx;
    in->cfg_mn_shift_i = d->cfg.mn_shift;
    in->cfg_gran_shift_i = d->cfg.gran_shift;
    in->cfg_lines_i = d->cfg.lines;
    in->cfg_scr_lo_i[0] = (uint32_t)d->cfg.scr_lo;
    in->cfg_scr_lo_i[1] = (uint32_t)(d->cfg.scr_lo >> 32);
    in->cfg_scr_hi_i[0] = (uint32_t)d->cfg.scr_hi;
    in->cfg_scr_hi_i[1] = (uint32_t)(d->cfg.scr_hi >> 32);
}

static dir_drv_t *create(const dir_model_ops_t *ops, const dir_drv_cfg_t *cfg, uint64_t seed, dir_msg_fn on_tx,
                         void *ctx, const dir_drv_sys_t *sys)
{
    dir_drv_t *d = calloc(1, sizeof *d);
    if (!d)
        abort();
    d->ops = ops;
    d->cfg = *cfg;
    if (d->cfg.mem_max_out < 1)
        d->cfg.mem_max_out = 1;
    d->on_tx = on_tx;
    d->ctx = ctx;
    rng_init_named(&d->rng, seed, "dir_drv.link");
    kernel_init(&d->k);
    if (stats_init(&d->st) != 0)
        abort();
    dram_params_t dp = {.name = "mn.dram", .latency_ps = cfg->mem_latency_ps, .burst_ps = cfg->mem_burst_ps,
                        .channels = 1};
    if (sys) {
        d->sys = *sys;
        dp.name = sys->dram_name;
        /* The send port's credits are the link partner's; random holding back is the standalone
         * link's business. */
        d->cfg.tx_credits = 0;
        d->cfg.tx_stall = 0.0;
    }
    d->dram = sys ? dram_create(sys->k, &dp, sys->st) : dram_create(&d->k, &dp, &d->st);
    if (!d->dram)
        abort();
    d->rq_cap = 256;
    d->rq = calloc(d->rq_cap, sizeof *d->rq);
    d->swq_cap = 64;
    d->swq = calloc(d->swq_cap, sizeof *d->swq);
    if (!d->rq || !d->swq)
        abort();
    /* Two cycles of reset with the configuration presented (the directory samples it during reset),
     * then every input low but that. */
    d->m = ops->create(cfg->period_ps, seed);
    d->check_idle = vw_check_idle();
    memset(&d->in, 0, sizeof d->in);
    put_cfg(d, &d->in);
    ops->set(d->m, &d->in);
    for (d->cyc = 0; d->cyc < 2; d->cyc++)
        ops->tick(d->m, d->cyc);
    d->in.rst_ni = 1;
    ops->set(d->m, &d->in);
    ops->get(d->m, &d->out);
    tx_owed_init(&d->owed, d->cfg.tx_credits); /* granted over the first cycles */
    return d;
}

dir_drv_t *dir_drv_create(const dir_model_ops_t *ops, const dir_drv_cfg_t *cfg, uint64_t seed, dir_msg_fn on_tx,
                          void *ctx)
{
    return create(ops, cfg, seed, on_tx, ctx, NULL);
}

dir_drv_t *dir_drv_create_sys(const dir_model_ops_t *ops, const dir_drv_cfg_t *cfg, uint64_t seed,
                              dir_msg_fn on_tx, void *ctx, const dir_drv_sys_t *sys)
{
    if (!sys || !sys->k || !sys->st || !sys->dram_name)
        abort();
    return create(ops, cfg, seed, on_tx, ctx, sys);
}

void dir_drv_free(dir_drv_t *d)
{
    if (!d)
        return;
    d->ops->free(d->m);
    dram_free(d->dram);
    stats_free(&d->st);
    kernel_free(&d->k);
    link_q_free(&d->link);
    free(d->rq);
    free(d->swq);
    free(d->viol);
    free(d->mgq);
    free(d->mgr);
    free(d);
}

void dir_drv_on_sw(dir_drv_t *d, dir_msg_fn fn) { d->on_sw = fn; }
void dir_drv_on_mem(dir_drv_t *d, dir_mem_fn fn) { d->on_mem = fn; }
uint64_t dir_drv_cycle(const dir_drv_t *d) { return d->cyc; }
unsigned dir_drv_credits(const dir_drv_t *d, msg_class_t cls) { return d->crd[cls]; }
size_t dir_drv_in_flight(const dir_drv_t *d) { return d->link.n; }
const dir_out_t *dir_drv_out(const dir_drv_t *d) { return &d->out; }
uint64_t dir_drv_mem_stalls(const dir_drv_t *d) { return d->mem_stalls; }
uint64_t dir_drv_stall_skips(const dir_drv_t *d) { return d->stall_skips + d->skipped; }
bool dir_drv_stalled(const dir_drv_t *d) { return d->stalled; }
size_t dir_drv_viols(const dir_drv_t *d) { return d->nviol; }
const dir_viol_rec_t *dir_drv_viol(const dir_drv_t *d, size_t i) { return i < d->nviol ? &d->viol[i] : NULL; }

void dir_drv_send(dir_drv_t *d, const msg_t *m, uint64_t delay)
{
    msg_class_t c = msg_class(m->opcode);
    if (d->crd[c] == 0) {
        fprintf(stderr, "dir_drv: %s sent without a %s credit\n", msg_name(m->opcode), msg_class_name(c));
        abort();
    }
    d->crd[c]--;
    link_q_push(&d->link, d->cyc + (delay ? delay : 1), m);
}

void dir_drv_send_at(dir_drv_t *d, const msg_t *m, uint64_t cycle)
{
    msg_class_t c = msg_class(m->opcode);
    if (d->crd[c] == 0) {
        fprintf(stderr, "dir_drv: %s sent without a %s credit\n", msg_name(m->opcode), msg_class_name(c));
        abort();
    }
    d->crd[c]--;
    link_q_push(&d->link, cycle > d->cyc ? cycle : d->cyc, m);
}

void dir_drv_tx_credit(dir_drv_t *d, msg_class_t c) { tx_owed_add_at(&d->owed, c, d->cyc); }

bool dir_drv_asleep(const dir_drv_t *d) { return d->owed.asleep; }

void dir_drv_skip_to(dir_drv_t *d, uint64_t cycle)
{
    if (cycle < d->cyc) {
        fprintf(stderr, "dir_drv: skip back from cycle %llu to %llu\n", (unsigned long long)d->cyc,
                (unsigned long long)cycle);
        abort();
    }
    if (d->stalled)
        d->skipped += cycle - d->cyc;
    d->cyc = cycle;
}

void dir_drv_sw_send(dir_drv_t *d, const msg_t *m)
{
    if (d->swq_n == d->swq_cap) {
        msg_t *n = calloc(2 * d->swq_cap, sizeof *n);
        if (!n)
            abort();
        for (size_t i = 0; i < d->swq_n; i++)
            n[i] = d->swq[(d->swq_head + i) % d->swq_cap];
        free(d->swq);
        d->swq = n;
        d->swq_head = 0;
        d->swq_cap *= 2;
    }
    d->swq[(d->swq_head + d->swq_n++) % d->swq_cap] = *m;
}

void dir_drv_mg_send(dir_drv_t *d, const dir_mg_cmd_t *c)
{
    if (d->mgq_head + d->mgq_n == d->mgq_cap) {
        if (d->mgq_head) {
            memmove(d->mgq, d->mgq + d->mgq_head, d->mgq_n * sizeof *d->mgq);
            d->mgq_head = 0;
        } else {
            d->mgq_cap = d->mgq_cap ? 2 * d->mgq_cap : 16;
            d->mgq = realloc(d->mgq, d->mgq_cap * sizeof *d->mgq);
            if (!d->mgq)
                abort();
        }
    }
    d->mgq[d->mgq_head + d->mgq_n++] = *c;
}

size_t dir_drv_mg_pending(const dir_drv_t *d) { return d->mgq_n; }
size_t dir_drv_mg_rsps(const dir_drv_t *d) { return d->nmgr; }
const dir_mg_rsp_t *dir_drv_mg_rsp(const dir_drv_t *d, size_t i) { return i < d->nmgr ? &d->mgr[i] : NULL; }

static void read_done(void *obj, uint64_t tag, const uint64_t *line)
{
    dir_drv_t *d = obj;
    rsp_t *r = &d->rq[tag % d->rq_cap];
    memcpy(r->line, line, sizeof r->line);
    r->done = true;
    if (d->sys.wake)
        d->sys.wake(d->sys.obj);
}

static void write_done(void *obj, uint64_t tag, const uint64_t *line) { (void)obj, (void)tag, (void)line; }

/* DRAM line address of a request: data line l at l; directory group g after the data. */
static uint64_t dram_line(const dir_drv_t *d, bool dir, uint32_t addr)
{
    return dir ? (uint64_t)d->cfg.lines + addr : addr;
}

void dir_drv_mem_peek(const dir_drv_t *d, uint32_t l, uint64_t *line) { dram_peek(d->dram, l, line); }
void dir_drv_mem_poke(dir_drv_t *d, uint32_t l, uint8_t mask, const uint64_t *line) { dram_poke(d->dram, l, mask, line); }

void dir_drv_entry_peek(const dir_drv_t *d, uint32_t l, dir_entry_t *e)
{
    uint64_t line[MSG_WORDS_PER_LINE];
    dram_peek(d->dram, dram_line(d, true, l >> 2), line);
    uint64_t lo = line[2 * (l & 3)], hi = line[2 * (l & 3) + 1];
    e->state = (unsigned)(lo & 3);
    e->vec = (uint32_t)(lo >> 2);
    e->stale = (uint32_t)(lo >> 34) | (uint32_t)(hi << 30);
    e->ver = (unsigned)(hi >> 2) & ((1u << MSG_TS_W) - 1);
}

static void hdr_unpack(const uint32_t *hdr4, msg_t *m)
{
    uint32_t flit[MSG_FLIT_WORDS] = {0};
    memcpy(&flit[MSG_WORDS_PER_LINE * 2], hdr4, 4 * sizeof(uint32_t));
    msg_unpack(flit, m);
}

void dir_drv_step(dir_drv_t *d)
{
    /* DRAM completions up to this edge (inside the system, the system's kernel has run them). */
    if (!d->sys.k)
        kernel_run(&d->k, d->cyc * d->cfg.period_ps);
    dir_in_t *in = &d->in; /* rst_ni and the configuration stay as create set them */
    /* The stalled edges skipped since the last one (a wait of over 2^32 cycles for a table entry
     * would be a deadlock the kernel reports long before). */
    if (d->skipped > UINT32_MAX) {
        fprintf(stderr, "dir_drv: %llu stalled cycles skipped at once\n", (unsigned long long)d->skipped);
        abort();
    }
    in->skip_i = (uint32_t)d->skipped;
    d->stall_skips += d->skipped;
    d->skipped = 0;
    /* Link: the oldest arrived message. */
    in->rx_valid_i = 0;
    if (link_q_due(&d->link, d->cyc)) {
        msg_t m = link_q_pop(&d->link);
        in->rx_valid_i = 1;
        msg_pack(&m, in->rx_msg_i);
    }
    /* Send-port credits: owed ones come back one per class per cycle, unless held back; those the
     * edges skipped while the controller slept took, counted before this edge (tx_crd_skip_i). */
    tx_owed_wake(&d->owed, d->cyc, in->tx_crd_skip_i);
    in->tx_crd_i = tx_owed_take(&d->owed, &d->rng, d->cfg.tx_stall);
    /* Software port: takes a message unless stalled; offers its oldest queued one. */
    in->sw_rx_ready_i = !(d->cfg.sw_stall > 0 && rng_chance(&d->rng, d->cfg.sw_stall));
    in->sw_tx_valid_i = d->swq_n != 0;
    if (d->swq_n)
        msg_pack(&d->swq[d->swq_head], in->sw_tx_msg_i);
    /* Management port: the oldest queued command; answers always taken. */
    in->mg_req_valid_i = d->mgq_n != 0;
    in->mg_rsp_ready_i = 1;
    if (d->mgq_n) {
        const dir_mg_cmd_t *c = &d->mgq[d->mgq_head];
        in->mg_req_op_i = c->op;
        in->mg_req_cn_i = c->cn;
        in->mg_req_addr_i[0] = (uint32_t)c->line;
        in->mg_req_addr_i[1] = (uint32_t)(c->line >> 32);
        in->mg_req_wmask_i = c->wmask;
        in->mg_req_tsv_i = c->set_ts;
        in->mg_req_ts_i = c->ts & ((1u << MSG_TS_W) - 1);
        for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++) {
            in->mg_req_wdata_i[2 * w] = (uint32_t)c->data[w];
            in->mg_req_wdata_i[2 * w + 1] = (uint32_t)(c->data[w] >> 32);
        }
    }
    /* Memory port: ready while fewer than mem_max_out accesses are in flight; the oldest read's
     * data when it is done. */
    in->mem_req_ready_i = dram_busy(d->dram) < d->cfg.mem_max_out && d->rq_n < d->rq_cap;
    in->mem_rsp_valid_i = 0;
    if (d->rq_n && d->rq[d->rq_head].done) {
        in->mem_rsp_valid_i = 1;
        for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++) {
            in->mem_rsp_rdata_i[2 * w] = (uint32_t)d->rq[d->rq_head].line[w];
            in->mem_rsp_rdata_i[2 * w + 1] = (uint32_t)(d->rq[d->rq_head].line[w] >> 32);
        }
        d->rq[d->rq_head].done = false;
        d->rq_head = (d->rq_head + 1) % d->rq_cap;
        d->rq_n--;
    }
    hostprof_zone_e prev = hostprof_enter(HOSTPROF_DIR);
    d->ops->set_step(d->m, in);
    d->ops->get_step(d->m, &d->out);
    hostprof_leave(prev);
    const dir_out_t *o = &d->out;
    if (o->mem_req_valid_o) {
        if (!in->mem_req_ready_i)
            d->mem_stalls++;
        else {
            uint64_t a = dram_line(d, o->mem_req_dir_o, o->mem_req_addr_o);
            if (d->on_mem)
                d->on_mem(d->ctx, o->mem_req_write_o, o->mem_req_dir_o, o->mem_req_addr_o, d->cyc);
            if (o->mem_req_write_o) {
                uint64_t data[MSG_WORDS_PER_LINE];
                for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
                    data[w] = (uint64_t)o->mem_req_wdata_o[2 * w] | (uint64_t)o->mem_req_wdata_o[2 * w + 1] << 32;
                dram_write(d->dram, a, (uint8_t)o->mem_req_wmask_o, data, write_done, d, 0);
            } else {
                size_t slot = (d->rq_head + d->rq_n) % d->rq_cap;
                d->rq[slot].done = false;
                d->rq_n++;
                dram_read(d->dram, a, read_done, d, slot);
            }
        }
    }
    if (o->tx_valid_o) {
        msg_t m;
        msg_unpack(o->tx_msg_o, &m);
        if (!d->sys.k)
            dir_drv_tx_credit(d, msg_class(m.opcode)); /* the standalone link consumes it at once */
        if (d->on_tx)
            d->on_tx(d->ctx, &m, d->cyc);
    }
    if (o->sw_rx_valid_o && in->sw_rx_ready_i) {
        msg_t m;
        msg_unpack(o->sw_rx_msg_o, &m);
        if (d->on_sw)
            d->on_sw(d->ctx, &m, d->cyc);
    }
    if (in->sw_tx_valid_i && o->sw_tx_ready_o) {
        d->swq_head = (d->swq_head + 1) % d->swq_cap;
        d->swq_n--;
    }
    if (in->mg_req_valid_i && o->mg_req_ready_o) {
        d->mgq_head++;
        d->mgq_n--;
    }
    if (o->mg_rsp_valid_o) {
        if (d->nmgr == d->capmgr) {
            d->capmgr = d->capmgr ? 2 * d->capmgr : 64;
            d->mgr = realloc(d->mgr, d->capmgr * sizeof *d->mgr);
            if (!d->mgr)
                abort();
        }
        d->mgr[d->nmgr++] = (dir_mg_rsp_t){.kind = (dir_mg_rsp_e)o->mg_rsp_kind_o,
                                           .line = (uint64_t)o->mg_rsp_line_o[0] | (uint64_t)o->mg_rsp_line_o[1] << 32,
                                           .count = o->mg_rsp_count_o,
                                           .cycle = d->cyc};
    }
    for (unsigned lane = 0; lane < 2; lane++) {
        if (!(o->viol_valid_o >> lane & 1))
            continue;
        if (d->nviol == d->capviol) {
            d->capviol = d->capviol ? 2 * d->capviol : 16;
            d->viol = realloc(d->viol, d->capviol * sizeof *d->viol);
            if (!d->viol)
                abort();
        }
        dir_viol_rec_t *v = &d->viol[d->nviol++];
        v->kind = o->viol_kind_o >> (4 * lane) & 0xf;
        v->cycle = d->cyc;
        hdr_unpack(&o->viol_hdr_o[4 * lane], &v->m);
    }
    for (uint32_t r = o->rx_crd_o; r; r &= r - 1)
        d->crd[__builtin_ctz(r)]++;
    /* idle_o covers every input but the send credits and the CSR port (and the ready inputs, which
     * matter only with a request pending, i.e. not idle); the CSR answer's registers clear at the
     * edge after a request. Such an edge changes nothing (the RTL asserts it): it is not evaluated
     * (tick_idle), and the kernel skips the edges after it until an input comes. Send credits given
     * to an idle controller change their counts and nothing else (nothing waits to be sent), and
     * idle_o does not depend on the counts: that edge is evaluated, and the kernel skips the edges
     * after it as well (under DIKTAMO_CHECK_IDLE the next one is stepped, so that the check sees it). */
    const bool no_csr = !in->csr_valid_i && !o->csr_rvalid_o;
    const bool no_input = in->tx_crd_i == 0 && no_csr;
    d->quiet = o->idle_o && no_csr && (no_input || !d->check_idle);
    /* A stalled edge is evaluated (it counts EV_FULL); those after it until an input comes may be
     * skipped, and the next evaluated edge counts them (skip_i). Send credits at it change only
     * their counts (stall_o covers idle_o's conditions), so the edges after it are stalled too. */
    d->stalled = o->stall_o && no_csr;
    prev = hostprof_enter(HOSTPROF_DIR);
    (o->idle_o && no_input ? d->ops->tick_idle : d->ops->tick)(d->m, d->cyc++);
    hostprof_leave(prev);
    /* Idle or stalled, the controller has nothing to send: send credits change only their counts,
     * so inside the system it sleeps through them (the MN's adapter does not wake it for one, and
     * its next clocked edge is told those the edges skipped took: tx_owed_sleep). Not under
     * DIKTAMO_CHECK_IDLE, whose runs clock those edges, nor on its own, where credits may be held
     * back at random. */
    if ((d->quiet || d->stalled) && d->sys.k && !d->check_idle)
        tx_owed_sleep(&d->owed, d->cyc);
    in->csr_valid_i = 0;
}

uint32_t dir_drv_csr(dir_drv_t *d, unsigned addr, bool *err)
{
    d->in.csr_valid_i = 1;
    d->in.csr_addr_i = addr;
    dir_drv_step(d); /* the request at this edge */
    dir_drv_step(d); /* the answer is seen before the next one */
    if (err)
        *err = d->out.csr_err_o;
    return d->out.csr_rdata_o;
}

bool dir_drv_idle(const dir_drv_t *d)
{
    return d->out.idle_o && d->link.n == 0 && d->swq_n == 0 && d->mgq_n == 0 && dram_busy(d->dram) == 0 &&
           d->rq_n == 0;
}

uint64_t dir_drv_next_cycle(const dir_drv_t *d)
{
    if (!(d->quiet || d->stalled) || (d->owed.cls && !d->owed.asleep) || d->swq_n || d->mgq_n ||
        (d->rq_n && d->rq[d->rq_head].done) || d->in.csr_valid_i)
        return d->cyc;
    if (d->link.n)
        return d->link.v[0].at > d->cyc ? d->link.v[0].at : d->cyc;
    return UINT64_MAX;
}

int dir_drv_trace(dir_drv_t *d, const char *path) { return d->ops->trace_open(d->m, path, 0, UINT64_MAX); }

int dir_drv_trace_window(dir_drv_t *d, const char *path, uint64_t start_ps, uint64_t stop_ps)
{
    return d->ops->trace_open(d->m, path, start_ps, stop_ps);
}
