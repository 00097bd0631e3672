/* The C side of the fabric around the Verilated fabric_top (the CXL switch): links, credits,
 * heartbeats, the CSR port, node failures, traffic, and the idle-cycle skipping that must not
 * change a single cycle. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/kernel.h"
#include "base/stats.h"
#include "csr_defs.h"
#include "drv/fabric.h"
#include "gen/traffic.h"
#include "tb_seed.h"

#define GHZ 1000000000ull

typedef struct obs_rec {
    uint64_t cycle;
    unsigned kind, port, c;
    msg_t m;
} obs_rec_t;

typedef struct bench {
    kernel_t k;
    stats_t st;
    fabric_t *f;
    traffic_t *t;
    obs_rec_t *rec;
    size_t nrec, caprec;
    uint64_t trace_hash;  /* of every event run: time, phase, function, argument (kernel on_event) */
    uint64_t ticks_end;   /* the ticker's last tick (ps) */
    uint64_t tick_delay;  /* and the delay of the event each tick schedules */
} bench_t;

static void observe(void *obj, uint64_t cycle, unsigned kind, unsigned port, unsigned c, const msg_t *m)
{
    bench_t *b = obj;
    if (b->nrec == b->caprec) {
        b->caprec = b->caprec ? 2 * b->caprec : 4096;
        b->rec = realloc(b->rec, b->caprec * sizeof *b->rec);
        cr_assert_not_null(b->rec);
    }
    obs_rec_t *r = &b->rec[b->nrec++];
    *r = (obs_rec_t){.cycle = cycle, .kind = kind, .port = port, .c = c};
    if (m)
        r->m = *m;
}

static void stop(void *obj) { kernel_stop(&((bench_t *)obj)->k); }

typedef struct setup {
    unsigned ncn, nmn;
    double load;
    uint64_t count, jitter_ps, latency_ps;
    unsigned rx_credits; /* nodes' receive buffers per class (0: 4) */
    unsigned in_credits; /* credits the switch's inputs advertise per class (0: rx_credits) */
    uint32_t class_mask; /* classes the traffic uses (0: all) */
    unsigned shift;      /* > 0: port p sends to port p + shift only (a permutation) */
    bool skip;
    uint64_t seed;
    int fail_port;      /* > 0: this CN fails ... */
    uint64_t fail_ps;   /* ... at this time */
    uint32_t silence;   /* switch silence limit (0: 1024 cycles) */
    uint32_t accept;    /* switch accept limit (0: 8192 cycles) */
    uint64_t hold_ps;   /* nodes hold each delivered message up to this long (back-pressure) */
    int unroute_node;   /* > 0: this node's route is removed ... */
    uint64_t unroute_ps; /* ... at this time (messages to it are then sunk) */
    const char *model;  /* a model by name (else the shape's) */
    unsigned threads;   /* host threads (kernel_set_threads; 0: 1) */
    bool blind;         /* no observer (an observer makes every edge finish at once) */
    uint64_t ticker_ps; /* > 0: an event every ns until then schedules another a link latency later */
} setup_t;

static void on_event(void *obj, const event_t *e)
{
    bench_t *b = obj;
    const uint64_t v[4] = {e->t, e->seq >> 62, (uint64_t)(uintptr_t)e->fn, e->arg};
    for (unsigned i = 0; i < 4; i++)
        b->trace_hash = (b->trace_hash ^ v[i]) * 0x100000001b3ull;
}

static void tock(void *obj, uint64_t arg)
{
    (void)obj;
    (void)arg;
}

/* Ties a link latency later: each tick, at the model phase of a fabric edge's time, schedules an
 * event for the time the edge's deliveries and credits arrive. */
static void tick(void *obj, uint64_t arg)
{
    bench_t *b = obj;
    kernel_after(&b->k, b->tick_delay, tock, b, arg);
    if (b->k.now + 1000 <= b->ticks_end)
        kernel_after(&b->k, 1000, tick, b, arg + 1);
}

static void fail_event(void *obj, uint64_t port)
{
    bench_t *b = obj;
    fabric_fail_node(b->f, (unsigned)port);
    traffic_node_failed(b->t, (unsigned)port);
}

static void unroute_event(void *obj, uint64_t node)
{
    bench_t *b = obj;
    fabric_csr(b->f, true, SW_CSR_ROUTE((unsigned)node), 0, NULL, NULL);
}

