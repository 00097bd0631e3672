/* The registry of workloads (csim/cn/wl_api.h). */
#include "workloads/workloads.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* In the order of cfg_workload_e (csim/base/config.h), so workloads[cfg->workload.name] is the
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

int wl_barrier_check(wl_env_t *e, const char *name, uint64_t bar, unsigned n, uint64_t phases, const char *why,
                     bool masks, char *err)
{
    const uint64_t got = e->ops->peek(e, 0, bar);
    if (got != phases)
        return wl_errf(err, "%s: the barrier released %llu phases, want %llu%s", name, (unsigned long long)got,
                       (unsigned long long)phases, why);
    const uint64_t line = WL_BARRIER_BYTES / 4, group = n >= 64 ? ~0ull : (1ull << n) - 1;
    uint64_t live = 0;
    for (unsigned t = 0; t < n; t++)
        live |= (uint64_t)wl_env_alive(e, t) << t;
    for (uint64_t k = 0; masks && phases && k < 3; k++) {
        const uint64_t m = e->ops->peek(e, 0, bar + line * (1 + k));
        if (k == (phases - 1) % 3 ? (m & live) != live || (m & ~group) : m != 0)
            return wl_errf(err, "%s: the barrier's arrival mask %llu is 0x%llx after its last phase (live threads "
                           "0x%llx; want them in mask %llu, the other two 0)", name, (unsigned long long)k,
                           (unsigned long long)m, (unsigned long long)live, (unsigned long long)((phases - 1) % 3));
    }
    return 0;
}
