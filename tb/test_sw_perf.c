/* Tests of rtl/switch/sw_perf.sv through tb/hdl/sw_perf_tb.sv at 4 ports: random events against a
 * model of the counters, and CSR accesses at random: a read of a counter is answered the cycle
 * after the request with the value the counter had before that request's edge; a write, or a port
 * or class that does not exist, is refused; an address below the counters' is not this block's.
 * Every test runs on both forms: the simulation form (model sw_perf_tb: every port's counters in
 * one process) and the synthesis form (model sw_perf_tb_synth, Verilated with SYNTHESIS defined:
 * an sw_perf_port per port). */
#include <criterion/criterion.h>

#include "base/rng.h"
#include "csr_defs.h"
#include "msg_defs.h"
#include "sb/stream_run.h"
#include "tb_seed.h"
#include "vw_sw_perf_tb.h"
#include "vw_sw_perf_tb_synth.h"

#define PERIOD_PS 1000
#define PORTS 4u
#define CLS MSG_NUM_CLASSES

typedef vw_sw_perf_tb_in in_t;
typedef vw_sw_perf_tb_out out_t;

STREAM_OPS(OPS, vw_sw_perf_tb);
STREAM_OPS(OPS_SYNTH, vw_sw_perf_tb_synth);
/* The two forms have the same ports, so the same structs serve both. */
_Static_assert(sizeof(vw_sw_perf_tb_in) == sizeof(vw_sw_perf_tb_synth_in) &&
                   sizeof(vw_sw_perf_tb_out) == sizeof(vw_sw_perf_tb_synth_out),
               "sw_perf_tb and sw_perf_tb_synth differ in their ports");

/** The model: counter k of class c of port p (wrapping at 32 bits). */
typedef struct perf_ref {
    uint32_t cnt[PORTS][CLS][4];
} perf_ref_t;

/* The counters after a cycle of these events (what the block counts at the edge). */
static void ref_count(perf_ref_t *r, const in_t *in)
{
    for (unsigned p = 0; p < PORTS; p++) {
        if (in->tx_i >> p & 1) {
            unsigned c = in->tx_cls_i >> (4 * p) & 0xfu;
            r->cnt[p][c][SW_PERF_MSGS]++;
            r->cnt[p][c][SW_PERF_BYTES] += in->tx_bytes_i >> (8 * p) & 0xffu;
        }
        for (unsigned c = 0; c < CLS; c++) {
            unsigned b = p * CLS + c;
            r->cnt[p][c][SW_PERF_STARVE] += in->starve_i[b / 32] >> (b % 32) & 1;
            r->cnt[p][c][SW_PERF_STALL] += in->stall_i[b / 32] >> (b % 32) & 1;
        }
    }
}

static void set_bit(uint32_t *v, unsigned b, bool on)
{
    v[b / 32] = (v[b / 32] & ~(1u << (b % 32))) | (uint32_t)on << (b % 32);
}

/* Runs `cycles` cycles of random events (each starved or stalled class keeps its state for runs
 * of cycles; with quiet, most cycles have no event at all) and random CSR accesses, checking
 * every answer against the model; then reads every counter. */
