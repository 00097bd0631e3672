/* A model's edge evaluated on the kernel's worker thread (worker.h) while the events up to its
 * horizon run, its outputs finished before the first event at the horizon or later.
 *
 * A Verilated model's edge is three parts: its inputs taken from the C side, the model's evaluation,
 * its outputs handed to the C side. With a worker (kernel_set_threads) offload_edge posts the
 * evaluation to it and defers the outputs (kernel_defer): they run, on the kernel's thread, once the
 * kernel has run every event before the horizon the owner gives (the fabric: its next edge, or a
 * link latency after this one if that comes first), with sequence numbers reserved at the edge
 * (kernel_reserve), so that the events they schedule sort as they would have at the edge. Without a
 * worker, or when the caller asks for the outputs at once, the edge is evaluated and finished on the
 * spot. The run is the same either way when nothing else reads what the evaluation writes or the
 * outputs change before they are finished, and the outputs schedule nothing before the horizon:
 * the owner calls offload_join before any such read (the user: csim/drv/fabric.c; why not the
 * directories and LUs: docs/architecture.md section 6). */
#ifndef OFFLOAD_H
#define OFFLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "base/kernel.h"

typedef struct offload {
    kernel_t *k;
    void (*eval)(void *obj);   /* the evaluation: may run on the worker; touches only the model and
                                * what the owner leaves alone until the join */
    void (*finish)(void *obj); /* the outputs: on the kernel's thread */
    void (*after)(void *obj);  /* NULL, or what follows a deferred finish, in the scheduling order of
                                * the time it runs at (the fabric's wakes asked for meanwhile) */
    void *obj;
    unsigned nseq;             /* events finish schedules at most (else the run stops) */
    bool pending;              /* an edge waits for its finish */
    uint64_t ticket, seq;
} offload_t;

/** offload_edge(o, at_once) will defer the finish: not at_once, and the kernel has a worker. */
bool offload_defers(const offload_t *o, bool at_once);
/** One edge: its inputs are in place. Evaluates and finishes now unless offload_defers; else hands
 *  the evaluation to the worker and defers the finish to before the first event at horizon (ps,
 *  after now) or later. */
void offload_edge(offload_t *o, bool at_once, uint64_t horizon);
/** Finishes the pending edge (after its evaluation); nothing when none is pending. */
void offload_join(offload_t *o);

#endif
