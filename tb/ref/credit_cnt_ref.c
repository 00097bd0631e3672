#include "credit_cnt_ref.h"

void credit_cnt_ref_init(credit_cnt_ref_t *c, unsigned max_credits, unsigned init_credits)
{
    *c = (credit_cnt_ref_t){.max = max_credits, .init = init_credits};
    credit_cnt_ref_reset(c);
}

void credit_cnt_ref_reset(credit_cnt_ref_t *c)
{
    c->left = c->init;
    c->at_recv = c->max - c->init;
}

bool credit_cnt_ref_tick(credit_cnt_ref_t *c, unsigned give, bool take)
{
    unsigned sum = c->left + give;
    if ((take && sum == 0) || sum - take > c->max || give > c->at_recv)
        return false;
    c->left = sum - take;
    c->at_recv = c->at_recv - give + take;
    return true;
}
