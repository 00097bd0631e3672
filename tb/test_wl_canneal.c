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
#include <stdlib.h>
#include <string.h>

#include "cn/addr.h"
#include "config.h"
#include "oracle.h"
#include "rng.h"
#include "tb_seed.h"
#include "wl_func.h"
#include "workloads/workloads.h"

#define NUM_CN 4u

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

static const workload_t *wl(void)
{
    const workload_t *w = workload_find("canneal");
    cr_assert_not_null(w, "no workload canneal");
    return w;
}

static uint64_t counter_of(wl_func_t *f, const char *name)
{
    const uint64_t *p = wl_func_counter(f, name);
    cr_assert_not_null(p, "no statistic workload.%s", name);
    return *p;
}

/* One whole run with its check and the oracle; the runner is returned for statistics. */
static wl_func_t *run_clean(const sim_config_t *c, unsigned nthreads, unsigned num_cn, uint64_t seed, uint64_t base)
{
    wl_func_t *f = wl_func_create(wl(), c, nthreads, num_cn, seed);
    char err[WL_ERR_MAX];
    cr_assert_eq(wl_func_setup(f, err), 0, "seed %llu, %u threads: %s", (unsigned long long)seed, nthreads, err);
    cr_assert_eq(wl_func_threads(f, err), 0, "seed %llu, %u threads: %s", (unsigned long long)seed, nthreads, err);
    cr_assert_eq(wl_func_check(f, err), 0, "seed %llu (replay: TB_SEED=%llu), %u threads: %s",
                 (unsigned long long)seed, (unsigned long long)base, nthreads, err);
    oracle_report_t r;
    wl_func_oracle_check(f, stderr, 5, &r);
    cr_assert(r.lost == 0 && r.phantom == 0 && r.ok == r.words && r.stores > 0,
              "seed %llu, %u threads: oracle: %llu lost, %llu phantom, %llu stores", (unsigned long long)seed, nthreads,
              (unsigned long long)r.lost, (unsigned long long)r.phantom, (unsigned long long)r.stores);
    uint64_t first = 0, unrec = wl_func_unrecorded(f, &first);
    cr_assert_eq(unrec, 0, "seed %llu: %llu remote words unknown to the oracle, first 0x%llx", (unsigned long long)seed,
                 (unsigned long long)unrec, (unsigned long long)first);
    const wl_func_stats_t *s = wl_func_stats(f);
    cr_assert(s->loads && s->stores && s->local_stores && s->local_bytes && s->instructions,
              "seed %llu, %u threads: loads %llu stores %llu local stores %llu instructions %llu",
              (unsigned long long)seed, nthreads, (unsigned long long)s->loads, (unsigned long long)s->stores,
              (unsigned long long)s->local_stores, (unsigned long long)s->instructions);
    cr_assert(nthreads == 1 || s->switches > 0, "seed %llu: %u threads never interleaved", (unsigned long long)seed,
              nthreads);
    /* every move counted once */
    uint64_t moves = counter_of(f, "canneal.accepted_good") + counter_of(f, "canneal.accepted_bad") + counter_of(f, "canneal.rejected") +
                     counter_of(f, "canneal.conflicts");
    cr_assert_eq(moves, (uint64_t)nthreads * c->workload.canneal_swaps * c->workload.canneal_steps);
    return f;
}

static unsigned num_seeds(void)
{
    const char *s = getenv("TB_WL_SEEDS");
    unsigned n = s ? (unsigned)strtoul(s, NULL, 0) : 0;
    return n ? n : 3;
}

Test(canneal, passes_its_check_and_the_oracle)
{
    /* GIVEN 200 elements, 16 moves a thread in each of 5 steps
     * WHEN run on 1, 2, 7 and 16 threads of 4 CNs, 3 seeds
     * THEN a permutation, the logs replay to memory, the cost equation exact, nothing lost */
    sim_config_t c = small_cfg();
    static const unsigned threads[] = {1, 2, 7, 16};
    const uint64_t base = tb_seed(2200);
    uint64_t good = 0, bad = 0, rej = 0, conf = 0;
    for (unsigned k = 0; k < num_seeds(); k++)
        for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
            wl_func_t *f = run_clean(&c, threads[i], NUM_CN, base + k, base);
            good += counter_of(f, "canneal.accepted_good"), bad += counter_of(f, "canneal.accepted_bad");
            rej += counter_of(f, "canneal.rejected"), conf += counter_of(f, "canneal.conflicts");
            wl_func_free(f);
        }
    cr_log_info("canneal, 200 elements: %llu good, %llu bad, %llu rejected, %llu given up", (unsigned long long)good,
                (unsigned long long)bad, (unsigned long long)rej, (unsigned long long)conf);
    /* the annealing rule both accepts worse placements and rejects them; 16 threads meet on
     * neighbourhoods */
    cr_assert(good > 0 && bad > 0 && rej > 0 && conf > 0, "good %llu bad %llu rejected %llu conflicts %llu",
              (unsigned long long)good, (unsigned long long)bad, (unsigned long long)rej, (unsigned long long)conf);
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
    wl_func_free(run_clean(&c, 7, NUM_CN, base, base));
    wl_func_free(run_clean(&c, 16, NUM_CN, base + 1, base));
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
        wl_func_free(run_clean(&c, v[i].threads, 3, base + i, base));
    }
}

