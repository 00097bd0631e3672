/* The simulation kernel: event order, clock edges, the run loop's stall detection. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>

#include "base/kernel.h"
#include "base/rng.h"
#include "base/run.h"
#include "tb_seed.h"

typedef struct log {
    uint64_t t[64];
    uint64_t arg[64];
    unsigned n;
    kernel_t *k;
} log_t;

static void record(void *obj, uint64_t arg)
{
    log_t *l = obj;
    l->t[l->n] = l->k->now;
    l->arg[l->n++] = arg;
}

Test(kernel, events_run_in_time_then_scheduling_order)
{
    kernel_t k;
    kernel_init(&k);
    log_t l = {.k = &k};
    kernel_at(&k, 300, record, &l, 1);
    kernel_at(&k, 100, record, &l, 2);
    kernel_at(&k, 300, record, &l, 3);
    kernel_at(&k, 200, record, &l, 4);
    kernel_at(&k, 100, record, &l, 5);
    kernel_run(&k, UINT64_MAX);
    const uint64_t want_arg[] = {2, 5, 4, 1, 3}, want_t[] = {100, 100, 200, 300, 300};
    cr_assert_eq(l.n, 5);
    for (unsigned i = 0; i < 5; i++) {
        cr_assert_eq(l.arg[i], want_arg[i], "event %u: got arg %llu", i, (unsigned long long)l.arg[i]);
        cr_assert_eq(l.t[i], want_t[i]);
    }
    cr_assert_eq(k.events, 5);
    kernel_free(&k);
}

Test(kernel, clock_edges_run_before_other_events_at_the_same_time)
{
    kernel_t k;
    kernel_init(&k);
    log_t l = {.k = &k};
    kernel_at(&k, 500, record, &l, 1);
    kernel_at_phase(&k, 500, KERNEL_PHASE_EDGE, record, &l, 2);
    kernel_at(&k, 400, record, &l, 3);
    kernel_run(&k, UINT64_MAX);
    cr_assert_eq(l.arg[0], 3);
    cr_assert_eq(l.arg[1], 2, "the edge scheduled later runs first at t = 500");
    cr_assert_eq(l.arg[2], 1);
    kernel_free(&k);
}

/* A model's work deferred at t = 100 (kernel_defer) runs after every other event at 100 and before
 * the first at 200; the events it schedules with the sequence numbers reserved when it deferred sort
 * before those the later events at 100 scheduled for the same time. */
typedef struct defer_ctx {
    kernel_t *k;
    log_t *l;
    uint64_t seq;     /* reserved */
    unsigned runs;
    uint64_t horizon; /* after the deferring event's time; 0: the next picosecond */
} defer_ctx_t;

static void deferred_part(void *obj)
{
    defer_ctx_t *d = obj;
    d->runs++;
    record(d->l, 90);
    uint64_t prev = kernel_use_seq(d->k, d->seq);
    kernel_at(d->k, 300, record, d->l, 91);
    kernel_at(d->k, 300, record, d->l, 92);
    kernel_use_seq(d->k, prev);
}

static void deferring_event(void *obj, uint64_t arg)
{
    (void)arg;
    defer_ctx_t *d = obj;
    record(d->l, 1);
    d->seq = kernel_reserve(d->k, 2);
    kernel_defer(d->k, deferred_part, d, d->horizon ? d->horizon : d->k->now + 1);
}

static void later_event(void *obj, uint64_t arg)
{
    defer_ctx_t *d = obj;
    record(d->l, arg);
    kernel_at(d->k, 300, record, d->l, 10 + arg);
}

