/* The recovery handler of a memory node (DIKTAMO §V-C, Algorithm 1): software on the MN, reaching
 * its directory controller through the management port (docs/architecture.md 11c) and the fabric
 * through the MN's software port.
 *
 * On INIT_RECOV (subject F, from the CM):
 *   1. FAIL F (and every other CN known to have failed: hooks.failed), then WALK: the directory
 *      drops F from its sharer vectors and lists the lines F owned (OWNED, then WALKED with the
 *      walk's cycles: TravDir);
 *   2. FETCH_LATEST_VERS for each Owned line to every live LU that may hold records of it
 *      (hooks.lus: its replica set without failed CNs), one list per LU, LAST on its final message;
 *      every FETCH_LATEST_VERS_RESP is merged word by word: among the LUs the latest by TS (serial
 *      arithmetic: the replicas hold the same commits, except the failed CN's last ones whose VALs
 *      reached some replicas and not others, a few versions apart);
 *   3. the words no LU has: FETCH_LATEST_VERS to the MNs whose log stores may hold dumps of the line
 *      (hooks.stores; the MN's own store included, through the fabric as well); a word is taken
 *      from the answer of the latest dump epoch (its tag), within one epoch of the latest TS
 *      (csim/mn/mn_log.h). The stores answer at once; the search itself is charged as records x
 *      rec_search_ps of the largest store asked;
 *   4. RECOVER each Owned line with the words found (the others keep memory's value, which is the
 *      latest for every word no log holds) and, when an LU found one in its buffer (BUF), the latest
 *      buffered TS as the line's version (the next owner's commits must follow it in the LUs that
 *      still buffer the failed owner's words); then RESUME, then INIT_RECOV_RESP to the CM.
 * One recovery at a time; an INIT_RECOV that comes during one waits for it, but
 *   - one for the CN being recovered, or already waiting, only makes its requester the CM to
 *     answer (a CM that failed left its run to the next one, which asks again);
 *   - one for a CN already recovered here is answered at once;
 *   - one for a CN G that failed during this recovery gives FAIL G to the directory at once while
 *     the walk may still wait for quiet (a transaction waiting for G would hold it up: the
 *     directory takes a FAIL then, and the walk then lists G's lines too), and the answers of G's
 *     LU are no longer awaited. */
#ifndef SW_MN_RECOV_H
#define SW_MN_RECOV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/kernel.h"
#include "base/stats.h"
#include "cn/lu_map.h"
#include "mn/lu_store.h"
#include "mn/mn_node.h"

/** One recovery at one MN (ps; counts). */
typedef struct mn_recov_report {
    unsigned mn, failed;
    uint64_t t_init;        /* INIT_RECOV arrived */
    uint64_t t_walk;        /* WALK given (FAIL done) */
    uint64_t t_walked;      /* WALKED: the Owned list is complete */
    uint32_t travdir_cycles;
    uint64_t t_lu_done;     /* the last LU's answer (t_walked when no LU was asked) */
    uint64_t t_mn_done;     /* the log stores answered and were searched (t_lu_done when none asked) */
    uint64_t t_recovered;   /* the last RECOVER answered */
    uint64_t t_resp;        /* RESUME done, INIT_RECOV_RESP sent */
    uint64_t owned;         /* lines the failed CN owned */
    uint64_t recovered, not_owned;
    uint64_t words_lu;      /* words recovered from LU logs */
    uint64_t words_mn;      /* from MN log stores */
    uint64_t lines_lu_miss; /* Owned lines with a word no LU had (asked of the stores) */
    uint64_t flv_lu, flv_mn; /* FETCH_LATEST_VERS sent to LUs, to MNs */
    uint64_t store_records;  /* records of the largest store searched */
} mn_recov_report_t;

typedef struct mn_recov_hooks {
    void *obj;
    /** Live LUs (CN ids) that may hold records of line, into out (MSG_MAX_CN); their number. */
    unsigned (*lus)(void *obj, uint64_t line, unsigned *out);
    /** MN indices whose log stores may hold dumps of line; their number. */
    unsigned (*stores)(void *obj, uint64_t line, unsigned *out);
    /** Records stored by MN mn's log store (its search cost). */
    uint64_t (*store_records)(void *obj, unsigned mn);
    /** The CNs known to have failed (bit c), all of which the handler marks failed in the directory
     *  before its walk (the switch's fence register, which the CM would hand on). */
    uint32_t (*failed)(void *obj);
    /** This MN's recovery ended (INIT_RECOV_RESP sent). */
    void (*done)(void *obj, const mn_recov_report_t *r);
} mn_recov_hooks_t;

typedef struct mn_recov_params {
    unsigned mn;
    uint64_t rec_search_ps; /* a log store's search time per stored record */
    const char *name;       /* statistics prefix, e.g. "mn0.recov" */
} mn_recov_params_t;

typedef struct mn_recov mn_recov_t;

/** On MN node n: takes the software messages the store does not (lu_store_on_other) or, without a
 *  store (WB, WT), all of them (mn_node_on_sw); and the management port's answers. Statistics:
 *  <name>.recoveries, .owned, .words_lu, .words_mn. NULL when statistics fail. */
mn_recov_t *mn_recov_create(kernel_t *k, mn_node_t *n, lu_store_t *store, const mn_recov_params_t *p,
                            const mn_recov_hooks_t *h, stats_t *st);
void mn_recov_free(mn_recov_t *r);
bool mn_recov_idle(const mn_recov_t *r);
void mn_recov_dump(const mn_recov_t *r, FILE *f);

#endif
