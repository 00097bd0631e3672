/* Tests of rtl/common/fifo_2w.sv (two write lanes, one read) through tb/hdl/fifo_2w_tb.sv, which
 * holds one instance per parameter set. Every set runs at once, each with its own random two-lane
 * source, random sink, in-order scoreboard and cycle-accurate reference model
 * (tb/ref/fifo_2w_ref.c). The source offers its oldest words in lane order, in every pattern the
 * Logging Unit's receive port produces (lane 0 only, lane 1 only, both), and keeps a refused word
 * for a later cycle. Every test runs on both forms of the FIFO: the simulation form (model
 * fifo_2w_tb: the places as one array, the head word in a register of its own) and the synthesis
 * form (model fifo_2w_tb_synth, Verilated with SYNTHESIS defined: two ram_1r1w banks read at the
 * head pointer). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/rng.h"
#include "ref/fifo_2w_ref.h"
#include "sb/rtl_lint.h"
#include "sb/stream_run.h"
#include "sb/stream_sb.h"
#include "sb/vw_bits.h"
#include "tb_seed.h"
#include "vw_fifo_2w_tb.h"
#include "vw_fifo_2w_tb_synth.h"

#define PERIOD_PS 1000

typedef vw_fifo_2w_tb_in in_t;
typedef vw_fifo_2w_tb_out out_t;

STREAM_OPS(OPS, vw_fifo_2w_tb);
STREAM_OPS(OPS_SYNTH, vw_fifo_2w_tb_synth);
/* The two forms have the same ports, so the same field offsets serve both. */
_Static_assert(sizeof(vw_fifo_2w_tb_in) == sizeof(vw_fifo_2w_tb_synth_in) &&
                   sizeof(vw_fifo_2w_tb_out) == sizeof(vw_fifo_2w_tb_synth_out),
               "fifo_2w_tb and fifo_2w_tb_synth differ in their ports");
/* Both forms, and the name each test's messages give them. */
static const stream_ops_t *const FORMS[] = {&OPS, &OPS_SYNTH};
static const char *form_name(const stream_ops_t *ops) { return ops == &OPS ? "simulation" : "synthesis"; }

/** One instance of the harness: its parameters and where its ports are. */
typedef struct set {
    const char *name;
    unsigned depth, width;
    vw_field_t in_valid, in_data[2], out_ready;          /* in in_t */
    vw_field_t in_ready, out_valid, out_data, count, empty; /* in out_t */
} set_t;

