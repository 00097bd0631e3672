/* A memory node (MN) on the fabric: the Verilated directory controller (rtl/dir/dir_ctrl.sv,
 * driven through csim/drv/dir_drv) clocked in the fabric's clock domain by the system's kernel, MN DRAM
 * behind its memory port (csim/mem/dram.c on the same kernel: data lines, then the directory
 * area), and its link attached to one MN port of the fabric (csim/drv/fabric.h).
 *
 * Link, fabric to controller. The node's adapter holds what the fabric delivers (the fabric's
 * rx_credits buffers per class) and presents it to the controller in arrival order, one message
 * per edge, when the controller holds a credit of its class; that frees the adapter's buffer
 * (fabric_release). A message delivered at time t is presented at the first edge at or after t.
 * Link, controller to fabric. The controller's send credits mirror the node's credits toward its
 * switch port: each credit the fabric returns to the node becomes one credit handed to the
 * controller, so every message the controller sends goes to fabric_send at once, at the edge it
 * leaves, with a credit.
 *
 * Clocking. The controller is clocked only while it has work (dir_drv_next_cycle: busy, an input
 * or credit pending); asleep, it is woken by a delivery, a credit, a DRAM completion or a software
 * message. Its edges run after every other event of their time (a third kernel phase, after the
 * fabric's edges and the model events), so each edge sees exactly what arrived at or before it,
 * whether it was scheduled in a chain of edges or by a wake-up: the controller sees the same inputs
 * at the same cycles with and without skipping (tb/test_mn_node.c compares the two runs).
 *
 * Messages of the MN's software classes (MGREQ, MGRSP, DUMP) go to the callback of mn_node_on_sw.
 * Protocol violations the controller reports are counted, kept (kind, header, cycle) and printed
 * by mn_node_dump; the system treats any violation as a failure. */
#ifndef MN_NODE_H
#define MN_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/kernel.h"
#include "base/stats.h"
#include "drv/dir_drv.h"
#include "drv/fabric.h"
#include "msg_defs.h"

/** Bytes of the err buffer mn_node_create fills. */
#define MN_NODE_ERR_MAX 256

typedef struct mn_node_params {
    unsigned mn, num_mn;        /* this MN's index; MNs in the system (a power of two) */
    uint64_t mn_bytes;          /* memory of this MN (whole lines; at most 2^32 - 1 lines) */
    uint64_t interleave_bytes;  /* interleaving granularity over the MNs (a power of two, >= 64) */
    uint64_t scr_lo, scr_hi;    /* global line addresses; scr_hi = 0 means all coherent */
    uint64_t freq_hz;           /* fabric clock (the controller's) */
    uint64_t dram_latency_ps;   /* MN DRAM access latency */
    const char *name;           /* statistics prefix, e.g. "mn0" */
    uint64_t seed;
    bool skip_idle;             /* clock the controller only while it has work (as fabric_params_t) */
} mn_node_params_t;

typedef struct mn_node mn_node_t;

/** Creates the MN on MN port `port` of f (node MSG_MN_BASE + p->mn), with the controller model
 *  ops, resets it and starts its clock at the current time. NULL and one line in err (at least
 *  MN_NODE_ERR_MAX bytes; may be NULL) when the parameters are impossible. Statistics:
 *  <name>.cycles_clocked, .cycles_skipped, .rx_msgs, .tx_msgs, .sw_msgs, .violations, .rx_held
 *  (edges at which the adapter held a message for want of a controller credit), .tx_starved (edges
 *  at which some class had no credit toward the switch), and the DRAM's under <name>.dram. */
mn_node_t *mn_node_create(kernel_t *k, fabric_t *f, unsigned port, const dir_model_ops_t *ops,
                          const mn_node_params_t *p, stats_t *st, char *err);
/** Copies the line at global line address gline from MN DRAM (zero time, memory only: a line a CN
 *  holds dirty may be newer). gline must be this MN's (mn_node_owns). */
