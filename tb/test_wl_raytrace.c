/* Tests of the raytrace workload (csim/workloads/raytrace.c) on the functional runner
 * (tb/harness/wl_func.h):
 * - it passes its own check (every pixel bit-exact against a sequential render, every tile
 *   rendered once by the thread that claimed it, pools empty and unlocked, the scene unchanged)
 *   and the oracle with 1, 2, 7 and 16 threads on 4 CNs, several seeds, and with sizes that do
 *   not split evenly (edge tiles narrower, more threads than tiles, one pixel, one triangle);
 * - its check fails on a corrupted shared word, with one line naming the workload;
 * - setup refuses what does not fit the CXL or the local memory, and more threads than its
 *   barrier serves;
 * - 64 threads on 16 CNs with the default sizes pass;
 * - a CN failure mid-run: the survivors steal the lost threads' pools, rescue their unfinished
 *   tiles, and pass the check and the oracle;
 * - its remote-write profile on the small default input lies in a documented range.
 * Randomized tests print their seed; rerun one with TB_SEED=<seed> and --filter. TB_WL_SEEDS sets
 * how many seeds the runs walk (default 3). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
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

/* The remote-write profile measured on the default input, 16 threads of 4 CNs (remote_write_profile). */
#define WFRAC 0.0029
#define IPR 4.8

static unsigned num_seeds(void)
{
    const char *s = getenv("TB_WL_SEEDS");
    unsigned n = s ? (unsigned)strtoul(s, NULL, 0) : 0;
    return n ? n : 3;
}

/* A 16 x 16 image (16 tiles of 4 x 4) of 96 triangles: small enough for many runs, and with 16
 * threads every pool holds one tile, so that threads steal. */
static sim_config_t small_cfg(void)
{
    sim_config_t c;
    config_defaults(&c);
    c.workload.raytrace_image = 16;
    c.workload.raytrace_triangles = 96;
    return c;
}

static const workload_t *rt(void)
{
    const workload_t *w = workload_find("raytrace");
    cr_assert_not_null(w, "no workload raytrace");
    return w;
}

static uint64_t stat_of(wl_func_t *f, const char *name)
{
    const uint64_t *p = wl_func_counter(f, name);
    cr_assert_not_null(p, "no statistic workload.%s", name);
    return *p;
}

/* One run to its end on num_cn CNs: setup, threads, check, oracle; returns the runner (to free). */
static wl_func_t *run_clean(const sim_config_t *c, unsigned nthreads, unsigned num_cn, uint64_t seed, uint64_t base)
{
    wl_func_t *f = wl_func_create(rt(), c, nthreads, num_cn, seed);
    char err[WL_ERR_MAX];
    cr_assert_not_null(f);
    cr_assert_eq(wl_func_setup(f, err), 0, "seed %llu, %u threads: %s", (unsigned long long)seed, nthreads, err);
    cr_assert_eq(wl_func_threads(f, err), 0, "seed %llu, %u threads: %s", (unsigned long long)seed, nthreads, err);
    cr_assert_eq(wl_func_check(f, err), 0, "seed %llu (replay: TB_SEED=%llu), %u threads, image %llu, %llu "
                 "triangles: %s", (unsigned long long)seed, (unsigned long long)base, nthreads,
                 (unsigned long long)c->workload.raytrace_image, (unsigned long long)c->workload.raytrace_triangles,
                 err);
    oracle_report_t r;
    wl_func_oracle_check(f, stderr, 5, &r);
    cr_assert(r.lost == 0 && r.phantom == 0 && r.ok == r.words && r.stores > 0,
              "seed %llu, %u threads: oracle: %llu lost, %llu phantom, %llu stores", (unsigned long long)seed,
              nthreads, (unsigned long long)r.lost, (unsigned long long)r.phantom, (unsigned long long)r.stores);
    uint64_t first = 0, unrec = wl_func_unrecorded(f, &first);
    cr_assert_eq(unrec, 0, "seed %llu: %llu remote words unknown to the oracle, first 0x%llx",
                 (unsigned long long)seed, (unsigned long long)unrec, (unsigned long long)first);
    const wl_func_stats_t *s = wl_func_stats(f);
    cr_assert(s->loads && s->stores && s->local_stores && s->local_bytes && s->instructions,
              "seed %llu, %u threads: loads %llu stores %llu local stores %llu instructions %llu",
              (unsigned long long)seed, nthreads, (unsigned long long)s->loads, (unsigned long long)s->stores,
              (unsigned long long)s->local_stores, (unsigned long long)s->instructions);
    cr_assert(nthreads == 1 || s->switches > 0, "seed %llu: %u threads never interleaved", (unsigned long long)seed,
              nthreads);
    /* every tile rendered once, counted in the statistics */
    const uint64_t side = c->workload.raytrace_image, tiles = ((side + 3) / 4) * ((side + 3) / 4);
    cr_assert_eq(stat_of(f, "raytrace.tiles"), tiles, "seed %llu: %llu tiles rendered of %llu",
                 (unsigned long long)seed, (unsigned long long)stat_of(f, "raytrace.tiles"),
                 (unsigned long long)tiles);
    return f;
}

