/* A driver for the Verilated directory controller (rtl/dir/dir_ctrl.sv) on its own: its link
 * (messages to the controller with seeded jitter, per-class credits both ways), MN DRAM behind its
 * memory port (csim/mem/dram.c, latency through the kernel: data lines and the directory area), its
 * software port, its violation port and its CSR read port. Every dir_ctrl model has the same port
 * names, so one table of functions (dir_model_ops_t, built by DIR_MODEL_OPS in the file that
 * includes the model's vw header) reaches any parameter set. Used by the directory's tests
 * (tb/test_dir_ctrl.c) on its own, and by the memory node on the fabric (csim/mn/mn_node) inside the
 * system (dir_drv_create_sys: the system's kernel and the fabric's credits, cycles skipped while
 * dir_drv_next_cycle says nothing can change).
 *
 * Time is counted in controller cycles (the fabric clock); the kernel (DRAM) runs in picoseconds.
 * A message sent at cycle c with delay d is presented at cycle c + d or later, at most one per
 * cycle, the oldest arrived first (with jitter, messages overtake each other). A send needs a
 * credit of the message's class from the controller. */
#ifndef DIR_DRV_H
#define DIR_DRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/kernel.h"
#include "base/rng.h"
#include "base/stats.h"
#include "drv/dir_defs.h"
#include "drv/tx_owed.h"
#include "drv/vw_port.h"
#include "mem/dram.h"
#include "msg_defs.h"

/** The controller's inputs but clk_i, named and laid out as in every vw_dir_ctrl*_in. */
typedef struct dir_in {
    uint32_t rst_ni, node_id_i, cfg_mn_idx_i, cfg_mn_shift_i, cfg_gran_shift_i, cfg_lines_i;
    uint32_t cfg_scr_lo_i[2], cfg_scr_hi_i[2];
    uint32_t rx_valid_i;
    uint32_t rx_msg_i[MSG_FLIT_WORDS];
    uint32_t tx_crd_i;
    uint32_t tx_crd_skip_i[TX_OWED_SKIP_WORDS]; /* class c's credits of skipped cycles: bits 8c +: 8 */
    uint32_t sw_rx_ready_i, sw_tx_valid_i;
    uint32_t sw_tx_msg_i[MSG_FLIT_WORDS];
    uint32_t mem_req_ready_i, mem_rsp_valid_i;
    uint32_t mem_rsp_rdata_i[MSG_WORDS_PER_LINE * 2];
    uint32_t mg_req_valid_i, mg_req_op_i, mg_req_cn_i;
    uint32_t mg_req_addr_i[2];
    uint32_t mg_req_wmask_i;
    uint32_t mg_req_wdata_i[MSG_WORDS_PER_LINE * 2];
    uint32_t mg_req_tsv_i, mg_req_ts_i;
    uint32_t mg_rsp_ready_i;
    uint32_t csr_valid_i, csr_addr_i;
    uint32_t skip_i;
} dir_in_t;

/** The controller's outputs. */
typedef struct dir_out {
    uint32_t rx_crd_o, tx_valid_o;
    uint32_t tx_msg_o[MSG_FLIT_WORDS];
    uint32_t sw_rx_valid_o;
    uint32_t sw_rx_msg_o[MSG_FLIT_WORDS];
    uint32_t sw_tx_ready_o;
    uint32_t mem_req_valid_o, mem_req_write_o, mem_req_dir_o, mem_req_addr_o;
    uint32_t mem_req_wdata_o[MSG_WORDS_PER_LINE * 2];
    uint32_t mem_req_wmask_o;
    uint32_t viol_valid_o, viol_kind_o;
    uint32_t viol_hdr_o[8];
    uint32_t mg_req_ready_o, mg_rsp_valid_o, mg_rsp_kind_o;
    uint32_t mg_rsp_line_o[2];
    uint32_t mg_rsp_count_o;
    uint32_t csr_rvalid_o, csr_rdata_o, csr_err_o, idle_o, stall_o;
} dir_out_t;

