/* The whole simulated cluster (see system.h). */
#include "system.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cn/addr.h"
#include "cn/cn_mem.h"
#include "cn/core.h"
#include "cn_port.h"
#include "mn_node.h"

typedef struct sys_cn {
    system_t *s;
    unsigned idx; /* CN index = its fabric port */
    cn_port_t *port;
    cn_mem_t *mem;
    core_t **core;
    uint64_t local_next; /* bump allocator of local memory (offset from ADDR_LOCAL_BASE) */
    const uint64_t *hits[3], *misses[3]; /* the CN's L1 (all cores), L2 (all cores), L3 counters */
    double *hit_rate[3];                 /* filled at the end of a run */
} sys_cn_t;

struct system {
    kernel_t *k;
    const sim_config_t *cfg;
    stats_t *st;
    fabric_t *f;
    unsigned ncn, nmn, cores;
    mn_node_t **mn;
    sys_cn_t *cn;
    oracle_t *oracle;
    uint64_t gran_lines;         /* interleave granularity in lines */
    uint64_t scr_lo, scr_hi;     /* the coherent region (global line addresses) */
    uint64_t remote_next;        /* bump allocator of coherent remote memory (bytes) */
    uint64_t lnr_next, lnr_limit; /* bump allocator of the non-coherent region (bytes) */

    const workload_t *wl;
    void *wl_state;
    wl_env_t env;
    unsigned nthreads;
    unsigned *thread_cn;
    wl_thread_t *threads;
    bool loaded, started, quiet;
    unsigned finished;
    uint64_t start_ps, end_ps;
    uint64_t *commits;           /* counter: committed remote store words */
    /* statistics filled at the end of a run and by a check (registered once, at creation) */
    double *g_exec_ns, *g_ipc;
    uint64_t *c_instr, *c_threads;
    uint64_t *c_or_words, *c_or_stores, *c_or_ok, *c_or_lost, *c_or_phantom;
};

/* ---------------------------------------------------------------------------------------------
 * Links between the CNs' port adapters and the fabric */

/* The CN's port (csim/cn_port) is shared by the memory hierarchy, the Logging Unit and the
 * replication engine; the hierarchy keeps its cn_link_t view of it. */
static void mem_deliver(void *obj, const msg_t *m) { cn_mem_deliver(obj, m); }
static void mem_credit(void *obj, msg_class_t c) { cn_mem_credit(obj, c); }

static void on_commit(void *obj, unsigned cn, unsigned core, uint64_t addr, uint64_t value, uint64_t t_ps)
{
    system_t *s = obj;
    if (addr_is_local(addr))
        return;
    oracle_commit(s->oracle, addr, value, t_ps, cn, core);
    (*s->commits)++;
}

/* ---------------------------------------------------------------------------------------------
 * Address map */

static unsigned home_mn(const system_t *s, uint64_t gline) { return (unsigned)((gline / s->gran_lines) % s->nmn); }

uint64_t system_peek(system_t *s, unsigned cn, uint64_t addr)
{
    if (addr_is_local(addr))
        return cn_mem_local_peek(s->cn[cn].mem, addr);
    uint64_t v;
    for (unsigned i = 0; i < s->ncn; i++)
        if (cn_mem_peek(s->cn[i].mem, addr, &v))
            return v;
    uint64_t line[ADDR_WORDS_PER_LINE];
    mn_node_peek(s->mn[home_mn(s, addr_gline(addr))], addr_gline(addr), line);
    return line[addr_word(addr)];
}

/* ---------------------------------------------------------------------------------------------
 * The workload's environment */

static uint64_t env_alloc_cxl(wl_env_t *e, uint64_t bytes)
{
    system_t *s = e->obj;
    uint64_t b = (bytes + ADDR_LINE_BYTES - 1) / ADDR_LINE_BYTES * ADDR_LINE_BYTES;
    uint64_t limit = s->scr_hi * ADDR_LINE_BYTES;
    if (b > limit || s->remote_next > limit - b)
        return WL_ALLOC_FAIL;
    uint64_t a = s->remote_next;
    s->remote_next += b;
    return a; /* MN DRAM reads zero where never written, and nothing was allocated here before */
}

static uint64_t env_alloc_lnr(wl_env_t *e, uint64_t bytes)
{
    system_t *s = e->obj;
    uint64_t b = (bytes + ADDR_LINE_BYTES - 1) / ADDR_LINE_BYTES * ADDR_LINE_BYTES;
    if (b > s->lnr_limit || s->lnr_next > s->lnr_limit - b)
        return WL_ALLOC_FAIL;
    uint64_t a = s->lnr_next;
    s->lnr_next += b;
    return a;
}

