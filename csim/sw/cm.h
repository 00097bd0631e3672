/* The recovery software of a compute node (DIKTAMO §V-B, Fig. 9, Table I): one per CN, user
 * CN_PORT_SW of its port.
 *
 * Every CN runs it as its interrupt handler: an INTERRUPT (seen through cn_port_on_cores) pauses the
 * CN's cores (core_pause: they dispatch nothing more; what they have in flight goes on) and is
 * answered INTERRUPT_RESP; a RECOV_END resumes them and is answered RECOV_END_RESP. The CN's LU
 * answers the same two messages on its own.
 *
 * The CN the switch sends an MSI to is the Configuration Manager (CM) of that failure (the lowest
 * live CN unless the switch's CM register names one; when the CM fails, the switch hands the role
 * to the next live CN with the CM's own MSI). It reads the switch's Viral_Status and fence
 * registers (CSR reads through the fabric) and recovers every CN whose Viral_Status bit is set, the
 * set V, in one run (F, the lowest of them, names the run):
 *   1. INTERRUPT (subject f) for each f in V to every live CN, itself included; waits for every
 *      INTERRUPT_RESP (the cores' and, under DIKTAMO, the LU's: two per live CN and f) -> RecBegin
 *   2. INIT_RECOV (subject f) for each f in V to every MN; waits for every INIT_RECOV_RESP
 *                                                                                     -> CM<->MN
 *   3. the new configuration: hooks.reconfigure for each f (the replica map without it, the
 *      threads' membership; configuration writes, zero time)
 *   4. RECOV_END (subject F, tag the run's number) to every live CN: the cores resume; under
 *      DIKTAMO each LU dumps its log and answers only once the dump is stored, so that the stores
 *      the failures left with a copy less are durable again; waits for every RECOV_END_RESP of
 *      this run (its tag)                                                              -> RecEnd
 *   5. clears V's Viral_Status bits (CSR write), reports the recovery (hooks.done), and looks at the
 *      Viral_Status again.
 * A CN G that fails during steps 1 and 2 (an MSI while the run is under way: the CM reads
 * Viral_Status again, and takes every CN set there and not in V, one detected between its first
 * reads of VIRAL and FENCED included) joins V: INTERRUPT (subject G) to the live CNs, whose answers
 * are awaited too, and INIT_RECOV (subject G) to the MNs (at once in step 2, else with the others),
 * whose handlers then stop waiting for anything of G's; nothing more is awaited from G. One that
 * fails during step 4 ends the run at once (hooks.done, reprotected false), without clearing V's
 * Viral_Status: the next run recovers G with V (the MNs answer at once for V), so that V counts
 * towards Nr with G, and its own step 4 has the LUs dump again. A CM that fails leaves its run to
 * the next CM, which finds both its failure and the one it was recovering in Viral_Status; the MNs
 * answer it for what they have already recovered (csim/sw/mn_recov.h).
 * When Nr CNs or more of V (DIKTAMO) are being recovered at once (failed before a recovery of
 * theirs had ended, step 4 included), a committed store may have lost all its replicas: the CM
 * reports them as unrecoverable (hooks.unrecoverable), then recovers what the surviving logs hold.
 * A failure after a run's end finds every committed store with its Nr copies again, in live LUs or
 * MN log stores (docs/architecture.md 11g).
 * Timestamps of every step are in cm_recovery_t. */
#ifndef SW_CM_H
#define SW_CM_H

#include <stdbool.h>
#include <stdint.h>

#include "base/kernel.h"
#include "base/stats.h"
#include "cn/cn_port.h"
#include "drv/fabric.h"

/** One recovery as the CM saw it (ps). */
typedef struct cm_recovery {
    unsigned cm, failed;    /* the CM's CN, the failed CN (the lowest of failed_set) */
    uint32_t failed_set;    /* the CNs it recovered (bit c) */
    unsigned joined;        /* of those, the ones that failed during the run */
    uint32_t live;          /* the CNs it interrupted and resumed (bit c) */
    uint64_t t_msi;         /* the MSI reached the CM (or the previous recovery ended) */
    uint64_t t_int_sent;    /* INTERRUPTs sent (after the CSR reads) */
    uint64_t t_int_done;    /* the last INTERRUPT_RESP */
    uint64_t t_init_done;   /* the last INIT_RECOV_RESP (INIT_RECOVs sent at t_int_done) */
    uint64_t t_end_done;    /* the last RECOV_END_RESP (RECOV_ENDs sent at t_init_done) */
    bool reprotected;       /* every RECOV_END_RESP came (the LUs' dumps stored); false: the run ended
                               early for a CN failing in step 4, and the next run includes its CNs */
} cm_recovery_t;

typedef struct cm_hooks {
    void *obj;
    /** Pause (true) or resume the cores of CN cn (the CN this software runs on), for the failure of
     *  CN failed (the INTERRUPT's subject). */
    void (*pause)(void *obj, unsigned cn, bool pause, unsigned failed);
    /** Every MN has recovered from CN failed's failure: the configuration without it. */
    void (*reconfigure)(void *obj, unsigned failed);
    /** A recovery ended (RECOV_END answered by all; or cut short by a failure in step 4: r->reprotected
     *  false, and failed_set will be in the next run again). */
    void (*done)(void *obj, const cm_recovery_t *r);
    /** As many CNs as the replication factor failed before a recovery ended (bit c: CN c; a CM's run
     *  reports it once per set it grows to): some committed stores may have lost every replica.
     *  The recovery goes on with what is left. */
    void (*unrecoverable)(void *obj, uint32_t failed);
} cm_hooks_t;

typedef struct cm_params {
    unsigned cn, num_cn, num_mn;
    bool lu;          /* the live CNs have Logging Units (DIKTAMO), which answer too */
    unsigned nr;      /* DIKTAMO's replication factor: Nr failures before a recovery are unrecoverable
                         (0: no bound, as under WB and WT) */
    const char *name; /* statistics prefix, e.g. "cn0.sw" */
} cm_params_t;

typedef struct cm cm_t;

/** Attaches to port as CN_PORT_SW and as its cores' tap. Statistics: <name>.interrupts (INTERRUPTs
 *  this CN took), .recoveries (recoveries it ran as CM), .msis. NULL when statistics fail. */
cm_t *cm_create(kernel_t *k, cn_port_t *port, fabric_t *f, const cm_params_t *p, const cm_hooks_t *h, stats_t *st);
/** Fail-stop with its CN: it does nothing more. */
void cm_fail(cm_t *c);
void cm_free(cm_t *c);
/** Nothing to do: no recovery running, nothing queued to send. */
bool cm_idle(const cm_t *c);
/** What it waits for (deadlock dumps). */
void cm_dump(const cm_t *c, FILE *f);

#endif
