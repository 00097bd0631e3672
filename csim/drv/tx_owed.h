/* The send credits a block's driver owes it (dir_drv, lu_drv): the messages of each class the
 * block sent and its link partner consumed, whose credits go back one per class per cycle. Kept
 * with a mask of the classes owed any, so that a cycle looks at those only. */
#ifndef TX_OWED_H
#define TX_OWED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/rng.h"
#include "msg_defs.h"

typedef struct tx_owed {
    unsigned n[MSG_NUM_CLASSES]; /* credits owed per class */
    uint32_t cls;                /* bit c: n[c] is not 0 */
    /* Asleep (tx_owed_sleep): the block's edges are skipped, and the credits owed are taken at them
     * all the same, one of each class a cycle, as they would have been at clocked ones: at[c] is
     * the cycle whose edge takes class c's next one (while n[c] is not 0), skipped[c] those the
     * edges skipped so far took, which the block is told at its next clocked edge (tx_owed_wake). */
    bool asleep;
    uint64_t at[MSG_NUM_CLASSES];
    unsigned skipped[MSG_NUM_CLASSES];
} tx_owed_t;

/* The words of a block's tx_crd_skip_i: 8 bits a class (rtl/common/link_tx.sv). */
#define TX_OWED_SKIP_WORDS ((MSG_NUM_CLASSES * 8 + 31) / 32)

/** each credits owed in every class (those the block starts with, granted over its first cycles). */
static inline void tx_owed_init(tx_owed_t *o, unsigned each)
{
    *o = (tx_owed_t){0};
    for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
        o->n[c] = each;
    o->cls = each ? (1u << MSG_NUM_CLASSES) - 1u : 0;
}

/* Asleep: the skipped edges before cycle take class c's credits owed, one a cycle. */
static inline void tx_owed_skip_(tx_owed_t *o, unsigned c, uint64_t cycle)
{
    if (!o->n[c] || o->at[c] >= cycle)
        return;
    const uint64_t k = cycle - o->at[c] < o->n[c] ? cycle - o->at[c] : o->n[c];
    o->skipped[c] += (unsigned)k;
    o->at[c] += k;
    if (!(o->n[c] -= (unsigned)k))
        o->cls &= ~(1u << c);
}

/** One credit more owed in class c, which the next edge can take. */
static inline void tx_owed_add(tx_owed_t *o, msg_class_t c)
{
    o->n[c]++;
    o->cls |= 1u << c;
}

/** One credit more owed in class c, which the edge of cycle (the block's next one) can take;
 *  asleep, the skipped edges before it take what they would have first. */
static inline void tx_owed_add_at(tx_owed_t *o, msg_class_t c, uint64_t cycle)
{
    if (o->asleep) {
        tx_owed_skip_(o, c, cycle);
        if (!o->n[c])
            o->at[c] = cycle;
    }
    tx_owed_add(o, c);
}

/** The block sleeps from the edge of cycle on: its edges are skipped until tx_owed_wake, and the
 *  credits owed are taken at them as at clocked ones (it has nothing to send, so they only add to
 *  its counts). */
static inline void tx_owed_sleep(tx_owed_t *o, uint64_t cycle)
{
    o->asleep = true;
    for (uint32_t owed = o->cls; owed; owed &= owed - 1)
        o->at[__builtin_ctz(owed)] = cycle;
}

/** The block's edge of cycle is clocked: the credits the edges skipped before it took, into skip
 *  (its tx_crd_skip_i: 8 bits a class; all 0 when it was awake), the rest owed from this edge on. */
static inline void tx_owed_wake(tx_owed_t *o, uint64_t cycle, uint32_t skip[TX_OWED_SKIP_WORDS])
{
    for (unsigned w = 0; w < TX_OWED_SKIP_WORDS; w++)
        skip[w] = 0;
    if (!o->asleep)
        return;
    o->asleep = false;
    for (unsigned c = 0; c < MSG_NUM_CLASSES; c++) {
        tx_owed_skip_(o, c, cycle);
        if (o->skipped[c] > 255) {
            fprintf(stderr, "tx_owed: %u credits of class %u in skipped cycles (at most 255)\n", o->skipped[c], c);
            abort();
        }
        skip[c / 4] |= o->skipped[c] << 8 * (c % 4);
        o->skipped[c] = 0;
    }
}

/** This cycle's credits back (bit per class): one of each class owed, in class order, each held
 *  back with chance stall (a draw from r per class owed when stall > 0). */
static inline uint32_t tx_owed_take(tx_owed_t *o, rng_t *r, double stall)
{
    uint32_t back = 0;
    for (uint32_t owed = o->cls; owed; owed &= owed - 1) {
        const unsigned c = (unsigned)__builtin_ctz(owed);
        if (stall > 0 && rng_chance(r, stall))
            continue;
        back |= 1u << c;
        if (!--o->n[c])
            o->cls &= ~(1u << c);
    }
    return back;
}

#endif
