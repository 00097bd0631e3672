/* The simulation kernel: time in picoseconds, an event queue, and clock domains.
 *
 * Time is a 64-bit count of picoseconds (about 213 days of simulated time). Events at the same time
 * run in the order they were scheduled, so a run is a deterministic function of its seed.
 * Clock domains have their own frequencies; edge k of a domain is at floor(k * 1e12 / freq_hz) ps,
 * which keeps the average frequency exact (2.4 GHz does not drift to 417 ps per cycle). */
#ifndef KERNEL_H
#define KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_PER_NS 1000ull
#define PS_PER_US 1000000ull
#define PS_PER_MS 1000000000ull
#define PS_PER_S 1000000000000ull

/** What an event does: fn(obj, arg) at its time. */
typedef void (*event_fn)(void *obj, uint64_t arg);

/* Events at one time run clock edges first, then everything else; within a phase, in the order
 * they were scheduled. Running edges first makes a model clocked at an edge see exactly the inputs
 * that arrived before that time, whether or not idle cycles were skipped (see fabric.c). */
enum { KERNEL_PHASE_EDGE = 0, KERNEL_PHASE_MODEL = 1 };

typedef struct event {
    uint64_t t;   /* ps */
    uint64_t seq; /* (phase << 62) | scheduling order: ties at one time run in this order */
    event_fn fn;
    void *obj;
    uint64_t arg;
} event_t;

/** Work a model left unfinished at the current time: run before any event at its horizon or later
 *  (kernel_defer). */
typedef struct kernel_deferred {
    void (*fn)(void *obj);
    void *obj;
} kernel_deferred_t;

#define KERNEL_MAX_DEFERRED 8 /* one per model whose edges are offloaded (offload.h: the fabric) */

/* An event in the queue: its time and one key that orders it and names its slot (kernel.c). */
typedef struct kernel_key {
    uint64_t t;   /* ps */
    uint64_t key; /* (phase << 62) | (scheduling order << KERNEL_SLOT_BITS) | slot */
} kernel_key_t;

/* What an event runs, in the slot its key names. */
typedef struct kernel_slot {
    event_fn fn;
    void *obj;
    uint64_t arg;
} kernel_slot_t;

#define KERNEL_SLOT_BITS 20 /* at most 2^20 events pending at once */

typedef struct kernel {
    uint64_t now;        /* ps: time of the event being run (or of the last one) */
    kernel_key_t *heap;  /* binary min-heap on (t, key), that is on (t, seq) */
    kernel_slot_t *slot; /* what each pending event runs, by slot */
    uint32_t *free;      /* the free slots (a stack) */
    size_t n, cap, nfree;
    uint64_t seq;        /* next sequence number */
    uint64_t events;     /* events run so far */
    bool stop;           /* set by kernel_stop(): kernel_run returns after the current event */
    kernel_deferred_t deferred[KERNEL_MAX_DEFERRED]; /* to run before the horizon, in this order */
    unsigned ndeferred;
    uint64_t defer_horizon; /* the earliest horizon of the deferred work (kernel_defer) */
    void (*on_event)(void *obj, const event_t *e); /* if set, told of every event before it runs */
    void *on_event_obj;                            /* (tests compare runs event for event) */
    struct worker *worker; /* the second host thread (kernel_set_threads), or NULL */
    bool finishing;        /* running deferred completions */
    bool top_open;         /* the event running is still at the top of the heap, its slot free: the
                            * first event scheduled takes its place (kernel_run) */
} kernel_t;

void kernel_init(kernel_t *k);
/** Frees the queue (and the worker thread, if any). */
void kernel_free(kernel_t *k);
/** Host threads the models' evaluations may use: 1, or 2 (a worker thread, worker.h, that the
 *  models hand their evaluations at an edge: offload.h). 0, or -1 with errno. */
int kernel_set_threads(kernel_t *k, unsigned n);
/** Schedules fn(obj, arg) at time t (ps, t >= now), in the model phase. */
void kernel_at(kernel_t *k, uint64_t t, event_fn fn, void *obj, uint64_t arg);
/** Schedules fn(obj, arg) at time t in the given phase (KERNEL_PHASE_*). */
void kernel_at_phase(kernel_t *k, uint64_t t, unsigned phase, event_fn fn, void *obj, uint64_t arg);
/** Schedules fn(obj, arg) at time t in the model phase with sequence number seq, one kernel_reserve
 *  handed out and no event has used: it sorts among the events of its time as if scheduled when seq
 *  was reserved. */
