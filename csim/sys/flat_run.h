/* The core model on its own: a workload's threads on the configured cores over a flat memory.
 *
 * The same workload, sizes, thread count, placement (thread i on CN i mod num_cn, core i / num_cn)
 * and seed as the whole system (csim/sys/system.h) would run, on the same core model (csim/cn/core.c,
 * its configured ROB, queues and width, under WB), but every access goes to one flat memory
 * (csim/cn/flat_mem.c) and is done after a fixed latency: no caches, no CXL ports, no fabric, no
 * directories, no Logging Units, no RTL. diktamo_bench divides the whole system's simulated
 * instructions per host second by this runner's, on the same threads: the cost of the simulated
 * memory system, as a ratio measured in one run. The workload's own check judges the run. */
#ifndef FLAT_RUN_H
#define FLAT_RUN_H

#include <stdint.h>

#include "base/config.h"
#include "cn/wl_api.h"

#define FLAT_RUN_ERR_MAX 320

typedef struct flat_run_result {
    unsigned threads;
    uint64_t instructions; /* retired by all cores */
    uint64_t sim_ps;       /* simulated time from the threads' start to the last one's end */
    double wall_s;         /* host time of the run (setup and check excluded) */
} flat_run_result_t;

/** Runs workload w as cfg sizes it (cfg->workload.threads threads, 0: one per core) with every
 *  access taking lat_ps. 0, or -1 with err (FLAT_RUN_ERR_MAX bytes) filled: the workload does not
 *  fit or fails its check, a core cannot be built, or the run does not end by cfg->sim.end_time. */
int flat_run(const sim_config_t *cfg, const workload_t *w, uint64_t lat_ps, flat_run_result_t *r, char *err);

#endif
