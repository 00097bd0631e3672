/* The C side of the fabric: the Verilated fabric_top (the CXL switch) behind a shape-independent
 * interface, the CXL-style links between node models and fabric ports, the switch's management
 * (CSR) port, and the clocking of the RTL.
 *
 * Links. Each port has a link in each direction with a fixed latency plus optional seeded jitter
 * (which may reorder messages, as the paper allows the fabric to). A link carries one message per
 * fabric cycle. Flow control is per class, by credits, both ways:
 *   node -> RTL: after reset the RTL port returns its credits (in_credits per class, which
 *                fabric_create() programs); fabric_send() consumes one and the RTL returns it when
 *                the message leaves its input buffer.
 *   RTL -> node: the node grants rx_credits per class (its receive buffers) and returns one with
 *                fabric_release() each time it consumes a delivered message.
 * Credits travel with the link latency and no jitter. A live CN's link layer also sends a
 * heartbeat when its link into the switch has carried nothing for heartbeat_cycles, so that the
 * switch's silence rule catches only dead nodes; a failed node (fabric_fail_node) goes silent.
 *
 * Management. fabric_create programs the switch through its CSR port before any node can send:
 * a route for every node to its port, the failure-detection limits, then CTRL.ENABLE, after which
 * the ports advertise their credits. fabric_csr queues further accesses (one per fabric cycle, in
 * order), for the Configuration Manager's software and for tests.
 *
 * Clocking. The RTL is clocked only while it has work: after each cycle, when fabric_top reports
 * idle and no input is due, no edge is scheduled until a link delivers something, a heartbeat is
 * due, or the switch's earliest failure timer expires (it reads the cycle count as an input). Edges run before
 * every other event at the same time (kernel phases) and inputs reach the RTL only through links of
 * non-zero latency, so the RTL sees the same inputs at the same cycles with or without skipping;
 * tb/test_fabric.c checks that cycle for cycle.
 *
 * Threads. With two host threads (kernel_set_threads) an edge's RTL evaluation runs on the kernel's
 * worker thread (offload.h) while the other events until its next edge run on the kernel's: its
 * inputs are taken at the edge, its outputs handled before the next edge (or a link latency after
 * it, if that comes first), its events ordered by sequence numbers reserved at the edge, and the
 * nodes' wakes of the fabric meanwhile applied after its own, so the run is the same event for
 * event (docs/architecture.md section 6). Nothing the events meanwhile touch is the edge's: the
 * links into the RTL were read at the edge, the deliveries and credits its outputs make arrive a
 * link latency later, and its next wake is worked out from the inputs it read. What would
 * read its outputs or change its next wake (fabric_quiet, a CSR access) waits for it first; edges
 * with a CSR access, an observer or link jitter are finished at once. tb/test_fabric.c requires the
 * same events in the same order with one thread and two, tb/test_sim.c the same statistics. */
#ifndef FABRIC_H
#define FABRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "base/kernel.h"
#include "base/rng.h"
#include "base/stats.h"
#include "msg_defs.h"

/* The switch's input buffer entries per class and port in fabric_top (LinkCredits), and the most
 * credits per class a node may grant a port (MaxTxCredits): the most link credits a configuration
 * may ask for. A test reads the models' SHAPE CSR to keep the two equal. */
#define FABRIC_MAX_CREDITS 128u

#define FABRIC_MAX_PORTS (MSG_MAX_CN + MSG_MAX_MN)

_Static_assert(MSG_NUM_CLASSES <= 16, "credit masks are 16 bits");
_Static_assert(FABRIC_MAX_PORTS <= 64, "port masks are 64 bits");

