/* Reference model of rtl/switch/voq_buf.sv, written from its specification rather than its
 * structure: NumQ FIFOs sharing a capacity of Depth words. Commands of a cycle act on the state at
 * the start of the cycle: an enqueue needs a free word (a dequeue in the same cycle does not make
 * room for it), a dequeue needs a word in its queue (an enqueue in the same cycle does not provide
 * it), and the head of a queue is visible from the cycle after its word was enqueued. */
#ifndef VOQ_BUF_REF_H
#define VOQ_BUF_REF_H

#include <stdbool.h>

#include "../sb/vw_bits.h"

/** One queue: a ring of up to Depth words. */
typedef struct voq_buf_ref_q {
    bits_t *w;
    unsigned head, len;
} voq_buf_ref_q_t;

typedef struct voq_buf_ref {
    unsigned depth, nq;
    unsigned used; /* words held, all queues */
    voq_buf_ref_q_t *q;
} voq_buf_ref_t;

void voq_buf_ref_init(voq_buf_ref_t *v, unsigned depth, unsigned nq);
void voq_buf_ref_free(voq_buf_ref_t *v);
/** Empties every queue (rst_ni low). */
void voq_buf_ref_reset(voq_buf_ref_t *v);

/** enq_ready_o: a free word exists. */
static inline bool voq_buf_ref_enq_ready(const voq_buf_ref_t *v) { return v->used < v->depth; }
/** free_o: free words. */
static inline unsigned voq_buf_ref_free_words(const voq_buf_ref_t *v) { return v->depth - v->used; }
/** idle_o: every queue empty. */
static inline bool voq_buf_ref_idle(const voq_buf_ref_t *v) { return v->used == 0; }
/** Words in queue q (< nq). */
static inline unsigned voq_buf_ref_len(const voq_buf_ref_t *v, unsigned q) { return v->q[q].len; }
/** q_nonempty_o[q]. */
static inline bool voq_buf_ref_nonempty(const voq_buf_ref_t *v, unsigned q) { return v->q[q].len > 0; }
/** deq_data_o with deq_q_i = q: the head word of queue q (q nonempty). */
bits_t voq_buf_ref_head(const voq_buf_ref_t *v, unsigned q);
/** The i-th word of queue q from its head (i < its length). */
bits_t voq_buf_ref_at(const voq_buf_ref_t *v, unsigned q, unsigned i);

/** One rising edge with these commands. Returns false, and changes nothing, when they are illegal:
 *  an enqueue while no word is free or to a queue >= nq, a dequeue of an empty queue or of a queue
 *  >= nq. */
bool voq_buf_ref_tick(voq_buf_ref_t *v, bool enq_valid, unsigned enq_q, bits_t enq_data, bool deq_valid,
                      unsigned deq_q);

#endif
