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

#include "base/addr.h"
#include "base/config.h"
#include "sys/oracle.h"
#include "tb_seed.h"
#include "wl_check.h"
#include "wl_func.h"
#include "workloads/workloads.h"

/* The remote-write profile measured on the default input, 16 threads of 4 CNs (remote_write_profile). */
#define WFRAC 0.0029
#define IPR 4.8

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

/* Every tile rendered once, counted in the statistics. */
static void renders_each_tile_once(const wl_check_t *r, wl_func_t *f)
{
    const uint64_t side = r->cfg->workload.raytrace_image, tiles = ((side + 3) / 4) * ((side + 3) / 4);
    const uint64_t n = wl_check_stat(f, "raytrace.tiles");
    cr_assert_eq(n, tiles, "seed %llu: %llu tiles rendered of %llu", (unsigned long long)r->seed,
                 (unsigned long long)n, (unsigned long long)tiles);
}

/* A clean run of c on nthreads threads of num_cn CNs with seed (base replays it): the usual
 * statistics, every tile rendered once. */
static wl_check_t run_of(const sim_config_t *c, unsigned nthreads, unsigned num_cn, uint64_t seed,
                         uint64_t base)
{
    return (wl_check_t){.name = "raytrace", .cfg = c, .nthreads = nthreads, .num_cn = num_cn, .seed = seed,
                        .base = base, .nonzero = WL_NZ_USUAL, .also = renders_each_tile_once};
}

Test(raytrace, passes_its_check_and_the_oracle)
{
    /* GIVEN a 16 x 16 image of 96 triangles WHEN rendered by 1, 2, 7 and 16 threads on 4 CNs, several
     * seeds THEN every pixel is the sequential render's, every tile rendered once, no lost store */
    sim_config_t c = small_cfg();
    const uint64_t base = tb_seed(100);
    const wl_check_t r = run_of(&c, 0, WL_CHECK_CNS, base, base);
    wl_check_sweep(&r, 0, NULL, 0);
}

/* renders_each_tile_once; 256 rays at least, no tile rescued or skipped; adds the steals to
 * *r->arg. */
static void steals_and_counts(const wl_check_t *r, wl_func_t *f)
{
    renders_each_tile_once(r, f);
    *(uint64_t *)r->arg += wl_check_stat(f, "raytrace.steals");
    cr_assert(wl_check_stat(f, "raytrace.rays") >= 256, "seed %llu: %llu rays for 256 pixels",
              (unsigned long long)r->seed, (unsigned long long)wl_check_stat(f, "raytrace.rays"));
    cr_assert_eq(wl_check_stat(f, "raytrace.rescues") + wl_check_stat(f, "raytrace.skips"), 0);
}

Test(raytrace, threads_steal_tiles)
{
    /* GIVEN 16 threads and 16 tiles (one in each pool) and 7 threads and 16 tiles (pools of 2 and 3)
     * WHEN run THEN over the seeds some threads took tiles from others' pools, and the counts add up */
    sim_config_t c = small_cfg();
    const uint64_t base = tb_seed(150);
    uint64_t steals = 0;
    static const unsigned threads[] = {7, 16};
    wl_check_t r = run_of(&c, 0, WL_CHECK_CNS, base, base);
    r.also = steals_and_counts;
    r.arg = &steals;
    wl_check_sweep(&r, 4, threads, 2);
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
        const wl_check_t r = run_of(&c, v[i].threads, 3, base + i, base);
        wl_func_free(wl_check_run(&r));
    }
}

Test(raytrace, sixty_four_threads_on_sixteen_cns_pass)
{
    /* GIVEN the default sizes (a 32 x 32 image of 256 triangles) WHEN 64 threads on 16 CNs render it
     * THEN it passes its check and the oracle */
    sim_config_t c;
    config_defaults(&c);
    const uint64_t seed = tb_seed(300);
    const wl_check_t r = run_of(&c, 64, 16, seed, seed);
    wl_func_free(wl_check_run(&r));
}

/* ------------------------------------------------------------------------------------------------
 * The check can fail */

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
    const wl_check_t r = run_of(&c, 7, WL_CHECK_CNS, seed, seed);
    wl_check_corruption(&r, 60, 40);
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

