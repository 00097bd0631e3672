/* diktamo_bench: the speed benchmarks.
 *   kernel  events per second of the event queue (a few thousand self-rescheduling chains with
 *           random delays: the shape of a simulation's C side);
 *   fabric  cycles per second of each linked fabric_top shape (fast flavour): busy (every port at
 *           full load, every cycle clocked) and light (5 % load, idle cycles skipped: simulated
 *           fabric cycles per wall second), each with one host thread and with two (the switch
 *           evaluated on the second, beside the traffic: csim/drv/fabric.h);
 *   system  the whole system (cores, caches, the RTL switch and directories, fast flavour) running
 *           each workload under WB and under DIKTAMO-proactive (with the Verilated Logging Units)
 *           on sim_configs/small.ini and sim_configs/paper.ini: simulated instructions per wall
 *           second (all cores together), fabric cycles per wall second (simulated and clocked);
 *           the same threads on the core model alone over a flat memory
 *           (csim/sys/flat_run.h) and the ratio of the two speeds; the shares of the row's host time
 *           by zone (csim/base/hostprof.h). The paper.ini rows run again with two host threads
 *           (sim.threads = 2: the switch evaluated on a second thread, csim/drv/fabric.h), with the
 *           CPU time of both; small.ini's DIKTAMO-proactive rows with a thread compressing the
 *           LUs' dumps ahead (sim.zlib_threads = 1, csim/drv/lu_zlib.h). The goals (docs/architecture.md section 13) are 2 M
 *           instructions/s for 64 cores with the full RTL fabric under WB, 1 M under
 *           DIKTAMO-proactive: the paper.ini rows say where they stand. The paper rows are short (the
 *           cold start of paper.ini's inputs); the paper-long rows run the paper's input shapes for
 *           a few seconds each, the speed of a long run past its start.
 *   goals   each speed goal (docs/architecture.md section 13) against the rows that measure it
 *           (measured, target, met).
 * Options (csim/base/bench_opts.h): --out DIR, --only PATTERN (repeatable: the rows whose name holds it),
 * --scale X (the kernel and fabric rows' work times X), --repeat N (each fabric and system row run
 * N times; the median is kept and the spread, fastest over slowest, shown), --no-profile (no
 * sampling of where the system rows' host time goes: their host_* columns 0). A failed row is named
 * at the end (exit status 1); bad arguments exit 2.
 * Prints tables and writes build/bench/{kernel,fabric,system,goals}.{json,csv} (or under --out DIR).
 * Speed is measured here, never asserted in tests. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/bench_opts.h"
#include "base/config.h"
#include "base/hostprof.h"
#include "base/kernel.h"
#include "base/outfile.h"
#include "base/progress.h"
#include "base/rng.h"
#include "base/stats.h"
#include "cn/lu_node.h"
#include "cn/wl_api.h"
#include "drv/fabric.h"
#include "gen/traffic.h"
#include "mn/mn_node.h"
#include "sys/flat_run.h"
#include "sys/system.h"

/* ---- kernel ---- */

typedef struct chain {
    kernel_t *k;
    rng_t rng;
    uint64_t left;
} chain_t;

static void chain_event(void *obj, uint64_t arg)
{
    (void)arg;
    chain_t *c = obj;
    if (c->left-- > 0)
        kernel_after(c->k, 1 + rng_below(&c->rng, 10000), chain_event, c, 0);
}

static double bench_kernel(unsigned chains, uint64_t events_per_chain, uint64_t *events)
{
    kernel_t k;
    kernel_init(&k);
    chain_t *c = calloc(chains, sizeof *c);
    if (!c)
        abort();
    for (unsigned i = 0; i < chains; i++) {
        c[i] = (chain_t){.k = &k, .left = events_per_chain};
        rng_init(&c[i].rng, i + 1);
        kernel_at(&k, i, chain_event, &c[i], 0);
    }
    double t0 = progress_wall_seconds();
    kernel_run(&k, UINT64_MAX);
    double dt = progress_wall_seconds() - t0;
    *events = k.events;
    kernel_free(&k);
    free(c);
    return dt;
}

/* ---- fabric ---- */

typedef struct fab_result {
    double wall, cycles_per_s, clocked_per_s, msgs_per_s;
    uint64_t cycles, clocked, msgs;
} fab_result_t;

static void stop(void *obj) { kernel_stop(obj); }

