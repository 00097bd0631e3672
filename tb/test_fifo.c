/* Tests of rtl/common/fifo.sv (and the ram_1r1w inside it) through tb/hdl/fifo_tb.sv, which holds
 * one instance per parameter set. Every set runs at once, each with its own random source, sink,
 * scoreboard and cycle-accurate reference model (tb/ref/fifo_ref.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "ref/fifo_ref.h"
#include "rng.h"
#include "sb/rtl_lint.h"
#include "sb/stream_sb.h"
#include "tb_seed.h"
#include "sb/vw_bits.h"
#include "vw_fifo_tb.h"

#define PERIOD_PS 1000

typedef vw_fifo_tb_in in_t;
typedef vw_fifo_tb_out out_t;

/** One instance of the harness: its parameters and where its ports are. */
typedef struct fifo_set {
    const char *name;
    unsigned depth, width;
    vw_field_t in_valid, in_data, out_ready;                   /* in in_t */
    vw_field_t in_ready, out_valid, out_data, count, empty;    /* in out_t */
} fifo_set_t;

#define FIFO_SET(P, D, W)                                                                                   \
    {                                                                                                       \
        #P, D, W, VW_FIELD(in_t, P##_in_valid_i), VW_FIELD(in_t, P##_in_data_i),                             \
            VW_FIELD(in_t, P##_out_ready_i), VW_FIELD(out_t, P##_in_ready_o), VW_FIELD(out_t, P##_out_valid_o), \
            VW_FIELD(out_t, P##_out_data_o), VW_FIELD(out_t, P##_count_o), VW_FIELD(out_t, P##_empty_o)      \
    }

static const fifo_set_t SETS[] = {
    FIFO_SET(d1w8, 1, 8), FIFO_SET(d2w1, 2, 1), FIFO_SET(d3w70, 3, 70), FIFO_SET(d5w8, 5, 8), FIFO_SET(d16w70, 16, 70),
};
#define NSETS (sizeof SETS / sizeof SETS[0])

/** Per-set state of a stream run. */
typedef struct lane {
    const fifo_set_t *p;
    fifo_ref_t ref;
    stream_src_t src;
    stream_sink_t sink;
    stream_sb_t sb;
    char ctx[128]; /* seed and set, for failure messages */
} lane_t;

static void lane_init(lane_t *l, const fifo_set_t *p, uint64_t seed, double idle, double stall)
{
    char name[64];
    l->p = p;
    fifo_ref_init(&l->ref, p->depth);
    snprintf(name, sizeof name, "fifo.%s.src", p->name);
    stream_src_init(&l->src, seed, name, p->width, idle);
    snprintf(name, sizeof name, "fifo.%s.sink", p->name);
    stream_sink_init(&l->sink, seed, name, p->width, stall);
    stream_sb_init(&l->sb, p->width);
    snprintf(l->ctx, sizeof l->ctx, "seed=%llu idle=%.2f stall=%.2f set=%s", (unsigned long long)seed, idle, stall,
             p->name);
}

static void lane_free(lane_t *l)
{
    fifo_ref_free(&l->ref);
    stream_sb_free(&l->sb);
}

/* Compares the DUT's outputs with the model's in one cycle. */
static void check_outputs(const lane_t *l, const out_t *o, uint64_t cyc)
{
    const fifo_set_t *p = l->p;
    fifo_ref_out_t r = fifo_ref_outputs(&l->ref);
    cr_assert_eq(vw_get_u(o, p->in_ready), r.in_ready, "%s cycle=%llu: in_ready_o", l->ctx, (unsigned long long)cyc);
    cr_assert_eq(vw_get_u(o, p->out_valid), r.out_valid, "%s cycle=%llu: out_valid_o", l->ctx,
                 (unsigned long long)cyc);
    cr_assert_eq(vw_get_u(o, p->count), r.count, "%s cycle=%llu: count_o", l->ctx, (unsigned long long)cyc);
    cr_assert_eq(vw_get_u(o, p->empty), r.empty, "%s cycle=%llu: empty_o", l->ctx, (unsigned long long)cyc);
    if (r.out_valid) {
        char a[BITS_MAX_W / 4 + 1], b[BITS_MAX_W / 4 + 1];
        bits_t d = vw_get(o, p->out_data);
        cr_assert(bits_eq(d, r.out_data), "%s cycle=%llu: out_data_o 0x%s, model 0x%s", l->ctx,
                  (unsigned long long)cyc, bits_hex(d, p->width, a), bits_hex(r.out_data, p->width, b));
    }
}

/* Runs every set for `cycles` cycles of random traffic, then drains (source stopped, sink always
 * ready). Checks each cycle against the model, and end to end with the scoreboard. Stores in
 * delivered[set] (when not NULL) the beats each set delivered in the first `cycles` cycles. */
static void run_stream(uint64_t seed, double idle, double stall, unsigned cycles, uint64_t *delivered)
{
    char note[128];
    snprintf(note, sizeof note, "fifo run: seed=%llu idle=%.2f stall=%.2f", (unsigned long long)seed, idle, stall);
    cleanup_set_note(note); /* printed if an RTL assertion aborts the run */
    vw_fifo_tb *m = vw_fifo_tb_create(PERIOD_PS, seed);
    lane_t lanes[NSETS];
    rng_t perturb;
    rng_init_named(&perturb, seed, "fifo.perturb");
    for (size_t s = 0; s < NSETS; s++)
        lane_init(&lanes[s], &SETS[s], seed, idle, stall);
    uint64_t cyc = vw_fifo_tb_reset(m, 0, 2);
    const unsigned drain = 2 * 16 + 8;

    for (unsigned c = 0; c < cycles + drain; c++, cyc++) {
        in_t in, in_p;
        out_t out, out_p;
        memset(&in, 0, sizeof in);
        in.rst_ni = 1;
        for (size_t s = 0; s < NSETS; s++) {
            lane_t *l = &lanes[s];
            if (c == cycles) { /* drain */
                if (delivered)
                    delivered[s] = l->sink.received;
                l->src.idle = 1.0;
                l->sink.stall = 0.0;
            }
            stream_src_drive(&l->src);
            stream_sink_drive(&l->sink);
            vw_put_u(&in, l->p->in_valid, l->src.valid);
            vw_put(&in, l->p->in_data, l->src.data);
            vw_put_u(&in, l->p->out_ready, l->sink.ready);
        }
        /* Every output must be a function of the state: other inputs, same outputs. */
        memcpy(&in_p, &in, sizeof in);
        for (size_t s = 0; s < NSETS; s++) {
            vw_put_u(&in_p, lanes[s].p->in_valid, !lanes[s].src.valid);
            vw_put_u(&in_p, lanes[s].p->out_ready, !lanes[s].sink.ready);
            vw_put(&in_p, lanes[s].p->in_data, bits_random(&perturb, lanes[s].p->width));
        }
        memset(&out_p, 0, sizeof out_p);
        memset(&out, 0, sizeof out);
        vw_fifo_tb_set(m, &in_p);
        vw_fifo_tb_get(m, &out_p);
        vw_fifo_tb_set(m, &in);
        vw_fifo_tb_get(m, &out);
        cr_assert(memcmp(&out, &out_p, sizeof out) == 0,
                  "seed=%llu cycle=%llu: an output changed with the inputs in the same cycle (combinational path)",
                  (unsigned long long)seed, (unsigned long long)cyc);

        for (size_t s = 0; s < NSETS; s++) {
            lane_t *l = &lanes[s];
            const fifo_set_t *p = l->p;
            char why[256];
            check_outputs(l, &out, cyc);
            bool in_ready = vw_get_u(&out, p->in_ready), out_valid = vw_get_u(&out, p->out_valid);
            bits_t out_data = vw_get(&out, p->out_data);
            cr_assert(stream_sink_observe(&l->sink, out_valid, out_data, why, sizeof why), "%s cycle=%llu: %s",
                      l->ctx, (unsigned long long)cyc, why);
            if (out_valid && l->sink.ready)
                cr_assert(stream_sb_pop(&l->sb, out_data, why, sizeof why), "%s cycle=%llu: %s", l->ctx,
                          (unsigned long long)cyc, why);
            if (l->src.valid && in_ready)
                stream_sb_push(&l->sb, l->src.data);
            fifo_ref_tick(&l->ref, l->src.valid, l->src.data, l->sink.ready);
            stream_src_taken(&l->src, l->src.valid && in_ready);
        }
        vw_fifo_tb_tick(m, cyc);
    }

    for (size_t s = 0; s < NSETS; s++) {
        lane_t *l = &lanes[s];
        cr_assert(!l->src.valid, "%s: source still holds a beat after the drain", l->ctx);
        cr_assert_eq(stream_sb_pending(&l->sb), 0, "%s: %zu beats sent and never received", l->ctx,
                     stream_sb_pending(&l->sb));
        cr_assert_eq(l->sink.received, l->src.sent, "%s: sent %llu, received %llu", l->ctx,
                     (unsigned long long)l->src.sent, (unsigned long long)l->sink.received);
        if (idle < 1.0)
            cr_assert_gt(l->src.sent, cycles / 20, "%s: only %llu beats in %u cycles", l->ctx,
                         (unsigned long long)l->src.sent, cycles);
        lane_free(l);
    }
    vw_fifo_tb_free(m);
}

/* Source idle x sink back-pressure matrix, every parameter set in each run. */
#define STREAM_TEST(IDLE, STALL)                                                                   \
    Test(fifo, in_order_bit_exact_idle_##IDLE##_stall_##STALL)                                     \
    {                                                                                              \
        run_stream(tb_seed(1), IDLE / 100.0, STALL / 100.0, 20000, NULL);                           \
    }
STREAM_TEST(0, 0)
STREAM_TEST(0, 30)
STREAM_TEST(0, 90)
STREAM_TEST(30, 0)
STREAM_TEST(30, 30)
STREAM_TEST(30, 90)
STREAM_TEST(90, 0)
STREAM_TEST(90, 30)
STREAM_TEST(90, 90)

Test(fifo, full_rate_without_idle_or_back_pressure)
{
    /* GIVEN a source that never idles and a sink that never stalls
     * THEN Depth >= 2 moves one beat per cycle; Depth 1 one beat every two cycles (documented). */
    const unsigned cycles = 1000;
    uint64_t delivered[NSETS];
    uint64_t seed = tb_seed(1);
    run_stream(seed, 0.0, 0.0, cycles, delivered);
    for (size_t s = 0; s < NSETS; s++) {
        /* The first beat needs one cycle to cross. */
        uint64_t want = SETS[s].depth >= 2 ? cycles - 1 : cycles / 2;
        cr_assert_eq(delivered[s], want, "seed=%llu set=%s: %llu beats in %u cycles, expected %llu",
                      (unsigned long long)seed, SETS[s].name, (unsigned long long)delivered[s], cycles,
                      (unsigned long long)want);
    }
}

/* Drives one set's inputs (others idle) for one cycle; *before gets the outputs before the edge. */
static void step(vw_fifo_tb *m, uint64_t *cyc, const fifo_set_t *p, bool in_valid, uint64_t data, bool out_ready,
                 bool rst_n, out_t *before)
{
    in_t in;
    memset(&in, 0, sizeof in);
    in.rst_ni = rst_n;
    vw_put_u(&in, p->in_valid, in_valid);
    vw_put_u(&in, p->in_data, data);
    vw_put_u(&in, p->out_ready, out_ready);
    vw_fifo_tb_set(m, &in);
    vw_fifo_tb_get(m, before);
    vw_fifo_tb_tick(m, (*cyc)++);
}

Test(fifo, full_fifo_refuses_push_while_popping)
{
    for (size_t s = 0; s < NSETS; s++) {
        const fifo_set_t *p = &SETS[s];
        vw_fifo_tb *m = vw_fifo_tb_create(PERIOD_PS, 1);
        uint64_t cyc = vw_fifo_tb_reset(m, 0, 2);
        out_t o;
        /* GIVEN a full FIFO */
        for (unsigned i = 0; i < p->depth; i++)
            step(m, &cyc, p, true, i & 1, false, true, &o);
        step(m, &cyc, p, false, 0, false, true, &o);
        cr_assert_eq(vw_get_u(&o, p->count), p->depth, "set=%s: not full after Depth pushes", p->name);
        cr_assert(!vw_get_u(&o, p->in_ready), "set=%s: in_ready_o high when full", p->name);
        /* WHEN the sink pops while the source offers a word */
        step(m, &cyc, p, true, 1, true, true, &o);
        cr_assert(!vw_get_u(&o, p->in_ready), "set=%s: in_ready_o follows out_ready_i when full", p->name);
        /* THEN the word is refused and the count drops by one */
        step(m, &cyc, p, false, 0, false, true, &o);
        cr_assert_eq(vw_get_u(&o, p->count), p->depth - 1, "set=%s: count after a pop at full", p->name);
        cr_assert(vw_get_u(&o, p->in_ready), "set=%s: in_ready_o low with room", p->name);
        vw_fifo_tb_free(m);
    }
}

Test(fifo, reset_empties)
{
    for (size_t s = 0; s < NSETS; s++) {
        const fifo_set_t *p = &SETS[s];
        vw_fifo_tb *m = vw_fifo_tb_create(PERIOD_PS, 1);
        uint64_t cyc = vw_fifo_tb_reset(m, 0, 2);
        out_t o;
        /* GIVEN a FIFO holding words */
        for (unsigned i = 0; i < p->depth; i++)
            step(m, &cyc, p, true, 1, false, true, &o);
        step(m, &cyc, p, false, 0, false, true, &o);
        cr_assert(!vw_get_u(&o, p->empty), "set=%s: empty_o high with words held", p->name);
        /* WHEN rst_ni is low for one cycle */
        step(m, &cyc, p, false, 0, false, false, &o);
        /* THEN it is empty and ready */
        step(m, &cyc, p, false, 0, false, true, &o);
        cr_assert(vw_get_u(&o, p->empty), "set=%s: empty_o low after reset", p->name);
        cr_assert(!vw_get_u(&o, p->out_valid), "set=%s: out_valid_o high after reset", p->name);
        cr_assert_eq(vw_get_u(&o, p->count), 0, "set=%s: count_o after reset", p->name);
        cr_assert(vw_get_u(&o, p->in_ready), "set=%s: in_ready_o low after reset", p->name);
        vw_fifo_tb_free(m);
    }
}

/* Illegal parameters stop elaboration with the block's own message. */
static void expect_rejected(const char *top, const char *args, const char *msg)
{
    rtl_lint_result_t r;
    rtl_lint(top, args, &r);
    cr_assert(r.ran, "%s %s: %s", top, args, r.out);
    cr_assert(!r.passed, "%s %s: elaboration accepted it", top, args);
    cr_assert(strstr(r.out, msg), "%s %s: no \"%s\" in:\n%s", top, args, msg, r.out);
}

Test(fifo, rejects_illegal_parameters)
{
    rtl_lint_result_t r;
    rtl_lint("fifo", "-GDepth=3 -GWidth=5", &r);
    cr_assert(r.passed, "legal parameters rejected:\n%s", r.out);
    expect_rejected("fifo", "-GDepth=0", "fifo: Depth must be >= 1");
    expect_rejected("fifo", "-GWidth=0", "fifo: Width must be >= 1");
}

Test(ram_1r1w, rejects_illegal_parameters)
{
    rtl_lint_result_t r;
    rtl_lint("ram_1r1w", "-GDepth=3", &r);
    cr_assert(r.passed, "legal parameters rejected:\n%s", r.out);
    expect_rejected("ram_1r1w", "-GDepth=0", "ram_1r1w: Depth must be >= 1");
    expect_rejected("ram_1r1w", "-GWidth=0", "ram_1r1w: Width must be >= 1");
}