static void runs_clean(const sim_config_t *c, uint64_t dflt_seed)
{
    static const unsigned threads[] = {1, 2, 7, 16};
    const uint64_t base = tb_seed(dflt_seed);
    for (unsigned k = 0; k < num_seeds(); k++)
        for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++)
            wl_func_free(run_clean(c, threads[i], NUM_CN, base + k, base));
}

Test(raytrace, passes_its_check_and_the_oracle)
{
    /* GIVEN a 16 x 16 image of 96 triangles WHEN rendered by 1, 2, 7 and 16 threads on 4 CNs, several
     * seeds THEN every pixel is the sequential render's, every tile rendered once, no lost store */
    sim_config_t c = small_cfg();
    runs_clean(&c, 100);
}

Test(raytrace, threads_steal_tiles)
{
    /* GIVEN 16 threads and 16 tiles (one in each pool) and 7 threads and 16 tiles (pools of 2 and 3)
     * WHEN run THEN over the seeds some threads took tiles from others' pools, and the counts add up */
    sim_config_t c = small_cfg();
    const uint64_t base = tb_seed(150);
    uint64_t steals = 0;
    for (unsigned k = 0; k < 4; k++)
        for (unsigned n = 7; n <= 16; n += 9) {
            wl_func_t *f = run_clean(&c, n, NUM_CN, base + k, base);
            steals += stat_of(f, "raytrace.steals");
            cr_assert(stat_of(f, "raytrace.rays") >= 256, "seed %llu: %llu rays for 256 pixels",
                      (unsigned long long)(base + k), (unsigned long long)stat_of(f, "raytrace.rays"));
            cr_assert_eq(stat_of(f, "raytrace.rescues") + stat_of(f, "raytrace.skips"), 0);
            wl_func_free(f);
        }
    cr_log_info("raytrace: %llu steals over 8 runs", (unsigned long long)steals);
    cr_assert_gt(steals, 0, "no thread ever stole a tile (TB_SEED=%llu)", (unsigned long long)base);
}

Test(raytrace, odd_sizes_pass)
{
    /* GIVEN images whose side is not a multiple of the 4-pixel tile (edge tiles 1 to 3 pixels wide),
     * fewer tiles than threads (6 x 6: 4 tiles for 7 threads), one pixel, and odd triangle counts
     * (1, 7, 133: objects of unequal sizes, a grid of one cell) WHEN run THEN they pass */
    static const struct { uint64_t side, tris; unsigned threads; } v[] = {
        {13, 96, 7}, {6, 96, 7}, {1, 96, 2}, {9, 1, 7}, {10, 7, 3}, {11, 133, 16}, {5, 2, 16}};
    sim_config_t c = small_cfg();
    const uint64_t base = tb_seed(200);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        c.workload.raytrace_image = v[i].side;
        c.workload.raytrace_triangles = v[i].tris;
        wl_func_free(run_clean(&c, v[i].threads, 3, base + i, base));
    }
}

Test(raytrace, sixty_four_threads_on_sixteen_cns_pass)
{
    /* GIVEN the default sizes (a 32 x 32 image of 256 triangles) WHEN 64 threads on 16 CNs render it
     * THEN it passes its check and the oracle */
    sim_config_t c;
    config_defaults(&c);
    const uint64_t seed = tb_seed(300);
    wl_func_free(run_clean(&c, 64, 16, seed, seed));
}