void kernel_at_seq(kernel_t *k, uint64_t t, uint64_t seq, event_fn fn, void *obj, uint64_t arg);
/** For an event that runs a train: actions at its own time in the model phase, each with a sequence
 *  number reserved for it (kernel_reserve), in increasing order, the first the event's own. Before
 *  each next action: true when it may run now, the kernel having nothing before it (no pending
 *  event sorts first, no deferred work is due, kernel_stop was not called); the action then counts
 *  as an event of its own and is told to on_event as fn(obj, arg). Else false: fn(obj, arg) is
 *  scheduled now with sequence number seq, to run the rest of the train from there. Either way the
 *  actions run as they would have as events of their own, one kernel event instead of one each. */
bool kernel_train_next(kernel_t *k, uint64_t seq, event_fn fn, void *obj, uint64_t arg);
/** Schedules fn(obj, arg) delay ps from now. */
void kernel_after(kernel_t *k, uint64_t delay, event_fn fn, void *obj, uint64_t arg);
/** Runs events in time order until none is left, the next is later than until (ps), or
 *  kernel_stop() is called. Leaves now at the last event run, or at until when time ran out. */
void kernel_run(kernel_t *k, uint64_t until);
/** Reserves n sequence numbers at the current point of the scheduling order and returns the first:
 *  events scheduled later with them (kernel_use_seq) sort among those of their time as if they had
 *  been scheduled now. */
uint64_t kernel_reserve(kernel_t *k, uint64_t n);
/** Makes seq the next sequence number; returns the one it replaces (to be put back the same way). */
uint64_t kernel_use_seq(kernel_t *k, uint64_t seq);
/** Runs fn(obj) before kernel_run runs an event at horizon (ps, > now) or later, and before it
 *  returns; the events of the times before horizon run meanwhile. A model whose work at this time
 *  finishes on another thread (offload.h) completes it there; the events it then schedules take
 *  sequence numbers it reserved (kernel_reserve), so the run is the one it would have been had the
 *  work finished at once, provided nothing that runs before horizon reads what the work writes and
 *  fn schedules nothing before horizon (such an event would run after events it preceded: the
 *  kernel stops the run). fn runs once. */
void kernel_defer(kernel_t *k, void (*fn)(void *obj), void *obj, uint64_t horizon);
/** Makes kernel_run return after the event that is running. */
void kernel_stop(kernel_t *k);
/** Time of the earliest pending event, or UINT64_MAX when none. */
uint64_t kernel_next_time(const kernel_t *k);
/** Number of pending events. */
size_t kernel_pending(const kernel_t *k);

/** A clock domain (made by clock_domain). Its period is the reduced fraction num / den ps (1 GHz:
 *  1000 / 1; 2.4 GHz: 1250 / 3), so that edge k, floor(k * 1e12 / f), is floor(k * num / den) in
 *  64-bit arithmetic (128-bit only where k * num or t * den would not fit). */
typedef struct clock_domain {
    const char *name;
    uint64_t freq_hz;
    uint64_t num, den;
    uint64_t cycle_max, t_max; /* UINT64_MAX / num, UINT64_MAX / den: the 64-bit products' bounds */
} clock_domain_t;

/** The clock domain name of freq_hz (> 0). */
clock_domain_t clock_domain(const char *name, uint64_t freq_hz);

/** Time (ps) of rising edge number cycle. (Inline, as the next one: the models ask them at every
 *  wake, millions of times a run, and their bounds are worked out once, by clock_domain, not
 *  divided out at each call.) */
static inline uint64_t clock_edge(const clock_domain_t *c, uint64_t cycle)
{
    if (cycle <= c->cycle_max)
        return c->den == 1 ? cycle * c->num : cycle * c->num / c->den;
    return (uint64_t)((unsigned __int128)cycle * c->num / c->den);
}

/** Smallest cycle number whose edge is at or after t (ps): the first k with floor(k * num / den)
 *  >= t, that is k * num / den >= t: ceil(t * den / num). */
static inline uint64_t clock_cycle_at_or_after(const clock_domain_t *c, uint64_t t)
{
    if (t <= c->t_max) {
        const uint64_t x = t * c->den;
        return x / c->num + (x % c->num != 0);
    }
    const unsigned __int128 x = (unsigned __int128)t * c->den;
    return (uint64_t)(x / c->num + (x % c->num != 0));
}
/** Period rounded to the nearest ps (for display and wave files). */
uint64_t clock_period_ps(const clock_domain_t *c);

#endif