Test(kernel, deferred_work_runs_before_time_moves_on_in_its_reserved_order)
{
    kernel_t k;
    kernel_init(&k);
    log_t l = {.k = &k};
    defer_ctx_t d = {.k = &k, .l = &l};
    kernel_at(&k, 100, deferring_event, &d, 0);
    kernel_at(&k, 100, later_event, &d, 2);
    kernel_at(&k, 200, record, &l, 3);
    kernel_run(&k, UINT64_MAX);
    const uint64_t want_arg[] = {1, 2, 90, 3, 91, 92, 12}, want_t[] = {100, 100, 100, 200, 300, 300, 300};
    cr_assert_eq(l.n, 7, "%u events", l.n);
    for (unsigned i = 0; i < 7; i++) {
        cr_assert_eq(l.arg[i], want_arg[i], "event %u: got arg %llu", i, (unsigned long long)l.arg[i]);
        cr_assert_eq(l.t[i], want_t[i], "event %u: at %llu", i, (unsigned long long)l.t[i]);
    }
    cr_assert_eq(d.runs, 1);
    kernel_free(&k);
}

/* With a horizon of 250, the work deferred at t = 100 runs after the event at 200 too (it runs
 * beside that time's events) and before the first at 250 or later; its events still sort before
 * those the events at 100 and 200 scheduled for their time. */
Test(kernel, deferred_work_runs_before_its_horizon_in_its_reserved_order)
{
    for (unsigned way = 0; way < 2; way++) {
        kernel_t k;
        kernel_init(&k);
        log_t l = {.k = &k};
        defer_ctx_t d = {.k = &k, .l = &l, .horizon = 250};
        kernel_at(&k, 100, deferring_event, &d, 0);
        kernel_at(&k, 100, later_event, &d, 2);
        kernel_at(&k, 200, later_event, &d, 3);
        kernel_at(&k, way ? 250 : 260, record, &l, 4);
        kernel_run(&k, UINT64_MAX);
        const uint64_t want_arg[] = {1, 2, 3, 90, 4, 91, 92, 12, 13};
        const uint64_t want_t[] = {100, 100, 200, 200, way ? 250 : 260, 300, 300, 300, 300};
        cr_assert_eq(l.n, 9, "way %u: %u events", way, l.n);
        for (unsigned i = 0; i < 9; i++) {
            cr_assert_eq(l.arg[i], want_arg[i], "way %u, event %u: got arg %llu", way, i,
                         (unsigned long long)l.arg[i]);
            cr_assert_eq(l.t[i], want_t[i], "way %u, event %u: at %llu", way, i, (unsigned long long)l.t[i]);
        }
        cr_assert_eq(d.runs, 1);
        kernel_free(&k);
    }
}

/* Deferred work also runs when kernel_run returns: at its end time, when stopped, and when no event
 * is left. */
static void stopping_event(void *obj, uint64_t arg)
{
    defer_ctx_t *d = obj;
    deferring_event(d, 0);
    if (arg)
        kernel_stop(d->k);
}

Test(kernel, deferred_work_runs_before_the_run_returns)
{
    for (unsigned way = 0; way < 3; way++) {
        kernel_t k;
        kernel_init(&k);
        log_t l = {.k = &k};
        defer_ctx_t d = {.k = &k, .l = &l};
        kernel_at(&k, 100, stopping_event, &d, way == 1);
        if (way == 0)
            kernel_at(&k, 1000, record, &l, 5);
        kernel_run(&k, way == 0 ? 500 : UINT64_MAX);
        cr_assert_eq(d.runs, 1, "way %u: the deferred part ran before kernel_run returned", way);
        cr_assert_eq(k.ndeferred, 0);
        kernel_free(&k);
    }
}

Test(kernel, run_until_leaves_later_events_pending)
{
    kernel_t k;
    kernel_init(&k);
    log_t l = {.k = &k};
    kernel_at(&k, 10, record, &l, 1);
    kernel_at(&k, 1000, record, &l, 2);
    kernel_run(&k, 500);
    cr_assert_eq(l.n, 1);
    cr_assert_eq(k.now, 500);
    cr_assert_eq(kernel_next_time(&k), 1000);
    kernel_run(&k, UINT64_MAX);
    cr_assert_eq(l.n, 2);
    cr_assert_eq(kernel_pending(&k), 0);
    kernel_free(&k);
}

