#include "gen/msg_rand.h"

#include <string.h>

void msg_fill_random(rng_t *r, msg_op_t op, msg_t *m)
{
    memset(m, 0, sizeof *m);
    m->opcode = op;
    uint32_t used = msg_fields_used(op);
    for (unsigned i = 0; i < MSG_NUM_HDR_FIELDS; i++)
        if (used & (1u << i))
            msg_field_set(m, 1u << i, rng_next(r));
    msg_data_kind_t k = msg_data_kind(op);
    if (k == MSG_DATA_LINE)
        m->mask = (uint8_t)((1u << MSG_WORDS_PER_LINE) - 1);
    if (k == MSG_DATA_WORDS && !m->mask)
        m->mask = 1;
    if (k != MSG_DATA_NONE)
        for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
            m->data[w] = m->mask >> w & 1u ? rng_next(r) : 0;
}
