/* Cycle-accurate reference model of rtl/common/fifo.sv: first-word fall-through, every output a
 * function of the state only (in_ready = not full, even while popping; a pushed word shows on the
 * output the next cycle). */
#ifndef FIFO_REF_H
#define FIFO_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "../sb/vw_bits.h"

typedef struct fifo_ref {
    unsigned depth;
    bits_t *q;
    unsigned head, count;
} fifo_ref_t;

/** Outputs of the model in the current cycle. */
typedef struct fifo_ref_out {
    bool in_ready, out_valid, empty;
    bits_t out_data; /* meaningful when out_valid */
    unsigned count;
} fifo_ref_out_t;

void fifo_ref_init(fifo_ref_t *f, unsigned depth);
void fifo_ref_free(fifo_ref_t *f);
/** Empties the model (rst_ni low). */
void fifo_ref_reset(fifo_ref_t *f);
fifo_ref_out_t fifo_ref_outputs(const fifo_ref_t *f);
/** One rising edge with these inputs. */
void fifo_ref_tick(fifo_ref_t *f, bool in_valid, bits_t in_data, bool out_ready);

#endif
