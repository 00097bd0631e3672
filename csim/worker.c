#define _DEFAULT_SOURCE /* syscall() for the futex */
#include "worker.h"

#include "hostprof.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Spins before sleeping: long enough for one evaluation of the largest model (tens of
 * microseconds), with a yield every YIELD_EVERY turns, so that a thread waiting for one that shares
 * its core (a loaded machine) lets it run instead of spinning out its time slice. */
#define SPINS 8192u
#define YIELD_EVERY 64u

struct worker {
    pthread_t thread;
    void (*fn)(void *arg);
    void *arg;
    /* Each on its own cache line: the owner writes posted and reads done, the worker the reverse. */
    _Alignas(64) uint32_t posted;  /* jobs posted (the futex the worker sleeps on) */
    uint32_t quit;
    uint32_t worker_asleep;
    _Alignas(64) uint32_t done;    /* jobs finished (the futex the owner sleeps on) */
    uint32_t owner_asleep;
    _Alignas(64) uint32_t seen;    /* the owner's: jobs it waited for */
};

static void futex_wait(uint32_t *addr, uint32_t val)
{
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(uint32_t *addr) { syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }

static inline void relax(void) { __builtin_ia32_pause(); }

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
        if (i % YIELD_EVERY == 0)
            sched_yield();
        else
            relax();
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

/* Publishes *addr = v and wakes the other side if it sleeps on it. */
static void publish(uint32_t *addr, uint32_t v, uint32_t *asleep)
{
    __atomic_store_n(addr, v, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(asleep, __ATOMIC_SEQ_CST))
        futex_wake(addr);
}

static void *run(void *arg)
{
    worker_t *w = arg;
    sigset_t set;
    sigfillset(&set);
    sigdelset(&set, SIGPROF);
    sigdelset(&set, SIGSEGV);
    sigdelset(&set, SIGBUS);
    sigdelset(&set, SIGFPE);
    sigdelset(&set, SIGILL);
    sigdelset(&set, SIGABRT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    uint32_t ran = 0;
    for (;;) {
        await_change(&w->posted, ran, &w->worker_asleep);
        if (__atomic_load_n(&w->quit, __ATOMIC_ACQUIRE))
            return NULL;
        ran++;
        w->fn(w->arg);
        publish(&w->done, ran, &w->owner_asleep);
    }
}

worker_t *worker_create(void)
{
    worker_t *w = aligned_alloc(64, (sizeof(worker_t) + 63) / 64 * 64);
    if (!w)
        return NULL;
    *w = (worker_t){0};
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
    worker_wait(w);
    __atomic_store_n(&w->quit, 1, __ATOMIC_RELEASE);
    publish(&w->posted, w->seen + 1, &w->worker_asleep);
    pthread_join(w->thread, NULL);
    free(w);
}

void worker_post(worker_t *w, void (*fn)(void *arg), void *arg)
{
    if (worker_busy(w)) {
        fprintf(stderr, "worker: a job posted while one is in progress\n");
        abort();
    }
    w->fn = fn;
    w->arg = arg;
    publish(&w->posted, w->seen + 1, &w->worker_asleep);
}

void worker_wait(worker_t *w)
{
    uint32_t posted = __atomic_load_n(&w->posted, __ATOMIC_RELAXED);
    if (w->seen == posted)
        return;
    uint32_t d = __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
    while (d != posted)
        d = await_change(&w->done, d, &w->owner_asleep);
    w->seen = posted;
}

bool worker_busy(const worker_t *w) { return w->seen != __atomic_load_n(&w->posted, __ATOMIC_RELAXED); }
