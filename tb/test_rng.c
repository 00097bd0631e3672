/* Tests of the seeded random streams' distributions (csim/base/rng.c): YCSB's Zipfian generators. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "base/rng.h"
#include "tb_seed.h"

Test(rng, zipf_by_rank_draws_each_rank_with_its_zipfian_probability)
{
    /* GIVEN a Zipfian over 1000 items, theta 0.99, by rank
     * WHEN drawn a million times
     * THEN ranks 1 and 2 come with their exact probabilities 1 / (i^theta zeta(n)) (within 2 %);
     *      ranks 3 to 12 within 20 % and the cumulative share at ranks 10, 50, 100 and 500 within
     *      5 % (Gray's closed form, which YCSB uses, approximates the inverse distribution beyond
     *      rank 2: it gives rank 3 about 16 % too much); no item beyond n */
    uint64_t seed = tb_seed(0x21Fu);
    rng_t r;
    rng_init_named(&r, seed, "zipf");
    enum { N = 1000, DRAWS = 1000000 };
    rng_zipf_t z;
    cr_assert_eq(rng_zipf_init(&z, N, 0.99, false), 0);
    static uint64_t count[N];
    for (unsigned i = 0; i < DRAWS; i++) {
        uint64_t k = rng_zipf_next(&z, &r);
        cr_assert_lt(k, N);
        count[k]++;
    }
    double zn = 0;
    for (unsigned i = 1; i <= N; i++)
        zn += pow(i, -0.99);
    double cum = 0, want_cum = 0;
    for (unsigned i = 0; i < N; i++) {
        double p = pow(i + 1, -0.99) / zn, f = (double)count[i] / DRAWS;
        cum += f;
        want_cum += p;
        if (i < 12)
            cr_assert(fabs(f - p) <= (i < 2 ? 0.02 : 0.20) * p, "rank %u: %.5f, want %.5f; seed %" PRIu64, i + 1, f,
                      p, seed);
        if (i == 9 || i == 49 || i == 99 || i == 499)
            cr_assert(fabs(cum - want_cum) <= 0.05 * want_cum, "first %u: %.4f, want %.4f; seed %" PRIu64, i + 1,
                      cum, want_cum, seed);
    }
}

/* YCSB's Utils.fnvhash64, written again from its definition. */
static uint64_t fnv64(uint64_t v)
{
    uint64_t h = 14695981039346656037ull;
    for (int i = 0; i < 8; i++, v >>= 8)
        h = (h ^ (v & 0xff)) * 1099511628211ull;
    return (int64_t)h < 0 ? -h : h;
}

Test(rng, scrambled_zipf_scatters_the_popular_items_as_ycsb_does)
{
    /* GIVEN YCSB's scrambled Zipfian (theta 0.99) over 10 000 items
     * WHEN drawn 400 000 times
     * THEN the most popular item is YCSB's: the hash of rank 0, drawn with rank 0's probability
     *      over 10^10 items (1 / 26.469, within 3 %); the next ones are the hashes of ranks 1 and 2;
     *      item 0 is not special; the same seed replays the same draws */
    uint64_t seed = tb_seed(0x5C2Au);
    rng_t r, r2;
    rng_init_named(&r, seed, "zipf");
    rng_init_named(&r2, seed, "zipf");
    enum { N = 10000, DRAWS = 400000 };
    rng_zipf_t z;
    cr_assert_eq(rng_zipf_init(&z, N, RNG_ZIPF_THETA, true), 0);
    static uint64_t count[N];
    for (unsigned i = 0; i < DRAWS; i++) {
        uint64_t k = rng_zipf_next(&z, &r);
        cr_assert_lt(k, N);
        cr_assert_eq(k, rng_zipf_next(&z, &r2), "draw %u does not replay", i);
        count[k]++;
    }
    uint64_t top = 0;
    for (unsigned i = 1; i < N; i++)
        if (count[i] > count[top])
            top = i;
    cr_assert_eq(top, fnv64(0) % N, "most popular item %" PRIu64 ", YCSB's is %" PRIu64, top, fnv64(0) % N);
    double f = (double)count[top] / DRAWS, p = 1 / 26.46902820178302;
    cr_assert(fabs(f - p) <= 0.03 * p, "the top item's share %.5f, want %.5f; seed %" PRIu64, f, p, seed);
    cr_assert_gt(count[fnv64(1) % N], count[fnv64(2) % N]);
    cr_assert_gt(count[fnv64(2) % N], 10 * (DRAWS / N), "rank 3 is still popular");
}

Test(rng, zipf_refuses_bad_parameters)
{
    rng_zipf_t z;
    cr_assert_eq(rng_zipf_init(&z, 0, 0.99, true), -1);
    cr_assert_eq(rng_zipf_init(&z, 10, 0.0, true), -1);
    cr_assert_eq(rng_zipf_init(&z, 10, 1.0, false), -1);
    cr_assert_eq(rng_zipf_init(&z, 10, NAN, false), -1);
    cr_assert_eq(rng_zipf_init(&z, 1, 0.5, false), 0);
    rng_t r;
    rng_init(&r, 1);
    for (int i = 0; i < 100; i++)
        cr_assert_eq(rng_zipf_next(&z, &r), 0);
}
