/* Tests of rtl/common/credit_cnt.sv through tb/hdl/credit_cnt_tb.sv, which holds one instance per
 * parameter set. Random legal give/take traffic (tb/ref/credit_cnt_ref.c plays both the model and
 * the legal environment); illegal traffic must trip the RTL assertions and abort the run. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/rng.h"
#include "ref/credit_cnt_ref.h"
#include "sb/rtl_lint.h"
#include "sb/vw_bits.h"
#include "tb_child.h"
#include "tb_seed.h"
#include "vw_credit_cnt_tb.h"

#define PERIOD_PS 1000

typedef vw_credit_cnt_tb_in in_t;
typedef vw_credit_cnt_tb_out out_t;

/** One instance of the harness: its parameters and where its ports are. */
typedef struct crd_set {
    const char *name;
    unsigned max, init, give_w;
    vw_field_t give, take; /* in in_t */
    vw_field_t left, avail; /* in out_t */
} crd_set_t;

#define CRD_SET(P, M, I, G)                                                                                \
    {                                                                                                      \
        #P, M, I, G, VW_FIELD(in_t, P##_crd_give_i), VW_FIELD(in_t, P##_crd_take_i),                        \
            VW_FIELD(out_t, P##_crd_left_o), VW_FIELD(out_t, P##_crd_avail_o)                              \
    }

/* (m5i2g2n3's three counters are one instance: each one's traffic is drawn on its own, so a counter
 * often stays while another moves, which the instance writes only when one of them does.) */
static const crd_set_t SETS[] = {CRD_SET(m1i1g1, 1, 1, 1),       CRD_SET(m4i0g1, 4, 0, 1),   CRD_SET(m7i7g3, 7, 7, 3),
                                 CRD_SET(m13i5g2, 13, 5, 2),     CRD_SET(m200i200g4, 200, 200, 4),
                                 CRD_SET(m5i2g2n3a, 5, 2, 2),    CRD_SET(m5i2g2n3b, 5, 2, 2),
                                 CRD_SET(m5i2g2n3c, 5, 2, 2),    CRD_SET(m9i0g1s4, 9, 0, 1)};
#define SET_SKIP 8 /* SETS[8], m9i0g1s4: the one whose crd_skip_i is driven (SkipW 4); 0 in the random run */
#define NSETS (sizeof SETS / sizeof SETS[0])

static unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }

Test(credit_cnt, matches_model_under_random_give_and_take)
{
    const unsigned cycles = 20000, phase_len = 300;
    uint64_t seed = tb_seed(1);
    char note[64];
    snprintf(note, sizeof note, "credit_cnt run: seed=%llu", (unsigned long long)seed);
    cleanup_set_note(note); /* printed if an RTL assertion aborts the run */
    vw_credit_cnt_tb *m = vw_credit_cnt_tb_create(PERIOD_PS, seed);
    credit_cnt_ref_t ref[NSETS];
    rng_t rng[NSETS];
    bool seen_empty[NSETS] = {false}, seen_full[NSETS] = {false}, seen_give_take_at_zero[NSETS] = {false};
    for (size_t s = 0; s < NSETS; s++) {
        char name[64];
        credit_cnt_ref_init(&ref[s], SETS[s].max, SETS[s].init);
        snprintf(name, sizeof name, "credit_cnt.%s", SETS[s].name);
        rng_init_named(&rng[s], seed, name);
    }
    uint64_t cyc = vw_credit_cnt_tb_reset(m, 0, 2);

    for (unsigned c = 0; c < cycles; c++, cyc++) {
        /* Phases that fill, drain and churn, so both ends of the range are visited. */
        static const double give_p[] = {0.9, 0.1, 0.5}, take_p[] = {0.1, 0.95, 0.5};
        unsigned phase = c / phase_len % 3;
        in_t in;
        out_t out;
        unsigned give[NSETS];
        bool take[NSETS];
        memset(&in, 0, sizeof in);
        in.rst_ni = 1;
        for (size_t s = 0; s < NSETS; s++) {
            const crd_set_t *p = &SETS[s];
            unsigned most = umin(ref[s].at_recv, phase == 1 ? 1 : (1u << p->give_w) - 1);
            give[s] = most && rng_chance(&rng[s], give_p[phase]) ? (unsigned)rng_range(&rng[s], 1, most) : 0;
            /* A credit returned this cycle may be spent in the same cycle. */
            take[s] = ref[s].left + give[s] > 0 && rng_chance(&rng[s], take_p[phase]);
            vw_put_u(&in, p->give, give[s]);
            vw_put_u(&in, p->take, take[s]);
        }
        vw_credit_cnt_tb_set(m, &in);
        vw_credit_cnt_tb_get(m, &out);
        for (size_t s = 0; s < NSETS; s++) {
            const crd_set_t *p = &SETS[s];
            cr_assert_eq(vw_get_u(&out, p->left), ref[s].left, "seed=%llu set=%s cycle=%llu: crd_left_o %llu, model %u",
                         (unsigned long long)seed, p->name, (unsigned long long)cyc,
                         (unsigned long long)vw_get_u(&out, p->left), ref[s].left);
            cr_assert_eq(vw_get_u(&out, p->avail), ref[s].left > 0, "seed=%llu set=%s cycle=%llu: crd_avail_o",
                         (unsigned long long)seed, p->name, (unsigned long long)cyc);
            seen_empty[s] |= ref[s].left == 0;
            seen_full[s] |= ref[s].left == p->max;
            seen_give_take_at_zero[s] |= ref[s].left == 0 && give[s] && take[s];
            cr_assert(credit_cnt_ref_tick(&ref[s], give[s], take[s]), "seed=%llu set=%s cycle=%llu: test drove illegal traffic",
                      (unsigned long long)seed, p->name, (unsigned long long)cyc);
        }
        vw_credit_cnt_tb_tick(m, cyc);
    }
    for (size_t s = 0; s < NSETS; s++) {
        /* Coverage: the run must have reached both ends and the same-cycle pass-through. */
        cr_assert(seen_empty[s] && seen_full[s], "seed=%llu set=%s: count never reached %s", (unsigned long long)seed,
                  SETS[s].name, seen_empty[s] ? "MaxCredits" : "zero");
        cr_assert(seen_give_take_at_zero[s], "seed=%llu set=%s: never gave and took in one cycle at zero",
                  (unsigned long long)seed, SETS[s].name);
    }
    vw_credit_cnt_tb_free(m);
}

