/* The workloads of csim/workloads/ (registry: workloads[] in csim/cn/wl_api.h) and what they
 * share. Each workload is described at the top of its own source file. */
#ifndef WORKLOADS_H
#define WORKLOADS_H

#include <stdint.h>
#include <string.h>

#include "cn/wl_api.h"

/* The paper's applications (section VI), in its order. */
extern const workload_t wl_bodytrack;     /* bodytrack.c: PARSEC bodytrack, an annealed particle filter */
extern const workload_t wl_fluidanimate;  /* fluidanimate.c: PARSEC fluidanimate, SPH particles in cells */
extern const workload_t wl_streamcluster; /* streamcluster.c: PARSEC streamcluster, online k-median */
extern const workload_t wl_canneal;       /* canneal.c: PARSEC canneal, annealing of a netlist's placement */
extern const workload_t wl_raytrace;      /* raytrace.c: SPLASH-2 raytrace, a read-mostly scene in tiles */
extern const workload_t wl_barnes;        /* barnes.c: SPLASH-2 barnes, Barnes-Hut over a shared octree */
extern const workload_t wl_ocean_ncp;     /* ocean.c: SPLASH-2 ocean_ncp, SOR on blocks of a row-major grid */
extern const workload_t wl_ocean_cp;      /* ocean.c: SPLASH-2 ocean_cp, SOR on contiguous blocks */
extern const workload_t wl_ycsb;          /* ycsb.c: YCSB on a hashtable of 1 KB records */
/* On partly coherent memory. */
extern const workload_t wl_hcmeta;  /* hcmeta.c: objects shared through partly coherent memory (HCMeta) */
extern const workload_t wl_megalon; /* megalon.c: the same objects shared as Megalon shares them */
extern const workload_t wl_sc_btree; /* sc_btree.c: a B+-tree on partly coherent memory (SC-BTree) */
extern const workload_t wl_sc_art;   /* sc_art.c: an adaptive radix tree on partly coherent memory (SC-ART) */
extern const workload_t wl_sc_lsm;   /* sc_lsm.c: an LSM tree on partly coherent memory (SC-LSM) */
extern const workload_t wl_prism;    /* prism.c: Prism, an LSM with a bounded updatable layer */

/** Registers the workload's n counters stat[i], "<name>.<leaf[i]>" in the run's statistics,
 *  documented "<name>: <doc[i]>" (wl_env_ops_t.counter). 0, or -1 with err filled. */
int wl_counters(wl_env_t *e, const char *name, const char *const *leaf, const char *const *doc, unsigned n,
                uint64_t **stat, char *err);

/** The window a sharing workload's or an index's throughput is measured over (counters kept as
 *  maxima and a count): a thread's operation op (0-based) of its nops ended at t1 (ps). *warm: the
 *  latest end of a thread's first tenth of its operations; *end: the latest end; *ops: the
 *  operations after each thread's first tenth. */
static inline void wl_window(uint64_t *warm, uint64_t *end, uint64_t *ops, uint64_t op, uint64_t nops, uint64_t t1)
{
    const uint64_t w = nops / 10;
    if (op + 1 == w && t1 > *warm)
        *warm = t1;
    if (op >= w)
        (*ops)++;
    if (t1 > *end)
        *end = t1;
}

/** A double's bits as a memory word, and back (the workloads keep their doubles in 8-byte words). */
static inline uint64_t wl_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
static inline double wl_dbl(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/** The check of barrier bar (wl_barrier over threads 0 .. n - 1) after a run: its phase word says
 *  `phases` released (else "<name>: the barrier released P phases, want `phases`<why>"); with masks,
 *  the last phase's arrival mask holds every thread that lived to the end and none beyond n, and the
 *  other two are zero (the last two releases zeroed them). 0, or -1 with err filled. */
int wl_barrier_check(wl_env_t *e, const char *name, uint64_t bar, unsigned n, uint64_t phases, const char *why,
                     bool masks, char *err);

/** Fills err (WL_ERR_MAX bytes) with one line. Returns -1, what setup and check return. */
int wl_errf(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** A 64-bit mixing function (splitmix64's finalizer): hashes of keys, payload words. */
static inline uint64_t wl_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

#endif
