/* diktamo_sim: the co-simulation. By default the whole cluster (csim/sys/system.h): the configured
 * workload's threads on the compute nodes' cores and caches, the RTL switch, the memory nodes'
 * Verilated directory controllers; at the end the oracle of committed stores and the workload's own
 * check. With --traffic: a seeded traffic generator on every port of the Verilated fabric instead
 * of the nodes, checked message by message (the fabric on its own).
 * Built twice per fabric shape: build/bin/diktamo_sim_c16m16 (the fast flavour of every model: no
 * assertions, no tracing) and build/bin/diktamo_sim_c16m16_test (the test flavour: assertions on,
 * --trace works); scripts/run_sim.sh picks the shape, and the test flavour for --trace. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "base/cli.h"
#include "base/config.h"
#include "base/kernel.h"
#include "base/outfile.h"
#include "base/progress.h"
#include "base/run.h"
#include "base/stats.h"
#include "cn/lu_node.h"
#include "drv/fabric.h"
#include "gen/traffic.h"
#include "mn/mn_node.h"
#include "sys/system.h"

static const char usage[] =
    "[--config FILE] [--set section.key=value]... [--seed N] [--trace FILE.fst [--trace-start T] "
    "[--trace-stop T]] [--stats FILE.json] [--no-skip] [--quiet] [--traffic] [--fail CN@[+]TIME]...";

typedef struct run {
    kernel_t *k;
    fabric_t *f;
    traffic_t *t;
} run_t;

static void on_done(void *obj) { kernel_stop(((run_t *)obj)->k); }

static uint64_t received(void *obj) { return traffic_received(obj); }

/* --fail CN@TIME: the CN fails (fail-stop) at its link; the traffic stops expecting anything of it. */
static void fail_event(void *obj, uint64_t cn)
{
    run_t *r = obj;
    fabric_fail_node(r->f, (unsigned)cn);
    traffic_node_failed(r->t, (unsigned)cn);
}

static void abort_event(void *obj, uint64_t arg)
{
    (void)obj;
    fprintf(stderr, "diktamo_sim: --abort-at reached at %llu ps: aborting on request\n", (unsigned long long)arg);
    abort();
}

