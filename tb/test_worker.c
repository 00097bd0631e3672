/* The worker thread (csim/base/worker): queued jobs run once each, on the worker or on the owner waiting
 * for them, and worker_wait returns only when the job is done; the worker sleeps when idle and wakes
 * for the next job; its CPU time is sampled in its own host-profile zone. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <time.h>

#include "base/hostprof.h"
#include "base/rng.h"
#include "base/worker.h"
#include "tb_seed.h"

typedef struct job {
    pthread_t ran_on;
    uint64_t spins; /* work to do before finishing */
    unsigned runs;  /* times run */
} job_t;

static void do_job(void *arg)
{
    job_t *j = arg;
    volatile uint64_t x = 0;
    for (uint64_t i = 0; i < j->spins; i++)
        x += i;
    (void)x; /* read once: Clang warns of a variable only written */
    j->ran_on = pthread_self();
    __atomic_add_fetch(&j->runs, 1, __ATOMIC_RELAXED);
}

/* Batches of up to 300 jobs (more than the queue holds, so posting waits for a slot): every job
 * runs once and is done when waited for, and both threads take jobs (the owner runs those still
 * queued when it waits). */
Test(worker, every_job_runs_once_and_both_threads_take_jobs)
{
    const uint64_t seed = tb_seed(61);
    rng_t r;
    rng_init_named(&r, seed, "worker.jobs");
    worker_t *w = worker_create();
    cr_assert_not_null(w);
    static job_t jobs[300];
    uint64_t tickets[300];
    unsigned on_worker = 0, on_owner = 0;
    for (unsigned b = 0; b < 60; b++) {
        unsigned n = 1 + (unsigned)rng_below(&r, 300);
        for (unsigned i = 0; i < n; i++) {
            /* Mostly short jobs, some long. */
            jobs[i] = (job_t){.spins = rng_below(&r, 10) ? rng_below(&r, 200) : rng_below(&r, 100000)};
            tickets[i] = worker_post(w, do_job, &jobs[i]);
            cr_assert(i == 0 || tickets[i] == tickets[i - 1] + 1, "tickets in posting order");
        }
        if (b % 7 == 3) { /* the worker gets ahead, or falls asleep */
            struct timespec ts = {0, 300000};
            nanosleep(&ts, NULL);
        }
        for (unsigned i = n; i-- > 0;) /* the last first: the owner runs what is still queued */
            worker_wait(w, tickets[i]);
        for (unsigned i = 0; i < n; i++) {
            cr_assert(worker_done(w, tickets[i]), "seed=%llu batch %u: job %u not done", (unsigned long long)seed, b, i);
            cr_assert_eq(jobs[i].runs, 1, "seed=%llu batch %u: job %u ran %u times", (unsigned long long)seed, b, i,
                         jobs[i].runs);
            if (pthread_equal(jobs[i].ran_on, pthread_self()))
                on_owner++;
            else
                on_worker++;
        }
        worker_wait(w, tickets[0]); /* done: returns at once */
    }
    cr_assert_gt(on_worker, 0, "the worker ran jobs");
    cr_assert_gt(on_owner, 0, "the owner ran queued jobs while it waited");
    worker_free(w);
    worker_free(NULL);
}

/* Jobs left queued or running are finished by worker_free. */
Test(worker, free_finishes_the_jobs_queued)
{
    worker_t *w = worker_create();
    cr_assert_not_null(w);
    static job_t j[3] = {{.spins = 30000000}, {.spins = 10}, {.spins = 1000}};
    for (unsigned i = 0; i < 3; i++)
        worker_post(w, do_job, &j[i]);
    worker_free(w);
    for (unsigned i = 0; i < 3; i++)
        cr_assert_eq(j[i].runs, 1, "job %u", i);
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
    (void)x;
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
    uint64_t t = worker_post(w, spin_in_zone, (void *)&fab);
    spin_in_zone((void *)&dir);
    worker_wait(w, t);
    hostprof_t p;
    hostprof_stop(&p);
    worker_free(w);
    cr_assert_gt(p.samples[HOSTPROF_FABRIC], 10, "fabric (the worker): %llu samples of %llu",
                 (unsigned long long)p.samples[HOSTPROF_FABRIC], (unsigned long long)p.total);
    cr_assert_gt(p.samples[HOSTPROF_DIR], 10, "dir (the owner): %llu samples of %llu",
                 (unsigned long long)p.samples[HOSTPROF_DIR], (unsigned long long)p.total);
    cr_assert_lt(p.samples[HOSTPROF_LU], 5, "nothing ran in the LUs' zone");
}
