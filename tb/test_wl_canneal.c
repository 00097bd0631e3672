/* Tests of the canneal workload (csim/workloads/canneal.c) on the functional runner
 * (tb/harness/wl_func.h):
 * - it passes its own check (placement a permutation, the logs replayed give every location word,
 *   the routing cost equation exact) and the oracle with 1, 2, 7 and 16 threads on 4 CNs, several
 *   seeds, and with odd sizes (chips with blank slots, 16 threads on 4 elements);
 * - its check fails, naming canneal, when one word it wrote or setup wrote is corrupted, and when a
 *   logged cost change in local memory is;
 * - setup refuses what does not fit and impossible sizes;
 * - 64 threads on 16 CNs with the default sizes pass;
 * - a CN failure mid-run: the survivors finish, take over the lost threads' element locks and roll
 *   their swaps forward; check and oracle pass;
 * - its remote-write profile on the default input, within documented ranges.
 * Randomized tests print their seed; rerun one with TB_SEED=<seed> and --filter 'canneal/<test>'. */
#include <criterion/criterion.h>

#include "base/addr.h"
#include "base/config.h"
#include "tb_seed.h"
#include "wl_check.h"
#include "wl_func.h"
#include "workloads/workloads.h"

/* 200 elements (a 15 x 14 chip, 10 blank slots), 16 moves a thread in each of 5 steps: the first
 * steps hot (most moves accepted), the last cooler. */
static sim_config_t small_cfg(void)
{
    sim_config_t c;
    config_defaults(&c);
    c.workload.canneal_elements = 200;
    c.workload.canneal_swaps = 16;
    c.workload.canneal_steps = 5;
    return c;
}

/* The moves' outcomes: accepted good, accepted bad, rejected, given up (conflicts). */
static const char *const outcomes[] = {"canneal.accepted_good", "canneal.accepted_bad", "canneal.rejected",
                                       "canneal.conflicts"};

/* Every move counted once, in one of the outcomes; adds them to r->arg (uint64_t[4]) if not NULL. */
static void counts_every_move(const wl_check_t *r, wl_func_t *f)
{
    uint64_t moves = 0, *sum = r->arg;
    for (size_t i = 0; i < 4; i++) {
        const uint64_t n = wl_check_stat(f, outcomes[i]);
        moves += n;
        if (sum)
            sum[i] += n;
    }
    cr_assert_eq(moves, (uint64_t)r->nthreads * r->cfg->workload.canneal_swaps * r->cfg->workload.canneal_steps,
                 "seed %llu", (unsigned long long)r->seed);
}

/* A clean run of c on nthreads threads of num_cn CNs with seed (base replays it): the usual statistics,
 * every move counted. */
static wl_check_t run_of(const sim_config_t *c, unsigned nthreads, unsigned num_cn, uint64_t seed,
                         uint64_t base)
{
    return (wl_check_t){.name = "canneal", .cfg = c, .nthreads = nthreads, .num_cn = num_cn, .seed = seed,
                        .base = base, .nonzero = WL_NZ_USUAL, .also = counts_every_move};
}

Test(canneal, passes_its_check_and_the_oracle)
{
    /* GIVEN 200 elements, 16 moves a thread in each of 5 steps
     * WHEN run on 1, 2, 7 and 16 threads of 4 CNs, 3 seeds
     * THEN a permutation, the logs replay to memory, the cost equation exact, nothing lost */
    sim_config_t c = small_cfg();
    const uint64_t base = tb_seed(2200);
    uint64_t sum[4] = {0, 0, 0, 0};
    wl_check_t r = run_of(&c, 0, WL_CHECK_CNS, base, base);
    r.arg = sum;
    wl_check_sweep(&r, 0, NULL, 0);
    cr_log_info("canneal, 200 elements: %llu good, %llu bad, %llu rejected, %llu given up", (unsigned long long)sum[0],
                (unsigned long long)sum[1], (unsigned long long)sum[2], (unsigned long long)sum[3]);
    /* the annealing rule both accepts worse placements and rejects them; 16 threads meet on
     * neighbourhoods */
    cr_assert(sum[0] > 0 && sum[1] > 0 && sum[2] > 0 && sum[3] > 0, "good %llu bad %llu rejected %llu conflicts %llu",
              (unsigned long long)sum[0], (unsigned long long)sum[1], (unsigned long long)sum[2],
              (unsigned long long)sum[3]);
}

