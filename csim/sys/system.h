/* The whole simulated cluster: the RTL fabric (switch), one memory node per MN port (Verilated
 * directory controller + MN DRAM, csim/mn/mn_node), one compute node per CN port (cores running
 * simulated threads, caches, local DRAM and CXL port, csim/cn/), the oracle of committed stores,
 * and the workload the threads run.
 *
 * A run: system_create (everything built and reset), system_load (the workload's setup: memory
 * allocated and initialized at zero time, threads placed one per core, round-robin over the CNs),
 * system_run (the threads run until every one has returned and drained its store buffer, then the
 * system runs on until it is quiet: no message, snoop, eviction or DRAM access in flight),
 * system_check (the oracle: every remote word holds its last committed store; then the workload's
 * own check of its result). */
#ifndef SYSTEM_H
#define SYSTEM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/config.h"
#include "base/kernel.h"
#include "base/progress.h"
#include "base/run.h"
#include "base/stats.h"
#include "cn/wl_api.h"
#include "drv/dir_drv.h"
#include "drv/fabric.h"
#include "drv/lu_drv.h"
#include "sys/oracle.h"

#define SYSTEM_ERR_MAX 512

typedef struct system system_t;

/** Builds the cluster of cfg (validated) around the fabric model fops, the directory model dops
 *  and, under a DIKTAMO protocol, the Logging Unit model lops (one LU per CN, an mn_log store per
 *  MN, a replication engine per CN; lops may be NULL under WB and WT, which have none). skip_idle:
 *  clock the RTL only while it has work. NULL and err (one line) on failure. */
system_t *system_create(kernel_t *k, const sim_config_t *cfg, const fabric_model_ops_t *fops,
                        const dir_model_ops_t *dops, const lu_model_ops_t *lops, bool skip_idle, stats_t *st,
                        char *err);
void system_free(system_t *s);

/** Sets the workload up: nthreads (0: cfg workload.threads, whose 0 means one per core) threads
 *  will run w->thread. w->setup finds arg in *state on entry (NULL for the registry's workloads;
 *  a test's own workload passes its context). -1 and err when it does not fit or the thread
 *  count is impossible. */
int system_load(system_t *s, const workload_t *w, unsigned nthreads, void *arg, char *err);

/** Runs until the workload has finished and the system is quiet (RUN_DONE), or until end_ps, or
 *  a stall (no instruction retired for cfg sim.stall_timeout: system_dump tells what waits), or a
 *  thread's bad access (RUN_FAULT: system_fault). */
run_end_e system_run(system_t *s, uint64_t end_ps, progress_t *line);
/** The first thread's bad access that stopped the run (core_fault: unaligned, or outside the CN's
 *  local memory or the CXL memory), or NULL. */
const char *system_fault(const system_t *s);

/** The oracle's verdict over every remote word written or initialized (the system must be
 *  quiet), then the workload's check. Prints up to max_lines mismatches to f. 0 when both pass;
 *  -1 with err (one line) otherwise. */
int system_check(system_t *s, FILE *f, size_t max_lines, oracle_report_t *r, char *err);

/** The CNs whose failures, Nr or more before a recovery, the CM found unrecoverable (bit c: CN c;
 *  0: none). The recovery still restores what the logs hold; system_check fails, naming them. */
uint32_t system_unrecoverable(const system_t *s);
/** CN failures so far. */
unsigned system_failures(const system_t *s);
/** After a run with failures: one line of what was lost and recovered, one of the recovery time
 *  split into Table III's steps (summed over the recoveries), each starting with prefix. */
void system_print_recovery(const system_t *s, FILE *f, const char *prefix);

/** DIKTAMO, the system quiet, no CN failed (a failure changes replica sets, and the oracle judges
 *  the recovery; returns 0 with *checked 0 then): every replica's DRAM log (what it wrote, dumped or not) holds each
 *  commit (store-buffer entry or rmw) to every remote word of the lines it replicates, validated, exactly once
 *  and in commit order, and nothing else. Prints up to max_lines faults to f; returns their
 *  number (0 under WB and WT) and sets *checked to the committed words checked. */
size_t system_check_logs(system_t *s, FILE *f, size_t max_lines, uint64_t *checked);

/** CN cn fails now (fail-stop, DIKTAMO §III-B): its port stops (fabric_fail_node: nothing sent,
 *  nothing received, no heartbeat, so the switch detects it and tells a live CN's Configuration
 *  Manager with an MSI), its cores stop where they are (their threads are lost), its caches' contents
 *  are lost, its Logging Unit freezes. The run then ends when every thread on a live CN has
 *  finished. The switch detects it and tells a live CN's Configuration Manager, which runs the
 *  recovery (csim/sw/cm.h, csim/sw/mn_recov.h; docs/architecture.md 11g); the survivors then go on
 *  without the failed CN's threads. Commits of the CN whose VALs never left it are put in doubt
 *  (oracle_doubt): they were not durable. */
void system_fail_cn(system_t *s, unsigned cn);
/** system_fail_cn(s, cn) at time t_ps (a kernel event). */
void system_fail_at(system_t *s, unsigned cn, uint64_t t_ps);
#define SYSTEM_MAX_AFTER 32
/** CN cn fails delay_ps after the recovery of every failure before it has ended (the CM's last
 *  RecovEndResp): back-to-back failures, whatever a recovery takes. Such failures come in the order
 *  given, each armed when everything failed so far is recovered; one that no earlier failure
 *  arms never happens. Returns -1 when SYSTEM_MAX_AFTER are given already. */
int system_fail_after_recovery(system_t *s, unsigned cn, uint64_t delay_ps);
bool system_cn_failed(const system_t *s, unsigned cn);

/** The coherent value of a word now (zero time): for a remote word the newest copy in a CN's
 *  caches, else its MN's memory; for a local word (addr_is_local) CN cn's memory. */
uint64_t system_peek(system_t *s, unsigned cn, uint64_t addr);

/** Zero-time write of a remote word into its MN's memory, behind the caches' back (tests of the
 *  oracle; a recovery handler's memory writes). */
void system_mem_poke(system_t *s, uint64_t addr, uint64_t v);

/** Simulated time from the threads' start until the last one finished (ps); 0 before. */
uint64_t system_exec_ps(const system_t *s);
/** Instructions the threads executed (memory and compute). */
uint64_t system_instructions(const system_t *s);
/** Dumps whose records were not those announced to sim.zlib_threads' pool (each compressed again
 *  on the simulation's thread: slower, the same results; lu_zlib.h). */
uint64_t system_zlib_missed(const system_t *s);
unsigned system_threads(const system_t *s);
fabric_t *system_fabric(system_t *s);
/** Writes what every component waits for (deadlock dumps). */
void system_dump(const system_t *s, FILE *f);
/** Directory violations reported by the MNs (a correct system has none), less the messages of
 *  failed CNs the directories refused once told of the failure (BAD_MSG: expected). */
size_t system_violations(const system_t *s);

#endif
