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
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "oracle.h"
#include "rng.h"
#include "tb_seed.h"
#include "wl_func.h"
#include "workloads/workloads.h"

#define NUM_CN 4u

static unsigned num_seeds(void)
{
    const char *s = getenv("TB_WL_SEEDS");
    unsigned n = s ? (unsigned)strtoul(s, NULL, 0) : 0;
    return n ? n : 3;
}

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

static const workload_t *bt(void)
{
    const workload_t *w = workload_find("bodytrack");
    cr_assert_not_null(w, "no workload bodytrack");
    return w;
}

static uint64_t stat_of(wl_func_t *f, const char *name)
{
    const uint64_t *p = wl_func_counter(f, name);
    cr_assert_not_null(p, "no statistic workload.%s", name);
    return *p;
}

/* One run of c on nthreads threads of num_cn CNs, CN fail_cn failing after `after` calls (none when
 * after is 0): setup, threads, check and the oracle all pass. Returns the runner (the caller frees). */
static wl_func_t *run_clean(const sim_config_t *c, unsigned nthreads, unsigned num_cn, uint64_t seed, unsigned fail_cn,
                            uint64_t after)
{
    wl_func_t *f = wl_func_create(bt(), c, nthreads, num_cn, seed);
    cr_assert_not_null(f);
    if (after)
        wl_func_fail_cn(f, fail_cn, after);
    char err[WL_ERR_MAX];
    cr_assert_eq(wl_func_setup(f, err), 0, "seed %llu, %u threads: %s", (unsigned long long)seed, nthreads, err);
    cr_assert_eq(wl_func_threads(f, err), 0, "seed %llu, %u threads: %s", (unsigned long long)seed, nthreads, err);
    cr_assert_eq(wl_func_check(f, err), 0, "seed %llu (TB_SEED=%llu), %u threads, %llu particles, image %llu, CN %u "
                 "failing after %llu calls: %s", (unsigned long long)seed, (unsigned long long)seed, nthreads,
                 (unsigned long long)c->workload.bodytrack_particles, (unsigned long long)c->workload.bodytrack_image,
                 fail_cn, (unsigned long long)after, err);
    oracle_report_t r;
    wl_func_oracle_check(f, stderr, 5, &r);
    cr_assert(r.lost == 0 && r.phantom == 0 && r.ok == r.words && r.stores > 0,
              "seed %llu, %u threads: oracle: %llu lost, %llu phantom, %llu stores", (unsigned long long)seed, nthreads,
              (unsigned long long)r.lost, (unsigned long long)r.phantom, (unsigned long long)r.stores);
    uint64_t first = 0, unrec = wl_func_unrecorded(f, &first);
    cr_assert_eq(unrec, 0, "seed %llu: %llu remote words unknown to the oracle, first 0x%llx", (unsigned long long)seed,
                 (unsigned long long)unrec, (unsigned long long)first);
    return f;
}

static void runs_clean(const sim_config_t *c, uint64_t dflt_seed)
{
    static const unsigned threads[] = {1, 2, 7, 16};
    const uint64_t base = tb_seed(dflt_seed);
    for (unsigned k = 0; k < num_seeds(); k++)
        for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
            wl_func_t *f = run_clean(c, threads[i], NUM_CN, base + k, 0, 0);
            /* shared data on CXL memory, private data in local memory, computation counted */
            const wl_func_stats_t *s = wl_func_stats(f);
            cr_assert(s->loads && s->stores && s->rmws && s->local_loads && s->local_stores && s->instructions,
                      "seed %llu, %u threads: loads %llu stores %llu rmws %llu local loads %llu local stores %llu",
                      (unsigned long long)(base + k), threads[i], (unsigned long long)s->loads,
                      (unsigned long long)s->stores, (unsigned long long)s->rmws, (unsigned long long)s->local_loads,
                      (unsigned long long)s->local_stores);
            cr_assert(threads[i] == 1 || s->switches > 0, "seed %llu: %u threads never interleaved",
                      (unsigned long long)(base + k), threads[i]);
            const uint64_t want = c->workload.bodytrack_particles * c->workload.bodytrack_layers *
                                  c->workload.bodytrack_frames;
            cr_assert_eq(stat_of(f, "bodytrack.weighed"), want);
            cr_assert_eq(stat_of(f, "bodytrack.reweighed"), 0);
            cr_assert_eq(stat_of(f, "bodytrack.redone"), 0);
            wl_func_free(f);
        }
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
        wl_func_free(run_clean(&c, v[i].threads, NUM_CN, seed + i, 0, 0));
    }
}