Test(canneal, cold_runs_pass)
{
    /* GIVEN 24 steps (the temperature falls from 1333 to 0.1: the last steps take only moves that
     * lower the cost, or keep it, like swapping two blank slots)
     * WHEN run on 7 and 16 threads THEN check and oracle pass */
    sim_config_t c = small_cfg();
    c.workload.canneal_swaps = 4;
    c.workload.canneal_steps = 24;
    const uint64_t base = tb_seed(2250);
    wl_check_t r = run_of(&c, 7, WL_CHECK_CNS, base, base);
    wl_func_free(wl_check_run(&r));
    r.nthreads = 16;
    r.seed = base + 1;
    wl_func_free(wl_check_run(&r));
}

Test(canneal, odd_sizes_pass)
{
    /* GIVEN chips that are not full (7 elements on 3 x 3 slots, 13 on 4 x 4, 1001 on 32 x 32), every
     * slot wired (4 elements, 2 x 2), 16 threads on 4 elements (every move contends), odd moves
     * WHEN run THEN check and oracle pass */
    static const struct {
        uint64_t elems, swaps, steps;
        unsigned threads;
    } v[] = {{7, 5, 3, 7}, {13, 3, 2, 16}, {4, 7, 3, 16}, {4, 1, 1, 2}, {1001, 9, 2, 7}, {2, 3, 2, 3}};
    const uint64_t base = tb_seed(2300);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        sim_config_t c = small_cfg();
        c.workload.canneal_elements = v[i].elems;
        c.workload.canneal_swaps = v[i].swaps;
        c.workload.canneal_steps = v[i].steps;
        const wl_check_t r = run_of(&c, v[i].threads, 3, base + i, base);
        wl_func_free(wl_check_run(&r));
    }
}

Test(canneal, default_sizes_pass_on_64_threads_of_16_cns)
{
    sim_config_t c;
    config_defaults(&c);
    const uint64_t seed = tb_seed(2350);
    const wl_check_t r = run_of(&c, 64, 16, seed, seed);
    wl_func_free(wl_check_run(&r));
}

Test(canneal, check_fails_on_a_corrupted_word)
{
    /* GIVEN a finished run on 7 threads WHEN, one at a time, 60 random remote words the run wrote or
     * setup initialized whose final value is neither 0 nor 1 have one bit flipped THEN the check
     * fails each time with one line naming canneal, and passes again once the word is restored */
    sim_config_t c = small_cfg();
    const uint64_t seed = tb_seed(2400);
    const wl_check_t r = run_of(&c, 7, WL_CHECK_CNS, seed, seed);
    wl_check_corruption(&r, 60, 0);
}

Test(canneal, check_reads_the_cost_changes_logged_in_local_memory)
{
    /* GIVEN a finished run on 4 threads (thread 0 on CN 0, whose first local allocation is its log:
     * entry 0 = the pair, the versions, the cost change), with moves accepted
     * WHEN the first entry's cost change is off by one THEN the cost equation fails;
     * WHEN its versions are THEN the replay fails */
    sim_config_t c = small_cfg();
    const uint64_t seed = tb_seed(2450);
    const wl_check_t r = run_of(&c, 4, WL_CHECK_CNS, seed, seed);
    wl_func_t *f = wl_check_run(&r);
    wl_env_t *e = wl_func_env(f);
    for (uint64_t off = 16; off >= 8; off -= 8) {
        const uint64_t a = ADDR_LOCAL_BASE + off;
        wl_check_catches(&r, f, 0, a, e->ops->peek(e, 0, a) + 1, NULL);
    }
    wl_func_free(f);
}

Test(canneal, setup_refuses_what_does_not_fit)
{
    /* GIVEN 2 MNs of 4 KiB (8 KiB of CXL memory) for 2048 elements (132 KiB), then 4 KiB of local
     * memory for logs of 8 x 32 x 24 bytes per thread (6 KiB) */
    sim_config_t c;
    config_defaults(&c);
    c.system.num_mn = 2;
    c.mem.mn_size_bytes = 4096;
    wl_check_refuses("canneal", &c, 4, "canneal: the netlist of 2048 elements on 2070 slots (");
    wl_check_refuses("canneal", &c, 4, "bytes with its wires and grid) does not fit the CXL memory");
    config_defaults(&c);
    c.mem.local_size_bytes = 4096;
    wl_check_refuses("canneal", &c, 4, "canneal: thread 0's swap log (6144 bytes) does not fit CN 0's local memory");
}

