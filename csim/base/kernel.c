#include "base/kernel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/hostprof.h"
#include "base/worker.h"

/* The queue holds 16-byte keys (time, then phase, scheduling order and slot in one word), so that
 * sifting moves two words a level, and what an event runs stays in its slot until it is popped.
 * The slot's bits are below the scheduling order's, so (t, key) sorts as (t, seq) would. */
#define SEQ_BITS (62 - KERNEL_SLOT_BITS)
#define SLOT_MASK ((1ull << KERNEL_SLOT_BITS) - 1)

/* (t, key) in order, compared as one 128-bit key: no branch on the tie. */
static inline bool before(const kernel_key_t *a, const kernel_key_t *b)
{
    return ((unsigned __int128)a->t << 64 | a->key) < ((unsigned __int128)b->t << 64 | b->key);
}

/* Puts e at hole i of the heap, climbing while it precedes its parent. */
static inline void sift_up(kernel_key_t *heap, size_t i, kernel_key_t e)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&e, &heap[parent]))
            break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = e;
}

/* The event that ran (still at the top, kernel_run says why) gives its place to e, which goes down
 * along the smaller children while one precedes it: most events a model schedules while one of its
 * events runs are its next, close at hand, so e rarely goes far. */
static void replace_top(kernel_t *k, kernel_key_t e)
{
    kernel_key_t *heap = k->heap;
    const size_t n = k->n;
    size_t i = 0;
    for (size_t c = 1; c < n; c = 2 * i + 1) {
        if (c + 1 < n && before(&heap[c + 1], &heap[c]))
            c++;
        if (!before(&heap[c], &e))
            break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = e;
}

/* Room for twice as many pending events: the new slots go on the free stack. */
static void grow(kernel_t *k)
{
    const size_t cap = k->cap ? 2 * k->cap : 1024;
    if (cap > (1ull << KERNEL_SLOT_BITS)) {
        fprintf(stderr, "kernel: more than %llu events pending at once\n", 1ull << KERNEL_SLOT_BITS);
        abort();
    }
    kernel_key_t *heap = realloc(k->heap, cap * sizeof *heap);
    if (heap)
        k->heap = heap;
    kernel_slot_t *slot = realloc(k->slot, cap * sizeof *slot);
    if (slot)
        k->slot = slot;
    uint32_t *free_ = realloc(k->free, cap * sizeof *free_);
    if (free_)
        k->free = free_;
    if (!heap || !slot || !free_) {
        fprintf(stderr, "kernel: out of memory\n");
        abort();
    }
    for (size_t i = cap; i > k->cap; i--)
        k->free[k->nfree++] = (uint32_t)(i - 1);
    k->cap = cap;
}

void kernel_init(kernel_t *k) { *k = (kernel_t){0}; }

void kernel_free(kernel_t *k)
{
    worker_free(k->worker);
    free(k->heap);
    free(k->slot);
    free(k->free);
    *k = (kernel_t){0};
}

int kernel_set_threads(kernel_t *k, unsigned n)
{
    if (n < 1 || n > 2) {
        errno = EINVAL;
        return -1;
    }
    if (n == 2 && !k->worker && !(k->worker = worker_create()))
        return -1;
    if (n == 1) {
        worker_free(k->worker);
        k->worker = NULL;
    }
    return 0;
}

void kernel_at(kernel_t *k, uint64_t t, event_fn fn, void *obj, uint64_t arg)
{
    kernel_at_phase(k, t, KERNEL_PHASE_MODEL, fn, obj, arg);
}

/* Schedules fn(obj, arg) at t with key phase << 62 | seq (seq < k->seq: a new one or a reserved one). */
static void schedule(kernel_t *k, uint64_t t, unsigned phase, uint64_t seq, event_fn fn, void *obj, uint64_t arg)
{
    if (t < k->now) {
        fprintf(stderr, "kernel: event scheduled in the past (%llu ps < now %llu ps)\n", (unsigned long long)t,
                (unsigned long long)k->now);
        abort();
    }
    if (k->finishing && t < k->defer_horizon) {
        fprintf(stderr, "kernel: a deferred completion scheduled an event at %llu ps, before its horizon (%llu "
                        "ps): it would run after events it preceded\n", (unsigned long long)t,
                (unsigned long long)k->defer_horizon);
        abort();
    }
    if (k->seq >> SEQ_BITS) {
        fprintf(stderr, "kernel: more than 2^%d events scheduled\n", SEQ_BITS);
        abort();
    }
    hostprof_zone_e prev = hostprof_enter(HOSTPROF_KERNEL);
    if (!k->top_open && k->n == k->cap)
        grow(k);
    const uint32_t sl = k->free[--k->nfree];
    k->slot[sl] = (kernel_slot_t){fn, obj, arg};
    const kernel_key_t e = {t, (uint64_t)phase << 62 | seq << KERNEL_SLOT_BITS | sl};
    if (k->top_open) {
        k->top_open = false;
        replace_top(k, e);
    } else {
        sift_up(k->heap, k->n++, e);
    }
    hostprof_leave(prev);
}

void kernel_at_phase(kernel_t *k, uint64_t t, unsigned phase, event_fn fn, void *obj, uint64_t arg)
{
    schedule(k, t, phase, k->seq++, fn, obj, arg);
}

void kernel_at_seq(kernel_t *k, uint64_t t, uint64_t seq, event_fn fn, void *obj, uint64_t arg)
{
    if (seq >= k->seq) {
        fprintf(stderr, "kernel: an event scheduled with sequence number %llu, not yet reserved\n",
                (unsigned long long)seq);
        abort();
    }
    schedule(k, t, KERNEL_PHASE_MODEL, seq, fn, obj, arg);
}

bool kernel_train_next(kernel_t *k, uint64_t seq, event_fn fn, void *obj, uint64_t arg)
{
    /* The earliest other pending event: the top, or while the running event still holds the top
     * (kernel_run), the smaller of its children. */
    const kernel_key_t *first = NULL;
    if (!k->top_open) {
        if (k->n)
            first = &k->heap[0];
    } else if (k->n > 1) {
        first = &k->heap[1];
        if (k->n > 2 && before(&k->heap[2], first))
            first = &k->heap[2];
    }
    const kernel_key_t me = {k->now, (uint64_t)KERNEL_PHASE_MODEL << 62 | seq << KERNEL_SLOT_BITS};
    if (k->stop || (k->ndeferred && k->defer_horizon <= k->now) || (first && before(first, &me))) {
        kernel_at_seq(k, k->now, seq, fn, obj, arg);
        return false;
    }
    k->events++;
    if (k->on_event)
        k->on_event(k->on_event_obj, &(event_t){k->now, (uint64_t)KERNEL_PHASE_MODEL << 62 | seq, fn, obj, arg});
    return true;
}

void kernel_after(kernel_t *k, uint64_t delay, event_fn fn, void *obj, uint64_t arg)
{
    kernel_at(k, k->now + delay, fn, obj, arg);
}

/* Removes the top. Bottom-up: the hole left by the top goes down along the smaller children to a
 * leaf (one comparison a level), then the last event climbs from there (rarely more than a level:
 * it is one of the latest). About half the comparisons of the usual sift-down; the order of the
 * events is the same, their (t, key) keys being distinct. */
static void drop_top(kernel_t *k)
{
    const kernel_key_t last = k->heap[--k->n];
    const size_t n = k->n;
    if (!n)
        return;
    size_t i = 0;
    for (size_t c = 1; c < n; c = 2 * i + 1) {
        if (c + 1 < n && before(&k->heap[c + 1], &k->heap[c]))
            c++;
        k->heap[i] = k->heap[c];
        i = c;
    }
    sift_up(k->heap, i, last);
}

uint64_t kernel_reserve(kernel_t *k, uint64_t n)
{
    uint64_t first = k->seq;
    k->seq += n;
    return first;
}

uint64_t kernel_use_seq(kernel_t *k, uint64_t seq)
{
    uint64_t prev = k->seq;
    k->seq = seq;
    return prev;
}

void kernel_defer(kernel_t *k, void (*fn)(void *obj), void *obj, uint64_t horizon)
{
    if (horizon <= k->now) {
        fprintf(stderr, "kernel: deferred work's horizon (%llu ps) is not after now (%llu ps)\n",
                (unsigned long long)horizon, (unsigned long long)k->now);
        abort();
    }
    if (k->ndeferred == KERNEL_MAX_DEFERRED) {
        fprintf(stderr, "kernel: more than %u deferred completions at one time\n", KERNEL_MAX_DEFERRED);
        abort();
    }
    if (!k->ndeferred || horizon < k->defer_horizon)
        k->defer_horizon = horizon;
    k->deferred[k->ndeferred++] = (kernel_deferred_t){fn, obj};
}

/* Runs the deferred completions, in the order they were deferred (one may defer another; each
 * schedules nothing before the earliest horizon of those run). */
static void run_deferred(kernel_t *k)
{
    k->finishing = true;
    for (unsigned i = 0; i < k->ndeferred; i++) {
        hostprof_enter(HOSTPROF_MODELS);
        k->deferred[i].fn(k->deferred[i].obj);
        hostprof_enter(HOSTPROF_KERNEL);
    }
    k->finishing = false;
    k->ndeferred = 0;
}

void kernel_run(kernel_t *k, uint64_t until)
{
    hostprof_zone_e outer = hostprof_enter(HOSTPROF_KERNEL);
    k->stop = false;
    for (;;) {
        if (k->ndeferred && (!k->n || k->stop || k->heap[0].t >= k->defer_horizon || k->heap[0].t > until)) {
            run_deferred(k);
            continue;
        }
        if (!k->n || k->stop)
            break;
        if (k->heap[0].t > until) {
            k->now = until;
            hostprof_leave(outer);
            return;
        }
        /* The top stays in the queue while it runs, its slot free again: the first event it
         * schedules takes its place (replace_top), where a pop and a push each went through the
         * heap; if it schedules none, it is removed after. Nothing reads the queue's top while an
         * event runs (kernel_next_time and kernel_pending are for between runs). */
        const kernel_key_t top = k->heap[0];
        const kernel_slot_t e = k->slot[top.key & SLOT_MASK];
        k->free[k->nfree++] = (uint32_t)(top.key & SLOT_MASK);
        k->top_open = true;
        k->now = top.t;
        k->events++;
        if (k->on_event) {
            const uint64_t seq = (top.key >> 62) << 62 | (top.key & ~(3ull << 62)) >> KERNEL_SLOT_BITS;
            k->on_event(k->on_event_obj, &(event_t){top.t, seq, e.fn, e.obj, e.arg});
        }
        hostprof_enter(HOSTPROF_MODELS);
        e.fn(e.obj, e.arg);
        hostprof_enter(HOSTPROF_KERNEL);
        if (k->top_open) {
            k->top_open = false;
            drop_top(k);
        }
    }
    if (!k->n && !k->stop && until != UINT64_MAX && k->now < until)
        k->now = until;
    hostprof_leave(outer);
}

void kernel_stop(kernel_t *k) { k->stop = true; }

uint64_t kernel_next_time(const kernel_t *k) { return k->n ? k->heap[0].t : UINT64_MAX; }

size_t kernel_pending(const kernel_t *k) { return k->n; }

clock_domain_t clock_domain(const char *name, uint64_t freq_hz)
{
    uint64_t a = PS_PER_S, b = freq_hz;
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    const uint64_t num = PS_PER_S / a, den = freq_hz / a;
    return (clock_domain_t){name, freq_hz, num, den, UINT64_MAX / num, UINT64_MAX / den};
}

uint64_t clock_period_ps(const clock_domain_t *c) { return (PS_PER_S + c->freq_hz / 2) / c->freq_hz; }