/* The harness out of reset, with in cleared but for rst_ni (high) and *cyc the next cycle. */
static vw_credit_cnt_tb *tb_open(in_t *in, uint64_t *cyc)
{
    vw_credit_cnt_tb *m = vw_credit_cnt_tb_create(PERIOD_PS, 1);
    *cyc = vw_credit_cnt_tb_reset(m, 0, 2);
    memset(in, 0, sizeof *in);
    in->rst_ni = 1;
    return m;
}

Test(credit_cnt, reset_restores_init_credits)
{
    in_t in;
    out_t out;
    uint64_t cyc;
    vw_credit_cnt_tb *m = tb_open(&in, &cyc);
    /* GIVEN every counter moved away from its initial value */
    for (size_t s = 0; s < NSETS; s++)
        if (SETS[s].init > 0)
            vw_put_u(&in, SETS[s].take, 1);
        else
            vw_put_u(&in, SETS[s].give, 1);
    vw_credit_cnt_tb_set(m, &in);
    vw_credit_cnt_tb_tick(m, cyc++);
    vw_credit_cnt_tb_get(m, &out);
    for (size_t s = 0; s < NSETS; s++)
        cr_assert_neq(vw_get_u(&out, SETS[s].left), SETS[s].init, "set=%s: count did not move", SETS[s].name);
    /* WHEN reset THEN each holds InitCredits again */
    cyc = vw_credit_cnt_tb_reset(m, cyc, 1);
    vw_credit_cnt_tb_get(m, &out);
    for (size_t s = 0; s < NSETS; s++) {
        cr_assert_eq(vw_get_u(&out, SETS[s].left), SETS[s].init, "set=%s: count after reset", SETS[s].name);
        cr_assert_eq(vw_get_u(&out, SETS[s].avail), SETS[s].init > 0, "set=%s: crd_avail_o after reset",
                     SETS[s].name);
    }
    vw_credit_cnt_tb_free(m);
}

/* One cycle of the given traffic on set s after reset (run in a child: it may abort). */
typedef struct child_args {
    size_t s;
    unsigned give;
    bool take;
    unsigned skip; /* crd_skip_i of SET_SKIP */
} child_args_t;

static void child_body(void *arg)
{
    const child_args_t *a = arg;
    in_t in;
    uint64_t cyc;
    vw_credit_cnt_tb *m = tb_open(&in, &cyc);
    vw_put_u(&in, SETS[a->s].give, a->give);
    vw_put_u(&in, SETS[a->s].take, a->take);
    in.m9i0g1s4_crd_skip_i = a->skip;
    vw_credit_cnt_tb_set(m, &in);
    vw_credit_cnt_tb_tick(m, cyc);
}

/* Runs child_body in a child process and returns how it ended and what it printed. An RTL
 * assertion failure prints its name and aborts. */
static void run_child(size_t s, unsigned give, bool take, int *status, char *out, size_t out_len)
{
    child_args_t a = {s, give, take, 0};
    tb_run_child(child_body, &a, status, out, out_len);
}

static void expect_abort(size_t s, unsigned give, bool take, const char *assertion)
{
    int st;
    char out[4096];
    run_child(s, give, take, &st, out, sizeof out);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "set=%s give=%u take=%d: run did not abort:\n%s",
              SETS[s].name, give, take, out);
    cr_assert(strstr(out, assertion), "set=%s give=%u take=%d: aborted, but not by %s:\n%s", SETS[s].name, give, take,
              assertion, out);
}

static void expect_no_abort(size_t s, unsigned give, bool take)
{
    int st;
    char out[4096];
    run_child(s, give, take, &st, out, sizeof out);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "set=%s give=%u take=%d: legal traffic failed:\n%s",
              SETS[s].name, give, take, out);
}