Test(canneal, setup_refuses_impossible_sizes)
{
    sim_config_t c = small_cfg();
    c.workload.canneal_elements = 1;
    wl_check_refuses("canneal", &c, 4, "canneal: 1 elements (workload.canneal_elements): 2 to 2^26 can be placed and "
                                       "swapped in pairs");
    c = small_cfg();
    c.workload.canneal_swaps = 1u << 30;
    c.workload.canneal_steps = 8;
    wl_check_refuses("canneal", &c, 4, "canneal: 4 threads x 1073741824 moves (workload.canneal_swaps) x 8 steps "
                                       "(workload.canneal_steps) must be 1 to 2^32 - 1");
}

Test(canneal, survives_a_cn_failure)
{
    /* GIVEN 7 threads on 4 CNs, 60 elements (the lost threads' locked elements are soon picked
     * again), and for each of 400 runs CN 2 failing after a random number of calls (threads 2 and 6
     * lost with their logs and counters)
     * WHEN the survivors go on THEN each run ends (barriers and locks survive the loss), passes the
     * check (a permutation once the lost threads' last swaps are rolled forward, the live logs'
     * versions consistent with memory) and the oracle; over the runs survivors took over locks and
     * finished swaps the lost threads had left half done */
    const uint64_t base = tb_seed(2500);
    uint64_t takeovers = 0, rolled = 0;
    sim_config_t c = small_cfg();
    c.workload.canneal_elements = 60;
    for (uint64_t k = 0; k < 400; k++) {
        const uint64_t seed = base + k;
        wl_func_t *f = wl_check_run(&(wl_check_t){.name = "canneal", .cfg = &c, .nthreads = 7, .seed = seed,
                                                  .base = base, .fail = true, .fail_cn = 2,
                                                  .fail_after = wl_check_fail_after(seed, 100, 8000)});
        takeovers += wl_check_stat(f, "canneal.takeovers");
        rolled += wl_check_stat(f, "canneal.rolled_forward");
        wl_func_free(f);
    }
    cr_log_info("canneal, 400 failures: %llu locks taken over, %llu location words rolled forward",
                (unsigned long long)takeovers, (unsigned long long)rolled);
    cr_assert(takeovers > 0 && rolled > 0, "400 failures: %llu locks taken over, %llu words rolled forward",
              (unsigned long long)takeovers, (unsigned long long)rolled);
}

/* The measured profile of the default input (16 threads, 4 CNs, seed 2600): remote-write fraction
 * 0.054, 3.97 instructions per remote access (about 78 remote loads and 4.5 remote writes a move:
 * 47 % of the moves accepted, each 2 lock CASes, 3 intent and 2 location stores, 2 unlocks); the
 * ranges are those +- 25 %. */
#define RWF_LO 0.040
#define RWF_HI 0.068
#define IPA_LO 3.0
#define IPA_HI 5.0

Test(canneal, remote_write_profile)
{
    /* GIVEN the default input (2048 elements, 8 moves a thread in each of 32 steps) on 16 threads of
     * 4 CNs WHEN run THEN the remote-write fraction and the instructions per remote access are
     * within 25 % of what was measured */
    sim_config_t c;
    config_defaults(&c);
    const uint64_t seed = tb_seed(2600);
    const wl_check_t r = run_of(&c, 16, WL_CHECK_CNS, seed, seed);
    wl_func_t *f = wl_check_profile(&r, (wl_check_band_t){RWF_LO, RWF_HI}, (wl_check_band_t){IPA_LO, IPA_HI});
    cr_log_info("canneal, default input: %llu good, %llu bad, %llu rejected, %llu given up",
                (unsigned long long)wl_check_stat(f, outcomes[0]), (unsigned long long)wl_check_stat(f, outcomes[1]),
                (unsigned long long)wl_check_stat(f, outcomes[2]), (unsigned long long)wl_check_stat(f, outcomes[3]));
    wl_func_free(f);
}
