#define _DEFAULT_SOURCE /* syscall() for the futex */
#include "base/worker.h"

#include "base/hostprof.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Spins before sleeping: long enough for one evaluation of the largest model (tens of
 * microseconds), yielding now and then (worker_spin). */
#define SPINS 8192u

typedef struct job {
    void (*fn)(void *arg);
    void *arg;
    uint64_t ticket;
    uint64_t done; /* above a ticket once that ticket's job is done (slots are reused) */
} job_t;

struct worker {
    pthread_t thread;
    job_t jobs[WORKER_MAX_JOBS];
    uint64_t tickets;              /* the owner's: jobs posted so far */
    /* Shared counters (modulo 2^32), each on its own cache line. */
    _Alignas(64) uint32_t posted;  /* jobs posted (the futex the worker sleeps on) */
    uint32_t worker_asleep;
    _Alignas(64) uint32_t taken;   /* jobs taken by either thread */
    _Alignas(64) uint32_t finished; /* jobs finished (the futex the owner sleeps on) */
    uint32_t owner_asleep;
};

static void futex_wait(uint32_t *addr, uint32_t val)
{
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(uint32_t *addr) { syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }

/* Waits until *addr != val, spinning first, then sleeping with *asleep set (the other side wakes a
 * sleeper after it changes *addr; both use sequentially consistent accesses, so either the sleeper
 * sees the change or the changer sees it asleep). Returns the new value. */
static uint32_t await_change(uint32_t *addr, uint32_t val, uint32_t *asleep)
{
    hostprof_zone_e prev = hostprof_enter(HOSTPROF_WAIT);
    uint32_t v = val;
    for (unsigned i = 1; i <= SPINS && v == val; i++) {
        v = __atomic_load_n(addr, __ATOMIC_ACQUIRE);
        if (v != val)
            break;
        worker_spin(i);
    }
    while (v == val) {
        __atomic_store_n(asleep, 1, __ATOMIC_SEQ_CST);
        v = __atomic_load_n(addr, __ATOMIC_SEQ_CST);
        if (v == val) {
            futex_wait(addr, val);
            v = __atomic_load_n(addr, __ATOMIC_ACQUIRE);
        }
        __atomic_store_n(asleep, 0, __ATOMIC_RELAXED);
    }
    hostprof_leave(prev);
    return v;
}

/* Makes *addr = v visible and wakes the other side if it sleeps on it. */
static void publish(uint32_t *addr, uint32_t v, uint32_t *asleep)
{
    __atomic_store_n(addr, v, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(asleep, __ATOMIC_SEQ_CST))
        futex_wake(addr);
}

/* Takes job number t (modulo 2^32) if no thread has; true when this thread is to run it. */
static bool take(worker_t *w, uint32_t t)
{
    return __atomic_compare_exchange_n(&w->taken, &t, t + 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/* Runs job number t and marks it done. */
static void run_job(worker_t *w, uint32_t t)
{
    job_t *j = &w->jobs[t % WORKER_MAX_JOBS];
    j->fn(j->arg);
    __atomic_store_n(&j->done, j->ticket + 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&w->finished, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&w->owner_asleep, __ATOMIC_SEQ_CST))
        futex_wake(&w->finished);
}

void worker_block_signals(void)
{
    sigset_t set;
    sigfillset(&set);
    sigdelset(&set, SIGPROF);
    sigdelset(&set, SIGSEGV);
    sigdelset(&set, SIGBUS);
    sigdelset(&set, SIGFPE);
    sigdelset(&set, SIGILL);
    sigdelset(&set, SIGABRT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void *run(void *arg)
{
    worker_t *w = arg;
    worker_block_signals();
    for (;;) {
        uint32_t t = __atomic_load_n(&w->taken, __ATOMIC_ACQUIRE);
        uint32_t p = __atomic_load_n(&w->posted, __ATOMIC_ACQUIRE);
        if (t == p) {
            await_change(&w->posted, p, &w->worker_asleep);
            continue;
        }
        if (!take(w, t))
            continue;
        if (!w->jobs[t % WORKER_MAX_JOBS].fn)
            return NULL; /* worker_free's last job */
        run_job(w, t);
    }
}

worker_t *worker_create(void)
{
    worker_t *w = aligned_alloc(64, (sizeof(worker_t) + 63) / 64 * 64);
    if (!w)
        return NULL;
    memset(w, 0, sizeof *w);
    int e = pthread_create(&w->thread, NULL, run, w);
    if (e) {
        free(w);
        errno = e;
        return NULL;
    }
    return w;
}

void worker_free(worker_t *w)
{
    if (!w)
        return;
    if (w->tickets)
        worker_wait(w, w->tickets - 1);
    worker_post(w, NULL, NULL); /* the worker stops at it */
    pthread_join(w->thread, NULL);
    free(w);
}

uint64_t worker_post(worker_t *w, void (*fn)(void *arg), void *arg)
{
    const uint64_t ticket = w->tickets;
    if (ticket >= WORKER_MAX_JOBS)
        worker_wait(w, ticket - WORKER_MAX_JOBS); /* its slot is free */
    job_t *j = &w->jobs[ticket % WORKER_MAX_JOBS];
    j->fn = fn;
    j->arg = arg;
    j->ticket = ticket;
    w->tickets = ticket + 1;
    publish(&w->posted, (uint32_t)w->tickets, &w->worker_asleep);
    return ticket;
}

bool worker_done(const worker_t *w, uint64_t ticket)
{
    return __atomic_load_n(&w->jobs[ticket % WORKER_MAX_JOBS].done, __ATOMIC_ACQUIRE) > ticket;
}

void worker_wait(worker_t *w, uint64_t ticket)
{
    while (!worker_done(w, ticket)) {
        /* A job queued up to this one and not taken yet: run it here rather than wait. */
        uint32_t t = __atomic_load_n(&w->taken, __ATOMIC_ACQUIRE);
        if ((uint32_t)((uint32_t)ticket - t) < 0x80000000u && t != (uint32_t)w->tickets) {
            if (take(w, t))
                run_job(w, t);
            continue;
        }
        uint32_t f = __atomic_load_n(&w->finished, __ATOMIC_SEQ_CST);
        if (!worker_done(w, ticket))
            await_change(&w->finished, f, &w->owner_asleep);
    }
}