static void bench_run(bench_t *b, const setup_t *s)
{
    memset(b, 0, sizeof *b);
    kernel_init(&b->k);
    cr_assert_eq(stats_init(&b->st), 0);
    const fabric_model_ops_t *ops = s->model ? fabric_model_named(s->model) : fabric_model_find(s->ncn, s->nmn);
    cr_assert_not_null(ops, "model %s (shape c%um%u) is not linked into the tests", s->model ? s->model : "",
                       s->ncn, s->nmn);
    fabric_params_t fp = {
        .freq_hz = GHZ,
        .link_latency_ps = s->latency_ps ? s->latency_ps : 35000,
        .link_jitter_ps = s->jitter_ps,
        .rx_credits = s->rx_credits ? s->rx_credits : 4,
        .in_credits = s->in_credits,
        .skip_idle = s->skip,
        .seed = s->seed,
        .reset_cycles = 4,
        .heartbeat_cycles = 64,
        .silence_cycles = s->silence ? s->silence : 1024,
        .accept_cycles = s->accept ? s->accept : 8192,
    };
    cr_assert_eq(kernel_set_threads(&b->k, s->threads ? s->threads : 1), 0);
    b->trace_hash = 0xcbf29ce484222325ull;
    b->k.on_event = on_event;
    b->k.on_event_obj = b;
    b->f = fabric_create(&b->k, ops, &fp, &b->st);
    cr_assert_not_null(b->f);
    if (s->ticker_ps) {
        b->ticks_end = s->ticker_ps;
        b->tick_delay = fp.link_latency_ps;
        kernel_at(&b->k, 0, tick, b, 0);
    }
    if (!s->blind)
        fabric_observe(b->f, observe, b);
    traffic_params_t tp = {.load = s->load, .count = s->count, .seed = s->seed, .ordered = s->jitter_ps == 0,
                           .hold_ps = s->hold_ps, .class_mask = s->class_mask, .shift = s->shift};
    b->t = traffic_create(&b->k, b->f, &tp, &b->st, stop, b);
    if (s->fail_port > 0)
        kernel_at(&b->k, s->fail_ps, fail_event, b, (uint64_t)s->fail_port);
    if (s->unroute_node > 0)
        kernel_at(&b->k, s->unroute_ps, unroute_event, b, (uint64_t)s->unroute_node);
    kernel_run(&b->k, 10 * PS_PER_MS);
    /* Traffic is done when the last message is back; let its credits travel home too. */
    kernel_run(&b->k, b->k.now + 2 * PS_PER_US);
}

static void bench_free(bench_t *b)
{
    traffic_free(b->t);
    fabric_free(b->f);
    kernel_free(&b->k);
    stats_free(&b->st);
    free(b->rec);
}

Test(fabric, every_message_arrives_in_order_on_every_shape_and_load)
{
    const uint64_t seed = tb_seed(31);
    const unsigned shapes[][2] = {{2, 2}, {4, 2}};
    const double loads[] = {0.05, 0.5, 1.0};
    for (unsigned si = 0; si < 2; si++)
        for (unsigned li = 0; li < 3; li++) {
            bench_t b;
            setup_t s = {.ncn = shapes[si][0], .nmn = shapes[si][1], .load = loads[li], .count = 300,
                         .skip = true, .seed = seed + li};
            bench_run(&b, &s);
            const unsigned n = s.ncn + s.nmn;
            cr_assert(traffic_done(b.t), "seed=%llu c%um%u load %.2f: %llu of %llu arrived", (unsigned long long)s.seed,
                      s.ncn, s.nmn, s.load, (unsigned long long)traffic_received(b.t),
                      (unsigned long long)(s.count * n));
            cr_assert_eq(traffic_errors(b.t), 0, "seed=%llu", (unsigned long long)s.seed);
            cr_assert_eq(traffic_sent(b.t), s.count * n);
            cr_assert_eq(traffic_reordered(b.t), 0, "no jitter: nothing overtakes within a class");
            cr_assert(fabric_quiet(b.f), "nothing left in flight");
            bench_free(&b);
        }
}

/* Random idle on every input (load below 1) and random back-pressure on every output (nodes hold
 * what they receive), on 2 + 2, 4 + 2 and the paper's 16 + 16: nothing lost, duplicated, changed or
 * reordered within (source, destination, class), and every credit home at the end. */
Test(fabric, lossless_under_random_idle_and_back_pressure_up_to_16_by_16, .timeout = 120)
{
    const uint64_t seed = tb_seed(37);
    const unsigned shapes[][2] = {{2, 2}, {4, 2}, {16, 16}};
    for (unsigned si = 0; si < 3; si++) {
        bench_t b;
        setup_t s = {.ncn = shapes[si][0], .nmn = shapes[si][1], .load = 0.7, .count = si == 2 ? 120 : 400,
                     .hold_ps = 30000, .skip = true, .seed = seed + si};
        bench_run(&b, &s);
        const unsigned n = s.ncn + s.nmn;
        cr_assert(traffic_done(b.t), "seed=%llu c%um%u: %llu of %llu arrived", (unsigned long long)s.seed, s.ncn,
                  s.nmn, (unsigned long long)traffic_received(b.t), (unsigned long long)(s.count * n));
        cr_assert_eq(traffic_errors(b.t), 0, "seed=%llu c%um%u", (unsigned long long)s.seed, s.ncn, s.nmn);
        cr_assert_eq(traffic_received(b.t), s.count * n);
        cr_assert_eq(traffic_reordered(b.t), 0, "no jitter: nothing overtakes within (source, destination, class)");
        for (unsigned p = 0; p < n; p++)
            for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
                cr_assert_eq(fabric_credits(b.f, p, (msg_class_t)c), 4, "c%um%u port %u class %u: credits home",
                             s.ncn, s.nmn, p, c);
        bench_free(&b);
    }
}

