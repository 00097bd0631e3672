/* Tests of csim/cn/coro: coroutines of the simulated threads. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "cn/coro.h"

typedef struct counter {
    coro_t *self;
    unsigned id;
    unsigned *trace;
    size_t *n;
    unsigned steps;
} counter_t;

static void count_fn(void *arg)
{
    counter_t *c = arg;
    for (unsigned i = 0; i < c->steps; i++) {
        c->trace[(*c->n)++] = c->id * 100 + i;
        coro_yield(c->self);
    }
}

Test(coro, yields_interleave_and_locals_survive)
{
    /* GIVEN three coroutines that record (id, step) and yield after each step */
    unsigned trace[64];
    size_t n = 0;
    counter_t cs[3];
    for (unsigned i = 0; i < 3; i++) {
        cs[i] = (counter_t){.id = i + 1, .trace = trace, .n = &n, .steps = 3 + i};
        cs[i].self = coro_create(count_fn, &cs[i], 64 * 1024);
        cr_assert_not_null(cs[i].self);
    }
    /* WHEN resumed round-robin until all are done */
    bool any = true;
    while (any) {
        any = false;
        for (unsigned i = 0; i < 3; i++)
            if (!coro_done(cs[i].self)) {
                coro_resume(cs[i].self);
                any = true;
            }
    }
    /* THEN the steps interleave in resume order, each coroutine's own counter intact */
    unsigned want[] = {100, 200, 300, 101, 201, 301, 102, 202, 302, 203, 303, 304};
    cr_assert_eq(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(trace[i], want[i], "step %zu: %u, want %u", i, trace[i], want[i]);
    for (unsigned i = 0; i < 3; i++)
        coro_free(cs[i].self);
}

typedef struct deep {
    coro_t *self;
    double result;
} deep_t;

static double recurse(deep_t *d, unsigned depth, double x)
{
    volatile char pad[256];
    memset((char *)pad, (int)depth, sizeof pad);
    if (depth % 64 == 0)
        coro_yield(d->self); /* switch away deep inside a call chain, with live FP values */
    if (depth == 0)
        return x + pad[0];
    return recurse(d, depth - 1, x * 1.0000001) + 0.5;
}

static void deep_fn(void *arg)
{
    deep_t *d = arg;
    d->result = recurse(d, 512, 1.0);
}

Test(coro, deep_stack_and_floating_point_survive_switches)
{
    deep_t d = {0};
    d.self = coro_create(deep_fn, &d, 512 * 1024);
    unsigned resumes = 0;
    while (!coro_done(d.self)) {
        coro_resume(d.self);
        resumes++;
    }
    double want = 1.0;
    for (int i = 0; i < 512; i++)
        want *= 1.0000001;
    want += 512 * 0.5;
    cr_assert_eq(resumes, 10, "one resume per yield (depths 512, 448, .., 0) plus the last: %u", resumes);
    cr_assert_float_eq(d.result, want, 1e-9, "%.12f vs %.12f", d.result, want);
    coro_free(d.self);
}

static void never_ends(void *arg)
{
    coro_t **self = arg;
    for (;;)
        coro_yield(*self);
}

Test(coro, an_unfinished_coroutine_can_be_freed)
{
    coro_t *c = NULL;
    c = coro_create(never_ends, &c, 16 * 1024);
    coro_resume(c);
    coro_resume(c);
    cr_assert(!coro_done(c));
    coro_free(c);
}