/** One Verilated dir_ctrl model. */
typedef struct dir_model_ops {
    const char *name;
    unsigned txn_entries, dc_sets, dc_ways, crd_per_cls;
    unsigned walk_reads; /* WalkReads: directory lines the recovery walk reads ahead of its scan */
    void *(*create)(uint64_t period_ps, uint64_t seed);
    void (*free)(void *m);
    void (*set)(void *m, const dir_in_t *in);
    void (*get)(void *m, dir_out_t *out);
    /* A cycle's inputs and outputs, for the driver's step: set_step writes the inputs that change
     * from cycle to cycle (not rst_ni and the configuration, which create sets), a data port only
     * with its valid high; get_step reads every output, a data port only with its valid high. What
     * they skip keeps its value, which the step neither changes nor reads. */
    void (*set_step)(void *m, const dir_in_t *in);
    void (*get_step)(void *m, dir_out_t *out);
    void (*tick)(void *m, uint64_t cycle);
    void (*tick_idle)(void *m, uint64_t cycle); /* a cycle known to change nothing (vw_*_tick_idle) */
    int (*trace_open)(void *m, const char *path, uint64_t start_ps, uint64_t stop_ps);
    void (*trace_close)(void *m);
} dir_model_ops_t;

#define DIR_CP_(dst, src, f) memcpy(&(dst).f, &(src)->f, sizeof (dst).f)
#define DIR_CPO_(dst, src, f) memcpy(&(dst)->f, &(src).f, sizeof (dst)->f)
#define DIR_U64_(a) ((uint64_t)(a)[0] | (uint64_t)(a)[1] << 32)
/** Defines `const dir_model_ops_t NAME` for model M (vw_M.h and <string.h> included before), built
 *  with TXN transaction entries, SETS x WAYS directory cache entries, CRD credits per class and a
 *  recovery walk WALK directory lines ahead. */
