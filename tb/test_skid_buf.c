/* Tests of rtl/common/skid_buf.sv through tb/hdl/skid_buf_tb.sv, which holds one instance per
 * parameter set. Every set runs at once, each with its own random source, sink, scoreboard and
 * cycle-accurate reference model (tb/ref/skid_buf_ref.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "ref/skid_buf_ref.h"
#include "rng.h"
#include "sb/rtl_lint.h"
#include "sb/stream_sb.h"
#include "sb/vw_bits.h"
#include "tb_seed.h"
#include "vw_skid_buf_tb.h"

#define PERIOD_PS 1000

typedef vw_skid_buf_tb_in in_t;
typedef vw_skid_buf_tb_out out_t;

/** One instance of the harness: its parameters and where its ports are. */
typedef struct skid_set {
    const char *name;
    unsigned width;
    vw_field_t in_valid, in_data, out_ready; /* in in_t */
    vw_field_t in_ready, out_valid, out_data; /* in out_t */
} skid_set_t;

#define SKID_SET(P, W)                                                                                       \
    {                                                                                                        \
        #P, W, VW_FIELD(in_t, P##_in_valid_i), VW_FIELD(in_t, P##_in_data_i), VW_FIELD(in_t, P##_out_ready_i), \
            VW_FIELD(out_t, P##_in_ready_o), VW_FIELD(out_t, P##_out_valid_o), VW_FIELD(out_t, P##_out_data_o) \
    }

static const skid_set_t SETS[] = {SKID_SET(w1, 1), SKID_SET(w8, 8), SKID_SET(w70, 70)};
#define NSETS (sizeof SETS / sizeof SETS[0])

/** Per-set state of a stream run. */
typedef struct lane {
    const skid_set_t *p;
    skid_buf_ref_t ref;
    stream_src_t src;
    stream_sink_t sink;
    stream_sb_t sb;
    uint64_t ready_low; /* cycles with in_ready_o low */
    char ctx[128];      /* seed and set, for failure messages */
} lane_t;

static void lane_init(lane_t *l, const skid_set_t *p, uint64_t seed, double idle, double stall)
{
    char name[64];
    memset(l, 0, sizeof *l);
    l->p = p;
    skid_buf_ref_reset(&l->ref);
    snprintf(name, sizeof name, "skid_buf.%s.src", p->name);
    stream_src_init(&l->src, seed, name, p->width, idle);
    snprintf(name, sizeof name, "skid_buf.%s.sink", p->name);
    stream_sink_init(&l->sink, seed, name, p->width, stall);
    stream_sb_init(&l->sb, p->width);
    snprintf(l->ctx, sizeof l->ctx, "seed=%llu idle=%.2f stall=%.2f set=%s", (unsigned long long)seed, idle, stall,
             p->name);
}

/* Compares the DUT's outputs with the model's in one cycle. */
static void check_outputs(const lane_t *l, const out_t *o, uint64_t cyc)
{
    const skid_set_t *p = l->p;
    skid_buf_ref_out_t r = skid_buf_ref_outputs(&l->ref);
    cr_assert_eq(vw_get_u(o, p->in_ready), r.in_ready, "%s cycle=%llu: in_ready_o", l->ctx, (unsigned long long)cyc);
    cr_assert_eq(vw_get_u(o, p->out_valid), r.out_valid, "%s cycle=%llu: out_valid_o", l->ctx,
                 (unsigned long long)cyc);
    if (r.out_valid) {
        char a[BITS_MAX_W / 4 + 1], b[BITS_MAX_W / 4 + 1];
        bits_t d = vw_get(o, p->out_data);
        cr_assert(bits_eq(d, r.out_data), "%s cycle=%llu: out_data_o 0x%s, model 0x%s", l->ctx,
                  (unsigned long long)cyc, bits_hex(d, p->width, a), bits_hex(r.out_data, p->width, b));
    }
}

/* Runs every set for `cycles` cycles of random traffic, then drains (source stopped, sink always
 * ready). Checks each cycle against the model, that no output depends combinationally on an input,
 * and end to end with the scoreboard. Stores in delivered[set] (when not NULL) the beats each set
 * delivered in the first `cycles` cycles and in ready_low[set] the cycles in_ready_o was low. */
static void run_stream(uint64_t seed, double idle, double stall, unsigned cycles, uint64_t *delivered,
                       uint64_t *ready_low)
{
    char note[128];
    snprintf(note, sizeof note, "skid_buf run: seed=%llu idle=%.2f stall=%.2f", (unsigned long long)seed, idle,
             stall);
    cleanup_set_note(note); /* printed if an RTL assertion aborts the run */
    vw_skid_buf_tb *m = vw_skid_buf_tb_create(PERIOD_PS, seed);
    lane_t lanes[NSETS];
    rng_t perturb;
    rng_init_named(&perturb, seed, "skid_buf.perturb");
    for (size_t s = 0; s < NSETS; s++)
        lane_init(&lanes[s], &SETS[s], seed, idle, stall);
    uint64_t cyc = vw_skid_buf_tb_reset(m, 0, 2);
    const unsigned drain = 8;

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
                if (ready_low)
                    ready_low[s] = l->ready_low;
                l->src.idle = 1.0;
                l->sink.stall = 0.0;
            }
            stream_src_drive(&l->src);
            stream_sink_drive(&l->sink);
            vw_put_u(&in, l->p->in_valid, l->src.valid);
            vw_put(&in, l->p->in_data, l->src.data);
            vw_put_u(&in, l->p->out_ready, l->sink.ready);
        }
        /* Every output is a register: other inputs, same outputs. */
        memcpy(&in_p, &in, sizeof in);
        for (size_t s = 0; s < NSETS; s++) {
            vw_put_u(&in_p, lanes[s].p->in_valid, !lanes[s].src.valid);
            vw_put_u(&in_p, lanes[s].p->out_ready, !lanes[s].sink.ready);
            vw_put(&in_p, lanes[s].p->in_data, bits_random(&perturb, lanes[s].p->width));
        }
        memset(&out_p, 0, sizeof out_p);
        memset(&out, 0, sizeof out);
        vw_skid_buf_tb_set(m, &in_p);
        vw_skid_buf_tb_get(m, &out_p);
        vw_skid_buf_tb_set(m, &in);
        vw_skid_buf_tb_get(m, &out);
        cr_assert(memcmp(&out, &out_p, sizeof out) == 0,
                  "seed=%llu cycle=%llu: an output changed with the inputs in the same cycle (combinational path)",
                  (unsigned long long)seed, (unsigned long long)cyc);

        for (size_t s = 0; s < NSETS; s++) {
            lane_t *l = &lanes[s];
            const skid_set_t *p = l->p;
            char why[256];
            check_outputs(l, &out, cyc);
            bool in_ready = vw_get_u(&out, p->in_ready), out_valid = vw_get_u(&out, p->out_valid);
            bits_t out_data = vw_get(&out, p->out_data);
            l->ready_low += !in_ready;
            cr_assert(stream_sink_observe(&l->sink, out_valid, out_data, why, sizeof why), "%s cycle=%llu: %s",
                      l->ctx, (unsigned long long)cyc, why);
            if (out_valid && l->sink.ready)
                cr_assert(stream_sb_pop(&l->sb, out_data, why, sizeof why), "%s cycle=%llu: %s", l->ctx,
                          (unsigned long long)cyc, why);
            if (l->src.valid && in_ready)
                stream_sb_push(&l->sb, l->src.data);
            skid_buf_ref_tick(&l->ref, l->src.valid, l->src.data, l->sink.ready);
            stream_src_taken(&l->src, l->src.valid && in_ready);
        }
        vw_skid_buf_tb_tick(m, cyc);
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
        stream_sb_free(&l->sb);
    }
    vw_skid_buf_tb_free(m);
}