/* Checks order as events arrive: time never goes back; equal times keep scheduling order. */
static void check_order(void *obj, uint64_t arg)
{
    static uint64_t last_t, last_arg;
    static int first = 1;
    kernel_t *k = *(kernel_t **)obj;
    if (!first) {
        cr_assert_geq(k->now, last_t);
        if (k->now == last_t)
            cr_assert_gt(arg, last_arg, "same time: scheduling order kept");
    }
    first = 0;
    last_t = k->now;
    last_arg = arg;
}

Test(kernel, random_schedule_comes_out_sorted)
{
    const uint64_t seed = tb_seed(21);
    rng_t r;
    rng_init_named(&r, seed, "kernel.heap");
    kernel_t k;
    kernel_init(&k);
    kernel_t *kp = &k;
    for (unsigned i = 0; i < 20000; i++)
        kernel_at(&k, rng_below(&r, 5000), check_order, &kp, i);
    kernel_run(&k, UINT64_MAX);
    cr_assert_eq(k.events, 20000, "seed=%llu", (unsigned long long)seed);
    kernel_free(&k);
}

/* Events scheduled while others run reuse the slots of those run: each still runs its own function
 * with its own argument, at its own time, in (time, scheduling order). The argument holds the time
 * the event was scheduled for (high bits) and a number counting up in scheduling order (low bits). */
typedef struct churn {
    kernel_t *k;
    rng_t r;
    uint64_t next_id, ran, last_t, last_id;
    unsigned budget;
} churn_t;

static void churn_event(void *obj, uint64_t arg)
{
    churn_t *c = obj;
    const uint64_t t = arg >> 24, id = arg & 0xffffff;
    cr_assert_eq(c->k->now, t, "event %llu ran at %llu ps, scheduled for %llu", (unsigned long long)id,
                 (unsigned long long)c->k->now, (unsigned long long)t);
    cr_assert(c->ran == 0 || t > c->last_t || (t == c->last_t && id > c->last_id),
              "event %llu at %llu ps ran after event %llu at %llu ps", (unsigned long long)id,
              (unsigned long long)t, (unsigned long long)c->last_id, (unsigned long long)c->last_t);
    c->ran++;
    c->last_t = t;
    c->last_id = id;
    for (unsigned n = (unsigned)rng_below(&c->r, 3); n && c->budget; n--, c->budget--) {
        const uint64_t at = c->k->now + rng_below(&c->r, 50);
        kernel_at(c->k, at, churn_event, c, at << 24 | c->next_id++);
    }
}

Test(kernel, events_scheduled_while_others_run_keep_their_function_argument_and_order)
{
    const uint64_t seed = tb_seed(23);
    kernel_t k;
    kernel_init(&k);
    churn_t c = {.k = &k, .budget = 200000};
    rng_init_named(&c.r, seed, "kernel.churn");
    for (unsigned i = 0; i < 3000; i++) {
        const uint64_t at = rng_below(&c.r, 1000);
        kernel_at(&k, at, churn_event, &c, at << 24 | c.next_id++);
    }
    kernel_run(&k, UINT64_MAX);
    cr_assert_eq(c.ran, c.next_id, "seed=%llu: %llu events run of %llu scheduled", (unsigned long long)seed,
                 (unsigned long long)c.ran, (unsigned long long)c.next_id);
    cr_assert_eq(kernel_pending(&k), 0);
    kernel_free(&k);
}

/* A train (kernel_train_next) against the same actions scheduled as events of their own: what runs
 * and in which order, the events counted and those told to on_event are the same. Built at t = 0:
 * NTRAINS trains at t = 100 whose actions are interleaved in scheduling order with other events at
 * 100 and 99; each action and event logs itself and schedules more at random (at its own time in
 * either phase, or a little later), and may stop the run (logged; kernel_run is called again). Way 0 runs
 * every action as an event, way 1 the trains; the rng stream is the same as long as the order is. */