/* ------------------------------------------------------------------------------------------------
 * The check can fail */

/* Flips one random bit, `tries` times, of a random remote word whose final value is neither 0 nor 1
 * (written: only among the words the run stored to, not setup's alone): the check must fail each
 * time with one line naming raytrace, the oracle must see it, and once restored the check passes. */
static void corruption_fails(wl_func_t *f, uint64_t seed, unsigned tries, bool written)
{
    oracle_t *o = wl_func_oracle(f);
    rng_t r;
    rng_init_named(&r, seed, written ? "test.corrupt_written" : "test.corrupt");
    const size_t n = oracle_num_words(o);
    char err[WL_ERR_MAX];
    for (unsigned k = 0; k < tries;) {
        oracle_word_t w;
        oracle_word_at(o, (size_t)rng_below(&r, n), &w);
        if (w.last <= 1 || (written && w.stores == 0))
            continue;
        k++;
        const uint64_t bad = w.last ^ (1ull << rng_below(&r, 64));
        wl_func_corrupt(f, 0, w.addr, bad);
        cr_assert_eq(wl_func_check(f, err), -1, "seed %llu: word 0x%llx corrupted from 0x%llx to 0x%llx, check "
                     "passed", (unsigned long long)seed, (unsigned long long)w.addr, (unsigned long long)w.last,
                     (unsigned long long)bad);
        cr_assert(strncmp(err, "raytrace: ", 10) == 0 && !strchr(err, '\n'), "one line naming raytrace: %s", err);
        if (k <= 4)
            cr_log_info("%s", err);
        oracle_report_t rep;
        wl_func_oracle_check(f, NULL, 0, &rep);
        cr_assert(rep.phantom + rep.lost == 1 && rep.ok == rep.words - 1, "seed %llu: word 0x%llx: %llu lost %llu "
                  "phantom", (unsigned long long)seed, (unsigned long long)w.addr, (unsigned long long)rep.lost,
                  (unsigned long long)rep.phantom);
        wl_func_corrupt(f, 0, w.addr, w.last);
        cr_assert_eq(wl_func_check(f, err), 0, "seed %llu: restored, still failing: %s", (unsigned long long)seed,
                     err);
    }
}

Test(raytrace, check_fails_on_a_corrupted_word)
{
    /* GIVEN a finished run on 7 threads of 4 CNs
     * WHEN one remote word the run wrote or setup initialized (scene, grid, pixels, tile states, pool
     * arrays and status, barrier masks; not words ending 0 or 1) gets one bit flipped, 60 times, then
     * 40 times one the run stored to (pixels, tile states, pool status, barrier)
     * THEN each time the check fails with one line naming raytrace, the oracle sees it too, and once
     * restored the check passes again */
    sim_config_t c = small_cfg();
    const uint64_t seed = tb_seed(400);
    wl_func_t *f = wl_func_create(rt(), &c, 7, NUM_CN, seed);
    char err[WL_ERR_MAX];
    cr_assert(wl_func_setup(f, err) == 0 && wl_func_threads(f, err) == 0 && wl_func_check(f, err) == 0,
              "seed %llu: %s", (unsigned long long)seed, err);
    corruption_fails(f, seed, 60, false);
    corruption_fails(f, seed, 40, true);
    wl_func_free(f);
}

/* The first word the run stored to whose final value is v, or fails. */
static uint64_t stored_word(wl_func_t *f, uint64_t v)
{
    const oracle_t *o = wl_func_oracle(f);
    for (size_t i = 0; i < oracle_num_words(o); i++) {
        oracle_word_t w;
        oracle_word_at(o, i, &w);
        if (w.stores && w.last == v)
            return w.addr;
    }
    cr_assert_fail("no stored word holds 0x%llx", (unsigned long long)v);
    return 0;
}