static uint64_t env_alloc_local(wl_env_t *e, unsigned cn, uint64_t bytes)
{
    system_t *s = e->obj;
    uint64_t b = (bytes + ADDR_LINE_BYTES - 1) / ADDR_LINE_BYTES * ADDR_LINE_BYTES;
    sys_cn_t *n = &s->cn[cn];
    uint64_t limit = s->cfg->mem.local_size_bytes;
    if (b > limit || n->local_next > limit - b)
        return WL_ALLOC_FAIL;
    uint64_t a = ADDR_LOCAL_BASE + n->local_next;
    n->local_next += b;
    return a;
}

void system_mem_poke(system_t *s, uint64_t addr, uint64_t v)
{
    uint64_t line[ADDR_WORDS_PER_LINE] = {0};
    line[addr_word(addr)] = v;
    mn_node_poke(s->mn[home_mn(s, addr_gline(addr))], addr_gline(addr), (uint8_t)(1u << addr_word(addr)), line);
}

static void env_poke(wl_env_t *e, unsigned cn, uint64_t addr, uint64_t v)
{
    system_t *s = e->obj;
    if (addr_is_local(addr)) {
        cn_mem_local_poke(s->cn[cn].mem, addr, v);
        return;
    }
    system_mem_poke(s, addr, v);
    oracle_init(s->oracle, addr, v);
}

static uint64_t env_peek(wl_env_t *e, unsigned cn, uint64_t addr) { return system_peek(e->obj, cn, addr); }

static const wl_env_ops_t env_ops = {
    .alloc_cxl = env_alloc_cxl, .alloc_local = env_alloc_local, .poke = env_poke, .peek = env_peek,
    .alloc_lnr = env_alloc_lnr,
};

/* ---------------------------------------------------------------------------------------------
 * Creation */

