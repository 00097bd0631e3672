#include "drv/lu_drv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/hostprof.h"
#include "drv/link_q.h"
#include "drv/lu_zlib.h"
#include "drv/tx_owed.h"

void lu_rec_unpack(const uint32_t w[4], lu_rec_t *r)
{
    uint64_t lo = (uint64_t)w[0] | (uint64_t)w[1] << 32, hi = (uint64_t)w[2] | (uint64_t)w[3] << 32;
    r->value = lo;
    r->line = hi & ((1ull << MSG_LINE_ADDR_W) - 1);
    r->word = (unsigned)(hi >> 42) & 7;
    r->ts = (unsigned)(hi >> 45) & 0x7f;
    r->cn = (unsigned)(hi >> 52) & 0x3f;
    r->core = (unsigned)(hi >> 58) & 0xf;
    r->written = (hi >> 62) == 1;
}

lu_drv_cfg_t lu_drv_cfg_default(void)
{
    return (lu_drv_cfg_t){
        .node_id = 0,
        .addr_lim = 1ull << 36,
        .log_cap = 18u * 1024 * 1024 / 16,
        .hwm = 18u * 1024 * 1024 / 16 / 8 * 7,
        .period_ps = 2000,
        .mem_latency_ps = 45000,
        .mem_burst_ps = 0,
        .mem_max_out = 64,
        .tx_credits = 4,
        .tx_stall = 0.0,
        .log_base_line = 0,
        .own = ~0ull,
        .mn_id = MSG_MN_BASE,
        .num_cn = 16,
        .zlib_level = 9,
        .keep_log = true,
    };
}

typedef struct rsp {
    bool done;
    uint32_t rec[4];
} rsp_t;

struct lu_drv {
    const lu_model_ops_t *ops;
    void *m;
    lu_drv_cfg_t cfg;
    uint64_t cyc;
    lu_in_t in;
    lu_out_t out;
    lu_tx_fn on_tx, on_rx;
    void *ctx;
    rng_t rng;
    unsigned crd[MSG_NUM_CLASSES];     /* held toward the LU's receive port */
    tx_owed_t owed;                    /* consumed, credit not yet returned */
    link_q_t link;                     /* messages on their way in */
    kernel_t k;
    stats_t st;
    dram_t *dram;
    rsp_t *rq; /* reads in request order (ring) */
    size_t rq_cap, rq_head, rq_n;
    lu_rec_t *log; /* every record the DRAM log took (cfg.keep_log) */
    size_t nlog, caplog;
    void (*on_log)(void *ctx, const lu_rec_t *r);
    void *on_log_ctx;
    uint32_t max_idx1; /* highest log index written + 1: the largest log between clears */
    uint64_t mem_stalls;
    bool alive, dump_start;
    lu_zlib_t zl;
    lu_drv_sys_t sys; /* inside the system (sys.k set): the kernel is the system's */
    bool quiet;       /* idle after the last edge: the edges after it change nothing until an input comes */
    bool check_idle;  /* DIKTAMO_CHECK_IDLE (vw_port.h) */
};

/* The LU's liveness and configuration inputs (the configuration is sampled during reset and must not
 * change after it: the RTL asserts it). */
static void put_cfg(const lu_drv_t *d, lu_in_t *in)
{
    in->alive_i = d->alive;
    in->node_id_i = d->cfg.node_id;
    in->cfg_addr_lim_i[0] = (uint32_t)d->cfg.addr_lim;
    in->cfg_addr_lim_i[1] = (uint32_t)(d->cfg.addr_lim >> 32);
    in->cfg_log_cap_i = d->cfg.log_cap;
    in->cfg_hwm_i = d->cfg.hwm;
    in->cfg_own_i[0] = (uint32_t)d->cfg.own;
    in->cfg_own_i[1] = (uint32_t)(d->cfg.own >> 32);
    in->cfg_mn_i = d->cfg.mn_id;
    in->cfg_num_cn_i = d->cfg.num_cn;
}

