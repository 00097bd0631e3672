/* The Logging Unit of one CN on the fabric: the Verilated logging_unit (rtl/lu/logging_unit.sv,
 * driven through lu_drv_create_sys) clocked in its own clock domain (lu.freq, 500 MHz) by the
 * system's kernel, its DRAM log (csim/mem/dram.c on the same kernel), its compression engine
 * (csim/lu_zlib.c, inside lu_drv) and its share of the CN's fabric port (csim/cn_port, user
 * CN_PORT_LU). The MN side of its dumps is lu_store below: an mn_log store per MN, fed through
 * mn_node_on_sw and answering through mn_node_sw_send.
 *
 * Link, port to LU. The node holds what the port delivers to the LU (REPL, VAL, EARLY_FLUSH,
 * INTERRUPT, FETCH_LATEST_VERS, RECOV_END, DUMP_GO, DUMP_DONE) and presents, at each LU edge, up
 * to two of them (the LU's two receive lanes: the 1 GHz link brings two messages per 500 MHz LU
 * cycle), the oldest first, each only when the LU holds a credit of its class (a class without one
 * holds back only itself, later classes pass); presenting frees the port's buffer (cn_port_release).
 * A message delivered at t is presented at the first LU edge at or after t.
 * Link, LU to port. The LU's send credits are places in the port's LU queues: at most
 * min(port depth, the model's credits per class) per class, each given back when the port forwards
 * the message to the fabric.
 *
 * Clocking. As csim/mn_node: the LU is clocked only while it has work (lu_drv_next_cycle); asleep,
 * it is woken by a delivery, a credit, a DRAM read completing or a dump start. Its edges run in a
 * late kernel phase (after the fabric's edges and model events of the same time), so an edge sees
 * exactly what arrived at or before it whichever way it was scheduled: the LU sees the same inputs
 * at the same cycles with and without skipping (tb/test_lu_node.c compares the two).
 *
 * Dumps. Every dump_period (a kernel event at each multiple of it from time 0) the node raises
 * dump_start_i for one edge; the RTL also dumps on an EARLY_FLUSH received, and at its high
 * watermark (after sending EARLY_FLUSH to every other CN). The dump goes, compressed at zlib_level,
 * as DUMP_DATA chunks to MN `mn` (section 11b).
 *
 * Replica groups, ranges and MNs (the mapping lu_map_* computes; docs/architecture.md 11f).
 * The RTL dumps one contiguous range of line addresses, and clears its whole DRAM log afterwards,
 * so every line must be dumped, in every epoch, by exactly one of its replicas (two replicas
 * dumping one line in one epoch could store an older version after a newer one: the MN store takes
 * the last record as the latest). Hence:
 *   - the remote line space [0, lines) is cut into num_cn equal contiguous ranges; CN i's LU owns
 *     range i and dumps exactly it (lu_map_range);
 *   - the replica set of line L is its range's owner o(L) and the Nr - 1 CNs after it, modulo
 *     num_cn (lu_map_replicas): the owner always holds the line's records, so the dump is complete;
 *     the writer may be one of them;
 *   - LU i dumps to MN i mod num_mn; MN j's store synchronizes the LUs that dump to it
 *     (lu_map_lus_of_mn of them per epoch). Every LU dumps in every epoch (the dump period and
 *     Early Flush reach them all), so every store's epoch completes.
 * Live CNs: after a failure the owner's range must move to a live replica (lu_node_set_range, for
 * issue 8's recovery), and the failed LU's MN store must expect one LU less; neither is done here. */
#ifndef LU_NODE_H
#define LU_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cn_port.h"
#include "kernel.h"
#include "lu_drv.h"
#include "mn_log.h"
#include "mn_node.h"
#include "stats.h"

#define LU_NODE_ERR_MAX 256

typedef struct lu_node_params {
    unsigned cn, num_cn;     /* this CN (node id) and the CNs of the system (Early Flush goes to the others) */
    uint64_t freq_hz;        /* the LU's clock (lu.freq) */
    uint64_t sram_bytes;     /* lu.sram_bytes: must be the linked model's entries x 16 (its buffer); 0: not checked */
    uint64_t dram_log_bytes; /* lu.dram_log_bytes: 16-byte records, at most 2^32 - 1 of them */
    double high_watermark;   /* lu.high_watermark: fraction of the log at which it dumps early */
    uint64_t dump_period_ps; /* lu.dump_period; 0: no periodic dumps */
    int zlib_level;          /* lu.zlib_level */
    uint64_t dram_latency_ps;
    uint64_t addr_lim;       /* lines: REPLs at or above are refused (the remote memory's end) */
    uint64_t range_lo, range_hi; /* the lines it dumps */
    unsigned mn;             /* the MN index it dumps to */
    const char *name;        /* statistics prefix, e.g. "cn0.lu" */
    uint64_t seed;
    bool skip_idle;
} lu_node_params_t;

