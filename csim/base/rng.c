#include "base/rng.h"

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

/* ---------------------------------------------------------------------------------------------
 * Zipfian (YCSB's ZipfianGenerator and ScrambledZipfianGenerator) */

#define YCSB_ITEM_COUNT 10000000000ull   /* ScrambledZipfianGenerator.ITEM_COUNT */
#define YCSB_ZETAN 26.46902820178302      /* ScrambledZipfianGenerator.ZETAN: zeta(10^10, 0.99) */

static double zeta(uint64_t n, double theta)
{
    double sum = 0.0;
    for (uint64_t i = 1; i <= n; i++)
        sum += 1.0 / pow((double)i, theta);
    return sum;
}

int rng_zipf_init(rng_zipf_t *z, uint64_t n, double theta, bool scrambled)
{
    if (n == 0 || !(theta > 0.0 && theta < 1.0))
        return -1;
    *z = (rng_zipf_t){.n = n, .theta = theta, .scrambled = scrambled};
    bool ycsb = scrambled && theta == RNG_ZIPF_THETA;
    z->items = ycsb ? YCSB_ITEM_COUNT : n;
    z->zetan = ycsb ? YCSB_ZETAN : zeta(n, theta);
    double zeta2 = zeta(2, theta);
    z->alpha = 1.0 / (1.0 - theta);
    z->eta = (1.0 - pow(2.0 / (double)z->items, 1.0 - theta)) / (1.0 - zeta2 / z->zetan);
    z->half_pow_theta = 1.0 + pow(0.5, theta);
    return 0;
}

/* YCSB's Utils.fnvhash64: FNV-1a over the value's 8 bytes, low byte first, made non-negative. */
static uint64_t fnvhash64(uint64_t v)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < 8; i++) {
        h ^= v & 0xff;
        v >>= 8;
        h *= 1099511628211ull;
    }
    int64_t s = (int64_t)h;
    return s < 0 ? (uint64_t)0 - h : h; /* Math.abs (of INT64_MIN: itself) */
}

uint64_t rng_zipf_next(const rng_zipf_t *z, rng_t *r)
{
    double u = rng_unit(r), uz = u * z->zetan;
    uint64_t rank;
    if (uz < 1.0)
        rank = 0;
    else if (uz < z->half_pow_theta)
        rank = 1;
    else
        rank = (uint64_t)((double)z->items * pow(z->eta * u - z->eta + 1.0, z->alpha));
    if (rank >= z->items)
        rank = z->items - 1;
    return z->scrambled ? fnvhash64(rank) % z->n : rank;
}