Test(credit_cnt, take_without_credit_trips_underflow_assertion)
{
    /* GIVEN a counter reset to zero credits (m4i0g1) */
    /* WHEN a credit is taken with none given in the same cycle THEN crd_no_underflow aborts */
    expect_abort(1, 0, true, "crd_no_underflow");
    /* WHEN a credit is given and taken in the same cycle THEN all is well (control) */
    expect_no_abort(1, 1, true);
}

Test(credit_cnt, give_beyond_max_trips_overflow_assertion)
{
    /* GIVEN a full counter (m1i1g1, m7i7g3) */
    /* WHEN a credit is returned THEN crd_no_overflow aborts */
    expect_abort(0, 1, false, "crd_no_overflow");
    expect_abort(2, 3, true, "crd_no_overflow"); /* 7 + 3 - 1 > 7 */
    /* WHEN one is returned and one taken THEN all is well (control) */
    expect_no_abort(2, 1, true);
}

/* Credits returned at cycles the simulation skipped (crd_skip_i) count as held before the edge:
 * crd_avail_o sees them at once, a credit may be spent against them in that cycle, and the edge
 * adds them to the count with the cycle's own give. */
Test(credit_cnt, credits_of_skipped_cycles_count_before_the_edge)
{
    in_t in;
    out_t out;
    uint64_t cyc;
    vw_credit_cnt_tb *m = tb_open(&in, &cyc);
    /* GIVEN m9i0g1s4 at zero credits, WHEN 3 come from skipped cycles THEN one is held before the edge */
    in.m9i0g1s4_crd_skip_i = 3;
    vw_credit_cnt_tb_set(m, &in);
    vw_credit_cnt_tb_get(m, &out);
    cr_assert(out.m9i0g1s4_crd_avail_o && out.m9i0g1s4_crd_left_o == 0, "avail %u left %u before the edge",
              out.m9i0g1s4_crd_avail_o, out.m9i0g1s4_crd_left_o);
    /* AND a credit spent in that cycle leaves 2 after the edge */
    in.m9i0g1s4_crd_take_i = 1;
    vw_credit_cnt_tb_set(m, &in);
    vw_credit_cnt_tb_tick(m, cyc++);
    vw_credit_cnt_tb_get(m, &out);
    cr_assert_eq(out.m9i0g1s4_crd_left_o, 2u);
    /* WHEN 4 skipped and 1 given come in one cycle THEN 7 are held after it */
    in.m9i0g1s4_crd_take_i = 0;
    in.m9i0g1s4_crd_skip_i = 4;
    in.m9i0g1s4_crd_give_i = 1;
    vw_credit_cnt_tb_set(m, &in);
    vw_credit_cnt_tb_tick(m, cyc++);
    in.m9i0g1s4_crd_skip_i = 0;
    in.m9i0g1s4_crd_give_i = 0;
    vw_credit_cnt_tb_set(m, &in);
    vw_credit_cnt_tb_get(m, &out);
    cr_assert(out.m9i0g1s4_crd_left_o == 7 && out.m9i0g1s4_crd_avail_o, "left %u", out.m9i0g1s4_crd_left_o);
    /* AND an edge with none changes nothing */
    vw_credit_cnt_tb_tick(m, cyc++);
    vw_credit_cnt_tb_get(m, &out);
    cr_assert_eq(out.m9i0g1s4_crd_left_o, 7u);
    vw_credit_cnt_tb_free(m);
    /* Skipped credits beyond MaxCredits trip crd_no_overflow; a take against them alone does not trip
     * crd_no_underflow */
    int st;
    char text[4096];
    child_args_t a = {SET_SKIP, 0, false, 10};
    tb_run_child(child_body, &a, &st, text, sizeof text);
    cr_assert(WIFSIGNALED(st) && strstr(text, "crd_no_overflow"), "10 skipped credits of 9:\n%s", text);
    a = (child_args_t){SET_SKIP, 0, true, 9};
    tb_run_child(child_body, &a, &st, text, sizeof text);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a take against 9 skipped credits:\n%s", text);
}

Test(credit_cnt, rejects_illegal_parameters)
{
    static const struct {
        const char *args, *msg;
    } cases[] = {
        {"-GMaxCredits=0", "credit_cnt: MaxCredits must be >= 1"},
        {"-GMaxCredits=4 -GInitCredits=5", "credit_cnt: InitCredits must be in 0 ..= MaxCredits"},
        {"-GGiveW=0", "credit_cnt: GiveW must be >= 1"},
        {"-GSkipW=0", "credit_cnt: SkipW must be >= 1"},
    };
    rtl_lint_result_t r;
    rtl_lint("credit_cnt", "-GMaxCredits=4 -GInitCredits=4", &r);
    cr_assert(r.passed, "legal parameters rejected:\n%s", r.out);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rtl_lint("credit_cnt", cases[i].args, &r);
        cr_assert(r.ran && !r.passed, "%s accepted:\n%s", cases[i].args, r.out);
        cr_assert(strstr(r.out, cases[i].msg), "%s: no \"%s\" in:\n%s", cases[i].args, cases[i].msg, r.out);
    }
}
