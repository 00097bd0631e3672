/* The CN's side of its fabric port, shared by the users of one CN's link to the switch:
 *   CN_PORT_MEM   the memory hierarchy (csim/cn/cn_mem): NDR, DRS, BISNP in; REQ, RWD, BIRSP out;
 *   CN_PORT_LU    the Logging Unit (csim/cn/lu_node): REPL (DKREQ), VAL and REPL_QUERY_RESP (DKRSP)
 *                 in, REPL_ACK and REPL_QUERY (DKRSP) out; EARLY_FLUSH, INTERRUPT, FETCH_LATEST_VERS,
 *                 RECOV_END (MGREQ) and DUMP_GO, DUMP_DONE (MGRSP) in; EARLY_FLUSH, DUMP_REQ
 *                 (MGREQ), INTERRUPT_RESP, FETCH_LATEST_VERS_RESP, RECOV_END_RESP (MGRSP) and
 *                 DUMP_DATA (DUMP) out;
 *   CN_PORT_REPL  the CN's replication engine: REPL (DKREQ), VAL and REPL_QUERY_RESP (DKRSP) out,
 *                 REPL_ACK and REPL_QUERY (DKRSP) in;
 *   CN_PORT_SW    the CN's software (the Configuration Manager, issue 8): the other MGREQ / MGRSP
 *                 messages in (MSI, INIT_RECOV, the answers to its requests), any MGREQ / MGRSP out.
 *
 * Deliveries are demultiplexed by class, and by opcode where a class is shared (DKRSP: VAL and
 * REPL_QUERY_RESP to the LU, REPL_ACK and REPL_QUERY to the replication engine; MGREQ and MGRSP:
 * the LU's opcodes above to the LU, the rest to the software). Each user consumes its own and calls
 * cn_port_release (the fabric's buffer credit of the class goes back then). A message for a user
 * that is not attached, or of a class no CN takes (REQ, RWD, BIRSP, DUMP), is counted
 * (<name>.rx_dropped) and released at once.
 *
 * Sends. The memory hierarchy's classes (REQ, RWD, BIRSP) are its alone: it sees the fabric's
 * credits and sends straight to the fabric, exactly as before the port was shared. Every other
 * class may have several senders (DKRSP: the LU's REPL_ACKs and REPL_QUERYs, the engine's VALs and
 * answers; MGREQ / MGRSP: the LU and the software), so each (user, class) has a queue of `depth`
 * messages in the port; a user sees as credits the free places of its own queue, and sending puts
 * the message there. The port forwards queued messages to the fabric while the fabric has credits,
 * choosing among the users with a message waiting in that class round-robin (the pointer moves past
 * the user served). So a user with a message waiting is served within (users of the class - 1)
 * fabric credits of its class, whatever the others send: no user can starve another. A user's place
 * comes back when its message is forwarded, and its credit callback says so. A user may not send a
 * class that is not its own (the port aborts): the memory hierarchy's classes cannot be taken from
 * it. */
#ifndef CN_PORT_H
#define CN_PORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/stats.h"
#include "cn/cn_mem.h"
#include "drv/fabric.h"
#include "msg_defs.h"

typedef enum cn_port_user {
    CN_PORT_MEM = 0,
    CN_PORT_LU = 1,
    CN_PORT_REPL = 2,
    CN_PORT_SW = 3,
    CN_PORT_USERS
} cn_port_user_e;

typedef struct cn_port cn_port_t;

/** m arrived for this user: consume it now or later, then cn_port_release(p, its class). */
typedef void (*cn_port_deliver_fn)(void *obj, const msg_t *m);
/** A send credit of class c came back to this user (a place in its queue, or for the memory
 *  hierarchy the fabric's credit): once per message of the user forwarded to the fabric, also from
 *  inside the user's own cn_port_send when the message leaves at once (so a user that counts its
 *  credits by these calls stays exact; a user that sends from here must not re-enter its own send
 *  loop). */
typedef void (*cn_port_credit_fn)(void *obj, msg_class_t c);

/** The port of CN port `port` of f (attaches itself to the fabric): `depth` places per (user,
 *  class) queue (>= 1). Statistics under name (e.g. "cn0.port"): rx_<user>, tx_<user>,
 *  rx_dropped, tx_waits (messages that waited in a queue for a fabric credit). */
cn_port_t *cn_port_create(fabric_t *f, unsigned port, unsigned depth, const char *name, stats_t *st);
void cn_port_free(cn_port_t *p);
/** Connects user u (either callback may be NULL). */
void cn_port_attach(cn_port_t *p, cn_port_user_e u, cn_port_deliver_fn deliver, cn_port_credit_fn credit, void *obj);
/** Recovery's INTERRUPT and RECOV_END are for the CN's cores and its LU (DIKTAMO §V-B): fn(obj, m)
 *  sees each of them as it arrives (the CN's interrupt controller, which pauses or resumes the
 *  cores; it does not release m), then m goes to the LU as routed, or, with no LU attached, its
 *  buffer goes back at once. */
void cn_port_on_cores(cn_port_t *p, cn_port_deliver_fn fn, void *obj);
/** Which user a message arriving at a CN goes to, or CN_PORT_USERS for none. */
cn_port_user_e cn_port_route(const msg_t *m);
/** True when user u may send class c. */
bool cn_port_sends(cn_port_user_e u, msg_class_t c);
/** Credits user u holds for class c. */
unsigned cn_port_credits(const cn_port_t *p, cn_port_user_e u, msg_class_t c);
/** User u sends m (needs a credit of its class: aborts otherwise). */
void cn_port_send(cn_port_t *p, cn_port_user_e u, const msg_t *m);
/** A delivered message of class c was consumed. */
void cn_port_release(cn_port_t *p, msg_class_t c);
/** The memory hierarchy's view of the port (cn_mem_create's link); attach CN_PORT_MEM with
 *  cn_mem's deliver and credit functions once it exists. */
cn_link_t cn_port_mem_link(cn_port_t *p);
/** Messages waiting in the port's queues. */
unsigned cn_port_queued(const cn_port_t *p);
/** Queues and counters, one line per busy queue. */
void cn_port_dump(const cn_port_t *p, FILE *f);
/** "mem", "lu", "repl", "sw". */
const char *cn_port_user_name(cn_port_user_e u);

#endif