Test(canneal, default_sizes_pass_on_64_threads_of_16_cns)
{
    sim_config_t c;
    config_defaults(&c);
    const uint64_t seed = tb_seed(2350);
    wl_func_free(run_clean(&c, 64, 16, seed, seed));
}

/* Runs canneal to its end, then corrupts, one at a time, `tries` random remote words the run wrote
 * or setup initialized whose final value is neither 0 nor 1, and wants check() to fail each time
 * with one line naming canneal, and to pass again once the word is restored. */
Test(canneal, check_fails_on_a_corrupted_word)
{
    sim_config_t c = small_cfg();
    const uint64_t seed = tb_seed(2400);
    wl_func_t *f = wl_func_create(wl(), &c, 7, NUM_CN, seed);
    char err[WL_ERR_MAX];
    cr_assert(wl_func_setup(f, err) == 0 && wl_func_threads(f, err) == 0 && wl_func_check(f, err) == 0,
              "seed %llu: %s", (unsigned long long)seed, err);
    oracle_t *o = wl_func_oracle(f);
    rng_t r;
    rng_init_named(&r, seed, "test.corrupt");
    size_t n = oracle_num_words(o);
    for (unsigned k = 0; k < 60;) {
        oracle_word_t w;
        oracle_word_at(o, (size_t)rng_below(&r, n), &w);
        if (w.last <= 1)
            continue;
        k++;
        uint64_t bad = w.last ^ (1ull << rng_below(&r, 64));
        wl_func_corrupt(f, 0, w.addr, bad);
        int rc = wl_func_check(f, err);
        cr_assert_eq(rc, -1, "seed %llu: word 0x%llx corrupted from 0x%llx to 0x%llx, check passed",
                     (unsigned long long)seed, (unsigned long long)w.addr, (unsigned long long)w.last,
                     (unsigned long long)bad);
        cr_assert(strncmp(err, "canneal: ", 9) == 0 && !strchr(err, '\n'), "one line naming the workload: %s", err);
        if (k <= 6)
            cr_log_info("%s", err);
        oracle_report_t rep;
        wl_func_oracle_check(f, NULL, 0, &rep);
        cr_assert(rep.phantom + rep.lost == 1 && rep.ok == rep.words - 1, "seed %llu: word 0x%llx: %llu lost %llu "
                  "phantom", (unsigned long long)seed, (unsigned long long)w.addr, (unsigned long long)rep.lost,
                  (unsigned long long)rep.phantom);
        wl_func_corrupt(f, 0, w.addr, w.last);
        cr_assert_eq(wl_func_check(f, err), 0, "seed %llu: restored, still failing: %s", (unsigned long long)seed, err);
    }
    wl_func_free(f);
}

Test(canneal, check_reads_the_cost_changes_logged_in_local_memory)
{
    /* GIVEN a finished run on 4 threads (thread 0 on CN 0, whose first local allocation is its log:
     * entry 0 = the pair, the versions, the cost change), with moves accepted
     * WHEN the first entry's cost change is off by one THEN the cost equation fails;
     * WHEN its versions are THEN the replay fails */
    sim_config_t c = small_cfg();
    wl_func_t *f = wl_func_create(wl(), &c, 4, NUM_CN, tb_seed(2450));
    char err[WL_ERR_MAX];
    cr_assert(wl_func_setup(f, err) == 0 && wl_func_threads(f, err) == 0 && wl_func_check(f, err) == 0, "%s", err);
    wl_env_t *e = wl_func_env(f);
    for (uint64_t off = 16; off >= 8; off -= 8) {
        uint64_t a = ADDR_LOCAL_BASE + off, v = e->ops->peek(e, 0, a);
        wl_func_corrupt(f, 0, a, v + 1);
        cr_assert_eq(wl_func_check(f, err), -1, "a corrupted log word %llu passed", (unsigned long long)off / 8);
        cr_assert(strncmp(err, "canneal: ", 9) == 0, "%s", err);
        cr_log_info("%s", err);
        wl_func_corrupt(f, 0, a, v);
        cr_assert_eq(wl_func_check(f, err), 0, "%s", err);
    }
    wl_func_free(f);
}

