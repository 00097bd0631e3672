/* The main loop of a simulation, with the two things every run needs around the kernel:
 * a progress line, and deadlock detection. The kernel runs in slices; after each slice the run's
 * progress measure (messages delivered, stores committed, ...) is read. If it has not moved for
 * stall_timeout of simulated time while events still run, the run stops as STALLED and the
 * caller dumps what is waiting on what. */
#ifndef RUN_H
#define RUN_H

#include <stdint.h>

#include "base/kernel.h"
#include "base/progress.h"

typedef enum run_end {
    RUN_DONE,     /* the model called kernel_stop(): its work is complete */
    RUN_END_TIME, /* end time reached */
    RUN_IDLE,     /* no event left before the end time */
    RUN_STALLED,  /* no progress for stall_timeout */
    RUN_FAULT,    /* (set by the model's caller, not run_loop) the model stopped on an error of its own */
} run_end_e;

typedef struct run_params {
    uint64_t end_ps;           /* stop at this simulated time */
    uint64_t stall_timeout_ps; /* > 0 */
    uint64_t (*progress)(void *obj); /* monotonic measure of useful work */
    void *obj;
    progress_t *line;          /* may be NULL */
} run_params_t;

/** Runs k until done, end time, idle or stall. */
run_end_e run_loop(kernel_t *k, const run_params_t *p);
/** "done", "end time", "idle", "stalled", "fault". */
const char *run_end_name(run_end_e e);

#endif
