#include "fifo_2w_ref.h"

#include <stdlib.h>

void fifo_2w_ref_init(fifo_2w_ref_t *f, unsigned depth)
{
    *f = (fifo_2w_ref_t){.depth = depth};
    f->q = calloc(depth, sizeof *f->q);
    if (!f->q)
        abort();
}

void fifo_2w_ref_free(fifo_2w_ref_t *f)
{
    free(f->q);
    f->q = NULL;
}

void fifo_2w_ref_reset(fifo_2w_ref_t *f) { f->head = f->count = 0; }

fifo_2w_ref_out_t fifo_2w_ref_outputs(const fifo_2w_ref_t *f)
{
    fifo_2w_ref_out_t o = {
        .in_ready = (f->count + 1 <= f->depth ? 1u : 0u) | (f->count + 2 <= f->depth ? 2u : 0u),
        .out_valid = f->count > 0,
        .empty = f->count == 0,
        .count = f->count,
    };
    if (f->count)
        o.out_data = f->q[f->head];
    return o;
}

unsigned fifo_2w_ref_taken(const fifo_2w_ref_t *f, unsigned in_valid)
{
    unsigned ready = fifo_2w_ref_outputs(f).in_ready, taken = 0, n = 0;
    for (unsigned k = 0; k < 2; k++)
        if (in_valid >> k & 1) {
            if (ready >> n & 1)
                taken |= 1u << k;
            n++;
        }
    return taken;
}

void fifo_2w_ref_tick(fifo_2w_ref_t *f, unsigned in_valid, const bits_t in_data[2], bool out_ready)
{
    unsigned taken = fifo_2w_ref_taken(f, in_valid);
    if (f->count && out_ready) {
        f->head = (f->head + 1) % f->depth;
        f->count--;
    }
    for (unsigned k = 0; k < 2; k++)
        if (taken >> k & 1) {
            f->q[(f->head + f->count) % f->depth] = in_data[k];
            f->count++;
        }
}
