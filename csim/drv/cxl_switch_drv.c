#include "drv/cxl_switch_drv.h"

#include <stdlib.h>
#include <string.h>

#include "csr_defs.h"

int sw_init(sw_t *s, const sw_model_ops_t *ops, uint64_t seed, bool enable)
{
    memset(s, 0, sizeof *s);
    s->ops = ops;
    s->np = ops->ncn + ops->nmn;
    if (s->np > SW_MAX_PORTS)
        return -1;
    s->in = calloc(1, ops->in_size);
    s->out = calloc(1, ops->out_size);
    s->m = s->in && s->out ? ops->create(1000, seed) : NULL;
    if (!s->m) {
        free(s->in);
        free(s->out);
        return -1;
    }
    s->cycle = ops->reset(s->m, 0, 3);
    *sw_in(s, ops->rst_ni) = 1;
    uint32_t rd;
    for (unsigned p = 0; p < s->np; p++)
        if (sw_csr(s, true, SW_CSR_ROUTE(sw_port_node(s, p)), SW_ROUTE_VALID | p, &rd))
            goto fail;
    if (enable && sw_csr(s, true, SW_CSR_CTRL, SW_CTRL_ENABLE, &rd))
        goto fail;
    return 0;
fail:
    sw_free(s);
    return -1;
}

void sw_free(sw_t *s)
{
    s->ops->free(s->m);
    free(s->in);
    free(s->out);
    s->m = NULL;
    s->in = s->out = NULL;
}

void sw_step(sw_t *s)
{
    const sw_model_ops_t *o = s->ops;
    *sw_in(s, o->now_i) = (uint32_t)s->cycle;
    o->set(s->m, s->in);
    o->tick(s->m, s->cycle++);
    o->get(s->m, s->out);
    const uint32_t *crd = sw_out(s, o->rx_crd_o);
    for (unsigned w = 0; w * 32 < s->np * MSG_NUM_CLASSES; w++)
        for (uint32_t v = crd[w]; v; v &= v - 1) {
            unsigned k = w * 32 + (unsigned)__builtin_ctz(v);
            s->in_crd[k / MSG_NUM_CLASSES][k % MSG_NUM_CLASSES]++;
        }
}

int sw_csr(sw_t *s, bool write, unsigned addr, uint32_t wdata, uint32_t *rdata)
{
    const sw_model_ops_t *o = s->ops;
    *sw_in(s, o->csr_valid_i) = 1;
    *sw_in(s, o->csr_write_i) = write;
    *sw_in(s, o->csr_addr_i) = addr;
    *sw_in(s, o->csr_wdata_i) = wdata;
    sw_step(s);
    *sw_in(s, o->csr_valid_i) = 0;
    *sw_in(s, o->csr_write_i) = 0;
    *sw_in(s, o->csr_addr_i) = 0;
    *sw_in(s, o->csr_wdata_i) = 0;
    *rdata = *sw_out(s, o->csr_rdata_o);
    if (!*sw_out(s, o->csr_rvalid_o))
        return -1;
    return *sw_out(s, o->csr_err_o) ? 1 : 0;
}

unsigned sw_port_node(const sw_t *s, unsigned p) { return p < s->ops->ncn ? p : MSG_MN_BASE + p - s->ops->ncn; }

unsigned sw_node_port(const sw_t *s, unsigned node)
{
    return node < MSG_MN_BASE ? node : s->ops->ncn + node - MSG_MN_BASE;
}

void sw_send(sw_t *s, unsigned p, const msg_t *m)
{
    sw_set_bit(sw_in(s, s->ops->rx_valid_i), p, 1);
    msg_pack(m, sw_in(s, s->ops->rx_msg_i) + p * MSG_FLIT_WORDS);
    s->in_crd[p][msg_class(m->opcode)]--;
}

void sw_clear_inputs(sw_t *s)
{
    const unsigned nw = (s->np + 31) / 32, ncw = (s->np * MSG_NUM_CLASSES + 31) / 32;
    memset(sw_in(s, s->ops->rx_valid_i), 0, nw * sizeof(uint32_t));
    memset(sw_in(s, s->ops->rx_hb_i), 0, nw * sizeof(uint32_t));
    memset(sw_in(s, s->ops->tx_crd_i), 0, ncw * sizeof(uint32_t));
}

bool sw_delivered(const sw_t *s, unsigned p, msg_t *m)
{
    if (!sw_bit(sw_out(s, s->ops->tx_valid_o), p))
        return false;
    msg_unpack(sw_out(s, s->ops->tx_msg_o) + p * MSG_FLIT_WORDS, m);
    return true;
}

void sw_grant_all(sw_t *s, unsigned n)
{
    uint32_t *crd = sw_in(s, s->ops->tx_crd_i);
    for (unsigned i = 0; i < n; i++) {
        for (unsigned k = 0; k < s->np * MSG_NUM_CLASSES; k++)
            sw_set_bit(crd, k, 1);
        sw_step(s);
    }
    for (unsigned k = 0; k < s->np * MSG_NUM_CLASSES; k++)
        sw_set_bit(crd, k, 0);
}