/* Corrupts, one at a time, `tries` random remote words the run wrote or setup initialized whose final
 * value is neither 0 nor 1 (barrier words the check need not judge); the check must fail each time
 * with one line naming the workload, and pass again once the word is restored. */
static void corruption_fails(const sim_config_t *c, uint64_t dflt_seed, unsigned tries)
{
    const uint64_t seed = tb_seed(dflt_seed);
    wl_func_t *f = run_clean(c, 7, NUM_CN, seed, 0, 0);
    oracle_t *o = wl_func_oracle(f);
    rng_t r;
    rng_init_named(&r, seed, "test.corrupt");
    const size_t n = oracle_num_words(o);
    char err[WL_ERR_MAX];
    for (unsigned k = 0; k < tries;) {
        oracle_word_t w;
        oracle_word_at(o, (size_t)rng_below(&r, n), &w);
        if (w.last <= 1)
            continue;
        k++;
        const uint64_t bad = w.last ^ (1ull << rng_below(&r, 64));
        wl_func_corrupt(f, 0, w.addr, bad);
        cr_assert_eq(wl_func_check(f, err), -1, "seed %llu: word 0x%llx corrupted from 0x%llx to 0x%llx, check passed",
                     (unsigned long long)seed, (unsigned long long)w.addr, (unsigned long long)w.last,
                     (unsigned long long)bad);
        cr_assert(strncmp(err, "bodytrack: ", 11) == 0 && !strchr(err, '\n'), "one line naming the workload: %s", err);
        if (k <= 3)
            cr_log_info("%s", err);
        wl_func_corrupt(f, 0, w.addr, w.last);
        cr_assert_eq(wl_func_check(f, err), 0, "seed %llu: restored, still failing: %s", (unsigned long long)seed, err);
    }
    wl_func_free(f);
}

Test(bodytrack, check_fails_on_a_corrupted_word)
{
    /* GIVEN a finished run on 7 threads WHEN any one of 60 random shared words (images, maps,
     * particles, weights and steps, estimates, tickets, barrier phases) has a bit flipped THEN the
     * check fails naming bodytrack, and passes again once the word is restored */
    sim_config_t c = small_cfg();
    corruption_fails(&c, 200, 60);
}

Test(bodytrack, check_fails_on_corrupted_local_weights)
{
    /* GIVEN a finished run on 4 threads of 4 CNs (thread k on CN k, its cumulative weights the first
     * thing in its CN's local memory) WHEN a bit of thread 2's last cumulative weight flips THEN the
     * check fails naming the thread */
    sim_config_t c = small_cfg();
    const uint64_t seed = tb_seed(210);
    wl_func_t *f = run_clean(&c, 4, NUM_CN, seed, 0, 0);
    wl_env_t *e = wl_func_env(f);
    const uint64_t a = ADDR_LOCAL_BASE + 8 * (c.workload.bodytrack_particles - 1), v = e->ops->peek(e, 2, a);
    char err[WL_ERR_MAX];
    wl_func_corrupt(f, 2, a, v ^ 1ull << 40);
    cr_assert_eq(wl_func_check(f, err), -1, "seed %llu: a corrupted cumulative weight passed",
                 (unsigned long long)seed);
    cr_assert(strstr(err, "bodytrack: thread 2's cumulative weight 23 is") && !strchr(err, '\n'), "%s", err);
    cr_log_info("%s", err);
    wl_func_corrupt(f, 2, a, v);
    cr_assert_eq(wl_func_check(f, err), 0, "%s", err);
    wl_func_free(f);
}

