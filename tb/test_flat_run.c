/* The core model on its own (csim/sys/flat_run): every workload's threads on the configured cores over a
 * flat memory, judged by the workload's own check; the same seed gives the same run; bad sizes are
 * refused with a message. diktamo_bench divides the whole system's speed by this runner's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/config.h"
#include "base/kernel.h"
#include "sys/flat_run.h"

static sim_config_t small(const char *const *sets)
{
    sim_config_t c;
    config_err_t e;
    config_defaults(&c);
    cr_assert_eq(config_load(&c, "sim_configs/small.ini", &e), 0, "%s", e.msg);
    cr_assert_eq(config_set(&c, "workload.ycsb_records=256", &e), 0, "%s", e.msg);
    cr_assert_eq(config_set(&c, "workload.ycsb_ops=128", &e), 0, "%s", e.msg);
    for (const char *const *s = sets; s && *s; s++)
        cr_assert_eq(config_set(&c, *s, &e), 0, "%s", e.msg);
    cr_assert_eq(config_validate(&c, &e), 0, "%s", e.msg);
    return c;
}

Test(flat_run, every_workload_runs_on_the_cores_alone_and_passes_its_check)
{
    /* GIVEN each of the paper's applications (the workloads before hcmeta) at its default size */
    for (unsigned i = 0; i < CFG_WL_HCMETA; i++) {
        sim_config_t c = small(NULL);
        flat_run_result_t r;
        char err[FLAT_RUN_ERR_MAX] = "";
        const workload_t *w = workloads[i];
        const char *name = w->name;
        cr_assert_eq(flat_run(&c, w, 2 * PS_PER_NS, &r, err), 0, "%s: %s", name, err);
        cr_assert_eq(r.threads, 8, "%s: small.ini has 4 CNs of 2 cores", name);
        cr_assert_gt(r.instructions, 10000, "%s: %llu instructions", name, (unsigned long long)r.instructions);
        cr_assert_gt(r.sim_ps, 0);
    }
}

Test(flat_run, the_same_seed_gives_the_same_run_and_latency_changes_its_time)
{
    sim_config_t c = small(NULL);
    flat_run_result_t a, b, slow;
    char err[FLAT_RUN_ERR_MAX];
    const workload_t *w = workload_find("ycsb");
    cr_assert_eq(flat_run(&c, w, 2 * PS_PER_NS, &a, err), 0, "%s", err);
    cr_assert_eq(flat_run(&c, w, 2 * PS_PER_NS, &b, err), 0, "%s", err);
    cr_assert_eq(a.instructions, b.instructions);
    cr_assert_eq(a.sim_ps, b.sim_ps);
    cr_assert_eq(flat_run(&c, w, 20 * PS_PER_NS, &slow, err), 0, "%s", err);
    cr_assert_gt(slow.sim_ps, a.sim_ps, "ten times the latency: %llu ps, against %llu", (unsigned long long)slow.sim_ps,
                 (unsigned long long)a.sim_ps);
}

Test(flat_run, refuses_more_threads_than_cores_and_a_workload_that_does_not_fit)
{
    /* (config_validate refuses such a configuration; a caller that builds one itself is told too.) */
    sim_config_t c = small(NULL);
    c.workload.threads = 9;
    flat_run_result_t r;
    char err[FLAT_RUN_ERR_MAX] = "";
    cr_assert_eq(flat_run(&c, workload_find("ocean_cp"), PS_PER_NS, &r, err), -1);
    cr_assert(strstr(err, "9 threads need as many cores, but there are 8"), "got: %s", err);
    const char *const big[] = {"workload.ycsb_records=65536", NULL};
    c = small(big);
    err[0] = '\0';
    cr_assert_eq(flat_run(&c, workload_find("ycsb"), PS_PER_NS, &r, err), -1);
    cr_assert(strstr(err, "ycsb: ") == err && strstr(err, "does not fit"), "got: %s", err);
}
