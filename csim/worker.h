/* A second host thread for one job at a time: the fabric hands it the evaluation of its Verilated
 * model at an edge (fabric.c) and goes on with the other events of that time on the calling
 * thread, which waits for the job before it needs the model's outputs.
 *
 * The hand-over is two counters: the owner posts job n, the worker finishes job n. Each side waits
 * for the other by spinning for a while (an evaluation takes microseconds, shorter than putting a
 * thread to sleep and waking it) and then sleeping on a futex, so an idle worker costs no CPU and a
 * loaded machine is not kept busy. A job touches only what its owner leaves alone until
 * worker_wait returns: the worker shares no state with the simulation otherwise.
 *
 * The worker blocks the asynchronous signals (an interrupt's clean-up runs on the main thread) but
 * SIGPROF, so that the host profile (hostprof.h) samples its time in its own zone. */
#ifndef WORKER_H
#define WORKER_H

#include <stdbool.h>

typedef struct worker worker_t;

/** Starts the thread; NULL (and errno) when it cannot be created. */
worker_t *worker_create(void);
/** Waits for the job in progress, stops the thread and frees it. NULL is allowed. */
void worker_free(worker_t *w);
/** Hands fn(arg) to the worker. The previous job must be done (worker_wait). */
void worker_post(worker_t *w, void (*fn)(void *arg), void *arg);
/** Returns when the job posted last is done (at once when there is none). */
void worker_wait(worker_t *w);
/** A job was posted and worker_wait has not returned since. */
bool worker_busy(const worker_t *w);

#endif
