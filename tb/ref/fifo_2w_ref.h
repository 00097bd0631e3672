/* Cycle-accurate reference model of rtl/common/fifo_2w.sv: first-word fall-through, up to two words
 * in per cycle (lane 0 the older), one out; every output a function of the state only (in_ready bit
 * n = room for n + 1 words, even while popping; a pushed word shows on the output the next cycle).
 * The n-th valid word of a cycle, counted in lane order, is taken when in_ready bit n is set. */
#ifndef FIFO_2W_REF_H
#define FIFO_2W_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "fifo_ref.h"

/** The ring of fifo_ref; only the write side differs. */
typedef struct fifo_2w_ref {
    fifo_ref_t f;
} fifo_2w_ref_t;

/** Outputs of the model in the current cycle. */
typedef struct fifo_2w_ref_out {
    unsigned in_ready; /* bit 0: room for one word, bit 1: room for two */
    bool out_valid, empty;
    bits_t out_data; /* meaningful when out_valid */
    unsigned count;
} fifo_2w_ref_out_t;

void fifo_2w_ref_init(fifo_2w_ref_t *f, unsigned depth);
void fifo_2w_ref_free(fifo_2w_ref_t *f);
/** Empties the model (rst_ni low). */
void fifo_2w_ref_reset(fifo_2w_ref_t *f);
fifo_2w_ref_out_t fifo_2w_ref_outputs(const fifo_2w_ref_t *f);
/** Which lanes' words are taken this cycle with these valids (bit k: lane k), by the write rule. */
unsigned fifo_2w_ref_taken(const fifo_2w_ref_t *f, unsigned in_valid);
/** One rising edge with these inputs (in_valid bit k: lane k valid, in_data[k] its word). */
void fifo_2w_ref_tick(fifo_2w_ref_t *f, unsigned in_valid, const bits_t in_data[2], bool out_ready);

#endif