#define DIR_MODEL_OPS(NAME, M, TXN, SETS, WAYS, CRD, WALK)                                                    \
    _Static_assert(sizeof(((vw_##M##_in *)0)->rx_msg_i) == sizeof(((dir_in_t *)0)->rx_msg_i), "flit width");    \
    _Static_assert(sizeof(((vw_##M##_out *)0)->viol_hdr_o) == sizeof(((dir_out_t *)0)->viol_hdr_o), "hdr");     \
    _Static_assert(sizeof(((vw_##M##_in *)0)->tx_crd_skip_i) == sizeof(((dir_in_t *)0)->tx_crd_skip_i), "skip"); \
    static void *NAME##_create(uint64_t period_ps, uint64_t seed) { return vw_##M##_create(period_ps, seed); }  \
    static void NAME##_free(void *m) { vw_##M##_free(m); }                                                      \
    static void NAME##_set(void *m, const dir_in_t *in)                                                         \
    {                                                                                                           \
        vw_##M##_in v;                                                                                          \
        DIR_CP_(v, in, rst_ni); DIR_CP_(v, in, node_id_i); DIR_CP_(v, in, cfg_mn_idx_i);                        \
        DIR_CP_(v, in, cfg_mn_shift_i); DIR_CP_(v, in, cfg_gran_shift_i); DIR_CP_(v, in, cfg_lines_i);          \
        DIR_CP_(v, in, cfg_scr_lo_i); DIR_CP_(v, in, cfg_scr_hi_i); DIR_CP_(v, in, rx_valid_i);                 \
        DIR_CP_(v, in, rx_msg_i); DIR_CP_(v, in, tx_crd_i); DIR_CP_(v, in, tx_crd_skip_i);                      \
        DIR_CP_(v, in, sw_rx_ready_i);                                                                          \
        DIR_CP_(v, in, sw_tx_valid_i); DIR_CP_(v, in, sw_tx_msg_i); DIR_CP_(v, in, mem_req_ready_i);            \
        DIR_CP_(v, in, mem_rsp_valid_i); DIR_CP_(v, in, mem_rsp_rdata_i); DIR_CP_(v, in, csr_valid_i);          \
        DIR_CP_(v, in, csr_addr_i); DIR_CP_(v, in, mg_req_valid_i); DIR_CP_(v, in, mg_req_op_i);                \
        DIR_CP_(v, in, mg_req_cn_i); DIR_CP_(v, in, mg_req_addr_i); DIR_CP_(v, in, mg_req_wmask_i);             \
        DIR_CP_(v, in, mg_req_wdata_i); DIR_CP_(v, in, mg_req_tsv_i); DIR_CP_(v, in, mg_req_ts_i);              \
        DIR_CP_(v, in, mg_rsp_ready_i); DIR_CP_(v, in, skip_i);                                                 \
        vw_##M##_set(m, &v);                                                                                    \
    }                                                                                                           \
    static void NAME##_get(void *m, dir_out_t *out)                                                             \
    {                                                                                                           \
        vw_##M##_out v;                                                                                         \
        vw_##M##_get(m, &v);                                                                                    \
        DIR_CPO_(out, v, rx_crd_o); DIR_CPO_(out, v, tx_valid_o); DIR_CPO_(out, v, tx_msg_o);                   \
        DIR_CPO_(out, v, sw_rx_valid_o); DIR_CPO_(out, v, sw_rx_msg_o); DIR_CPO_(out, v, sw_tx_ready_o);        \
        DIR_CPO_(out, v, mem_req_valid_o); DIR_CPO_(out, v, mem_req_write_o); DIR_CPO_(out, v, mem_req_dir_o);  \
        DIR_CPO_(out, v, mem_req_addr_o); DIR_CPO_(out, v, mem_req_wdata_o); DIR_CPO_(out, v, mem_req_wmask_o); \
        DIR_CPO_(out, v, viol_valid_o); DIR_CPO_(out, v, viol_kind_o); DIR_CPO_(out, v, viol_hdr_o);            \
        DIR_CPO_(out, v, csr_rvalid_o); DIR_CPO_(out, v, csr_rdata_o); DIR_CPO_(out, v, csr_err_o);             \
        DIR_CPO_(out, v, idle_o); DIR_CPO_(out, v, mg_req_ready_o); DIR_CPO_(out, v, mg_rsp_valid_o);           \
        DIR_CPO_(out, v, mg_rsp_kind_o); DIR_CPO_(out, v, mg_rsp_line_o); DIR_CPO_(out, v, mg_rsp_count_o);     \
        DIR_CPO_(out, v, stall_o);                                                                              \
    }                                                                                                           \
    static void NAME##_set_step(void *m, const dir_in_t *in)                                                    \
    {                                                                                                           \
        const vw_##M##_ports *p = vw_##M##_ports_of(m);                                                         \
        vw_##M##_set_rx_valid_i(p, in->rx_valid_i);                                                             \
        if (in->rx_valid_i)                                                                                     \
            VW_SET_WORDS(M, p, in, rx_msg_i);                                                                   \
        vw_##M##_set_tx_crd_i(p, in->tx_crd_i);                                                                 \
        VW_SET_WORDS(M, p, in, tx_crd_skip_i);                                                                  \
        vw_##M##_set_sw_rx_ready_i(p, in->sw_rx_ready_i);                                                       \
        vw_##M##_set_sw_tx_valid_i(p, in->sw_tx_valid_i);                                                       \
        if (in->sw_tx_valid_i)                                                                                  \
            VW_SET_WORDS(M, p, in, sw_tx_msg_i);                                                                \
        vw_##M##_set_mem_req_ready_i(p, in->mem_req_ready_i);                                                   \
        vw_##M##_set_mem_rsp_valid_i(p, in->mem_rsp_valid_i);                                                   \
        if (in->mem_rsp_valid_i)                                                                                \
            VW_SET_WORDS(M, p, in, mem_rsp_rdata_i);                                                            \
        vw_##M##_set_mg_req_valid_i(p, in->mg_req_valid_i);                                                     \
        vw_##M##_set_mg_rsp_ready_i(p, in->mg_rsp_ready_i);                                                     \
        if (in->mg_req_valid_i) {                                                                               \
            vw_##M##_set_mg_req_op_i(p, in->mg_req_op_i);                                                       \
            vw_##M##_set_mg_req_cn_i(p, in->mg_req_cn_i);                                                       \
            vw_##M##_set_mg_req_addr_i(p, DIR_U64_(in->mg_req_addr_i));                                         \
            vw_##M##_set_mg_req_wmask_i(p, in->mg_req_wmask_i);                                                 \
            vw_##M##_set_mg_req_tsv_i(p, in->mg_req_tsv_i);                                                     \
            vw_##M##_set_mg_req_ts_i(p, in->mg_req_ts_i);                                                       \
            VW_SET_WORDS(M, p, in, mg_req_wdata_i);                                                             \
        }                                                                                                       \
        vw_##M##_set_csr_valid_i(p, in->csr_valid_i);                                                           \
        if (in->csr_valid_i)                                                                                    \
            vw_##M##_set_csr_addr_i(p, in->csr_addr_i);                                                         \
        vw_##M##_set_skip_i(p, in->skip_i);                                                                     \
    }                                                                                                           \
    static void NAME##_get_step(void *m, dir_out_t *out)                                                        \
    {                                                                                                           \
        vw_##M##_settle(m);                                                                                     \
        const vw_##M##_ports *p = vw_##M##_ports_of(m);                                                         \
        out->rx_crd_o = (uint32_t)vw_##M##_get_rx_crd_o(p);                                                     \
        if ((out->tx_valid_o = (uint32_t)vw_##M##_get_tx_valid_o(p)))                                           \
            VW_GET_WORDS(M, p, out, tx_msg_o);                                                                  \
        if ((out->sw_rx_valid_o = (uint32_t)vw_##M##_get_sw_rx_valid_o(p)))                                     \
            VW_GET_WORDS(M, p, out, sw_rx_msg_o);                                                               \
        out->sw_tx_ready_o = (uint32_t)vw_##M##_get_sw_tx_ready_o(p);                                           \
        if ((out->mem_req_valid_o = (uint32_t)vw_##M##_get_mem_req_valid_o(p))) {                               \
            out->mem_req_write_o = (uint32_t)vw_##M##_get_mem_req_write_o(p);                                   \
            out->mem_req_dir_o = (uint32_t)vw_##M##_get_mem_req_dir_o(p);                                       \
            out->mem_req_addr_o = (uint32_t)vw_##M##_get_mem_req_addr_o(p);                                     \
            out->mem_req_wmask_o = (uint32_t)vw_##M##_get_mem_req_wmask_o(p);                                   \
            if (out->mem_req_write_o)                                                                           \
                VW_GET_WORDS(M, p, out, mem_req_wdata_o);                                                       \
        }                                                                                                       \
        if ((out->viol_valid_o = (uint32_t)vw_##M##_get_viol_valid_o(p))) {                                     \
            out->viol_kind_o = (uint32_t)vw_##M##_get_viol_kind_o(p);                                           \
            VW_GET_WORDS(M, p, out, viol_hdr_o);                                                                \
        }                                                                                                       \
        out->mg_req_ready_o = (uint32_t)vw_##M##_get_mg_req_ready_o(p);                                         \
        if ((out->mg_rsp_valid_o = (uint32_t)vw_##M##_get_mg_rsp_valid_o(p))) {                                 \
            out->mg_rsp_kind_o = (uint32_t)vw_##M##_get_mg_rsp_kind_o(p);                                       \
            const uint64_t l_ = vw_##M##_get_mg_rsp_line_o(p);                                                  \
            out->mg_rsp_line_o[0] = (uint32_t)l_;                                                               \
            out->mg_rsp_line_o[1] = (uint32_t)(l_ >> 32);                                                       \
            out->mg_rsp_count_o = (uint32_t)vw_##M##_get_mg_rsp_count_o(p);                                     \
        }                                                                                                       \
        out->csr_rvalid_o = (uint32_t)vw_##M##_get_csr_rvalid_o(p);                                             \
        out->csr_rdata_o = (uint32_t)vw_##M##_get_csr_rdata_o(p);                                               \
        out->csr_err_o = (uint32_t)vw_##M##_get_csr_err_o(p);                                                   \
        out->idle_o = (uint32_t)vw_##M##_get_idle_o(p);                                                         \
        out->stall_o = (uint32_t)vw_##M##_get_stall_o(p);                                                       \
    }                                                                                                           \
    static void NAME##_tick(void *m, uint64_t cycle) { vw_##M##_tick(m, cycle); }                               \
    static void NAME##_tick_idle(void *m, uint64_t cycle) { vw_##M##_tick_idle(m, cycle); }                     \
    static int NAME##_trace_open(void *m, const char *p, uint64_t a, uint64_t b)                                \
    {                                                                                                           \
        return vw_##M##_trace_open(m, p, a, b);                                                                 \
    }                                                                                                           \
    static void NAME##_trace_close(void *m) { vw_##M##_trace_close(m); }                                        \
    const dir_model_ops_t NAME = {#M,           TXN,           SETS,          WAYS,          CRD,  WALK,        \
                                  NAME##_create, NAME##_free,  NAME##_set,    NAME##_get,                       \
                                  NAME##_set_step, NAME##_get_step,                                             \
                                  NAME##_tick,  NAME##_tick_idle, NAME##_trace_open, NAME##_trace_close}

typedef struct dir_drv_cfg {
    unsigned node_id;        /* the MN's node id (MSG_MN_BASE + index) */
    unsigned mn_idx, mn_shift, gran_shift; /* this MN's index; log2 MNs; log2 interleave lines */
    uint32_t lines;          /* local lines of memory */
    uint64_t scr_lo, scr_hi; /* the Small Coherent Region (global line addresses) */
    uint64_t period_ps;      /* controller clock period (1000: 1 GHz) */
    uint64_t mem_latency_ps; /* DRAM access latency (45 ns) */
    uint64_t mem_burst_ps;   /* DRAM channel occupancy per access (0: unlimited) */
    unsigned mem_max_out;    /* accesses in flight before the port says not ready (>= 1) */
    unsigned tx_credits;     /* credits per class the driver grants the send port */
    double tx_stall;         /* chance per cycle that a consumed message's credit is held back */
    double sw_stall;         /* chance per cycle that the software port is not ready */
} dir_drv_cfg_t;

/** Defaults: MN 0 of one, 1 GHz, 45 ns DRAM, 1 M lines (64 MB), all of it coherent. */
dir_drv_cfg_t dir_drv_cfg_default(void);

/** A driver inside the system (csim/mn/mn_node) rather than on its own: its DRAM runs on the system's
 *  kernel k (the driver never runs a kernel; the caller's events do), its DRAM statistics go to st
 *  under dram_name, wake(obj) is called when a DRAM read completes (the controller has work at its
 *  next edge), and the send port's credits come only from dir_drv_tx_credit (a message the
 *  controller sends does not return its credit by itself: the link partner does). */
typedef struct dir_drv_sys {
    kernel_t *k;
    stats_t *st;
    const char *dram_name;
    void (*wake)(void *obj);
    void *obj;
} dir_drv_sys_t;

/** A message the controller sent (or, for on_sw, passed to the software). */
typedef void (*dir_msg_fn)(void *ctx, const msg_t *m, uint64_t cycle);

/** One violation reported. */
typedef struct dir_viol_rec {
    unsigned kind;
    msg_t m; /* the header (data zero) */
    uint64_t cycle;
} dir_viol_rec_t;

typedef struct dir_drv dir_drv_t;

dir_drv_t *dir_drv_create(const dir_model_ops_t *ops, const dir_drv_cfg_t *cfg, uint64_t seed, dir_msg_fn on_tx,
                          void *ctx);
/** As dir_drv_create, inside the system (see dir_drv_sys_t); cfg->tx_credits and tx_stall are
 *  not used. */
dir_drv_t *dir_drv_create_sys(const dir_model_ops_t *ops, const dir_drv_cfg_t *cfg, uint64_t seed,
                              dir_msg_fn on_tx, void *ctx, const dir_drv_sys_t *sys);
void dir_drv_free(dir_drv_t *d);
/** fn(ctx, m, cycle) for every message passed to the MN's software. */
void dir_drv_on_sw(dir_drv_t *d, dir_msg_fn fn);
uint64_t dir_drv_cycle(const dir_drv_t *d);
/** Credits of class cls held toward the controller. */
unsigned dir_drv_credits(const dir_drv_t *d, msg_class_t cls);
/** Sends m (a credit of its class must be held; it is spent); presented delay (>= 1) cycles from
 *  now or later. */
void dir_drv_send(dir_drv_t *d, const msg_t *m, uint64_t delay);
/** As dir_drv_send, presented at cycle (>= dir_drv_cycle: the next edge at the earliest) or later. */
void dir_drv_send_at(dir_drv_t *d, const msg_t *m, uint64_t cycle);
/** One send credit of class c for the controller, handed over at the next edge (one per class per
 *  edge; those not yet handed over wait). For a driver made by dir_drv_create_sys. Asleep, the
 *  next edge is that of dir_drv_cycle: the caller skips to the credit's cycle first. */
void dir_drv_tx_credit(dir_drv_t *d, msg_class_t c);
/** The controller sleeps (idle or stalled after its last edge, inside the system): a send credit
 *  needs no clocked edge of its own (dir_drv_tx_credit after dir_drv_skip_to). */
bool dir_drv_asleep(const dir_drv_t *d);
/** The software sends m through the MN's port (queued; leaves in order). */
void dir_drv_sw_send(dir_drv_t *d, const msg_t *m);
size_t dir_drv_in_flight(const dir_drv_t *d);
/** One controller cycle. */
void dir_drv_step(dir_drv_t *d);
/** The controller is not clocked before cycle (>= dir_drv_cycle): the next dir_drv_step is the
 *  edge of cycle. Only when dir_drv_next_cycle is cycle or later does this change nothing. */
void dir_drv_skip_to(dir_drv_t *d, uint64_t cycle);
/** The first cycle at which the controller has work: dir_drv_cycle() when its next edge may change
 *  something (it was busy or had an input at the last one, a send credit, a DRAM answer, a software
 *  message or a management command waits), the cycle its link presents the next message, or
 *  UINT64_MAX when nothing changes until a message, credit, DRAM completion or command arrives.
 *  The last edge counts as quiet when idle_o was high with no input at all (a credit or a CSR read
 *  is an input idle_o does not see), so such an edge changed no state. */
uint64_t dir_drv_next_cycle(const dir_drv_t *d);
/** A memory port request taken at cycle (its address as on the port: local line or entry group). */
typedef void (*dir_mem_fn)(void *ctx, bool write, bool dir, uint32_t addr, uint64_t cycle);
/** fn(ctx, ...) for every memory request the port takes. */
void dir_drv_on_mem(dir_drv_t *d, dir_mem_fn fn);
/** Reads a CSR (two cycles); *err set when refused. */
uint32_t dir_drv_csr(dir_drv_t *d, unsigned addr, bool *err);
/** The controller reports idle, the link and the software queue hold nothing, DRAM is quiet. */
bool dir_drv_idle(const dir_drv_t *d);
/** Violations reported so far. */
size_t dir_drv_viols(const dir_drv_t *d);
const dir_viol_rec_t *dir_drv_viol(const dir_drv_t *d, size_t i);
/** Zero-time access to the data of local line l. */
void dir_drv_mem_peek(const dir_drv_t *d, uint32_t l, uint64_t *line);
void dir_drv_mem_poke(dir_drv_t *d, uint32_t l, uint8_t mask, const uint64_t *line);
/** The directory entry of local line l as stored in DRAM (the cache may hold a newer one). */
void dir_drv_entry_peek(const dir_drv_t *d, uint32_t l, dir_entry_t *e);
/** Cycles the memory port held a request back (not ready). */
uint64_t dir_drv_mem_stalls(const dir_drv_t *d);
/** Cycles skipped while the controller was stalled (stall_o: new requests waiting for the full
 *  table), which the controller counted as EV_FULL's at the edge after them (skip_i). */
uint64_t dir_drv_stall_skips(const dir_drv_t *d);
/** The last edge was a stalled one (stall_o, no input): so are the edges after it until an input. */
bool dir_drv_stalled(const dir_drv_t *d);
const dir_out_t *dir_drv_out(const dir_drv_t *d);
/* The management port (the MN's recovery handler; docs/architecture.md section 11c). Commands are
 * queued and presented in order, one at a time; answers are collected in arrival order. */
typedef struct dir_mg_cmd {
    dir_mg_op_e op;
    unsigned cn;      /* FAIL */
    uint64_t line;    /* RECOVER: global line address */
    uint8_t wmask;    /* RECOVER: words to write */
    uint64_t data[MSG_WORDS_PER_LINE];
    bool set_ts;      /* RECOVER: the line's version becomes ts (else the entry keeps its own) */
    uint8_t ts;       /* RECOVER: the failed owner's last version of the line (mod 2^MSG_TS_W) */
} dir_mg_cmd_t;
typedef struct dir_mg_rsp {
    dir_mg_rsp_e kind;
    uint64_t line;   /* OWNED, RECOVERED, NOT_OWNED, REFUSED */
    uint32_t count;  /* WALKED: TravDir cycles */
    uint64_t cycle;  /* when it left the port */
} dir_mg_rsp_t;
/** Queues a command for the management port. */
void dir_drv_mg_send(dir_drv_t *d, const dir_mg_cmd_t *c);
/** Commands queued and not yet taken. */
size_t dir_drv_mg_pending(const dir_drv_t *d);
/** Answers received so far (the i-th, or NULL). */
size_t dir_drv_mg_rsps(const dir_drv_t *d);
const dir_mg_rsp_t *dir_drv_mg_rsp(const dir_drv_t *d, size_t i);

/** Opens an FST trace of the model. */
int dir_drv_trace(dir_drv_t *d, const char *path);
/** Opens an FST trace of the model dumping from start_ps to stop_ps (edge k at k x period_ps). */
int dir_drv_trace_window(dir_drv_t *d, const char *path, uint64_t start_ps, uint64_t stop_ps);

#endif
