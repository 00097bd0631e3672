/* Test parts shared by the LU's and the MN log store's tests (mn_lu.h). */
#include "mn_lu.h"

#include <criterion/criterion.h>

void lu_send_when_credit(lu_drv_t *d, const msg_t *m)
{
    for (int i = 0; i < 10000 && !lu_drv_credits(d, msg_class(m->opcode)); i++)
        lu_drv_step(d);
    cr_assert(lu_drv_credits(d, msg_class(m->opcode)), "no %s credit", msg_class_name(msg_class(m->opcode)));
    lu_drv_send(d, m, 1);
}

void mn_lu_pump(mn_log_t *mn, lu_drv_t *d, uint64_t delay)
{
    msg_t m;
    while (mn_log_tx_peek(mn, &m) && lu_drv_credits(d, msg_class(m.opcode))) {
        lu_drv_send(d, &m, delay);
        mn_log_tx_pop(mn);
    }
}

void mn_lu_assert_clean(const mn_log_t *mn, const char *ctx)
{
    if (!mn_log_nerrors(mn))
        return;
    const mn_log_err_t *e = mn_log_error(mn, 0);
    cr_assert_fail("%s: the MN log store lists %zu errors; the first: %s: %s (%s from %u to %u tag %u addr %llu "
                   "flags %u)",
                   ctx, mn_log_nerrors(mn), mn_log_err_name(e->kind), e->what, msg_name(e->msg.opcode), e->msg.src,
                   e->msg.dst, e->msg.tag, (unsigned long long)e->msg.addr, e->msg.flags);
}

bool lu_rec_eq(const lu_rec_t *a, const lu_rec_t *b)
{
    return a->value == b->value && a->line == b->line && a->word == b->word && a->ts == b->ts && a->cn == b->cn &&
           a->core == b->core && a->written == b->written;
}

void lu_rec_pack(const lu_rec_t *r, uint32_t w[4])
{
    uint64_t hi = (r->line & ((1ull << MSG_LINE_ADDR_W) - 1)) | (uint64_t)(r->word & 7) << 42 |
                  (uint64_t)(r->ts & 0x7f) << 45 | (uint64_t)(r->cn & 0x3f) << 52 | (uint64_t)(r->core & 0xf) << 58 |
                  (uint64_t)(r->written ? 1 : 0) << 62;
    w[0] = (uint32_t)r->value;
    w[1] = (uint32_t)(r->value >> 32);
    w[2] = (uint32_t)hi;
    w[3] = (uint32_t)(hi >> 32);
}
