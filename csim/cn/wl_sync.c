/* Locks and barriers of the simulated threads (csim/cn/wl_api.h), built only on the thread API so
 * that they run unchanged on the core model and on the functional runner. */
#include "cn/wl_api.h"

/* Back-off between two polls of a busy lock or barrier: a few instructions, as a pause loop
 * costs, so that a spinning core does not flood its L1 with loads; doubled after each lost CAS
 * (a contended lock) up to SPIN_MAX. */
#define SPIN_MIN 4u
#define SPIN_MAX 64u

void wl_lock(wl_thread_t *t, uint64_t lock)
{
    uint64_t backoff = SPIN_MIN;
    /* Test-and-test-and-set: spin on plain loads (a shared copy in the cache, no traffic while the
     * lock is held), try the CAS only when the lock looks free. The owner's tid + 1 is written so
     * that a lock word's history (oracle, waves) shows who held it. */
    for (;;) {
        while (wl_ld(t, lock) != 0)
            wl_compute(t, backoff);
        if (wl_cas(t, lock, 0, (uint64_t)t->tid + 1) == 0)
            return;
        if (backoff < SPIN_MAX)
            backoff *= 2;
    }
}

void wl_unlock(wl_thread_t *t, uint64_t lock)
{
    /* A plain store releases under TSO: the critical section's stores are ordered before it. */
    wl_st(t, lock, 0);
}

void wl_barrier(wl_thread_t *t, uint64_t bar, unsigned n, unsigned *sense)
{
    const uint64_t count = bar, flag = bar + WL_BARRIER_BYTES / 2;
    *sense ^= 1u;
    /* The fadd drains this thread's store buffer: its stores of the phase are visible before it
     * counts itself in. */
    if (wl_fadd(t, count, 1) + 1 == n) {
        /* Last arriver: reset the count before flipping the sense (TSO keeps the two stores in
         * order), so that nobody released can count into the next phase before the reset. */
        wl_st(t, count, 0);
        wl_st(t, flag, *sense);
        return;
    }
    while (wl_ld(t, flag) != *sense)
        wl_compute(t, SPIN_MIN);
}
