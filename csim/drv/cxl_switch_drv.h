/* A driver for the Verilated CXL switch (rtl/switch/cxl_switch.sv) on its own, whatever its shape:
 * the generated wrappers (build/gen/vw/vw_cxl_switch_<shape>.h) all have the same port names, so
 * one table of functions and port offsets (sw_model_ops_t, built by SW_MODEL_OPS) reaches any of
 * them. Used by the switch's tests (tb/test_cxl_switch.c) and its benchmark
 * (csim/main/switch_bench.c).
 *
 * The driver keeps the port structs of one model and steps it one clock cycle at a time, with now_i
 * the cycle number; it initializes the switch through its CSRs (a route from every node of the
 * shape to its port, then CTRL.ENABLE) and counts the credits the switch's input ports advertise
 * to their link partners (in_crd). Everything else (what to send, which credits the outputs' link
 * partners return) is the caller's: it writes the input words between steps. */
#ifndef CXL_SWITCH_DRV_H
#define CXL_SWITCH_DRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msg_defs.h"

#define SW_MAX_PORTS (MSG_MAX_CN + MSG_MAX_MN)

/** One Verilated cxl_switch model: the generated wrapper's functions behind void pointers, and where
 *  each port lives in its vw_<model>_in / _out struct (byte offsets; every port is uint32_t words). */
typedef struct sw_model_ops {
    const char *name;
    unsigned ncn, nmn;
    bool voq; /* built with Voq = 1 (virtual output queues), else input FIFOs */
    size_t in_size, out_size;
    void *(*create)(uint64_t period_ps, uint64_t seed);
    void (*free)(void *m);
    uint64_t (*reset)(void *m, uint64_t cycle, unsigned n);
    void (*set)(void *m, const void *in);
    void (*get)(void *m, void *out);
    void (*tick)(void *m, uint64_t cycle);
    size_t rst_ni, now_i, rx_valid_i, rx_msg_i, rx_hb_i, tx_crd_i, csr_valid_i, csr_write_i, csr_addr_i,
        csr_wdata_i; /* in */
    size_t rx_crd_o, tx_valid_o, tx_msg_o, csr_rvalid_o, csr_rdata_o, csr_err_o, timer_valid_o, timer_left_o,
        idle_o; /* out */
} sw_model_ops_t;

/** Defines `static const sw_model_ops_t NAME` for the model M (its header vw_M.h included before),
 *  with NCN + NMN ports, VOQ true when built with Voq = 1. */
#define SW_MODEL_OPS(NAME, M, NCN, NMN, VOQ)                                                                   \
    static void *NAME##_create(uint64_t period_ps, uint64_t seed) { return vw_##M##_create(period_ps, seed); } \
    static void NAME##_free(void *m) { vw_##M##_free(m); }                                                      \
    static uint64_t NAME##_reset(void *m, uint64_t cycle, unsigned n) { return vw_##M##_reset(m, cycle, n); }   \
    static void NAME##_set(void *m, const void *in) { vw_##M##_set(m, in); }                                    \
    static void NAME##_get(void *m, void *out) { vw_##M##_get(m, out); }                                        \
    static void NAME##_tick(void *m, uint64_t cycle) { vw_##M##_tick(m, cycle); }                               \
    static const sw_model_ops_t NAME = {                                                                        \
        #M, NCN, NMN, VOQ, sizeof(vw_##M##_in), sizeof(vw_##M##_out),                                           \
        NAME##_create, NAME##_free, NAME##_reset, NAME##_set, NAME##_get, NAME##_tick,                          \
        SW_IN_OFF(M, rst_ni), SW_IN_OFF(M, now_i), SW_IN_OFF(M, rx_valid_i), SW_IN_OFF(M, rx_msg_i),            \
        SW_IN_OFF(M, rx_hb_i), SW_IN_OFF(M, tx_crd_i), SW_IN_OFF(M, csr_valid_i), SW_IN_OFF(M, csr_write_i),     \
        SW_IN_OFF(M, csr_addr_i), SW_IN_OFF(M, csr_wdata_i),                                                    \
        SW_OUT_OFF(M, rx_crd_o), SW_OUT_OFF(M, tx_valid_o), SW_OUT_OFF(M, tx_msg_o), SW_OUT_OFF(M, csr_rvalid_o), \
        SW_OUT_OFF(M, csr_rdata_o), SW_OUT_OFF(M, csr_err_o), SW_OUT_OFF(M, timer_valid_o),                     \
        SW_OUT_OFF(M, timer_left_o), SW_OUT_OFF(M, idle_o)}
