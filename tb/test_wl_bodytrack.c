/* Tests of the bodytrack workload (csim/workloads/bodytrack.c) on the functional runner
 * (tb/harness/wl_func.c):
 * - it passes its own check (every shared word bit for bit against a single-threaded rerun) and
 *   the oracle with 1, 2, 7 and 16 threads on 4 CNs, several seeds, and with sizes that do not
 *   split evenly (more threads than particles, than estimated dimensions, than image rows);
 * - its check fails, with one line naming it, when a word it wrote or read is corrupted (shared
 *   data, and a thread's cumulative weights in local memory);
 * - setup refuses memory that is too small and impossible sizes, with one line naming the key;
 * - 64 threads on 16 CNs with the default sizes pass;
 * - a CN failure mid-run: the survivors redo what the lost threads owed and finish with the same
 *   result, which the check and the oracle accept;
 * - its remote-write profile on the default sizes (16 threads, 4 CNs) stays where it was measured.
 * Randomized tests print their seed; rerun one with TB_SEED=<seed> and --filter. TB_WL_SEEDS sets
 * how many seeds the runs walk (default 3). */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "base/config.h"
#include "tb_seed.h"
#include "wl_check.h"
#include "wl_func.h"
#include "workloads/workloads.h"

/* Small enough for many runs, large enough that threads contend for tickets and share map lines:
 * 24 particles, 2 layers, 2 frames, images of 12 x 12. */
static sim_config_t small_cfg(void)
{
    sim_config_t c;
    config_defaults(&c);
    c.workload.bodytrack_particles = 24;
    c.workload.bodytrack_layers = 2;
    c.workload.bodytrack_frames = 2;
    c.workload.bodytrack_image = 12;
    return c;
}

/* A bodytrack run on nthreads threads of num_cn CNs (0: 4) with seed: every run stores to remote
 * memory. */
static wl_check_t run_of(const sim_config_t *c, unsigned nthreads, unsigned num_cn, uint64_t seed)
{
    return (wl_check_t){.name = "bodytrack", .cfg = c, .nthreads = nthreads, .num_cn = num_cn, .seed = seed,
                        .nonzero = WL_NZ_STORES};
}

/* Every particle of every layer and frame weighed once, none again, no band redone. */
static void weighs_each_particle_once(const wl_check_t *r, wl_func_t *f)
{
    const uint64_t want = r->cfg->workload.bodytrack_particles * r->cfg->workload.bodytrack_layers *
                          r->cfg->workload.bodytrack_frames;
    cr_assert_eq(wl_check_stat(f, "bodytrack.weighed"), want, "seed %llu", (unsigned long long)r->seed);
    cr_assert_eq(wl_check_stat(f, "bodytrack.reweighed"), 0, "seed %llu", (unsigned long long)r->seed);
    cr_assert_eq(wl_check_stat(f, "bodytrack.redone"), 0, "seed %llu", (unsigned long long)r->seed);
}

/* The runs of c on 1, 2, 7 and 16 threads of 4 CNs, for each seed: shared data on CXL memory, private
 * data in local memory, computation counted, each particle weighed once. */
static void runs_clean(const sim_config_t *c, uint64_t dflt_seed)
{
    wl_check_t r = run_of(c, 0, 0, tb_seed(dflt_seed));
    r.nonzero = WL_NZ_USUAL | WL_NZ_RMWS | WL_NZ_LOCAL_LOADS;
    r.also = weighs_each_particle_once;
    wl_check_sweep(&r, 0, NULL, 0);
}

Test(bodytrack, passes_its_check_and_the_oracle)
{
    /* GIVEN 24 particles, 2 layers, 2 frames, 12 x 12 images
     * WHEN run on 1, 2, 7 and 16 threads of 4 CNs, for several seeds
     * THEN maps, weights, both particle sets, estimates and tickets bit for bit; no lost store */
    sim_config_t c = small_cfg();
    runs_clean(&c, 100);
    /* and one layer over three frames (the noise after a frame's last layer is layer 0's) */
    c.workload.bodytrack_layers = 1;
    c.workload.bodytrack_frames = 3;
    runs_clean(&c, 110);
}

Test(bodytrack, odd_sizes_pass)
{
    /* GIVEN sizes that do not split evenly: 5 particles on 7 and 16 threads (threads without a
     * particle to resample and, with 16, more threads than the 17 dimensions' shares hold), one
     * particle, 13 particles on 7 threads, 9 x 9 images (36 rows over 16 threads), 3 layers
     * WHEN run THEN each passes its check and the oracle */
    static const struct {
        uint64_t np, side, layers;
        unsigned threads;
    } v[] = {{5, 12, 2, 7}, {5, 12, 2, 16}, {1, 8, 1, 7}, {13, 9, 3, 7}, {13, 9, 3, 16}, {40, 9, 1, 3}};
    const uint64_t seed = tb_seed(150);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        sim_config_t c = small_cfg();
        c.workload.bodytrack_particles = v[i].np;
        c.workload.bodytrack_image = v[i].side;
        c.workload.bodytrack_layers = v[i].layers;
        const wl_check_t r = run_of(&c, v[i].threads, 0, seed + i);
        wl_func_free(wl_check_run(&r));
    }
}
Test(bodytrack, check_fails_on_a_corrupted_word)
{
    /* GIVEN a finished run on 7 threads WHEN any one of 60 random shared words (images, maps,
     * particles, weights and steps, estimates, tickets, barrier phases) has a bit flipped THEN the
     * check fails naming bodytrack, and passes again once the word is restored */
    sim_config_t c = small_cfg();
    const wl_check_t r = run_of(&c, 7, 0, tb_seed(200));
    wl_check_corruption(&r, 60, 0);
}

