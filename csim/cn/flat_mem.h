/* A flat memory behind mem_if_t (csim/cn/mem_if.h): one flat, coherent, multi-copy-atomic memory
 * shared by any number of cores, for testing the core model (tb/test_core.c) without caches and for
 * measuring the core model on its own (csim/sys/flat_run.h: a workload on the cores over it).
 *
 * Words live in a sparse hash map (absent words read 0). Every access takes a seeded random
 * latency in [lat_min_ps, lat_max_ps] and is *performed* at its completion event: a load reads,
 * a store or rmw writes, at that instant. With a single copy of memory and accesses performed at
 * one instant each, every execution is sequentially consistent at the memory: the only
 * reorderings a core's program can show are the ones its own model makes (its store buffer), so a
 * TSO core over flat_mem can produce every TSO outcome and no other.
 *
 *   load        done(value) at now + lat, reading then.
 *   load_hit    the word now (one copy: always a hit), unless another port's rmw pins the line.
 *   store       writes the masked words and runs committed() at now + lat; done() right after
 *               (same event) without wt, or wt_extra_ps later with wt (the MN's round trip).
 *   store_gated as store (never write-through), but at the completion event the gate decides:
 *               when it says wait, the store is parked until store_go, then performed at once
 *               (one copy: write permission never goes away).
 *   rmw_gated   as rmw (never write-through), but when it writes the gate decides: when it says
 *               wait, the line is pinned (other ports' accesses to it wait, retried every ns)
 *               until store_go, when the new word is written at once.
 *   rmw         reads, modifies and writes at now + lat (committed(new) when it writes), done(old)
 *               then, or wt_extra_ps later with wt.
 *   flush       done at now + lat; the data is untouched (one copy: nothing to write back).
 *   prefetch_x  counted, nothing else.
 *   acquire     done at now + lat (one copy: write permission is always there).
 *
 * Versions (docs/architecture.md section 11b): every line of remote memory has a version, 0 at
 * first, one more at every commit (a store, whatever its word count, or an rmw that writes);
 * committed() reports the new one mod 2^MSG_TS_W. Local lines report 0.
 *
 * Addresses are global: local addresses (addr_is_local) are not separated per CN, so tests give
 * each CN's threads their own local addresses. Per-port counters let tests check what a core
 * asked for. */
#ifndef MEM_FLAT_MEM_H
#define MEM_FLAT_MEM_H

#include <stdint.h>

#include "base/kernel.h"
#include "cn/mem_if.h"

typedef struct flat_mem flat_mem_t;

typedef struct flat_mem_params {
    uint64_t lat_min_ps, lat_max_ps; /* latency of every access, uniform in [min, max] */
    uint64_t wt_extra_ps;            /* added before done() of a write-through store or rmw */
    uint64_t seed;                   /* one stream per port: rng_init_named(seed, "flat_mem.portN") */
    unsigned max_ports;              /* ports that flat_mem_port may hand out (global core ids) */
} flat_mem_params_t;

/** What one port (core) asked for. */
typedef struct flat_mem_counts {
    uint64_t loads, stores, wt_stores, gated_stores, gated_rmws, rmws, flushes, prefetches, acquires;
    uint64_t prefetch_local; /* prefetch_x calls for local addresses */
    uint64_t last_prefetch;  /* address of the last prefetch_x */
    unsigned busy_stores;    /* stores in flight now (the contract says at most 1 per core) */
    unsigned max_busy_stores;
} flat_mem_counts_t;

/** A flat memory on kernel k. NULL on a bad parameter (min > max, max_ports 0) or out of memory. */
flat_mem_t *flat_mem_create(kernel_t *k, const flat_mem_params_t *p);
void flat_mem_free(flat_mem_t *fm);
/** The mem_if_t of port (core) id, 0 .. max_ports-1; it stays valid until flat_mem_free. */
const mem_if_t *flat_mem_port(flat_mem_t *fm, unsigned id);
/** Zero-time read / write of a word (setup and final checks). */
uint64_t flat_mem_peek(const flat_mem_t *fm, uint64_t addr);
void flat_mem_poke(flat_mem_t *fm, uint64_t addr, uint64_t v);
/** Zero time: the version of addr's line (unwrapped: commits so far; 0 for local lines). */
uint64_t flat_mem_version(const flat_mem_t *fm, uint64_t addr);
/** Changes the latency range of later accesses (min <= max). */
void flat_mem_set_latency(flat_mem_t *fm, uint64_t lat_min_ps, uint64_t lat_max_ps);
/** Counters of port id. */
const flat_mem_counts_t *flat_mem_counts(const flat_mem_t *fm, unsigned id);
/** Accesses issued and not yet done (all ports). */
uint64_t flat_mem_in_flight(const flat_mem_t *fm);

#endif