static lu_drv_t *create(const lu_model_ops_t *ops, const lu_drv_cfg_t *cfg, uint64_t seed, lu_tx_fn on_tx,
                        void *ctx, const lu_drv_sys_t *sys)
{
    lu_drv_t *d = calloc(1, sizeof *d);
    if (!d)
        abort();
    d->ops = ops;
    d->cfg = *cfg;
    if (d->cfg.mem_max_out < 1)
        d->cfg.mem_max_out = 1;
    d->on_tx = on_tx;
    d->ctx = ctx;
    d->alive = true;
    rng_init_named(&d->rng, seed, "lu_drv.link");
    kernel_init(&d->k);
    if (stats_init(&d->st) != 0)
        abort();
    dram_params_t dp = {.name = "lu.dram", .latency_ps = cfg->mem_latency_ps, .burst_ps = cfg->mem_burst_ps, .channels = 1};
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
    if (!d->rq)
        abort();
    if (lu_zlib_init(&d->zl, cfg->zlib_level, cfg->zpool, cfg->log_cap) != 0)
        abort();
    /* Two cycles of reset with the LU alive and its configuration presented (it samples it during
     * reset), then every input low but those. */
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

lu_drv_t *lu_drv_create(const lu_model_ops_t *ops, const lu_drv_cfg_t *cfg, uint64_t seed, lu_tx_fn on_tx,
                        void *ctx)
{
    return create(ops, cfg, seed, on_tx, ctx, NULL);
}

lu_drv_t *lu_drv_create_sys(const lu_model_ops_t *ops, const lu_drv_cfg_t *cfg, uint64_t seed, lu_tx_fn on_tx,
                            void *ctx, const lu_drv_sys_t *sys)
{
    if (!sys || !sys->k || !sys->st || !sys->dram_name)
        abort();
    return create(ops, cfg, seed, on_tx, ctx, sys);
}

void lu_drv_send_at(lu_drv_t *d, const msg_t *m, uint64_t cycle)
{
    msg_class_t c = msg_class(m->opcode);
    if (d->crd[c] == 0) {
        fprintf(stderr, "lu_drv: %s sent without a %s credit\n", msg_name(m->opcode), msg_class_name(c));
        abort();
    }
    d->crd[c]--;
    link_q_push(&d->link, cycle > d->cyc ? cycle : d->cyc, m);
}

void lu_drv_tx_credit(lu_drv_t *d, msg_class_t c) { tx_owed_add(&d->owed, c); }

void lu_drv_skip_to(lu_drv_t *d, uint64_t cycle)
{
    if (cycle < d->cyc) {
        fprintf(stderr, "lu_drv: skip back from cycle %llu to %llu\n", (unsigned long long)d->cyc,
                (unsigned long long)cycle);
        abort();
    }
    d->cyc = cycle;
}

uint64_t lu_drv_next_cycle(const lu_drv_t *d)
{
    uint8_t chunk[LU_ZLIB_CHUNK];
    bool last;
    if (!d->quiet || d->owed.cls || d->dump_start || lu_zlib_peek(&d->zl, chunk, &last) ||
        (d->rq_n && d->rq[d->rq_head].done) || d->in.csr_valid_i)
        return d->cyc;
    if (d->link.n)
        return d->link.v[0].at > d->cyc ? d->link.v[0].at : d->cyc;
    return UINT64_MAX;
}

const lu_drv_cfg_t *lu_drv_cfg(const lu_drv_t *d) { return &d->cfg; }

void lu_drv_free(lu_drv_t *d)
{
    if (!d)
        return;
    d->ops->free(d->m);
    dram_free(d->dram);
    stats_free(&d->st);
    kernel_free(&d->k);
    link_q_free(&d->link);
    free(d->rq);
    free(d->log);
    lu_zlib_free(&d->zl);
    free(d);
}

void lu_drv_dump_start(lu_drv_t *d) { d->dump_start = true; }
void lu_drv_zlib_bytes(const lu_drv_t *d, uint64_t *in, uint64_t *out)
{
    *in = d->zl.in_bytes;
    *out = d->zl.out_bytes;
}

uint64_t lu_drv_zlib_missed(const lu_drv_t *d) { return lu_zlib_missed(&d->zl); }

void lu_drv_on_log(lu_drv_t *d, void (*fn)(void *ctx, const lu_rec_t *r), void *ctx)
{
    d->on_log = fn;
    d->on_log_ctx = ctx;
}

void lu_drv_on_rx(lu_drv_t *d, lu_tx_fn fn) { d->on_rx = fn; }
uint64_t lu_drv_cycle(const lu_drv_t *d) { return d->cyc; }
unsigned lu_drv_credits(const lu_drv_t *d, msg_class_t cls) { return d->crd[cls]; }
size_t lu_drv_in_flight(const lu_drv_t *d) { return d->link.n; }
const lu_out_t *lu_drv_out(const lu_drv_t *d) { return &d->out; }
uint64_t lu_drv_mem_stalls(const lu_drv_t *d) { return d->mem_stalls; }
void lu_drv_set_alive(lu_drv_t *d, bool alive) { d->alive = alive; }
size_t lu_drv_log_writes(const lu_drv_t *d) { return d->nlog; }
uint32_t lu_drv_log_max(const lu_drv_t *d) { return d->max_idx1; }
const lu_rec_t *lu_drv_log_write(const lu_drv_t *d, size_t i)
{
    return d->cfg.keep_log && i < d->nlog ? &d->log[i] : NULL;
}

void lu_drv_send(lu_drv_t *d, const msg_t *m, uint64_t delay)
{
    msg_class_t c = msg_class(m->opcode);
    if (d->crd[c] == 0) {
        fprintf(stderr, "lu_drv: %s sent without a %s credit\n", msg_name(m->opcode), msg_class_name(c));
        abort();
    }
    d->crd[c]--;
    link_q_push(&d->link, d->cyc + (delay ? delay : 1), m);
}

static void read_done(void *obj, uint64_t tag, const uint64_t *line)
{
    lu_drv_t *d = obj;
    rsp_t *r = &d->rq[tag % d->rq_cap];
    unsigned w = (unsigned)(tag >> 32) * 2;
    r->rec[0] = (uint32_t)line[w];
    r->rec[1] = (uint32_t)(line[w] >> 32);
    r->rec[2] = (uint32_t)line[w + 1];
    r->rec[3] = (uint32_t)(line[w + 1] >> 32);
    r->done = true;
    if (d->sys.wake)
        d->sys.wake(d->sys.obj);
}

static void write_done(void *obj, uint64_t tag, const uint64_t *line)
{
    (void)obj, (void)tag, (void)line;
}

void lu_drv_log_peek(const lu_drv_t *d, uint32_t idx, lu_rec_t *r)
{
    uint64_t line[MSG_WORDS_PER_LINE];
    dram_peek(d->dram, d->cfg.log_base_line + idx / 4, line);
    unsigned w = (idx % 4) * 2;
    uint32_t x[4] = {(uint32_t)line[w], (uint32_t)(line[w] >> 32), (uint32_t)line[w + 1],
                     (uint32_t)(line[w + 1] >> 32)};
    lu_rec_unpack(x, r);
}

void lu_drv_step(lu_drv_t *d)
{
    /* DRAM completions up to this edge (inside the system, the system's kernel has run them). */
    if (!d->sys.k)
        kernel_run(&d->k, d->cyc * d->cfg.period_ps);
    lu_in_t *in = &d->in; /* rst_ni and the configuration stay as create set them */
    in->alive_i = d->alive;
    in->dump_start_i = d->dump_start;
    d->dump_start = false;
    /* The compression engine takes a record every cycle and offers its oldest compressed chunk. */
    in->dp_ready_i = 1;
    bool last = false;
    in->dc_valid_i = lu_zlib_peek(&d->zl, (uint8_t *)in->dc_data_i, &last);
    in->dc_last_i = last;
    /* Link: the oldest arrived messages, up to one per lane, the oldest on lane 0. A lane without one
     * keeps its last flit: the LU reads a lane's flit only under its valid bit (lu_rx), as a link's
     * data mean nothing without it, and the model is handed the flits only with a message. */
    in->rx_valid_i = 0;
    for (unsigned k = 0; k < LU_RX_LANES && link_q_due(&d->link, d->cyc); k++) {
        msg_t m = link_q_pop(&d->link);
        in->rx_valid_i |= 1u << k;
        msg_pack(&m, &in->rx_msg_i[k * MSG_FLIT_WORDS]);
        if (d->on_rx)
            d->on_rx(d->ctx, &m, d->cyc);
    }
    /* Send-port credits: owed ones come back one per class per cycle, unless held back. */
    in->tx_crd_i = tx_owed_take(&d->owed, &d->rng, d->cfg.tx_stall);
    /* Memory port: ready while fewer than mem_max_out accesses are in flight; the oldest read's
     * data when it is done. */
    in->mem_req_ready_i = dram_busy(d->dram) < d->cfg.mem_max_out && d->rq_n < d->rq_cap;
    in->mem_rsp_valid_i = 0;
    if (d->rq_n && d->rq[d->rq_head].done) {
        in->mem_rsp_valid_i = 1;
        memcpy(in->mem_rsp_rdata_i, d->rq[d->rq_head].rec, sizeof in->mem_rsp_rdata_i);
        d->rq[d->rq_head].done = false;
        d->rq_head = (d->rq_head + 1) % d->rq_cap;
        d->rq_n--;
    }
    hostprof_zone_e prev = hostprof_enter(HOSTPROF_LU);
    d->ops->set_step(d->m, in);
    d->ops->get_step(d->m, &d->out);
    hostprof_leave(prev);
    const lu_out_t *o = &d->out;
    if (in->dc_valid_i && o->dc_ready_o)
        lu_zlib_pop(&d->zl);
    if (o->dp_valid_o) {
        if (o->dp_end_o)
            lu_zlib_finish(&d->zl);
        else
            lu_zlib_push(&d->zl, (const uint8_t *)o->dp_rec_o);
    }
    if (o->mem_req_valid_o) {
        if (!in->mem_req_ready_i)
            d->mem_stalls++;
        else {
            uint32_t idx = o->mem_req_addr_o;
            uint64_t line = d->cfg.log_base_line + idx / 4;
            unsigned w = (idx % 4) * 2;
            if (o->mem_req_write_o) {
                uint64_t data[MSG_WORDS_PER_LINE] = {0};
                data[w] = (uint64_t)o->mem_req_wdata_o[0] | (uint64_t)o->mem_req_wdata_o[1] << 32;
                data[w + 1] = (uint64_t)o->mem_req_wdata_o[2] | (uint64_t)o->mem_req_wdata_o[3] << 32;
                dram_write(d->dram, line, (uint8_t)(3u << w), data, write_done, d, idx);
                lu_rec_t r;
                lu_rec_unpack(o->mem_req_wdata_o, &r);
                if (d->cfg.keep_log) {
                    if (d->nlog == d->caplog) {
                        d->caplog = d->caplog ? 2 * d->caplog : 1024;
                        d->log = realloc(d->log, d->caplog * sizeof *d->log);
                        if (!d->log)
                            abort();
                    }
                    d->log[d->nlog] = r;
                }
                d->nlog++;
                if (d->on_log)
                    d->on_log(d->on_log_ctx, &r);
                /* A dump reads the log's records oldest first and sends those of the LU's buckets
                 * (rtl/lu/lu_dump.sv): the compression engine's pool compresses them ahead. (Were
                 * the dump's records other ones, the engine would only lose time.) */
                if (d->cfg.zpool && (d->cfg.own >> lu_line_bucket(r.line) & 1u))
                    lu_zlib_announce(&d->zl, (const uint8_t *)o->mem_req_wdata_o);
                if (idx + 1 > d->max_idx1)
                    d->max_idx1 = idx + 1;
            } else {
                size_t slot = (d->rq_head + d->rq_n) % d->rq_cap;
                d->rq[slot].done = false;
                d->rq_n++;
                dram_read(d->dram, line, read_done, d, (uint64_t)(idx % 4) << 32 | slot);
            }
        }
    }
    if (o->tx_valid_o) {
        msg_t m;
        msg_unpack(o->tx_msg_o, &m);
        if (!d->sys.k)
            lu_drv_tx_credit(d, msg_class(m.opcode)); /* the standalone link consumes it at once */
        if (d->on_tx)
            d->on_tx(d->ctx, &m, d->cyc);
    }
    for (uint32_t r = o->rx_crd_o; r; r &= r - 1)
        d->crd[__builtin_ctz(r)]++;
    /* Credits returned are an output the caller acts on, not state the next edge needs: an edge
     * with idle_o high, no input and no CSR answer to clear changes nothing. It is not evaluated
     * (tick_idle), and the kernel skips the edges after it until an input comes. Send credits given
     * to an idle LU change their counts and nothing else (nothing waits to be sent), and idle_o does
     * not depend on the counts: that edge is evaluated, and the kernel skips the edges after it as
     * well (under DIKTAMO_CHECK_IDLE the next one is stepped, so that the check sees it). */
    const bool idle = o->idle_o && !in->rx_valid_i && !in->csr_valid_i && !in->dump_start_i && !in->dc_valid_i &&
                      !in->mem_rsp_valid_i && !o->tx_valid_o && !o->rx_crd_o && !o->csr_rvalid_o;
    d->quiet = idle && (!in->tx_crd_i || !d->check_idle);
    prev = hostprof_enter(HOSTPROF_LU);
    (idle && !in->tx_crd_i ? d->ops->tick_idle : d->ops->tick)(d->m, d->cyc++);
    hostprof_leave(prev);
    in->csr_valid_i = 0;
}

uint32_t lu_drv_csr(lu_drv_t *d, unsigned addr, bool *err)
{
    d->in.csr_valid_i = 1;
    d->in.csr_addr_i = addr;
    lu_drv_step(d); /* the request at this edge */
    lu_drv_step(d); /* the answer is seen before the next one */
    /* The answer came out after the first edge: the second step's outputs hold it. */
    if (err)
        *err = d->out.csr_err_o;
    return d->out.csr_rdata_o;
}

bool lu_drv_idle(const lu_drv_t *d)
{
    return d->out.idle_o && d->link.n == 0 && dram_busy(d->dram) == 0 && d->rq_n == 0;
}

int lu_drv_trace(lu_drv_t *d, const char *path) { return d->ops->trace_open(d->m, path, 0, UINT64_MAX); }