Test(bodytrack, check_fails_on_corrupted_local_weights)
{
    /* GIVEN a finished run on 4 threads of 4 CNs (thread k on CN k, its cumulative weights the first
     * thing in its CN's local memory) WHEN a bit of thread 2's last cumulative weight flips THEN the
     * check fails naming the thread; restored, it passes */
    sim_config_t c = small_cfg();
    const wl_check_t r = run_of(&c, 4, 0, tb_seed(210));
    wl_func_t *f = wl_check_run(&r);
    wl_env_t *e = wl_func_env(f);
    const uint64_t a = ADDR_LOCAL_BASE + 8 * (c.workload.bodytrack_particles - 1);
    wl_check_catches(&r, f, 2, a, e->ops->peek(e, 2, a) ^ 1ull << 40, "bodytrack: thread 2's cumulative weight 23 is");
    wl_func_free(f);
}

Test(bodytrack, setup_refuses_what_does_not_fit)
{
    /* GIVEN 2 MNs of 4 KiB (8 KiB of CXL memory) and the default sizes: 5 frames' worth of maps
     * alone are 4 x 32 x 32 x 8 B = 32 KiB each */
    sim_config_t c = small_cfg();
    c.system.num_mn = 2;
    c.mem.mn_size_bytes = 4096;
    c.workload.bodytrack_image = 32;
    c.workload.bodytrack_frames = 1;
    c.workload.bodytrack_particles = 128;
    wl_check_refuses("bodytrack", &c, 4, "bodytrack: the images (1 frames of 4 cameras, 32 x 32 pixels), their "
                                         "maps and 128 particles (201144 bytes) do not fit the CXL memory "
                                         "(workload.bodytrack_image");
    /* GIVEN 4 KiB of local memory a CN and 1000 particles (8000 bytes of cumulative weights) */
    c = small_cfg();
    c.mem.local_size_bytes = 4096;
    c.workload.bodytrack_particles = 1000;
    wl_check_refuses("bodytrack", &c, 4, "bodytrack: thread 0's cumulative weights (8000 bytes, "
                                         "workload.bodytrack_particles = 1000) do not fit CN 0's local memory");
}

Test(bodytrack, setup_refuses_impossible_sizes)
{
    /* GIVEN no particles, no layers, no frames, an image too small, more than 64 threads */
    sim_config_t c = small_cfg();
    c.workload.bodytrack_particles = 0;
    wl_check_refuses("bodytrack", &c, 4, "bodytrack: workload.bodytrack_particles = 0: nothing to track");
    c = small_cfg();
    c.workload.bodytrack_layers = 0;
    wl_check_refuses("bodytrack", &c, 4, "bodytrack: workload.bodytrack_layers = 0: nothing to track");
    c = small_cfg();
    c.workload.bodytrack_frames = 0;
    wl_check_refuses("bodytrack", &c, 4, "bodytrack: workload.bodytrack_frames = 0: nothing to track");
    c = small_cfg();
    c.workload.bodytrack_image = 7;
    wl_check_refuses("bodytrack", &c, 4, "bodytrack: workload.bodytrack_image = 7 pixels a side is too small for "
                                         "the body model: at least 8");
    c = small_cfg();
    wl_check_refuses("bodytrack", &c, 65, "bodytrack: 65 threads, at most 64 (its barriers)");
    /* and the configuration's own range says the same of the image */
    config_err_t ce;
    cr_assert_neq(config_set(&c, "workload.bodytrack_image=7", &ce), 0);
}

Test(bodytrack, default_sizes_pass_on_64_threads)
{
    /* GIVEN the default sizes, 64 threads on 16 CNs (the paper's cluster) WHEN run THEN the check and
     * the oracle pass */
    sim_config_t c;
    config_defaults(&c);
    const wl_check_t r = run_of(&c, 64, 16, tb_seed(300));
    wl_func_t *f = wl_check_run(&r);
    const wl_func_stats_t *s = wl_func_stats(f);
    cr_log_info("bodytrack, defaults, 64 threads: %llu instructions, %llu remote loads, %llu stores, %llu rmws",
                (unsigned long long)s->instructions, (unsigned long long)s->loads, (unsigned long long)s->stores,
                (unsigned long long)s->rmws);
    wl_func_free(f);
}