/** One fabric cycle of port inputs, whatever the fabric's shape. */
typedef struct fabric_in {
    uint32_t now;                                        /* the cycle count (low 32 bits) */
    uint64_t rx_valid;                                   /* bit p: a message enters port p */
    uint32_t rx_msg[FABRIC_MAX_PORTS][MSG_FLIT_WORDS];   /* packed with msg_pack */
    uint64_t rx_hb;                                      /* bit p: a heartbeat enters port p */
    uint16_t tx_crd[FABRIC_MAX_PORTS];                   /* bit c: one egress credit of class c */
    uint64_t tx_crd_any;                                 /* bit p: tx_crd[p] is not 0 (the others are) */
    bool csr_valid, csr_write;                           /* a switch CSR access */
    uint32_t csr_addr, csr_wdata;
} fabric_in_t;

/** One fabric cycle of port outputs. */
typedef struct fabric_out {
    uint64_t tx_valid;
    uint32_t tx_msg[FABRIC_MAX_PORTS][MSG_FLIT_WORDS];
    uint16_t rx_crd[FABRIC_MAX_PORTS];                   /* bit c: one ingress credit of class c returned */
    uint64_t rx_crd_any;                                 /* bit p: rx_crd[p] is not 0 (the others are) */
    bool csr_rvalid, csr_err;                            /* the answer to the access of this cycle */
    uint32_t csr_rdata;
    bool timer_valid;                                    /* a failure timer runs ... */
    uint32_t timer_left;                                 /* ... and expires in this many cycles */
    bool idle;                                           /* nothing changes until an input does */
} fabric_out_t;

/** A Verilated fabric_top of one shape (generated from csim/drv/fabric_ops.c.in per shape). */
typedef struct fabric_model_ops {
    const char *name;
    unsigned num_cn, num_mn;
    bool synth_form; /* Verilated with SYNTHESIS defined (the RTL's synthesis forms, for tests) */
    bool traced;     /* Verilated with FST tracing (the test flavour): trace_open can work */
    void *(*create)(uint64_t period_ps, uint64_t seed);
    void (*free)(void *m);
    uint64_t (*reset)(void *m, uint64_t cycle, unsigned n);
    /* Applies in, runs one clock cycle, reads out. Only ports whose rx_valid bit is set are read. */
    void (*cycle)(void *m, const fabric_in_t *in, fabric_out_t *out, uint64_t cycle);
    int (*trace_open)(void *m, const char *path, uint64_t start_ps, uint64_t stop_ps);
    void (*trace_close)(void *m);
} fabric_model_ops_t;

/** The fabric shapes linked into this program (generated list, NULL-terminated). */
extern const fabric_model_ops_t *const fabric_models[];
/** The linked model of shape num_cn x num_mn (not a synthesis-form one), or NULL. */
const fabric_model_ops_t *fabric_model_find(unsigned num_cn, unsigned num_mn);
/** The linked model called name (fabric_top_c4m2_synth), or NULL. */
const fabric_model_ops_t *fabric_model_named(const char *name);

/** A node's message arrived at its end of port's link. The node calls fabric_release() when it
 *  has consumed it (now or later). */
typedef void (*fabric_deliver_fn)(void *obj, unsigned port, const msg_t *m);
/** A credit for class c came back to the node on port: it may be able to send again. */
typedef void (*fabric_credit_fn)(void *obj, unsigned port, msg_class_t c);

typedef struct fabric_params {
    uint64_t freq_hz;         /* fabric clock */
    uint64_t link_latency_ps; /* one way, > 0 */
    uint64_t link_jitter_ps;  /* extra delay per message, uniform in [0, jitter]; 0 = in order */
    unsigned rx_credits;      /* per class: receive buffers a node grants its RTL port */
    unsigned in_credits;      /* per class: credits each RTL input port advertises to its node (CSR
                               * CRD_ADV); 0 = rx_credits. Both at most FABRIC_MAX_CREDITS */
    bool skip_idle;           /* clock the RTL only while it has work */
    uint64_t seed;
    unsigned reset_cycles;
    uint32_t heartbeat_cycles; /* a live CN's idle link sends a heartbeat this often; 0 = never */
    uint32_t silence_cycles;   /* switch SILENCE_LIMIT (0 = rule off); > heartbeat_cycles */
    uint32_t accept_cycles;    /* switch ACCEPT_LIMIT (0 = rule off) */
} fabric_params_t;

