#include "fifo_ref.h"

#include <stdlib.h>

void fifo_ref_init(fifo_ref_t *f, unsigned depth)
{
    *f = (fifo_ref_t){.depth = depth};
    f->q = calloc(depth, sizeof *f->q);
    if (!f->q)
        abort();
}

void fifo_ref_free(fifo_ref_t *f)
{
    free(f->q);
    f->q = NULL;
}

void fifo_ref_reset(fifo_ref_t *f) { f->head = f->count = 0; }

fifo_ref_out_t fifo_ref_outputs(const fifo_ref_t *f)
{
    fifo_ref_out_t o = {
        .in_ready = f->count < f->depth,
        .out_valid = f->count > 0,
        .empty = f->count == 0,
        .count = f->count,
    };
    if (f->count)
        o.out_data = f->q[f->head];
    return o;
}

void fifo_ref_tick(fifo_ref_t *f, bool in_valid, bits_t in_data, bool out_ready)
{
    fifo_ref_out_t o = fifo_ref_outputs(f);
    bool push = in_valid && o.in_ready, pop = o.out_valid && out_ready;
    if (pop) {
        f->head = (f->head + 1) % f->depth;
        f->count--;
    }
    if (push) {
        f->q[(f->head + f->count) % f->depth] = in_data;
        f->count++;
    }
}