#define NTRAINS 3
#define TRAIN_MAX 40

typedef struct train_world {
    kernel_t k;
    rng_t r;
    unsigned way;
    uint64_t log[4096];                     /* (now << 20) | id of every action and event run */
    unsigned nlog;
    uint64_t trace[4096];                   /* (t << 20) ^ seq of every event on_event saw */
    unsigned ntrace;
    uint64_t next_id;
    uint64_t seq[NTRAINS][TRAIN_MAX];       /* way 1: each train's actions' sequence numbers */
    uint64_t id[NTRAINS][TRAIN_MAX];
    unsigned n[NTRAINS];
} train_world_t;

static void tw_act(train_world_t *w, uint64_t id);

static void tw_event(void *obj, uint64_t id) { tw_act(obj, id); }

static void tw_train(void *obj, uint64_t arg)
{
    train_world_t *w = obj;
    const unsigned t = (unsigned)(arg >> 8);
    for (unsigned i = (unsigned)(arg & 0xff);;) {
        tw_act(w, w->id[t][i]);
        if (++i == w->n[t])
            return;
        if (!kernel_train_next(&w->k, w->seq[t][i], tw_train, w, (uint64_t)t << 8 | i))
            return;
    }
}

static void tw_act(train_world_t *w, uint64_t id)
{
    cr_assert_lt(w->nlog, 4096);
    w->log[w->nlog++] = w->k.now << 20 | id;
    for (unsigned n = (unsigned)rng_below(&w->r, 3); n && w->next_id < 2000; n--) {
        const unsigned how = (unsigned)rng_below(&w->r, 4);
        const uint64_t at = w->k.now + (how == 3 ? 1 + rng_below(&w->r, 3) : 0);
        kernel_at_phase(&w->k, at, how == 1 ? KERNEL_PHASE_EDGE : KERNEL_PHASE_MODEL, tw_event, w, w->next_id++);
    }
    if (rng_below(&w->r, 16) == 0)
        kernel_stop(&w->k);
}

static void tw_build(void *obj, uint64_t arg)
{
    (void)arg;
    train_world_t *w = obj;
    for (unsigned i = 0; i < NTRAINS * TRAIN_MAX; i++) {
        const unsigned what = (unsigned)rng_below(&w->r, NTRAINS + 3);
        if (what < NTRAINS) {
            if (w->n[what] == TRAIN_MAX)
                continue;
            w->id[what][w->n[what]] = w->next_id;
            if (w->way == 0)
                kernel_at(&w->k, 100, tw_event, w, w->next_id);
            else
                w->seq[what][w->n[what]] = kernel_reserve(&w->k, 1);
            w->n[what]++;
            w->next_id++;
        } else {
            kernel_at_phase(&w->k, what == NTRAINS + 2 ? 99 : 100,
                            what == NTRAINS ? KERNEL_PHASE_EDGE : KERNEL_PHASE_MODEL, tw_event, w, w->next_id++);
        }
    }
    if (w->way == 1)
        for (unsigned t = 0; t < NTRAINS; t++)
            if (w->n[t])
                kernel_at_seq(&w->k, 100, w->seq[t][0], tw_train, w, (uint64_t)t << 8);
}

static void tw_on_event(void *obj, const event_t *e)
{
    train_world_t *w = obj;
    cr_assert_lt(w->ntrace, 4096);
    w->trace[w->ntrace++] = e->t << 20 ^ e->seq;
}

