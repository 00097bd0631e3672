/* Tests of rtl/common/fifo.sv through tb/hdl/fifo_tb.sv, which holds one instance per parameter set.
 * Every set runs at once, each with its own random source, sink, scoreboard and cycle-accurate
 * reference model (tb/ref/fifo_ref.c). The random runs test both forms of the FIFO: the simulation
 * form (model fifo_tb: the head word in a register of its own) and the synthesis form (model
 * fifo_tb_synth, Verilated with SYNTHESIS defined: the ram_1r1w read at the head pointer). */
#include <criterion/criterion.h>
#include <string.h>

#include "ref/fifo_ref.h"
#include "sb/rtl_lint.h"
#include "sb/stream_run.h"
#include "sb/vw_bits.h"
#include "tb_seed.h"
#include "vw_fifo_tb.h"
#include "vw_fifo_tb_synth.h"

#define PERIOD_PS 1000

typedef vw_fifo_tb_in in_t;
typedef vw_fifo_tb_out out_t;

STREAM_OPS(OPS, vw_fifo_tb);
STREAM_OPS(OPS_SYNTH, vw_fifo_tb_synth);
/* The two forms have the same ports, so the same field offsets serve both. */
_Static_assert(sizeof(vw_fifo_tb_in) == sizeof(vw_fifo_tb_synth_in) &&
                   sizeof(vw_fifo_tb_out) == sizeof(vw_fifo_tb_synth_out),
               "fifo_tb and fifo_tb_synth differ in their ports");

/** One instance of the harness: its parameters and where its ports are. */
typedef struct fifo_set {
    stream_port_t port;
    unsigned depth;
    vw_field_t count, empty; /* in out_t */
} fifo_set_t;

