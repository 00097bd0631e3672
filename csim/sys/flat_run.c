#include "sys/flat_run.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/addr.h"
#include "base/kernel.h"
#include "base/progress.h"
#include "base/stats.h"
#include "cn/core.h"
#include "cn/flat_mem.h"

/* Memory is global in flat_mem: CN c's local memory is its own slice of the local range (the
 * system gives every CN the same local addresses, each in its own DRAM), so that two CNs' private
 * data never meet. */
typedef struct frun {
    const sim_config_t *cfg;
    kernel_t k;
    stats_t st;
    flat_mem_t *fm;
    core_t **core;
    unsigned ncn, cores, nthreads, finished;
    uint64_t remote_next, remote_limit;
    uint64_t *local_next;
    uint64_t end_ps;
} frun_t;

static uint64_t local_slice(const frun_t *r, unsigned cn) { return ADDR_LOCAL_BASE + (uint64_t)cn * r->cfg->mem.local_size_bytes; }

static uint64_t env_alloc_cxl(wl_env_t *e, uint64_t bytes)
{
    frun_t *r = e->obj;
    return wl_alloc_lines(&r->remote_next, r->remote_limit, bytes);
}

static uint64_t env_alloc_local(wl_env_t *e, unsigned cn, uint64_t bytes)
{
    frun_t *r = e->obj;
    uint64_t a = wl_alloc_lines(&r->local_next[cn], r->cfg->mem.local_size_bytes, bytes);
    return a == WL_ALLOC_FAIL ? a : local_slice(r, cn) + a;
}

/* No Large Non-coherent Region: one flat memory is coherent everywhere. */
static uint64_t env_alloc_lnr(wl_env_t *e, uint64_t bytes)
{
    (void)e;
    (void)bytes;
    return WL_ALLOC_FAIL;
}

/* Addresses are global here (each CN's local memory has its own slice), so cn names nothing. */
static void env_poke(wl_env_t *e, unsigned cn, uint64_t addr, uint64_t v)
{
    (void)cn;
    flat_mem_poke(((frun_t *)e->obj)->fm, addr, v);
}

static uint64_t env_peek(wl_env_t *e, unsigned cn, uint64_t addr)
{
    (void)cn;
    return flat_mem_peek(((frun_t *)e->obj)->fm, addr);
}

static uint64_t *env_counter(wl_env_t *e, const char *name, const char *doc, char *err)
{
    frun_t *r = e->obj;
    uint64_t *p = stats_counter_in(&r->st, "workload", name, doc);
    if (!p)
        snprintf(err, WL_ERR_MAX, "statistic workload.%s: %s", name, stats_error(&r->st));
    return p;
}

static const wl_env_ops_t env_ops = {
    .alloc_cxl = env_alloc_cxl, .alloc_local = env_alloc_local, .poke = env_poke, .peek = env_peek,
    .alloc_lnr = env_alloc_lnr, .counter = env_counter,
};

static void thread_exit(void *obj)
{
    frun_t *r = obj;
    if (++r->finished == r->nthreads) {
        r->end_ps = r->k.now;
        kernel_stop(&r->k);
    }
}

static void frun_free(frun_t *r)
{
    if (r->core)
        for (unsigned i = 0; i < r->ncn * r->cores; i++)
            core_free(r->core[i]);
    free(r->core);
    free(r->local_next);
    flat_mem_free(r->fm);
    stats_free(&r->st);
    kernel_free(&r->k);
}

