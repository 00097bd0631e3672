/* Tests of rtl/common/skid_buf.sv through tb/hdl/skid_buf_tb.sv, which holds one instance per
 * parameter set. Every set runs at once, each with its own random source, sink, scoreboard and
 * cycle-accurate reference model (tb/ref/skid_buf_ref.c). */
#include <criterion/criterion.h>
#include <string.h>

#include "ref/skid_buf_ref.h"
#include "sb/rtl_lint.h"
#include "sb/stream_run.h"
#include "sb/vw_bits.h"
#include "tb_seed.h"
#include "vw_skid_buf_tb.h"

#define PERIOD_PS 1000

typedef vw_skid_buf_tb_in in_t;
typedef vw_skid_buf_tb_out out_t;

STREAM_OPS(OPS, vw_skid_buf_tb);

/** The instances of the harness: their parameters and where their ports are. */
static const stream_port_t SETS[] = {
    STREAM_PORT(in_t, out_t, w1, 1),
    STREAM_PORT(in_t, out_t, w8, 8),
    STREAM_PORT(in_t, out_t, w70, 70),
};
#define NSETS (sizeof SETS / sizeof SETS[0])

/** Per-set state of a stream run besides stream_run's. */
typedef struct skid_run {
    skid_buf_ref_t ref[NSETS];
    uint64_t ready_low[NSETS]; /* cycles with in_ready_o low before the drain */
} skid_run_t;

/* Compares the DUT's outputs with the model's in one cycle, then steps the model (stream_cycle_fn;
 * user: a skid_run_t). */
static void check_and_tick(void *user, size_t s, const stream_lane_t *l, const void *o, uint64_t cyc, bool draining)
{
    const stream_port_t *p = &SETS[s];
    skid_run_t *u = user;
    skid_buf_ref_out_t r = skid_buf_ref_outputs(&u->ref[s]);
    cr_assert_eq(vw_get_u(o, p->in_ready), r.in_ready, "%s cycle=%llu: in_ready_o", l->ctx, (unsigned long long)cyc);
    cr_assert_eq(vw_get_u(o, p->out_valid), r.out_valid, "%s cycle=%llu: out_valid_o", l->ctx,
                 (unsigned long long)cyc);
    if (r.out_valid) {
        char a[BITS_MAX_W / 4 + 1], b[BITS_MAX_W / 4 + 1];
        bits_t d = vw_get(o, p->out_data);
        cr_assert(bits_eq(d, r.out_data), "%s cycle=%llu: out_data_o 0x%s, model 0x%s", l->ctx,
                  (unsigned long long)cyc, bits_hex(d, p->width, a), bits_hex(r.out_data, p->width, b));
    }
    if (!draining)
        u->ready_low[s] += !vw_get_u(o, p->in_ready);
    skid_buf_ref_tick(&u->ref[s], l->src.valid, l->src.data, l->sink.ready);
}

/* Runs every set for `cycles` cycles of random traffic, then drains (source stopped, sink always
 * ready). Checks each cycle against the model, that no output depends combinationally on an input,
 * and end to end with the scoreboard. Stores in delivered[set] (when not NULL) the beats each set
 * delivered in the first `cycles` cycles and in ready_low[set] the cycles in_ready_o was low. */
static void run_stream(uint64_t seed, double idle, double stall, unsigned cycles, uint64_t *delivered,
                       uint64_t *ready_low)
{
    skid_run_t u = {0};
    const stream_port_t *ports[NSETS];
    for (size_t s = 0; s < NSETS; s++) {
        skid_buf_ref_reset(&u.ref[s]);
        ports[s] = &SETS[s];
    }
    stream_run(&(stream_run_t){.block = "skid_buf", .ops = &OPS, .period_ps = PERIOD_PS, .ports = ports,
                               .nlanes = NSETS, .seed = seed, .idle = idle, .stall = stall, .cycles = cycles,
                               .drain = 8, .on_cycle = check_and_tick, .user = &u, .delivered = delivered});
    if (ready_low)
        memcpy(ready_low, u.ready_low, sizeof u.ready_low);
}

/* Source idle x sink back-pressure matrix, every parameter set in each run. */
#define STREAM_TEST(IDLE, STALL)                                                                   \
    Test(skid_buf, in_order_bit_exact_idle_##IDLE##_stall_##STALL)                                 \
    {                                                                                              \
        run_stream(tb_seed(1), IDLE / 100.0, STALL / 100.0, 20000, NULL, NULL);                     \
    }
STREAM_MATRIX(STREAM_TEST)

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
static void step(vw_skid_buf_tb *m, uint64_t *cyc, const stream_port_t *p, bool in_valid, uint64_t data, bool out_ready,
                 out_t *before)
{
    stream_step(&OPS, m, cyc, p, in_valid, data, out_ready, true, before);
}

Test(skid_buf, stalled_sink_catches_one_beat_then_releases_both_in_order)
{
    for (size_t s = 0; s < NSETS; s++) {
        const stream_port_t *p = &SETS[s];
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
