/* Seeded traffic generator and checker for the fabric.
 *
 * Each port's node sends `count` messages of random types with random field values (well formed by
 * msg_check), at an offered load of `load` messages per fabric cycle (geometric inter-arrival
 * times), round-robin over the classes that have something to send and a credit. The checker
 * expects every message back at the port it was sent to, bit for bit: the loopback fabric returns
 * it to its sender. Without link jitter the per-class order must be kept too. Any difference is
 * counted and described on stderr with the seed.
 *
 * It measures the round-trip latency (send call to delivery) per message. */
#ifndef TRAFFIC_H
#define TRAFFIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fabric.h"
#include "kernel.h"
#include "stats.h"

typedef struct traffic_params {
    double load;          /* messages per fabric cycle per port, (0, 1] */
    uint64_t count;       /* messages per port */
    uint64_t seed;
    bool ordered;         /* links keep order (no jitter): check per-class order as well */
    uint32_t class_mask;  /* classes to generate (bit = class); 0 = all */
} traffic_params_t;

typedef struct traffic traffic_t;

/** Attaches a generator to every port of f. done(obj) is called once every message came back. */
traffic_t *traffic_create(kernel_t *k, fabric_t *f, const traffic_params_t *p, stats_t *st,
                          void (*done)(void *obj), void *done_obj);
void traffic_free(traffic_t *t);
/** Messages sent / received so far (all ports). */
uint64_t traffic_sent(const traffic_t *t);
uint64_t traffic_received(const traffic_t *t);
/** Messages that came back different from what was sent, out of order, or unexpected. */
uint64_t traffic_errors(const traffic_t *t);
/** Messages that came back before an older one of their class (only with link jitter). */
uint64_t traffic_reordered(const traffic_t *t);
/** True when every port has sent and received its count. */
bool traffic_done(const traffic_t *t);
/** Writes one line per port that still waits for something (deadlock diagnosis). */
void traffic_dump_waiting(const traffic_t *t, FILE *out);

#endif