int flat_run(const sim_config_t *cfg, const workload_t *w, uint64_t lat_ps, flat_run_result_t *res, char *err)
{
    frun_t r = {.cfg = cfg, .ncn = (unsigned)cfg->system.num_cn, .cores = (unsigned)cfg->system.cores_per_cn};
    kernel_init(&r.k);
    if (stats_init(&r.st)) {
        snprintf(err, FLAT_RUN_ERR_MAX, "out of memory");
        kernel_free(&r.k);
        return -1;
    }
    const unsigned all = r.ncn * r.cores;
    r.nthreads = cfg->workload.threads ? (unsigned)cfg->workload.threads : all;
    uint64_t remote = cfg->mem.scr_size_bytes ? cfg->mem.scr_size_bytes : cfg->system.num_mn * cfg->mem.mn_size_bytes;
    r.remote_limit = remote;
    r.local_next = calloc(r.ncn, sizeof *r.local_next);
    r.core = calloc(all, sizeof *r.core);
    flat_mem_params_t mp = {.lat_min_ps = lat_ps, .lat_max_ps = lat_ps, .seed = cfg->sim.seed, .max_ports = all};
    r.fm = flat_mem_create(&r.k, &mp);
    int rc = -1;
    if (!r.local_next || !r.core || !r.fm) {
        snprintf(err, FLAT_RUN_ERR_MAX, "out of memory");
        goto out;
    }
    if (r.nthreads > all) {
        snprintf(err, FLAT_RUN_ERR_MAX, "%u threads need as many cores, but there are %u", r.nthreads, all);
        goto out;
    }
    if (r.ncn > 1 && cfg->mem.local_size_bytes > (ADDR_LOCAL_BASE - 1) / r.ncn) {
        snprintf(err, FLAT_RUN_ERR_MAX, "%u CNs of %llu bytes of local memory do not fit the local range", r.ncn,
                 (unsigned long long)cfg->mem.local_size_bytes);
        goto out;
    }
    for (unsigned c = 0; c < r.ncn; c++)
        for (unsigned i = 0; i < r.cores; i++) {
            char name[48];
            snprintf(name, sizeof name, "cn%u.core%u", c, i);
            core_params_t cp = {.cn = c, .id = i, .freq_hz = cfg->core.freq_hz, .rob = (unsigned)cfg->core.rob_size,
                                .lq = (unsigned)cfg->core.lq_size, .sq = (unsigned)cfg->core.sq_size,
                                .width = (unsigned)cfg->core.width, .protocol = CFG_PROTO_WB,
                                .coalesce = cfg->core.coalesce, .name = name};
            char cerr[256];
            r.core[c * r.cores + i] = core_create(&r.k, &cp, flat_mem_port(r.fm, c * r.cores + i), &r.st, cerr);
            if (!r.core[c * r.cores + i]) {
                snprintf(err, FLAT_RUN_ERR_MAX, "core: %s", cerr);
                goto out;
            }
        }
    unsigned *thread_cn = calloc(r.nthreads, sizeof *thread_cn);
    wl_thread_t *threads = calloc(r.nthreads, sizeof *threads);
    if (!thread_cn || !threads) {
        free(thread_cn);
        free(threads);
        snprintf(err, FLAT_RUN_ERR_MAX, "out of memory");
        goto out;
    }
    for (unsigned i = 0; i < r.nthreads; i++)
        thread_cn[i] = i % r.ncn;
    wl_env_t env = {.ops = &env_ops, .obj = &r, .cfg = cfg, .nthreads = r.nthreads, .thread_cn = thread_cn,
                    .num_cn = r.ncn, .seed = cfg->sim.seed};
    void *state = NULL;
    char werr[WL_ERR_MAX] = "";
    if (w->setup(&env, &state, werr)) {
        snprintf(err, FLAT_RUN_ERR_MAX, "%s: %s", w->name, werr);
        free(thread_cn);
        free(threads);
        goto out;
    }
    for (unsigned i = 0; i < r.nthreads; i++) {
        unsigned cn = thread_cn[i], core = i / r.ncn;
        threads[i] = (wl_thread_t){.tid = i, .nthreads = r.nthreads, .cn = cn, .core = core,
                                   .seed = cfg->sim.seed * 0x9e3779b97f4a7c15ull + i};
        core_run(r.core[cn * r.cores + core], &threads[i], w->thread, state, 0, thread_exit, &r);
    }
    double t0 = progress_wall_seconds();
    kernel_run(&r.k, cfg->sim.end_time_ps);
    double wall = progress_wall_seconds() - t0;
    if (r.finished < r.nthreads) {
        snprintf(err, FLAT_RUN_ERR_MAX, "%s: %u of %u threads done by sim.end_time", w->name, r.finished, r.nthreads);
    } else if (w->check(&env, state, werr)) {
        snprintf(err, FLAT_RUN_ERR_MAX, "%s: %s", w->name, werr);
    } else {
        *res = (flat_run_result_t){.threads = r.nthreads, .sim_ps = r.end_ps, .wall_s = wall};
        for (unsigned i = 0; i < all; i++)
            res->instructions += core_instructions(r.core[i]);
        rc = 0;
    }
    if (w->free)
        w->free(state);
    free(thread_cn);
    free(threads);
out:
    frun_free(&r);
    return rc;
}