static int bench_fabric(const fabric_model_ops_t *ops, double load, bool skip, unsigned threads, uint64_t count,
                        fab_result_t *res)
{
    kernel_t k;
    kernel_init(&k);
    if (kernel_set_threads(&k, threads)) {
        perror("diktamo_bench: cannot start a second host thread");
        return -1;
    }
    stats_t st;
    if (stats_init(&st)) {
        kernel_free(&k);
        return -1;
    }
    fabric_params_t fp = {.freq_hz = 1000000000ull, .link_latency_ps = 35000, .rx_credits = 8, .skip_idle = skip,
                          .seed = 1, .reset_cycles = 4, .heartbeat_cycles = 256, .silence_cycles = 4096,
                          .accept_cycles = 65536};
    fabric_t *f = fabric_create(&k, ops, &fp, &st);
    if (!f)
        return -1;
    traffic_params_t tp = {.load = load, .count = count, .seed = 1, .ordered = true};
    traffic_t *t = traffic_create(&k, f, &tp, &st, stop, &k);
    double t0 = progress_wall_seconds();
    kernel_run(&k, UINT64_MAX);
    double dt = progress_wall_seconds() - t0;
    int bad = !traffic_done(t) || traffic_errors(t);
    *res = (fab_result_t){
        .wall = dt,
        .cycles = fabric_cycles(f),
        .clocked = fabric_cycles_ticked(f),
        .msgs = traffic_received(t),
    };
    res->cycles_per_s = (double)res->cycles / dt;
    res->clocked_per_s = (double)res->clocked / dt;
    res->msgs_per_s = (double)res->msgs / dt;
    traffic_free(t);
    fabric_free(f);
    kernel_free(&k);
    stats_free(&st);
    return bad ? -1 : 0;
}


/* ---- system ---- */

typedef struct sys_result {
    double wall, instr_per_s, cycles_per_s, clocked_per_s, exec_us;
    uint64_t instr, cycles, clocked;
    unsigned threads;         /* simulated threads */
    unsigned host_threads;    /* sim.threads + sim.zlib_threads */
    double cpu;               /* the run's host CPU seconds, every host thread's */
    hostprof_t prof;          /* where the run's host time went */
    double core_instr_per_s;  /* the core model alone (flat_run) on the same threads */
    double ratio;             /* instr_per_s / core_instr_per_s */
} sys_result_t;

/* The flat memory's latency for the core model alone: an L1 hit's round trip (Table II: 5 cycles). */
static uint64_t flat_latency_ps(const sim_config_t *c)
{
    return c->l1.latency_cycles * PS_PER_S / c->core.freq_hz;
}

/* The registry index of the workload called name (one of the registry's). */
static unsigned wl_index(const char *name)
{
    unsigned i = 0;
    while (workloads[i] && strcmp(workloads[i]->name, name))
        i++;
    return i;
}

/* Runs workload wname on config path under WB, or what the sets say; 0, or -1 with a message. */
static int bench_system(const char *path, const char *wname, const char *const *sets, bool profile,
                        sys_result_t *res)
{
    sim_config_t c;
    config_err_t e;
    config_defaults(&c);
    if (config_load(&c, path, &e))
        goto bad_cfg;
    char w[64];
    snprintf(w, sizeof w, "workload.name=%s", wname);
    if (config_set(&c, w, &e) || config_set(&c, "core.protocol=wb", &e) || config_set(&c, "sim.progress=false", &e))
        goto bad_cfg;
    for (const char *const *x = sets; *x; x++)
        if (config_set(&c, *x, &e))
            goto bad_cfg;
    if (config_validate(&c, &e))
        goto bad_cfg;
    const fabric_model_ops_t *ops = fabric_model_find((unsigned)c.system.num_cn, (unsigned)c.system.num_mn);
    if (!ops) {
        fprintf(stderr, "diktamo_bench: %s: no fabric model c%llum%llu linked (BENCH_FABRIC_SHAPES)\n", path,
                (unsigned long long)c.system.num_cn, (unsigned long long)c.system.num_mn);
        return -1;
    }
    kernel_t k;
    kernel_init(&k);
    stats_t st;
    stats_init(&st);
    char err[SYSTEM_ERR_MAX];
    system_t *s = system_create(&k, &c, ops, &dir_ops_sys, &lu_ops_sys, true, &st, err);
    int rc = -1;
    if (!s || system_load(s, workload_find(wname), 0, NULL, err)) {
        fprintf(stderr, "diktamo_bench: %s %s: %s\n", path, wname, err);
        goto out;
    }
    hostprof_t prof = {0};
    int prof_ok = profile && hostprof_start() == 0;
    double t0 = progress_wall_seconds(), c0 = hostprof_cpu_seconds();
    run_end_e how = system_run(s, c.sim.end_time_ps, NULL);
    double dt = progress_wall_seconds() - t0, dc = hostprof_cpu_seconds() - c0;
    if (prof_ok)
        hostprof_stop(&prof);
    oracle_report_t rep;
    if (how != RUN_DONE || system_check(s, NULL, 0, &rep, err)) {
        fprintf(stderr, "diktamo_bench: %s %s: the run %s\n", path, wname,
                how != RUN_DONE ? run_end_name(how) : err);
        goto out;
    }
    fabric_t *f = system_fabric(s);
    *res = (sys_result_t){
        .wall = dt,
        .instr = system_instructions(s),
        .cycles = fabric_cycles(f),
        .clocked = fabric_cycles_ticked(f),
        .threads = system_threads(s),
        .host_threads = (unsigned)(c.sim.threads + c.sim.zlib_threads),
        .cpu = dc,
        .exec_us = (double)system_exec_ps(s) / (double)PS_PER_US,
    };
    res->instr_per_s = (double)res->instr / dt;
    res->cycles_per_s = (double)res->cycles / dt;
    res->clocked_per_s = (double)res->clocked / dt;
    res->prof = prof;
    /* The same threads on the core model alone, over a flat memory. */
    flat_run_result_t fr;
    char ferr[FLAT_RUN_ERR_MAX];
    if (flat_run(&c, workload_find(wname), flat_latency_ps(&c), &fr, ferr)) {
        fprintf(stderr, "diktamo_bench: %s %s: the core model alone: %s\n", path, wname, ferr);
        goto out;
    }
    res->core_instr_per_s = fr.wall_s > 0 ? (double)fr.instructions / fr.wall_s : 0.0;
    res->ratio = res->core_instr_per_s > 0 ? res->instr_per_s / res->core_instr_per_s : 0.0;
    rc = 0;
out:
    system_free(s);
    stats_free(&st);
    kernel_free(&k);
    return rc;
bad_cfg:
    fprintf(stderr, "diktamo_bench: %s\n", e.msg);
    return -1;
}

