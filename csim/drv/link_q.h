/* The link of a driver that stands in for the fabric (csim/drv/lu_drv, csim/drv/dir_drv): messages in
 * flight toward a Verilated block, each due at a cycle, handed out due-cycle first and, among
 * messages due at the same cycle, in the order they were sent (a min-heap on (due, sequence)). */
#ifndef LINK_Q_H
#define LINK_Q_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msg_defs.h"

typedef struct link_flight {
    uint64_t at, seq;
    msg_t m;
} link_flight_t;

typedef struct link_q {
    link_flight_t *v;
    size_t n, cap;
    uint64_t seq;
} link_q_t;

/** m is due at cycle at. */
void link_q_push(link_q_t *q, uint64_t at, const msg_t *m);
/** True when a message is due at cycle cyc or before. */
static inline bool link_q_due(const link_q_t *q, uint64_t cyc) { return q->n && q->v[0].at <= cyc; }
/** Takes the message due first (link_q_due must hold or the queue be non-empty). */
msg_t link_q_pop(link_q_t *q);
void link_q_free(link_q_t *q);

#endif
