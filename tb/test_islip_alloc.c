/* Tests of rtl/switch/islip_alloc.sv through tb/hdl/islip_alloc_tb.sv, which holds one instance per
 * parameter set (NumIn x NumOut, Iters). The matching is compared cycle by cycle with the
 * reference model (tb/ref/islip_alloc_ref.c); the matching properties, the pointer rules, the
 * full-load desynchronization, the starvation bound and the VOQ throughput are checked from the
 * DUT's own outputs.
 *
 * Starvation bound. Assume input i requests output o from cycle 1 until (i, o) is matched, and that
 * every other request, once raised, also stays up until its pair is matched (what a VOQ head does:
 * it leaves only when sent). Count enabled cycles (en_i high; nothing moves otherwise). Then (i, o)
 * is matched within NumOut * NumIn * (NumIn + 1) / 2 cycles:
 *   - A phase is a run of cycles during which o's grant pointer p stays put; it ends when o's
 *     first-iteration grant is accepted. In a phase, o's first-iteration grant goes to the first
 *     requester at or after p, which lies in [p, i] since i requests. Requests only appear there,
 *     so this grantee only moves back toward p, and a replaced grantee never returns in the phase.
 *   - A grantee is granted every cycle, so it accepts some output in iteration 1 every cycle. If
 *     that is o' != o, then o' lies between its accept pointer and o, and the pointer moves to
 *     o' + 1, strictly closer to o. So a grantee holds at most NumOut cycles, and if it holds that
 *     long it accepts o, ending the phase.
 *   - With i at distance D from p, a phase whose last grantee is at distance d has at most
 *     D - d + 1 grantees and leaves i at distance D - d - 1 from the new pointer. The phase that
 *     serves i has i as its only grantee (it is the farthest one and must be the last). Summing
 *     over phases from D <= NumIn - 1 gives at most NumIn * (NumIn + 1) / 2 grantees of NumOut
 *     cycles each.
 *   - Later iterations do not move pointers; they never match the first-iteration grantee (it is
 *     matched in iteration 1) and can only remove requests after it, so the argument holds for any
 *     Iters.
 * The bound is not tight, but NumIn * NumOut is not a bound: an adversary makes (0, 0) of a 2 x 3
 * allocator wait 6 cycles and be served on the 7th (test naive_bound_is_exceeded_by_an_adversary).
 * Without persistence there is no bound at all (test dropped_requests_can_starve_a_pair), and
 * requests masked by an output's availability are not persistent: an output available every
 * other cycle can be starved (test output_available_every_other_cycle_can_be_starved).
 * starvation_bound_holds_against_every_adversary_on_small_shapes checks the bound exhaustively on
 * the model for small shapes. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/rng.h"
#include "ref/islip_alloc_ref.h"
#include "sb/rtl_lint.h"
#include "sb/vw_bits.h"
#include "tb_seed.h"
#include "vw_islip_alloc_tb.h"

#define PERIOD_PS 1000
#define MAX_PORTS 32 /* largest NumIn or NumOut in the harness */

typedef vw_islip_alloc_tb_in in_t;
typedef vw_islip_alloc_tb_out out_t;

/** One instance of the harness: its parameters and where its ports are. */
typedef struct islip_set {
    const char *name;
    unsigned n_in, n_out, iters;
    vw_field_t req, en;                                     /* in in_t */
    vw_field_t match, in_valid, in_idx, out_valid, out_idx; /* in out_t */
} islip_set_t;

