#include "islip_alloc_ref.h"

#include <assert.h>
#include <string.h>

void islip_alloc_ref_init(islip_alloc_ref_t *a, unsigned n_in, unsigned n_out, unsigned iters)
{
    assert(n_in >= 1 && n_in <= ISLIP_REF_MAX && n_out >= 1 && n_out <= ISLIP_REF_MAX && iters >= 1);
    memset(a, 0, sizeof *a);
    a->n_in = n_in;
    a->n_out = n_out;
    a->iters = iters;
}

void islip_alloc_ref_reset(islip_alloc_ref_t *a)
{
    memset(a->gptr, 0, sizeof a->gptr);
    memset(a->aptr, 0, sizeof a->aptr);
}

void islip_alloc_ref_match(const islip_alloc_ref_t *a, const uint64_t *req, islip_match_t *m)
{
    int grant[ISLIP_REF_MAX]; /* per output: the input it grants in this iteration, or -1 */

    for (unsigned i = 0; i < ISLIP_REF_MAX; i++) {
        m->in[i] = m->out[i] = -1;
        m->iter[i] = 0;
    }
    m->size = 0;
    for (unsigned it = 1; it <= a->iters; it++) {
        /* Request and grant: an unmatched output scans the inputs from its pointer for an
         * unmatched one that requests it. */
        for (unsigned o = 0; o < a->n_out; o++) {
            grant[o] = -1;
            if (m->out[o] >= 0)
                continue;
            for (unsigned k = 0; k < a->n_in; k++) {
                unsigned i = (a->gptr[o] + k) % a->n_in;
                if (m->in[i] < 0 && (req[i] >> o & 1)) {
                    grant[o] = (int)i;
                    break;
                }
            }
        }
        /* Accept: an unmatched input scans the outputs from its pointer for one that granted it. */
        for (unsigned i = 0; i < a->n_in; i++) {
            if (m->in[i] >= 0)
                continue;
            for (unsigned k = 0; k < a->n_out; k++) {
                unsigned o = (a->aptr[i] + k) % a->n_out;
                if (grant[o] == (int)i) {
                    m->in[i] = (int)o;
                    m->out[o] = (int)i;
                    m->iter[i] = it;
                    m->size++;
                    break;
                }
            }
        }
    }
}

void islip_alloc_ref_step(islip_alloc_ref_t *a, const uint64_t *req, bool en, islip_match_t *m)
{
    islip_match_t local;
    if (!m)
        m = &local;
    islip_alloc_ref_match(a, req, m);
    if (!en)
        return;
    for (unsigned i = 0; i < a->n_in; i++) {
        if (m->iter[i] == 1) {
            unsigned o = (unsigned)m->in[i];
            a->aptr[i] = (o + 1) % a->n_out;
            a->gptr[o] = (i + 1) % a->n_in;
        }
    }
}
