/* The CXL switch (rtl/switch/cxl_switch.sv) on its own, against a C scoreboard: every message
 * reaches the output its destination routes to, bit for bit, in order within one
 * (source, destination, class), none lost or duplicated, under random idle on every input and
 * random credit back-pressure on every output; CSRs; zero-load latency; full-load throughput. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "msg_defs.h"
#include "msg_rand.h"
#include "rng.h"
#include "sb/stream_run.h"
#include "tb_seed.h"
#include "vw_cxl_switch_c2m2.h"
#include "vw_cxl_switch_c4m4.h"

/* ---- one driver for every switch model (the wrappers have the same port names) ---- */

typedef struct sw_ops {
    const char *name;
    unsigned ncn, nmn;
    const stream_ops_t *api; /* the generated wrapper's create/reset/set/get/tick */
    size_t rx_valid_i, rx_msg_i, tx_crd_i, csr_valid_i, csr_write_i, csr_addr_i, csr_wdata_i; /* in */
    size_t rx_crd_o, tx_valid_o, tx_msg_o, csr_rvalid_o, csr_rdata_o, csr_err_o, idle_o;      /* out */
} sw_ops_t;

#define SW_MODEL(M, NCN, NMN)                                                                                      \
    STREAM_OPS(M##_api, vw_##M);                                                                                    \
    static const sw_ops_t M##_ops = {                                                                               \
        #M, NCN, NMN, &M##_api,                                                                                     \
        offsetof(vw_##M##_in, rx_valid_i), offsetof(vw_##M##_in, rx_msg_i), offsetof(vw_##M##_in, tx_crd_i),         \
        offsetof(vw_##M##_in, csr_valid_i), offsetof(vw_##M##_in, csr_write_i), offsetof(vw_##M##_in, csr_addr_i),  \
        offsetof(vw_##M##_in, csr_wdata_i),                                                                         \
        offsetof(vw_##M##_out, rx_crd_o), offsetof(vw_##M##_out, tx_valid_o), offsetof(vw_##M##_out, tx_msg_o),     \
        offsetof(vw_##M##_out, csr_rvalid_o), offsetof(vw_##M##_out, csr_rdata_o), offsetof(vw_##M##_out, csr_err_o), \
        offsetof(vw_##M##_out, idle_o)};

SW_MODEL(cxl_switch_c2m2, 2, 2)
SW_MODEL(cxl_switch_c4m4, 4, 4)

#define MAXP 8u

typedef struct sw {
    const sw_ops_t *ops;
    void *m;
    unsigned np;
    uint64_t cycle;
    uint8_t *in, *out;
    unsigned in_crd[MAXP][MSG_NUM_CLASSES]; /* credits the inputs' link partners hold */
} sw_t;

static uint32_t *iw(sw_t *s, size_t off) { return (uint32_t *)(s->in + off); }
static const uint32_t *ow(const sw_t *s, size_t off) { return (const uint32_t *)(s->out + off); }
static unsigned bit(const uint32_t *v, unsigned i) { return v[i / 32] >> (i % 32) & 1u; }
static void set_bit(uint32_t *v, unsigned i, unsigned b) { v[i / 32] = (v[i / 32] & ~(1u << (i % 32))) | (b << (i % 32)); }

static void sw_step(sw_t *s)
{
    s->ops->api->set(s->m, s->in);
    s->ops->api->tick(s->m, s->cycle++);
    s->ops->api->get(s->m, s->out);
    for (unsigned p = 0; p < s->np; p++)
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            s->in_crd[p][c] += bit(ow(s, s->ops->rx_crd_o), p * MSG_NUM_CLASSES + c);
}

static unsigned port_node(const sw_t *s, unsigned p) { return p < s->ops->ncn ? p : MSG_MN_BASE + p - s->ops->ncn; }

/* One CSR access; returns the read data, *err the refusal. */
static uint32_t csr(sw_t *s, bool write, unsigned addr, uint32_t wdata, bool *err)
{
    *iw(s, s->ops->csr_valid_i) = 1;
    *iw(s, s->ops->csr_write_i) = write;
    *iw(s, s->ops->csr_addr_i) = addr;
    *iw(s, s->ops->csr_wdata_i) = wdata;
    sw_step(s);
    *iw(s, s->ops->csr_valid_i) = 0;
    cr_assert_eq(*ow(s, s->ops->csr_rvalid_o), 1, "CSR response one cycle after the request");
    *err = *ow(s, s->ops->csr_err_o);
    return *ow(s, s->ops->csr_rdata_o);
}

static void sw_init(sw_t *s, const sw_ops_t *ops, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->ops = ops;
    s->np = ops->ncn + ops->nmn;
    s->in = calloc(1, ops->api->in_size);
    s->out = calloc(1, ops->api->out_size);
    cr_assert(s->in && s->out);
    s->m = ops->api->create(1000, seed);
    s->cycle = ops->api->reset(s->m, 0, 3);
    vw_put_u(s->in, ops->api->rst_n, 1);
    /* Route every node of the shape to its port. */
    for (unsigned p = 0; p < s->np; p++) {
        bool err;
        csr(s, true, port_node(s, p), 1u << 31 | p, &err);
        cr_assert(!err, "%s: route write refused", ops->name);
    }
}

static void sw_free(sw_t *s)
{
    s->ops->api->free(s->m);
    free(s->in);
    free(s->out);
}

/* ---- CSRs ---- */

Test(cxl_switch, csr_routes_read_back_and_bad_accesses_are_refused_and_counted)
{
    sw_t s;
    sw_init(&s, &cxl_switch_c4m4_ops, 1);
    bool err;
    cr_assert_eq(csr(&s, false, MSG_MN_BASE + 2, 0, &err), (1u << 31) | 6u, "GIVEN MN2 routed to port 6");
    cr_assert(!err);
    cr_assert_eq(csr(&s, false, 0x100, 0, &err), 4u | 4u << 8, "SHAPE");
    cr_assert_eq(csr(&s, false, 0x102, 0, &err), 0, "no CSR error yet");
    csr(&s, true, 5, 1u << 31 | 8u, &err);
    cr_assert(err, "WHEN a route names port 8 of an 8-port switch THEN it is refused");
    cr_assert_eq(csr(&s, false, 5, 0, &err), 0, "AND the entry is unchanged");
    csr(&s, false, 0x200, 0, &err);
    cr_assert(err, "an undefined address is refused");
    csr(&s, true, 0x101, 7, &err);
    cr_assert(err, "a read-only register refuses writes");
    cr_assert_eq(csr(&s, false, 0x102, 0, &err), 3, "THEN three refusals are counted");
    cr_assert_eq(csr(&s, false, 0x101, 0, &err), 0, "nothing sunk");
    sw_free(&s);
}

/* ---- traffic ---- */

typedef struct sent {
    msg_t m;
    uint64_t cycle;
} sent_t;

typedef struct fifo_q {
    sent_t *v;
    unsigned head, n, cap;
} fifo_q_t;

static void q_push(fifo_q_t *q, const sent_t *e)
{
    if (q->n == q->cap) {
        unsigned cap = q->cap ? 2 * q->cap : 16;
        sent_t *v = malloc(cap * sizeof *v);
        cr_assert_not_null(v);
        for (unsigned i = 0; i < q->n; i++)
            v[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = v;
        q->head = 0;
        q->cap = cap;
    }
    q->v[(q->head + q->n++) % q->cap] = *e;
}

static sent_t q_pop(fifo_q_t *q)
{
    sent_t e = q->v[q->head];
    q->head = (q->head + 1) % q->cap;
    q->n--;
    return e;
}

typedef struct run_cfg {
    double p_idle;      /* input idles this cycle */
    double p_stall;     /* output withholds its credits this cycle */
    unsigned sink_crd;  /* credits per class each output's link partner grants */
    double p_unrouted;  /* message to a node with no route (sunk) */
    uint64_t cycles;    /* traffic cycles (then drain) */
    int hot_dst;        /* >= 0: every message goes to this port */
} run_cfg_t;

typedef struct run_result {
    uint64_t sent, delivered, sunk, delivered_window, window;
    uint64_t min_latency;
} run_result_t;

/* A random well-formed message of one of the classes in cls_mask, from node src to node dst. */
static void make_msg(rng_t *r, uint32_t cls_mask, unsigned src, unsigned dst, msg_t *m)
{
    msg_op_t ops[MSG_NUM_MSGS];
    unsigned n = 0;
    for (unsigned op = 0; op < MSG_NUM_MSGS; op++)
        if (cls_mask >> msg_class((msg_op_t)op) & 1u)
            ops[n++] = (msg_op_t)op;
    msg_fill_random(r, ops[rng_below(r, n)], m);
    m->src = (uint8_t)src;
    m->dst = (uint8_t)dst;
}

static void run_traffic(const sw_ops_t *ops, const run_cfg_t *cfg, uint64_t seed, run_result_t *res)
{
    sw_t s;
    sw_init(&s, ops, seed);
    const unsigned np = s.np;
    rng_t r;
    rng_init_named(&r, seed, ops->name);
    static fifo_q_t sb[MAXP][MAXP][MSG_NUM_CLASSES]; /* [source port][output port][class] */
    memset(sb, 0, sizeof sb);
    unsigned (*in_crd)[MSG_NUM_CLASSES] = s.in_crd;
    unsigned give[MAXP][MSG_NUM_CLASSES] = {{0}}; /* credits the sinks still have to return */
    for (unsigned p = 0; p < np; p++)
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            give[p][c] = cfg->sink_crd;
    memset(res, 0, sizeof *res);
    res->min_latency = UINT64_MAX;
    const uint64_t start = s.cycle, end = start + cfg->cycles, warm = start + cfg->cycles / 5;
    uint64_t drained_at = 0;
    for (uint64_t guard = 0; guard < cfg->cycles + 20000; guard++) {
        const bool traffic = s.cycle < end;
        /* Outputs: return withheld credits (one per class per cycle) unless stalling. */
        for (unsigned p = 0; p < np; p++) {
            bool stall = traffic && rng_chance(&r, cfg->p_stall);
            for (unsigned c = 0; c < MSG_NUM_CLASSES; c++) {
                unsigned g = !stall && give[p][c] > 0;
                give[p][c] -= g;
                set_bit(iw(&s, ops->tx_crd_i), p * MSG_NUM_CLASSES + c, g);
            }
        }
        /* Inputs: one message, of a class the input holds a credit for. */
        for (unsigned p = 0; p < np; p++) {
            uint32_t have = 0;
            for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
                have |= (in_crd[p][c] > 0) << c;
            unsigned v = traffic && have && !rng_chance(&r, cfg->p_idle);
            set_bit(iw(&s, ops->rx_valid_i), p, v);
            if (!v)
                continue;
            bool unrouted = rng_chance(&r, cfg->p_unrouted);
            unsigned out = cfg->hot_dst >= 0 ? (unsigned)cfg->hot_dst : (unsigned)rng_below(&r, np);
            unsigned dst = unrouted ? 31u /* CN 31: no route in these shapes */ : port_node(&s, out);
            sent_t e = {.cycle = s.cycle};
            make_msg(&r, have, port_node(&s, p), dst, &e.m);
            msg_class_t c = msg_class(e.m.opcode);
            in_crd[p][c]--;
            msg_pack(&e.m, iw(&s, ops->rx_msg_i) + p * MSG_FLIT_WORDS);
            res->sent++;
            if (unrouted)
                res->sunk++;
            else
                q_push(&sb[p][out][c], &e);
        }
        sw_step(&s);
        /* Credits back to the inputs; messages out of the outputs. */
        for (unsigned p = 0; p < np; p++) {
            if (!bit(ow(&s, ops->tx_valid_o), p))
                continue;
            msg_t m;
            msg_unpack(ow(&s, ops->tx_msg_o) + p * MSG_FLIT_WORDS, &m);
            cr_assert_null(msg_check(&m), "seed=%llu cycle=%llu: port %u sent a malformed message",
                           (unsigned long long)seed, (unsigned long long)s.cycle, p);
            cr_assert_eq(m.dst, port_node(&s, p), "seed=%llu cycle=%llu: message for node %u left on port %u",
                         (unsigned long long)seed, (unsigned long long)s.cycle, m.dst, p);
            unsigned src = m.src < MSG_MN_BASE ? m.src : ops->ncn + m.src - MSG_MN_BASE;
            msg_class_t c = msg_class(m.opcode);
            fifo_q_t *q = &sb[src][p][c];
            cr_assert_gt(q->n, 0, "seed=%llu cycle=%llu: port %u delivered a message nobody sent (duplicate?)",
                         (unsigned long long)seed, (unsigned long long)s.cycle, p);
            sent_t e = q_pop(q);
            cr_assert(msg_equal(&e.m, &m),
                      "seed=%llu cycle=%llu: port %u: %s from port %u differs from the oldest sent on "
                      "(source, destination, class): changed or reordered",
                      (unsigned long long)seed, (unsigned long long)s.cycle, p, msg_name(m.opcode), src);
            give[p][c]++;
            res->delivered++;
            if (s.cycle > warm && s.cycle <= end)
                res->delivered_window++;
            uint64_t lat = s.cycle - 1 - e.cycle;
            if (lat < res->min_latency)
                res->min_latency = lat;
        }
        if (!traffic && *ow(&s, ops->idle_o)) {
            drained_at = s.cycle;
            break;
        }
    }
    res->window = end - warm;
    cr_assert_neq(drained_at, 0, "seed=%llu %s: the switch never drained", (unsigned long long)seed, ops->name);
    for (unsigned a = 0; a < np; a++)
        for (unsigned b = 0; b < np; b++)
            for (unsigned c = 0; c < MSG_NUM_CLASSES; c++) {
                cr_assert_eq(sb[a][b][c].n, 0, "seed=%llu %s: %u messages from port %u to port %u (class %s) lost",
                             (unsigned long long)seed, ops->name, sb[a][b][c].n, a, b, msg_class_name(c));
                free(sb[a][b][c].v);
            }
    bool err;
    cr_assert_eq(csr(&s, false, 0x101, 0, &err), res->sunk, "seed=%llu: SUNK counts the unrouted messages",
                 (unsigned long long)seed);
    sw_free(&s);
}

Test(cxl_switch, lossless_and_ordered_under_random_idle_and_back_pressure, .timeout = 120)
{
    const uint64_t seed = tb_seed(41);
    const sw_ops_t *models[] = {&cxl_switch_c2m2_ops, &cxl_switch_c4m4_ops};
    const double idles[] = {0.0, 0.6}, stalls[] = {0.0, 0.8};
    for (unsigned mi = 0; mi < 2; mi++)
        for (unsigned ii = 0; ii < 2; ii++)
            for (unsigned si = 0; si < 2; si++) {
                run_cfg_t cfg = {.p_idle = idles[ii], .p_stall = stalls[si], .sink_crd = 2, .p_unrouted = 0.02,
                                 .cycles = 3000, .hot_dst = -1};
                run_result_t res;
                run_traffic(models[mi], &cfg, seed + 10 * mi + 3 * ii + si, &res);
                cr_assert_eq(res.delivered + res.sunk, res.sent);
                cr_assert_gt(res.sent, 1000, "enough traffic to mean something");
            }
}

Test(cxl_switch, every_message_to_one_output_keeps_per_source_order)
{
    const uint64_t seed = tb_seed(42);
    run_cfg_t cfg = {.p_idle = 0.0, .p_stall = 0.5, .sink_crd = 1, .cycles = 2000, .hot_dst = 5};
    run_result_t res;
    run_traffic(&cxl_switch_c4m4_ops, &cfg, seed, &res);
    cr_assert_eq(res.delivered, res.sent);
}

/* An input sampled at cycle c is in its buffer after c; the allocator matches it in c + 1 and the
 * output register shows it after c + 1: one cycle port to port (docs/architecture.md). */
Test(cxl_switch, zero_load_latency_is_one_cycle)
{
    const uint64_t seed = tb_seed(43);
    run_cfg_t cfg = {.p_idle = 0.97, .p_stall = 0.0, .sink_crd = 4, .cycles = 3000, .hot_dst = -1};
    run_result_t res;
    run_traffic(&cxl_switch_c2m2_ops, &cfg, seed, &res);
    cr_assert_eq(res.min_latency, 1, "min latency %llu cycles", (unsigned long long)res.min_latency);
}

/* Uniform random destinations, every input sending every cycle it holds a credit: virtual output
 * queues and iSLIP keep every output above 90 % of line rate (a FIFO switch is capped at 58.6 %). */
Test(cxl_switch, uniform_full_load_sustains_over_90_percent_of_line_rate)
{
    const uint64_t seed = tb_seed(44);
    run_cfg_t cfg = {.p_idle = 0.0, .p_stall = 0.0, .sink_crd = 8, .cycles = 5000, .hot_dst = -1};
    run_result_t res;
    run_traffic(&cxl_switch_c4m4_ops, &cfg, seed, &res);
    double per_port = (double)res.delivered_window / (double)res.window / 8.0;
    cr_assert_geq(per_port, 0.90, "seed=%llu: %.3f messages per port per cycle", (unsigned long long)seed, per_port);
}