typedef struct lu_node lu_node_t;

/** Creates the LU on port (user CN_PORT_LU), resets it and starts its clock now. NULL and one line
 *  in err (LU_NODE_ERR_MAX bytes; may be NULL) when the parameters are impossible. Statistics:
 *  <name>.cycles_clocked, .cycles_skipped, .rx_msgs, .tx_msgs, .rx_lost (arrived while dead),
 *  .dump_starts, and the DRAM log's under <name>.dram. */
lu_node_t *lu_node_create(kernel_t *k, cn_port_t *port, const lu_model_ops_t *ops, const lu_node_params_t *p,
                          stats_t *st, char *err);
/** Frees it. Call after the kernel has stopped for good (DRAM events refer to it). */
void lu_node_free(lu_node_t *n);
/** alive false: the LU freezes from its next edge on (fail-stop: no state changes, nothing sent,
 *  arrivals lost) and is never clocked again. */
void lu_node_set_alive(lu_node_t *n, bool alive);
bool lu_node_alive(const lu_node_t *n);
/** Starts a dump at the next edge (as the dump period does). */
void lu_node_dump_start(lu_node_t *n);
/** The dump range and MN index from the next edge on. */
void lu_node_set_range(lu_node_t *n, uint64_t lo, uint64_t hi, unsigned mn);
/** Nothing going on: the LU idle and asleep, nothing held for it, its DRAM log quiet. */
bool lu_node_idle(const lu_node_t *n);
/** The driver, for inspection (its DRAM log: lu_drv_log_writes / _write / _peek; zlib bytes). Its
 *  CSR reads step the model: not while the kernel runs it. */
const lu_drv_t *lu_node_drv(const lu_node_t *n);
/** State, queue and credits, one paragraph. */
void lu_node_dump(const lu_node_t *n, FILE *f);

/** What an observer sees: 0 a message presented to the LU, 1 a message it sent, 2 a DRAM log record
 *  written (m NULL, addr = its index in write order). */
typedef void (*lu_observe_fn)(void *obj, uint64_t cycle, unsigned kind, const msg_t *m, uint64_t addr);
void lu_node_observe(lu_node_t *n, lu_observe_fn fn, void *obj);

/* The mapping of ranges, replica groups and MNs (see above). lines: remote lines in the system. */
/** CN cn's range [*lo, *hi). */
void lu_map_range(unsigned cn, unsigned num_cn, uint64_t lines, uint64_t *lo, uint64_t *hi);
/** The CN whose range holds line. */
unsigned lu_map_owner(uint64_t line, unsigned num_cn, uint64_t lines);
/** The replica CNs of line into out[0 .. nr - 1] (owner first); returns nr (capped at num_cn). */
unsigned lu_map_replicas(uint64_t line, unsigned num_cn, unsigned nr, uint64_t lines, unsigned *out);
/** The MN index CN cn's LU dumps to, and the number of LUs that dump to MN mn. */
unsigned lu_map_mn(unsigned cn, unsigned num_mn);
unsigned lu_map_lus_of_mn(unsigned mn, unsigned num_cn, unsigned num_mn);

/* The MN's side: an mn_log store fed with the MN's software messages. */
typedef struct lu_store lu_store_t;
/** An mn_log store on MN mn_idx's node (it takes over mn_node_on_sw), synchronizing lus_per_epoch
 *  LUs. Messages that are not the store's (recovery's) are counted and passed to other_fn if set. */
lu_store_t *lu_store_create(mn_node_t *mn, unsigned mn_idx, unsigned lus_per_epoch);
void lu_store_on_other(lu_store_t *s, void (*fn)(void *obj, const msg_t *m), void *obj);
void lu_store_free(lu_store_t *s);
mn_log_t *lu_store_log(lu_store_t *s);
/** Messages the store did not take. */
uint64_t lu_store_others(const lu_store_t *s);

#endif
