/* Seeded pseudo-random numbers: xoshiro256** seeded through splitmix64.
 * Every random choice of a run draws from a stream derived from the one run seed, so that a rerun
 * with the same seed replays the run exactly. Streams are independent values: no hidden globals. */
#ifndef RNG_H
#define RNG_H

#include <stdbool.h>
#include <stdint.h>

typedef struct rng {
    uint64_t s[4];
} rng_t;

/** Seeds r from seed. */
void rng_init(rng_t *r, uint64_t seed);
/** Seeds r from (seed, name): one independent stream per named component ("port3.gen"). */
void rng_init_named(rng_t *r, uint64_t seed, const char *name);
/** Next 64 random bits. */
uint64_t rng_next(rng_t *r);
/** Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t rng_below(rng_t *r, uint64_t n);
/** Uniform integer in [lo, hi]. */
uint64_t rng_range(rng_t *r, uint64_t lo, uint64_t hi);
/** Uniform double in [0, 1). */
double rng_unit(rng_t *r);
/** True with probability p (p <= 0: never, p >= 1: always). */
bool rng_chance(rng_t *r, double p);
/** Number of failures before the first success of Bernoulli(p) trials, p in (0, 1]. */
uint64_t rng_geometric(rng_t *r, double p);

/** YCSB's Zipfian distributions over the items 0 .. n-1 (Gray et al., "Quickly generating
 *  billion-record synthetic databases", SIGMOD 1994, as YCSB's ZipfianGenerator and
 *  ScrambledZipfianGenerator implement it): item i (rank i + 1) with probability proportional to
 *  1 / (i + 1)^theta. The scrambled form, YCSB's default for its workloads, draws a rank over YCSB's
 *  10^10 items with theta 0.99 (its precomputed zeta) and spreads it over the n items by a 64-bit
 *  FNV-1a hash, so that the popular items are scattered, not the first ones; for another theta it
 *  draws over the n items themselves before hashing, as YCSB does. Read-only once made: threads
 *  share one and draw with their own rng. */
typedef struct rng_zipf {
    uint64_t n;       /* items drawn from */
    uint64_t items;   /* items of the underlying Zipfian (n, or 10^10 when scrambled at 0.99) */
    double theta, alpha, zetan, eta, half_pow_theta;
    bool scrambled;
} rng_zipf_t;

#define RNG_ZIPF_THETA 0.99 /* YCSB's ZIPFIAN_CONSTANT */

/** A Zipfian over n >= 1 items with theta in (0, 1), scrambled or by rank (item 0 the most
 *  popular). O(n) once when theta is not 0.99 or not scrambled (the zeta sum); O(1) otherwise.
 *  -1 on a bad n or theta. */
int rng_zipf_init(rng_zipf_t *z, uint64_t n, double theta, bool scrambled);
/** The next item, in [0, n). */
uint64_t rng_zipf_next(const rng_zipf_t *z, rng_t *r);

#endif
