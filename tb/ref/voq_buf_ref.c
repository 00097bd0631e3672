#include "voq_buf_ref.h"

#include <assert.h>
#include <stdlib.h>

void voq_buf_ref_init(voq_buf_ref_t *v, unsigned depth, unsigned nq)
{
    *v = (voq_buf_ref_t){.depth = depth, .nq = nq};
    v->q = calloc(nq, sizeof *v->q);
    if (!v->q)
        abort();
    for (unsigned i = 0; i < nq; i++) {
        /* Any one queue may hold every word. */
        v->q[i].w = calloc(depth, sizeof *v->q[i].w);
        if (!v->q[i].w)
            abort();
    }
}

void voq_buf_ref_free(voq_buf_ref_t *v)
{
    for (unsigned i = 0; i < v->nq; i++)
        free(v->q[i].w);
    free(v->q);
    v->q = NULL;
}

void voq_buf_ref_reset(voq_buf_ref_t *v)
{
    for (unsigned i = 0; i < v->nq; i++)
        v->q[i].head = v->q[i].len = 0;
    v->used = 0;
}

bits_t voq_buf_ref_at(const voq_buf_ref_t *v, unsigned q, unsigned i)
{
    assert(q < v->nq && i < v->q[q].len);
    return v->q[q].w[(v->q[q].head + i) % v->depth];
}

bits_t voq_buf_ref_head(const voq_buf_ref_t *v, unsigned q) { return voq_buf_ref_at(v, q, 0); }

bool voq_buf_ref_tick(voq_buf_ref_t *v, bool enq_valid, unsigned enq_q, bits_t enq_data, bool deq_valid,
                      unsigned deq_q)
{
    /* Legality against the state at the start of the cycle. */
    if (enq_valid && (enq_q >= v->nq || !voq_buf_ref_enq_ready(v)))
        return false;
    if (deq_valid && (deq_q >= v->nq || !voq_buf_ref_nonempty(v, deq_q)))
        return false;
    if (deq_valid) {
        voq_buf_ref_q_t *q = &v->q[deq_q];
        q->head = (q->head + 1) % v->depth;
        q->len--;
        v->used--;
    }
    if (enq_valid) {
        voq_buf_ref_q_t *q = &v->q[enq_q];
        q->w[(q->head + q->len) % v->depth] = enq_data;
        q->len++;
        v->used++;
    }
    assert(v->used <= v->depth);
    return true;
}
