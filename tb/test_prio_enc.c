/* Tests of rtl/common/prio_enc.sv through tb/hdl/prio_enc_tb.sv, which holds one instance per
 * parameter set: exhaustive for N <= 13, random (plus every single bit and the extremes) for
 * N = 64 and 100. The block is combinational: inputs are set and outputs read, no clock. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/rng.h"
#include "sb/rtl_lint.h"
#include "sb/vw_bits.h"
#include "tb_seed.h"
#include "vw_prio_enc_tb.h"

#define PERIOD_PS 1000

typedef vw_prio_enc_tb_in in_t;
typedef vw_prio_enc_tb_out out_t;

/** One instance of the harness: its parameters and where its ports are. */
typedef struct pe_set {
    const char *name;
    unsigned n;
    vw_field_t req;                   /* in in_t */
    vw_field_t onehot, idx, valid;    /* in out_t */
} pe_set_t;

#define PE_SET(P, N)                                                                                        \
    {                                                                                                       \
        #P, N, VW_FIELD(in_t, P##_req_i), VW_FIELD(out_t, P##_onehot_o), VW_FIELD(out_t, P##_idx_o),         \
            VW_FIELD(out_t, P##_valid_o)                                                                    \
    }

static const pe_set_t SMALL[] = {PE_SET(n1, 1), PE_SET(n2, 2), PE_SET(n3, 3), PE_SET(n4, 4),
                                 PE_SET(n5, 5), PE_SET(n8, 8), PE_SET(n13, 13)};
static const pe_set_t LARGE[] = {PE_SET(n64, 64), PE_SET(n100, 100)};

/* Checks one set's outputs for input req against the definition: lowest set bit wins. */
static void check(const pe_set_t *p, const out_t *o, bits_t req, uint64_t seed)
{
    char hr[BITS_MAX_W / 4 + 1], ho[BITS_MAX_W / 4 + 1];
    unsigned want = 0;
    bool any = false;
    for (unsigned i = p->n; i-- > 0;)
        if (bits_test(req, i)) {
            want = i;
            any = true;
        }
    bits_t onehot = vw_get(o, p->onehot), want_onehot = {{0}};
    if (any)
        want_onehot = bits_set(want_onehot, want);
    cr_assert_eq(vw_get_u(o, p->valid), any, "seed=%llu set=%s req=0x%s: valid_o", (unsigned long long)seed, p->name,
                 bits_hex(req, p->n, hr));
    cr_assert(bits_eq(onehot, want_onehot), "seed=%llu set=%s req=0x%s: onehot_o 0x%s, expected bit %u",
              (unsigned long long)seed, p->name, bits_hex(req, p->n, hr), bits_hex(onehot, p->n, ho), want);
    cr_assert_eq(vw_get_u(o, p->idx), want, "seed=%llu set=%s req=0x%s: idx_o %llu, expected %u",
                 (unsigned long long)seed, p->name, bits_hex(req, p->n, hr),
                 (unsigned long long)vw_get_u(o, p->idx), want);
}

Test(prio_enc, exhaustive_for_small_n)
{
    /* Every input value of every small set: set n sees the low n bits of x. */
    vw_prio_enc_tb *m = vw_prio_enc_tb_create(PERIOD_PS, 1);
    const unsigned nmax = SMALL[sizeof SMALL / sizeof SMALL[0] - 1].n;
    for (uint32_t x = 0; x < 1u << nmax; x++) {
        in_t in;
        out_t out;
        memset(&in, 0, sizeof in);
        for (size_t s = 0; s < sizeof SMALL / sizeof SMALL[0]; s++)
            vw_put_u(&in, SMALL[s].req, x & ((1u << SMALL[s].n) - 1));
        vw_prio_enc_tb_set(m, &in);
        vw_prio_enc_tb_get(m, &out);
        for (size_t s = 0; s < sizeof SMALL / sizeof SMALL[0]; s++) {
            bits_t req = {{x & ((1u << SMALL[s].n) - 1)}};
            check(&SMALL[s], &out, req, 0);
        }
    }
    vw_prio_enc_tb_free(m);
}

Test(prio_enc, random_and_single_bits_for_large_n)
{
    uint64_t seed = tb_seed(1);
    rng_t r;
    rng_init_named(&r, seed, "prio_enc.large");
    vw_prio_enc_tb *m = vw_prio_enc_tb_create(PERIOD_PS, seed);
    const size_t nl = sizeof LARGE / sizeof LARGE[0];
    /* Vectors 0 .. 99: bit k alone; 100 .. 199: bit k and a random upper part; 200: zero;
     * 201: all ones; then random with densities from sparse to dense. */
    for (unsigned v = 0; v < 20000; v++) {
        in_t in;
        out_t out;
        bits_t req[sizeof LARGE / sizeof LARGE[0]];
        memset(&in, 0, sizeof in);
        for (size_t s = 0; s < nl; s++) {
            const unsigned n = LARGE[s].n;
            bits_t x = {{0}};
            if (v < 200) {
                unsigned k = v % 100 % n;
                if (v >= 100) {
                    x = bits_random(&r, n);
                    for (unsigned i = 0; i < k; i++)
                        x.w[i / 32] &= ~(1u << (i % 32));
                }
                x = bits_set(x, k);
            } else if (v == 201) {
                for (unsigned i = 0; i < n; i++)
                    x = bits_set(x, i);
            } else if (v > 201) {
                double density = 1.0 / (double)(1u << (v % 8));
                for (unsigned i = 0; i < n; i++)
                    if (rng_chance(&r, density))
                        x = bits_set(x, i);
            }
            req[s] = x;
            vw_put(&in, LARGE[s].req, x);
        }
        vw_prio_enc_tb_set(m, &in);
        vw_prio_enc_tb_get(m, &out);
        for (size_t s = 0; s < nl; s++)
            check(&LARGE[s], &out, req[s], seed);
    }
    vw_prio_enc_tb_free(m);
}

Test(prio_enc, rejects_illegal_parameters)
{
    rtl_lint_result_t r;
    rtl_lint("prio_enc", "-GN=1", &r);
    cr_assert(r.passed, "legal parameters rejected:\n%s", r.out);
    rtl_lint("prio_enc", "-GN=0", &r);
    cr_assert(r.ran && !r.passed, "N=0 accepted:\n%s", r.out);
    cr_assert(strstr(r.out, "prio_enc: N must be >= 1"), "no parameter message in:\n%s", r.out);
}