#define SW_IN_OFF(M, P) offsetof(vw_##M##_in, P)
#define SW_OUT_OFF(M, P) offsetof(vw_##M##_out, P)

/** The switch shapes linked into a program that uses a generated registry (switch_bench),
 *  NULL-terminated. */
extern const sw_model_ops_t *const sw_models[];

/** One switch model being driven. */
typedef struct sw {
    const sw_model_ops_t *ops;
    void *m;
    unsigned np;    /* ports: ncn + nmn */
    uint64_t cycle; /* the next cycle to run */
    uint8_t *in, *out;
    unsigned in_crd[SW_MAX_PORTS][MSG_NUM_CLASSES]; /* credits the inputs' link partners hold */
} sw_t;

/** Creates and resets the model (X randomization seeded by seed), routes every node of the shape
 *  to its port and, when enable, sets CTRL.ENABLE (the ports advertise their credits from then on).
 *  Returns 0, or -1 when the model cannot be made or a CSR write is refused (s is then freed). */
int sw_init(sw_t *s, const sw_model_ops_t *ops, uint64_t seed, bool enable);
void sw_free(sw_t *s);

/** One clock cycle with the inputs as written: now_i = the cycle number; then reads the outputs and
 *  adds the credits the input ports returned to in_crd. */
void sw_step(sw_t *s);

/** One CSR access in one cycle (other inputs as they are): *rdata gets the read data. Returns 0
 *  when accepted, 1 when refused (csr_err_o), -1 when no response came the cycle after. */
int sw_csr(sw_t *s, bool write, unsigned addr, uint32_t wdata, uint32_t *rdata);

/** Node id of port p (CN p, or MN p - ncn), and the port of a node of the shape. */
unsigned sw_port_node(const sw_t *s, unsigned p);
unsigned sw_node_port(const sw_t *s, unsigned node);

/** Port words: input port at offset off (ops->*_i), output port (ops->*_o). */
static inline uint32_t *sw_in(sw_t *s, size_t off) { return (uint32_t *)(s->in + off); }
static inline const uint32_t *sw_out(const sw_t *s, size_t off) { return (const uint32_t *)(s->out + off); }
/** Bit i of a port vector, and setting it. */
static inline unsigned sw_bit(const uint32_t *v, unsigned i) { return v[i / 32] >> (i % 32) & 1u; }
static inline void sw_set_bit(uint32_t *v, unsigned i, unsigned b)
{
    v[i / 32] = (v[i / 32] & ~(1u << (i % 32))) | (b << (i % 32));
}

/** Makes port p's input carry m in the next step (packed; rx_valid set) and spends one of the
 *  link partner's credits of m's class (the caller checks it has one). */
void sw_send(sw_t *s, unsigned p, const msg_t *m);
/** Clears every rx_valid_i, rx_hb_i and tx_crd_i bit. */
void sw_clear_inputs(sw_t *s);
/** Port p delivered a message in the last step: unpacks it into m and returns true. */
bool sw_delivered(const sw_t *s, unsigned p, msg_t *m);
/** Every output's link partner grants n credits of every class (n cycles, one per class each). */
void sw_grant_all(sw_t *s, unsigned n);

#endif
