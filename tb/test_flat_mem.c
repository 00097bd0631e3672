/* Tests of tb/sb/flat_mem: the flat, coherent test memory the core's tests run on. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/addr.h"
#include "base/rng.h"
#include "cn/flat_mem.h"
#include "tb_seed.h"

typedef struct log {
    kernel_t *k;
    uint64_t t[16], v[16], tag[16];
    unsigned ver[16]; /* committed: the version reported */
    char what[16];
    unsigned n;
} log_t;

static void rec(log_t *l, char what, uint64_t tag, uint64_t v)
{
    cr_assert_lt(l->n, 16);
    l->what[l->n] = what;
    l->t[l->n] = l->k->now;
    l->tag[l->n] = tag;
    l->v[l->n++] = v;
}
static void cb_done(void *obj, uint64_t tag, uint64_t v) { rec(obj, 'd', tag, v); }
static void cb_committed(void *obj, uint64_t tag, uint64_t v, unsigned version)
{
    log_t *l = obj;
    l->ver[l->n] = version;
    rec(l, 'c', tag, v);
}

Test(flat_mem, accesses_perform_at_their_completion)
{
    /* GIVEN a memory of latency 1000 ps, write-through 500 ps more
     * WHEN a load is issued, then a store to the same word lands before the load completes
     * THEN the load sees the store (values are read when the access performs); a write-through
     *      store commits at +1000 and is done at +1500; a plain one is done with its commit */
    kernel_t k;
    kernel_init(&k);
    flat_mem_params_t p = {.lat_min_ps = 1000, .lat_max_ps = 1000, .wt_extra_ps = 500, .seed = 1, .max_ports = 2};
    flat_mem_t *fm = flat_mem_create(&k, &p);
    const mem_if_t *a = flat_mem_port(fm, 0), *b = flat_mem_port(fm, 1);
    log_t l = {.k = &k};
    a->load(a->obj, 0, 0x48, cb_done, &l, 1);
    uint64_t w[8] = {0, 33};
    kernel_run(&k, 100);
    flat_mem_set_latency(fm, 500, 500);
    b->store(b->obj, 1, 0x40, 0x02, w, true, cb_committed, cb_done, &l, 2);
    kernel_run(&k, UINT64_MAX);
    cr_assert_eq(l.n, 3);
    cr_assert(l.what[0] == 'c' && l.tag[0] == 2 && l.t[0] == 600);
    cr_assert(l.what[1] == 'd' && l.tag[1] == 1 && l.t[1] == 1000 && l.v[1] == 33);
    cr_assert(l.what[2] == 'd' && l.tag[2] == 2 && l.t[2] == 1100);
    cr_assert_eq(flat_mem_counts(fm, 1)->wt_stores, 1);
    cr_assert_eq(flat_mem_counts(fm, 1)->max_busy_stores, 1);
    cr_assert_eq(flat_mem_in_flight(fm), 0);
    flat_mem_free(fm);
    kernel_free(&k);
}

Test(flat_mem, rmw_semantics_and_commit_only_when_written)
{
    /* GIVEN a word holding 5
     * WHEN CAS(4 -> 9) fails, CAS(5 -> 9) succeeds, FADD 3, SWAP 1
     * THEN old values 5, 5, 9, 12; committed only for the three that write, with the new value */
    kernel_t k;
    kernel_init(&k);
    flat_mem_params_t p = {.lat_min_ps = 10, .lat_max_ps = 10, .seed = 1, .max_ports = 1};
    flat_mem_t *fm = flat_mem_create(&k, &p);
    const mem_if_t *m = flat_mem_port(fm, 0);
    flat_mem_poke(fm, 0x100, 5);
    log_t l = {.k = &k};
    m->rmw(m->obj, 0, 0x100, MEM_RMW_CAS, 4, 9, false, cb_committed, cb_done, &l, 1);
    kernel_run(&k, UINT64_MAX);
    m->rmw(m->obj, 0, 0x100, MEM_RMW_CAS, 5, 9, false, cb_committed, cb_done, &l, 2);
    kernel_run(&k, UINT64_MAX);
    m->rmw(m->obj, 0, 0x100, MEM_RMW_FADD, 3, 0, false, cb_committed, cb_done, &l, 3);
    kernel_run(&k, UINT64_MAX);
    m->rmw(m->obj, 0, 0x100, MEM_RMW_SWAP, 1, 0, false, cb_committed, cb_done, &l, 4);
    kernel_run(&k, UINT64_MAX);
    const char *want_what = "dcdcdcd";
    const uint64_t want_v[] = {5, 9, 5, 12, 9, 1, 12};
    cr_assert_eq(l.n, 7);
    for (unsigned i = 0; i < 7; i++)
        cr_assert(l.what[i] == want_what[i] && l.v[i] == want_v[i], "event %u: %c %llu", i, l.what[i],
                  (unsigned long long)l.v[i]);
    cr_assert_eq(flat_mem_peek(fm, 0x100), 1);
    flat_mem_free(fm);
    kernel_free(&k);
}

static void cb_lat(void *obj, uint64_t tag, uint64_t v)
{
    (void)v;
    uint64_t *t = obj;
    t[tag] = 1;
}

