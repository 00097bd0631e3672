/* Tests of rtl/common/rr_arb.sv through tb/hdl/rr_arb_tb.sv, which holds one instance per
 * parameter set (N = 1, 2, 3, 5, 16, 64). Grants are compared cycle by cycle with the reference
 * model (tb/ref/rr_arb_ref.c); fairness is measured independently of the model. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/rng.h"
#include "ref/rr_arb_ref.h"
#include "sb/rtl_lint.h"
#include "sb/vw_bits.h"
#include "tb_seed.h"
#include "vw_rr_arb_tb.h"

#define PERIOD_PS 1000

typedef vw_rr_arb_tb_in in_t;
typedef vw_rr_arb_tb_out out_t;

/** One instance of the harness: its parameters and where its ports are. */
typedef struct arb_set {
    const char *name;
    unsigned n;
    vw_field_t req, ack;                 /* in in_t */
    vw_field_t gnt, gnt_idx, gnt_valid; /* in out_t */
} arb_set_t;

#define ARB_SET(P, N)                                                                                    \
    {                                                                                                    \
        #P, N, VW_FIELD(in_t, P##_req_i), VW_FIELD(in_t, P##_ack_i), VW_FIELD(out_t, P##_gnt_o),         \
            VW_FIELD(out_t, P##_gnt_idx_o), VW_FIELD(out_t, P##_gnt_valid_o)                             \
    }

static const arb_set_t SETS[] = {ARB_SET(n1, 1),   ARB_SET(n2, 2),   ARB_SET(n3, 3),
                                 ARB_SET(n5, 5),   ARB_SET(n16, 16), ARB_SET(n64, 64)};
#define NSETS (sizeof SETS / sizeof SETS[0])

/** How the requesters behave. */
typedef enum req_mode {
    REQ_RANDOM, /* every request bit drawn afresh each cycle */
    REQ_HOLD,   /* a requester raises at random and holds until its grant is accepted */
} req_mode_e;

/** Per-set state of a run. */
typedef struct lane {
    const arb_set_t *p;
    rr_arb_ref_t ref;
    rng_t rng;
    uint64_t req;
    unsigned wait[64];  /* accepted grants to others since this requester last rose or was served */
    unsigned max_wait;
    uint64_t grants;
    char ctx[128];
} lane_t;

/* Runs every set for `cycles` cycles. density: probability of a request bit being set (RANDOM) or
 * of an idle requester raising its request (HOLD); ack: probability of accepting the grant. */
static void run(uint64_t seed, req_mode_e mode, double density, double ack_p, unsigned cycles, unsigned *max_wait)
{
    char note[128];
    snprintf(note, sizeof note, "rr_arb run: seed=%llu mode=%d density=%.2f ack=%.2f", (unsigned long long)seed,
             (int)mode, density, ack_p);
    cleanup_set_note(note); /* printed if an RTL assertion aborts the run */
    vw_rr_arb_tb *m = vw_rr_arb_tb_create(PERIOD_PS, seed);
    lane_t lanes[NSETS];
    for (size_t s = 0; s < NSETS; s++) {
        lane_t *l = &lanes[s];
        char name[64];
        memset(l, 0, sizeof *l);
        l->p = &SETS[s];
        rr_arb_ref_init(&l->ref, l->p->n);
        snprintf(name, sizeof name, "rr_arb.%s", l->p->name);
        rng_init_named(&l->rng, seed, name);
        snprintf(l->ctx, sizeof l->ctx, "seed=%llu mode=%s density=%.2f ack=%.2f set=%s", (unsigned long long)seed,
                 mode == REQ_HOLD ? "hold" : "random", density, ack_p, l->p->name);
    }
    uint64_t cyc = vw_rr_arb_tb_reset(m, 0, 2);

    for (unsigned c = 0; c < cycles; c++, cyc++) {
        in_t in;
        out_t out;
        bool ack[NSETS];
        memset(&in, 0, sizeof in);
        in.rst_ni = 1;
        for (size_t s = 0; s < NSETS; s++) {
            lane_t *l = &lanes[s];
            uint64_t fresh = 0;
            for (unsigned i = 0; i < l->p->n; i++)
                fresh |= (uint64_t)rng_chance(&l->rng, density) << i;
            l->req = mode == REQ_HOLD ? l->req | fresh : fresh;
            /* ack is drawn whether or not there is a grant: the arbiter must ignore it then. */
            ack[s] = rng_chance(&l->rng, ack_p);
            vw_put_u(&in, l->p->req, l->req);
            vw_put_u(&in, l->p->ack, ack[s]);
        }
        vw_rr_arb_tb_set(m, &in);
        vw_rr_arb_tb_get(m, &out);
        for (size_t s = 0; s < NSETS; s++) {
            lane_t *l = &lanes[s];
            unsigned want;
            bool valid = rr_arb_ref_grant(&l->ref, l->req, &want);
            uint64_t gnt = vw_get_u(&out, l->p->gnt);
            cr_assert_eq(vw_get_u(&out, l->p->gnt_valid), valid, "%s cycle=%llu req=0x%llx: gnt_valid_o", l->ctx,
                         (unsigned long long)cyc, (unsigned long long)l->req);
            cr_assert_eq(gnt, valid ? 1ull << want : 0, "%s cycle=%llu req=0x%llx: gnt_o 0x%llx, model 0x%llx",
                         l->ctx, (unsigned long long)cyc, (unsigned long long)l->req, (unsigned long long)gnt,
                         valid ? 1ull << want : 0ull);
            if (valid)
                cr_assert_eq(vw_get_u(&out, l->p->gnt_idx), want, "%s cycle=%llu req=0x%llx: gnt_idx_o %llu, model %u",
                             l->ctx, (unsigned long long)cyc, (unsigned long long)l->req,
                             (unsigned long long)vw_get_u(&out, l->p->gnt_idx), want);
            /* Fairness, from the DUT's own grants: a requester that keeps requesting sees at most
             * N - 1 accepted grants go to others before its own. */
            bool accepted = valid && ack[s];
            for (unsigned i = 0; i < l->p->n; i++) {
                if (!(l->req >> i & 1) || (accepted && (gnt >> i & 1))) {
                    l->wait[i] = 0;
                } else if (accepted) {
                    l->wait[i]++;
                    if (l->wait[i] > l->max_wait)
                        l->max_wait = l->wait[i];
                    cr_assert_lt(l->wait[i], l->p->n, "%s cycle=%llu: requester %u passed over %u times", l->ctx,
                                 (unsigned long long)cyc, i, l->wait[i]);
                }
            }
            rr_arb_ref_tick(&l->ref, l->req, ack[s]);
            if (accepted) {
                l->grants++;
                if (mode == REQ_HOLD)
                    l->req &= ~gnt; /* served: this requester may raise again from next cycle */
            }
        }
        vw_rr_arb_tb_tick(m, cyc);
    }
    for (size_t s = 0; s < NSETS; s++) {
        cr_assert_gt(lanes[s].grants, cycles / 50, "%s: only %llu accepted grants", lanes[s].ctx,
                     (unsigned long long)lanes[s].grants);
        if (max_wait)
            max_wait[s] = lanes[s].max_wait;
    }
    vw_rr_arb_tb_free(m);
}

#define RR_TEST(MODE, MNAME, DENS, ACK)                                                            \
    Test(rr_arb, matches_model_##MNAME##_req_##DENS##_ack_##ACK)                                   \
    {                                                                                              \
        run(tb_seed(1), MODE, DENS / 100.0, ACK / 100.0, 10000, NULL);                              \
    }
RR_TEST(REQ_RANDOM, random, 10, 50)
RR_TEST(REQ_RANDOM, random, 50, 30)
RR_TEST(REQ_RANDOM, random, 90, 100)
RR_TEST(REQ_HOLD, hold, 5, 100)
RR_TEST(REQ_HOLD, hold, 30, 30)
RR_TEST(REQ_HOLD, hold, 90, 70)

Test(rr_arb, fairness_bound_is_reached_and_never_exceeded)
{
    /* GIVEN every requester requesting all the time and every grant accepted
     * THEN each requester waits exactly N - 1 grants between its own (the bound is tight). */
    unsigned max_wait[NSETS];
    uint64_t seed = tb_seed(1);
    run(seed, REQ_HOLD, 1.0, 1.0, 400, max_wait);
    for (size_t s = 0; s < NSETS; s++)
        cr_assert_eq(max_wait[s], SETS[s].n - 1, "seed=%llu set=%s: longest wait %u, expected %u",
                     (unsigned long long)seed, SETS[s].name, max_wait[s], SETS[s].n - 1);
}

Test(rr_arb, requester_keeps_its_turn_until_acknowledged)
{
    const arb_set_t *p = &SETS[3]; /* n5 */
    vw_rr_arb_tb *m = vw_rr_arb_tb_create(PERIOD_PS, 1);
    uint64_t cyc = vw_rr_arb_tb_reset(m, 0, 2);
    in_t in;
    out_t out;
    memset(&in, 0, sizeof in);
    in.rst_ni = 1;
    /* GIVEN requesters 1 and 3 requesting, pointer at 0 */
    vw_put_u(&in, p->req, 0x0a);
    for (int i = 0; i < 5; i++) {
        /* WHEN the grant is not acknowledged THEN it stays with requester 1 */
        vw_rr_arb_tb_set(m, &in);
        vw_rr_arb_tb_get(m, &out);
        cr_assert_eq(vw_get_u(&out, p->gnt_idx), 1, "cycle %d: grant left requester 1 without an ack", i);
        vw_rr_arb_tb_tick(m, cyc++);
    }
    /* WHEN it is acknowledged THEN the next grant goes to requester 3, even with 1 still requesting */
    vw_put_u(&in, p->ack, 1);
    vw_rr_arb_tb_set(m, &in);
    vw_rr_arb_tb_tick(m, cyc++);
    vw_put_u(&in, p->ack, 0);
    vw_rr_arb_tb_set(m, &in);
    vw_rr_arb_tb_get(m, &out);
    cr_assert_eq(vw_get_u(&out, p->gnt_idx), 3, "grant after the ack");
    /* WHEN 3 is acknowledged THEN the pointer wraps to 1 */
    vw_put_u(&in, p->ack, 1);
    vw_rr_arb_tb_set(m, &in);
    vw_rr_arb_tb_tick(m, cyc++);
    vw_put_u(&in, p->ack, 0);
    vw_rr_arb_tb_set(m, &in);
    vw_rr_arb_tb_get(m, &out);
    cr_assert_eq(vw_get_u(&out, p->gnt_idx), 1, "grant after wrapping");
    vw_rr_arb_tb_free(m);
}

Test(rr_arb, rejects_illegal_parameters)
{
    rtl_lint_result_t r;
    rtl_lint("rr_arb", "-GN=1", &r);
    cr_assert(r.passed, "legal parameters rejected:\n%s", r.out);
    rtl_lint("rr_arb", "-GN=0", &r);
    cr_assert(r.ran && !r.passed, "N=0 accepted:\n%s", r.out);
    cr_assert(strstr(r.out, "rr_arb: N must be >= 1"), "no parameter message in:\n%s", r.out);
}
