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

#endif
