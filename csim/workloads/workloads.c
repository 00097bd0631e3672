/* The registry of workloads (csim/cn/wl_api.h). */
#include "workloads/workloads.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* In the order of cfg_workload_e (csim/config.h), so workloads[cfg->workload.name] is the
 * configured one; tb/test_workloads.c checks that the names agree. */
const workload_t *const workloads[] = {&wl_bodytrack, &wl_fluidanimate, &wl_streamcluster, &wl_canneal, &wl_raytrace,
                                       &wl_barnes,    &wl_ocean_ncp,    &wl_ocean_cp,       &wl_ycsb,    &wl_hcmeta,
                                       &wl_megalon,   &wl_sc_btree,     &wl_sc_art,         &wl_sc_lsm,  &wl_prism,
                                       NULL};

const workload_t *workload_find(const char *name)
{
    for (size_t i = 0; workloads[i]; i++)
        if (strcmp(workloads[i]->name, name) == 0)
            return workloads[i];
    return NULL;
}

int wl_counters(wl_env_t *e, const char *name, const char *const *leaf, const char *const *doc, unsigned n,
                uint64_t **stat, char *err)
{
    for (unsigned i = 0; i < n; i++) {
        char l[64], d[200];
        snprintf(l, sizeof l, "%s.%s", name, leaf[i]);
        snprintf(d, sizeof d, "%s: %s", name, doc[i]);
        if (!(stat[i] = e->ops->counter(e, l, d, err)))
            return -1;
    }
    return 0;
}

int wl_errf(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, WL_ERR_MAX, fmt, ap);
    va_end(ap);
    return -1;
}