Test(raytrace, check_judges_tiles_pools_and_the_barrier)
{
    /* GIVEN a finished run on 7 threads of 4 CNs (a tile thread 0 rendered holds 2^32 + 1: rendered once,
     * claimed by thread 0; the pools' status words hold 3, empty; the barrier's first mask 0x7f)
     * WHEN that tile's state says it was rendered twice, or by thread 1, or claimed and never
     * finished, or never claimed; a pool's status says it still holds tiles; the barrier's mask lacks
     * thread 6
     * THEN the check fails saying which, and passes again once the word is restored */
    sim_config_t c = small_cfg();
    const uint64_t seed = tb_seed(420);
    const wl_check_t r = run_of(&c, 7, WL_CHECK_CNS, seed, seed);
    wl_func_t *f = wl_check_run(&r);
    const uint64_t st = stored_word(f, (1ull << 32) + 1);
    wl_check_catches(&r, f, 0, st, (2ull << 32) + 1, "rendered more than once");
    wl_check_catches(&r, f, 0, st, (1ull << 32) + 2, "finished by a thread whose log does not hold it");
    wl_check_catches(&r, f, 0, st, 1, "claimed by a live thread, never finished");
    wl_check_catches(&r, f, 0, st, 0, "claimed by no thread");
    wl_check_catches(&r, f, 0, stored_word(f, 3), 2, "ends with status 2 and 0 tiles, want empty (3) and 0");
    wl_check_catches(&r, f, 0, stored_word(f, 0x7f), 0x3f, "the barrier released 1 phases (want 1) with masks 0x3f");
    wl_func_free(f);
}

Test(raytrace, check_reads_the_logs_in_local_memory)
{
    /* GIVEN a finished run on 4 threads (thread 0 on CN 0, whose first local allocation is its tile
     * log, then its counters) WHEN its first log entry names another tile, or its ray count is one
     * more THEN the check fails; restored, it passes */
    sim_config_t c = small_cfg();
    const uint64_t seed = tb_seed(410);
    const wl_check_t r = run_of(&c, 4, WL_CHECK_CNS, seed, seed);
    wl_func_t *f = wl_check_run(&r);
    wl_env_t *e = wl_func_env(f);
    const uint64_t log = ADDR_LOCAL_BASE, rays = ADDR_LOCAL_BASE + 8 * 16 + 8;
    wl_check_catches(&r, f, 0, log, e->ops->peek(e, 0, log) ^ 1, NULL);
    wl_check_catches(&r, f, 0, rays, e->ops->peek(e, 0, rays) + 1, "thread 0 counts");
    wl_func_free(f);
}

/* ------------------------------------------------------------------------------------------------
 * Setup refuses what cannot work */

Test(raytrace, setup_refuses_what_does_not_fit)
{
    /* GIVEN 2 MNs of 4 KiB (8 KiB of CXL memory): 96 triangles (18 KiB of records) do not fit; 8
     * triangles (1.5 KiB and a 3^3 grid) do but a 64 x 64 frame buffer (32 KiB) does not
     * THEN setup refuses, naming which */
    sim_config_t c = small_cfg();
    c.system.num_mn = 2;
    c.mem.mn_size_bytes = 4096;
    wl_check_refuses("raytrace", &c, 4, "raytrace: a scene of 96 triangles in a 6^3 grid (");
    wl_check_refuses("raytrace", &c, 4, "bytes) does not fit the CXL memory");
    c.workload.raytrace_triangles = 8;
    c.workload.raytrace_image = 64;
    wl_check_refuses("raytrace", &c, 4, "raytrace: a 64 x 64 frame buffer and its 256 tiles do not fit the CXL memory");
    /* GIVEN 4 KiB of local memory a CN: a 256 x 256 image's 4096 tiles make a 32 KiB log */
    c = small_cfg();
    c.mem.local_size_bytes = 4096;
    c.workload.raytrace_image = 256;
    wl_check_refuses("raytrace", &c, 4, "raytrace: thread 0's tile log (32768 bytes) does not fit CN 0's local memory");
}

Test(raytrace, setup_refuses_impossible_sizes)
{
    /* GIVEN 65 threads THEN setup refuses (the barrier serves 64); a 0-pixel image or no triangles
     * are refused by the configuration's ranges before any setup */
    sim_config_t c = small_cfg();
    c.workload.raytrace_image = 1;
    wl_check_refuses("raytrace", &c, 65, "raytrace: 65 threads, but its barrier (csim/cn/wl_sync.c) serves at most 64");
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
    wl_func_t *f = wl_check_run(&(wl_check_t){.name = "raytrace", .cfg = c, .nthreads = 7, .seed = seed,
                                              .base = base, .fail = true, .fail_cn = 2, .fail_after = after});
    sum[0] += wl_check_stat(f, "raytrace.rescues");
    sum[1] += wl_check_stat(f, "raytrace.skips");
    sum[2] += wl_check_stat(f, "raytrace.takeovers");
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
    for (uint64_t k = 0; k < 60; k++)
        fails_clean(&c, base + k, base, wl_check_fail_after(base + k, 200, 110000), sum);
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
    const wl_check_t r = run_of(&c, 16, WL_CHECK_CNS, seed, seed);
    wl_func_t *f = wl_check_profile(&r, wl_check_around(WFRAC, 0.25), wl_check_around(IPR, 0.25));
    cr_log_info("raytrace: %llu rays, %llu calls", (unsigned long long)wl_check_stat(f, "raytrace.rays"),
                (unsigned long long)wl_func_stats(f)->calls);
    wl_func_free(f);
}
