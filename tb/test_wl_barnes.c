/* Tests of barnes (csim/workloads/barnes.c), the SPLASH-2 Barnes-Hut kernel, on the functional
 * runner (tb/harness/wl_func.c):
 * - with 1, 2, 7 and 16 threads on 4 CNs and several seeds it passes its check (every body word,
 *   the final octree and the bounding boxes bit for bit against a single-threaded recomputation)
 *   and the oracle; so do sizes that do not split evenly, and more threads than bodies;
 * - its check fails, with one line naming it, when a word it wrote is corrupted;
 * - setup refuses memories too small and sizes that cannot work;
 * - 64 threads on 16 CNs pass with the default sizes;
 * - a CN failure mid-run: the survivors finish, the check (structure, masses) and the oracle pass;
 * - its remote-write profile on the default input stays where it was measured.
 * Randomized tests print their seed; rerun one with TB_SEED=<seed> and --filter 'barnes/<test>'.
 * TB_WL_SEEDS sets how many seeds the runs walk (default 3). */
#include <criterion/criterion.h>
#include <stdio.h>

#include "base/config.h"
#include "tb_seed.h"
#include "wl_check.h"
#include "wl_func.h"
#include "workloads/workloads.h"

/* 96 bodies, 2 steps: a tree of a few levels, leaves split while threads insert. */
static sim_config_t small_cfg(void)
{
    sim_config_t c;
    config_defaults(&c);
    c.workload.barnes_bodies = 96;
    c.workload.barnes_steps = 2;
    return c;
}

/* Bodies met and leaves split. */
static void builds_a_tree(const wl_check_t *r, wl_func_t *f)
{
    cr_assert(wl_check_stat(f, "barnes.interactions") > 0 && wl_check_stat(f, "barnes.subdivisions") > 0, "seed %llu",
              (unsigned long long)r->seed);
}

Test(barnes, passes_its_check_and_the_oracle)
{
    /* GIVEN 96 bodies, 2 steps WHEN run on 1, 2, 7 and 16 threads of 4 CNs, several seeds
     * THEN every body word, the final tree and the boxes are those of the sequential recomputation,
     * every slot outside the tree is free, and no store was lost */
    sim_config_t c = small_cfg();
    wl_check_sweep(&(wl_check_t){.name = "barnes", .cfg = &c, .seed = tb_seed(2200), .also = builds_a_tree,
                                 .nonzero = WL_NZ_USUAL | WL_NZ_RMWS | WL_NZ_LOCAL_LOADS},
                   0, NULL, 0);
}

Test(barnes, odd_sizes_pass)
{
    /* GIVEN bodies that do not split evenly among the threads (97 on 7 and 16), fewer bodies than
     * threads (5 on 7, 2 on 16: threads without bodies), bodies that fit one leaf (8 on 2: a root
     * with leaves only), and 4 steps WHEN run THEN each passes */
    static const struct {
        unsigned bodies, steps, threads;
    } v[] = {{97, 2, 7}, {97, 1, 16}, {5, 3, 7}, {2, 2, 16}, {9, 2, 2}, {40, 4, 7}};
    const uint64_t base = tb_seed(2300);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        sim_config_t c = small_cfg();
        c.workload.barnes_bodies = v[i].bodies;
        c.workload.barnes_steps = v[i].steps;
        char label[64];
        snprintf(label, sizeof label, "%u bodies, %u steps", v[i].bodies, v[i].steps);
        wl_check_sweep(&(wl_check_t){.name = "barnes", .cfg = &c, .num_cn = 3, .seed = base, .label = label}, 0,
                       &v[i].threads, 1);
    }
}

Test(barnes, check_fails_on_a_corrupted_word)
{
    /* GIVEN a finished run on 7 threads
     * WHEN one word it wrote or setup initialized (a body, a node, a box; not a lock, flag or
     * barrier word ending 0 or 1) has one bit flipped, 60 times over
     * THEN the check fails with one line naming barnes, and passes again once it is restored */
    sim_config_t c = small_cfg();
    wl_check_corruption(&(wl_check_t){.name = "barnes", .cfg = &c, .nthreads = 7, .seed = tb_seed(2400)}, 60, 0);
}

Test(barnes, check_reads_the_chunk_lists_in_local_memory)
{
    /* GIVEN a finished run on 4 threads (thread 0 on CN 0, whose first local allocation is its chunk
     * list: the count, then the chunks) WHEN its first chunk number changes THEN the check fails
     * naming a chunk; restored, it passes */
    sim_config_t c = small_cfg();
    const wl_check_t r = {.name = "barnes", .cfg = &c, .nthreads = 4, .seed = tb_seed(2450)};
    wl_func_t *f = wl_check_run(&r);
    wl_env_t *e = wl_func_env(f);
    const uint64_t a = ADDR_LOCAL_BASE + 8;
    wl_check_catches(&r, f, 0, a, e->ops->peek(e, 0, a) + 1, "chunk");
    wl_func_free(f);
}

