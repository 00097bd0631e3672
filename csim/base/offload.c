#include "base/offload.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/worker.h"

static void deferred(void *obj) { offload_join(obj); }

bool offload_defers(const offload_t *o, bool at_once) { return !at_once && o->k->worker; }

void offload_edge(offload_t *o, bool at_once, uint64_t horizon)
{
    if (o->pending) {
        fprintf(stderr, "offload: an edge while the last one is pending\n");
        abort();
    }
    if (!offload_defers(o, at_once)) {
        o->eval(o->obj);
        o->finish(o->obj);
        return;
    }
    o->pending = true;
    o->seq = kernel_reserve(o->k, o->nseq);
    o->ticket = worker_post(o->k->worker, o->eval, o->obj);
    kernel_defer(o->k, deferred, o, horizon);
}

void offload_join(offload_t *o)
{
    if (!o->pending)
        return;
    worker_wait(o->k->worker, o->ticket);
    o->pending = false;
    const uint64_t prev = kernel_use_seq(o->k, o->seq);
    o->finish(o->obj);
    if (kernel_use_seq(o->k, prev) > o->seq + o->nseq) {
        fprintf(stderr, "offload: an edge's outputs scheduled more than the %u events reserved for them\n", o->nseq);
        abort();
    }
    if (o->after)
        o->after(o->obj);
}