/* The fabric on its own: the traffic generator on every port. Returns the exit status. */
static int run_traffic(const cli_opts_t *o, const sim_config_t *cfg, const fabric_model_ops_t *ops, kernel_t *k,
                       stats_t *st)
{
    const uint64_t seed = cfg->sim.seed;
    run_t r = {0};
    r.k = k;
    fabric_params_t fp = {
        .freq_hz = cfg->fabric.freq_hz,
        .link_latency_ps = cfg->fabric.link_latency_ps,
        .link_jitter_ps = cfg->fabric.link_jitter_ps,
        .rx_credits = (unsigned)config_link_credits(cfg),
        .skip_idle = !o->no_skip,
        .seed = seed,
        .reset_cycles = 4,
        .heartbeat_cycles = (uint32_t)cfg->fabric.heartbeat_cycles,
        .silence_cycles = (uint32_t)cfg->fabric.silence_cycles,
        .accept_cycles = (uint32_t)cfg->fabric.accept_cycles,
    };
    if (kernel_set_threads(r.k, (unsigned)cfg->sim.threads)) {
        perror("diktamo_sim: cannot start a second host thread");
        return 1;
    }
    r.f = fabric_create(r.k, ops, &fp, st);
    if (!r.f)
        return 1;
    if (o->trace) {
        if (outfile_make_dirs(o->trace) || fabric_trace_open(r.f, o->trace, o->trace_start_ps, o->trace_stop_ps)) {
            fprintf(stderr, "diktamo_sim: --trace: cannot write %s\n", o->trace);
            return 2;
        }
        printf("diktamo_sim: tracing to %s\n", o->trace);
    }
    traffic_params_t tp = {
        .load = cfg->traffic.load,
        .count = cfg->traffic.messages,
        .seed = seed,
        .ordered = cfg->fabric.link_jitter_ps == 0,
    };
    r.t = traffic_create(r.k, r.f, &tp, st, on_done, &r);
    if (o->abort_at_ps)
        kernel_at(r.k, o->abort_at_ps, abort_event, NULL, o->abort_at_ps);
    for (unsigned i = 0; i < o->nfails; i++)
        kernel_at(r.k, o->fail_ps[i], fail_event, &r, o->fail_cn[i]);

    progress_t pr;
    progress_init(&pr, cfg->sim.progress, "events");
    progress_set_target(&pr, cfg->sim.end_time_ps);
    const double wall0 = progress_wall_seconds();
    run_params_t rp = {
        .end_ps = cfg->sim.end_time_ps,
        .stall_timeout_ps = cfg->sim.stall_timeout_ps,
        .progress = received,
        .obj = r.t,
        .line = &pr,
    };
    const run_end_e how = run_loop(r.k, &rp);
    progress_finish(&pr);
    const double wall = progress_wall_seconds() - wall0;

    *stats_gauge(st, "run.sim_time_ns", "simulated time at the end of the run (ns)") =
        (double)r.k->now / (double)PS_PER_NS;
    *stats_gauge(st, "run.wall_s", "wall-clock seconds of the simulation loop") = wall;
    *stats_counter(st, "run.seed", "the run's seed") = seed;
    *stats_counter(st, "run.kernel_events", "events the kernel ran") = r.k->events;
    *stats_counter(st, "fabric.cycles", "fabric cycles elapsed (clocked + skipped)") = fabric_cycles(r.f);

    int status = 0;
    if (how == RUN_STALLED) {
        fprintf(stderr, "diktamo_sim: seed %llu: no progress for %llu ps at %llu ps; waiting:\n",
                (unsigned long long)seed, (unsigned long long)cfg->sim.stall_timeout_ps, (unsigned long long)r.k->now);
        traffic_dump_waiting(r.t, stderr);
        status = 1;
    } else if (how != RUN_DONE) {
        printf("diktamo_sim: sim.end_time reached with %llu of %llu messages back\n",
               (unsigned long long)traffic_received(r.t),
               (unsigned long long)(cfg->traffic.messages * fabric_num_ports(r.f)));
    }
    if (traffic_errors(r.t)) {
        fprintf(stderr, "diktamo_sim: seed %llu: %llu messages came back wrong\n", (unsigned long long)seed,
                (unsigned long long)traffic_errors(r.t));
        status = 1;
    }
    if (!o->quiet) {
        const stats_hist_t *lat = stats_find_hist(st, "traffic.latency_ns");
        printf("diktamo_sim: %llu messages sent, %llu arrived, %llu wrong; simulated %.3f us in %.2f s wall\n",
               (unsigned long long)traffic_sent(r.t), (unsigned long long)traffic_received(r.t),
               (unsigned long long)traffic_errors(r.t), (double)r.k->now / (double)PS_PER_US, wall);
        printf("diktamo_sim: fabric cycles %llu, clocked %llu (%.1f %%), %.0f clocked cycles/s, %.0f events/s\n",
               (unsigned long long)fabric_cycles(r.f), (unsigned long long)fabric_cycles_ticked(r.f),
               fabric_cycles(r.f) ? 100.0 * (double)fabric_cycles_ticked(r.f) / (double)fabric_cycles(r.f) : 0.0,
               wall > 0 ? (double)fabric_cycles_ticked(r.f) / wall : 0.0, wall > 0 ? (double)r.k->events / wall : 0.0);
        if (lat && lat->count)
            printf("diktamo_sim: latency (send to delivery) ns: mean %.1f, p50 %.0f, p99 %.0f, max %llu\n",
                   stats_hist_mean(lat), stats_hist_quantile(lat, 0.5), stats_hist_quantile(lat, 0.99),
                   (unsigned long long)lat->max);
        for (unsigned i = 0; i < o->nfails; i++)
            printf("diktamo_sim: CN %u failed at %.3f us\n", o->fail_cn[i], (double)o->fail_ps[i] / (double)PS_PER_US);
        unsigned nmsi;
        const traffic_msi_t *msi = traffic_msis(r.t, &nmsi);
        for (unsigned i = 0; i < nmsi && i < TRAFFIC_MAX_MSI; i++)
            printf("diktamo_sim: MSI: CN %u failed, told to CN %u (the CM) at %.3f us\n", msi[i].subject,
                   msi[i].port, (double)msi[i].t_ps / (double)PS_PER_US);
    }
    traffic_free(r.t);
    fabric_free(r.f);
    return status;
}

