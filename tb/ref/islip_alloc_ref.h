/* Reference model of rtl/switch/islip_alloc.sv: iSLIP (McKeown, IEEE/ACM ToN 7(2), 1999), written
 * from the algorithm's definition. Each cycle, for iteration 1 .. iters:
 *   request: every unmatched input requests every unmatched output it has a message for;
 *   grant:   every unmatched output that is requested grants the requesting input that comes first
 *            in round-robin order from its grant pointer;
 *   accept:  every input that is granted accepts the granting output that comes first in
 *            round-robin order from its accept pointer; the pair is matched.
 * When the matching is used (en), each first-iteration match moves the input's accept pointer to
 * one past its output and the output's grant pointer to one past its input. Nothing else moves a
 * pointer. Up to ISLIP_REF_MAX inputs and outputs. */
#ifndef ISLIP_ALLOC_REF_H
#define ISLIP_ALLOC_REF_H

#include <stdbool.h>
#include <stdint.h>

/** Largest number of inputs and of outputs (a request row is one uint64_t). */
#define ISLIP_REF_MAX 64

typedef struct islip_alloc_ref {
    unsigned n_in, n_out, iters;
    unsigned gptr[ISLIP_REF_MAX]; /* per output: the input it grants first */
    unsigned aptr[ISLIP_REF_MAX]; /* per input: the output it accepts first */
} islip_alloc_ref_t;

/** A matching. */
typedef struct islip_match {
    int in[ISLIP_REF_MAX];        /* output matched to input i, or -1 */
    int out[ISLIP_REF_MAX];       /* input matched to output o, or -1 */
    unsigned iter[ISLIP_REF_MAX]; /* per input: iteration (1-based) that matched it, 0 if none */
    unsigned size;                /* number of matched pairs */
} islip_match_t;

/** n_in, n_out in 1 ..= ISLIP_REF_MAX; iters >= 1. Pointers at 0. */
void islip_alloc_ref_init(islip_alloc_ref_t *a, unsigned n_in, unsigned n_out, unsigned iters);
/** Every pointer back to 0 (rst_ni low). */
void islip_alloc_ref_reset(islip_alloc_ref_t *a);
/** The matching for requests req (req[i] bit o: input i requests output o), without changing the
 *  state. */
void islip_alloc_ref_match(const islip_alloc_ref_t *a, const uint64_t *req, islip_match_t *m);
/** One cycle: computes the matching into *m (may be NULL) and, when en, moves the pointers. */
void islip_alloc_ref_step(islip_alloc_ref_t *a, const uint64_t *req, bool en, islip_match_t *m);

#endif
