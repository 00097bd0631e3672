#include "rr_arb_ref.h"

void rr_arb_ref_init(rr_arb_ref_t *a, unsigned n) { *a = (rr_arb_ref_t){.n = n}; }

void rr_arb_ref_reset(rr_arb_ref_t *a) { a->ptr = 0; }

bool rr_arb_ref_grant(const rr_arb_ref_t *a, uint64_t req, unsigned *idx)
{
    for (unsigned k = 0; k < a->n; k++) {
        unsigned i = (a->ptr + k) % a->n;
        if (req >> i & 1) {
            *idx = i;
            return true;
        }
    }
    return false;
}

void rr_arb_ref_tick(rr_arb_ref_t *a, uint64_t req, bool ack)
{
    unsigned g;
    if (ack && rr_arb_ref_grant(a, req, &g))
        a->ptr = (g + 1) % a->n;
}