/* The cluster running the configured workload. Returns the exit status. */
static int run_workload(const cli_opts_t *o, const sim_config_t *cfg, const fabric_model_ops_t *ops, kernel_t *k,
                        stats_t *st)
{
    const uint64_t seed = cfg->sim.seed;
    char err[SYSTEM_ERR_MAX];
    const char *wname = config_workload_name(cfg->workload.name);
    const workload_t *w = workload_find(wname);
    if (!w) {
        fprintf(stderr, "diktamo_sim: workload.name: %s is not linked into this program\n", wname);
        return 1;
    }
    const bool dk = cfg->core.protocol >= CFG_PROTO_BASELINE;
    if (dk && cfg->lu.sram_bytes != (uint64_t)lu_ops_sys.entries * 16) {
        /* The LU's buffer is the linked RTL model's: a size it does not have is bad input. */
        char origin[CONFIG_PATH_MAX + 64];
        config_origin_str(cfg, "lu.sram_bytes", origin, sizeof origin);
        fprintf(stderr, "%s: lu.sram_bytes: %llu, but the linked logging_unit model has %u entries of 16 bytes (%u)\n",
                origin, (unsigned long long)cfg->lu.sram_bytes, lu_ops_sys.entries, lu_ops_sys.entries * 16);
        return 2;
    }
    system_t *s = system_create(k, cfg, ops, &dir_ops_sys, dk ? &lu_ops_sys : NULL, !o->no_skip, st, err);
    if (!s) {
        fprintf(stderr, "diktamo_sim: %s\n", err);
        return 1;
    }
    if (system_load(s, w, 0, NULL, err)) {
        /* The workload does not fit what the configuration gives it: bad input. */
        char origin[CONFIG_PATH_MAX + 64];
        config_origin_str(cfg, "workload.name", origin, sizeof origin);
        fprintf(stderr, "%s: workload.name: %s\n", origin, err);
        system_free(s);
        return 2;
    }
    if (o->trace) {
        if (outfile_make_dirs(o->trace) ||
            fabric_trace_open(system_fabric(s), o->trace, o->trace_start_ps, o->trace_stop_ps)) {
            fprintf(stderr, "diktamo_sim: --trace: cannot write %s\n", o->trace);
            system_free(s);
            return 2;
        }
        printf("diktamo_sim: tracing to %s\n", o->trace);
    }
    if (o->abort_at_ps)
        kernel_at(k, o->abort_at_ps, abort_event, NULL, o->abort_at_ps);
    if (!o->quiet) {
        printf("diktamo_sim: workload %s, protocol %s, %u threads on %llu CNs x %llu cores\n", wname,
               config_protocol_name(cfg->core.protocol), system_threads(s), (unsigned long long)cfg->system.num_cn,
               (unsigned long long)cfg->system.cores_per_cn);
        fflush(stdout);
    }

    progress_t pr;
    progress_init(&pr, cfg->sim.progress, "instr");
    progress_set_target(&pr, cfg->sim.end_time_ps);
    const double wall0 = progress_wall_seconds();
    for (unsigned i = 0; i < o->nfails; i++) {
        const double us = (double)o->fail_ps[i] / (double)PS_PER_US;
        if (o->fail_after[i]) {
            _Static_assert(SYSTEM_MAX_AFTER >= CLI_MAX_FAILS, "every --fail CN@+TIME has its place");
            system_fail_after_recovery(s, o->fail_cn[i], o->fail_ps[i]);
            if (!o->quiet)
                printf("diktamo_sim: CN %u fails %.3f us after the recoveries before it (--fail)\n", o->fail_cn[i], us);
        } else {
            system_fail_at(s, o->fail_cn[i], o->fail_ps[i]);
            if (!o->quiet)
                printf("diktamo_sim: CN %u fails at %.3f us (--fail)\n", o->fail_cn[i], us);
        }
    }
    const run_end_e how = system_run(s, cfg->sim.end_time_ps, &pr);
    progress_finish(&pr);
    const double wall = progress_wall_seconds() - wall0;
    fabric_t *f = system_fabric(s);
    const uint64_t instr = system_instructions(s);

    *stats_gauge(st, "run.sim_time_ns", "simulated time at the end of the run (ns)") = (double)k->now / (double)PS_PER_NS;
    *stats_gauge(st, "run.wall_s", "wall-clock seconds of the simulation loop") = wall;
    *stats_counter(st, "run.seed", "the run's seed") = seed;
    *stats_counter(st, "run.kernel_events", "events the kernel ran") = k->events;
    *stats_counter(st, "fabric.cycles", "fabric cycles elapsed (clocked + skipped)") = fabric_cycles(f);
    *stats_gauge(st, "run.instr_per_s", "simulated instructions per wall-clock second") = wall > 0 ? (double)instr / wall : 0;
    *stats_counter(st, "run.zlib_missed",
                   "dumps whose records were not those announced to sim.zlib_threads' pool (compressed again: "
                   "slower, the same results)") = system_zlib_missed(s);

    int status = 0;
    if (how == RUN_STALLED) {
        fprintf(stderr, "diktamo_sim: seed %llu: no instruction for %llu ps at %llu ps; waiting:\n",
                (unsigned long long)seed, (unsigned long long)cfg->sim.stall_timeout_ps, (unsigned long long)k->now);
        system_dump(s, stderr);
        status = 1;
    } else if (how == RUN_FAULT) {
        fprintf(stderr, "diktamo_sim: seed %llu: %s\n", (unsigned long long)seed, system_fault(s));
        status = 1;
    } else if (how != RUN_DONE) {
        fprintf(stderr, "diktamo_sim: seed %llu: the workload did not finish by sim.end_time (%.3f us)\n",
                (unsigned long long)seed, (double)cfg->sim.end_time_ps / (double)PS_PER_US);
        status = 1;
    }
    if (how != RUN_DONE && system_unrecoverable(s)) {
        /* Committed stores may have lost every copy: the workload's own data may be inconsistent
         * (a lock whose release was lost), and what it does after that is not the design's. Said
         * last, as a run that ended would say it; the oracle is not run on a run that did not end. */
        fprintf(stderr, "diktamo_sim: seed %llu: unrecoverable: %d CNs (mask 0x%x) failed before a recovery ended, "
                "and each store has lu.nr = %llu replicas; the workload did not end after it (the oracle not run)\n",
                (unsigned long long)seed, __builtin_popcount(system_unrecoverable(s)), system_unrecoverable(s),
                (unsigned long long)cfg->lu.nr);
    }
    if (how == RUN_DONE) {
        oracle_report_t rep;
        if (system_check(s, stderr, 20, &rep, err)) {
            fprintf(stderr, "diktamo_sim: seed %llu: %s\n", (unsigned long long)seed, err);
            status = 1;
        }
        if (!o->quiet)
            printf("diktamo_sim: oracle: %llu remote words, %llu committed stores: %llu ok, %llu lost, %llu phantom\n",
                   (unsigned long long)rep.words, (unsigned long long)rep.stores, (unsigned long long)rep.ok,
                   (unsigned long long)rep.lost, (unsigned long long)rep.phantom);
        if (!o->quiet && rep.undurable)
            printf("diktamo_sim: oracle: %llu words hold the value before a failed CN's last commit, whose VALs never "
                   "left it (not durable, allowed)\n", (unsigned long long)rep.undurable);
        uint64_t checked;
        size_t bad = system_check_logs(s, stderr, 20, &checked);
        if (bad) {
            fprintf(stderr, "diktamo_sim: seed %llu: %zu faults in the replicas' logs\n", (unsigned long long)seed, bad);
            status = 1;
        }
        if (dk && !o->quiet && !system_failures(s))
            printf("diktamo_sim: replicas: %llu committed remote words, each logged by its %llu replicas in commit "
                   "order: %s\n", (unsigned long long)checked, (unsigned long long)cfg->lu.nr, bad ? "NO" : "yes");
        if (!o->quiet)
            system_print_recovery(s, stdout, "diktamo_sim");
    }
    if (!o->quiet) {
        const double exec_us = (double)system_exec_ps(s) / (double)PS_PER_US;
        printf("diktamo_sim: execution time %.3f us, %llu instructions, %s\n", exec_us, (unsigned long long)instr,
               status ? "FAILED" : "result checked");
        printf("diktamo_sim: simulated %.3f us in %.2f s wall: %.0f instructions/s, %.0f clocked fabric cycles/s\n",
               (double)k->now / (double)PS_PER_US, wall, wall > 0 ? (double)instr / wall : 0.0,
               wall > 0 ? (double)fabric_cycles_ticked(f) / wall : 0.0);
    }
    system_free(s);
    return status;
}