Test(fabric, link_jitter_reorders_but_loses_nothing)
{
    const uint64_t seed = tb_seed(32);
    bench_t b;
    setup_t s = {.ncn = 4, .nmn = 2, .load = 0.8, .count = 400, .jitter_ps = 20000, .skip = true, .seed = seed};
    bench_run(&b, &s);
    cr_assert(traffic_done(b.t), "seed=%llu: %llu back", (unsigned long long)seed,
              (unsigned long long)traffic_received(b.t));
    cr_assert_eq(traffic_errors(b.t), 0, "seed=%llu", (unsigned long long)seed);
    cr_assert_gt(traffic_reordered(b.t), 0, "seed=%llu: 20 ns of jitter should reorder some messages",
                 (unsigned long long)seed);
    bench_free(&b);
}

Test(fabric, skipping_idle_cycles_changes_no_cycle)
{
    const uint64_t seed = tb_seed(33);
    const double loads[] = {0.02, 0.3, 1.0};
    const uint64_t jitters[] = {0, 7000};
    for (unsigned li = 0; li < 3; li++)
        for (unsigned ji = 0; ji < 2; ji++) {
            bench_t on, off;
            setup_t s = {.ncn = 4, .nmn = 2, .load = loads[li], .count = 150, .jitter_ps = jitters[ji],
                         .skip = true, .seed = seed + li};
            bench_run(&on, &s);
            s.skip = false;
            bench_run(&off, &s);
            cr_assert(traffic_done(on.t) && traffic_done(off.t));
            cr_assert_eq(on.nrec, off.nrec, "seed=%llu load %.2f jitter %llu: %zu vs %zu RTL outputs",
                         (unsigned long long)s.seed, s.load, (unsigned long long)s.jitter_ps, on.nrec, off.nrec);
            for (size_t i = 0; i < on.nrec; i++) {
                const obs_rec_t *a = &on.rec[i], *o = &off.rec[i];
                cr_assert(a->cycle == o->cycle && a->kind == o->kind && a->port == o->port && a->c == o->c &&
                              (a->kind || msg_equal(&a->m, &o->m)),
                          "seed=%llu load %.2f: output %zu differs: cycle %llu vs %llu, port %u vs %u",
                          (unsigned long long)s.seed, s.load, i, (unsigned long long)a->cycle,
                          (unsigned long long)o->cycle, a->port, o->port);
            }
            cr_assert_eq(on.k.now, off.k.now, "both runs end at the same time");
            const stats_hist_t *la = stats_find_hist(&on.st, "traffic.latency_ns");
            const stats_hist_t *lo = stats_find_hist(&off.st, "traffic.latency_ns");
            cr_assert(la->count == lo->count && la->sum == lo->sum && la->max == lo->max);
            if (li == 0)
                cr_assert_lt(fabric_cycles_ticked(on.f), fabric_cycles_ticked(off.f) / 2,
                             "at 2 %% load most cycles are idle and skipped (%llu clocked of %llu)",
                             (unsigned long long)fabric_cycles_ticked(on.f),
                             (unsigned long long)fabric_cycles_ticked(off.f));
            bench_free(&on);
            bench_free(&off);
        }
}

/* The statistics of a run as JSON text, into buf. */
static void stats_text(const bench_t *b, char *buf, size_t n)
{
    FILE *f = fmemopen(buf, n, "w");
    cr_assert_not_null(f);
    cr_assert_eq(stats_write_json(&b->st, f), 0);
    cr_assert_eq(fclose(f), 0);
    cr_assert_lt(strlen(buf), n - 1, "the statistics fit the buffer");
}

/* With two host threads each edge's evaluation runs on a worker while the nodes' events of its time
 * run (fabric.h, "Threads"): the events run (time, phase, function, argument, in order), every
 * statistic and the end time must be those of one thread, at light and full load, under
 * back-pressure, with a CN failing, with a route removed through the CSR port while the switch is
 * mostly idle (the access waits for the pending edge), and with events of other models tied with
 * the edges' deliveries and credits (they come after them, as with one thread). */
