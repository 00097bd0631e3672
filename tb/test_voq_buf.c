/* Tests of rtl/switch/voq_buf.sv through tb/hdl/voq_buf_tb.sv, which holds one instance per
 * parameter set, each with its words in a ram_1r1w beside it (voq_buf manages entries; the harness
 * writes a word at enq_entry_o and reads the head word at deq_entry_o, as the switch does). Random enqueues and dequeues run on every set at once and are compared cycle by
 * cycle with the reference model (tb/ref/voq_buf_ref.c); directed GIVEN / WHEN / THEN tests cover
 * the corner cases; illegal commands must trip the RTL assertions and abort the run. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/rng.h"
#include "ref/voq_buf_ref.h"
#include "sb/rtl_lint.h"
#include "sb/vw_bits.h"
#include "tb_child.h"
#include "tb_seed.h"
#include "vw_voq_buf_tb.h"

#define PERIOD_PS 1000

typedef vw_voq_buf_tb_in in_t;
typedef vw_voq_buf_tb_out out_t;

/** One instance of the harness: its parameters and where its ports are. */
typedef struct voq_set {
    const char *name;
    unsigned depth, width, nq, qw;
    vw_field_t enq_valid, enq_q, enq_data, deq_valid, deq_q;   /* in in_t */
    vw_field_t enq_ready, deq_data, nonempty, free_words, idle; /* in out_t */
    vw_field_t q_set, q_clr;                                    /* in out_t */
} voq_set_t;

