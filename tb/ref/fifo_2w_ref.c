#include "fifo_2w_ref.h"

void fifo_2w_ref_init(fifo_2w_ref_t *f, unsigned depth) { fifo_ref_init(&f->f, depth); }
void fifo_2w_ref_free(fifo_2w_ref_t *f) { fifo_ref_free(&f->f); }
void fifo_2w_ref_reset(fifo_2w_ref_t *f) { fifo_ref_reset(&f->f); }

fifo_2w_ref_out_t fifo_2w_ref_outputs(const fifo_2w_ref_t *f)
{
    fifo_ref_out_t o = fifo_ref_outputs(&f->f);
    unsigned depth = f->f.depth;
    return (fifo_2w_ref_out_t){
        .in_ready = (o.count + 1 <= depth ? 1u : 0u) | (o.count + 2 <= depth ? 2u : 0u),
        .out_valid = o.out_valid,
        .empty = o.empty,
        .out_data = o.out_data,
        .count = o.count,
    };
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
    /* Room is decided before the pop (as in fifo_ref); the taken words then enter in lane order. */
    unsigned taken = fifo_2w_ref_taken(f, in_valid);
    fifo_ref_tick(&f->f, false, (bits_t){0}, out_ready);
    for (unsigned k = 0; k < 2; k++)
        if (taken >> k & 1)
            fifo_ref_tick(&f->f, true, in_data[k], false);
}
