/* The replication engine of one compute node (DIKTAMO §IV-A, §IV-C): what the CN's cores ask when
 * a store-buffer entry must be replicated before it commits. One entry's replication is
 *   REPL   (class DKREQ) with the entry's words to each replica LU of its line, then
 *   REPL_ACK from every one of them (the words are in the replica's log buffer): acked(),
 *   VAL    (class DKRSP) to the same replicas once the entry has committed, with the line's version
 *          after the commit (the TS, docs/architecture.md section 11b).
 * The replica set of a line is lu_map_replicas() (csim/cn/lu_map.h, section 11f): the owner of the
 * line's hash bucket and the Nr - 1 live CNs after it; the writer may be one of them (its own LU gets the
 * REPL through the switch like any other). Messages go out through the CN's shared port
 * (csim/cn/cn_port, user CN_PORT_REPL), in order per class, waiting there for credits.
 *
 * Tags. The LU matches a VAL to its REPL by (requester CN, core, tag, line), so a tag is unique per
 * (CN, core) while its entry is outstanding (REPL sent, VAL not yet): each core has its own tag
 * space of 2^MSG_TAG_W tags, handed out round-robin (a core has at most its store queue's entries
 * outstanding, far fewer).
 *
 * Early REPL sets (proactive: an entry not yet at its core's store-buffer head) hold places in the
 * replicas' buffers while older stores still have to commit. A replica's full buffer holds back
 * every later REPL, also a head's, and a head that cannot be acknowledged keeps the younger entries
 * of its core from committing, so early sets could fill a buffer with entries that wait for a head
 * the buffer refuses (docs/architecture.md section 11b). The engine therefore gives each CN a share
 * of every replica's buffer for early sets (early_sets slots and early_words word entries, what
 * the buffer has beyond one full REPL set per core of the system, split over the CNs: the system
 * computes it) and refuses an early set that would exceed it on any of its replicas; the entry then
 * sends at the head, where sets are never refused. With lu.head_reserve = none the system gives no
 * bound (UINT_MAX): early sets are limited by the store buffers only, as in the paper, and a buffer
 * full of early sets can hold a head back for good (the stall detector reports it).
 *
 * Queries. The share counts an early set until its VALs leave, but a replica frees its places only
 * when its words drain, and a validated word waits there behind any unvalidated REPL of the word
 * that may be older (its VAL in flight), often a younger early set of the same core whose store
 * waits behind a head that needs room in that very buffer. While a REPL waits for room, the LU asks
 * the CN of such a REPL whether its store has committed (REPL_QUERY); the engine answers at once
 * (REPL_QUERY_RESP, PENDING when not), and the LU's validated words no longer wait for it
 * (docs/architecture.md section 11b).
 *
 * Statistics under the name: repl_msgs, repl_bytes, repl_acks, val_msgs, val_bytes (bytes as a link
 * carries them: msg_bytes), early_refused, early_sets_max and early_words_max (the most early sets,
 * and words, not yet validated toward one replica at a time: within the share, or what none lets the
 * buffers hold), held_for_head (REPLs to a failed replica's replacement held for the head), queries and queries_pending (REPL_QUERYs answered, and answered PENDING), and
 * repl_rtt_ns (first REPL sent to last REPL_ACK in, a histogram). */
#ifndef CN_REPL_H
#define CN_REPL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/kernel.h"
#include "base/stats.h"
#include "cn/cn_port.h"
#include "cn/lu_map.h"
#include "cn/repl_if.h"

#define CN_REPL_ERR_MAX 256

typedef struct cn_repl_params {
    unsigned cn;      /* this CN (node id) */
    unsigned num_cn;  /* CNs in the system */
    unsigned cores;   /* cores of this CN (1 .. 2^MSG_CORE_ID_W) */
    unsigned nr;      /* replicas per line, 1 .. num_cn */
    const lu_map_t *map; /* the replica map (csim/cn/lu_map.h; the caller's, read at every send) */
    unsigned early_sets, early_words; /* per replica LU: early REPL sets (and their words) this CN may
                                         have not yet validated; 0: no early sets */
    const char *name; /* statistics prefix, e.g. "cn3.repl" */
} cn_repl_params_t;

typedef struct cn_repl cn_repl_t;


/** The engine of CN p->cn on its port (attaches itself as CN_PORT_REPL). NULL and one line in err
 *  (CN_REPL_ERR_MAX bytes) when the parameters are impossible. */
cn_repl_t *cn_repl_create(kernel_t *k, cn_port_t *port, const cn_repl_params_t *p, stats_t *st, char *err);
void cn_repl_free(cn_repl_t *r);

/** Replicates one store-buffer entry of `core`: the words of mask (bit i = word i of words) of the
 *  global line `gline`. acked(obj, tag, true) runs once every replica has acknowledged (from a kernel
 *  event, never inside this call; cn_repl_lost may take it back). Returns the entry's handle for cn_repl_val. */
uint32_t cn_repl_send(cn_repl_t *r, unsigned core, uint64_t gline, uint8_t mask, const uint64_t *words, bool early,
                      repl_acked_fn acked, void *obj, uint64_t tag);
/** Entry h has committed; version is the line's version after the commit (its low MSG_TS_W bits
 *  are the VAL's TS). Sends the VALs; h is free afterwards. Only after acked(). */
void cn_repl_val(cn_repl_t *r, uint32_t h, unsigned version);
/** The engine as the cores see it (valid until cn_repl_free). */
const repl_if_t *cn_repl_if(cn_repl_t *r);
/** The replicas of gline into out[] (nr of them); returns nr. */
unsigned cn_repl_replicas(const cn_repl_t *r, uint64_t gline, unsigned *out);
/** Nothing outstanding and nothing waiting to be sent. */
bool cn_repl_idle(const cn_repl_t *r);
/** Outstanding entries and queued messages, one paragraph. */
void cn_repl_dump(const cn_repl_t *r, FILE *f);

/** CN f failed and the map (params.map) no longer has it (recovery, on the INTERRUPT): every
 *  outstanding entry with f among its replicas drops it and sends its REPL to the member its line's
 *  set gained instead (lu_map_fail), so that the store keeps Nr copies. One still waiting for
 *  REPL_ACKs waits for the newcomer's too; one already acknowledged is taken back from its core
 *  (acked(obj, tag, false)) and waits for it likewise; if the core cannot take it back (the store is
 *  on its way to commit), or the store committed and f was such a newcomer, the newcomer's VAL
 *  leaves only after its REPL_ACK. An early entry's REPL to the newcomer is an early set there, within
 *  the CN's share; beyond it, it is held until the entry reaches its head (repl_if_t.head; counted in
 *  held_for_head): f's early sets all move to its replacements at once and must not fill their
 *  buffers beyond the shares. Committed entries whose VALs left keep Nr - 1 copies in the LUs
 *  (the dump that ends the recovery makes them durable). */
void cn_repl_lost(cn_repl_t *r, unsigned f);

/** The committed entries none of whose VALs has left the CN for a replica other than this CN
 *  (they wait in the engine's or the port's queue): fn(obj, core, line, word mask) each. If the CN
 *  fails now, no live log can validate them: their commits were not durable. */
void cn_repl_unsent(const cn_repl_t *r, void (*fn)(void *obj, unsigned core, uint64_t gline, uint8_t mask),
                    void *obj);

#endif