system_t *system_create(kernel_t *k, const sim_config_t *cfg, const fabric_model_ops_t *fops,
                        const dir_model_ops_t *dops, bool skip_idle, stats_t *st, char *err)
{
    system_t *s = calloc(1, sizeof *s);
    s->k = k;
    s->cfg = cfg;
    s->st = st;
    s->ncn = (unsigned)cfg->system.num_cn;
    s->nmn = (unsigned)cfg->system.num_mn;
    s->cores = (unsigned)cfg->system.cores_per_cn;
    s->gran_lines = cfg->mem.interleave_bytes / ADDR_LINE_BYTES;
    const uint64_t total_lines = s->nmn * (cfg->mem.mn_size_bytes / ADDR_LINE_BYTES);
    s->scr_lo = 0;
    s->scr_hi = cfg->mem.scr_size_bytes ? cfg->mem.scr_size_bytes / ADDR_LINE_BYTES : total_lines;
    s->lnr_next = s->scr_hi * ADDR_LINE_BYTES; /* the LNR: every line above the SCR */
    s->lnr_limit = total_lines * ADDR_LINE_BYTES;
    s->oracle = oracle_create();
    s->commits = stats_counter(st, "system.committed_remote_words", "remote store words committed (oracle records)");
    s->g_exec_ns = stats_gauge(st, "system.exec_time_ns", "simulated time from the threads' start to the last one's end");
    s->c_instr = stats_counter(st, "system.instructions", "instructions the threads executed");
    s->c_threads = stats_counter(st, "system.threads", "simulated threads");
    s->g_ipc = stats_gauge(st, "system.ipc_per_thread", "instructions per core cycle, averaged over the threads");
    s->c_or_words = stats_counter(st, "oracle.words", "remote words the oracle checked");
    s->c_or_stores = stats_counter(st, "oracle.stores", "committed remote store words it recorded");
    s->c_or_ok = stats_counter(st, "oracle.ok", "words holding their last committed store");
    s->c_or_lost = stats_counter(st, "oracle.lost", "words holding an older value: a committed store was lost");
    s->c_or_phantom = stats_counter(st, "oracle.phantom", "words holding a value never committed to them");
    if (!s->commits || !s->g_exec_ns || !s->c_instr || !s->c_threads || !s->g_ipc || !s->c_or_words ||
        !s->c_or_stores || !s->c_or_ok || !s->c_or_lost || !s->c_or_phantom) {
        snprintf(err, SYSTEM_ERR_MAX, "statistics: %s", stats_error(st));
        goto fail;
    }

    fabric_params_t fp = {
        .freq_hz = cfg->fabric.freq_hz,
        .link_latency_ps = cfg->fabric.link_latency_ps,
        .link_jitter_ps = cfg->fabric.link_jitter_ps,
        .rx_credits = (unsigned)cfg->fabric.link_credits,
        .skip_idle = skip_idle,
        .seed = cfg->sim.seed,
        .reset_cycles = 4,
        .heartbeat_cycles = (uint32_t)cfg->fabric.heartbeat_cycles,
        .silence_cycles = (uint32_t)cfg->fabric.silence_cycles,
        .accept_cycles = (uint32_t)cfg->fabric.accept_cycles,
    };
    s->f = fabric_create(k, fops, &fp, st);
    if (!s->f) {
        snprintf(err, SYSTEM_ERR_MAX, "the fabric cannot be built (see above)");
        goto fail;
    }

    s->mn = calloc(s->nmn, sizeof *s->mn);
    for (unsigned m = 0; m < s->nmn; m++) {
        char name[32];
        snprintf(name, sizeof name, "mn%u", m);
        mn_node_params_t mp = {
            .mn = m,
            .num_mn = s->nmn,
            .mn_bytes = cfg->mem.mn_size_bytes,
            .interleave_bytes = cfg->mem.interleave_bytes,
            .scr_lo = s->scr_lo,
            .scr_hi = s->scr_hi,
            .freq_hz = cfg->fabric.freq_hz,
            .dram_latency_ps = cfg->mem.dram_latency_ps,
            .name = name,
            .seed = cfg->sim.seed,
            .skip_idle = skip_idle,
        };
        s->mn[m] = mn_node_create(k, s->f, s->ncn + m, dops, &mp, st, err);
        if (!s->mn[m])
            goto fail;
    }

    s->cn = calloc(s->ncn, sizeof *s->cn);
    for (unsigned c = 0; c < s->ncn; c++) {
        sys_cn_t *n = &s->cn[c];
        n->s = s;
        n->idx = c;
        char name[32];
        snprintf(name, sizeof name, "cn%u", c);
        cn_mem_params_t mp = {
            .cn = c,
            .cores = s->cores,
            .l1 = cfg->l1,
            .l2 = cfg->l2,
            .l3 = cfg->l3,
            .core_freq_hz = cfg->core.freq_hz,
            .local_latency_ps = cfg->mem.local_latency_ps,
            .local_bytes = cfg->mem.local_size_bytes,
            .num_mn = s->nmn,
            .interleave_bytes = cfg->mem.interleave_bytes,
            .scr_lo = s->scr_lo,
            .scr_hi = s->scr_hi,
            .name = name,
            .seed = cfg->sim.seed,
        };
        char pname[48];
        snprintf(pname, sizeof pname, "cn%u.port", c);
        n->port = cn_port_create(s->f, c, (unsigned)cfg->fabric.link_credits, pname, st);
        if (!n->port) {
            snprintf(err, SYSTEM_ERR_MAX, "cn%u's port: %s", c, stats_error(st));
            goto fail;
        }
        cn_link_t link = cn_port_mem_link(n->port);
        n->mem = cn_mem_create(k, &mp, &link, st, err);
        if (!n->mem)
            goto fail;
        cn_port_attach(n->port, CN_PORT_MEM, mem_deliver, mem_credit, n->mem);
        for (unsigned l = 0; l < 3; l++) {
            char hn[64];
            snprintf(hn, sizeof hn, "cn%u.l%u.hits", c, l + 1);
            n->hits[l] = stats_find_counter(st, hn);
            snprintf(hn, sizeof hn, "cn%u.l%u.misses", c, l + 1);
            n->misses[l] = stats_find_counter(st, hn);
            snprintf(hn, sizeof hn, "cn%u.l%u.hit_rate", c, l + 1);
            n->hit_rate[l] = stats_gauge(st, hn, "hits / (hits + misses) of this level, all its cores");
            if (!n->hits[l] || !n->misses[l] || !n->hit_rate[l]) {
                snprintf(err, SYSTEM_ERR_MAX, "statistics: %s: %s", hn, stats_error(st));
                goto fail;
            }
        }
        n->core = calloc(s->cores, sizeof *n->core);
        for (unsigned i = 0; i < s->cores; i++) {
            char cname[48];
            snprintf(cname, sizeof cname, "cn%u.core%u", c, i);
            core_params_t cp = {
                .cn = c,
                .id = i,
                .freq_hz = cfg->core.freq_hz,
                .rob = (unsigned)cfg->core.rob_size,
                .lq = (unsigned)cfg->core.lq_size,
                .sq = (unsigned)cfg->core.sq_size,
                .width = (unsigned)cfg->core.width,
                .protocol = cfg->core.protocol,
                .coalesce = cfg->core.coalesce,
                .name = cname,
            };
            n->core[i] = core_create(k, &cp, cn_mem_if(n->mem), st, err);
            if (!n->core[i])
                goto fail;
            core_on_commit(n->core[i], on_commit, s);
        }
    }
    s->env = (wl_env_t){.ops = &env_ops, .obj = s, .cfg = cfg, .num_cn = s->ncn, .seed = cfg->sim.seed};
    return s;
fail:
    system_free(s);
    return NULL;
}