Test(kernel, a_train_runs_its_actions_as_events_of_their_own_would)
{
    const uint64_t seed = tb_seed(24);
    static train_world_t w[2];
    for (unsigned round = 0; round < 50; round++) {
        for (unsigned way = 0; way < 2; way++) {
            memset(&w[way], 0, sizeof w[way]);
            train_world_t *x = &w[way];
            kernel_init(&x->k);
            x->way = way;
            x->k.on_event = tw_on_event;
            x->k.on_event_obj = x;
            rng_init_named(&x->r, seed + round, "kernel.train");
            kernel_at(&x->k, 0, tw_build, x, 0);
            while (kernel_pending(&x->k)) {
                kernel_run(&x->k, UINT64_MAX);
                cr_assert_lt(x->nlog, 4096);
                x->log[x->nlog++] = UINT64_MAX; /* where the run stopped */
            }
        }
        cr_assert_gt(w[0].nlog, NTRAINS * TRAIN_MAX / 2, "seed=%llu round %u", (unsigned long long)seed, round);
        cr_assert_eq(w[0].nlog, w[1].nlog, "seed=%llu round %u: %u actions and events ran, %u with trains",
                     (unsigned long long)seed, round, w[0].nlog, w[1].nlog);
        for (unsigned i = 0; i < w[0].nlog; i++)
            cr_assert_eq(w[0].log[i], w[1].log[i], "seed=%llu round %u: run %u was id %llu at %llu ps, with "
                         "trains id %llu at %llu ps", (unsigned long long)seed, round, i,
                         (unsigned long long)(w[0].log[i] & 0xfffff), (unsigned long long)(w[0].log[i] >> 20),
                         (unsigned long long)(w[1].log[i] & 0xfffff), (unsigned long long)(w[1].log[i] >> 20));
        cr_assert_eq(w[0].k.events, w[1].k.events, "seed=%llu round %u", (unsigned long long)seed, round);
        cr_assert_eq(w[0].ntrace, w[1].ntrace, "seed=%llu round %u", (unsigned long long)seed, round);
        cr_assert_eq(memcmp(w[0].trace, w[1].trace, w[0].ntrace * sizeof w[0].trace[0]), 0,
                     "seed=%llu round %u: on_event saw other times or sequence numbers", (unsigned long long)seed,
                     round);
        kernel_free(&w[0].k);
        kernel_free(&w[1].k);
    }
}

/* kernel_at_seq takes only a sequence number handed out before (kernel_reserve). */
Test(kernel, an_event_cannot_take_a_sequence_number_not_yet_reserved, .signal = SIGABRT)
{
    kernel_t k;
    kernel_init(&k);
    const uint64_t seq = kernel_reserve(&k, 1);
    kernel_at_seq(&k, 10, seq, tw_event, NULL, 0);
    kernel_at_seq(&k, 10, seq + 1, tw_event, NULL, 0);
}

static void never(void *obj, uint64_t arg)
{
    (void)obj;
    (void)arg;
}

/* The queue's limit of events pending at once (KERNEL_SLOT_BITS) stops the run; one fewer fits. */
Test(kernel, more_events_pending_than_the_queue_holds_stop_the_run, .signal = SIGABRT)
{
    kernel_t k;
    kernel_init(&k);
    for (uint64_t i = 0; i < (1ull << KERNEL_SLOT_BITS); i++)
        kernel_at(&k, i, never, NULL, 0);
    cr_assert_eq(kernel_pending(&k), 1ull << KERNEL_SLOT_BITS);
    kernel_at(&k, 0, never, NULL, 0);
}

Test(kernel, clock_edges_keep_the_exact_average_frequency)
{
    const clock_domain_t core = clock_domain("core", 2400000000ull);
    cr_assert_eq(clock_edge(&core, 12), 5000, "12 cycles at 2.4 GHz are exactly 5 ns");
    cr_assert_eq(clock_edge(&core, 2400000000ull), PS_PER_S, "one second of cycles is one second");
    cr_assert_eq(clock_period_ps(&core), 417);
    const clock_domain_t lu = clock_domain("lu", 500000000ull);
    cr_assert_eq(clock_edge(&lu, 3), 6000);
    const uint64_t seed = tb_seed(22);
    rng_t r;
    rng_init_named(&r, seed, "kernel.clock");
    for (unsigned i = 0; i < 100000; i++) {
        uint64_t t = rng_below(&r, 1ull << 50);
        uint64_t c = clock_cycle_at_or_after(&core, t);
        cr_assert_geq(clock_edge(&core, c), t, "seed=%llu t=%llu", (unsigned long long)seed, (unsigned long long)t);
        if (c)
            cr_assert_lt(clock_edge(&core, c - 1), t, "seed=%llu t=%llu: not the first edge at or after t",
                         (unsigned long long)seed, (unsigned long long)t);
    }
}

