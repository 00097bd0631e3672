/* What a core running a DIKTAMO protocol asks of its CN's replication engine (DIKTAMO §IV-A): the
 * real one is csim/cn/cn_repl.c (REPLs, REPL_ACKs and VALs through the fabric to the replica
 * Logging Units); tests plug in their own (tb/test_core.c: random acknowledgement delays).
 *
 * One store-buffer entry's replication: send() sends its REPL set (the entry's words of one remote
 * line), acked() runs once every replica holds them (from a kernel event, never inside send),
 * then, after the entry has committed, val() sends the VALs with the line's version after the
 * commit. A core's entries are replicated in program order, several at a time (proactive). */
#ifndef CN_REPL_IF_H
#define CN_REPL_IF_H

#include <stdbool.h>
#include <stdint.h>

/** send's answer when it refuses an early REPL set. */
#define REPL_REFUSED UINT32_MAX

/** Every REPL_ACK of the caller's entry `tag` is in (acked true). acked false: the engine takes it
 *  back (a replica failed after acknowledging, and its replacement has just been sent the REPL
 *  set): the entry must wait for a next acked(true) before it commits; the answer says whether it
 *  will (false: it is on its way to commit already; the engine then sends the replacement's VAL
 *  only once it has acknowledged). Ignored when acked is true. */
typedef bool (*repl_acked_fn)(void *obj, uint64_t tag, bool acked);

typedef struct repl_if {
    void *obj;
    /** Sends the REPL set of core's entry: the words of mask (bit i = word i of words) of the global
     *  line gline. acked(aobj, tag) later. Returns the entry's handle for val. An early set (not
     *  the store buffer's head: proactive) may be refused, REPL_REFUSED, nothing sent; the entry
     *  then sends at the head, which is never refused. */
    uint32_t (*send)(void *obj, unsigned core, uint64_t gline, uint8_t mask, const uint64_t *words, bool early,
                     repl_acked_fn acked, void *aobj, uint64_t tag);
    /** Entry h has committed with the line's version `version`: the VALs go; h is free. */
    void (*val)(void *obj, uint32_t h, unsigned version);
    /** Entry h, sent early, has become its store buffer's head (before its commit): what the engine
     *  held back for the head leaves now. NULL: an engine that holds nothing back. */
    void (*head)(void *obj, uint32_t h);
} repl_if_t;

#endif