Test(fabric, a_second_host_thread_changes_no_cycle, .timeout = 120)
{
    const uint64_t seed = tb_seed(38);
    static char a[1 << 20], o[1 << 20];
    const setup_t cases[] = {
        {.ncn = 4, .nmn = 2, .load = 0.05, .count = 200},
        {.ncn = 4, .nmn = 2, .load = 1.0, .count = 300, .hold_ps = 20000},
        {.ncn = 4, .nmn = 2, .load = 0.5, .count = 400, .fail_port = 2, .fail_ps = 3 * PS_PER_US, .silence = 256},
        {.ncn = 4, .nmn = 2, .load = 0.05, .count = 100, .unroute_node = MSG_MN_BASE + 1,
         .unroute_ps = 2 * PS_PER_US + 7000},
        {.ncn = 4, .nmn = 2, .load = 0.3, .count = 200, .ticker_ps = 20 * PS_PER_US},
        {.ncn = 16, .nmn = 16, .load = 0.3, .count = 60, .ticker_ps = 5 * PS_PER_US},
    };
    for (unsigned ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        bench_t one, two;
        setup_t s = cases[ci];
        s.skip = true;
        s.blind = true;
        s.seed = seed + ci;
        s.threads = 1;
        bench_run(&one, &s);
        s.threads = 2;
        bench_run(&two, &s);
        cr_assert_gt(traffic_received(one.t), 0, "case %u: traffic flowed", ci);
        cr_assert_eq(one.k.now, two.k.now, "seed=%llu case %u: both runs end at the same time",
                     (unsigned long long)s.seed, ci);
        cr_assert_eq(one.k.events, two.k.events, "seed=%llu case %u: %llu vs %llu kernel events",
                     (unsigned long long)s.seed, ci, (unsigned long long)one.k.events,
                     (unsigned long long)two.k.events);
        cr_assert_eq(one.trace_hash, two.trace_hash, "seed=%llu case %u: not the same events in the same order",
                     (unsigned long long)s.seed, ci);
        stats_text(&one, a, sizeof a);
        stats_text(&two, o, sizeof o);
        cr_assert_str_eq(a, o, "seed=%llu case %u: the statistics differ", (unsigned long long)s.seed, ci);
        bench_free(&one);
        bench_free(&two);
    }
}

/* Zero load: a message sent on a clock edge arrives after link + 2 switch cycles + link. The switch
 * port takes the message into its buffer at the edge it arrives, the next edge ends its allocation,
 * and the one after moves it through the crossbar into the output register (docs/architecture.md:
 * port-to-port pipeline). */
Test(fabric, zero_load_latency_is_two_links_and_two_cycles)
{
    const uint64_t seed = tb_seed(34);
    bench_t b;
    setup_t s = {.ncn = 2, .nmn = 2, .load = 0.005, .count = 40, .skip = true, .seed = seed, .latency_ps = 35000};
    bench_run(&b, &s);
    cr_assert(traffic_done(b.t));
    const stats_hist_t *lat = stats_find_hist(&b.st, "traffic.latency_ns");
    cr_assert_eq(lat->min, 35 + 2 + 35, "min latency %llu ns", (unsigned long long)lat->min);
    cr_assert_eq(stats_hist_quantile(lat, 0.5), 72.0);
    bench_free(&b);
}

Test(fabric, credits_bound_what_a_node_has_in_flight)
{
    const uint64_t seed = tb_seed(35);
    bench_t b;
    setup_t s = {.ncn = 2, .nmn = 2, .load = 1.0, .count = 200, .rx_credits = 1, .in_credits = 4, .skip = true,
                 .seed = seed};
    bench_run(&b, &s);
    cr_assert(traffic_done(b.t), "one receive buffer per class is enough to finish");
    cr_assert_eq(traffic_errors(b.t), 0);
    for (unsigned p = 0; p < fabric_num_ports(b.f); p++)
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            cr_assert_eq(fabric_credits(b.f, p, (msg_class_t)c), 4,
                         "port %u class %u: every RTL credit is back after the run", p, c);
    bench_free(&b);
}

/* ---- the switch's management port and failures ---- */

typedef struct csr_ans {
    unsigned n;
    uint32_t v[8];
    bool err[8];
} csr_ans_t;

static void csr_done(void *obj, uint32_t rdata, bool err)
{
    csr_ans_t *a = obj;
    cr_assert_lt(a->n, 8);
    a->v[a->n] = rdata;
    a->err[a->n++] = err;
}

