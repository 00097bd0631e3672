/* Reference model of rtl/common/credit_cnt.sv, and the legal environment around it: a receiver
 * that returns only credits it holds (initially MaxCredits - InitCredits, then every credit spent)
 * and a sender that spends only credits it has (including ones returned in the same cycle). */
#ifndef CREDIT_CNT_REF_H
#define CREDIT_CNT_REF_H

#include <stdbool.h>

typedef struct credit_cnt_ref {
    unsigned max, init;
    unsigned left;     /* the counter: credits the sender holds */
    unsigned at_recv;  /* credits the receiver holds (buffer slots free to give back) */
} credit_cnt_ref_t;

void credit_cnt_ref_init(credit_cnt_ref_t *c, unsigned max_credits, unsigned init_credits);
/** Count back to InitCredits (rst_ni low); the receiver holds the rest. */
void credit_cnt_ref_reset(credit_cnt_ref_t *c);
/** One rising edge: give credits returned, take one spent. Returns false on underflow or overflow
 *  (the model then keeps its state). */
bool credit_cnt_ref_tick(credit_cnt_ref_t *c, unsigned give, bool take);

#endif