#define ISLIP_SET(P, NI, NO, IT)                                                                            \
    {                                                                                                       \
        #P, NI, NO, IT, VW_FIELD(in_t, P##_req_i), VW_FIELD(in_t, P##_en_i), VW_FIELD(out_t, P##_match_o),  \
            VW_FIELD(out_t, P##_in_match_valid_o), VW_FIELD(out_t, P##_in_match_idx_o),                     \
            VW_FIELD(out_t, P##_out_match_valid_o), VW_FIELD(out_t, P##_out_match_idx_o)                    \
    }

static const islip_set_t SETS[] = {
    ISLIP_SET(n1x1i1, 1, 1, 1),       ISLIP_SET(n2x3i1, 2, 3, 1),       ISLIP_SET(n3x5i4, 3, 5, 4),
    ISLIP_SET(n4x4i1, 4, 4, 1),       ISLIP_SET(n4x4i2, 4, 4, 2),       ISLIP_SET(n5x3i3, 5, 3, 3),
    ISLIP_SET(n16x16i1, 16, 16, 1),   ISLIP_SET(n16x16i2, 16, 16, 2),   ISLIP_SET(n32x32i1, 32, 32, 1),
    ISLIP_SET(n32x32i2, 32, 32, 2),   ISLIP_SET(n12x10i3, 12, 10, 3),
};
#define NSETS (sizeof SETS / sizeof SETS[0])

static const islip_set_t *set_named(const char *name)
{
    for (size_t s = 0; s < NSETS; s++)
        if (strcmp(SETS[s].name, name) == 0)
            return &SETS[s];
    cr_assert_fail("no parameter set %s in the harness", name);
    return NULL;
}

static unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }

static unsigned clog2(unsigned n)
{
    unsigned w = 0;
    while ((1u << w) < n)
        w++;
    return w ? w : 1;
}

/** The proven starvation bound, in enabled cycles from raising the request to its service. */
static unsigned starvation_bound(unsigned n_in, unsigned n_out) { return n_out * n_in * (n_in + 1) / 2; }

/* ---- Port access. A request or match matrix is one uint64_t per input (bit o = output o); on the
 * ports requests are column-major (bit o*NumIn + i) and the match row-major (bit i*NumOut + o), up
 * to 1024 bits, wider than vw_bits.h's bits_t. */

#define PORT_WORDS 32

static void put_matrix(in_t *in, const islip_set_t *p, const uint64_t *rows)
{
    uint32_t w[PORT_WORDS] = {0};
    for (unsigned i = 0; i < p->n_in; i++)
        for (unsigned o = 0; o < p->n_out; o++)
            if (rows[i] >> o & 1) {
                unsigned b = o * p->n_in + i;
                w[b / 32] |= 1u << (b % 32);
            }
    cr_assert_leq(p->req.size, sizeof w);
    memcpy((char *)in + p->req.off, w, p->req.size);
}

/** Bits lo .. lo+width-1 (width <= 32) of the port field f of struct s. */
static uint32_t field_bits(const void *s, vw_field_t f, unsigned lo, unsigned width)
{
    uint32_t w[PORT_WORDS + 1] = {0};
    cr_assert_leq(f.size, sizeof w - sizeof w[0]);
    memcpy(w, (const char *)s + f.off, f.size);
    uint64_t two = (uint64_t)w[lo / 32] | (uint64_t)w[lo / 32 + 1] << 32;
    return (uint32_t)(two >> (lo % 32)) & (uint32_t)((1ull << width) - 1);
}

static void get_matrix(const out_t *out, const islip_set_t *p, uint64_t *rows)
{
    for (unsigned i = 0; i < p->n_in; i++) {
        rows[i] = 0;
        for (unsigned o = 0; o < p->n_out; o++)
            rows[i] |= (uint64_t)field_bits(out, p->match, i * p->n_out + o, 1) << o;
    }
}

/** The matching on the ports, decoded. */
typedef struct dut_match {
    uint64_t rows[MAX_PORTS];
    uint32_t in_valid, out_valid;
    unsigned in_idx[MAX_PORTS], out_idx[MAX_PORTS];
} dut_match_t;

static void get_dut_match(const out_t *out, const islip_set_t *p, dut_match_t *d)
{
    unsigned ow = clog2(p->n_out), iw = clog2(p->n_in);
    get_matrix(out, p, d->rows);
    d->in_valid = field_bits(out, p->in_valid, 0, p->n_in);
    d->out_valid = field_bits(out, p->out_valid, 0, p->n_out);
    for (unsigned i = 0; i < p->n_in; i++)
        d->in_idx[i] = field_bits(out, p->in_idx, i * ow, ow);
    for (unsigned o = 0; o < p->n_out; o++)
        d->out_idx[o] = field_bits(out, p->out_idx, o * iw, iw);
}

static unsigned popcount64(uint64_t x) { return (unsigned)__builtin_popcountll(x); }

/** Matched pairs in a matching. */
static unsigned match_size(const islip_set_t *p, const dut_match_t *d)
{
    unsigned n = 0;
    for (unsigned i = 0; i < p->n_in; i++)
        n += popcount64(d->rows[i]);
    return n;
}

/* ---- Checks ---- */

/** What a matching must be whatever the algorithm: only requested pairs, at most one per row and
 *  column, valid and index ports consistent with it, and each iteration adding a pair while an
 *  unmatched input requests an unmatched output (so: maximal, or at least Iters pairs; maximal
 *  when Iters >= min(NumIn, NumOut)). */
static void check_properties(const islip_set_t *p, const uint64_t *req, const dut_match_t *d, const char *ctx,
                             uint64_t cyc)
{
    uint64_t cols = 0;
    unsigned size = 0;
    for (unsigned i = 0; i < p->n_in; i++) {
        uint64_t r = d->rows[i];
        cr_assert_eq(r & ~req[i], 0, "%s cycle=%llu: input %u matched without a request (row 0x%llx, req 0x%llx)",
                     ctx, (unsigned long long)cyc, i, (unsigned long long)r, (unsigned long long)req[i]);
        cr_assert_leq(popcount64(r), 1, "%s cycle=%llu: input %u matched twice (row 0x%llx)", ctx,
                      (unsigned long long)cyc, i, (unsigned long long)r);
        cr_assert_eq(cols & r, 0, "%s cycle=%llu: output matched twice (input %u)", ctx, (unsigned long long)cyc, i);
        cols |= r;
        size += popcount64(r);
        cr_assert_eq(d->in_valid >> i & 1, r != 0, "%s cycle=%llu: in_match_valid_o[%u]", ctx,
                     (unsigned long long)cyc, i);
        cr_assert_eq(d->in_idx[i], r ? (unsigned)__builtin_ctzll(r) : 0, "%s cycle=%llu: in_match_idx_o[%u] = %u", ctx,
                     (unsigned long long)cyc, i, d->in_idx[i]);
        if (r) {
            unsigned o = (unsigned)__builtin_ctzll(r);
            cr_assert_eq(d->out_idx[o], i, "%s cycle=%llu: out_match_idx_o[%u] = %u, expected %u", ctx,
                         (unsigned long long)cyc, o, d->out_idx[o], i);
        }
    }
    for (unsigned o = 0; o < p->n_out; o++) {
        cr_assert_eq(d->out_valid >> o & 1, cols >> o & 1, "%s cycle=%llu: out_match_valid_o[%u]", ctx,
                     (unsigned long long)cyc, o);
        if (!(cols >> o & 1))
            cr_assert_eq(d->out_idx[o], 0, "%s cycle=%llu: unmatched output %u has index %u", ctx,
                         (unsigned long long)cyc, o, d->out_idx[o]);
    }
    bool left = false; /* an unmatched input requests an unmatched output */
    for (unsigned i = 0; i < p->n_in; i++)
        if (!d->rows[i] && (req[i] & ~cols))
            left = true;
    if (left) {
        cr_assert_geq(size, p->iters, "%s cycle=%llu: not maximal with %u pairs after %u iterations", ctx,
                      (unsigned long long)cyc, size, p->iters);
        cr_assert_lt(p->iters, umin(p->n_in, p->n_out), "%s cycle=%llu: not maximal with Iters >= min(NumIn, NumOut)",
                     ctx, (unsigned long long)cyc);
    }
}

/** The DUT's matching equals the model's. */
static void check_model(const islip_set_t *p, const islip_match_t *want, const dut_match_t *d, const char *ctx,
                        uint64_t cyc)
{
    for (unsigned i = 0; i < p->n_in; i++) {
        uint64_t row = want->in[i] >= 0 ? 1ull << want->in[i] : 0;
        cr_assert_eq(d->rows[i], row, "%s cycle=%llu: input %u row 0x%llx, model 0x%llx", ctx, (unsigned long long)cyc,
                     i, (unsigned long long)d->rows[i], (unsigned long long)row);
    }
}

/* ---- The DUT with one parameter set driven, the others idle ---- */

typedef struct dut {
    vw_islip_alloc_tb *m;
    uint64_t cyc;
    in_t in;
    out_t out;
} dut_t;

static void dut_open(dut_t *d, uint64_t seed, const char *what)
{
    char note[160];
    snprintf(note, sizeof note, "islip_alloc %s: seed=%llu", what, (unsigned long long)seed);
    cleanup_set_note(note); /* printed if an RTL assertion aborts the run */
    memset(d, 0, sizeof *d);
    d->m = vw_islip_alloc_tb_create(PERIOD_PS, seed);
    d->cyc = vw_islip_alloc_tb_reset(d->m, 0, 2);
    d->in.rst_ni = 1;
}

/** Presents req and en to set p, returns its matching, then clocks. */
static void dut_cycle(dut_t *d, const islip_set_t *p, const uint64_t *req, bool en, dut_match_t *got)
{
    put_matrix(&d->in, p, req);
    vw_put_u(&d->in, p->en, en);
    vw_islip_alloc_tb_set(d->m, &d->in);
    vw_islip_alloc_tb_get(d->m, &d->out);
    get_dut_match(&d->out, p, got);
    vw_islip_alloc_tb_tick(d->m, d->cyc++);
}

/* ---- Random co-simulation with the model ---- */

typedef enum req_mode {
    REQ_RANDOM, /* every request bit drawn afresh each cycle */
    REQ_VOQ,    /* a request rises at random and stays until its pair is matched on an enabled cycle */
} req_mode_e;

typedef struct lane {
    const islip_set_t *p;
    islip_alloc_ref_t ref;
    rng_t rng;
    uint64_t req[MAX_PORTS];
    unsigned wait[MAX_PORTS][MAX_PORTS]; /* enabled cycles each request has been up */
    unsigned max_wait;
    uint64_t pairs;
    char ctx[160];
} lane_t;

/* Runs every set for `cycles` cycles. density: probability of a request bit being set (RANDOM) or
 * of an absent request rising (VOQ); en_p: probability of en_i. */
static void run(uint64_t seed, req_mode_e mode, double density, double en_p, unsigned cycles)
{
    static lane_t lanes[NSETS];
    dut_t d;
    char what[96];
    snprintf(what, sizeof what, "run mode=%s density=%.2f en=%.2f", mode == REQ_VOQ ? "voq" : "random", density, en_p);
    dut_open(&d, seed, what);
    for (size_t s = 0; s < NSETS; s++) {
        lane_t *l = &lanes[s];
        char name[64];
        memset(l, 0, sizeof *l);
        l->p = &SETS[s];
        islip_alloc_ref_init(&l->ref, l->p->n_in, l->p->n_out, l->p->iters);
        snprintf(name, sizeof name, "islip_alloc.%s", l->p->name);
        rng_init_named(&l->rng, seed, name);
        snprintf(l->ctx, sizeof l->ctx, "seed=%llu mode=%s density=%.2f en=%.2f set=%s", (unsigned long long)seed,
                 mode == REQ_VOQ ? "voq" : "random", density, en_p, l->p->name);
    }
    for (unsigned c = 0; c < cycles; c++) {
        bool en[NSETS];
        for (size_t s = 0; s < NSETS; s++) {
            lane_t *l = &lanes[s];
            for (unsigned i = 0; i < l->p->n_in; i++) {
                uint64_t fresh = 0;
                for (unsigned o = 0; o < l->p->n_out; o++)
                    fresh |= (uint64_t)rng_chance(&l->rng, density) << o;
                l->req[i] = mode == REQ_VOQ ? l->req[i] | fresh : fresh;
            }
            en[s] = rng_chance(&l->rng, en_p);
            put_matrix(&d.in, l->p, l->req);
            vw_put_u(&d.in, l->p->en, en[s]);
        }
        vw_islip_alloc_tb_set(d.m, &d.in);
        vw_islip_alloc_tb_get(d.m, &d.out);
        for (size_t s = 0; s < NSETS; s++) {
            lane_t *l = &lanes[s];
            const islip_set_t *p = l->p;
            islip_match_t want;
            dut_match_t got;
            get_dut_match(&d.out, p, &got);
            islip_alloc_ref_step(&l->ref, l->req, en[s], &want);
            check_model(p, &want, &got, l->ctx, d.cyc);
            check_properties(p, l->req, &got, l->ctx, d.cyc);
            if (!en[s])
                continue;
            l->pairs += match_size(p, &got);
            for (unsigned i = 0; i < p->n_in; i++) {
                for (unsigned o = 0; o < p->n_out; o++) {
                    bool req = l->req[i] >> o & 1, served = got.rows[i] >> o & 1;
                    if (!req || served) {
                        l->wait[i][o] = 0;
                        continue;
                    }
                    l->wait[i][o]++;
                    if (l->wait[i][o] > l->max_wait)
                        l->max_wait = l->wait[i][o];
                    if (mode == REQ_VOQ)
                        cr_assert_lt(l->wait[i][o], starvation_bound(p->n_in, p->n_out),
                                     "%s cycle=%llu: request %u->%u unserved for %u enabled cycles (bound %u)",
                                     l->ctx, (unsigned long long)d.cyc, i, o, l->wait[i][o],
                                     starvation_bound(p->n_in, p->n_out));
                }
                if (mode == REQ_VOQ)
                    l->req[i] &= ~got.rows[i]; /* served: may rise again from the next cycle */
            }
        }
        vw_islip_alloc_tb_tick(d.m, d.cyc++);
    }
    for (size_t s = 0; s < NSETS; s++) {
        const lane_t *l = &lanes[s];
        cr_assert_gt(l->pairs, density * en_p * cycles / 4, "%s: only %llu pairs matched", l->ctx,
                     (unsigned long long)l->pairs);
        if (mode == REQ_VOQ)
            cr_log_info("%s: longest wait %u enabled cycles (bound %u)", l->ctx, l->max_wait,
                        starvation_bound(l->p->n_in, l->p->n_out));
    }
    vw_islip_alloc_tb_free(d.m);
}

Test(islip_alloc, matches_model_with_sparse_requests) { run(tb_seed(1), REQ_RANDOM, 0.05, 0.8, 4000); }
Test(islip_alloc, matches_model_with_medium_requests_and_random_en) { run(tb_seed(2), REQ_RANDOM, 0.3, 0.5, 4000); }
Test(islip_alloc, matches_model_with_dense_requests) { run(tb_seed(3), REQ_RANDOM, 0.7, 0.9, 4000); }
Test(islip_alloc, matches_model_with_full_requests_and_random_en) { run(tb_seed(4), REQ_RANDOM, 1.0, 0.5, 4000); }

Test(islip_alloc, persistent_requests_are_served_within_the_proven_bound)
{
    /* VOQ-like requests (up until served), a light and a heavy load, en mostly high. */
    run(tb_seed(5), REQ_VOQ, 0.02, 0.9, 2000);
    run(tb_seed(6), REQ_VOQ, 0.3, 0.9, 2000);
}

/* ---- Directed tests of the pointer rules ---- */

Test(islip_alloc, grant_pointer_moves_only_when_its_grant_is_accepted)
{
    const islip_set_t *p = set_named("n4x4i1");
    dut_t d;
    dut_match_t got;
    dut_open(&d, 1, "grant pointer");
    /* GIVEN pointers at 0, input 0 requesting outputs 0 and 1, input 1 requesting output 1 */
    uint64_t req1[4] = {0x3, 0x2, 0, 0};
    /* WHEN outputs 0 and 1 both grant input 0 and it accepts output 0 (its accept pointer is 0) */
    dut_cycle(&d, p, req1, true, &got);
    cr_assert_eq(got.rows[0], 0x1, "input 0 should take output 0, got row 0x%llx", (unsigned long long)got.rows[0]);
    cr_assert_eq(got.rows[1], 0x0, "input 1 should be left unmatched in one iteration");
    /* THEN output 1, whose grant was refused, still grants input 0 first: with inputs 0 and 1
     * requesting it, input 0 gets it (a pointer moved on the grant would now favour input 1) */
    uint64_t req2[4] = {0x2, 0x2, 0, 0};
    dut_cycle(&d, p, req2, true, &got);
    cr_assert_eq(got.rows[0], 0x2, "output 1 left input 0 although its grant was never accepted (rows 0x%llx 0x%llx)",
                 (unsigned long long)got.rows[0], (unsigned long long)got.rows[1]);
    /* AND output 1's accepted grant to input 0 moves its pointer past input 0: input 1 next */
    dut_cycle(&d, p, req2, true, &got);
    cr_assert_eq(got.rows[1], 0x2, "output 1 should move on to input 1 after its grant to input 0 was accepted");
    vw_islip_alloc_tb_free(d.m);
}

Test(islip_alloc, accept_pointer_moves_one_past_the_accepted_output)
{
    const islip_set_t *p = set_named("n4x4i1");
    dut_t d;
    dut_match_t got;
    dut_open(&d, 1, "accept pointer");
    /* GIVEN input 2 requesting outputs 1 and 3 (both grant it: their pointers are at 0) */
    uint64_t req[4] = {0, 0, 0xa, 0};
    /* WHEN it accepts output 1, the first at or after its pointer 0 */
    dut_cycle(&d, p, req, true, &got);
    cr_assert_eq(got.rows[2], 0x2, "first accept: row 0x%llx", (unsigned long long)got.rows[2]);
    /* THEN its pointer is at 2, so next it accepts output 3, then wraps back to output 1 */
    dut_cycle(&d, p, req, true, &got);
    cr_assert_eq(got.rows[2], 0x8, "second accept: row 0x%llx", (unsigned long long)got.rows[2]);
    dut_cycle(&d, p, req, true, &got);
    cr_assert_eq(got.rows[2], 0x2, "third accept: row 0x%llx", (unsigned long long)got.rows[2]);
    vw_islip_alloc_tb_free(d.m);
}

Test(islip_alloc, later_iteration_matches_leave_the_pointers_alone)
{
    const islip_set_t *p = set_named("n4x4i2");
    dut_t d;
    dut_match_t got;
    dut_open(&d, 1, "later iterations");
    /* GIVEN input 0 requesting outputs 0 and 1, input 2 requesting output 1
     * WHEN iteration 1 matches 0->0 (output 1's grant to input 0 is refused) and iteration 2 matches
     * 2->1 */
    uint64_t req1[4] = {0x3, 0, 0x2, 0};
    dut_cycle(&d, p, req1, true, &got);
    cr_assert_eq(got.rows[0], 0x1, "iteration 1: row 0 0x%llx", (unsigned long long)got.rows[0]);
    cr_assert_eq(got.rows[2], 0x2, "iteration 2 should match input 2 to output 1: row 0x%llx",
                 (unsigned long long)got.rows[2]);
    /* THEN output 1's pointer is still at input 0 (not past input 2): with inputs 0 and 3
     * requesting it, input 0 wins */
    uint64_t req2[4] = {0x2, 0, 0, 0x2};
    dut_cycle(&d, p, req2, true, &got);
    cr_assert_eq(got.rows[0], 0x2, "output 1 moved its pointer on an iteration-2 match (rows 0x%llx .. 0x%llx)",
                 (unsigned long long)got.rows[0], (unsigned long long)got.rows[3]);
    /* AND input 2's accept pointer is still at output 0: granted by outputs 0 and 2 (output 0
     * points at input 1 now, output 2 at input 0), it takes output 0 */
    uint64_t req3[4] = {0, 0, 0x5, 0};
    dut_cycle(&d, p, req3, true, &got);
    cr_assert_eq(got.rows[2], 0x1, "input 2 moved its pointer on an iteration-2 match: row 0x%llx",
                 (unsigned long long)got.rows[2]);
    vw_islip_alloc_tb_free(d.m);
}

Test(islip_alloc, en_low_computes_the_matching_but_moves_nothing)
{
    const islip_set_t *p = set_named("n4x4i1");
    dut_t d;
    dut_match_t got;
    dut_open(&d, 1, "en low");
    /* GIVEN every input requesting every output, pointers at 0 */
    uint64_t full[4] = {0xf, 0xf, 0xf, 0xf};
    /* WHEN en_i stays low for 5 cycles THEN the matching is the reset one every cycle */
    for (int c = 0; c < 5; c++) {
        dut_cycle(&d, p, full, false, &got);
        cr_assert_eq(got.rows[0], 0x1, "cycle %d with en low: row 0 0x%llx", c, (unsigned long long)got.rows[0]);
        cr_assert_eq(match_size(p, &got), 1, "cycle %d with en low: %u pairs", c, match_size(p, &got));
    }
    /* WHEN en_i rises THEN the pointers move from where reset left them */
    dut_cycle(&d, p, full, true, &got);
    cr_assert_eq(got.rows[0], 0x1, "first enabled cycle: row 0 0x%llx", (unsigned long long)got.rows[0]);
    dut_cycle(&d, p, full, true, &got);
    cr_assert_eq(got.rows[0], 0x2, "second enabled cycle: row 0 0x%llx", (unsigned long long)got.rows[0]);
    cr_assert_eq(got.rows[1], 0x1, "second enabled cycle: row 1 0x%llx", (unsigned long long)got.rows[1]);
    vw_islip_alloc_tb_free(d.m);
}

Test(islip_alloc, reset_puts_every_pointer_back_to_zero)
{
    const islip_set_t *p = set_named("n4x4i1");
    dut_t d;
    dut_match_t got;
    dut_open(&d, 1, "reset");
    uint64_t full[4] = {0xf, 0xf, 0xf, 0xf};
    /* GIVEN pointers moved by a few cycles of full load */
    for (int c = 0; c < 6; c++)
        dut_cycle(&d, p, full, true, &got);
    cr_assert_eq(match_size(p, &got), 4, "full load should be matched perfectly by now");
    /* WHEN rst_ni is low for a cycle THEN the next matching under full load is the reset one */
    d.cyc = vw_islip_alloc_tb_reset(d.m, d.cyc, 1);
    dut_cycle(&d, p, full, true, &got);
    cr_assert_eq(got.rows[0], 0x1, "after reset: row 0 0x%llx", (unsigned long long)got.rows[0]);
    cr_assert_eq(match_size(p, &got), 1, "after reset: %u pairs", match_size(p, &got));
    vw_islip_alloc_tb_free(d.m);
}

Test(islip_alloc, full_load_desynchronizes_the_pointers_into_perfect_matchings)
{
    /* GIVEN every input requesting every output from reset, en high
     * THEN (the classic iSLIP property) the first matching has Iters pairs, each next one a pair
     * more, until it is perfect (min(NumIn, NumOut) pairs); from then on it is perfect every
     * cycle: the grant pointers have spread over distinct inputs and stay apart. */
    const unsigned cycles = 100;
    dut_t d;
    dut_match_t got[NSETS];
    dut_open(&d, 1, "full load");
    for (size_t s = 0; s < NSETS; s++) {
        uint64_t full[MAX_PORTS];
        for (unsigned i = 0; i < SETS[s].n_in; i++)
            full[i] = (1ull << SETS[s].n_out) - 1;
        put_matrix(&d.in, &SETS[s], full);
        vw_put_u(&d.in, SETS[s].en, 1);
    }
    vw_islip_alloc_tb_set(d.m, &d.in);
    for (unsigned c = 0; c < cycles; c++) {
        vw_islip_alloc_tb_get(d.m, &d.out);
        for (size_t s = 0; s < NSETS; s++) {
            const islip_set_t *p = &SETS[s];
            unsigned perfect = umin(p->n_in, p->n_out), want = umin(c + p->iters, perfect);
            get_dut_match(&d.out, p, &got[s]);
            cr_assert_eq(match_size(p, &got[s]), want, "set=%s cycle %u of full load: %u pairs, expected %u", p->name,
                         c, match_size(p, &got[s]), want);
        }
        vw_islip_alloc_tb_tick(d.m, d.cyc++);
    }
    vw_islip_alloc_tb_free(d.m);
}

/* ---- Starvation ---- */

/* Exhaustive game on the model: pair (0, 0) requested every cycle, every other request chosen by
 * an adversary but persistent until served, en high. State = pointers + pending requests; the
 * longest run of cycles with (0, 0) unmatched, from any state, by depth-first search (the state
 * graph must be acyclic: a cycle would be starvation). */
typedef struct game {
    unsigned n_in, n_out, iters, nb;
    unsigned long n_states;
    unsigned char *color; /* 0 new, 1 on the stack, 2 done */
    int *best;
    bool cycle;
} game_t;

static unsigned game_ptr_states(const game_t *g)
{
    unsigned n = 1;
    for (unsigned k = 0; k < g->n_out; k++)
        n *= g->n_in;
    for (unsigned k = 0; k < g->n_in; k++)
        n *= g->n_out;
    return n;
}

static void game_decode(const game_t *g, unsigned long s, islip_alloc_ref_t *a, unsigned long *pending)
{
    islip_alloc_ref_init(a, g->n_in, g->n_out, g->iters);
    *pending = s & ((1ul << g->nb) - 1);
    s >>= g->nb;
    for (unsigned i = g->n_in; i-- > 0;) {
        a->aptr[i] = (unsigned)(s % g->n_out);
        s /= g->n_out;
    }
    for (unsigned o = g->n_out; o-- > 0;) {
        a->gptr[o] = (unsigned)(s % g->n_in);
        s /= g->n_in;
    }
}

static unsigned long game_encode(const game_t *g, const islip_alloc_ref_t *a, unsigned long pending)
{
    unsigned long s = 0;
    for (unsigned o = 0; o < g->n_out; o++)
        s = s * g->n_in + a->gptr[o];
    for (unsigned i = 0; i < g->n_in; i++)
        s = s * g->n_out + a->aptr[i];
    return s << g->nb | pending;
}

/* Request bit b (0 .. nb-1) is pair b + 1 in row-major order; pair 0 is (0, 0), always requested. */
static void game_rows(const game_t *g, unsigned long bits, uint64_t *req)
{
    memset(req, 0, sizeof(uint64_t) * g->n_in);
    req[0] = 1;
    for (unsigned b = 0; b < g->nb; b++)
        if (bits >> b & 1)
            req[(b + 1) / g->n_out] |= 1ull << ((b + 1) % g->n_out);
}

static unsigned long game_bits(const game_t *g, const uint64_t *req)
{
    unsigned long bits = 0;
    for (unsigned b = 0; b < g->nb; b++)
        if (req[(b + 1) / g->n_out] >> ((b + 1) % g->n_out) & 1)
            bits |= 1ul << b;
    return bits;
}

static int game_longest(game_t *g, unsigned long s)
{
    if (g->color[s] == 2)
        return g->best[s];
    if (g->color[s] == 1) {
        g->cycle = true;
        return 0;
    }
    g->color[s] = 1;
    islip_alloc_ref_t a;
    unsigned long pending;
    game_decode(g, s, &a, &pending);
    unsigned long others = ((1ul << g->nb) - 1) & ~pending, add = 0;
    int best = 0;
    do { /* every set of new requests: add runs over the subsets of others */
        uint64_t req[ISLIP_REF_MAX];
        islip_alloc_ref_t next = a;
        islip_match_t m;
        game_rows(g, pending | add, req);
        islip_alloc_ref_step(&next, req, true, &m);
        if (m.in[0] != 0) {
            for (unsigned i = 0; i < g->n_in; i++)
                if (m.in[i] >= 0)
                    req[i] &= ~(1ull << m.in[i]);
            int v = game_longest(g, game_encode(g, &next, game_bits(g, req))) + 1;
            if (g->cycle)
                break;
            if (v > best)
                best = v;
        }
        add = (add - others) & others;
    } while (add != 0);
    g->color[s] = 2;
    g->best[s] = best;
    return best;
}

Test(islip_alloc, starvation_bound_holds_against_every_adversary_on_small_shapes)
{
    static const unsigned shapes[][3] = {{2, 2, 1}, {2, 3, 1}, {3, 2, 1}, {2, 4, 1}, {4, 2, 1}, {3, 3, 1}, {3, 3, 2}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        game_t g = {.n_in = shapes[k][0], .n_out = shapes[k][1], .iters = shapes[k][2]};
        g.nb = g.n_in * g.n_out - 1;
        g.n_states = (unsigned long)game_ptr_states(&g) << g.nb;
        g.color = calloc(g.n_states, 1);
        g.best = calloc(g.n_states, sizeof *g.best);
        cr_assert(g.color && g.best, "out of memory");
        int worst = 0;
        for (unsigned long s = 0; s < g.n_states && !g.cycle; s++) {
            int v = game_longest(&g, s);
            if (v > worst)
                worst = v;
        }
        cr_assert(!g.cycle, "%ux%u Iters %u: an adversary with persistent requests starves a pair", g.n_in, g.n_out,
                  g.iters);
        /* worst unmatched cycles, then served: worst + 1 cycles in all */
        cr_assert_leq((unsigned)worst + 1, starvation_bound(g.n_in, g.n_out), "%ux%u Iters %u: served after %d cycles, bound %u",
                      g.n_in, g.n_out, g.iters, worst + 1, starvation_bound(g.n_in, g.n_out));
        cr_log_info("%ux%u Iters %u: worst case served on cycle %d (bound %u, NumIn*NumOut %u)", g.n_in, g.n_out,
                    g.iters, worst + 1, starvation_bound(g.n_in, g.n_out), g.n_in * g.n_out);
        free(g.color);
        free(g.best);
    }
}

/* Drives set p through `n` request matrices, packed row-major (bit i*NumOut + o), with en high;
 * the model must agree every cycle. Returns the matched rows of each cycle in rows[c][i]. */
static void drive_packed(dut_t *d, const islip_set_t *p, islip_alloc_ref_t *ref, const unsigned *seq, size_t n,
                         uint64_t (*rows)[MAX_PORTS])
{
    for (size_t c = 0; c < n; c++) {
        uint64_t req[MAX_PORTS] = {0};
        dut_match_t got;
        islip_match_t want;
        for (unsigned i = 0; i < p->n_in; i++)
            req[i] = seq[c] >> (i * p->n_out) & ((1u << p->n_out) - 1);
        dut_cycle(d, p, req, true, &got);
        islip_alloc_ref_step(ref, req, true, &want);
        check_model(p, &want, &got, p->name, d->cyc - 1);
        memcpy(rows[c], got.rows, sizeof got.rows);
    }
}

Test(islip_alloc, naive_bound_is_exceeded_by_an_adversary)
{
    /* Found by the exhaustive game above (2 x 3, one iteration). Bit i*3 + o: input i requests
     * output o. */
    static const unsigned prefix[] = {0x08, 0x01};                              /* from reset */
    static const unsigned wait[] = {0x03, 0x05, 0x19, 0x29, 0x0b, 0x05, 0x01}; /* (0, 0) always up */
    const islip_set_t *p = set_named("n2x3i1");
    islip_alloc_ref_t ref;
    dut_t d;
    uint64_t rows[7][MAX_PORTS];
    islip_alloc_ref_init(&ref, p->n_in, p->n_out, p->iters);
    dut_open(&d, 1, "adversary");
    drive_packed(&d, p, &ref, prefix, 2, rows);
    /* GIVEN an adversary whose requests all stay up until served
     * WHEN (0, 0) is requested from the first cycle of `wait` */
    drive_packed(&d, p, &ref, wait, 7, rows);
    for (int c = 1; c < 7; c++)
        for (unsigned i = 0; i < p->n_in; i++) {
            unsigned prev = wait[c - 1] >> (i * 3) & 7, now = wait[c] >> (i * 3) & 7;
            cr_assert_eq(prev & ~(unsigned)rows[c - 1][i] & ~now, 0, "cycle %d: input %u dropped a request unserved",
                         c + 1, i);
        }
    /* THEN it is served on cycle 7 only: later than NumIn * NumOut = 6, within the proven bound 9 */
    for (int c = 0; c < 6; c++)
        cr_assert(!(rows[c][0] & 1), "(0, 0) served on cycle %d, earlier than the adversary should allow", c + 1);
    cr_assert(rows[6][0] & 1, "(0, 0) not served on cycle 7");
    cr_assert_gt(7u, p->n_in * p->n_out);
    cr_assert_leq(7u, starvation_bound(p->n_in, p->n_out));
    vw_islip_alloc_tb_free(d.m);
}

Test(islip_alloc, dropped_requests_can_starve_a_pair)
{
    /* GIVEN a 2 x 3 allocator brought to grant pointers (1, 0, 1) and accept pointers (0, 2)
     * WHEN input 0 requests output 0 every cycle while input 1 requests output 0 only every other
     * cycle, dropping it without being served (not what a VOQ does)
     * THEN output 0 keeps granting input 1, which keeps taking another output, and input 0 is never
     * matched to output 0: the starvation bound needs requests that stay up until served. */
    static const unsigned prefix[] = {0x01, 0x14};
    static const unsigned loop[] = {0x2b, 0x15}; /* input 0: {0,1} / {0,2}; input 1: {0,2} / {1} */
    const islip_set_t *p = set_named("n2x3i1");
    islip_alloc_ref_t ref;
    dut_t d;
    uint64_t rows[2][MAX_PORTS];
    islip_alloc_ref_init(&ref, p->n_in, p->n_out, p->iters);
    dut_open(&d, 1, "dropped requests");
    drive_packed(&d, p, &ref, prefix, 2, rows);
    cr_assert(ref.gptr[0] == 1 && ref.gptr[1] == 0 && ref.gptr[2] == 1, "grant pointers not set up");
    cr_assert(ref.aptr[0] == 0 && ref.aptr[1] == 2, "accept pointers not set up");
    for (int c = 0; c < 100; c++) {
        drive_packed(&d, p, &ref, loop, 2, rows);
        cr_assert(!(rows[0][0] & 1) && !(rows[1][0] & 1), "(0, 0) served in round %d", c);
    }
    vw_islip_alloc_tb_free(d.m);
}

Test(islip_alloc, output_available_every_other_cycle_can_be_starved)
{
    /* Requests that include "output o can take now" are not persistent when an output's
     * availability toggles: each request to it drops while it is unavailable.
     * GIVEN a 2 x 3 allocator, one iteration, brought to grant pointers (1, 0, 0) and accept pointers
     * (1, 2); input 0 holding messages for output 0 only, input 1 for every output
     * WHEN output 0 can take a message every other cycle only (say its credits come back that way)
     * THEN input 1 takes output 2 when output 0 grants it and output 1 when output 0 is away, so its
     * accept pointer is back before output 0 each time output 0 grants it: output 0 never sends,
     * though it is available half the time and both inputs want it. */
    static const unsigned prefix[] = {0x01, 0x10};
    static const unsigned loop[] = {0x39, 0x30}; /* available: 0->0, 1->{0,1,2}; away: 1->{1,2} */
    const islip_set_t *p = set_named("n2x3i1");
    islip_alloc_ref_t ref;
    dut_t d;
    uint64_t rows[2][MAX_PORTS];
    islip_alloc_ref_init(&ref, p->n_in, p->n_out, p->iters);
    dut_open(&d, 1, "toggling output");
    drive_packed(&d, p, &ref, prefix, 2, rows);
    cr_assert(ref.gptr[0] == 1 && ref.aptr[1] == 2, "pointers not set up");
    for (int c = 0; c < 100; c++) {
        drive_packed(&d, p, &ref, loop, 2, rows);
        cr_assert(!((rows[0][0] | rows[0][1]) & 1), "output 0 sent in round %d", c);
    }
    vw_islip_alloc_tb_free(d.m);
}

/* ---- Throughput of an input-queued switch with virtual output queues ---- */

Test(islip_alloc, voq_switch_carries_90_percent_of_offered_load_at_95_percent)
{
    /* GIVEN one VOQ switch per large parameter set: each cycle each input receives a message with
     * probability 0.95 for a uniformly random output; an input requests every output it holds a
     * message for; a matched pair moves one message
     * WHEN it runs 10 000 cycles (RTL, checked against the model every cycle)
     * THEN at least 90 % of what was offered left, and no input ever held more than 1000 messages
     * (about 400 at most here; grant pointers that move on every grant, as in RRM, stay in step,
     * carry well under 90 % and leave thousands of messages per input) */
    static const char *names[] = {"n16x16i1", "n16x16i2", "n32x32i1", "n32x32i2"};
    enum { NS = sizeof names / sizeof names[0] };
    const unsigned cycles = 10000, max_backlog = 1000;
    const double load = 0.95;
    uint64_t seed = tb_seed(7);
    static unsigned voq[NS][MAX_PORTS][MAX_PORTS];
    const islip_set_t *ps[NS];
    islip_alloc_ref_t ref[NS];
    rng_t rng[NS];
    uint64_t arrived[NS] = {0}, left[NS] = {0};
    unsigned backlog_max[NS] = {0};
    char ctx[NS][96];
    dut_t d;
    dut_open(&d, seed, "voq throughput");
    memset(voq, 0, sizeof voq);
    for (int s = 0; s < NS; s++) {
        char name[64];
        ps[s] = set_named(names[s]);
        islip_alloc_ref_init(&ref[s], ps[s]->n_in, ps[s]->n_out, ps[s]->iters);
        snprintf(name, sizeof name, "islip_alloc.voq.%s", names[s]);
        rng_init_named(&rng[s], seed, name);
        snprintf(ctx[s], sizeof ctx[s], "seed=%llu set=%s load=%.2f", (unsigned long long)seed, names[s], load);
        vw_put_u(&d.in, ps[s]->en, 1);
    }
    for (unsigned c = 0; c < cycles; c++) {
        uint64_t req[NS][MAX_PORTS];
        for (int s = 0; s < NS; s++) {
            const islip_set_t *p = ps[s];
            for (unsigned i = 0; i < p->n_in; i++) {
                if (rng_chance(&rng[s], load)) {
                    voq[s][i][rng_below(&rng[s], p->n_out)]++;
                    arrived[s]++;
                }
                req[s][i] = 0;
                for (unsigned o = 0; o < p->n_out; o++)
                    req[s][i] |= (uint64_t)(voq[s][i][o] != 0) << o;
            }
            put_matrix(&d.in, p, req[s]);
        }
        vw_islip_alloc_tb_set(d.m, &d.in);
        vw_islip_alloc_tb_get(d.m, &d.out);
        for (int s = 0; s < NS; s++) {
            const islip_set_t *p = ps[s];
            dut_match_t got;
            islip_match_t want;
            get_dut_match(&d.out, p, &got);
            islip_alloc_ref_step(&ref[s], req[s], true, &want);
            check_model(p, &want, &got, ctx[s], d.cyc);
            for (unsigned i = 0; i < p->n_in; i++) {
                unsigned backlog = 0;
                if (got.rows[i]) {
                    unsigned o = (unsigned)__builtin_ctzll(got.rows[i]);
                    cr_assert_gt(voq[s][i][o], 0, "%s cycle=%llu: matched an empty VOQ", ctx[s],
                                 (unsigned long long)d.cyc);
                    voq[s][i][o]--;
                    left[s]++;
                }
                for (unsigned o = 0; o < p->n_out; o++)
                    backlog += voq[s][i][o];
                if (backlog > backlog_max[s])
                    backlog_max[s] = backlog;
            }
        }
        vw_islip_alloc_tb_tick(d.m, d.cyc++);
    }
    for (int s = 0; s < NS; s++) {
        double carried = (double)left[s] / (double)arrived[s];
        double line = (double)left[s] / ((double)cycles * ps[s]->n_in);
        cr_log_info("%s: carried %.4f of offered, %.4f of line rate, largest input backlog %u", ctx[s], carried, line,
                    backlog_max[s]);
        cr_assert_geq(carried, 0.9, "%s: carried %.4f of the offered load", ctx[s], carried);
        cr_assert_leq(backlog_max[s], max_backlog, "%s: an input held %u messages", ctx[s], backlog_max[s]);
    }
    vw_islip_alloc_tb_free(d.m);
}

/* ---- Parameters ---- */

Test(islip_alloc, rejects_illegal_parameters)
{
    static const struct {
        const char *args, *msg;
    } bad[] = {
        {"-GNumIn=0", "islip_alloc: NumIn must be >= 1"},
        {"-GNumOut=0", "islip_alloc: NumOut must be >= 1"},
        {"-GIters=0", "islip_alloc: Iters must be in 1..4"},
        {"-GIters=5", "islip_alloc: Iters must be in 1..4"},
    };
    rtl_lint_result_t r;
    rtl_lint("islip_alloc", "-GNumIn=3 -GNumOut=5 -GIters=4", &r);
    cr_assert(r.passed, "legal parameters rejected:\n%s", r.out);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        rtl_lint("islip_alloc", bad[k].args, &r);
        cr_assert(r.ran && !r.passed, "%s accepted:\n%s", bad[k].args, r.out);
        cr_assert(strstr(r.out, bad[k].msg), "%s: no \"%s\" in:\n%s", bad[k].args, bad[k].msg, r.out);
    }
}
