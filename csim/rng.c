#include "rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void rng_init(rng_t *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

void rng_init_named(rng_t *r, uint64_t seed, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a of the name */
    for (const char *p = name; *p; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    rng_init(r, seed ^ h);
}

uint64_t rng_next(rng_t *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t rng_below(rng_t *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t v;
    do
        v = rng_next(r);
    while (v >= limit);
    return v % n;
}

uint64_t rng_range(rng_t *r, uint64_t lo, uint64_t hi)
{
    if (hi - lo == UINT64_MAX)
        return rng_next(r);
    return lo + rng_below(r, hi - lo + 1);
}

double rng_unit(rng_t *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

bool rng_chance(rng_t *r, double p)
{
    if (p <= 0.0)
        return false;
    if (p >= 1.0)
        return true;
    return rng_unit(r) < p;
}

uint64_t rng_geometric(rng_t *r, double p)
{
    if (p >= 1.0)
        return 0;
    double u = 1.0 - rng_unit(r); /* (0, 1] */
    return (uint64_t)floor(log(u) / log1p(-p));
}