/* Rows that failed, named at the end (every row runs whatever an earlier one did). */
typedef struct failures {
    char names[64][160]; /* as long as a row's name */
    unsigned n;
} failures_t;

static void failed(failures_t *fl, const char *name)
{
    if (fl->n < 64)
        snprintf(fl->names[fl->n], sizeof fl->names[0], "%s", name);
    fl->n++;
}

/* Writes DIR/NAME.{json,csv}; nothing when no row of the table ran (--only left it out), so that an
 * earlier full run's files stay. */
static int wr_json(const void *st, FILE *f) { return stats_write_json(st, f); }
static int wr_csv(const void *t, FILE *f) { return stats_table_write_csv(t, f); }

static int write_outputs(const char *dir, const char *name, const stats_t *st, const stats_table_t *tab)
{
    if (tab->nrows == 0)
        return 0;
    char p[1024], why[256];
    snprintf(p, sizeof p, "%s/%s.json", dir, name);
    if (outfile_write(p, wr_json, st, why, sizeof why)) {
        fprintf(stderr, "diktamo_bench: cannot write %s: %s\n", p, why);
        return -1;
    }
    snprintf(p, sizeof p, "%s/%s.csv", dir, name);
    if (outfile_write(p, wr_csv, tab, why, sizeof why)) {
        fprintf(stderr, "diktamo_bench: cannot write %s: %s\n", p, why);
        return -1;
    }
    return 0;
}

/* The index of the median of n speeds (the lower middle one for an even n), and in *spread (unless
 * NULL) the fastest over the slowest. */
static unsigned median_of(const double *v, unsigned n, double *spread)
{
    unsigned idx[BENCH_MAX_REPEAT];
    for (unsigned i = 0; i < n; i++) {
        unsigned k = i;
        for (; k > 0 && v[idx[k - 1]] > v[i]; k--)
            idx[k] = idx[k - 1];
        idx[k] = i;
    }
    if (spread)
        *spread = v[idx[0]] > 0 ? v[idx[n - 1]] / v[idx[0]] : 0.0;
    return idx[(n - 1) / 2];
}

/* The speed goals, each against the rows it is measured on: met when measured >= target. */
typedef struct goals {
    struct {
        char key[96], what[160], row[160]; /* key: its name in goals.json */
        double measured, target;
    } g[64];
    unsigned n;
} goals_t;

static void goal_add(goals_t *gl, const char *key, const char *what, const char *row, double measured,
                     double target)
{
    if (gl->n == sizeof gl->g / sizeof gl->g[0])
        return;
    snprintf(gl->g[gl->n].key, sizeof gl->g[0].key, "%s", key);
    snprintf(gl->g[gl->n].what, sizeof gl->g[0].what, "%s", what);
    snprintf(gl->g[gl->n].row, sizeof gl->g[0].row, "%s", row);
    gl->g[gl->n].measured = measured;
    gl->g[gl->n].target = target;
    gl->n++;
}