void system_free(system_t *s)
{
    if (!s)
        return;
    if (s->wl && s->wl->free && s->wl_state)
        s->wl->free(s->wl_state);
    if (s->cn)
        for (unsigned c = 0; c < s->ncn; c++) {
            if (s->cn[c].core)
                for (unsigned i = 0; i < s->cores; i++)
                    core_free(s->cn[c].core[i]);
            free(s->cn[c].core);
            cn_mem_free(s->cn[c].mem);
            cn_port_free(s->cn[c].port);
        }
    free(s->cn);
    if (s->mn)
        for (unsigned m = 0; m < s->nmn; m++)
            mn_node_free(s->mn[m]);
    free(s->mn);
    fabric_free(s->f);
    oracle_free(s->oracle);
    free(s->threads);
    free(s->thread_cn);
    free(s);
}

/* ---------------------------------------------------------------------------------------------
 * Loading and running a workload */

int system_load(system_t *s, const workload_t *w, unsigned nthreads, void *arg, char *err)
{
    const unsigned all = s->ncn * s->cores;
    if (!nthreads)
        nthreads = s->cfg->workload.threads ? (unsigned)s->cfg->workload.threads : all;
    if (nthreads > all) {
        snprintf(err, SYSTEM_ERR_MAX, "%u threads need as many cores, but the system has %u (%u CNs x %u cores)",
                 nthreads, all, s->ncn, s->cores);
        return -1;
    }
    if (s->loaded) {
        snprintf(err, SYSTEM_ERR_MAX, "a workload is already loaded");
        return -1;
    }
    s->nthreads = nthreads;
    s->thread_cn = calloc(nthreads, sizeof *s->thread_cn);
    s->threads = calloc(nthreads, sizeof *s->threads);
    /* Round-robin over the CNs: thread i on CN i mod num_cn, core i / num_cn. */
    for (unsigned i = 0; i < nthreads; i++)
        s->thread_cn[i] = i % s->ncn;
    s->env.nthreads = nthreads;
    s->env.thread_cn = s->thread_cn;
    char werr[WL_ERR_MAX] = "";
    s->wl_state = arg;
    if (w->setup(&s->env, &s->wl_state, werr)) {
        snprintf(err, SYSTEM_ERR_MAX, "%s", werr);
        return -1;
    }
    s->wl = w;
    s->loaded = true;
    return 0;
}

static void quiet_poll(void *obj, uint64_t arg)
{
    (void)arg;
    system_t *s = obj;
    bool quiet = fabric_quiet(s->f);
    for (unsigned c = 0; quiet && c < s->ncn; c++)
        quiet = cn_mem_idle(s->cn[c].mem);
    for (unsigned m = 0; quiet && m < s->nmn; m++)
        quiet = mn_node_idle(s->mn[m]);
    if (quiet) {
        s->quiet = true;
        kernel_stop(s->k);
        return;
    }
    kernel_after(s->k, 64 * fabric_period_ps(s->f), quiet_poll, s, 0);
}

static void thread_exit(void *obj)
{
    system_t *s = obj;
    if (++s->finished == s->nthreads) {
        s->end_ps = s->k->now;
        quiet_poll(s, 0);
    }
}

static uint64_t progress_measure(void *obj) { return system_instructions(obj); }