/* ---- the run loop ---- */

typedef struct ticker {
    kernel_t *k;
    uint64_t work, stop_after, period;
    uint64_t stall_from; /* work stops growing after this many ticks */
    uint64_t ticks;
} ticker_t;

static void tick(void *obj, uint64_t arg)
{
    (void)arg;
    ticker_t *t = obj;
    t->ticks++;
    if (t->ticks < t->stall_from)
        t->work++;
    if (t->stop_after && t->work == t->stop_after) {
        kernel_stop(t->k);
        return;
    }
    kernel_after(t->k, t->period, tick, t, 0);
}

static uint64_t work(void *obj) { return ((ticker_t *)obj)->work; }

Test(kernel, run_loop_detects_a_stall_and_stops)
{
    kernel_t k;
    kernel_init(&k);
    ticker_t t = {.k = &k, .period = 1000, .stall_from = 50};
    kernel_at(&k, 0, tick, &t, 0);
    run_params_t p = {.end_ps = PS_PER_S, .stall_timeout_ps = 100000, .progress = work, .obj = &t};
    cr_assert_eq(run_loop(&k, &p), RUN_STALLED);
    cr_assert_eq(t.work, 49);
    cr_assert_geq(k.now, 49000 + 100000, "stalled only after the timeout");
    cr_assert_leq(k.now, 49000 + 100000 + 25000 + 1000, "and within a slice of it");
    kernel_free(&k);
}

Test(kernel, run_loop_ends_done_end_time_or_idle)
{
    kernel_t k;
    kernel_init(&k);
    ticker_t t = {.k = &k, .period = 1000, .stall_from = UINT64_MAX, .stop_after = 30};
    kernel_at(&k, 0, tick, &t, 0);
    run_params_t p = {.end_ps = PS_PER_S, .stall_timeout_ps = 100000, .progress = work, .obj = &t};
    cr_assert_eq(run_loop(&k, &p), RUN_DONE);
    cr_assert_eq(k.now, 29000);
    kernel_free(&k);

    kernel_init(&k);
    t = (ticker_t){.k = &k, .period = 1000, .stall_from = UINT64_MAX};
    kernel_at(&k, 0, tick, &t, 0);
    p.end_ps = 55500;
    cr_assert_eq(run_loop(&k, &p), RUN_END_TIME);
    cr_assert_eq(k.now, 55500);
    kernel_free(&k);

    kernel_init(&k);
    t = (ticker_t){.k = &k};
    p.end_ps = PS_PER_S;
    cr_assert_eq(run_loop(&k, &p), RUN_IDLE);
    kernel_free(&k);
}

/* An event a deferred completion schedules at its own time would run after the events that came
 * after the deferring one: the kernel stops the run rather than reorder it. */
static void defer_at_now(void *obj)
{
    kernel_t *k = obj;
    kernel_at(k, k->now, record, NULL, 0);
}

static void deferring_at_now(void *obj, uint64_t arg)
{
    (void)arg;
    kernel_t *k = obj;
    kernel_defer(k, defer_at_now, k, k->now + 1);
}

Test(kernel, a_deferred_completion_cannot_schedule_at_its_own_time, .signal = SIGABRT)
{
    kernel_t k;
    kernel_init(&k);
    kernel_at(&k, 100, deferring_at_now, &k, 0);
    kernel_run(&k, UINT64_MAX);
}

