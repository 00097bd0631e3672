/* The worker thread (csim/worker): jobs run on another thread, one at a time, each once, in the
 * order posted, and worker_wait returns only when the job is done; the worker sleeps when idle and
 * wakes for the next job; its CPU time is sampled in its own host-profile zone. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <time.h>

#include "hostprof.h"
#include "rng.h"
#include "tb_seed.h"
#include "worker.h"

typedef struct job {
    pthread_t ran_on;
    uint64_t spins;   /* work to do before finishing */
    uint64_t done_at; /* the job's number, written last */
    uint64_t *count;  /* jobs run so far (only the worker writes it) */
} job_t;

static void do_job(void *arg)
{
    job_t *j = arg;
    volatile uint64_t x = 0;
    for (uint64_t i = 0; i < j->spins; i++)
        x += i;
    j->ran_on = pthread_self();
    j->done_at = ++*j->count;
}

Test(worker, jobs_run_on_another_thread_once_each_in_order)
{
    const uint64_t seed = tb_seed(61);
    rng_t r;
    rng_init_named(&r, seed, "worker.jobs");
    worker_t *w = worker_create();
    cr_assert_not_null(w);
    uint64_t count = 0;
    job_t jobs[2000];
    for (unsigned i = 0; i < 2000; i++) {
        /* Mostly short jobs, some long: the owner sometimes waits, sometimes finds the job done. */
        jobs[i] = (job_t){.spins = rng_below(&r, 10) ? rng_below(&r, 200) : rng_below(&r, 200000), .count = &count};
        cr_assert(!worker_busy(w));
        worker_post(w, do_job, &jobs[i]);
        cr_assert(worker_busy(w));
        if (i % 7 == 3) { /* and sometimes sleeps while it works, so that it sleeps too */
            struct timespec ts = {0, 300000};
            nanosleep(&ts, NULL);
        }
        worker_wait(w);
        cr_assert(!worker_busy(w));
        cr_assert_eq(jobs[i].done_at, i + 1, "seed=%llu: job %u finished as number %llu", (unsigned long long)seed, i,
                     (unsigned long long)jobs[i].done_at);
        cr_assert(!pthread_equal(jobs[i].ran_on, pthread_self()), "job %u ran on the owner's thread", i);
    }
    worker_wait(w); /* nothing posted: returns at once */
    cr_assert_eq(count, 2000);
    worker_free(w);
    worker_free(NULL);
}

/* A job left running is waited for by worker_free. */
Test(worker, free_waits_for_the_job_in_progress)
{
    worker_t *w = worker_create();
    cr_assert_not_null(w);
    uint64_t count = 0;
    job_t j = {.spins = 50000000, .count = &count};
    worker_post(w, do_job, &j);
    worker_free(w);
    cr_assert_eq(j.done_at, 1);
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void spin_in_zone(void *arg)
{
    hostprof_zone_e prev = hostprof_enter(*(const hostprof_zone_e *)arg);
    volatile uint64_t x = 0;
    double t0 = cpu_seconds();
    while (cpu_seconds() - t0 < 0.2)
        for (int i = 0; i < 1000; i++)
            x += (uint64_t)i;
    hostprof_leave(prev);
}

/* The profile's zone is per thread: the worker spinning in the fabric's zone while the owner spins
 * in the directories' gives samples to both, none to the zones neither ran in. */
Test(worker, its_time_is_sampled_in_its_own_zone)
{
    worker_t *w = worker_create();
    cr_assert_not_null(w);
    const hostprof_zone_e fab = HOSTPROF_FABRIC, dir = HOSTPROF_DIR;
    cr_assert_eq(hostprof_start(), 0);
    worker_post(w, spin_in_zone, (void *)&fab);
    spin_in_zone((void *)&dir);
    worker_wait(w);
    hostprof_t p;
    hostprof_stop(&p);
    worker_free(w);
    cr_assert_gt(p.samples[HOSTPROF_FABRIC], 10, "fabric (the worker): %llu samples of %llu",
                 (unsigned long long)p.samples[HOSTPROF_FABRIC], (unsigned long long)p.total);
    cr_assert_gt(p.samples[HOSTPROF_DIR], 10, "dir (the owner): %llu samples of %llu",
                 (unsigned long long)p.samples[HOSTPROF_DIR], (unsigned long long)p.total);
    cr_assert_lt(p.samples[HOSTPROF_LU], 5, "nothing ran in the LUs' zone");
}