Test(bodytrack, survives_a_cn_failure)
{
    /* GIVEN 7 threads on 4 CNs and, for each of 100 runs, CN k % 4 (threads k % 4 and k % 4 + 4, but
     * thread 7 does not exist) failing after a random number of calls within the run (a run without
     * failure measures how many it makes)
     * WHEN the survivors go on THEN none stalls, each run's check passes (the same maps, weights,
     * particles and estimates as without the loss) and the oracle finds nothing lost or phantom;
     * over the runs survivors redid the lost threads' bands and weighed again particles whose
     * tickets they had taken */
    sim_config_t c = small_cfg();
    const uint64_t base = tb_seed(400);
    wl_check_t r = run_of(&c, 7, 0, base);
    wl_func_t *f = wl_check_run(&r);
    const uint64_t calls = wl_func_stats(f)->calls;
    wl_func_free(f);
    uint64_t redone = 0, reweighed = 0;
    for (uint64_t k = 0; k < 100; k++) {
        r.seed = base + k;
        r.base = base;
        r.fail = true;
        r.fail_cn = (unsigned)(k % WL_CHECK_CNS);
        r.fail_after = wl_check_fail_after(r.seed, 1, calls);
        f = wl_check_run(&r);
        redone += wl_check_stat(f, "bodytrack.redone");
        reweighed += wl_check_stat(f, "bodytrack.reweighed");
        wl_func_free(f);
    }
    cr_log_info("bodytrack, 100 failures within %llu calls: %llu bands redone, %llu particles weighed again",
                (unsigned long long)calls, (unsigned long long)redone, (unsigned long long)reweighed);
    cr_assert(redone > 0 && reweighed > 0, "100 failures: %llu bands redone, %llu particles weighed again",
              (unsigned long long)redone, (unsigned long long)reweighed);
}

Test(bodytrack, survives_two_failures)
{
    /* GIVEN 7 threads on 4 CNs and, for each of 200 runs, two CNs failing at random points of the run,
     * the first in its first half, the second in the half-run after it
     * WHEN the survivors go on THEN none stalls, each run's check passes (the same result as without
     * the losses) and the oracle finds nothing lost or phantom (tb/test_sim.c replays two system runs
     * in which the second CN took redone work with it) */
    sim_config_t c = small_cfg();
    const uint64_t base = tb_seed(450);
    wl_check_t r = run_of(&c, 7, 0, base);
    wl_func_t *f = wl_check_run(&r);
    const uint64_t calls = wl_func_stats(f)->calls;
    wl_func_free(f);
    uint64_t redone = 0;
    for (uint64_t k = 0; k < 200; k++) {
        r.seed = base + k;
        r.base = base;
        r.fail = r.fail2 = true;
        r.fail_cn = (unsigned)(k % WL_CHECK_CNS);
        r.fail2_cn = (unsigned)((k + 1 + k / WL_CHECK_CNS % (WL_CHECK_CNS - 1)) % WL_CHECK_CNS);
        r.fail_after = wl_check_fail_after(r.seed, 1, calls / 2);
        r.fail2_after = r.fail_after + wl_check_fail_after(r.seed + 1000, 1, calls / 2);
        f = wl_check_run(&r);
        redone += wl_check_stat(f, "bodytrack.redone");
        /* (both CNs failed: threads i on CN i % WL_CHECK_CNS) */
        for (unsigned t = 0; t < 7; t++)
            cr_assert_eq(wl_func_live(f) >> t & 1, t % WL_CHECK_CNS != r.fail_cn && t % WL_CHECK_CNS != r.fail2_cn,
                         "run %llu: thread %u of CN %u %s (CNs %u and %u failed)", (unsigned long long)k, t,
                         t % WL_CHECK_CNS, wl_func_live(f) >> t & 1 ? "lives" : "was lost", r.fail_cn, r.fail2_cn);
        wl_func_free(f);
    }
    cr_log_info("bodytrack, 200 runs of two failures within %llu calls: %llu bands redone", (unsigned long long)calls,
                (unsigned long long)redone);
    cr_assert_gt(redone, 0, "200 runs of two failures redid no band");
}

Test(bodytrack, remote_write_profile)
{
    /* GIVEN the default sizes (128 particles, 3 layers, 1 frame, 32 x 32 images) on 16 threads of 4
     * CNs WHEN run THEN its remote-write fraction, (remote stores + rmws) / (remote loads + stores +
     * rmws), and its instructions per remote access, (instructions + every load and store) / (remote
     * loads + stores + rmws), stay within about 25 % of what was measured: 0.080 and 14.5 (the weights'
     * gathers dominate the remote accesses; the image passes and the resampling write) */
    sim_config_t c;
    config_defaults(&c);
    const wl_check_t r = run_of(&c, 16, 0, tb_seed(500));
    wl_func_free(wl_check_profile(&r, wl_check_around(0.080, 0.25), wl_check_around(14.5, 0.25)));
}