static void setup_refuses(const sim_config_t *c, unsigned nthreads, const char *want)
{
    char err[WL_ERR_MAX] = "";
    cr_assert_eq(wl_func_run(bt(), c, nthreads, NUM_CN, 1, err), -1, "setup accepted, want '%s'", want);
    cr_assert(strstr(err, want) && !strchr(err, '\n'), "'%s' does not say '%s'", err, want);
    cr_assert(strncmp(err, "bodytrack: ", 11) == 0, "%s", err);
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
    setup_refuses(&c, 4, "bodytrack: the images (1 frames of 4 cameras, 32 x 32 pixels), their maps and 128 "
                  "particles (201112 bytes) do not fit the CXL memory (workload.bodytrack_image");
    /* GIVEN 4 KiB of local memory a CN and 1000 particles (8000 bytes of cumulative weights) */
    c = small_cfg();
    c.mem.local_size_bytes = 4096;
    c.workload.bodytrack_particles = 1000;
    setup_refuses(&c, 4, "bodytrack: thread 0's cumulative weights (8000 bytes, workload.bodytrack_particles = 1000) "
                  "do not fit CN 0's local memory");
}

Test(bodytrack, setup_refuses_impossible_sizes)
{
    /* GIVEN no particles, no layers, no frames, an image too small, more than 64 threads */
    sim_config_t c = small_cfg();
    c.workload.bodytrack_particles = 0;
    setup_refuses(&c, 4, "bodytrack: workload.bodytrack_particles = 0: nothing to track");
    c = small_cfg();
    c.workload.bodytrack_layers = 0;
    setup_refuses(&c, 4, "bodytrack: workload.bodytrack_layers = 0: nothing to track");
    c = small_cfg();
    c.workload.bodytrack_frames = 0;
    setup_refuses(&c, 4, "bodytrack: workload.bodytrack_frames = 0: nothing to track");
    c = small_cfg();
    c.workload.bodytrack_image = 7;
    setup_refuses(&c, 4, "bodytrack: workload.bodytrack_image = 7 pixels a side is too small for the body model: at "
                  "least 8");
    c = small_cfg();
    setup_refuses(&c, 65, "bodytrack: 65 threads, at most 64 (its barriers)");
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
    wl_func_t *f = run_clean(&c, 64, 16, tb_seed(300), 0, 0);
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
    wl_func_t *f = run_clean(&c, 7, NUM_CN, base, 0, 0);
    const uint64_t calls = wl_func_stats(f)->calls;
    wl_func_free(f);
    uint64_t redone = 0, reweighed = 0;
    for (uint64_t k = 0; k < 100; k++) {
        rng_t r;
        rng_init_named(&r, base + k, "test.fail");
        f = run_clean(&c, 7, NUM_CN, base + k, (unsigned)(k % NUM_CN), 1 + rng_below(&r, calls));
        redone += stat_of(f, "bodytrack.redone");
        reweighed += stat_of(f, "bodytrack.reweighed");
        wl_func_free(f);
    }
    cr_log_info("bodytrack, 100 failures within %llu calls: %llu bands redone, %llu particles weighed again",
                (unsigned long long)calls, (unsigned long long)redone, (unsigned long long)reweighed);
    cr_assert(redone > 0 && reweighed > 0, "100 failures: %llu bands redone, %llu particles weighed again",
              (unsigned long long)redone, (unsigned long long)reweighed);
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
    wl_func_t *f = run_clean(&c, 16, NUM_CN, tb_seed(500), 0, 0);
    const wl_func_stats_t *s = wl_func_stats(f);
    const double remote = (double)(s->loads + s->stores + s->rmws);
    const double wfrac = (double)(s->stores + s->rmws) / remote;
    const double all = (double)(s->instructions + s->loads + s->stores + s->rmws + s->local_loads + s->local_stores);
    const double ipra = all / remote;
    cr_log_info("bodytrack, defaults, 16 threads: remote-write fraction %.4f, instructions per remote access %.2f; "
                "%llu instructions, %llu remote loads, %llu stores, %llu rmws, %llu local loads, %llu local stores: "
                "%.0f dynamic instructions in all", wfrac, ipra, (unsigned long long)s->instructions,
                (unsigned long long)s->loads, (unsigned long long)s->stores, (unsigned long long)s->rmws,
                (unsigned long long)s->local_loads, (unsigned long long)s->local_stores, all);
    cr_assert(wfrac > 0.080 * 0.75 && wfrac < 0.080 * 1.25, "remote-write fraction %.4f", wfrac);
    cr_assert(ipra > 14.5 * 0.75 && ipra < 14.5 * 1.25, "instructions per remote access %.2f", ipra);
    wl_func_free(f);
}

