/* A DRAM device behind an RTL memory port or a C model: fixed access latency, one access at a
 * time per channel occupying it for a burst time, and real data (64-byte lines, stored sparsely;
 * a line never written reads as zeros).
 *
 * Requests are served in arrival order per channel. A request that arrives at t on an idle channel
 * completes at t + latency; back-to-back requests complete burst_ps apart (the channel's
 * bandwidth is line_bytes / burst_ps). Completion calls done(obj, tag, line) through the kernel's
 * event queue. Data are read or written when the request arrives, in arrival order, so a read
 * issued after a write to the same line returns the written words. */
#ifndef DRAM_H
#define DRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "base/kernel.h"
#include "base/stats.h"
#include "msg_defs.h"

typedef void (*dram_done_fn)(void *obj, uint64_t tag, const uint64_t *line);

typedef struct dram_params {
    const char *name;    /* statistics prefix, e.g. "mn3.dram" */
    uint64_t latency_ps; /* access latency (idle channel), > 0 */
    uint64_t burst_ps;   /* channel occupancy per access; 0 = unlimited bandwidth */
    unsigned channels;   /* independent channels, interleaved by line address; >= 1 */
} dram_params_t;

typedef struct dram dram_t;

dram_t *dram_create(kernel_t *k, const dram_params_t *p, stats_t *st);
void dram_free(dram_t *d);
/** Reads the line at line address addr; done(obj, tag, data) when complete. */
void dram_read(dram_t *d, uint64_t addr, dram_done_fn done, void *obj, uint64_t tag);
/** Writes the words of data selected by mask (bit i = word i); done(obj, tag, NULL) when complete. */
void dram_write(dram_t *d, uint64_t addr, uint8_t mask, const uint64_t *data, dram_done_fn done, void *obj,
                uint64_t tag);
/** Zero-time access for loading and checking (no timing, no statistics): copies the line out. */
void dram_peek(const dram_t *d, uint64_t addr, uint64_t *line);
/** Zero-time masked write (initialization, recovery handlers modelled as instantaneous). */
void dram_poke(dram_t *d, uint64_t addr, uint8_t mask, const uint64_t *data);
/** Accesses waiting or in service. */
unsigned dram_busy(const dram_t *d);

#endif