Test(barnes, setup_refuses_what_does_not_fit_or_cannot_work)
{
    /* GIVEN 2 MNs of 4 KiB (8 KiB of CXL memory) for 512 bodies, 4 KiB of local memory per CN for
     * 8192 bodies' chunk lists on 16 threads, 1 body, 0 steps THEN setup refuses, saying which */
    sim_config_t c = small_cfg();
    c.system.num_mn = 2;
    c.mem.mn_size_bytes = 4096;
    c.workload.barnes_bodies = 512;
    wl_check_refuses("barnes", &c, 4, "barnes: 512 bodies (workload.barnes_bodies) and an octree of 584 nodes (144960 "
                                      "bytes) do not fit the CXL memory");
    c = small_cfg();
    c.mem.local_size_bytes = 4096;
    c.workload.barnes_bodies = 8192;
    wl_check_refuses("barnes", &c, 16, "barnes: thread 0's chunk list (8464 bytes for 8192 bodies, "
                                       "workload.barnes_bodies) does not fit CN 0's local memory");
    c = small_cfg();
    c.workload.barnes_bodies = 1;
    wl_check_refuses("barnes", &c, 4, "barnes: workload.barnes_bodies = 1: an N-body system needs at least 2 bodies");
    c = small_cfg();
    c.workload.barnes_steps = 0;
    wl_check_refuses("barnes", &c, 4, "barnes: workload.barnes_steps = 0: at least one time step");
}

Test(barnes, default_sizes_pass_on_64_threads)
{
    /* GIVEN the default sizes, 64 threads on 16 CNs (the paper's cluster) WHEN run THEN it passes */
    sim_config_t c;
    config_defaults(&c);
    wl_func_free(wl_check_run(&(wl_check_t){.name = "barnes", .cfg = &c, .nthreads = 64, .num_cn = 16,
                                            .seed = tb_seed(2500)}));
}

Test(barnes, survives_a_cn_failure)
{
    /* GIVEN 7 threads on 4 CNs, 96 bodies, 3 steps (about 230 000 calls), and, for each of 80 runs,
     * CN 1 failing after a random number of calls (threads 1 and 5 lost): in half of the runs within
     * the first 6000 calls (the first step's build and centres of mass: a cell lock held, a leaf
     * half filled, a subdivision half made), in the other half anywhere in the run
     * WHEN the survivors go on THEN they finish (no stall), the check passes (the final tree's
     * structure and masses, the survivors' bodies in it) and the oracle finds no lost or phantom word;
     * over the runs, survivors took over cell locks and computed centres of mass for the lost
     * threads' nodes */
    const uint64_t base = tb_seed(2600);
    uint64_t adopted = 0, takeovers = 0;
    sim_config_t c = small_cfg();
    c.workload.barnes_steps = 3;
    for (uint64_t k = 0; k < 80; k++) {
        const uint64_t seed = base + k;
        wl_func_t *f = wl_check_run(&(wl_check_t){
            .name = "barnes", .cfg = &c, .nthreads = 7, .seed = seed, .base = base, .fail = true, .fail_cn = 1,
            .fail_after = wl_check_fail_after(seed, 100, k % 2 ? 240000 : 6000)});
        adopted += wl_check_stat(f, "barnes.adopted_nodes");
        takeovers += wl_check_stat(f, "barnes.takeovers");
        wl_func_free(f);
    }
    cr_log_info("barnes, 80 failures: %llu centres of mass adopted, %llu cell locks taken over",
                (unsigned long long)adopted, (unsigned long long)takeovers);
    cr_assert(adopted > 0 && takeovers > 0, "80 failures: %llu nodes adopted, %llu locks taken over",
              (unsigned long long)adopted, (unsigned long long)takeovers);
}

Test(barnes, remote_write_profile_of_the_default_input)
{
    /* GIVEN the default input (256 bodies, 2 steps) on 16 threads of 4 CNs
     * THEN the remote-write fraction, (remote stores + rmws) / (remote loads + stores + rmws), and the
     * instructions per remote access, (instructions + all loads and stores + rmws) / remote accesses,
     * are those measured when the kernel was written, within about 25 %: the force phase's tree walks
     * (remote loads, few stores) dominate. Measured (seeds 2700, 1, 2, 3, 77, 5000): 0.0275 to 0.0299
     * and 5.35 to 5.55; 2.9 to 3.1 M dynamic. */
    sim_config_t c;
    config_defaults(&c);
    wl_func_t *f = wl_check_profile(&(wl_check_t){.name = "barnes", .cfg = &c, .nthreads = 16, .seed = tb_seed(2700)},
                                    (wl_check_band_t){0.022, 0.036}, (wl_check_band_t){4.1, 6.9});
    cr_log_info("barnes, %llu bodies, %llu steps: %llu interactions", (unsigned long long)c.workload.barnes_bodies,
                (unsigned long long)c.workload.barnes_steps,
                (unsigned long long)wl_check_stat(f, "barnes.interactions"));
    wl_func_free(f);
}
