/* Locks and barriers of the simulated threads (csim/cn/wl_api.h), built only on the thread API so
 * that they run unchanged on the core model and on the functional runner. Each marks its accesses
 * as synchronization (wl_thread_t.sync) while it runs. */
#include "cn/wl_api.h"

/* Back-off between two polls of a busy lock or barrier: a few instructions, as a pause loop
 * costs, so that a spinning core does not flood its L1 with loads; doubled after each lost CAS
 * (a contended lock) up to SPIN_MAX. */
#define SPIN_MIN 4u
#define SPIN_MAX 64u

/* A lock, unlock or barrier starts: its accesses are synchronization from here; the time it starts. */
static uint64_t sync_enter(wl_thread_t *t)
{
    const uint64_t t0 = wl_now(t);
    t->sync = true;
    return t0;
}

/* It ends: its time since t0 counts in the thread's sync_ps. */
static void sync_leave(wl_thread_t *t, uint64_t t0)
{
    t->sync = false;
    t->sync_ps += wl_now(t) - t0;
}

bool wl_lock(wl_thread_t *t, uint64_t lock)
{
    const uint64_t t0 = sync_enter(t);
    uint64_t backoff = SPIN_MIN;
    /* Test-and-test-and-set: spin on plain loads (a shared copy in the cache, no traffic while the
     * lock is held), try the CAS only when the lock looks free, or held by a lost thread. The
     * owner's tid + 1 is written so that a lock word's history (oracle, waves) shows who held it. */
    for (;;) {
        uint64_t v;
        while ((v = wl_ld(t, lock)) != 0 && wl_alive(t, (unsigned)(v - 1)))
            wl_compute(t, backoff);
        if (wl_cas(t, lock, v, (uint64_t)t->tid + 1) == v) {
            sync_leave(t, t0);
            return v != 0;
        }
        if (backoff < SPIN_MAX)
            backoff *= 2;
    }
}

void wl_unlock(wl_thread_t *t, uint64_t lock)
{
    /* A plain store releases under TSO: the critical section's stores are ordered before it. */
    const uint64_t t0 = sync_enter(t);
    wl_st(t, lock, 0);
    sync_leave(t, t0);
}

void wl_barrier(wl_thread_t *t, uint64_t bar, unsigned n, unsigned *phase)
{
    const uint64_t line = WL_BARRIER_BYTES / 4;
    const uint64_t released = bar; /* phases released so far */
    const unsigned p = (*phase)++;
    const uint64_t mine = bar + line * (1 + p % 3), after_next = bar + line * (1 + (p + 2) % 3);
    const uint64_t group = n >= 64 ? ~0ull : (1ull << n) - 1;
    const uint64_t t0 = sync_enter(t);
    /* The fadd drains this thread's store buffer: its stores of the phase are visible before it
     * counts itself in. */
    uint64_t a = wl_fadd(t, mine, 1ull << t->tid) | 1ull << t->tid;
    for (;;) {
        if (wl_ld(t, released) != p) {
            sync_leave(t, t0);
            return;
        }
        uint64_t need = group & (t->live ? *t->live : ~0ull);
        if ((a & need) == need) {
            /* Everyone alive is in: release. The mask of phase p + 2 is zeroed first (its last use,
             * phase p - 1, is over; its next, p + 2, cannot start before p + 1 is released, which
             * needs this thread); TSO keeps the store before the CAS, which moves the phase on
             * once, whoever else tries it too. */
            wl_st(t, after_next, 0);
            wl_cas(t, released, p, (uint64_t)p + 1);
            sync_leave(t, t0);
            return;
        }
        wl_compute(t, SPIN_MIN);
        a = wl_ld(t, mine);
    }
}