static void setup_refuses(const sim_config_t *c, unsigned nthreads, const char *want)
{
    char err[WL_ERR_MAX] = "";
    cr_assert_eq(wl_func_run(wl(), c, nthreads, NUM_CN, 1, err), -1, "setup accepted");
    cr_assert(strstr(err, want) && !strchr(err, '\n'), "'%s' does not say '%s'", err, want);
}

Test(canneal, setup_refuses_what_does_not_fit)
{
    /* GIVEN 2 MNs of 4 KiB (8 KiB of CXL memory) for 2048 elements (132 KiB), then 4 KiB of local
     * memory for logs of 8 x 32 x 24 bytes per thread (6 KiB) */
    sim_config_t c;
    config_defaults(&c);
    c.system.num_mn = 2;
    c.mem.mn_size_bytes = 4096;
    setup_refuses(&c, 4, "canneal: the netlist of 2048 elements on 2070 slots (");
    setup_refuses(&c, 4, "bytes with its wires and grid) does not fit the CXL memory");
    config_defaults(&c);
    c.mem.local_size_bytes = 4096;
    setup_refuses(&c, 4, "canneal: thread 0's swap log (6144 bytes) does not fit CN 0's local memory");
}

Test(canneal, setup_refuses_impossible_sizes)
{
    sim_config_t c = small_cfg();
    c.workload.canneal_elements = 1;
    setup_refuses(&c, 4, "canneal: 1 elements (workload.canneal_elements): 2 to 2^26 can be placed and swapped in "
                         "pairs");
    c = small_cfg();
    c.workload.canneal_swaps = 1u << 30;
    c.workload.canneal_steps = 8;
    setup_refuses(&c, 4, "canneal: 4 threads x 1073741824 moves (workload.canneal_swaps) x 8 steps "
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
    for (uint64_t k = 0; k < 400; k++) {
        sim_config_t c = small_cfg();
        c.workload.canneal_elements = 60;
        const uint64_t seed = base + k;
        rng_t r;
        rng_init_named(&r, seed, "test.fail");
        wl_func_t *f = wl_func_create(wl(), &c, 7, NUM_CN, seed);
        wl_func_fail_cn(f, 2, 100 + rng_below(&r, 8000));
        char err[WL_ERR_MAX];
        cr_assert(wl_func_setup(f, err) == 0 && wl_func_threads(f, err) == 0 && wl_func_check(f, err) == 0,
                  "seed %llu (TB_SEED=%llu): %s", (unsigned long long)seed, (unsigned long long)base, err);
        oracle_report_t rep;
        wl_func_oracle_check(f, stderr, 5, &rep);
        cr_assert(rep.lost == 0 && rep.phantom == 0, "seed %llu: oracle: %llu lost, %llu phantom",
                  (unsigned long long)seed, (unsigned long long)rep.lost, (unsigned long long)rep.phantom);
        takeovers += counter_of(f, "canneal.takeovers");
        rolled += counter_of(f, "canneal.rolled_forward");
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
    wl_func_t *f = run_clean(&c, 16, NUM_CN, seed, seed);
    const wl_func_stats_t *s = wl_func_stats(f);
    const double remote = (double)(s->loads + s->stores + s->rmws);
    const double rwf = (double)(s->stores + s->rmws) / remote;
    const uint64_t dyn = s->instructions + s->loads + s->stores + s->rmws + s->local_loads + s->local_stores;
    const double ipa = (double)dyn / remote;
    cr_log_info("canneal, default input, 16 threads: %llu instructions, %llu remote loads, %llu stores, %llu rmws, "
                "%llu local loads, %llu local stores (%llu dynamic in all); remote-write fraction %.4f, %.2f "
                "instructions per remote access; %llu good, %llu bad, %llu rejected, %llu given up",
                (unsigned long long)s->instructions, (unsigned long long)s->loads, (unsigned long long)s->stores,
                (unsigned long long)s->rmws, (unsigned long long)s->local_loads, (unsigned long long)s->local_stores,
                (unsigned long long)dyn, rwf, ipa, (unsigned long long)counter_of(f, "canneal.accepted_good"),
                (unsigned long long)counter_of(f, "canneal.accepted_bad"), (unsigned long long)counter_of(f, "canneal.rejected"),
                (unsigned long long)counter_of(f, "canneal.conflicts"));
    cr_assert(rwf >= RWF_LO && rwf <= RWF_HI, "remote-write fraction %.4f outside [%.3f, %.3f]", rwf, RWF_LO, RWF_HI);
    cr_assert(ipa >= IPA_LO && ipa <= IPA_HI, "instructions per remote access %.2f outside [%.1f, %.1f]", ipa, IPA_LO,
              IPA_HI);
    wl_func_free(f);
}