/* Sets the word at a to v, wants the check to fail saying want, restores it. */
static void fails_saying(wl_func_t *f, uint64_t a, uint64_t v, const char *want)
{
    char err[WL_ERR_MAX];
    const uint64_t old = wl_func_env(f)->ops->peek(wl_func_env(f), 0, a);
    wl_func_corrupt(f, 0, a, v);
    cr_assert_eq(wl_func_check(f, err), -1, "0x%llx set to 0x%llx: the check passed", (unsigned long long)a,
                 (unsigned long long)v);
    cr_assert(strstr(err, want), "'%s' does not say '%s'", err, want);
    cr_log_info("%s", err);
    wl_func_corrupt(f, 0, a, old);
    cr_assert_eq(wl_func_check(f, err), 0, "%s", err);
}

Test(raytrace, check_judges_tiles_pools_and_the_barrier)
{
    /* GIVEN a finished run on 7 threads of 4 CNs (a tile thread 0 rendered holds 2^32 + 1: rendered once,
     * claimed by thread 0; the pools' status words hold 3, empty; the barrier's first mask 0x7f)
     * WHEN that tile's state says it was rendered twice, or by thread 1, or claimed and never
     * finished, or never claimed; a pool's status says it still holds tiles; the barrier's mask lacks
     * thread 6
     * THEN the check fails saying which, and passes again once the word is restored */
    sim_config_t c = small_cfg();
    char err[WL_ERR_MAX];
    wl_func_t *f = wl_func_create(rt(), &c, 7, NUM_CN, tb_seed(420));
    cr_assert(wl_func_setup(f, err) == 0 && wl_func_threads(f, err) == 0 && wl_func_check(f, err) == 0, "%s", err);
    const uint64_t st = stored_word(f, (1ull << 32) + 1);
    fails_saying(f, st, (2ull << 32) + 1, "rendered more than once");
    fails_saying(f, st, (1ull << 32) + 2, "finished by a thread whose log does not hold it");
    fails_saying(f, st, 1, "claimed by a live thread, never finished");
    fails_saying(f, st, 0, "claimed by no thread");
    fails_saying(f, stored_word(f, 3), 2, "ends with status 2 and 0 tiles, want empty (3) and 0");
    fails_saying(f, stored_word(f, 0x7f), 0x3f, "the barrier released 1 phases (want 1) with masks 0x3f");
    wl_func_free(f);
}

Test(raytrace, check_reads_the_logs_in_local_memory)
{
    /* GIVEN a finished run on 4 threads (thread 0 on CN 0, whose first local allocation is its tile
     * log, then its counters) WHEN its first log entry names another tile, or its ray count is one
     * more THEN the check fails; restored, it passes */
    sim_config_t c = small_cfg();
    wl_func_t *f = wl_func_create(rt(), &c, 4, NUM_CN, tb_seed(410));
    char err[WL_ERR_MAX];
    cr_assert(wl_func_setup(f, err) == 0 && wl_func_threads(f, err) == 0 && wl_func_check(f, err) == 0, "%s", err);
    wl_env_t *e = wl_func_env(f);
    const uint64_t log = ADDR_LOCAL_BASE, rays = ADDR_LOCAL_BASE + 8 * 16 + 8;
    const uint64_t en = e->ops->peek(e, 0, log), nr = e->ops->peek(e, 0, rays);
    wl_func_corrupt(f, 0, log, en ^ 1);
    cr_assert_eq(wl_func_check(f, err), -1, "a log naming another tile passed");
    cr_log_info("%s", err);
    wl_func_corrupt(f, 0, log, en);
    wl_func_corrupt(f, 0, rays, nr + 1);
    cr_assert_eq(wl_func_check(f, err), -1, "a wrong ray count passed");
    cr_assert(strstr(err, "thread 0 counts"), "%s", err);
    cr_log_info("%s", err);
    wl_func_corrupt(f, 0, rays, nr);
    cr_assert_eq(wl_func_check(f, err), 0, "%s", err);
    wl_func_free(f);
}

/* ------------------------------------------------------------------------------------------------
 * Setup refuses what cannot work */

static void setup_refuses(const sim_config_t *c, unsigned nthreads, const char *want)
{
    char err[WL_ERR_MAX] = "";
    cr_assert_eq(wl_func_run(rt(), c, nthreads, NUM_CN, 1, err), -1, "setup accepted");
    cr_assert(strstr(err, want) && !strchr(err, '\n'), "'%s' does not say '%s'", err, want);
}