#define SET(P, D, W)                                                                                           \
    {                                                                                                          \
        #P, D, W, VW_FIELD(in_t, P##_in_valid_i), {VW_FIELD(in_t, P##_in0_data_i), VW_FIELD(in_t, P##_in1_data_i)}, \
            VW_FIELD(in_t, P##_out_ready_i), VW_FIELD(out_t, P##_in_ready_o), VW_FIELD(out_t, P##_out_valid_o),    \
            VW_FIELD(out_t, P##_out_data_o), VW_FIELD(out_t, P##_count_o), VW_FIELD(out_t, P##_empty_o)            \
    }

static const set_t SETS[] = {
    SET(d1w8, 1, 8), SET(d2w1, 2, 1), SET(d3w70, 3, 70), SET(d4w8, 4, 8), SET(d7w70, 7, 70),
};
#define NSETS (sizeof SETS / sizeof SETS[0])

/* A two-lane source: words made and not yet taken, oldest first; each cycle it offers its oldest one
 * or two on lane 0, lane 1 or both, and learns which were taken. */
#define SRC_MAX 4
typedef struct src2 {
    rng_t rng;
    unsigned width;
    double idle;
    bits_t pend[SRC_MAX];
    unsigned npend;
    unsigned valid;      /* this cycle's lanes */
    bits_t data[2];      /* this cycle's words */
    unsigned slot[2];    /* pend index offered on each lane */
    uint64_t sent, both; /* words taken; cycles with both lanes taken */
} src2_t;

static void src2_drive(src2_t *s)
{
    for (unsigned k = 0; k < 2 && s->npend < SRC_MAX; k++)
        if (!rng_chance(&s->rng, s->idle))
            s->pend[s->npend++] = bits_random(&s->rng, s->width);
    s->valid = 0;
    memset(s->data, 0, sizeof s->data);
    if (!s->npend)
        return;
    /* Pattern: both lanes (when two words wait), or one word on lane 0 or on lane 1. */
    unsigned r = (unsigned)rng_below(&s->rng, 4);
    if (s->npend >= 2 && r >= 2) {
        s->valid = 3, s->slot[0] = 0, s->slot[1] = 1;
    } else {
        unsigned lane = r & 1;
        s->valid = 1u << lane, s->slot[lane] = 0;
    }
    for (unsigned k = 0; k < 2; k++)
        if (s->valid >> k & 1)
            s->data[k] = s->pend[s->slot[k]];
}

/* The lanes taken: their words leave the source (they are its oldest ones). */
static void src2_taken(src2_t *s, unsigned taken)
{
    unsigned n = (unsigned)__builtin_popcount(taken);
    memmove(s->pend, s->pend + n, (s->npend - n) * sizeof s->pend[0]);
    s->npend -= n;
    s->sent += n;
    s->both += taken == 3;
}

typedef struct lane_st {
    const set_t *p;
    src2_t src;
    stream_sink_t sink;
    stream_sb_t sb;
    fifo_2w_ref_t ref;
    char ctx[128];
} lane_st_t;

/* Runs every set for `cycles` cycles of random traffic, then drains (no new words, sink always
 * ready). Every cycle: no output depends combinationally on an input, every output equals the
 * model's, taken words go to the scoreboard in lane order and leave in that order, bit-exact.
 * delivered[set] (when not NULL): words delivered in the first `cycles` cycles. */
static void run_stream(const stream_ops_t *ops, uint64_t seed, double idle, double stall, unsigned cycles,
                       uint64_t *delivered, uint64_t *both)
{
    char note[160], name[64];
    snprintf(note, sizeof note, "fifo_2w run (%s form): seed=%llu idle=%.2f stall=%.2f", form_name(ops),
             (unsigned long long)seed, idle, stall);
    cleanup_set_note(note);
    void *m = ops->create(PERIOD_PS, seed);
    lane_st_t L[NSETS];
    for (size_t s = 0; s < NSETS; s++) {
        lane_st_t *l = &L[s];
        memset(l, 0, sizeof *l);
        l->p = &SETS[s];
        snprintf(name, sizeof name, "fifo_2w.%s.src", l->p->name);
        rng_init_named(&l->src.rng, seed, name);
        l->src.width = l->p->width, l->src.idle = idle;
        snprintf(name, sizeof name, "fifo_2w.%s.sink", l->p->name);
        stream_sink_init(&l->sink, seed, name, l->p->width, stall);
        stream_sb_init(&l->sb, l->p->width);
        fifo_2w_ref_init(&l->ref, l->p->depth);
        snprintf(l->ctx, sizeof l->ctx, "%s form seed=%llu idle=%.2f stall=%.2f set=%s", form_name(ops),
                 (unsigned long long)seed, idle, stall, l->p->name);
    }
    rng_t perturb;
    rng_init_named(&perturb, seed, "fifo_2w.perturb");
    uint64_t cyc = ops->reset(m, 0, 2);
    const unsigned drain = 2 * 8 + 8;
    in_t in, in_p;
    out_t out, out_p;
    for (unsigned c = 0; c < cycles + drain; c++, cyc++) {
        memset(&in, 0, sizeof in);
        in.rst_ni = 1;
        for (size_t s = 0; s < NSETS; s++) {
            lane_st_t *l = &L[s];
            if (c == cycles) {
                if (delivered)
                    delivered[s] = l->sink.received;
                if (both)
                    both[s] = l->src.both;
                l->src.idle = 1.0, l->sink.stall = 0.0;
            }
            src2_drive(&l->src);
            stream_sink_drive(&l->sink);
            vw_put_u(&in, l->p->in_valid, l->src.valid);
            vw_put(&in, l->p->in_data[0], l->src.data[0]);
            vw_put(&in, l->p->in_data[1], l->src.data[1]);
            vw_put_u(&in, l->p->out_ready, l->sink.ready);
        }
        /* Every output must be a function of the state: other inputs, same outputs. */
        memcpy(&in_p, &in, sizeof in);
        for (size_t s = 0; s < NSETS; s++) {
            const lane_st_t *l = &L[s];
            vw_put_u(&in_p, l->p->in_valid, ~l->src.valid & 3);
            vw_put_u(&in_p, l->p->out_ready, !l->sink.ready);
            vw_put(&in_p, l->p->in_data[0], bits_random(&perturb, l->p->width));
            vw_put(&in_p, l->p->in_data[1], bits_random(&perturb, l->p->width));
        }
        cr_assert(stream_outputs_same(ops, m, &in_p, &in, &out_p, &out),
                  "%s form seed=%llu cycle=%llu: an output changed with the inputs in the same cycle "
                  "(combinational path)", form_name(ops), (unsigned long long)seed, (unsigned long long)cyc);
        for (size_t s = 0; s < NSETS; s++) {
            lane_st_t *l = &L[s];
            const set_t *p = l->p;
            char why[256];
            fifo_2w_ref_out_t r = fifo_2w_ref_outputs(&l->ref);
            cr_assert_eq(vw_get_u(&out, p->in_ready), r.in_ready, "%s cycle=%llu: in_ready_o", l->ctx,
                         (unsigned long long)cyc);
            cr_assert_eq(vw_get_u(&out, p->out_valid), r.out_valid, "%s cycle=%llu: out_valid_o", l->ctx,
                         (unsigned long long)cyc);
            cr_assert_eq(vw_get_u(&out, p->count), r.count, "%s cycle=%llu: count_o", l->ctx,
                         (unsigned long long)cyc);
            cr_assert_eq(vw_get_u(&out, p->empty), r.empty, "%s cycle=%llu: empty_o", l->ctx,
                         (unsigned long long)cyc);
            bits_t d = vw_get(&out, p->out_data);
            if (r.out_valid) {
                char a[BITS_MAX_W / 4 + 1], b[BITS_MAX_W / 4 + 1];
                cr_assert(bits_eq(d, r.out_data), "%s cycle=%llu: out_data_o 0x%s, model 0x%s", l->ctx,
                          (unsigned long long)cyc, bits_hex(d, p->width, a), bits_hex(r.out_data, p->width, b));
            }
            cr_assert(stream_sink_observe(&l->sink, r.out_valid, d, why, sizeof why), "%s cycle=%llu: %s", l->ctx,
                      (unsigned long long)cyc, why);
            if (r.out_valid && l->sink.ready)
                cr_assert(stream_sb_pop(&l->sb, d, why, sizeof why), "%s cycle=%llu: %s", l->ctx,
                          (unsigned long long)cyc, why);
            unsigned taken = fifo_2w_ref_taken(&l->ref, l->src.valid);
            for (unsigned k = 0; k < 2; k++)
                if (taken >> k & 1)
                    stream_sb_push(&l->sb, l->src.data[k]);
            fifo_2w_ref_tick(&l->ref, l->src.valid, l->src.data, l->sink.ready);
            src2_taken(&l->src, taken);
        }
        ops->tick(m, cyc);
    }
    for (size_t s = 0; s < NSETS; s++) {
        lane_st_t *l = &L[s];
        cr_assert_eq(l->src.npend, 0, "%s: the source still holds %u words after the drain", l->ctx, l->src.npend);
        cr_assert_eq(stream_sb_pending(&l->sb), 0, "%s: %zu words sent and never received", l->ctx,
                     stream_sb_pending(&l->sb));
        cr_assert_eq(l->sink.received, l->src.sent, "%s: sent %llu, received %llu", l->ctx,
                     (unsigned long long)l->src.sent, (unsigned long long)l->sink.received);
        if (idle < 1.0)
            cr_assert_gt(l->src.sent, cycles / 20, "%s: only %llu words in %u cycles", l->ctx,
                         (unsigned long long)l->src.sent, cycles);
        stream_sb_free(&l->sb);
        fifo_2w_ref_free(&l->ref);
    }
    ops->free(m);
}

/* Source idle x sink back-pressure matrix, every parameter set in each run, each form. */
#define STREAM_TEST(IDLE, STALL)                                                                   \
    Test(fifo_2w, in_order_bit_exact_idle_##IDLE##_stall_##STALL)                                  \
    {                                                                                              \
        run_stream(&OPS, tb_seed(1), IDLE / 100.0, STALL / 100.0, 20000, NULL, NULL);               \
    }                                                                                              \
    Test(fifo_2w_synth, in_order_bit_exact_idle_##IDLE##_stall_##STALL)                            \
    {                                                                                              \
        run_stream(&OPS_SYNTH, tb_seed(1), IDLE / 100.0, STALL / 100.0, 20000, NULL, NULL);         \
    }
STREAM_MATRIX(STREAM_TEST)

Test(fifo_2w, full_rate_without_idle_or_back_pressure)
{
    /* GIVEN a source with two words every cycle and a sink that never stalls
     * THEN Depth >= 2 delivers one word per cycle; Depth 1 one every two cycles (as fifo) */
    const unsigned cycles = 1000;
    uint64_t delivered[NSETS];
    uint64_t seed = tb_seed(1);
    for (size_t f = 0; f < 2; f++) {
        run_stream(FORMS[f], seed, 0.0, 0.0, cycles, delivered, NULL);
        for (size_t s = 0; s < NSETS; s++) {
            uint64_t want = SETS[s].depth >= 2 ? cycles - 1 : cycles / 2;
            cr_assert_eq(delivered[s], want, "%s form seed=%llu set=%s: %llu words in %u cycles, expected %llu",
                         form_name(FORMS[f]), (unsigned long long)seed, SETS[s].name,
                         (unsigned long long)delivered[s], cycles, (unsigned long long)want);
        }
    }
}

Test(fifo_2w, both_lanes_are_taken_in_one_cycle_when_there_is_room_for_two)
{
    /* GIVEN a source of 0.8 words per cycle in bursts and a sink that never stalls (so the FIFO often
     * has room for two while two words wait)
     * THEN every set with room for two takes both lanes in one cycle, many times */
    const unsigned cycles = 4000;
    uint64_t both[NSETS];
    uint64_t seed = tb_seed(1);
    for (size_t f = 0; f < 2; f++) {
        run_stream(FORMS[f], seed, 0.6, 0.0, cycles, NULL, both);
        for (size_t s = 0; s < NSETS; s++)
            if (SETS[s].depth >= 2)
                cr_assert_gt(both[s], 20, "%s form seed=%llu set=%s: both lanes taken in only %llu of %u cycles",
                             form_name(FORMS[f]), (unsigned long long)seed, SETS[s].name,
                             (unsigned long long)both[s], cycles);
    }
}

/* A directed test's FIFO: one set of one form's model, fresh out of reset. */
typedef struct dut {
    const stream_ops_t *ops;
    const set_t *p;
    void *m;
    uint64_t cyc;
    char ctx[64]; /* the form and the set, for messages */
} dut_t;

/* Drives the set's inputs (the others idle) for one cycle; *before gets the outputs before the edge. */
static void step(dut_t *d, unsigned valid, uint64_t d0, uint64_t d1, bool out_ready, bool rst_n, out_t *before)
{
    in_t in;
    memset(&in, 0, sizeof in);
    in.rst_ni = rst_n;
    vw_put_u(&in, d->p->in_valid, valid);
    vw_put_u(&in, d->p->in_data[0], d0);
    vw_put_u(&in, d->p->in_data[1], d1);
    vw_put_u(&in, d->p->out_ready, out_ready);
    d->ops->set(d->m, &in);
    d->ops->get(d->m, before);
    d->ops->tick(d->m, d->cyc++);
}

/* Runs body on every set of both forms, each on a model of its own. */
static void each_form_and_set(void (*body)(dut_t *d))
{
    for (size_t f = 0; f < 2; f++)
        for (size_t s = 0; s < NSETS; s++) {
            dut_t d = {.ops = FORMS[f], .p = &SETS[s]};
            snprintf(d.ctx, sizeof d.ctx, "%s form set=%s", form_name(d.ops), d.p->name);
            d.m = d.ops->create(PERIOD_PS, 1);
            d.cyc = d.ops->reset(d.m, 0, 2);
            body(&d);
            d.ops->free(d.m);
        }
}

static uint64_t mask_of(const set_t *p) { return p->width >= 64 ? ~0ull : (1ull << p->width) - 1; }

static void two_words_in_lane_order(dut_t *d)
{
    const set_t *p = d->p;
    if (p->depth < 2)
        return;
    uint64_t a = 0x2a5 & mask_of(p), b = 0x152 & mask_of(p);
    out_t o;
    /* GIVEN an empty FIFO WHEN lane 0 and lane 1 offer a word in the same cycle */
    step(d, 3, a, b, false, true, &o);
    cr_assert_eq(vw_get_u(&o, p->in_ready), 3, "%s: no room for two when empty", d->ctx);
    /* THEN both are in, lane 0's at the head, and they leave one per cycle in lane order */
    step(d, 0, 0, 0, true, true, &o);
    cr_assert_eq(vw_get_u(&o, p->count), 2, "%s: count after a two-word cycle", d->ctx);
    cr_assert_eq(vw_get_u(&o, p->out_data), a, "%s: lane 0's word is not first", d->ctx);
    step(d, 0, 0, 0, true, true, &o);
    cr_assert(vw_get_u(&o, p->out_valid), "%s: second word missing", d->ctx);
    cr_assert_eq(vw_get_u(&o, p->out_data), b, "%s: lane 1's word is not second", d->ctx);
    step(d, 0, 0, 0, false, true, &o);
    cr_assert(vw_get_u(&o, p->empty), "%s: not empty after two pops", d->ctx);
}

Test(fifo_2w, two_words_in_one_cycle_leave_in_lane_order) { each_form_and_set(two_words_in_lane_order); }

static void room_for_one(dut_t *d)
{
    const set_t *p = d->p;
    for (unsigned pattern = 1; pattern <= 3; pattern++) {
        out_t o;
        d->ops->free(d->m);
        d->m = d->ops->create(PERIOD_PS, 1);
        d->cyc = d->ops->reset(d->m, 0, 2);
        /* GIVEN a FIFO with room for exactly one word (its head word is 1) */
        for (unsigned i = 0; i + 1 < p->depth; i++)
            step(d, 1, 1, 0, false, true, &o);
        step(d, 0, 0, 0, false, true, &o);
        cr_assert_eq(vw_get_u(&o, p->in_ready), 1, "%s: in_ready_o with room for one", d->ctx);
        /* WHEN lane 0, lane 1 or both offer a word (lane 0's is 0, lane 1's is 2, or 1 when 1 bit
         * wide: both differ from the head word only where the width allows) */
        uint64_t d0 = 0, d1 = p->width > 1 ? 2 : 1;
        step(d, pattern, d0, d1, false, true, &o);
        /* THEN exactly one word is taken: lane 0's when offered, else lane 1's */
        step(d, 0, 0, 0, false, true, &o);
        cr_assert_eq(vw_get_u(&o, p->count), p->depth, "%s pattern %u: not full", d->ctx, pattern);
        cr_assert_eq(vw_get_u(&o, p->in_ready), 0, "%s: in_ready_o when full", d->ctx);
        /* and it is the last one out */
        uint64_t last = 0;
        for (unsigned i = 0; i < p->depth; i++) {
            step(d, 0, 0, 0, true, true, &o);
            cr_assert(vw_get_u(&o, p->out_valid));
            last = vw_get_u(&o, p->out_data);
        }
        cr_assert_eq(last, (pattern & 1) ? d0 : d1, "%s pattern %u: the word taken is 0x%llx", d->ctx, pattern,
                     (unsigned long long)last);
    }
}

Test(fifo_2w, room_for_one_takes_lane_0_or_a_lone_lane_1_and_never_lane_1_alone_past_lane_0)
{
    each_form_and_set(room_for_one);
}

static void full_refuses_push_while_popping(dut_t *d)
{
    const set_t *p = d->p;
    out_t o;
    /* GIVEN a full FIFO (filled two words per cycle) */
    for (unsigned i = 0; i < (p->depth + 1) / 2; i++)
        step(d, 3, 1, 0, false, true, &o);
    step(d, 0, 0, 0, false, true, &o);
    cr_assert_eq(vw_get_u(&o, p->count), p->depth, "%s: not full after ceil(Depth/2) two-word cycles", d->ctx);
    /* WHEN the sink pops while the source offers two words */
    step(d, 3, 1, 1, true, true, &o);
    cr_assert_eq(vw_get_u(&o, p->in_ready), 0, "%s: in_ready_o follows out_ready_i when full", d->ctx);
    /* THEN both are refused and the count drops by one */
    step(d, 0, 0, 0, false, true, &o);
    cr_assert_eq(vw_get_u(&o, p->count), p->depth - 1, "%s: count after a pop at full", d->ctx);
}

Test(fifo_2w, full_fifo_refuses_push_while_popping) { each_form_and_set(full_refuses_push_while_popping); }

static void reset_empties(dut_t *d)
{
    const set_t *p = d->p;
    out_t o;
    /* GIVEN a FIFO holding words */
    step(d, 3, 1, 1, false, true, &o);
    step(d, 0, 0, 0, false, true, &o);
    cr_assert(!vw_get_u(&o, p->empty), "%s: empty_o high with words held", d->ctx);
    /* WHEN rst_ni is low for one cycle */
    step(d, 0, 0, 0, false, false, &o);
    /* THEN it is empty and has room for two (one with Depth 1) */
    step(d, 0, 0, 0, false, true, &o);
    cr_assert(vw_get_u(&o, p->empty), "%s: empty_o low after reset", d->ctx);
    cr_assert(!vw_get_u(&o, p->out_valid), "%s: out_valid_o high after reset", d->ctx);
    cr_assert_eq(vw_get_u(&o, p->count), 0, "%s: count_o after reset", d->ctx);
    cr_assert_eq(vw_get_u(&o, p->in_ready), p->depth >= 2 ? 3 : 1, "%s: in_ready_o after reset", d->ctx);
}

Test(fifo_2w, reset_empties) { each_form_and_set(reset_empties); }

/* Illegal parameters stop elaboration with the block's own message. */
static void expect_rejected(const char *top, const char *args, const char *msg)
{
    rtl_lint_result_t r;
    rtl_lint(top, args, &r);
    cr_assert(r.ran, "%s %s: %s", top, args, r.out);
    cr_assert(!r.passed, "%s %s: elaboration accepted it", top, args);
    cr_assert(strstr(r.out, msg), "%s %s: no \"%s\" in:\n%s", top, args, msg, r.out);
}

Test(fifo_2w, rejects_illegal_parameters)
{
    rtl_lint_result_t r;
    rtl_lint("fifo_2w", "-GDepth=3 -GWidth=5", &r);
    cr_assert(r.passed, "legal parameters rejected:\n%s", r.out);
    expect_rejected("fifo_2w", "-GDepth=0", "fifo_2w: Depth must be >= 1");
    expect_rejected("fifo_2w", "-GWidth=0", "fifo_2w: Width must be >= 1");
}
