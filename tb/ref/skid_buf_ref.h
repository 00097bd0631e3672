/* Cycle-accurate reference model of rtl/common/skid_buf.sv: an output register and a skid
 * register; in_ready is high exactly when the skid register is empty (decided a cycle ahead). */
#ifndef SKID_BUF_REF_H
#define SKID_BUF_REF_H

#include <stdbool.h>

#include "../sb/vw_bits.h"

typedef struct skid_buf_ref {
    bool out_valid, skid_valid;
    bits_t out_data, skid_data;
} skid_buf_ref_t;

/** Outputs of the model in the current cycle. */
typedef struct skid_buf_ref_out {
    bool in_ready, out_valid;
    bits_t out_data; /* meaningful when out_valid */
} skid_buf_ref_out_t;

/** Empties the model (rst_ni low). */
void skid_buf_ref_reset(skid_buf_ref_t *s);
skid_buf_ref_out_t skid_buf_ref_outputs(const skid_buf_ref_t *s);
/** One rising edge with these inputs. */
void skid_buf_ref_tick(skid_buf_ref_t *s, bool in_valid, bits_t in_data, bool out_ready);

#endif