Test(fabric, csr_accesses_are_answered_in_order)
{
    bench_t b;
    setup_t s = {.ncn = 4, .nmn = 2, .load = 0.1, .count = 20, .skip = true, .seed = 7};
    bench_run(&b, &s);
    csr_ans_t a = {0};
    fabric_csr(b.f, false, SW_CSR_SHAPE, 0, csr_done, &a);
    fabric_csr(b.f, false, SW_CSR_ROUTE(MSG_MN_BASE + 1), 0, csr_done, &a);
    fabric_csr(b.f, true, SW_CSR_SHAPE, 0, csr_done, &a);
    fabric_csr(b.f, false, SW_CSR_CTRL, 0, csr_done, &a);
    fabric_csr(b.f, false, SW_CSR_CRD_ADV, 0, csr_done, &a);
    cr_assert(!fabric_quiet(b.f), "CSR accesses pending");
    kernel_run(&b.k, b.k.now + PS_PER_US);
    cr_assert_eq(a.n, 5);
    cr_assert(a.v[0] == (4u | 2u << 8 | FABRIC_MAX_CREDITS << 16) && !a.err[0],
              "SHAPE of c4m2: buffers of FABRIC_MAX_CREDITS per class (0x%x)", a.v[0]);
    cr_assert(a.v[1] == (SW_ROUTE_VALID | 5u) && !a.err[1], "fabric_create routed MN 1 to port 5");
    cr_assert(a.err[2], "SHAPE is read-only");
    cr_assert(a.v[3] == SW_CTRL_ENABLE && !a.err[3], "fabric_create enabled the switch");
    cr_assert(a.v[4] == 4u && !a.err[4], "fabric_create made the inputs advertise rx_credits (4), not %u", a.v[4]);
    cr_assert(fabric_quiet(b.f));
    bench_free(&b);
}

/* A CN fails in the middle of random traffic: the switch detects it within the silence limit (plus
 * the heartbeat period, by which the last sign of life may precede the failure), the CM (CN 0) gets
 * exactly one MSI about it, traffic among the live nodes completes without a loss, and with or
 * without idle-cycle skipping every RTL output is the same. */
Test(fabric, failed_cn_is_detected_the_cm_gets_one_msi_and_live_traffic_completes)
{
    const uint64_t seed = tb_seed(36);
    const uint32_t silence = 300;
    const uint64_t fail_ps = 3 * PS_PER_US;
    bench_t on, off;
    setup_t s = {.ncn = 4, .nmn = 2, .load = 0.05, .count = 300, .skip = true, .seed = seed,
                 .fail_port = 2, .fail_ps = fail_ps, .silence = silence};
    bench_run(&on, &s);
    s.skip = false;
    bench_run(&off, &s);
    bench_t *bs[] = {&on, &off};
    for (unsigned i = 0; i < 2; i++) {
        bench_t *b = bs[i];
        cr_assert(traffic_done(b->t), "seed=%llu: live traffic completes", (unsigned long long)seed);
        cr_assert_eq(traffic_errors(b->t), 0, "seed=%llu", (unsigned long long)seed);
        unsigned n;
        const traffic_msi_t *m = traffic_msis(b->t, &n);
        cr_assert_eq(n, 1, "seed=%llu: one MSI", (unsigned long long)seed);
        cr_assert(m[0].port == 0 && m[0].subject == 2, "to the CM, CN 0, about CN 2");
        /* The MSI reaches the CM one link after the switch sent it, two cycles after detection
         * (allocation, traversal). */
        const uint64_t detect_ps = m[0].t_ps - 35000 - 2000;
        cr_assert(detect_ps > fail_ps && detect_ps <= fail_ps + (silence + 64 + 1) * 1000ull + 35000,
                  "seed=%llu: detected %llu ns after the failure", (unsigned long long)seed,
                  (unsigned long long)((detect_ps - fail_ps) / 1000));
        csr_ans_t a = {0};
        fabric_csr(b->f, false, SW_CSR_VIRAL, 0, csr_done, &a);
        fabric_csr(b->f, false, SW_CSR_DETECT_TIME(2), 0, csr_done, &a);
        kernel_run(&b->k, b->k.now + PS_PER_US);
        cr_assert_eq(a.v[0], 1u << 2, "Viral_Status of CN 2 only");
        cr_assert_eq(a.v[1], detect_ps / 1000, "DETECT_TIME is the cycle of the detection");
    }
    cr_assert_eq(on.nrec, off.nrec, "seed=%llu: %zu vs %zu RTL outputs", (unsigned long long)seed, on.nrec, off.nrec);
    for (size_t i = 0; i < on.nrec; i++)
        cr_assert(on.rec[i].cycle == off.rec[i].cycle && on.rec[i].port == off.rec[i].port &&
                      on.rec[i].kind == off.rec[i].kind,
                  "seed=%llu: output %zu differs with skipping", (unsigned long long)seed, i);
    cr_assert_lt(fabric_cycles_ticked(on.f), fabric_cycles_ticked(off.f), "cycles were skipped");
    bench_free(&on);
    bench_free(&off);
}

/* The RTL gives simulation faster forms of some functions (the switch's queue states kept by output,
 * the allocator's grants scattered by index, the crossbar column indexed) and synthesis its own
 * (wired transposes, compare-and-OR): fabric_top_c4m2_synth is Verilated with SYNTHESIS defined,
 * and every output it gives, message and credit, cycle for cycle, must be fabric_top_c4m2's: at
 * three loads, under back-pressure, and with a CN failing. */