#define FIFO_SET(P, D, W)                                                                              \
    {                                                                                                  \
        STREAM_PORT(in_t, out_t, P, W), D, VW_FIELD(out_t, P##_count_o), VW_FIELD(out_t, P##_empty_o) \
    }

static const fifo_set_t SETS[] = {
    FIFO_SET(d1w8, 1, 8), FIFO_SET(d2w1, 2, 1), FIFO_SET(d3w70, 3, 70), FIFO_SET(d5w8, 5, 8), FIFO_SET(d16w70, 16, 70),
};
#define NSETS (sizeof SETS / sizeof SETS[0])

/* Compares the DUT's outputs with the model's in one cycle, then steps the model (stream_cycle_fn;
 * user: the models, one per set). */
static void check_and_tick(void *user, size_t s, const stream_lane_t *l, const void *o, uint64_t cyc, bool draining)
{
    const fifo_set_t *p = &SETS[s];
    fifo_ref_t *ref = &((fifo_ref_t *)user)[s];
    fifo_ref_out_t r = fifo_ref_outputs(ref);
    (void)draining;
    cr_assert_eq(vw_get_u(o, p->port.in_ready), r.in_ready, "%s cycle=%llu: in_ready_o", l->ctx,
                 (unsigned long long)cyc);
    cr_assert_eq(vw_get_u(o, p->port.out_valid), r.out_valid, "%s cycle=%llu: out_valid_o", l->ctx,
                 (unsigned long long)cyc);
    cr_assert_eq(vw_get_u(o, p->count), r.count, "%s cycle=%llu: count_o", l->ctx, (unsigned long long)cyc);
    cr_assert_eq(vw_get_u(o, p->empty), r.empty, "%s cycle=%llu: empty_o", l->ctx, (unsigned long long)cyc);
    if (r.out_valid) {
        char a[BITS_MAX_W / 4 + 1], b[BITS_MAX_W / 4 + 1];
        bits_t d = vw_get(o, p->port.out_data);
        cr_assert(bits_eq(d, r.out_data), "%s cycle=%llu: out_data_o 0x%s, model 0x%s", l->ctx,
                  (unsigned long long)cyc, bits_hex(d, p->port.width, a), bits_hex(r.out_data, p->port.width, b));
    }
    fifo_ref_tick(ref, l->src.valid, l->src.data, l->sink.ready);
}

/* Runs every set for `cycles` cycles of random traffic, then drains (source stopped, sink always
 * ready). Checks each cycle against the model, that no output depends combinationally on an input,
 * and end to end with the scoreboard. Stores in delivered[set] (when not NULL) the beats each set
 * delivered in the first `cycles` cycles. */
static void run_stream(const stream_ops_t *ops, uint64_t seed, double idle, double stall, unsigned cycles,
                       uint64_t *delivered)
{
    fifo_ref_t refs[NSETS];
    const stream_port_t *ports[NSETS];
    for (size_t s = 0; s < NSETS; s++) {
        fifo_ref_init(&refs[s], SETS[s].depth);
        ports[s] = &SETS[s].port;
    }
    stream_run(&(stream_run_t){.block = ops == &OPS ? "fifo" : "fifo (synthesis form)", .ops = ops, .period_ps = PERIOD_PS, .ports = ports,
                               .nlanes = NSETS, .seed = seed, .idle = idle, .stall = stall, .cycles = cycles,
                               .drain = 2 * 16 + 8, .on_cycle = check_and_tick, .user = refs,
                               .delivered = delivered});
    for (size_t s = 0; s < NSETS; s++)
        fifo_ref_free(&refs[s]);
}

/* Source idle x sink back-pressure matrix, every parameter set in each run, each form. */
#define STREAM_TEST(IDLE, STALL)                                                                   \
    Test(fifo, in_order_bit_exact_idle_##IDLE##_stall_##STALL)                                     \
    {                                                                                              \
        run_stream(&OPS, tb_seed(1), IDLE / 100.0, STALL / 100.0, 20000, NULL);                     \
    }                                                                                              \
    Test(fifo_synth, in_order_bit_exact_idle_##IDLE##_stall_##STALL)                               \
    {                                                                                              \
        run_stream(&OPS_SYNTH, tb_seed(1), IDLE / 100.0, STALL / 100.0, 20000, NULL);               \
    }
STREAM_MATRIX(STREAM_TEST)

Test(fifo, full_rate_without_idle_or_back_pressure)
{
    /* GIVEN a source that never idles and a sink that never stalls
     * THEN Depth >= 2 moves one beat per cycle; Depth 1 one beat every two cycles (documented). */
    const unsigned cycles = 1000;
    uint64_t delivered[NSETS];
    uint64_t seed = tb_seed(1);
    run_stream(&OPS, seed, 0.0, 0.0, cycles, delivered);
    for (size_t s = 0; s < NSETS; s++) {
        /* The first beat needs one cycle to cross. */
        uint64_t want = SETS[s].depth >= 2 ? cycles - 1 : cycles / 2;
        cr_assert_eq(delivered[s], want, "seed=%llu set=%s: %llu beats in %u cycles, expected %llu",
                      (unsigned long long)seed, SETS[s].port.name, (unsigned long long)delivered[s], cycles,
                      (unsigned long long)want);
    }
}

/* Drives one set's inputs (others idle) for one cycle; *before gets the outputs before the edge. */
static void step(vw_fifo_tb *m, uint64_t *cyc, const fifo_set_t *p, bool in_valid, uint64_t data, bool out_ready,
                 bool rst_n, out_t *before)
{
    stream_step(&OPS, m, cyc, &p->port, in_valid, data, out_ready, rst_n, before);
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
        cr_assert_eq(vw_get_u(&o, p->count), p->depth, "set=%s: not full after Depth pushes", p->port.name);
        cr_assert(!vw_get_u(&o, p->port.in_ready), "set=%s: in_ready_o high when full", p->port.name);
        /* WHEN the sink pops while the source offers a word */
        step(m, &cyc, p, true, 1, true, true, &o);
        cr_assert(!vw_get_u(&o, p->port.in_ready), "set=%s: in_ready_o follows out_ready_i when full", p->port.name);
        /* THEN the word is refused and the count drops by one */
        step(m, &cyc, p, false, 0, false, true, &o);
        cr_assert_eq(vw_get_u(&o, p->count), p->depth - 1, "set=%s: count after a pop at full", p->port.name);
        cr_assert(vw_get_u(&o, p->port.in_ready), "set=%s: in_ready_o low with room", p->port.name);
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
        cr_assert(!vw_get_u(&o, p->empty), "set=%s: empty_o high with words held", p->port.name);
        /* WHEN rst_ni is low for one cycle */
        step(m, &cyc, p, false, 0, false, false, &o);
        /* THEN it is empty and ready */
        step(m, &cyc, p, false, 0, false, true, &o);
        cr_assert(vw_get_u(&o, p->empty), "set=%s: empty_o low after reset", p->port.name);
        cr_assert(!vw_get_u(&o, p->port.out_valid), "set=%s: out_valid_o high after reset", p->port.name);
        cr_assert_eq(vw_get_u(&o, p->count), 0, "set=%s: count_o after reset", p->port.name);
        cr_assert(vw_get_u(&o, p->port.in_ready), "set=%s: in_ready_o low after reset", p->port.name);
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
