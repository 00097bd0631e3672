/* A second host thread for the models' evaluations: the fabric hands it the evaluation of its
 * Verilated model at an edge (offload.h) and the kernel goes on with the other events of that time
 * on the calling thread (the owner), which waits for the job before it needs the model's outputs.
 *
 * Jobs are queued in the order posted (at most WORKER_MAX_JOBS not yet waited for) and taken by
 * whichever thread comes first: the worker, or the owner when it waits for a job not yet taken (it
 * runs the waiting jobs itself instead of idling). Each side waits for the other by spinning for a
 * while, with a yield now and then (so that on a loaded machine a thread does not spin out the time
 * slice of the one it waits for), then sleeping on a futex: an idle worker costs no CPU. A job
 * touches only what its owner leaves alone until worker_wait returns for it.
 *
 * The worker blocks the asynchronous signals (an interrupt's clean-up runs on the main thread) but
 * SIGPROF, so that the host profile (hostprof.h) samples its time in its own zone. */
#ifndef WORKER_H
#define WORKER_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#define WORKER_MAX_JOBS 256u

typedef struct worker worker_t;

/** Starts the thread; NULL (and errno) when it cannot be created. */
worker_t *worker_create(void);
/** Runs or waits for every job posted, stops the thread and frees it. NULL is allowed. */
void worker_free(worker_t *w);
/** Queues fn(arg); returns its ticket for worker_wait. */
uint64_t worker_post(worker_t *w, void (*fn)(void *arg), void *arg);
/** Returns when job ticket is done (running it, and the jobs queued before it, if no thread has
 *  taken them yet). */
void worker_wait(worker_t *w, uint64_t ticket);
/** Job ticket is done. */
bool worker_done(const worker_t *w, uint64_t ticket);
/** Waiting turns between yields of a thread that spins (worker_spin). */
#define WORKER_YIELD_EVERY 64u

/** Turn i (from 1) of a spinning wait: a pause, and every WORKER_YIELD_EVERY turns a yield, so that
 *  a thread waiting for one that shares its core (a loaded machine) lets it run instead of
 *  spinning out its time slice. */
static inline void worker_spin(unsigned i)
{
    if (i % WORKER_YIELD_EVERY == 0)
        sched_yield();
    else
        __builtin_ia32_pause();
}

/** For a host thread of the simulator's own, at its start: blocks the asynchronous signals (an
 *  interrupt's clean-up runs on the main thread) but SIGPROF (the host profile samples every
 *  thread). */
void worker_block_signals(void);

#endif