run_end_e system_run(system_t *s, uint64_t end_ps, progress_t *line)
{
    if (!s->started) {
        s->started = true;
        s->start_ps = s->k->now;
        for (unsigned i = 0; i < s->nthreads; i++) {
            unsigned cn = s->thread_cn[i], core = i / s->ncn;
            wl_thread_t *t = &s->threads[i];
            t->tid = i;
            t->nthreads = s->nthreads;
            t->seed = s->cfg->sim.seed * 0x9e3779b97f4a7c15ull + i;
            core_run(s->cn[cn].core[core], t, s->wl->thread, s->wl_state, s->start_ps, thread_exit, s);
        }
    }
    run_params_t rp = {
        .end_ps = end_ps,
        .stall_timeout_ps = s->cfg->sim.stall_timeout_ps,
        .progress = progress_measure,
        .obj = s,
        .line = line,
    };
    run_end_e e = run_loop(s->k, &rp);
    if (e == RUN_DONE && !s->quiet)
        e = RUN_IDLE; /* stopped by someone else */

    if (s->end_ps) {
        *s->g_exec_ns = (double)(s->end_ps - s->start_ps) / (double)PS_PER_NS;
        *s->c_instr = system_instructions(s);
        *s->c_threads = s->nthreads;
        double cycles = (double)(s->end_ps - s->start_ps) * (double)s->cfg->core.freq_hz / (double)PS_PER_S;
        *s->g_ipc = cycles > 0 ? (double)system_instructions(s) / cycles / s->nthreads : 0.0;
        for (unsigned c = 0; c < s->ncn; c++)
            for (unsigned l = 0; l < 3; l++) {
                const sys_cn_t *n = &s->cn[c];
                uint64_t a = *n->hits[l] + *n->misses[l];
                *n->hit_rate[l] = a ? (double)*n->hits[l] / (double)a : 0.0;
            }
    }
    return e;
}

static uint64_t oracle_peek(void *obj, uint64_t addr) { return system_peek(obj, 0, addr); }

int system_check(system_t *s, FILE *f, size_t max_lines, oracle_report_t *r, char *err)
{
    oracle_check(s->oracle, oracle_peek, s, f, max_lines, r);
    *s->c_or_words = r->words;
    *s->c_or_stores = r->stores;
    *s->c_or_ok = r->ok;
    *s->c_or_lost = r->lost;
    *s->c_or_phantom = r->phantom;
    size_t viol = system_violations(s);
    if (viol) {
        snprintf(err, SYSTEM_ERR_MAX, "the directories reported %zu protocol violations", viol);
        return -1;
    }
    if (r->lost || r->phantom) {
        snprintf(err, SYSTEM_ERR_MAX, "oracle: %" PRIu64 " of %" PRIu64 " words wrong (%" PRIu64 " lost, %" PRIu64
                 " phantom)", r->lost + r->phantom, r->words, r->lost, r->phantom);
        return -1;
    }
    if (s->wl && s->wl->check) {
        char werr[WL_ERR_MAX] = "";
        if (s->wl->check(&s->env, s->wl_state, werr)) {
            snprintf(err, SYSTEM_ERR_MAX, "workload %s: %s", s->wl->name, werr);
            return -1;
        }
    }
    return 0;
}

uint64_t system_exec_ps(const system_t *s) { return s->end_ps ? s->end_ps - s->start_ps : 0; }

uint64_t system_instructions(const system_t *s)
{
    uint64_t n = 0;
    for (unsigned c = 0; c < s->ncn; c++)
        for (unsigned i = 0; i < s->cores; i++)
            n += core_instructions(s->cn[c].core[i]);
    return n;
}

unsigned system_threads(const system_t *s) { return s->nthreads; }

fabric_t *system_fabric(system_t *s) { return s->f; }

size_t system_violations(const system_t *s)
{
    size_t n = 0;
    for (unsigned m = 0; m < s->nmn; m++)
        n += mn_node_violations(s->mn[m]);
    return n;
}

void system_dump(const system_t *s, FILE *f)
{
    fprintf(f, "system at %" PRIu64 " ps: %u of %u threads finished\n", s->k->now, s->finished, s->nthreads);
    for (unsigned c = 0; c < s->ncn; c++) {
        for (unsigned i = 0; i < s->cores; i++)
            if (!core_idle(s->cn[c].core[i]))
                core_dump(s->cn[c].core[i], f);
        if (!cn_mem_idle(s->cn[c].mem))
            cn_mem_dump(s->cn[c].mem, f);
    }
    for (unsigned m = 0; m < s->nmn; m++)
        if (!mn_node_idle(s->mn[m]) || mn_node_violations(s->mn[m]))
            mn_node_dump(s->mn[m], f);
}