Test(raytrace, setup_refuses_what_does_not_fit)
{
    /* GIVEN 2 MNs of 4 KiB (8 KiB of CXL memory): 96 triangles (18 KiB of records) do not fit; 8
     * triangles (1.5 KiB and a 3^3 grid) do but a 64 x 64 frame buffer (32 KiB) does not
     * THEN setup refuses, naming which */
    sim_config_t c = small_cfg();
    c.system.num_mn = 2;
    c.mem.mn_size_bytes = 4096;
    setup_refuses(&c, 4, "raytrace: a scene of 96 triangles in a 6^3 grid (");
    setup_refuses(&c, 4, "bytes) does not fit the CXL memory");
    c.workload.raytrace_triangles = 8;
    c.workload.raytrace_image = 64;
    setup_refuses(&c, 4, "raytrace: a 64 x 64 frame buffer and its 256 tiles do not fit the CXL memory");
    /* GIVEN 4 KiB of local memory a CN: a 256 x 256 image's 4096 tiles make a 32 KiB log */
    c = small_cfg();
    c.mem.local_size_bytes = 4096;
    c.workload.raytrace_image = 256;
    setup_refuses(&c, 4, "raytrace: thread 0's tile log (32768 bytes) does not fit CN 0's local memory");
}

Test(raytrace, setup_refuses_impossible_sizes)
{
    /* GIVEN 65 threads THEN setup refuses (the barrier serves 64); a 0-pixel image or no triangles
     * are refused by the configuration's ranges before any setup */
    sim_config_t c = small_cfg();
    c.workload.raytrace_image = 1;
    setup_refuses(&c, 65, "raytrace: 65 threads, but its barrier (csim/cn/wl_sync.c) serves at most 64");
    config_err_t ce;
    cr_assert_neq(config_set(&c, "workload.raytrace_image=0", &ce), 0);
    cr_assert_neq(config_set(&c, "workload.raytrace_triangles=0", &ce), 0);
}

/* ------------------------------------------------------------------------------------------------
 * A CN failure */

/* A run on 7 threads of 4 CNs with CN 2 (threads 2 and 6) failing after `after` calls: it must pass
 * the check and the oracle. Adds its statistics to sum (rescues, skips, takeovers). */
static void fails_clean(const sim_config_t *c, uint64_t seed, uint64_t base, uint64_t after, uint64_t sum[3])
{
    wl_func_t *f = wl_func_create(rt(), c, 7, NUM_CN, seed);
    wl_func_fail_cn(f, 2, after);
    char err[WL_ERR_MAX];
    cr_assert(wl_func_setup(f, err) == 0 && wl_func_threads(f, err) == 0 && wl_func_check(f, err) == 0,
              "seed %llu (TB_SEED=%llu), CN 2 failing after %llu calls: %s", (unsigned long long)seed,
              (unsigned long long)base, (unsigned long long)after, err);
    oracle_report_t rep;
    wl_func_oracle_check(f, stderr, 5, &rep);
    cr_assert(rep.lost == 0 && rep.phantom == 0, "seed %llu, after %llu: oracle: %llu lost, %llu phantom",
              (unsigned long long)seed, (unsigned long long)after, (unsigned long long)rep.lost,
              (unsigned long long)rep.phantom);
    sum[0] += stat_of(f, "raytrace.rescues");
    sum[1] += stat_of(f, "raytrace.skips");
    sum[2] += stat_of(f, "raytrace.takeovers");
    wl_func_free(f);
}

Test(raytrace, survives_a_cn_failure)
{
    /* GIVEN 7 threads on 4 CNs and, for each of 60 runs, CN 2 failing after a random number of calls
     * within the run (65 000 to 125 000 calls: threads 2 and 6 lost with their logs and counters, maybe
     * holding a pool's lock, or a tile claimed and half rendered)
     * WHEN the survivors go on THEN none stalls; they empty every pool (the lost threads' too) and
     * rescue the tiles the lost threads left unfinished: each run passes the check (every pixel exact,
     * or 0 in a tile a lost thread left after every sweep) and the oracle; over the runs tiles were
     * rescued */
    const uint64_t base = tb_seed(500);
    uint64_t sum[3] = {0, 0, 0};
    sim_config_t c = small_cfg();
    for (uint64_t k = 0; k < 60; k++) {
        rng_t r;
        rng_init_named(&r, base + k, "test.fail");
        fails_clean(&c, base + k, base, 200 + rng_below(&r, 110000), sum);
    }
    cr_log_info("raytrace, 60 failures: %llu tiles rescued, %llu claimed tiles skipped on a pool's top, %llu pool "
                "locks taken over", (unsigned long long)sum[0], (unsigned long long)sum[1],
                (unsigned long long)sum[2]);
    cr_assert(sum[0] > 10, "60 failures, %llu tiles rescued (TB_SEED=%llu)", (unsigned long long)sum[0],
              (unsigned long long)base);
}