static void run(const stream_ops_t *ops, uint64_t seed, unsigned cycles, bool quiet)
{
    rng_t rng;
    rng_init_named(&rng, seed, "sw_perf");
    void *m = ops->create(PERIOD_PS, seed);
    uint64_t cyc = ops->reset(m, 0, 2);
    perf_ref_t ref = {0};
    in_t in = {.rst_ni = 1};
    out_t out;
    bool pend = false;     /* the last cycle's access was a read that hit */
    uint32_t pend_v = 0;   /* its value */
    unsigned reads = 0, refused = 0;
    for (unsigned t = 0; t < cycles + PORTS * CLS * 4; t++) {
        bool sweep = t >= cycles; /* the final reads of every counter, no event */
        in.tx_i = 0;
        in.tx_cls_i = in.tx_bytes_i = 0;
        if (!sweep && !(quiet && rng_chance(&rng, 0.9))) {
            for (unsigned p = 0; p < PORTS; p++) {
                if (rng_chance(&rng, 0.5)) {
                    in.tx_i |= 1u << p;
                    in.tx_cls_i |= (uint32_t)rng_below(&rng, CLS) << (4 * p);
                    in.tx_bytes_i |= (uint32_t)rng_below(&rng, 256) << (8 * p);
                }
                for (unsigned c = 0; c < CLS; c++) {
                    unsigned b = p * CLS + c;
                    if (rng_chance(&rng, 0.1))
                        set_bit(in.starve_i, b, !(in.starve_i[b / 32] >> (b % 32) & 1));
                    if (rng_chance(&rng, 0.1))
                        set_bit(in.stall_i, b, !(in.stall_i[b / 32] >> (b % 32) & 1));
                }
            }
        } else if (sweep || quiet) {
            in.starve_i[0] = in.starve_i[1] = in.stall_i[0] = in.stall_i[1] = 0;
        }
        /* An access: in the sweep, counter t - cycles; else one in five cycles, a write one in ten,
         * a port or class that does not exist now and then, or an address below the counters. */
        unsigned port = 0, cls = 0, k = 0;
        in.csr_valid_i = sweep || rng_chance(&rng, 0.2);
        in.csr_write_i = !sweep && rng_chance(&rng, 0.1);
        if (sweep) {
            unsigned i = t - cycles;
            port = i / (CLS * 4);
            cls = i / 4 % CLS;
            k = i % 4;
            in.csr_addr_i = SW_CSR_PERF(port, cls, k);
        } else if (rng_chance(&rng, 0.05)) {
            in.csr_addr_i = (uint32_t)rng_below(&rng, 0x1000);
        } else {
            port = (unsigned)rng_below(&rng, PORTS + 1);
            cls = (unsigned)rng_below(&rng, 16);
            k = (unsigned)rng_below(&rng, 4);
            in.csr_addr_i = SW_CSR_PERF(port, cls, k);
        }
        bool below = in.csr_addr_i < 0x1000;
        bool hit = in.csr_valid_i && !below && port < PORTS && cls < CLS;
        ops->set(m, &in);
        ops->get(m, &out);
        cr_assert_eq(out.csr_hit_o, hit, "seed=%llu cycle=%llu addr=0x%x valid=%u: csr_hit_o", (unsigned long long)seed,
                     (unsigned long long)cyc, in.csr_addr_i, in.csr_valid_i);
        cr_assert_eq(out.csr_err_o, hit && in.csr_write_i, "seed=%llu cycle=%llu addr=0x%x: csr_err_o",
                     (unsigned long long)seed, (unsigned long long)cyc, in.csr_addr_i);
        cr_assert_eq(out.csr_rdata_o, pend ? pend_v : 0u,
                     "seed=%llu cycle=%llu: csr_rdata_o 0x%x, the model 0x%x (the read of the cycle before: %s)",
                     (unsigned long long)seed, (unsigned long long)cyc, out.csr_rdata_o, pend ? pend_v : 0u,
                     pend ? "a hit" : "none");
        pend = hit && !in.csr_write_i;
        pend_v = pend ? ref.cnt[port][cls][k] : 0;
        reads += pend;
        refused += out.csr_err_o;
        ops->tick(m, cyc++);
        ref_count(&ref, &in);
    }
    ops->get(m, &out);
    cr_assert_eq(out.csr_rdata_o, pend_v, "seed=%llu: the last read", (unsigned long long)seed);
    cr_assert_gt(reads, cycles / 10, "seed=%llu: reads were made", (unsigned long long)seed);
    cr_assert_gt(refused, 0, "seed=%llu: writes were refused", (unsigned long long)seed);
    for (unsigned p = 0; p < PORTS; p++)
        for (unsigned c = 0; c < CLS; c++)
            cr_assert(ref.cnt[p][c][SW_PERF_STALL] > 0 && ref.cnt[p][c][SW_PERF_MSGS] > 0,
                      "seed=%llu: every counter moved (port %u class %u)", (unsigned long long)seed, p, c);
    ops->free(m);
}

/* Counters that counted read 0 after a reset. */
static void reset_run(const stream_ops_t *ops)
{
    /* GIVEN counters that counted */
    uint64_t seed = tb_seed(3);
    void *m = ops->create(PERIOD_PS, seed);
    uint64_t cyc = ops->reset(m, 0, 2);
    in_t in = {.rst_ni = 1, .tx_i = 0xf, .tx_cls_i = 0x5a31, .tx_bytes_i = 0x44332211};
    in.starve_i[0] = in.stall_i[1] = ~0u;
    ops->set(m, &in);
    for (unsigned i = 0; i < 5; i++)
        ops->tick(m, cyc++);
    /* WHEN reset THEN every counter reads 0 */
    cyc = ops->reset(m, cyc, 1);
    in = (in_t){.rst_ni = 1, .csr_valid_i = 1};
    out_t out;
    for (unsigned i = 0; i <= PORTS * CLS * 4; i++) {
        if (i > 0) {
            ops->get(m, &out);
            cr_assert_eq(out.csr_rdata_o, 0u, "seed=%llu: counter %u after reset", (unsigned long long)seed, i - 1);
        }
        in.csr_valid_i = i < PORTS * CLS * 4;
        in.csr_addr_i = SW_CSR_PERF(i / (CLS * 4), i / 4 % CLS, i % 4);
        ops->set(m, &in);
        ops->tick(m, cyc++);
    }
    ops->free(m);
}

Test(sw_perf, counts_every_event_and_reads_them_the_cycle_after) { run(&OPS, tb_seed(1), 20000, false); }
Test(sw_perf, counts_sparse_events) { run(&OPS, tb_seed(2), 20000, true); }
Test(sw_perf, reset_clears_every_counter) { reset_run(&OPS); }
Test(sw_perf_synth, counts_every_event_and_reads_them_the_cycle_after) { run(&OPS_SYNTH, tb_seed(1), 20000, false); }
Test(sw_perf_synth, counts_sparse_events) { run(&OPS_SYNTH, tb_seed(2), 20000, true); }
Test(sw_perf_synth, reset_clears_every_counter) { reset_run(&OPS_SYNTH); }