/* The switch's counters and registers after a run, read through the CSR port: per port and class
 * its four performance counters, then SUNK, DROPPED, SUNK_FENCED, MSI_SENT, VIRAL and FENCED. */
typedef struct csr_dump {
    uint32_t v[32 * 11 * 4 + 8];
    unsigned n;
} csr_dump_t;

static void csr_collect(void *obj, uint32_t rdata, bool err)
{
    csr_dump_t *d = obj;
    cr_assert(!err && d->n < sizeof d->v / sizeof d->v[0], "a counter read was refused");
    d->v[d->n++] = rdata;
}

static unsigned read_counters(bench_t *b, unsigned nports, csr_dump_t *d)
{
    static const unsigned regs[] = {SW_CSR_SUNK, SW_CSR_DROPPED, SW_CSR_SUNK_FENCED, SW_CSR_MSI_SENT,
                                    SW_CSR_VIRAL, SW_CSR_FENCED};
    unsigned want = 0;
    d->n = 0;
    for (unsigned p = 0; p < nports; p++)
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            for (unsigned k = 0; k < 4; k++, want++)
                fabric_csr(b->f, false, SW_CSR_PERF(p, c, k), 0, csr_collect, d);
    for (unsigned i = 0; i < sizeof regs / sizeof regs[0]; i++, want++)
        fabric_csr(b->f, false, regs[i], 0, csr_collect, d);
    kernel_run(&b->k, b->k.now + 2 * want * PS_PER_NS + PS_PER_US);
    cr_assert_eq(d->n, want, "the counter reads were not all answered");
    return want;
}

/* In simulation the switch's ports are sw_ports, procedural blocks that skip idle ports; in
 * synthesis (and the fabric_top_c4m2_synth and _c6m4_synth models, Verilated with SYNTHESIS
 * defined) they are a module per input and output port, as are the allocator's grant transposes
 * and the switch's words (sw_words). The two forms must be the same machine: every RTL output
 * (message, port, cycle, credit returned) and every counter of the switch the same, at light and
 * full load, with back-pressure, with the credits so scarce that the credit turns decide (2 per
 * class each way), with link jitter reordering messages, with a CN failing (fence, drain, MSI),
 * with messages sunk for want of a route (the software removes an MN's route while traffic runs),
 * and with CNs declared failed by the accept rule (nodes holding what they receive longer than the
 * limit). At 4 + 2 the ports are one of sw_ports' groups of 8; at 6 + 4 a full group and a group
 * of 2 (the loops' group tests and bounds). */
