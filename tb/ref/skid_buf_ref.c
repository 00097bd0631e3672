#include "skid_buf_ref.h"

void skid_buf_ref_reset(skid_buf_ref_t *s) { *s = (skid_buf_ref_t){0}; }

skid_buf_ref_out_t skid_buf_ref_outputs(const skid_buf_ref_t *s)
{
    return (skid_buf_ref_out_t){.in_ready = !s->skid_valid, .out_valid = s->out_valid, .out_data = s->out_data};
}

/* Written as the two-entry queue it is (oldest in the output register), not as a copy of the
 * RTL's case split, so that the two are independent descriptions. */
void skid_buf_ref_tick(skid_buf_ref_t *s, bool in_valid, bits_t in_data, bool out_ready)
{
    bool push = in_valid && !s->skid_valid, pop = s->out_valid && out_ready;
    bits_t q[3];
    unsigned n = 0;
    if (s->out_valid)
        q[n++] = s->out_data;
    if (s->skid_valid)
        q[n++] = s->skid_data;
    unsigned first = pop ? 1 : 0;
    if (push)
        q[n++] = in_data;
    n -= first;
    s->out_valid = n >= 1;
    s->skid_valid = n >= 2;
    if (n >= 1)
        s->out_data = q[first];
    if (n >= 2)
        s->skid_data = q[first + 1];
}
