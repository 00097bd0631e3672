#include "base/hostprof.h"

#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

/* The zone the thread runs now (each thread its own: the fabric's worker, worker.h, evaluates while
 * the main thread runs other models), and the samples of the profile on (see hostprof.h for why
 * these are the process's). Linux sends a process CPU-time timer's signal to the thread running when
 * it expires, and the handler reads that thread's zone. Written by the signal handler: sig_atomic_t,
 * volatile. */
__thread volatile sig_atomic_t hostprof_zone_now = HOSTPROF_MODELS;
static volatile sig_atomic_t counts[HOSTPROF_NZONES];

const char *hostprof_zone_name(hostprof_zone_e z)
{
    static const char *const names[HOSTPROF_NZONES] = {"models", "kernel", "fabric", "lu", "dir", "wait"};
    return (unsigned)z < HOSTPROF_NZONES ? names[z] : "?";
}

static void on_prof(int sig)
{
    (void)sig;
    sig_atomic_t z = hostprof_zone_now;
    if (z >= 0 && z < HOSTPROF_NZONES)
        __atomic_fetch_add(&counts[z], 1, __ATOMIC_RELAXED);
}

double hostprof_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int hostprof_start(void)
{
    for (unsigned i = 0; i < HOSTPROF_NZONES; i++)
        counts[i] = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prof;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL))
        return -1;
    struct itimerval it = {.it_interval = {0, HOSTPROF_PERIOD_US}, .it_value = {0, HOSTPROF_PERIOD_US}};
    return setitimer(ITIMER_PROF, &it, NULL) ? -1 : 0;
}

void hostprof_stop(hostprof_t *out)
{
    struct itimerval off;
    memset(&off, 0, sizeof off);
    setitimer(ITIMER_PROF, &off, NULL);
    /* The handler stays: a sample the timer sent before it stopped may still come (valgrind delivers
     * signals late), and SIGPROF's default action would end the process; it only counts. */
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < HOSTPROF_NZONES; i++) {
        out->samples[i] = (uint64_t)counts[i];
        out->total += out->samples[i];
    }
}