#define VOQ_SET(P, D, W, Q, QW)                                                                                  \
    {                                                                                                            \
        #P, D, W, Q, QW, VW_FIELD(in_t, P##_enq_valid_i), VW_FIELD(in_t, P##_enq_q_i),                           \
            VW_FIELD(in_t, P##_enq_data_i), VW_FIELD(in_t, P##_deq_valid_i), VW_FIELD(in_t, P##_deq_q_i),        \
            VW_FIELD(out_t, P##_enq_ready_o), VW_FIELD(out_t, P##_deq_data_o), VW_FIELD(out_t, P##_q_nonempty_o), \
            VW_FIELD(out_t, P##_free_o), VW_FIELD(out_t, P##_idle_o), VW_FIELD(out_t, P##_q_set_o),              \
            VW_FIELD(out_t, P##_q_clr_o)                                                                         \
    }

/* (Depth, Width, NumQ, queue-number bits): the smallest buffer, non-powers of two, fewer entries
 * than queues, 1-bit and 70-bit words (wider than 64), and the switch's 352 queues. */
static const voq_set_t SETS[] = {
    VOQ_SET(d2w8q1, 2, 8, 1, 1),     VOQ_SET(d4w8q3, 4, 8, 3, 2),       VOQ_SET(d5w8q2, 5, 8, 2, 1),
    VOQ_SET(d3w1q4, 3, 1, 4, 2),     VOQ_SET(d16w70q11, 16, 70, 11, 4), VOQ_SET(d64w70q352, 64, 70, 352, 9),
};
#define NSETS (sizeof SETS / sizeof SETS[0])
enum { S_D2Q1, S_D4Q3, S_D5Q2, S_D3Q4, S_D16Q11, S_D64Q352 };

/* q_nonempty_o is up to 352 bits, wider than a bits_t: read it bit by bit (little-endian words). */
static bool nonempty_bit(const out_t *o, const voq_set_t *p, unsigned q)
{
    cr_assert(q / 8 < p->nonempty.size, "set=%s: queue %u beyond q_nonempty_o", p->name, q);
    return ((const uint8_t *)o)[p->nonempty.off + q / 8] >> (q % 8) & 1;
}

static bits_t bits_u(uint64_t x) { return (bits_t){{(uint32_t)x, (uint32_t)(x >> 32)}}; }

/* Compares every output of set p with the model; deq_q is the queue deq_q_i selects this cycle.
 * ctx names the run (seed, set) for the failure message. */
static void check_outputs(const voq_set_t *p, const voq_buf_ref_t *ref, const out_t *o, unsigned deq_q,
                          const char *ctx, uint64_t cyc)
{
    unsigned long long c = (unsigned long long)cyc;
    cr_assert_eq(vw_get_u(o, p->enq_ready), voq_buf_ref_enq_ready(ref), "%s cycle=%llu: enq_ready_o", ctx, c);
    cr_assert_eq(vw_get_u(o, p->free_words), voq_buf_ref_free_words(ref), "%s cycle=%llu: free_o %llu, model %u",
                 ctx, c, (unsigned long long)vw_get_u(o, p->free_words), voq_buf_ref_free_words(ref));
    cr_assert_eq(vw_get_u(o, p->idle), voq_buf_ref_idle(ref), "%s cycle=%llu: idle_o", ctx, c);
    for (unsigned q = 0; q < p->nq; q++)
        cr_assert_eq(nonempty_bit(o, p, q), voq_buf_ref_nonempty(ref, q), "%s cycle=%llu: q_nonempty_o[%u] %d, model %d",
                     ctx, c, q, nonempty_bit(o, p, q), voq_buf_ref_nonempty(ref, q));
    if (deq_q < p->nq && voq_buf_ref_nonempty(ref, deq_q)) {
        char a[BITS_MAX_W / 4 + 1], b[BITS_MAX_W / 4 + 1];
        bits_t d = vw_get(o, p->deq_data), want = voq_buf_ref_head(ref, deq_q);
        cr_assert(bits_eq(d, want), "%s cycle=%llu: deq_data_o of queue %u is 0x%s, model 0x%s", ctx, c, deq_q,
                  bits_hex(d, p->width, a), bits_hex(want, p->width, b));
    }
}

/* ------------------------------------------------------------------------------------------------
 * Random traffic against the model. */

/** Which queues the enqueues go to. */
typedef enum skew { SKEW_UNIFORM, SKEW_HOT, SKEW_TWO } skew_e;
static const char *const SKEW_NAME[] = {"uniform", "hot", "two"};

/** Per-set state of a random run. */
typedef struct lane {
    const voq_set_t *p;
    voq_buf_ref_t ref;
    rng_t rng;
    unsigned hot, second; /* the hot queue, and the other one of SKEW_TWO */
    unsigned phase_len;
    /* This cycle's commands (the queue numbers are driven also without valid). */
    bool enq, deq;
    unsigned enq_q, deq_q;
    bits_t enq_data;
    uint64_t enqs, deqs;
    /* Coverage. */
    bool was_full, full_then_empty, same_q_only_word, enq_empty_deq_other;
    char ctx[160];
} lane_t;

static void lane_init(lane_t *l, const voq_set_t *p, uint64_t seed, skew_e skew, double idle, double stall)
{
    char name[64];
    *l = (lane_t){.p = p};
    voq_buf_ref_init(&l->ref, p->depth, p->nq);
    snprintf(name, sizeof name, "voq_buf.%s", p->name);
    rng_init_named(&l->rng, seed, name);
    l->hot = (unsigned)rng_below(&l->rng, p->nq);
    l->second = (l->hot + 1 + (unsigned)rng_below(&l->rng, p->nq > 1 ? p->nq - 1 : 1)) % p->nq;
    /* Long enough for a fill phase to reach full and a drain phase to reach empty. */
    l->phase_len = 4 * p->depth + 32;
    snprintf(l->ctx, sizeof l->ctx, "seed=%llu skew=%s idle=%.2f stall=%.2f set=%s", (unsigned long long)seed,
             SKEW_NAME[skew], idle, stall, p->name);
}

static unsigned pick_enq_q(lane_t *l, skew_e skew)
{
    unsigned nq = l->p->nq;
    switch (skew) {
    case SKEW_HOT:
        return rng_chance(&l->rng, 0.9) ? l->hot : (unsigned)rng_below(&l->rng, nq);
    case SKEW_TWO:
        if (rng_chance(&l->rng, 0.95))
            return rng_chance(&l->rng, 0.5) ? l->hot : l->second;
        return (unsigned)rng_below(&l->rng, nq);
    case SKEW_UNIFORM:
    default:
        return (unsigned)rng_below(&l->rng, nq);
    }
}

/* A random nonempty queue of the model (one must exist). */
static unsigned pick_nonempty(lane_t *l)
{
    unsigned nq = l->p->nq, start = (unsigned)rng_below(&l->rng, nq);
    for (unsigned i = 0; i < nq; i++)
        if (voq_buf_ref_nonempty(&l->ref, (start + i) % nq))
            return (start + i) % nq;
    cr_assert_fail("%s: no nonempty queue to pick", l->ctx);
    return 0;
}

/* Decides this cycle's commands. Phases fill, drain and churn the buffer in turn; idle lowers the
 * enqueue rate, stall the dequeue rate. Without valid, the queue numbers and data are junk the
 * block must ignore (an enqueue queue number may be out of range); the dequeue queue number then
 * picks a queue to look at. */
static void lane_drive(lane_t *l, unsigned c, skew_e skew, double idle, double stall, bool draining)
{
    static const double enq_p[] = {0.95, 0.1, 0.6}, deq_p[] = {0.05, 0.95, 0.6};
    const voq_set_t *p = l->p;
    unsigned phase = c / l->phase_len % 3;
    l->enq = !draining && voq_buf_ref_enq_ready(&l->ref) && rng_chance(&l->rng, enq_p[phase] * (1.0 - idle));
    l->enq_q = l->enq ? pick_enq_q(l, skew) : (unsigned)rng_below(&l->rng, 1u << p->qw);
    l->enq_data = bits_random(&l->rng, p->width);
    l->deq = !voq_buf_ref_idle(&l->ref) &&
             (draining || rng_chance(&l->rng, deq_p[phase] * (1.0 - stall)));
    if (l->deq) {
        /* Often the queue being enqueued, to meet the same-queue cases (most often when it holds
         * one word: then the enqueued word becomes the head in the same cycle). */
        unsigned len = l->enq ? voq_buf_ref_len(&l->ref, l->enq_q) : 0;
        l->deq_q = len && rng_chance(&l->rng, len == 1 ? 0.5 : 0.25) ? l->enq_q : pick_nonempty(l);
    }
    else
        l->deq_q = (unsigned)rng_below(&l->rng, p->nq);
}

static void lane_put(const lane_t *l, in_t *in)
{
    const voq_set_t *p = l->p;
    vw_put_u(in, p->enq_valid, l->enq);
    vw_put_u(in, p->enq_q, l->enq_q);
    vw_put(in, p->enq_data, l->enq_data);
    vw_put_u(in, p->deq_valid, l->deq);
    vw_put_u(in, p->deq_q, l->deq_q);
}

/* Advances the model and the coverage after the cycle's checks. */
static void lane_commit(lane_t *l, uint64_t cyc)
{
    voq_buf_ref_t *r = &l->ref;
    if (l->enq && l->deq && l->enq_q == l->deq_q && voq_buf_ref_len(r, l->deq_q) == 1)
        l->same_q_only_word = true;
    if (l->enq && !voq_buf_ref_nonempty(r, l->enq_q) && l->deq && voq_buf_ref_len(r, l->deq_q) >= 2)
        l->enq_empty_deq_other = true;
    cr_assert(voq_buf_ref_tick(r, l->enq, l->enq_q, l->enq_data, l->deq, l->deq_q),
              "%s cycle=%llu: the test drove an illegal command", l->ctx, (unsigned long long)cyc);
    l->enqs += l->enq;
    l->deqs += l->deq;
    if (voq_buf_ref_free_words(r) == 0)
        l->was_full = true;
    if (l->was_full && voq_buf_ref_idle(r))
        l->full_then_empty = true;
}

/* Copies the deq_data_o fields of every set from `from` into `to`. */
static void copy_deq_data(out_t *to, const out_t *from)
{
    for (size_t s = 0; s < NSETS; s++)
        vw_put(to, SETS[s].deq_data, vw_get(from, SETS[s].deq_data));
}

/* Copies the q_set_o and q_clr_o fields (combinational from the commands) of every set. */
static void copy_changes(out_t *to, const out_t *from)
{
    for (size_t s = 0; s < NSETS; s++) {
        vw_put_u(to, SETS[s].q_set, vw_get_u(from, SETS[s].q_set));
        vw_put_u(to, SETS[s].q_clr, vw_get_u(from, SETS[s].q_clr));
    }
}

/* q_set_o and q_clr_o announce exactly the change of q_nonempty_o the cycle's commands make (the
 * model's queues before the commands). */
static void check_changes(const lane_t *l, const out_t *o, uint64_t cyc)
{
    const voq_set_t *p = l->p;
    const voq_buf_ref_t *r = &l->ref;
    bool set = l->enq, clr = l->deq && voq_buf_ref_len(r, l->deq_q) == 1 && !(l->enq && l->enq_q == l->deq_q);
    cr_assert_eq(vw_get_u(o, p->q_set), set, "%s cycle=%llu: q_set_o %llu, want %d", l->ctx, (unsigned long long)cyc,
                 (unsigned long long)vw_get_u(o, p->q_set), set);
    cr_assert_eq(vw_get_u(o, p->q_clr), clr, "%s cycle=%llu: q_clr_o %llu, want %d", l->ctx, (unsigned long long)cyc,
                 (unsigned long long)vw_get_u(o, p->q_clr), clr);
}

/* Runs every set for `cycles` cycles of random commands (with a reset in the middle when
 * reset_at != 0), then dequeues until every set is empty. Each cycle: every output against the
 * model, and the documented timing: no output but q_set_o and q_clr_o depends on enq_*_i or
 * deq_valid_i in the same cycle, only those and deq_data_o depend on deq_q_i, and q_set_o and
 * q_clr_o announce exactly the cycle's change of q_nonempty_o. */
static void run_random(uint64_t seed, skew_e skew, double idle, double stall, unsigned cycles, unsigned reset_at)
{
    char note[128];
    snprintf(note, sizeof note, "voq_buf run: seed=%llu skew=%s idle=%.2f stall=%.2f", (unsigned long long)seed,
             SKEW_NAME[skew], idle, stall);
    cleanup_set_note(note); /* printed if an RTL assertion aborts the run */
    vw_voq_buf_tb *m = vw_voq_buf_tb_create(PERIOD_PS, seed);
    lane_t lanes[NSETS];
    rng_t perturb;
    rng_init_named(&perturb, seed, "voq_buf.perturb");
    for (size_t s = 0; s < NSETS; s++)
        lane_init(&lanes[s], &SETS[s], seed, skew, idle, stall);
    uint64_t cyc = vw_voq_buf_tb_reset(m, 0, 2);
    const unsigned drain_max = 64 + 8;

    for (unsigned c = 0;; c++, cyc++) {
        bool draining = c >= cycles, all_idle = true;
        if (c == reset_at && reset_at) {
            cyc = vw_voq_buf_tb_reset(m, cyc, 1);
            for (size_t s = 0; s < NSETS; s++)
                voq_buf_ref_reset(&lanes[s].ref);
        }
        for (size_t s = 0; s < NSETS; s++)
            all_idle &= voq_buf_ref_idle(&lanes[s].ref);
        if (draining && all_idle)
            break;
        cr_assert_lt(c, cycles + drain_max, "seed=%llu: not drained after %u cycles", (unsigned long long)seed,
                     drain_max);

        in_t in, in_p;
        out_t out, out_p;
        memset(&in, 0, sizeof in);
        in.rst_ni = 1;
        for (size_t s = 0; s < NSETS; s++) {
            lane_drive(&lanes[s], c, skew, idle, stall, draining);
            lane_put(&lanes[s], &in);
        }
        /* Other enqueue and dequeue commands, same outputs; then other queue numbers to look at too:
         * only deq_data_o may change. */
        memcpy(&in_p, &in, sizeof in);
        for (size_t s = 0; s < NSETS; s++) {
            const voq_set_t *p = lanes[s].p;
            vw_put_u(&in_p, p->enq_valid, !lanes[s].enq);
            vw_put_u(&in_p, p->enq_q, rng_below(&perturb, 1u << p->qw));
            vw_put(&in_p, p->enq_data, bits_random(&perturb, p->width));
            vw_put_u(&in_p, p->deq_valid, !lanes[s].deq);
        }
        memset(&out, 0, sizeof out);
        memset(&out_p, 0, sizeof out_p);
        vw_voq_buf_tb_set(m, &in_p);
        vw_voq_buf_tb_get(m, &out_p);
        vw_voq_buf_tb_set(m, &in);
        vw_voq_buf_tb_get(m, &out);
        copy_changes(&out_p, &out);
        cr_assert(memcmp(&out, &out_p, sizeof out) == 0,
                  "seed=%llu cycle=%llu: an output changed with enq_*_i or deq_valid_i in the same cycle",
                  (unsigned long long)seed, (unsigned long long)cyc);
        for (size_t s = 0; s < NSETS; s++)
            vw_put_u(&in_p, lanes[s].p->deq_q, rng_below(&perturb, 1u << lanes[s].p->qw));
        vw_voq_buf_tb_set(m, &in_p);
        vw_voq_buf_tb_get(m, &out_p);
        copy_deq_data(&out_p, &out);
        copy_changes(&out_p, &out);
        cr_assert(memcmp(&out, &out_p, sizeof out) == 0,
                  "seed=%llu cycle=%llu: an output other than deq_data_o changed with deq_q_i in the same cycle",
                  (unsigned long long)seed, (unsigned long long)cyc);
        vw_voq_buf_tb_set(m, &in);

        for (size_t s = 0; s < NSETS; s++) {
            check_outputs(lanes[s].p, &lanes[s].ref, &out, lanes[s].deq_q, lanes[s].ctx, cyc);
            check_changes(&lanes[s], &out, cyc);
            lane_commit(&lanes[s], cyc);
        }
        vw_voq_buf_tb_tick(m, cyc);
    }

    out_t out;
    vw_voq_buf_tb_get(m, &out);
    for (size_t s = 0; s < NSETS; s++) {
        lane_t *l = &lanes[s];
        const voq_set_t *p = l->p;
        check_outputs(p, &l->ref, &out, 0, l->ctx, cyc);
        cr_assert(vw_get_u(&out, p->idle), "%s: idle_o low after the drain", l->ctx);
        /* Coverage: both ends of the range and the same-cycle cases were met. */
        cr_assert(l->was_full && l->full_then_empty, "%s: never %s", l->ctx,
                  l->was_full ? "drained to empty after full" : "full");
        cr_assert(l->same_q_only_word, "%s: never enqueued and dequeued one queue's only word in one cycle",
                  l->ctx);
        if (p->nq > 1)
            cr_assert(l->enq_empty_deq_other,
                      "%s: never enqueued into an empty queue while dequeuing a longer one", l->ctx);
        cr_assert_gt(l->deqs, cycles / 10, "%s: only %llu dequeues in %u cycles", l->ctx,
                     (unsigned long long)l->deqs, cycles);
        voq_buf_ref_free(&l->ref);
    }
    vw_voq_buf_tb_free(m);
}

/* Enqueue skew x enqueue idle x dequeue stall, every parameter set in each run. */
#define SKEW_uniform SKEW_UNIFORM
#define SKEW_hot SKEW_HOT
#define SKEW_two SKEW_TWO
#define RANDOM_TEST(SKEW, IDLE, STALL)                                                                           \
    Test(voq_buf, matches_model_##SKEW##_idle_##IDLE##_stall_##STALL)                                            \
    {                                                                                                            \
        run_random(tb_seed(1), SKEW_##SKEW, IDLE / 100.0, STALL / 100.0, 30000, 0);                              \
    }
RANDOM_TEST(uniform, 0, 0)
RANDOM_TEST(uniform, 0, 50)
RANDOM_TEST(uniform, 50, 0)
RANDOM_TEST(uniform, 50, 50)
RANDOM_TEST(hot, 0, 0)
RANDOM_TEST(hot, 0, 50)
RANDOM_TEST(hot, 50, 0)
RANDOM_TEST(hot, 50, 50)
RANDOM_TEST(two, 0, 0)
RANDOM_TEST(two, 0, 50)
RANDOM_TEST(two, 50, 0)
RANDOM_TEST(two, 50, 50)

Test(voq_buf, matches_model_across_a_reset_in_mid_traffic)
{
    /* The reset lands with words in the queues; the model empties too, and traffic resumes. */
    run_random(tb_seed(1), SKEW_UNIFORM, 0.0, 0.0, 30000, 12345);
}

/* ------------------------------------------------------------------------------------------------
 * Directed tests: one set driven at a time, the others idle. */

/** One cycle's commands for one set. */
typedef struct cmd {
    bool enq;
    unsigned enq_q;
    uint64_t data;
    bool deq;
    unsigned deq_q;
} cmd_t;

/** A set under directed test: the model, the harness and where it is in time. */
typedef struct dut {
    const voq_set_t *p;
    vw_voq_buf_tb *m;
    voq_buf_ref_t ref;
    uint64_t cyc;
    char ctx[64];
} dut_t;

static void dut_init(dut_t *d, size_t s)
{
    d->p = &SETS[s];
    d->m = vw_voq_buf_tb_create(PERIOD_PS, tb_seed(1));
    voq_buf_ref_init(&d->ref, d->p->depth, d->p->nq);
    d->cyc = vw_voq_buf_tb_reset(d->m, 0, 2);
    snprintf(d->ctx, sizeof d->ctx, "set=%s seed=%llu", d->p->name, (unsigned long long)tb_seed(1));
}

static void dut_free(dut_t *d)
{
    voq_buf_ref_free(&d->ref);
    vw_voq_buf_tb_free(d->m);
}

/* Outputs with these commands applied (before the clock edge). */
static out_t dut_peek(dut_t *d, cmd_t c)
{
    const voq_set_t *p = d->p;
    in_t in;
    out_t o;
    memset(&in, 0, sizeof in);
    in.rst_ni = 1;
    vw_put_u(&in, p->enq_valid, c.enq);
    vw_put_u(&in, p->enq_q, c.enq_q);
    vw_put(&in, p->enq_data, bits_u(c.data));
    vw_put_u(&in, p->deq_valid, c.deq);
    vw_put_u(&in, p->deq_q, c.deq_q);
    vw_voq_buf_tb_set(d->m, &in);
    memset(&o, 0, sizeof o);
    vw_voq_buf_tb_get(d->m, &o);
    return o;
}

/* One cycle: checks every output against the model, then the clock edge. Returns the outputs seen
 * before the edge. */
static out_t dut_step(dut_t *d, cmd_t c)
{
    out_t o = dut_peek(d, c);
    check_outputs(d->p, &d->ref, &o, c.deq_q, d->ctx, d->cyc);
    cr_assert(voq_buf_ref_tick(&d->ref, c.enq, c.enq_q, bits_u(c.data), c.deq, c.deq_q),
              "%s cycle=%llu: the test drove an illegal command", d->ctx, (unsigned long long)d->cyc);
    vw_voq_buf_tb_tick(d->m, d->cyc++);
    return o;
}

static cmd_t enq_cmd(unsigned q, uint64_t data) { return (cmd_t){.enq = true, .enq_q = q, .data = data}; }
static cmd_t deq_cmd(unsigned q) { return (cmd_t){.deq = true, .deq_q = q}; }
static cmd_t look(unsigned q) { return (cmd_t){.deq_q = q}; }
static cmd_t both(unsigned eq, uint64_t data, unsigned dq)
{
    return (cmd_t){.enq = true, .enq_q = eq, .data = data, .deq = true, .deq_q = dq};
}

/* Data that fits the set's width. */
static uint64_t word(const dut_t *d, uint64_t x) { return d->p->width >= 64 ? x : x & ((1ull << d->p->width) - 1); }

/* Outputs of a set looking at queue q, without commands. */
static out_t looking_at(dut_t *d, unsigned q) { return dut_peek(d, look(q)); }

static uint64_t head_of(dut_t *d, unsigned q)
{
    out_t o = looking_at(d, q);
    return vw_get_u(&o, d->p->deq_data);
}

static unsigned free_of(dut_t *d)
{
    out_t o = looking_at(d, 0);
    return (unsigned)vw_get_u(&o, d->p->free_words);
}

static bool nonempty_of(dut_t *d, unsigned q)
{
    out_t o = looking_at(d, 0);
    return nonempty_bit(&o, d->p, q);
}

/* Dequeues every word, queue by queue, each against the model (order and data). */
static void dut_drain(dut_t *d)
{
    for (unsigned q = 0; q < d->p->nq; q++)
        while (voq_buf_ref_nonempty(&d->ref, q))
            dut_step(d, deq_cmd(q));
    out_t o = dut_step(d, look(0));
    cr_assert(vw_get_u(&o, d->p->idle), "%s: idle_o low after draining every queue", d->ctx);
}

Test(voq_buf, head_is_readable_before_the_pop_and_an_enqueue_shows_next_cycle)
{
    for (size_t s = 0; s < NSETS; s++) {
        dut_t d;
        dut_init(&d, s);
        unsigned q = d.p->nq - 1;
        uint64_t a = word(&d, 0xa5a5a5a5a5a5a5a5ull);
        /* GIVEN an empty buffer WHEN a word is enqueued into the last queue */
        out_t o = dut_step(&d, enq_cmd(q, a));
        /* THEN in that cycle nothing shows yet (the outputs are registered) */
        cr_assert(!nonempty_bit(&o, d.p, q), "%s: q_nonempty_o high in the enqueue's own cycle", d.ctx);
        cr_assert_eq(vw_get_u(&o, d.p->free_words), d.p->depth, "%s: free_o moved in the enqueue's own cycle", d.ctx);
        /* THEN from the next cycle the queue shows it as its head, without a dequeue */
        for (unsigned i = 0; i < 3; i++) {
            o = dut_step(&d, look(q));
            cr_assert(nonempty_bit(&o, d.p, q), "%s: q_nonempty_o low after the enqueue", d.ctx);
            cr_assert_eq(vw_get_u(&o, d.p->deq_data), a, "%s: head not on deq_data_o", d.ctx);
            cr_assert(!vw_get_u(&o, d.p->idle), "%s: idle_o high with a word held", d.ctx);
        }
        /* WHEN it is dequeued THEN the word is on deq_data_o in the same cycle, and then it is gone */
        o = dut_step(&d, deq_cmd(q));
        cr_assert_eq(vw_get_u(&o, d.p->deq_data), a, "%s: deq_data_o in the dequeue's cycle", d.ctx);
        o = dut_step(&d, look(q));
        cr_assert(!nonempty_bit(&o, d.p, q) && vw_get_u(&o, d.p->idle), "%s: not empty after the dequeue", d.ctx);
        dut_free(&d);
    }
}

Test(voq_buf, same_cycle_enqueue_and_dequeue_of_a_queues_only_word)
{
    for (size_t s = 0; s < NSETS; s++) {
        dut_t d;
        dut_init(&d, s);
        unsigned q = (unsigned)(s % d.p->nq);
        /* GIVEN a queue holding one word */
        dut_step(&d, enq_cmd(q, word(&d, 100)));
        /* WHEN, over and over (more times than there are entries), a word is enqueued into it while
         * its only word is dequeued */
        for (unsigned i = 0; i < 3 * d.p->depth; i++) {
            out_t o = dut_step(&d, both(q, word(&d, 101 + i), q));
            /* THEN the dequeue takes the old word and the new one becomes the head */
            cr_assert_eq(vw_get_u(&o, d.p->deq_data), word(&d, 100 + i), "%s i=%u: dequeued the wrong word", d.ctx, i);
            cr_assert_eq(head_of(&d, q), word(&d, 101 + i), "%s i=%u: the new word is not the head", d.ctx, i);
            cr_assert_eq(free_of(&d), d.p->depth - 1, "%s i=%u: free_o", d.ctx, i);
            cr_assert(nonempty_of(&d, q), "%s i=%u: the queue went empty", d.ctx, i);
        }
        /* THEN one word is left, and the queue then works as usual */
        dut_step(&d, enq_cmd(q, word(&d, 7)));
        dut_drain(&d);
        dut_free(&d);
    }
}

Test(voq_buf, enqueue_into_an_empty_queue_while_dequeuing_another)
{
    /* A cycle that changes the heads of two queues (the two head banks). */
    for (size_t s = 0; s < NSETS; s++) {
        if (SETS[s].nq < 2 || SETS[s].depth < 3)
            continue;
        dut_t d;
        dut_init(&d, s);
        unsigned a = 0, b = d.p->nq - 1;
        /* GIVEN queue a holds two words, queue b none */
        dut_step(&d, enq_cmd(a, 1));
        dut_step(&d, enq_cmd(a, 0));
        /* WHEN a word goes into b while a is dequeued THEN a's head advances and b's is the new word */
        dut_step(&d, both(b, 1, a));
        cr_assert_eq(head_of(&d, a), 0, "%s: head of queue %u after the dequeue", d.ctx, a);
        cr_assert_eq(head_of(&d, b), 1, "%s: head of queue %u after the enqueue", d.ctx, b);
        /* WHEN b grows while a's last word leaves, then a refills while b is dequeued */
        dut_step(&d, both(b, 0, a));
        cr_assert(!nonempty_of(&d, a), "%s: queue %u not empty", d.ctx, a);
        dut_step(&d, both(a, 1, b));
        /* THEN each queue holds what the model says, in order */
        cr_assert_eq(head_of(&d, a), 1, "%s: head of queue %u after the refill", d.ctx, a);
        cr_assert_eq(head_of(&d, b), 0, "%s: head of queue %u after its dequeue", d.ctx, b);
        /* WHEN the queues swap roles many times THEN every step matches the model */
        for (unsigned i = 0; i < 4 * d.p->depth; i++) {
            unsigned from = i % 2 ? a : b, to = i % 2 ? b : a;
            if (voq_buf_ref_nonempty(&d.ref, from))
                dut_step(&d, voq_buf_ref_enq_ready(&d.ref) ? both(to, word(&d, i), from) : deq_cmd(from));
            else
                dut_step(&d, enq_cmd(to, word(&d, i)));
        }
        dut_drain(&d);
        dut_free(&d);
    }
}

Test(voq_buf, fill_to_full_then_drain_to_empty)
{
    for (size_t s = 0; s < NSETS; s++) {
        dut_t d;
        dut_init(&d, s);
        /* GIVEN an empty buffer WHEN Depth words go into the queues in turn
         * THEN enq_ready_o stays high until the last one, and free_o counts down */
        for (unsigned i = 0; i < d.p->depth; i++) {
            out_t o = dut_step(&d, enq_cmd(i % d.p->nq, word(&d, 0x1000 + i)));
            cr_assert(vw_get_u(&o, d.p->enq_ready), "%s i=%u: enq_ready_o low with a free entry", d.ctx, i);
        }
        out_t o = dut_step(&d, look(0));
        cr_assert(!vw_get_u(&o, d.p->enq_ready) && vw_get_u(&o, d.p->free_words) == 0, "%s: not full after Depth words",
                  d.ctx);
        /* WHEN full and a word is dequeued THEN enq_ready_o rises only the next cycle */
        o = dut_step(&d, deq_cmd(0));
        cr_assert(!vw_get_u(&o, d.p->enq_ready), "%s: enq_ready_o follows deq_valid_i when full", d.ctx);
        o = dut_step(&d, look(0));
        cr_assert(vw_get_u(&o, d.p->enq_ready), "%s: enq_ready_o low after a dequeue at full", d.ctx);
        /* WHEN it is refilled into the last queue, then everything is dequeued queue by queue
         * THEN every word comes out of its own queue in order (dut_drain checks against the model) */
        dut_step(&d, enq_cmd(d.p->nq - 1, word(&d, 0x2000)));
        cr_assert_eq(free_of(&d), 0, "%s: not full after the refill", d.ctx);
        dut_drain(&d);
        cr_assert_eq(free_of(&d), d.p->depth, "%s: free_o after the drain", d.ctx);
        dut_free(&d);
    }
}

Test(voq_buf, reset_empties_every_queue)
{
    for (size_t s = 0; s < NSETS; s++) {
        dut_t d;
        dut_init(&d, s);
        /* GIVEN a full buffer, words spread over the queues */
        for (unsigned i = 0; i < d.p->depth; i++)
            dut_step(&d, enq_cmd((i * 7) % d.p->nq, word(&d, i + 1)));
        cr_assert_eq(free_of(&d), 0, "%s: not full", d.ctx);
        /* WHEN rst_ni is low for one cycle */
        d.cyc = vw_voq_buf_tb_reset(d.m, d.cyc, 1);
        voq_buf_ref_reset(&d.ref);
        /* THEN every queue is empty, every entry free, and the buffer ready */
        out_t o = dut_step(&d, look(0));
        cr_assert(vw_get_u(&o, d.p->idle), "%s: idle_o low after reset", d.ctx);
        cr_assert_eq(vw_get_u(&o, d.p->free_words), d.p->depth, "%s: free_o after reset", d.ctx);
        cr_assert(vw_get_u(&o, d.p->enq_ready), "%s: enq_ready_o low after reset", d.ctx);
        for (unsigned q = 0; q < d.p->nq; q++)
            cr_assert(!nonempty_bit(&o, d.p, q), "%s: queue %u nonempty after reset", d.ctx, q);
        /* THEN it fills and drains again as new */
        for (unsigned i = 0; i < d.p->depth; i++)
            dut_step(&d, enq_cmd((i * 3) % d.p->nq, word(&d, 0x40 + i)));
        dut_drain(&d);
        dut_free(&d);
    }
}

Test(voq_buf, nothing_changes_without_commands)
{
    rng_t r;
    uint64_t seed = tb_seed(1);
    rng_init_named(&r, seed, "voq_buf.junk");
    for (size_t s = 0; s < NSETS; s++) {
        dut_t d;
        dut_init(&d, s);
        /* GIVEN an empty buffer, then one holding words */
        for (unsigned round = 0; round < 2; round++) {
            if (round == 1)
                for (unsigned i = 0; i + 1 < d.p->depth; i++)
                    dut_step(&d, enq_cmd(i % d.p->nq, word(&d, 0x77 + i)));
            /* WHEN only junk queue numbers and data are driven, without valid, for a while
             * THEN every output stays what the model says (dut_step checks each cycle) */
            for (unsigned i = 0; i < 50; i++) {
                cmd_t c = {.enq_q = (unsigned)rng_below(&r, 1u << d.p->qw), .data = rng_next(&r),
                           .deq_q = (unsigned)rng_below(&r, d.p->nq)};
                c.data = word(&d, c.data);
                out_t o = dut_step(&d, c);
                cr_assert_eq(vw_get_u(&o, d.p->idle), round == 0, "%s seed=%llu: idle_o", d.ctx, (unsigned long long)seed);
            }
        }
        dut_drain(&d);
        dut_free(&d);
    }
}

/* ------------------------------------------------------------------------------------------------
 * Assertions: illegal commands abort the run, naming the assertion. */

/* On set s after reset, enqueues `fill` words into queue fill_q, then gives cmd for one cycle (run in
 * a child: it may abort). */
typedef struct child_args {
    size_t s;
    unsigned fill, fill_q;
    cmd_t cmd;
} child_args_t;

static void child_body(void *arg)
{
    const child_args_t *a = arg;
    const voq_set_t *p = &SETS[a->s];
    vw_voq_buf_tb *m = vw_voq_buf_tb_create(PERIOD_PS, 1);
    uint64_t cyc = vw_voq_buf_tb_reset(m, 0, 2);
    in_t in;
    for (unsigned i = 0; i <= a->fill; i++) {
        cmd_t c = i < a->fill ? enq_cmd(a->fill_q, i) : a->cmd;
        memset(&in, 0, sizeof in);
        in.rst_ni = 1;
        vw_put_u(&in, p->enq_valid, c.enq);
        vw_put_u(&in, p->enq_q, c.enq_q);
        vw_put_u(&in, p->enq_data, c.data);
        vw_put_u(&in, p->deq_valid, c.deq);
        vw_put_u(&in, p->deq_q, c.deq_q);
        vw_voq_buf_tb_set(m, &in);
        vw_voq_buf_tb_tick(m, cyc++);
    }
}

/* Runs child_body in a child process; returns how it ended and what it printed. */
static void run_child(size_t s, unsigned fill, unsigned fill_q, cmd_t cmd, int *status, char *out, size_t out_len)
{
    child_args_t a = {s, fill, fill_q, cmd};
    tb_run_child(child_body, &a, status, out, out_len);
}

static void expect_abort(size_t s, unsigned fill, unsigned fill_q, cmd_t cmd, const char *assertion)
{
    int st;
    char out[4096];
    run_child(s, fill, fill_q, cmd, &st, out, sizeof out);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "set=%s fill=%u: run did not abort (expected %s):\n%s",
              SETS[s].name, fill, assertion, out);
    cr_assert(strstr(out, assertion), "set=%s fill=%u: aborted, but not by %s:\n%s", SETS[s].name, fill, assertion,
              out);
}

static void expect_no_abort(size_t s, unsigned fill, unsigned fill_q, cmd_t cmd)
{
    int st;
    char out[4096];
    run_child(s, fill, fill_q, cmd, &st, out, sizeof out);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "set=%s fill=%u: legal commands failed:\n%s", SETS[s].name, fill,
              out);
}

Test(voq_buf, dequeue_of_an_empty_queue_trips_assertion)
{
    /* GIVEN an empty buffer WHEN queue 0 is dequeued THEN deq_not_empty aborts */
    expect_abort(S_D2Q1, 0, 0, deq_cmd(0), "deq_not_empty");
    /* GIVEN queue 1 holds a word WHEN queue 0 (or queue 351) is dequeued THEN deq_not_empty aborts */
    expect_abort(S_D4Q3, 1, 1, deq_cmd(0), "deq_not_empty");
    expect_abort(S_D64Q352, 1, 1, deq_cmd(351), "deq_not_empty");
    /* WHEN an empty queue is dequeued while a word is enqueued into it THEN it still aborts (no bypass) */
    expect_abort(S_D4Q3, 1, 1, both(2, 5, 2), "deq_not_empty");
    /* WHEN the queue holding the word is dequeued THEN all is well (control) */
    expect_no_abort(S_D4Q3, 1, 1, deq_cmd(1));
    expect_no_abort(S_D64Q352, 1, 351, deq_cmd(351));
}

Test(voq_buf, enqueue_when_full_trips_assertion)
{
    /* GIVEN a full buffer WHEN a word is enqueued THEN enq_not_full aborts */
    expect_abort(S_D2Q1, 2, 0, enq_cmd(0, 1), "enq_not_full");
    expect_abort(S_D5Q2, 5, 1, enq_cmd(0, 1), "enq_not_full");
    /* WHEN a word is enqueued while one is dequeued THEN it still aborts (enq_ready_o is registered) */
    expect_abort(S_D16Q11, 16, 3, both(3, 1, 3), "enq_not_full");
    /* GIVEN one free entry WHEN a word is enqueued THEN all is well (control) */
    expect_no_abort(S_D2Q1, 1, 0, enq_cmd(0, 1));
    expect_no_abort(S_D16Q11, 15, 3, both(3, 1, 3));
}

Test(voq_buf, queue_number_out_of_range_trips_assertion)
{
    /* GIVEN 3 queues (numbers 0..2 on 2 bits) WHEN queue 3 is named by a command THEN it aborts */
    expect_abort(S_D4Q3, 0, 0, enq_cmd(3, 1), "enq_q_in_range");
    expect_abort(S_D4Q3, 1, 0, deq_cmd(3), "deq_q_in_range");
    expect_abort(S_D64Q352, 0, 0, enq_cmd(352, 1), "enq_q_in_range");
    /* WHEN queue 3 is named without valid THEN all is well (control) */
    expect_no_abort(S_D4Q3, 1, 0, (cmd_t){.enq_q = 3, .deq_q = 3});
}

/* ------------------------------------------------------------------------------------------------
 * Illegal parameters stop elaboration with the block's own message. */

Test(voq_buf, rejects_illegal_parameters)
{
    static const struct {
        const char *args, *msg;
    } cases[] = {
        {"-GDepth=1", "voq_buf: Depth must be >= 2"},
        {"-GDepth=0", "voq_buf: Depth must be >= 2"},
        {"-GNumQ=0", "voq_buf: NumQ must be >= 1"},
    };
    rtl_lint_result_t r;
    rtl_lint("voq_buf", "-GDepth=5 -GNumQ=7", &r);
    cr_assert(r.passed, "legal parameters rejected:\n%s", r.out);
    rtl_lint("voq_buf", "-GDepth=2 -GNumQ=1", &r);
    cr_assert(r.passed, "smallest legal parameters rejected:\n%s", r.out);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rtl_lint("voq_buf", cases[i].args, &r);
        cr_assert(r.ran && !r.passed, "%s accepted:\n%s", cases[i].args, r.out);
        cr_assert(strstr(r.out, cases[i].msg), "%s: no \"%s\" in:\n%s", cases[i].args, cases[i].msg, r.out);
    }
}