/* Source idle x sink back-pressure matrix, every parameter set in each run. */
#define STREAM_TEST(IDLE, STALL)                                                                   \
    Test(skid_buf, in_order_bit_exact_idle_##IDLE##_stall_##STALL)                                 \
    {                                                                                              \
        run_stream(tb_seed(1), IDLE / 100.0, STALL / 100.0, 20000, NULL, NULL);                     \
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

Test(skid_buf, one_beat_per_cycle_without_idle_or_back_pressure)
{
    /* GIVEN a source that never idles and a sink that never stalls
     * THEN every cycle but the first delivers a beat, and in_ready_o never drops. */
    const unsigned cycles = 1000;
    uint64_t delivered[NSETS], ready_low[NSETS];
    uint64_t seed = tb_seed(1);
    run_stream(seed, 0.0, 0.0, cycles, delivered, ready_low);
    for (size_t s = 0; s < NSETS; s++) {
        cr_assert_eq(delivered[s], cycles - 1, "seed=%llu set=%s: %llu beats in %u cycles, expected %u",
                     (unsigned long long)seed, SETS[s].name, (unsigned long long)delivered[s], cycles, cycles - 1);
        cr_assert_eq(ready_low[s], 0, "seed=%llu set=%s: in_ready_o low in %llu cycles", (unsigned long long)seed,
                     SETS[s].name, (unsigned long long)ready_low[s]);
    }
}

/* Drives one set's inputs (others idle) for one cycle; *before gets the outputs before the edge. */
static void step(vw_skid_buf_tb *m, uint64_t *cyc, const skid_set_t *p, bool in_valid, uint64_t data, bool out_ready,
                 out_t *before)
{
    in_t in;
    memset(&in, 0, sizeof in);
    in.rst_ni = 1;
    vw_put_u(&in, p->in_valid, in_valid);
    vw_put_u(&in, p->in_data, data);
    vw_put_u(&in, p->out_ready, out_ready);
    vw_skid_buf_tb_set(m, &in);
    vw_skid_buf_tb_get(m, before);
    vw_skid_buf_tb_tick(m, (*cyc)++);
}

Test(skid_buf, stalled_sink_catches_one_beat_then_releases_both_in_order)
{
    for (size_t s = 0; s < NSETS; s++) {
        const skid_set_t *p = &SETS[s];
        const uint64_t mask = p->width >= 64 ? ~0ull : (1ull << p->width) - 1;
        const uint64_t a = 0x5555555555555555ull & mask, b = 0xaaaaaaaaaaaaaaaaull & mask;
        vw_skid_buf_tb *m = vw_skid_buf_tb_create(PERIOD_PS, 1);
        uint64_t cyc = vw_skid_buf_tb_reset(m, 0, 2);
        out_t o;
        /* GIVEN a stalled sink and a source offering a, then b, then a third beat */
        step(m, &cyc, p, true, a, false, &o);
        cr_assert(vw_get_u(&o, p->in_ready), "set=%s: not ready when empty", p->name);
        /* WHEN b arrives while a waits in the output register */
        step(m, &cyc, p, true, b, false, &o);
        cr_assert(vw_get_u(&o, p->in_ready), "set=%s: b not accepted into the skid register", p->name);
        /* THEN the buffer stops accepting and holds a on the output */
        step(m, &cyc, p, true, a, false, &o);
        cr_assert(!vw_get_u(&o, p->in_ready), "set=%s: in_ready_o high with both registers full", p->name);
        cr_assert(vw_get_u(&o, p->out_valid) && vw_get_u(&o, p->out_data) == a, "set=%s: output is not a", p->name);
        /* WHEN the sink takes a, THEN b follows and the buffer accepts again */
        step(m, &cyc, p, false, 0, true, &o);
        step(m, &cyc, p, false, 0, true, &o);
        cr_assert(vw_get_u(&o, p->out_valid) && vw_get_u(&o, p->out_data) == b, "set=%s: b does not follow a",
                  p->name);
        cr_assert(vw_get_u(&o, p->in_ready), "set=%s: in_ready_o low after the skid register drained", p->name);
        step(m, &cyc, p, false, 0, true, &o);
        cr_assert(!vw_get_u(&o, p->out_valid), "set=%s: a beat appeared from nowhere", p->name);
        vw_skid_buf_tb_free(m);
    }
}

Test(skid_buf, rejects_illegal_parameters)
{
    rtl_lint_result_t r;
    rtl_lint("skid_buf", "-GWidth=3", &r);
    cr_assert(r.passed, "legal parameters rejected:\n%s", r.out);
    rtl_lint("skid_buf", "-GWidth=0", &r);
    cr_assert(r.ran && !r.passed, "Width=0 accepted:\n%s", r.out);
    cr_assert(strstr(r.out, "skid_buf: Width must be >= 1"), "no parameter message in:\n%s", r.out);
}