/* A goal of system row tag's workload wl: named goals.<tag>.<wl>.<what> in goals.json. */
static void goal_add_row(goals_t *gl, const char *tag, const char *wl, const char *what, const char *desc,
                         const char *row, double measured, double target)
{
    char key[96];
    snprintf(key, sizeof key, "%s.%s.%s", tag, wl, what);
    goal_add(gl, key, desc, row, measured, target);
}

/* Built with a profile (scripts/pgo.sh: the Makefile defines it then): the goals say so. */
#ifndef DIKTAMO_PGO
#define DIKTAMO_PGO 0
#endif

/* Prints the goals' table and writes DIR/goals.{json,csv}. */
static void goals_write(const goals_t *gl, const char *dir, failures_t *fl)
{
    const char *cols[] = {"goal", "row", "measured", "target", "of_target", "met"};
    stats_table_t *t = stats_table_new("goals: the speed goals (docs/architecture.md section 13) on this run's "
                                       "rows (of_target: measured / target)",
                                       6, cols);
    stats_t s;
    stats_init(&s);
    unsigned met = 0;
    for (unsigned i = 0; i < gl->n; i++) {
        const double of = gl->g[i].measured / gl->g[i].target;
        stats_table_add_row(t);
        stats_table_set(t, 0, "%s", gl->g[i].what);
        stats_table_set(t, 1, "%s", gl->g[i].row);
        stats_table_set(t, 2, gl->g[i].target >= 1000 ? "%.0f" : "%.3f", gl->g[i].measured);
        stats_table_set(t, 3, gl->g[i].target >= 1000 ? "%.0f" : "%.2f", gl->g[i].target);
        stats_table_set(t, 4, "%.2f", of);
        stats_table_set(t, 5, "%s", of >= 1.0 ? "yes" : "no");
        met += of >= 1.0;
        char name[160];
        snprintf(name, sizeof name, "goals.%s.measured", gl->g[i].key);
        *stats_gauge(&s, name, "what the row measured") = gl->g[i].measured;
        snprintf(name, sizeof name, "goals.%s.target", gl->g[i].key);
        *stats_gauge(&s, name, "the goal (met when measured >= target)") = gl->g[i].target;
        snprintf(name, sizeof name, "goals.%s.of_target", gl->g[i].key);
        *stats_gauge(&s, name, "measured / target") = of;
    }
    *stats_gauge(&s, "goals.met", "goals met") = met;
    *stats_gauge(&s, "goals.total", "goals measured") = gl->n;
    *stats_gauge(&s, "goals.pgo", "1: measured by a build with profile-guided and link-time optimization "
                                  "(make bench), 0: by the plain fast build (make bench PLAIN=1)") = DIKTAMO_PGO;
    stats_table_print(t, stdout);
    printf("goals: %u of %u met (%s)\n", met, gl->n,
           DIKTAMO_PGO ? "built with profile-guided and link-time optimization" : "the plain fast build");
    if (write_outputs(dir, "goals", &s, t))
        failed(fl, "goals (writing the results)");
    stats_table_free(t);
    stats_free(&s);
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    char err[256];
    if (bench_opts_parse(argc, argv, &o, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    const char *out = o.out;
    const double scale = o.scale;
    static const char *const outs[] = {"kernel.json", "kernel.csv", "fabric.json", "fabric.csv",
                                       "system.json", "system.csv", "goals.json",  "goals.csv"};
    if (outfile_check_dir("diktamo_bench", out, outs, sizeof outs / sizeof outs[0]))
        return 2;
    failures_t fl = {.n = 0};
    char row[160], name[160];
    goals_t gl = {.n = 0};

    /* kernel */
    stats_t ks;
    stats_init(&ks);
    const char *kcols[] = {"chains", "events", "wall_s", "events_per_s"};
    stats_table_t *kt = stats_table_new("kernel: event queue", 4, kcols);
    const unsigned chains[] = {16, 1024, 65536};
    for (unsigned i = 0; i < 3; i++) {
        snprintf(row, sizeof row, "kernel chains%u", chains[i]);
        if (!bench_opts_selected(&o, row))
            continue;
        uint64_t ev;
        double dt = bench_kernel(chains[i], (uint64_t)(scale * 4000000 / chains[i]), &ev);
        stats_table_add_row(kt);
        stats_table_set(kt, 0, "%u", chains[i]);
        stats_table_set(kt, 1, "%llu", (unsigned long long)ev);
        stats_table_set(kt, 2, "%.3f", dt);
        stats_table_set(kt, 3, "%.0f", (double)ev / dt);
        char name[96];
        snprintf(name, sizeof name, "kernel.chains%u.events_per_s", chains[i]);
        *stats_gauge(&ks, name, "kernel events run per wall second") = (double)ev / dt;
    }
    if (kt->nrows)
        stats_table_print(kt, stdout);
    if (write_outputs(out, "kernel", &ks, kt))
        failed(&fl, "kernel (writing the results)");
    stats_table_free(kt);
    stats_free(&ks);

    /* fabric */
    stats_t fs;
    stats_init(&fs);
    const char *fcols[] = {"model", "ports", "mode", "load", "fabric_cycles", "clocked", "wall_s", "clocked_cycles_per_s",
                           "sim_cycles_per_s", "msgs_per_s", "runs", "spread"};
    stats_table_t *ft = stats_table_new("fabric: Verilated fabric_top (fast flavour); the median of runs; spread: "
                                        "the fastest run's speed over the slowest's",
                                        sizeof fcols / sizeof fcols[0], fcols);
    double fab32[4] = {0}; /* the 16 + 16 fabric's simulated cycles per second: runs[]' rows */
    for (const fabric_model_ops_t *const *m = fabric_models; *m; m++) {
        const struct {
            const char *mode;
            double load;
            bool skip;
            unsigned threads;
        } runs[] = {{"busy", 1.0, false, 1},
                    {"light", 0.05, true, 1},
                    {"2threads-busy", 1.0, false, 2},
                    {"2threads-light", 0.05, true, 2}};
        const unsigned ports = (*m)->num_cn + (*m)->num_mn;
        fab_result_t one[2] = {{0}}; /* the one-thread rows' runs, which the two-thread ones must repeat */
        for (unsigned r = 0; r < sizeof runs / sizeof runs[0]; r++) {
            snprintf(row, sizeof row, "fabric %s %s", (*m)->name, runs[r].mode);
            if (!bench_opts_selected(&o, row))
                continue;
            uint64_t count = (uint64_t)(scale * (runs[r].skip ? 2000 : 64000 / ports));
            fab_result_t reps[BENCH_MAX_REPEAT];
            double speed[BENCH_MAX_REPEAT];
            bool bad = false;
            for (unsigned i = 0; i < o.repeat && !bad; i++)
                if (!(bad = bench_fabric(*m, runs[r].load, runs[r].skip, runs[r].threads, count, &reps[i]) != 0))
                    speed[i] = reps[i].cycles_per_s;
            if (bad) {
                fprintf(stderr, "diktamo_bench: %s %s: the traffic did not all come back\n", (*m)->name, runs[r].mode);
                failed(&fl, row);
                continue;
            }
            double spread;
            const fab_result_t res = reps[median_of(speed, o.repeat, &spread)];
            const fab_result_t *o1 = r >= 2 && one[r - 2].cycles ? &one[r - 2] : NULL;
            if (r < 2) {
                one[r] = res;
            } else if (o1 && (res.cycles != o1->cycles || res.clocked != o1->clocked || res.msgs != o1->msgs)) {
                fprintf(stderr,
                        "diktamo_bench: %s %s: not the run of one thread (cycles %llu / %llu, clocked %llu / %llu, "
                        "messages %llu / %llu)\n",
                        (*m)->name, runs[r].mode, (unsigned long long)res.cycles, (unsigned long long)o1->cycles,
                        (unsigned long long)res.clocked, (unsigned long long)o1->clocked,
                        (unsigned long long)res.msgs, (unsigned long long)o1->msgs);
                failed(&fl, row);
                continue;
            }
            if (ports == 32)
                fab32[r] = res.cycles_per_s;
            stats_table_add_row(ft);
            stats_table_set(ft, 0, "%s", (*m)->name);
            stats_table_set(ft, 1, "%u", ports);
            stats_table_set(ft, 2, "%s", runs[r].mode);
            stats_table_set(ft, 3, "%.2f", runs[r].load);
            stats_table_set(ft, 4, "%llu", (unsigned long long)res.cycles);
            stats_table_set(ft, 5, "%llu", (unsigned long long)res.clocked);
            stats_table_set(ft, 6, "%.3f", res.wall);
            stats_table_set(ft, 7, "%.0f", res.clocked_per_s);
            stats_table_set(ft, 8, "%.0f", res.cycles_per_s);
            stats_table_set(ft, 9, "%.0f", res.msgs_per_s);
            stats_table_set(ft, 10, "%u", o.repeat);
            stats_table_set(ft, 11, "%.2f", spread);
            snprintf(name, sizeof name, "fabric.%s.%s.clocked_cycles_per_s", (*m)->name, runs[r].mode);
            *stats_gauge(&fs, name, "RTL cycles clocked per wall second") = res.clocked_per_s;
            snprintf(name, sizeof name, "fabric.%s.%s.sim_cycles_per_s", (*m)->name, runs[r].mode);
            *stats_gauge(&fs, name, "simulated fabric cycles (clocked + skipped) per wall second") = res.cycles_per_s;
            snprintf(name, sizeof name, "fabric.%s.%s.msgs_per_s", (*m)->name, runs[r].mode);
            *stats_gauge(&fs, name, "messages through the fabric per wall second") = res.msgs_per_s;
        }
    }
    if (ft->nrows)
        stats_table_print(ft, stdout);
    if (write_outputs(out, "fabric", &fs, ft))
        failed(&fl, "fabric (writing the results)");
    stats_table_free(ft);
    stats_free(&fs);
    /* system */
    stats_t ss;
    stats_init(&ss);
    const char *scols[] = {"config",   "workload",   "threads",   "instructions", "sim_us",
                           "fabric_cycles", "clocked", "wall_s",    "instr_per_s",  "sim_cycles_per_s",
                           "clocked_cycles_per_s",    "core_instr_per_s", "ratio", "host_fabric", "host_lu",
                           "host_dir", "host_models", "host_kernel", "host_wait", "host_threads", "cpu_s",
                           "runs", "spread"};
    stats_table_t *st = stats_table_new("system: workloads on the whole system (fast flavour); core_instr_per_s: the "
                                        "core model alone on the same threads over a flat memory; host_*: shares "
                                        "of host time (sampled; wait: a host thread waiting for another); "
                                        "host_threads: sim.threads + sim.zlib_threads (the switch evaluated on "
                                        "a second host thread; the LUs' dumps compressed ahead), cpu_s: their "
                                        "CPU time; the median of runs (by instr_per_s; core_instr_per_s the median "
                                        "of its own), spread: the fastest run's speed over the slowest's",
                                        sizeof scols / sizeof scols[0], scols);
    /* small.ini's MNs are 2 MiB (4 MiB of CXL memory): ycsb keeps run.ini's 1024 records (2 MiB of table).
     * The short paper rows run each application at paper.ini's sizes cut short (one ocean sweep, one
     * fluidanimate frame, one bodytrack layer, a chunk of 128 streamcluster points, four canneal steps, a
     * 16 x 16 raytrace image, one barnes step, 512 ycsb operations): mostly the cold start of a run. The
     * paper-long rows run the paper's input shapes for longer (FULL=1's 256-point ocean grid; 4096
     * fluidanimate particles; a YCSB table of 100 000 records, 1/16 of the paper's, 100 MB against 8 MB
     * of L3 per CN): the speed of a long run such as make figures FULL=1's, past its start. goal: the
     * instructions per second the speed goals ask of the row (0: none); wb64: the row's ratio to the
     * core model alone has the goal of 0.25 (64 cores under WB); vs_wb: the row (tag) under WB of
     * which this one must reach half the speed. */
#define SMALL "sim_configs/small.ini"
#define PAPER "sim_configs/paper.ini"
#define SMALL_YCSB "workload.ycsb_records=1024", "workload.ycsb_ops=256"
#define PAPER_SHORT                                                                                          \
    "workload.ocean_iters=1", "workload.fluidanimate_frames=1", "workload.bodytrack_layers=1",                   \
        "workload.streamcluster_points=128", "workload.canneal_steps=4", "workload.raytrace_image=16",           \
        "workload.barnes_steps=1", "workload.ycsb_ops=512"
#define PAPER_LONG                                                                                           \
    "workload.ocean_grid=256", "workload.ocean_iters=4", "workload.fluidanimate_particles=4096",                 \
        "workload.fluidanimate_frames=1", "workload.ycsb_records=100000", "workload.ycsb_ops=6000"
    const struct {
        const char *cfg, *tag;
        const char *sets[16];
        double goal;
        bool wb64;
        bool all; /* every application of the paper, not the three */
        const char *vs_wb;
    } sruns[] = {
        {.cfg = SMALL, .tag = "small", .sets = {SMALL_YCSB, NULL}},
        {.cfg = SMALL, .tag = "small-proactive", .sets = {SMALL_YCSB, "core.protocol=proactive", NULL},
         .vs_wb = "small"},
        {.cfg = SMALL, .tag = "small-proactive-zlib1",
         .sets = {SMALL_YCSB, "core.protocol=proactive", "sim.zlib_threads=1", NULL}},
        {.cfg = PAPER, .tag = "paper", .sets = {PAPER_SHORT, NULL}, .goal = 2e6, .wb64 = true, .all = true},
        {.cfg = PAPER, .tag = "paper-proactive", .sets = {PAPER_SHORT, "core.protocol=proactive", NULL}, .goal = 1e6,
         .all = true},
        {.cfg = PAPER, .tag = "paper-2threads", .sets = {PAPER_SHORT, "sim.threads=2", NULL}, .goal = 2e6,
         .wb64 = true},
        {.cfg = PAPER, .tag = "paper-proactive-2threads",
         .sets = {PAPER_SHORT, "core.protocol=proactive", "sim.threads=2", NULL}, .goal = 1e6},
        {.cfg = PAPER, .tag = "paper-long", .sets = {PAPER_LONG, NULL}, .goal = 2e6, .wb64 = true},
        {.cfg = PAPER, .tag = "paper-long-proactive", .sets = {PAPER_LONG, "core.protocol=proactive", NULL},
         .goal = 1e6},
        {.cfg = PAPER, .tag = "paper-long-2threads", .sets = {PAPER_LONG, "sim.threads=2", NULL}, .goal = 2e6,
         .wb64 = true},
        {.cfg = PAPER, .tag = "paper-long-proactive-2threads",
         .sets = {PAPER_LONG, "core.protocol=proactive", "sim.threads=2", NULL}, .goal = 1e6},
    };
#undef SMALL
#undef PAPER
#undef SMALL_YCSB
#undef PAPER_SHORT
#undef PAPER_LONG
    enum { NSRUNS = sizeof sruns / sizeof sruns[0] };
    /* The rows' workloads: the short paper rows run every application of the paper (the workloads
     * before hcmeta), the others the three that stand for them (a stencil with barriers, particles
     * under locks, the key-value store). */
    static const char *const three[] = {"ocean_cp", "fluidanimate", "ycsb"};
    double sspeed[NSRUNS][CFG_WL_HCMETA] = {{0}}; /* each row's instructions per second (0: did not run) */
    for (unsigned i = 0; i < NSRUNS; i++)
        for (unsigned jj = 0; jj < (sruns[i].all ? (unsigned)CFG_WL_HCMETA : 3u); jj++) {
            const char *wl = sruns[i].all ? workloads[jj]->name : three[jj];
            const unsigned j = wl_index(wl);
            snprintf(row, sizeof row, "system %s %s", sruns[i].tag, wl);
            if (!bench_opts_selected(&o, row))
                continue;
            sys_result_t reps[BENCH_MAX_REPEAT];
            double speed[BENCH_MAX_REPEAT], core[BENCH_MAX_REPEAT];
            bool bad = false;
            for (unsigned n = 0; n < o.repeat && !bad; n++)
                if (!(bad = bench_system(sruns[i].cfg, wl, sruns[i].sets, o.profile, &reps[n]) != 0)) {
                    speed[n] = reps[n].instr_per_s;
                    core[n] = reps[n].core_instr_per_s;
                }
            if (bad) {
                failed(&fl, row);
                continue;
            }
            double spread;
            sys_result_t r = reps[median_of(speed, o.repeat, &spread)];
            r.core_instr_per_s = core[median_of(core, o.repeat, NULL)];
            r.ratio = r.core_instr_per_s > 0 ? r.instr_per_s / r.core_instr_per_s : 0.0;
            sspeed[i][j] = r.instr_per_s;
            if (sruns[i].goal > 0) {
                const bool pro = strstr(sruns[i].tag, "proactive") != NULL;
                snprintf(name, sizeof name, "%s instructions/s", pro ? "proactive" : "WB");
                goal_add_row(&gl, sruns[i].tag, wl, "instr_per_s", name, row, r.instr_per_s, sruns[i].goal);
            }
            if (sruns[i].wb64)
                goal_add_row(&gl, sruns[i].tag, wl, "ratio", "WB ratio to the core model alone", row, r.ratio,
                             0.25);
            for (unsigned k = 0; sruns[i].vs_wb && k < i; k++)
                if (!strcmp(sruns[k].tag, sruns[i].vs_wb) && sspeed[k][j] > 0)
                    goal_add_row(&gl, sruns[k].tag, wl, "proactive_vs_wb", "proactive's speed / WB's", row,
                                 r.instr_per_s / sspeed[k][j], 0.5);
            stats_table_add_row(st);
            stats_table_set(st, 0, "%s", sruns[i].tag);
            stats_table_set(st, 1, "%s", wl);
            stats_table_set(st, 2, "%u", r.threads);
            stats_table_set(st, 3, "%llu", (unsigned long long)r.instr);
            stats_table_set(st, 4, "%.1f", r.exec_us);
            stats_table_set(st, 5, "%llu", (unsigned long long)r.cycles);
            stats_table_set(st, 6, "%llu", (unsigned long long)r.clocked);
            stats_table_set(st, 7, "%.2f", r.wall);
            stats_table_set(st, 8, "%.0f", r.instr_per_s);
            stats_table_set(st, 9, "%.0f", r.cycles_per_s);
            stats_table_set(st, 10, "%.0f", r.clocked_per_s);
            stats_table_set(st, 11, "%.0f", r.core_instr_per_s);
            stats_table_set(st, 12, "%.3f", r.ratio);
            static const hostprof_zone_e zcol[] = {HOSTPROF_FABRIC, HOSTPROF_LU,     HOSTPROF_DIR,
                                                   HOSTPROF_MODELS, HOSTPROF_KERNEL, HOSTPROF_WAIT};
            for (unsigned z = 0; z < 6; z++)
                stats_table_set(st, 13 + z, "%.2f",
                                r.prof.total ? (double)r.prof.samples[zcol[z]] / (double)r.prof.total : 0.0);
            stats_table_set(st, 19, "%u", r.host_threads);
            stats_table_set(st, 20, "%.2f", r.cpu);
            stats_table_set(st, 21, "%u", o.repeat);
            stats_table_set(st, 22, "%.2f", spread);
            snprintf(name, sizeof name, "system.%s.%s.instr_per_s", sruns[i].tag, wl);
            *stats_gauge(&ss, name, "simulated instructions (all cores) per wall second") = r.instr_per_s;
            snprintf(name, sizeof name, "system.%s.%s.sim_cycles_per_s", sruns[i].tag, wl);
            *stats_gauge(&ss, name, "simulated fabric cycles per wall second") = r.cycles_per_s;
            snprintf(name, sizeof name, "system.%s.%s.clocked_cycles_per_s", sruns[i].tag, wl);
            *stats_gauge(&ss, name, "fabric cycles the RTL was clocked per wall second") = r.clocked_per_s;
            snprintf(name, sizeof name, "system.%s.%s.core_instr_per_s", sruns[i].tag, wl);
            *stats_gauge(&ss, name, "the core model alone on the same threads over a flat memory: instructions per "
                                    "wall second") = r.core_instr_per_s;
            snprintf(name, sizeof name, "system.%s.%s.cpu_s", sruns[i].tag, wl);
            *stats_gauge(&ss, name, "host CPU seconds of the run, every host thread's") = r.cpu;
            snprintf(name, sizeof name, "system.%s.%s.ratio", sruns[i].tag, wl);
            *stats_gauge(&ss, name, "instr_per_s / core_instr_per_s (the cost of the simulated memory system)") =
                r.ratio;
            for (unsigned z = 0; z < HOSTPROF_NZONES; z++) {
                snprintf(name, sizeof name, "system.%s.%s.host.%s", sruns[i].tag, wl,
                         hostprof_zone_name((hostprof_zone_e)z));
                *stats_gauge(&ss, name, "share of the run's host time in this part (sampled)") =
                    r.prof.total ? (double)r.prof.samples[z] / (double)r.prof.total : 0.0;
            }
        }
    if (st->nrows)
        stats_table_print(st, stdout);
    if (write_outputs(out, "system", &ss, st))
        failed(&fl, "system (writing the results)");
    stats_table_free(st);
    stats_free(&ss);
    /* the speed goals, from the rows that ran; the fabric's only from rows of their own length (a
     * shorter row is mostly its start) */
    if (scale != 1.0 && fab32[0] > 0)
        printf("goals: the fabric's goals are measured at --scale 1 only\n");
    if (scale == 1.0 && fab32[0] > 0)
        goal_add(&gl, "fabric_c16m16.busy_cycles_per_s", "16 + 16 fabric busy: clocked cycles/s", "fabric 16 + 16 busy",
                 fab32[0], 200000);
    if (scale == 1.0 && fab32[0] > 0 && fab32[1] > 0)
        goal_add(&gl, "fabric_c16m16.light_vs_busy", "16 + 16 fabric: busy cycle's host time / light one's",
                 "fabric 16 + 16 busy, light", fab32[1] / fab32[0], 5);
    if (scale == 1.0 && fab32[2] > 0)
        goal_add(&gl, "fabric_c16m16.busy_2threads_cycles_per_s", "16 + 16 fabric busy, two threads: clocked cycles/s",
                 "fabric 16 + 16 2threads-busy", fab32[2], 200000);
    if (gl.n)
        goals_write(&gl, out, &fl);
    printf("diktamo_bench: results in %s/{kernel,fabric,system,goals}.{json,csv}\n", out);
    if (fl.n) {
        fprintf(stderr, "diktamo_bench: %u row(s) failed:", fl.n);
        for (unsigned i = 0; i < fl.n && i < 64; i++)
            fprintf(stderr, "%s %s", i ? "," : "", fl.names[i]);
        fprintf(stderr, "\n");
        return 1;
    }
    return 0;
}