Test(flat_mem, latencies_stay_in_range_and_replay_from_the_seed)
{
    /* GIVEN latency range [1000, 5000] ps
     * WHEN 2000 loads are issued at time 0, twice with the same seed
     * THEN every completion lies in the range, both runs complete in the same order and times,
     *      and the range is used (not one value) */
    uint64_t seed = tb_seed(11);
    uint64_t first[2] = {0}, last[2] = {0};
    for (unsigned run = 0; run < 2; run++) {
        kernel_t k;
        kernel_init(&k);
        flat_mem_params_t p = {.lat_min_ps = 1000, .lat_max_ps = 5000, .seed = seed, .max_ports = 1};
        flat_mem_t *fm = flat_mem_create(&k, &p);
        const mem_if_t *m = flat_mem_port(fm, 0);
        static uint64_t seen[2000];
        memset(seen, 0, sizeof seen);
        for (unsigned i = 0; i < 2000; i++)
            m->load(m->obj, 0, 8 * i, cb_lat, seen, i);
        kernel_run(&k, 999);
        cr_assert_eq(flat_mem_in_flight(fm), 2000, "seed %llu", (unsigned long long)seed);
        first[run] = kernel_next_time(&k);
        kernel_run(&k, 5000);
        cr_assert_eq(flat_mem_in_flight(fm), 0, "seed %llu", (unsigned long long)seed);
        last[run] = k.now;
        flat_mem_free(fm);
        kernel_free(&k);
    }
    cr_assert(first[0] < 1100 && last[0] > 4900, "seed %llu: %llu..%llu", (unsigned long long)seed,
              (unsigned long long)first[0], (unsigned long long)last[0]);
    cr_assert(first[0] == first[1] && last[0] == last[1], "seed %llu", (unsigned long long)seed);
}

Test(flat_mem, bad_parameters_are_refused)
{
    kernel_t k;
    kernel_init(&k);
    flat_mem_params_t p = {.lat_min_ps = 10, .lat_max_ps = 5, .max_ports = 1};
    cr_assert_null(flat_mem_create(&k, &p));
    p = (flat_mem_params_t){.lat_min_ps = 5, .lat_max_ps = 10, .max_ports = 0};
    cr_assert_null(flat_mem_create(&k, &p));
    kernel_free(&k);
}

Test(flat_mem, every_commit_adds_one_to_its_lines_version_and_acquire_answers_after_the_latency)
{
    /* GIVEN a memory of latency 100 ps
     * WHEN a store of three words, a failed CAS, a FADD and another store hit one remote line, a
     *      store hits another remote line and one a local line, and an acquire is asked
     * THEN the versions reported are 1, 2, 3 on the first line (the failed CAS adds nothing),
     *      1 on the second, 0 on the local line; the acquire is done at +100 ps; 200 more commits
     *      wrap the reported version mod 128 while flat_mem_version counts on */
    kernel_t k;
    kernel_init(&k);
    flat_mem_params_t p = {.lat_min_ps = 100, .lat_max_ps = 100, .seed = 1, .max_ports = 1};
    flat_mem_t *fm = flat_mem_create(&k, &p);
    const mem_if_t *m = flat_mem_port(fm, 0);
    log_t l = {.k = &k};
    uint64_t w[8] = {1, 2, 3};
    m->store(m->obj, 0, 0x200, 0x07, w, false, cb_committed, cb_done, &l, 1);
    kernel_run(&k, UINT64_MAX);
    m->rmw(m->obj, 0, 0x208, MEM_RMW_CAS, 99, 5, false, cb_committed, cb_done, &l, 2);
    kernel_run(&k, UINT64_MAX);
    m->rmw(m->obj, 0, 0x210, MEM_RMW_FADD, 1, 0, false, cb_committed, cb_done, &l, 3);
    kernel_run(&k, UINT64_MAX);
    m->store(m->obj, 0, 0x200, 0x80, w, false, cb_committed, cb_done, &l, 4);
    m->store(m->obj, 0, 0x240, 0x01, w, false, cb_committed, cb_done, &l, 5);
    m->store(m->obj, 0, ADDR_LOCAL_BASE + 0x40, 0x01, w, false, cb_committed, cb_done, &l, 6);
    kernel_run(&k, UINT64_MAX);
    const unsigned want_tag[] = {1, 3, 4, 5, 6}, want_ver[] = {1, 2, 3, 1, 0};
    unsigned c = 0;
    for (unsigned i = 0; i < l.n; i++)
        if (l.what[i] == 'c') {
            cr_assert_lt(c, 5);
            cr_assert(l.tag[i] == want_tag[c] && l.ver[i] == want_ver[c], "commit %u: tag %llu version %u, want %u %u",
                      c, (unsigned long long)l.tag[i], l.ver[i], want_tag[c], want_ver[c]);
            c++;
        }
    cr_assert_eq(c, 5);
    cr_assert_eq(flat_mem_version(fm, 0x238), 3);
    cr_assert_eq(flat_mem_version(fm, ADDR_LOCAL_BASE + 0x40), 0);
    log_t a = {.k = &k};
    uint64_t t0 = k.now;
    m->acquire(m->obj, 0, 0x208, cb_done, &a, 7);
    kernel_run(&k, UINT64_MAX);
    cr_assert(a.n == 1 && a.what[0] == 'd' && a.tag[0] == 7 && a.t[0] == t0 + 100);
    cr_assert_eq(flat_mem_counts(fm, 0)->acquires, 1);
    for (unsigned i = 0; i < 200; i++) {
        log_t x = {.k = &k};
        m->store(m->obj, 0, 0x200, 0x01, w, false, cb_committed, cb_done, &x, 8);
        kernel_run(&k, UINT64_MAX);
        cr_assert_eq(x.ver[0], (3 + i + 1) % 128);
    }
    cr_assert_eq(flat_mem_version(fm, 0x200), 203);
    flat_mem_free(fm);
    kernel_free(&k);
}