typedef struct fabric fabric_t;

/** Creates the fabric, resets the RTL (cycles 0 .. reset_cycles-1) and starts its clock. NULL and a
 *  message on stderr when the parameters are impossible. */
fabric_t *fabric_create(kernel_t *k, const fabric_model_ops_t *ops, const fabric_params_t *p, stats_t *st);
void fabric_free(fabric_t *f);
unsigned fabric_num_ports(const fabric_t *f);
/** Node id of port p (CN p, or MN_BASE + p - num_cn). */
unsigned fabric_port_node(const fabric_t *f, unsigned p);
/** Connects the node model on port p. */
void fabric_attach(fabric_t *f, unsigned p, fabric_deliver_fn deliver, fabric_credit_fn credit, void *obj);
/** Credits the node on port p holds for class c. */
unsigned fabric_credits(const fabric_t *f, unsigned p, msg_class_t c);
/** The classes (bit per class) that have a credit on port p (fabric_credits is not 0). */
uint32_t fabric_credit_mask(const fabric_t *f, unsigned p);
/** Some class has no credit on port p (fabric_credits is 0 for it). */
bool fabric_starved(const fabric_t *f, unsigned p);
/** Sends m from the node on port p: needs a credit of m's class (aborts otherwise). The message
 *  leaves when the link is free (one per fabric cycle) and arrives after the link delay. */
void fabric_send(fabric_t *f, unsigned p, const msg_t *m);
/** The node on port p consumed a delivered message of class c: its buffer credit goes back. */
void fabric_release(fabric_t *f, unsigned p, msg_class_t c);
/** A CSR access was answered: rdata (reads; 0 when refused) and err (refused). */
typedef void (*fabric_csr_fn)(void *obj, uint32_t rdata, bool err);
/** Queues an access to the switch's CSR port (addresses in csr_defs.h, SW_CSR_*). Accesses go in
 *  order, one per fabric cycle, behind those fabric_create queued; done (may be NULL) is called in
 *  the cycle that answers it. */
void fabric_csr(fabric_t *f, bool write, unsigned addr, uint32_t wdata, fabric_csr_fn done, void *obj);
/** The CN on port p fails now (fail-stop): it sends nothing more (fabric_send aborts), returns no
 *  credit, sends no heartbeat, and what is delivered to it from now on is lost (counted). Messages
 *  and credits already on its link still arrive at the switch. MNs never fail. */
void fabric_fail_node(fabric_t *f, unsigned p);
/** True when the node on port p has failed. */
bool fabric_node_failed(const fabric_t *f, unsigned p);
/** Opens an FST trace of the RTL, dumping from start_ps to stop_ps. 0 on success. */
int fabric_trace_open(fabric_t *f, const char *path, uint64_t start_ps, uint64_t stop_ps);
/** Fabric clock period, rounded to the nearest ps. */
uint64_t fabric_period_ps(const fabric_t *f);
/** Fabric cycles elapsed (clock edges at or before the kernel's current time, clocked or skipped). */
uint64_t fabric_cycles(const fabric_t *f);
/** Fabric cycles the RTL was actually clocked. */
uint64_t fabric_cycles_ticked(const fabric_t *f);
/** True when nothing is in flight: RTL idle, no message, credit or CSR access pending (heartbeats
 *  do not count). */
bool fabric_quiet(fabric_t *f);

/** Observer called for every message the RTL outputs and every credit it returns (tests use it to
 *  compare runs cycle for cycle). kind 0: message on port (m set); kind 1: rx credit of class c. */
typedef void (*fabric_observe_fn)(void *obj, uint64_t cycle, unsigned kind, unsigned port, unsigned c,
                                  const msg_t *m);
void fabric_observe(fabric_t *f, fabric_observe_fn fn, void *obj);

#endif