Test(raytrace, a_lost_popper_leaves_its_pool_to_the_survivors)
{
    /* GIVEN an 8 x 8 image (4 tiles) of 8 triangles on 7 threads of 4 CNs, and CN 2 failing after
     * each of the first 600 calls in turn (threads 2 and 6 are lost while they pop their first
     * tiles: some holding their pool's lock, some after claiming a tile before moving the pool's top)
     * THEN every run passes, survivors took the lost threads' pool locks over, skipped a claimed tile
     * on a pool's top and rescued it */
    sim_config_t c = small_cfg();
    c.workload.raytrace_image = 8;
    c.workload.raytrace_triangles = 8;
    const uint64_t base = tb_seed(520);
    uint64_t sum[3] = {0, 0, 0};
    for (uint64_t after = 0; after < 600; after++)
        fails_clean(&c, base + after % 4, base, after, sum);
    cr_log_info("raytrace, 600 early failures: %llu tiles rescued, %llu claimed tiles skipped, %llu pool locks taken "
                "over", (unsigned long long)sum[0], (unsigned long long)sum[1], (unsigned long long)sum[2]);
    cr_assert(sum[0] > 0 && sum[1] > 0 && sum[2] > 0, "TB_SEED=%llu: %llu rescues, %llu skips, %llu takeovers",
              (unsigned long long)base, (unsigned long long)sum[0], (unsigned long long)sum[1],
              (unsigned long long)sum[2]);
}

/* ------------------------------------------------------------------------------------------------
 * The remote-write profile */

Test(raytrace, remote_write_profile)
{
    /* GIVEN the default sizes (32 x 32 pixels, 256 triangles) on 16 threads of 4 CNs
     * WHEN run THEN the remote-write fraction ((remote stores + rmws) / remote accesses) and the
     * instructions per remote access lie within about 25 % of the measured values (see below):
     * a read-mostly scene, one store a pixel and a few atomics a tile */
    sim_config_t c;
    config_defaults(&c);
    const uint64_t seed = tb_seed(600);
    wl_func_t *f = run_clean(&c, 16, NUM_CN, seed, seed);
    const wl_func_stats_t *s = wl_func_stats(f);
    const double remote = (double)(s->loads + s->stores + s->rmws);
    const double wfrac = (double)(s->stores + s->rmws) / remote;
    const double total = (double)(s->instructions + s->loads + s->stores + s->rmws + s->local_loads + s->local_stores);
    const double ipr = total / remote;
    cr_log_info("raytrace, 16 threads, default sizes: %llu instructions, %llu remote loads, %llu stores, %llu rmws, "
                "%llu local loads, %llu local stores (%.0f in all); remote-write fraction %.4f, %.2f instructions "
                "per remote access", (unsigned long long)s->instructions, (unsigned long long)s->loads,
                (unsigned long long)s->stores, (unsigned long long)s->rmws, (unsigned long long)s->local_loads,
                (unsigned long long)s->local_stores, total, wfrac, ipr);
    cr_log_info("raytrace: %llu rays, %llu calls", (unsigned long long)stat_of(f, "raytrace.rays"),
                (unsigned long long)s->calls);
    cr_assert(wfrac > 0.75 * WFRAC && wfrac < 1.25 * WFRAC, "remote-write fraction %.4f (measured %.4f)", wfrac,
              WFRAC);
    cr_assert(ipr > 0.75 * IPR && ipr < 1.25 * IPR, "instructions per remote access %.2f (measured %.2f)", ipr, IPR);
    wl_func_free(f);
}
