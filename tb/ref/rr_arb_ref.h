/* Reference model of rtl/common/rr_arb.sv: round robin with a priority pointer that moves just past
 * the winner when the grant is accepted. Up to 64 requesters. */
#ifndef RR_ARB_REF_H
#define RR_ARB_REF_H

#include <stdbool.h>
#include <stdint.h>

typedef struct rr_arb_ref {
    unsigned n;
    unsigned ptr; /* first requester in priority order */
} rr_arb_ref_t;

void rr_arb_ref_init(rr_arb_ref_t *a, unsigned n);
/** Pointer back to requester 0 (rst_ni low). */
void rr_arb_ref_reset(rr_arb_ref_t *a);
/** The grant for these requests: returns false when none, else the winner in *idx. */
bool rr_arb_ref_grant(const rr_arb_ref_t *a, uint64_t req, unsigned *idx);
/** One rising edge with these inputs. */
void rr_arb_ref_tick(rr_arb_ref_t *a, uint64_t req, bool ack);

#endif
