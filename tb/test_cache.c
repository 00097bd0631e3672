/* The set-associative array under each cache level (csim/cn/cache): lookups through its packed tags
 * find exactly the valid lines, whatever an invalidated line's stale tag says, in sets of a power
 * of two (found by a mask) and not (by a division), the same key looked up again or not.
 * Randomized against a plain model of the contents: replay with TB_SEED=<seed> --filter 'cache/<test>'. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdlib.h>

#include "base/rng.h"
#include "cn/cache.h"
#include "tb_seed.h"

Test(cache, a_stale_tag_of_an_invalidated_line_never_matches)
{
    /* GIVEN a 2-way cache of one set holding line 0 (key 0: the tags' initial value) in a way */
    cache_t *c = cache_create(2 * ADDR_LINE_BYTES, 2);
    cr_assert_eq(c->sets, 1);
    cr_assert_null(cache_find(c, 0), "an empty cache found key 0 (the tags start at 0)");
    cache_line_t *a = cache_victim(c, 0, NULL, NULL);
    cache_install(c, a, 0);
    cr_assert_eq(cache_find(c, 0), a);
    /* WHEN it is invalidated, and installed again in the other way */
    cache_invalidate(a);
    cr_assert_null(cache_find(c, 0), "an invalidated line was found");
    cache_line_t *b = a == &c->line[0] ? &c->line[1] : &c->line[0];
    cache_install(c, b, 0);
    /* THEN the lookup finds the valid copy, not the stale tag's */
    cr_assert_eq(cache_find(c, 0), b);
    cache_free(c);
}

/* Random installs, invalidations and lookups against a list of the valid keys per line; half the
 * lookups are of the key looked up last (after its install, its invalidation or nothing), as a
 * cache's owner makes them, so that the look-up's memo is tried after each change. */
static void random_ops(uint64_t size, unsigned ways, uint64_t seed)
{
    cache_t *c = cache_create(size, ways);
    unsigned n = c->sets * ways;
    uint64_t *key = calloc(n, sizeof *key); /* the model: line i's key when valid */
    bool *valid = calloc(n, sizeof *valid);
    rng_t r;
    rng_init(&r, seed);
    const uint64_t keys = 4ull * n; /* four keys per line: sets fill and lines are replaced */
    uint64_t k = 0;
    for (unsigned i = 0; i < 20000; i++) {
        if (i == 0 || rng_below(&r, 2))
            k = rng_below(&r, keys) * ADDR_LINE_BYTES;
        cache_line_t *l = cache_find(c, k);
        long want = -1;
        for (unsigned j = 0; j < n; j++)
            if (valid[j] && key[j] == k)
                want = (long)j;
        cr_assert_eq(l ? (long)(l - c->line) : -1L, want, "seed %" PRIu64 ", step %u: key 0x%" PRIx64 " found in %ld, "
                     "valid in %ld", seed, i, k, l ? (long)(l - c->line) : -1L, want);
        if (l && rng_below(&r, 3) == 0) {
            cache_invalidate(l);
            valid[l - c->line] = false;
        } else if (!l) {
            cache_line_t *v = cache_victim(c, k, NULL, NULL);
            cache_install(c, v, k);
            key[v - c->line] = k;
            valid[v - c->line] = true;
        }
    }
    free(key);
    free(valid);
    cache_free(c);
}

Test(cache, lookups_find_exactly_the_valid_lines)
{
    uint64_t seed = tb_seed(31);
    cr_log_info("seed %" PRIu64, seed);
    random_ops(16 * 4 * ADDR_LINE_BYTES, 4, seed);     /* 16 sets: a mask */
    random_ops(12 * 3 * ADDR_LINE_BYTES, 3, seed + 1); /* 12 sets: a division */
}