Test(fabric, synthesis_forms_of_the_switch_behave_the_same_cycle_for_cycle, .timeout = 240)
{
    const uint64_t seed = tb_seed(67);
    const setup_t cases[] = {
        {.ncn = 4, .nmn = 2, .load = 0.05, .count = 300, .skip = true},
        {.ncn = 4, .nmn = 2, .load = 0.5, .count = 600, .skip = true},
        {.ncn = 4, .nmn = 2, .load = 1.0, .count = 600, .skip = true},
        {.ncn = 4, .nmn = 2, .load = 1.0, .count = 600, .skip = true, .hold_ps = 30000},
        {.ncn = 4, .nmn = 2, .load = 0.8, .count = 600, .skip = true, .rx_credits = 2, .in_credits = 2},
        {.ncn = 4, .nmn = 2, .load = 0.6, .count = 600, .skip = true, .jitter_ps = 5000},
        {.ncn = 4, .nmn = 2, .load = 0.3, .count = 600, .skip = true, .fail_port = 2, .fail_ps = 2 * PS_PER_US},
        {.ncn = 4, .nmn = 2, .load = 0.9, .count = 600, .skip = true, .rx_credits = 3, .fail_port = 1,
         .fail_ps = 1 * PS_PER_US},
        {.ncn = 4, .nmn = 2, .load = 0.7, .count = 600, .skip = true, .rx_credits = 2,
         .unroute_node = MSG_MN_BASE + 1, .unroute_ps = 2 * PS_PER_US},
        {.ncn = 4, .nmn = 2, .load = 0.5, .count = 400, .skip = true, .rx_credits = 2, .hold_ps = 2 * PS_PER_US,
         .accept = 600},
        {.ncn = 4, .nmn = 2, .load = 0.05, .count = 200, .skip = true, .rx_credits = 2, .hold_ps = 3 * PS_PER_US,
         .accept = 600},
        {.ncn = 6, .nmn = 4, .load = 0.05, .count = 300, .skip = true},
        {.ncn = 6, .nmn = 4, .load = 1.0, .count = 400, .skip = true, .hold_ps = 30000},
        {.ncn = 6, .nmn = 4, .load = 0.8, .count = 400, .skip = true, .rx_credits = 2, .in_credits = 2,
         .jitter_ps = 5000},
        {.ncn = 6, .nmn = 4, .load = 0.9, .count = 400, .skip = true, .rx_credits = 3, .fail_port = 5,
         .fail_ps = 1 * PS_PER_US},
        {.ncn = 6, .nmn = 4, .load = 0.7, .count = 400, .skip = true, .rx_credits = 2,
         .unroute_node = MSG_MN_BASE + 3, .unroute_ps = 2 * PS_PER_US},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bench_t sim, syn;
        csr_dump_t dsim, dsyn;
        setup_t s = cases[i];
        s.seed = seed + i;
        const unsigned np = s.ncn + s.nmn, pc = 4 * MSG_NUM_CLASSES; /* ports; a port's counters */
        bench_run(&sim, &s);
        const unsigned n = read_counters(&sim, np, &dsim);
        char synth[48];
        snprintf(synth, sizeof synth, "fabric_top_c%um%u_synth", s.ncn, s.nmn);
        s.model = synth;
        bench_run(&syn, &s);
        read_counters(&syn, np, &dsyn);
        cr_assert_gt(sim.nrec, 100, "seed=%llu case %u: too little traffic to compare", (unsigned long long)s.seed, i);
        cr_assert_eq(sim.nrec, syn.nrec, "seed=%llu case %u: %zu outputs, the synthesis form %zu",
                     (unsigned long long)s.seed, i, sim.nrec, syn.nrec);
        for (size_t r = 0; r < sim.nrec; r++) {
            const obs_rec_t *a = &sim.rec[r], *b = &syn.rec[r];
            cr_assert(a->cycle == b->cycle && a->kind == b->kind && a->port == b->port && a->c == b->c &&
                          (a->kind != 0 || msg_equal(&a->m, &b->m)),
                      "seed=%llu case %u: output %zu differs: cycle %llu port %u kind %u, the synthesis form cycle "
                      "%llu port %u kind %u",
                      (unsigned long long)s.seed, i, r, (unsigned long long)a->cycle, a->port, a->kind,
                      (unsigned long long)b->cycle, b->port, b->kind);
        }
        if (s.unroute_node > 0)
            cr_assert_gt(dsim.v[np * pc], 0, "seed=%llu case %u: no message was sunk", (unsigned long long)s.seed, i);
        if (s.accept)
            cr_assert_neq(dsim.v[np * pc + 5], 0, "seed=%llu case %u: no CN was declared failed by the accept rule",
                          (unsigned long long)s.seed, i);
        if (s.fail_port > 0)
            cr_assert_neq(dsim.v[np * pc + 5], 0, "seed=%llu case %u: CN %d was not fenced", (unsigned long long)s.seed,
                          i, s.fail_port);
        for (unsigned r = 0; r < n; r++)
            cr_assert_eq(dsim.v[r], dsyn.v[r], "seed=%llu case %u: counter read %u (%s %u%s%u%s%u) is %u, in the "
                         "synthesis form %u", (unsigned long long)s.seed, i, r, r < np * pc ? "port" : "register",
                         r < np * pc ? r / pc : r - np * pc, r < np * pc ? " class " : "",
                         r < np * pc ? r / 4 % MSG_NUM_CLASSES : 0, r < np * pc ? " kind " : "", r < np * pc ? r % 4 : 0,
                         dsim.v[r], dsyn.v[r]);
        bench_free(&sim);
        bench_free(&syn);
    }
}

/* Messages the switch delivered per port per cycle in the steady state: the middle half of the
 * span from the first delivery to the last (the start fills the links, and at the end the outputs
 * that random destinations gave more messages finish alone). */
static double delivery_rate(const bench_t *b, unsigned nports)
{
    uint64_t first = UINT64_MAX, last = 0, n = 0;
    for (size_t i = 0; i < b->nrec; i++)
        if (b->rec[i].kind == 0) {
            first = b->rec[i].cycle < first ? b->rec[i].cycle : first;
            last = b->rec[i].cycle > last ? b->rec[i].cycle : last;
        }
    cr_assert_gt(last, first);
    const uint64_t lo = first + (last - first) / 4, hi = first + 3 * (last - first) / 4;
    for (size_t i = 0; i < b->nrec; i++)
        n += b->rec[i].kind == 0 && b->rec[i].cycle >= lo && b->rec[i].cycle < hi;
    return (double)n / ((double)(hi - lo) * nports);
}

/* fabric.link_credits' default is the links' bandwidth-delay product: the credits one class needs
 * to keep a link busy, one message per cycle over a credit's round trip (two link crossings and
 * CFG_CREDIT_TURN_CYCLES). Under full traffic of a single class in a permutation (each input sends
 * to one output of its own, so only the credits limit the rate), the derived credits keep every
 * link at line rate and 4 fewer cannot (70 of a 74-cycle loop: 0.946 of it). */
