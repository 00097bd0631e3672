/* Seeded traffic generator and checker for the fabric.
 *
 * Each port's node sends `count` messages of random types (never MSI, which only the switch sends)
 * with random field values (well formed by msg_check) to random nodes, at an offered load of `load`
 * messages per fabric cycle (geometric inter-arrival times), round-robin over the classes that have
 * something to send and a credit. The checker expects every message at the port of its
 * destination, bit for bit; without link jitter also in order within its (source, destination,
 * class). Any difference is counted and described on stderr with the seed.
 *
 * It measures the latency (send call to delivery) per message. */
#ifndef TRAFFIC_H
#define TRAFFIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/kernel.h"
#include "base/stats.h"
#include "drv/fabric.h"

typedef struct traffic_params {
    double load;          /* messages per fabric cycle per port, (0, 1] */
    uint64_t count;       /* messages per port */
    uint64_t seed;
    bool ordered;         /* links keep order (no jitter): check per-class order as well */
    uint32_t class_mask;  /* classes to generate (bit = class); 0 = all */
    uint64_t hold_ps;     /* a node keeps each delivered message for uniform [0, hold_ps] before
                             releasing its buffer: back-pressure on the switch's outputs; 0 = none */
    unsigned shift;       /* > 0: port p sends only to port (p + shift) mod ports, a permutation in
                             which no two inputs share an output (the links alone limit the rate);
                             0 = random destinations */
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
/** Messages that arrived before an older one of their (source, destination, class) (link jitter). */
uint64_t traffic_reordered(const traffic_t *t);
/** True when every port has sent its count, every message between live nodes arrived, and every
 *  failed CN was reported by an MSI. */
bool traffic_done(const traffic_t *t);
/** The CN on port p failed (after fabric_fail_node): its generator stops, and nothing more is
 *  expected from it or for it; what it sent may still arrive, and is checked as usual. */
void traffic_node_failed(traffic_t *t, unsigned p);
/** An MSI a node received from the switch. */
typedef struct traffic_msi {
    uint64_t t_ps;
    unsigned port, subject;
} traffic_msi_t;
/** The MSIs received so far (*n of them; at most TRAFFIC_MAX_MSI are kept, *n counts all). */
#define TRAFFIC_MAX_MSI 64u
const traffic_msi_t *traffic_msis(const traffic_t *t, unsigned *n);
/** Writes one line per port that still waits for something (deadlock diagnosis). */
void traffic_dump_waiting(const traffic_t *t, FILE *out);

#endif
