/* The paper's applications (csim/workloads/: workloads[0 .. WL_APPS - 1], section VI's nine) at the
 * sizes the system tests run them: a few tens of microseconds of simulated time on small.ini
 * (4 CNs x 2 cores), long enough for the LUs to dump every 20 us and for a failure to land mid-run. */
#ifndef WL_TINY_H
#define WL_TINY_H

#include "base/config.h"

#define WL_APPS ((unsigned)CFG_WL_HCMETA)

/** X(name, index) for each application, in the registry's order: a test per application. */
#define WL_APPS_EACH(X)                                                                                \
    X(bodytrack, 0) X(fluidanimate, 1) X(streamcluster, 2) X(canneal, 3) X(raytrace, 4) X(barnes, 5)   \
        X(ocean_ncp, 6) X(ocean_cp, 7) X(ycsb, 8)

/** "workload.<key>=<value>" settings of every application's sizes, NULL-terminated. */
extern const char *const wl_tiny_sets[];

#endif
