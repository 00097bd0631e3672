/* The host-time profile by zone (csim/base/hostprof): samples go to the zone that runs, the kernel's
 * events run in the models' zone and its own work in its zone, nothing is sampled with no profile
 * on. (CPU time is sampled, at the timer's resolution, perhaps the kernel's 4 ms tick: each case
 * spins 100 ms of CPU per zone and asks for a fraction of the samples it should get.) */
#include <criterion/criterion.h>

#include "base/hostprof.h"
#include "base/kernel.h"

/* Burns about ms of CPU time (what the timer counts, however loaded the machine is). */
static void spin(double ms)
{
    volatile uint64_t x = 0;
    double t0 = hostprof_cpu_seconds();
    while (hostprof_cpu_seconds() - t0 < ms / 1000.0)
        for (int i = 0; i < 1000; i++)
            x += (uint64_t)i;
    (void)x; /* read once: Clang warns of a variable only written */
}

Test(hostprof, samples_go_to_the_zone_that_runs)
{
    cr_assert_eq(hostprof_start(), 0);
    hostprof_zone_e outer = hostprof_enter(HOSTPROF_FABRIC);
    spin(100);
    hostprof_enter(HOSTPROF_DIR);
    spin(100);
    hostprof_leave(outer);
    hostprof_t p;
    hostprof_stop(&p);
    cr_assert_gt(p.samples[HOSTPROF_FABRIC], 10, "fabric: %llu samples of %llu",
                 (unsigned long long)p.samples[HOSTPROF_FABRIC], (unsigned long long)p.total);
    cr_assert_gt(p.samples[HOSTPROF_DIR], 10, "dir: %llu samples", (unsigned long long)p.samples[HOSTPROF_DIR]);
    cr_assert_lt(p.samples[HOSTPROF_LU] + p.samples[HOSTPROF_KERNEL], 5, "nothing ran there");
    uint64_t sum = 0;
    for (unsigned z = 0; z < HOSTPROF_NZONES; z++)
        sum += p.samples[z];
    cr_assert_eq(sum, p.total);
    cr_assert_str_eq(hostprof_zone_name(HOSTPROF_LU), "lu");
}

static void busy_event(void *obj, uint64_t arg)
{
    (void)obj;
    (void)arg;
    spin(100);
}

Test(hostprof, kernel_events_run_in_the_models_zone)
{
    kernel_t k;
    kernel_init(&k);
    kernel_at(&k, 10, busy_event, NULL, 0);
    cr_assert_eq(hostprof_start(), 0);
    kernel_run(&k, UINT64_MAX);
    hostprof_t p;
    hostprof_stop(&p);
    kernel_free(&k);
    cr_assert_gt(p.samples[HOSTPROF_MODELS], 10, "models: %llu samples of %llu",
                 (unsigned long long)p.samples[HOSTPROF_MODELS], (unsigned long long)p.total);
    cr_assert_gt(p.samples[HOSTPROF_MODELS], 4 * p.samples[HOSTPROF_KERNEL]);
}

Test(hostprof, nothing_is_sampled_without_a_profile)
{
    hostprof_t p;
    cr_assert_eq(hostprof_start(), 0);
    hostprof_stop(&p);
    spin(30);
    hostprof_t q;
    cr_assert_eq(hostprof_start(), 0);
    hostprof_stop(&q);
    cr_assert_eq(q.total, 0, "a fresh profile starts from zero (%llu)", (unsigned long long)q.total);
}