/* Nor before its horizon: deferred at 100 with a horizon of 250, it runs before the event at 250,
 * where an event it scheduled at 240 could already have been passed by the events run meanwhile
 * (none here; the kernel refuses it all the same, so that the run cannot depend on that). */
static void defer_before_horizon(void *obj)
{
    kernel_t *k = obj;
    kernel_at(k, 240, record, NULL, 0);
}

static void deferring_to_250(void *obj, uint64_t arg)
{
    (void)arg;
    kernel_defer(obj, defer_before_horizon, obj, 250);
}

Test(kernel, a_deferred_completion_cannot_schedule_before_its_horizon, .signal = SIGABRT)
{
    kernel_t k;
    kernel_init(&k);
    kernel_at(&k, 100, deferring_to_250, &k, 0);
    kernel_at(&k, 250, never, NULL, 0);
    kernel_run(&k, UINT64_MAX);
}

/* A horizon must come after now. */
static void deferring_to_now(void *obj, uint64_t arg)
{
    (void)arg;
    kernel_t *k = obj;
    kernel_defer(k, defer_before_horizon, k, k->now);
}

Test(kernel, a_deferred_completion_needs_a_horizon_after_now, .signal = SIGABRT)
{
    kernel_t k;
    kernel_init(&k);
    kernel_at(&k, 100, deferring_to_now, &k, 0);
    kernel_run(&k, UINT64_MAX);
}

Test(kernel, threads_are_one_or_two)
{
    kernel_t k;
    kernel_init(&k);
    cr_assert_eq(kernel_set_threads(&k, 3), -1);
    cr_assert_eq(kernel_set_threads(&k, 0), -1);
    cr_assert_null(k.worker);
    cr_assert_eq(kernel_set_threads(&k, 2), 0);
    cr_assert_not_null(k.worker, "two threads: a worker");
    cr_assert_eq(kernel_set_threads(&k, 1), 0);
    cr_assert_null(k.worker, "one thread: none");
    cr_assert_eq(kernel_set_threads(&k, 2), 0);
    kernel_free(&k); /* frees the worker */
}

/* Edges are computed from the period as a reduced fraction (64-bit arithmetic, the fraction
 * worked out when the domain is made): the same edges as the general formula, and the first edge
 * at or after a time is the first one, for whole-picosecond periods (1 GHz, 500 MHz), 2.4 GHz, 3 GHz
 * and a frequency coprime to 1 THz (seeded random times and cycles, up to where 128-bit arithmetic
 * takes over). */
Test(kernel, clock_edges_have_the_general_formulas_edges)
{
    const uint64_t seed = tb_seed(22);
    rng_t r;
    rng_init_named(&r, seed, "kernel.clocks");
    const clock_domain_t clocks[] = {clock_domain("fabric", 1000000000ull), clock_domain("lu", 500000000ull),
                                     clock_domain("core", 2400000000ull), clock_domain("odd", 3000000000ull),
                                     clock_domain("coprime", 999999937ull)};
    for (unsigned i = 0; i < 20000; i++) {
        const clock_domain_t *c = &clocks[i % 5];
        uint64_t cycle = i % 7 ? rng_below(&r, 1ull << 40) : UINT64_MAX - rng_below(&r, 1ull << 20);
        uint64_t want = (uint64_t)((unsigned __int128)cycle * PS_PER_S / c->freq_hz);
        cr_assert_eq(clock_edge(c, cycle), want, "seed=%llu %s cycle %llu", (unsigned long long)seed, c->name,
                     (unsigned long long)cycle);
        uint64_t t = i % 5 ? rng_below(&r, 1ull << 50) : rng_below(&r, 1ull << 62);
        uint64_t k = clock_cycle_at_or_after(c, t);
        cr_assert(clock_edge(c, k) >= t && (k == 0 || clock_edge(c, k - 1) < t),
                  "seed=%llu %s t %llu: cycle %llu is not the first edge at or after it", (unsigned long long)seed,
                  c->name, (unsigned long long)t, (unsigned long long)k);
    }
}
