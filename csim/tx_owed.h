/* The send credits a block's driver owes it (dir_drv, lu_drv): the messages of each class the
 * block sent and its link partner consumed, whose credits go back one per class per cycle. Kept
 * with a mask of the classes owed any, so that a cycle looks at those only. */
#ifndef TX_OWED_H
#define TX_OWED_H

#include <stdint.h>

#include "msg_defs.h"
#include "rng.h"

typedef struct tx_owed {
    unsigned n[MSG_NUM_CLASSES]; /* credits owed per class */
    uint32_t cls;                /* bit c: n[c] is not 0 */
} tx_owed_t;

/** each credits owed in every class (those the block starts with, granted over its first cycles). */
static inline void tx_owed_init(tx_owed_t *o, unsigned each)
{
    for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
        o->n[c] = each;
    o->cls = each ? (1u << MSG_NUM_CLASSES) - 1u : 0;
}

/** One credit more owed in class c. */
static inline void tx_owed_add(tx_owed_t *o, msg_class_t c)
{
    o->n[c]++;
    o->cls |= 1u << c;
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