int main(int argc, char **argv)
{
    cli_opts_t o;
    cli_parse(argc, argv, &o, "diktamo_sim", usage);
    static sim_config_t cfg_of_run; /* static: the early exits below have nothing to free */
    sim_config_t *cfg = &cfg_of_run;
    cli_load_config(&o, cfg);

    const unsigned ncn = (unsigned)cfg->system.num_cn, nmn = (unsigned)cfg->system.num_mn;
    const fabric_model_ops_t *ops = fabric_model_find(ncn, nmn);
    if (!ops) {
        fprintf(stderr, "diktamo_sim: %s: system.num_cn/num_mn: this binary holds fabric shape %s, not c%um%u; "
                        "run it through scripts/run_sim.sh (make run), which builds the right one\n",
                o.config, fabric_models[0] ? fabric_models[0]->name : "none", ncn, nmn);
        return 2;
    }
    if (o.trace && !ops->traced) {
        fprintf(stderr, "diktamo_sim: --trace %s: this binary is the fast flavour, built without tracing; "
                        "scripts/run_sim.sh --trace ... runs build/bin/diktamo_sim_c%um%u_test, which traces\n",
                o.trace, ncn, nmn);
        return 2;
    }
    if (o.abort_at && cli_parse_time(o.abort_at, &o.abort_at_ps)) {
        fprintf(stderr, "diktamo_sim: --abort-at: not a time with a unit: %s\n", o.abort_at);
        return 2;
    }
    for (unsigned i = 0; i < o.nfails; i++) {
        if (o.fail_after[i] && (o.traffic || (i == 0 && !cfg->fail.at_ps && !cfg->fail.after_commits))) {
            fprintf(stderr, "diktamo_sim: --fail %u@+...: %s\n", o.fail_cn[i],
                    o.traffic ? "a failure after a recovery needs a workload run (not --traffic)"
                              : "a failure after a recovery needs a failure before it (an earlier --fail, fail.at or "
                                "fail.after_commits)");
            return 2;
        }
        if (o.fail_cn[i] >= ncn) {
            fprintf(stderr, "diktamo_sim: --fail %u@...: %s: system.num_cn = %u, so the CNs are 0 .. %u\n", o.fail_cn[i],
                    o.config, ncn, ncn - 1);
            return 2;
        }
        if (cfg->core.sync == CFG_SYNC_IDEAL) {
            fprintf(stderr, "diktamo_sim: --fail %u@...: %s: core.sync = ideal leaves lock and barrier words "
                            "unreplicated, so a failure could lose them: no failure with it\n",
                    o.fail_cn[i], o.config);
            return 2;
        }
    }
    const uint64_t seed = cfg->sim.seed;
    /* Every output is opened before the run: a path that cannot be written stops it here. */
    char stats_path[OUTFILE_PATH_MAX - 8], ini_path[OUTFILE_PATH_MAX], why[256];
    if (o.stats) {
        snprintf(stats_path, sizeof stats_path, "%s", o.stats);
    } else {
        char base[1024];
        snprintf(base, sizeof base, "%s", o.config);
        char *b = basename(base);
        char *dot = strrchr(b, '.');
        if (dot)
            *dot = '\0';
        snprintf(stats_path, sizeof stats_path, "build/run/%s-seed%llu.json", b, (unsigned long long)seed);
    }
    snprintf(ini_path, sizeof ini_path, "%s.ini", stats_path);
    static outfile_t stats_out, ini_out;
    if (outfile_open(&stats_out, stats_path, why, sizeof why)) {
        fprintf(stderr, "diktamo_sim: --stats %s: cannot write: %s\n", stats_path, why);
        return 2;
    }
    if (outfile_open(&ini_out, ini_path, why, sizeof why)) {
        fprintf(stderr, "diktamo_sim: --stats %s: cannot write its configuration %s: %s\n", stats_path, ini_path, why);
        return 2;
    }
    if (o.trace && outfile_check_path(o.trace, why, sizeof why)) {
        fprintf(stderr, "diktamo_sim: --trace %s: cannot write: %s\n", o.trace, why);
        return 2;
    }
    char note[256];
    snprintf(note, sizeof note, "diktamo_sim: run died; seed %llu (replay: same arguments with --seed %llu)",
             (unsigned long long)seed, (unsigned long long)seed);
    cleanup_set_note(note);
    if (!o.quiet) {
        printf("diktamo_sim: config %s, seed %llu, fabric %s, %s\n", o.config, (unsigned long long)seed, ops->name,
               o.no_skip ? "every cycle clocked" : "idle cycles skipped");
        fflush(stdout);
    }

    kernel_t k;
    kernel_init(&k);
    stats_t st;
    if (stats_init(&st)) {
        fprintf(stderr, "diktamo_sim: cannot create the statistics registry\n");
        return 1;
    }
    int status = o.traffic ? run_traffic(&o, cfg, ops, &k, &st) : run_workload(&o, cfg, ops, &k, &st);
    if (status == 2) { /* bad input: nothing written */
        outfile_discard(&stats_out);
        outfile_discard(&ini_out);
        goto out;
    }
    if (stats_write_json(&st, stats_out.f) || outfile_commit(&stats_out, why, sizeof why)) {
        fprintf(stderr, "diktamo_sim: cannot write %s: %s\n", stats_path, stats_out.f ? "write error" : why);
        outfile_discard(&stats_out);
        outfile_discard(&ini_out);
        status = status ? status : 1;
    } else if (config_write_ini(cfg, ini_out.f) || outfile_commit(&ini_out, why, sizeof why)) {
        fprintf(stderr, "diktamo_sim: cannot write %s: %s\n", ini_path, ini_out.f ? "write error" : why);
        outfile_discard(&ini_out);
        status = status ? status : 1;
    } else if (!o.quiet) {
        printf("diktamo_sim: statistics in %s (configuration in %s)\n", stats_path, ini_path);
    }
out:
    kernel_free(&k);
    stats_free(&st);
    return status;
}