Test(fabric, derived_credits_are_the_links_bandwidth_delay_product, .timeout = 120)
{
    const uint64_t seed = tb_seed(71);
    sim_config_t c;
    config_defaults(&c);
    const unsigned crd = (unsigned)config_link_credits(&c);
    cr_assert_eq(crd, 74u, "GIVEN 36 ns links at 1 GHz: 2 x 36 + 2 = 74 credits per class");
    const unsigned credits[2] = {crd, crd - 4};
    double rate[2];
    for (unsigned i = 0; i < 2; i++) {
        bench_t b;
        setup_t s = {.ncn = 4, .nmn = 2, .load = 1.0, .count = 1500, .latency_ps = c.fabric.link_latency_ps,
                     .rx_credits = credits[i], .class_mask = 1u << CLS_DRS, .shift = 1, .skip = true, .seed = seed};
        bench_run(&b, &s);
        cr_assert(traffic_done(b.t), "seed=%llu", (unsigned long long)seed);
        cr_assert_eq(traffic_errors(b.t), 0, "seed=%llu", (unsigned long long)seed);
        rate[i] = delivery_rate(&b, 6);
        cr_log_info("%u credits: %.3f messages per port per cycle", credits[i], rate[i]);
        bench_free(&b);
    }
    cr_assert_geq(rate[0], 0.99, "seed=%llu: %u credits deliver %.3f messages per port per cycle, not line rate",
                  (unsigned long long)seed, crd, rate[0]);
    cr_assert_leq(rate[1], 0.96, "seed=%llu: %u credits deliver %.3f messages per port per cycle: the loop is "
                  "shorter than the arithmetic says", (unsigned long long)seed, crd - 4, rate[1]);
}

/* One class (REQ), uniform destinations, every input sending at full load, 16 credits per class and
 * nodes that return a credit as soon as a message arrives, on 1 ns links (so that the credits are
 * not the limit): virtual output queues and iSLIP keep every port of the paper's 16 + 16 switch
 * above 90 % of line rate. At 16 + 16 that takes 3 iSLIP iterations: 16 messages per input spread
 * over 32 outputs give the allocator few requests per output, and with 2 iterations the switch
 * stops at 0.856 (switch_bench). tb/test_cxl_switch.c checks the 4 + 4 switch the same way. */
Test(fabric, paper_switch_sustains_90_percent_of_line_rate_with_one_class, .timeout = 120)
{
    const uint64_t seed = tb_seed(74);
    bench_t b;
    setup_t s = {.ncn = 16, .nmn = 16, .load = 1.0, .count = 1500, .latency_ps = 1000, .rx_credits = 16,
                 .class_mask = 1u << CLS_REQ, .skip = true, .seed = seed};
    bench_run(&b, &s);
    cr_assert(traffic_done(b.t), "seed=%llu", (unsigned long long)seed);
    cr_assert_eq(traffic_errors(b.t), 0, "seed=%llu", (unsigned long long)seed);
    const double rate = delivery_rate(&b, 32);
    cr_log_info("seed=%llu: %.3f messages per port per cycle", (unsigned long long)seed, rate);
    cr_assert_geq(rate, 0.90, "seed=%llu: %.3f messages per port per cycle", (unsigned long long)seed, rate);
    bench_free(&b);
}

/* Table II's 4 TB/s aggregate switch bandwidth: paper.ini's 16 + 16 switch at 1 GHz moves one
 * 64-byte message per port per cycle each way, 32 x 2 x 64 GB/s = 4.096 TB/s. With the derived
 * credits and full uniform traffic of every class it delivers at least 90 % of that. */
Test(fabric, paper_switch_delivers_4_tb_per_s_under_full_load, .timeout = 120)
{
    const uint64_t seed = tb_seed(73);
    sim_config_t c;
    config_defaults(&c);
    cr_assert_eq(c.system.num_cn + c.system.num_mn, 32u);
    bench_t b;
    setup_t s = {.ncn = 16, .nmn = 16, .load = 1.0, .count = 1000, .latency_ps = c.fabric.link_latency_ps,
                 .rx_credits = (unsigned)config_link_credits(&c), .skip = true, .seed = seed};
    bench_run(&b, &s);
    cr_assert(traffic_done(b.t), "seed=%llu", (unsigned long long)seed);
    cr_assert_eq(traffic_errors(b.t), 0, "seed=%llu", (unsigned long long)seed);
    const double rate = delivery_rate(&b, 32);
    const double tbps = rate * 32 * 2 * 64 * (double)c.fabric.freq_hz / 1e12;
    cr_log_info("paper switch: %.3f messages per port per cycle, %.2f TB/s aggregate", rate, tbps);
    cr_assert_geq(tbps, 0.9 * 4.096, "seed=%llu: %.2f TB/s aggregate (%.3f messages per port per cycle)",
                  (unsigned long long)seed, tbps, rate);
    bench_free(&b);
}
