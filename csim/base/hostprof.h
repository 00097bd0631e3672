/* Where the host's time goes: a sampling profile by zone, for the benchmarks.
 *
 * The simulator marks which part of it runs (hostprof_enter / hostprof_leave around the calls into
 * the Verilated models, and the kernel around its own work and the events it runs), and, while a
 * profile is on (hostprof_start), a CPU-time timer (ITIMER_PROF) samples the mark every
 * HOSTPROF_PERIOD_US of the process's CPU time. The shares of the samples are the shares of host
 * time. Marking costs one store; with no profile on, nothing samples it.
 *
 * This is the one process-wide state of csim, on purpose: a timer signal is delivered to the
 * process, and the zone is what the process is doing, whichever simulation it is (the mark is per
 * thread: the fabric's worker thread, worker.h, marks its own). Simulations
 * that run one after another in one process (the benchmark's rows) each take their own profile
 * (start, run, stop). */
#ifndef HOSTPROF_H
#define HOSTPROF_H

#include <signal.h>
#include <stdint.h>

typedef enum hostprof_zone {
    HOSTPROF_MODELS, /* C models: cores, caches, CXL ports, links, memories, software, workloads */
    HOSTPROF_KERNEL, /* the event queue itself (taking and scheduling events) */
    HOSTPROF_FABRIC, /* the Verilated fabric_top (the switch), its C shim included */
    HOSTPROF_LU,     /* the Verilated Logging Units */
    HOSTPROF_DIR,    /* the Verilated directory controllers */
    HOSTPROF_WAIT,   /* a host thread waiting for another (worker.h: the worker idle, the owner
                      * waiting for its job) */
    HOSTPROF_NZONES
} hostprof_zone_e;

#define HOSTPROF_PERIOD_US 1000u

/** The zone's name: models, kernel, fabric, lu, dir, wait. */
const char *hostprof_zone_name(hostprof_zone_e z);

/* The zone the thread runs now (hostprof.c says why per thread, sig_atomic_t and volatile). Marked
 * inline: the kernel marks about four times per event. */
extern __thread volatile sig_atomic_t hostprof_zone_now;

/** Marks zone z as running; returns the zone it interrupts, for hostprof_leave. */
static inline hostprof_zone_e hostprof_enter(hostprof_zone_e z)
{
    const hostprof_zone_e prev = (hostprof_zone_e)hostprof_zone_now;
    hostprof_zone_now = (sig_atomic_t)z;
    return prev;
}

/** Back to the zone hostprof_enter returned. */
static inline void hostprof_leave(hostprof_zone_e prev) { hostprof_zone_now = (sig_atomic_t)prev; }

/** Samples per zone of one profile. */
typedef struct hostprof {
    uint64_t samples[HOSTPROF_NZONES];
    uint64_t total;
} hostprof_t;

/** The process's CPU time in seconds, every thread's (what the profile's timer counts). */
double hostprof_cpu_seconds(void);

/** Starts sampling (zeroes the counts). 0, or -1 when the timer cannot be set. Installs the
 *  process's SIGPROF handler, which stays installed. */
int hostprof_start(void);
/** Stops sampling and returns the counts of the profile. */
void hostprof_stop(hostprof_t *out);

#endif
