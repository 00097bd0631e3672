/* A driver for the Verilated Logging Unit (rtl/lu/logging_unit.sv) on its own: its link (messages
 * to the LU with seeded jitter, per-class credits both ways), its DRAM log (the memory port, served
 * by csim/mem/dram.c with latency through the kernel), its CSR read port. Every logging_unit model
 * has the same port names, so one table of functions (lu_model_ops_t, built by LU_MODEL_OPS in the
 * file that includes the model's vw header) reaches any parameter set. Used by the LU's tests
 * (tb/test_logging_unit.c) and its benchmark (csim/main/lu_bench.c).
 *
 * Time is counted in LU cycles; the kernel (DRAM) runs in picoseconds at the LU period. A message
 * sent at cycle c with delay d is presented to the LU at cycle c + d or later: the link presents up
 * to LU_RX_LANES (2) messages per cycle, the oldest arrived first, on lane 0, the next on lane 1 (the
 * LU's 1 GHz switch port delivers two per 500 MHz LU cycle; with jitter, messages overtake each
 * other, as the fabric may reorder them). A send needs a credit of the message's class from the
 * LU; the LU returns at most one per class per cycle. */
#ifndef LU_DRV_H
#define LU_DRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csr_defs.h"
#include "base/kernel.h"
#include "base/rng.h"
#include "base/stats.h"
#include "drv/lu_zlib.h"
#include "drv/vw_port.h"
#include "mem/dram.h"
#include "msg_defs.h"

/** Receive lanes of the LU: messages the link presents per LU cycle. */
#define LU_RX_LANES 2

/** The LU's inputs but clk_i, named and laid out as in every vw_logging_unit*_in. */
typedef struct lu_in {
    uint32_t rst_ni, alive_i, node_id_i;
    uint32_t cfg_addr_lim_i[2];
    uint32_t cfg_log_cap_i, cfg_hwm_i;
    uint32_t cfg_own_i[2];
    uint32_t cfg_mn_i, cfg_num_cn_i, dump_start_i, dp_ready_i, dc_valid_i;
    uint32_t dc_data_i[MSG_WORDS_PER_LINE * 2];
    uint32_t dc_last_i;
    uint32_t rx_valid_i;                             /* bit k: lane k */
    uint32_t rx_msg_i[LU_RX_LANES * MSG_FLIT_WORDS]; /* lane k at [k * MSG_FLIT_WORDS] */
    uint32_t tx_crd_i;
    uint32_t mem_req_ready_i, mem_rsp_valid_i;
    uint32_t mem_rsp_rdata_i[4];
    uint32_t csr_valid_i, csr_addr_i;
} lu_in_t;

/** The LU's outputs. */
typedef struct lu_out {
    uint32_t rx_crd_o, tx_valid_o;
    uint32_t tx_msg_o[MSG_FLIT_WORDS];
    uint32_t mem_req_valid_o, mem_req_write_o, mem_req_addr_o;
    uint32_t mem_req_wdata_o[4];
    uint32_t csr_rvalid_o, csr_rdata_o, csr_err_o, early_flush_o, idle_o;
    uint32_t dp_valid_o;
    uint32_t dp_rec_o[4];
    uint32_t dp_end_o, dc_ready_o;
} lu_out_t;

/** One Verilated logging_unit model. */
typedef struct lu_model_ops {
    const char *name;
    unsigned entries, slots, crd_per_cls;
    void *(*create)(uint64_t period_ps, uint64_t seed);
    void (*free)(void *m);
    void (*set)(void *m, const lu_in_t *in);
    void (*get)(void *m, lu_out_t *out);
    /* A cycle's inputs and outputs, for the driver's step: set_step writes every input but rst_ni
     * and the configuration (which create sets; alive_i is written), get_step every output, a data
     * port only with its valid high (what it skips keeps its value, which the step does not read). */
    void (*set_step)(void *m, const lu_in_t *in);
    void (*get_step)(void *m, lu_out_t *out);
    void (*tick)(void *m, uint64_t cycle);
    void (*tick_idle)(void *m, uint64_t cycle); /* a cycle known to change nothing (vw_*_tick_idle) */
    int (*trace_open)(void *m, const char *path, uint64_t start_ps, uint64_t stop_ps);
    void (*trace_close)(void *m);
} lu_model_ops_t;

