/* Tests of csim/base/idmap: random keys (dense and sparse, some repeated) added and found again across
 * many growths, against a sorted reference; absent keys are not found and not added by a look-up;
 * an emptied map is empty. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "base/idmap.h"
#include "base/rng.h"
#include "tb_seed.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

Test(idmap, keys_added_are_found_with_their_values_and_others_are_not)
{
    const uint64_t seed = tb_seed(9);
    rng_t r;
    rng_init(&r, seed);
    enum { N = 100000 };
    static uint64_t keys[N], sorted[N];
    idmap_t m = {0};
    cr_assert_null(idmap_get(&m, 5, false, NULL), "an empty map finds nothing");
    size_t distinct = 0;
    for (unsigned i = 0; i < N; i++) {
        /* half dense (consecutive word keys, as the callers' are), half sparse; some repeated */
        keys[i] = i % 2 ? 1 + i / 2 : 1 + (rng_next(&r) >> 1);
        if (i > 10 && rng_chance(&r, 0.05))
            keys[i] = keys[rng_below(&r, i)];
        bool added;
        uint32_t *v = idmap_get(&m, keys[i], true, &added);
        cr_assert_not_null(v);
        if (added) {
            cr_assert_eq(*v, UINT32_MAX, "seed=%llu: a new key's value is unset", (unsigned long long)seed);
            *v = (uint32_t)distinct++;
            sorted[*v] = keys[i];
        }
    }
    cr_assert_eq(idmap_size(&m), distinct);
    /* every key finds the value given at its first addition */
    for (unsigned i = 0; i < N; i++) {
        uint32_t *v = idmap_get(&m, keys[i], false, NULL);
        cr_assert(v && sorted[*v] == keys[i], "seed=%llu: key %llu", (unsigned long long)seed,
                  (unsigned long long)keys[i]);
    }
    /* no two keys share a value, and keys never added are not found (nor added by the look-up) */
    qsort(sorted, distinct, sizeof *sorted, cmp_u64);
    for (size_t i = 1; i < distinct; i++)
        cr_assert_neq(sorted[i], sorted[i - 1], "seed=%llu", (unsigned long long)seed);
    for (unsigned i = 0; i < 1000; i++) {
        uint64_t k = 1 + (rng_next(&r) >> 1);
        if (bsearch(&k, sorted, distinct, sizeof *sorted, cmp_u64))
            continue;
        cr_assert_null(idmap_get(&m, k, false, NULL), "seed=%llu: key %llu", (unsigned long long)seed,
                       (unsigned long long)k);
    }
    cr_assert_eq(idmap_size(&m), distinct);
    idmap_free(&m);
    cr_assert_eq(idmap_size(&m), 0);
    cr_assert_null(idmap_get(&m, keys[0], false, NULL));
}