void mn_node_peek(const mn_node_t *n, uint64_t gline, uint64_t words[8]);
/** Writes the words of gline selected by mask into MN DRAM (zero time; for loading). */
void mn_node_poke(mn_node_t *n, uint64_t gline, uint8_t mask, const uint64_t words[8]);
/** True when this MN is the home of global line gline (and the line lies within its memory). */
bool mn_node_owns(const mn_node_t *n, uint64_t gline);
/** True when nothing is going on: the controller idle and asleep (or with nothing to do), no
 *  message held by the adapter, DRAM quiet. */
bool mn_node_idle(const mn_node_t *n);
/** Violations the controller reported so far. */
size_t mn_node_violations(const mn_node_t *n);
/** Writes the node's state (cycles, clock, controller, adapter queues and credits, DRAM) and every
 *  violation (kind, message header, cycle) to f. */
void mn_node_dump(const mn_node_t *n, FILE *f);
/** fn(obj, m) for every message of the software classes (MGREQ, MGRSP, DUMP) that reaches the MN,
 *  at the edge the controller passes it on. Without a callback they are counted and dropped. */
void mn_node_on_sw(mn_node_t *n, void (*fn)(void *obj, const msg_t *m), void *obj);
/** The MN's software sends m (MGREQ or MGRSP) through the controller's software port (queued,
 *  leaves in order). */
void mn_node_sw_send(mn_node_t *n, const msg_t *m);
/** The MN's recovery handler gives the controller's management port a command (FAIL, WALK,
 *  RECOVER, RESUME: docs/architecture.md section 11c; queued, taken in order, one a cycle at most);
 *  the node wakes for it. */
void mn_node_mg_send(mn_node_t *n, const dir_mg_cmd_t *c);
/** fn(obj, r) for every answer of the management port, in order, at the edge it leaves the port. */
void mn_node_on_mg(mn_node_t *n, void (*fn)(void *obj, const dir_mg_rsp_t *r), void *obj);
/** Opens an FST trace of the controller, dumping from start_ps to stop_ps. 0 on success. */
int mn_node_trace_open(mn_node_t *n, const char *path, uint64_t start_ps, uint64_t stop_ps);
/** Frees the node. Call after the kernel has stopped for good (DRAM events refer to it). */
void mn_node_free(mn_node_t *n);

/** What an observer sees (tests compare runs with it). */
typedef enum mn_obs {
    MN_OBS_RX = 0,     /* m presented to the controller */
    MN_OBS_TX = 1,     /* m sent by the controller (to fabric_send) */
    MN_OBS_SW = 2,     /* m passed to the software */
    MN_OBS_MEM_RD = 3, /* a DRAM read taken by the memory port: addr = DRAM line */
    MN_OBS_MEM_WR = 4, /* a DRAM write taken: addr = DRAM line */
    MN_OBS_VIOL = 5,   /* a violation: addr = its kind, m = the header */
} mn_obs_e;
/** fn(obj, cycle, kind, m or NULL, addr) for every event above, at the edge of cycle. DRAM lines:
 *  local data line l at l, directory group g at lines + g (lines = mn_bytes / 64). */
typedef void (*mn_observe_fn)(void *obj, uint64_t cycle, mn_obs_e kind, const msg_t *m, uint64_t addr);
void mn_node_observe(mn_node_t *n, mn_observe_fn fn, void *obj);
/** The controller's driver (CSR reads are not for a node on the kernel: they step the model). */
const dir_drv_t *mn_node_drv(const mn_node_t *n);
/** Reads the controller's CSR addr (err: refused) between runs of the kernel, the controller quiet
 *  or stalled with no input due (dir_drv_next_cycle UINT64_MAX) and no message the adapter could
 *  present: the three edges of a read (the request, the answer, the answer cleared) are clocked at
 *  once, from the current time, as if the hardware's CSR port were read then. */
uint32_t mn_node_csr(mn_node_t *n, unsigned addr, bool *err);

/** The directory model a program links for its MNs (scripts/mk/dir.mk generates it: the
 *  dir_ctrl model in $(DIR_SYS_OBJS), the fast flavour in $(DIR_SYS_OBJS_fast)). Declared here,
 *  defined only in programs that link one of them. */
extern const dir_model_ops_t dir_ops_sys;

#endif