#define LU_CP_(dst, src, f) memcpy(&(dst).f, &(src)->f, sizeof (dst).f)
#define LU_CPO_(dst, src, f) memcpy(&(dst)->f, &(src).f, sizeof (dst)->f)
/** Defines `const lu_model_ops_t NAME` for model M (vw_M.h and <string.h> included before), built
 *  with ENTRIES entries, SLOTS slots and CRD credits per class. */
#define LU_MODEL_OPS(NAME, M, ENTRIES, SLOTS, CRD)                                                              \
    _Static_assert(sizeof(((vw_##M##_in *)0)->rx_msg_i) == sizeof(((lu_in_t *)0)->rx_msg_i), "lane flits");     \
    static void *NAME##_create(uint64_t period_ps, uint64_t seed) { return vw_##M##_create(period_ps, seed); }  \
    static void NAME##_free(void *m) { vw_##M##_free(m); }                                                      \
    static void NAME##_set(void *m, const lu_in_t *in)                                                          \
    {                                                                                                           \
        vw_##M##_in v;                                                                                          \
        LU_CP_(v, in, rst_ni); LU_CP_(v, in, alive_i); LU_CP_(v, in, node_id_i);                                \
        LU_CP_(v, in, cfg_addr_lim_i); LU_CP_(v, in, cfg_log_cap_i); LU_CP_(v, in, cfg_hwm_i);                  \
        LU_CP_(v, in, rx_valid_i); LU_CP_(v, in, rx_msg_i); LU_CP_(v, in, tx_crd_i);                            \
        LU_CP_(v, in, mem_req_ready_i); LU_CP_(v, in, mem_rsp_valid_i); LU_CP_(v, in, mem_rsp_rdata_i);         \
        LU_CP_(v, in, csr_valid_i); LU_CP_(v, in, csr_addr_i);                                                  \
        LU_CP_(v, in, cfg_own_i); LU_CP_(v, in, cfg_mn_i);                                                      \
        LU_CP_(v, in, cfg_num_cn_i); LU_CP_(v, in, dump_start_i); LU_CP_(v, in, dp_ready_i);                    \
        LU_CP_(v, in, dc_valid_i); LU_CP_(v, in, dc_data_i); LU_CP_(v, in, dc_last_i);                          \
        vw_##M##_set(m, &v);                                                                                    \
    }                                                                                                           \
    static void NAME##_get(void *m, lu_out_t *out)                                                              \
    {                                                                                                           \
        vw_##M##_out v;                                                                                         \
        vw_##M##_get(m, &v);                                                                                    \
        LU_CPO_(out, v, rx_crd_o); LU_CPO_(out, v, tx_valid_o); LU_CPO_(out, v, tx_msg_o);                      \
        LU_CPO_(out, v, mem_req_valid_o); LU_CPO_(out, v, mem_req_write_o); LU_CPO_(out, v, mem_req_addr_o);     \
        LU_CPO_(out, v, mem_req_wdata_o); LU_CPO_(out, v, csr_rvalid_o); LU_CPO_(out, v, csr_rdata_o);           \
        LU_CPO_(out, v, csr_err_o); LU_CPO_(out, v, early_flush_o); LU_CPO_(out, v, idle_o);                    \
        LU_CPO_(out, v, dp_valid_o); LU_CPO_(out, v, dp_rec_o); LU_CPO_(out, v, dp_end_o);                      \
        LU_CPO_(out, v, dc_ready_o);                                                                            \
    }                                                                                                           \
    static void NAME##_set_step(void *m, const lu_in_t *in)                                                     \
    {                                                                                                           \
        const vw_##M##_ports *p = vw_##M##_ports_of(m);                                                         \
        vw_##M##_set_alive_i(p, in->alive_i);                                                                   \
        vw_##M##_set_dump_start_i(p, in->dump_start_i);                                                         \
        vw_##M##_set_dp_ready_i(p, in->dp_ready_i);                                                             \
        vw_##M##_set_dc_valid_i(p, in->dc_valid_i);                                                             \
        if (in->dc_valid_i)                                                                                     \
            VW_SET_WORDS(M, p, in, dc_data_i);                                                                  \
        vw_##M##_set_dc_last_i(p, in->dc_last_i);                                                               \
        vw_##M##_set_rx_valid_i(p, in->rx_valid_i);                                                             \
        if (in->rx_valid_i)                                                                                     \
            VW_SET_WORDS(M, p, in, rx_msg_i);                                                                   \
        vw_##M##_set_tx_crd_i(p, in->tx_crd_i);                                                                 \
        vw_##M##_set_mem_req_ready_i(p, in->mem_req_ready_i);                                                   \
        vw_##M##_set_mem_rsp_valid_i(p, in->mem_rsp_valid_i);                                                   \
        if (in->mem_rsp_valid_i)                                                                                \
            VW_SET_WORDS(M, p, in, mem_rsp_rdata_i);                                                            \
        vw_##M##_set_csr_valid_i(p, in->csr_valid_i);                                                           \
        vw_##M##_set_csr_addr_i(p, in->csr_addr_i);                                                             \
    }                                                                                                           \
    static void NAME##_get_step(void *m, lu_out_t *out)                                                         \
    {                                                                                                           \
        vw_##M##_settle(m);                                                                                     \
        const vw_##M##_ports *p = vw_##M##_ports_of(m);                                                         \
        out->rx_crd_o = (uint32_t)vw_##M##_get_rx_crd_o(p);                                                     \
        if ((out->tx_valid_o = (uint32_t)vw_##M##_get_tx_valid_o(p)))                                           \
            VW_GET_WORDS(M, p, out, tx_msg_o);                                                                  \
        if ((out->mem_req_valid_o = (uint32_t)vw_##M##_get_mem_req_valid_o(p))) {                               \
            out->mem_req_write_o = (uint32_t)vw_##M##_get_mem_req_write_o(p);                                   \
            out->mem_req_addr_o = (uint32_t)vw_##M##_get_mem_req_addr_o(p);                                     \
            if (out->mem_req_write_o)                                                                           \
                VW_GET_WORDS(M, p, out, mem_req_wdata_o);                                                       \
        }                                                                                                       \
        out->csr_rvalid_o = (uint32_t)vw_##M##_get_csr_rvalid_o(p);                                             \
        out->csr_rdata_o = (uint32_t)vw_##M##_get_csr_rdata_o(p);                                               \
        out->csr_err_o = (uint32_t)vw_##M##_get_csr_err_o(p);                                                   \
        out->early_flush_o = (uint32_t)vw_##M##_get_early_flush_o(p);                                           \
        out->idle_o = (uint32_t)vw_##M##_get_idle_o(p);                                                         \
        if ((out->dp_valid_o = (uint32_t)vw_##M##_get_dp_valid_o(p))) {                                         \
            out->dp_end_o = (uint32_t)vw_##M##_get_dp_end_o(p);                                                 \
            VW_GET_WORDS(M, p, out, dp_rec_o);                                                                  \
        }                                                                                                       \
        out->dc_ready_o = (uint32_t)vw_##M##_get_dc_ready_o(p);                                                 \
    }                                                                                                           \
    static void NAME##_tick(void *m, uint64_t cycle) { vw_##M##_tick(m, cycle); }                               \
    static void NAME##_tick_idle(void *m, uint64_t cycle) { vw_##M##_tick_idle(m, cycle); }                     \
    static int NAME##_trace_open(void *m, const char *p, uint64_t a, uint64_t b)                                \
    {                                                                                                           \
        return vw_##M##_trace_open(m, p, a, b);                                                                 \
    }                                                                                                           \
    static void NAME##_trace_close(void *m) { vw_##M##_trace_close(m); }                                        \
    const lu_model_ops_t NAME = {#M,          ENTRIES,        SLOTS,         CRD,           NAME##_create,      \
                                 NAME##_free, NAME##_set, NAME##_get, NAME##_set_step, NAME##_get_step,         \
                                 NAME##_tick, NAME##_tick_idle, NAME##_trace_open, NAME##_trace_close}

/* CSR word addresses: LU_CSR_* in csr_defs.h (generated from rtl/include/csrs.toml). */

/** One DRAM log record, unpacked (lu_log.sv's 128-bit layout). */
typedef struct lu_rec {
    uint64_t value, line;
    unsigned word, ts, cn, core;
    bool written; /* bits 127:126 == 01 */
} lu_rec_t;

void lu_rec_unpack(const uint32_t w[4], lu_rec_t *r);

/** A line address's bucket: its 6-bit chunks folded by XOR (lu_dump.sv's line_bucket). */
static inline unsigned lu_line_bucket(uint64_t line)
{
    unsigned b = 0;
    for (unsigned i = 0; i < MSG_LINE_ADDR_W / 6; i++)
        b ^= (unsigned)(line >> (6 * i)) & 63u;
    return b;
}

typedef struct lu_drv_cfg {
    unsigned node_id;
    uint64_t addr_lim;       /* line addresses >= this are out of range */
    uint32_t log_cap, hwm;   /* DRAM log capacity and high watermark, records */
    uint64_t period_ps;      /* LU clock period (2000: 500 MHz) */
    uint64_t mem_latency_ps; /* DRAM log access latency */
    uint64_t mem_burst_ps;   /* DRAM channel occupancy per access (0: unlimited) */
    unsigned mem_max_out;    /* accesses in flight before the port says not ready (>= 1) */
    unsigned tx_credits;     /* credits per class the driver grants the LU's send port */
    double tx_stall;         /* chance per cycle that a consumed message's credit is held back */
    uint64_t log_base_line;  /* DRAM line address of record 0 */
    uint64_t own;            /* the hash buckets of line addresses it dumps (bit b: bucket b); all by default,
                                as the system has it (csim/cn/lu_node.h) */
    unsigned mn_id;          /* the MN controller it dumps to */
    unsigned num_cn;         /* CNs of the system (Early Flush goes to the others) */
    int zlib_level;          /* compression engine level (0..9) */
    lu_zlib_pool_t *zpool;   /* host threads that compress dumps ahead (lu_zlib.h), or NULL */
    bool keep_log;           /* keep every record the DRAM log takes (lu_drv_log_write); default true */
} lu_drv_cfg_t;

/** Paper defaults: 500 MHz, 45 ns DRAM, 18 MB log of 16-byte records, watermark at 7/8. */
lu_drv_cfg_t lu_drv_cfg_default(void);

/** A message the LU sent: handed to the caller. */
typedef void (*lu_tx_fn)(void *ctx, const msg_t *m, uint64_t cycle);

typedef struct lu_drv lu_drv_t;

lu_drv_t *lu_drv_create(const lu_model_ops_t *ops, const lu_drv_cfg_t *cfg, uint64_t seed, lu_tx_fn on_tx,
                        void *ctx);
void lu_drv_free(lu_drv_t *d);
/** fn(ctx, m, cycle) for every message the link presents to the LU (in presentation order: lane 0
 *  before lane 1 within a cycle). */
void lu_drv_on_rx(lu_drv_t *d, lu_tx_fn fn);
/** Current cycle (the next edge to run). */
uint64_t lu_drv_cycle(const lu_drv_t *d);
/** Credits of class cls held toward the LU. */
unsigned lu_drv_credits(const lu_drv_t *d, msg_class_t cls);
/** Sends m (a credit of its class must be held; it is spent); the LU may see it delay cycles from
 *  now (>= 1) or later. */
void lu_drv_send(lu_drv_t *d, const msg_t *m, uint64_t delay);
/** Messages sent and not yet presented to the LU. */
size_t lu_drv_in_flight(const lu_drv_t *d);
/** One LU cycle. */
void lu_drv_step(lu_drv_t *d);
/** Reads a CSR (two cycles); *err set when refused. */
uint32_t lu_drv_csr(lu_drv_t *d, unsigned addr, bool *err);
/** alive_i from the next cycle on. */
void lu_drv_set_alive(lu_drv_t *d, bool alive);
/** The LU reports idle, the link holds nothing, the DRAM log is quiet. */
bool lu_drv_idle(const lu_drv_t *d);
/** Records written to the DRAM log so far (in write order), and record i. */
size_t lu_drv_log_writes(const lu_drv_t *d);
const lu_rec_t *lu_drv_log_write(const lu_drv_t *d, size_t i);
/** The largest the log has been: records (16 bytes each) at the fullest, over every epoch (the
 *  log restarts at index 0 after each dump clears it). */
uint32_t lu_drv_log_max(const lu_drv_t *d);
/** Record at log index idx as stored in the DRAM model. */
void lu_drv_log_peek(const lu_drv_t *d, uint32_t idx, lu_rec_t *r);
/** The last outputs seen. */
const lu_out_t *lu_drv_out(const lu_drv_t *d);
/** Cycles the DRAM port held a request back (not ready). */
uint64_t lu_drv_mem_stalls(const lu_drv_t *d);
/** Starts a dump at the next cycle (the platform's dump period). */
void lu_drv_dump_start(lu_drv_t *d);
/** Bytes into and out of the compression engine, over all dumps. */
void lu_drv_zlib_bytes(const lu_drv_t *d, uint64_t *in, uint64_t *out);
/** fn(ctx, r) for every record the DRAM log takes, as it takes it. */
void lu_drv_on_log(lu_drv_t *d, void (*fn)(void *ctx, const lu_rec_t *r), void *ctx);
/** Dumps whose records were not those announced to the compression pool (lu_zlib_missed). */
uint64_t lu_drv_zlib_missed(const lu_drv_t *d);
/** Opens an FST trace of the model. */
int lu_drv_trace(lu_drv_t *d, const char *path);

/* Inside the system (csim/cn/lu_node), as dir_drv_create_sys is for the directory: the driver runs no
 * kernel of its own, its link is fed by the caller at given cycles, its send credits come from the
 * caller, and it can tell the first cycle at which it has work, so idle cycles are skipped. */

/** What the driver needs from the system: the kernel its DRAM log runs on (the driver never runs
 *  it), the statistics its DRAM reports to under dram_name, and wake(obj), called when a DRAM read
 *  completes (the LU has work at its next edge). */
typedef struct lu_drv_sys {
    kernel_t *k;
    stats_t *st;
    const char *dram_name;
    void (*wake)(void *obj);
    void *obj;
} lu_drv_sys_t;

/** As lu_drv_create, inside the system (see lu_drv_sys_t); cfg->tx_credits and tx_stall are not
 *  used: the send port's credits come only from lu_drv_tx_credit. */
lu_drv_t *lu_drv_create_sys(const lu_model_ops_t *ops, const lu_drv_cfg_t *cfg, uint64_t seed, lu_tx_fn on_tx,
                            void *ctx, const lu_drv_sys_t *sys);
/** As lu_drv_send, presented at cycle (>= lu_drv_cycle: the next edge at the earliest) or later. */
void lu_drv_send_at(lu_drv_t *d, const msg_t *m, uint64_t cycle);
/** One send credit of class c for the LU, handed over at the next edge (one per class per edge;
 *  those not yet handed over wait). */
void lu_drv_tx_credit(lu_drv_t *d, msg_class_t c);
/** The LU is not clocked before cycle (>= lu_drv_cycle): the next lu_drv_step is the edge of
 *  cycle. Changes nothing only when lu_drv_next_cycle is cycle or later. */
void lu_drv_skip_to(lu_drv_t *d, uint64_t cycle);
/** The first cycle at which the LU has work: lu_drv_cycle() when its next edge may change
 *  something (the last edge was not quiet, a send credit, a dump start, a compressed chunk, a DRAM
 *  answer or a CSR read waits), the cycle its link presents the next message, or UINT64_MAX when
 *  nothing changes until a message, credit, DRAM completion or dump start arrives. An edge is quiet
 *  when idle_o was high and it had no input idle_o does not see (a message, a credit, a dump start,
 *  a chunk, a DRAM answer, a CSR read). */
uint64_t lu_drv_next_cycle(const lu_drv_t *d);
/** The configuration in force. */
const lu_drv_cfg_t *lu_drv_cfg(const lu_drv_t *d);

#endif
