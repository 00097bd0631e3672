/* diktamo_bench: the speed benchmarks that exist at this stage.
 *   kernel  events per second of the event queue (a few thousand self-rescheduling chains with
 *           random delays: the shape of a simulation's C side);
 *   fabric  cycles per second of each linked fabric_top shape (fast flavour): busy (every port at
 *           full load, every cycle clocked) and light (5 % load, idle cycles skipped: simulated
 *           fabric cycles per wall second).
 * Prints a table and writes build/bench/{kernel,fabric}.{json,csv} (or under --out DIR).
 * Speed is measured here, never asserted in tests. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fabric.h"
#include "kernel.h"
#include "progress.h"
#include "rng.h"
#include "stats.h"
#include "traffic.h"

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

static int bench_fabric(const fabric_model_ops_t *ops, double load, bool skip, uint64_t count, fab_result_t *res)
{
    kernel_t k;
    kernel_init(&k);
    stats_t st;
    if (stats_init(&st))
        return -1;
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

static int write_outputs(const char *dir, const char *name, const stats_t *st, const stats_table_t *tab)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s.json", dir, name);
    FILE *f = fopen(p, "w");
    if (!f || stats_write_json(st, f) || fclose(f)) {
        fprintf(stderr, "diktamo_bench: cannot write %s\n", p);
        return -1;
    }
    snprintf(p, sizeof p, "%s/%s.csv", dir, name);
    f = fopen(p, "w");
    if (!f || stats_table_write_csv(tab, f) || fclose(f)) {
        fprintf(stderr, "diktamo_bench: cannot write %s\n", p);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *out = "build/bench";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out = argv[++i];
        } else {
            fprintf(stderr, "diktamo_bench: unknown argument: %s (usage: diktamo_bench [--out DIR])\n", argv[i]);
            return 2;
        }
    }
    if (mkdir(out, 0777) && errno != EEXIST) {
        fprintf(stderr, "diktamo_bench: cannot create %s\n", out);
        return 2;
    }
    int status = 0;

    /* kernel */
    stats_t ks;
    stats_init(&ks);
    const char *kcols[] = {"chains", "events", "wall_s", "events_per_s"};
    stats_table_t *kt = stats_table_new("kernel: event queue", 4, kcols);
    const unsigned chains[] = {16, 1024, 65536};
    for (unsigned i = 0; i < 3; i++) {
        uint64_t ev;
        double dt = bench_kernel(chains[i], 4000000 / chains[i], &ev);
        stats_table_add_row(kt);
        stats_table_set(kt, 0, "%u", chains[i]);
        stats_table_set(kt, 1, "%llu", (unsigned long long)ev);
        stats_table_set(kt, 2, "%.3f", dt);
        stats_table_set(kt, 3, "%.0f", (double)ev / dt);
        char name[96];
        snprintf(name, sizeof name, "kernel.chains%u.events_per_s", chains[i]);
        *stats_gauge(&ks, name, "kernel events run per wall second") = (double)ev / dt;
    }
    stats_table_print(kt, stdout);
    if (write_outputs(out, "kernel", &ks, kt))
        status = 1;
    stats_table_free(kt);
    stats_free(&ks);

    /* fabric */
    stats_t fs;
    stats_init(&fs);
    const char *fcols[] = {"model", "ports", "mode", "load", "fabric_cycles", "clocked", "wall_s", "clocked_cycles_per_s",
                           "sim_cycles_per_s", "msgs_per_s"};
    stats_table_t *ft = stats_table_new("fabric: Verilated fabric_top (fast flavour)", 10, fcols);
    for (const fabric_model_ops_t *const *m = fabric_models; *m; m++) {
        const struct {
            const char *mode;
            double load;
            bool skip;
        } runs[] = {{"busy", 1.0, false}, {"light", 0.05, true}};
        const unsigned ports = (*m)->num_cn + (*m)->num_mn;
        for (unsigned r = 0; r < 2; r++) {
            fab_result_t res;
            uint64_t count = runs[r].skip ? 2000 : 64000 / ports;
            if (bench_fabric(*m, runs[r].load, runs[r].skip, count, &res)) {
                fprintf(stderr, "diktamo_bench: %s %s: the traffic did not all come back\n", (*m)->name, runs[r].mode);
                status = 1;
                continue;
            }
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
            char name[128];
            snprintf(name, sizeof name, "fabric.%s.%s.clocked_cycles_per_s", (*m)->name, runs[r].mode);
            *stats_gauge(&fs, name, "RTL cycles clocked per wall second") = res.clocked_per_s;
            snprintf(name, sizeof name, "fabric.%s.%s.sim_cycles_per_s", (*m)->name, runs[r].mode);
            *stats_gauge(&fs, name, "simulated fabric cycles (clocked + skipped) per wall second") = res.cycles_per_s;
            snprintf(name, sizeof name, "fabric.%s.%s.msgs_per_s", (*m)->name, runs[r].mode);
            *stats_gauge(&fs, name, "messages through the fabric per wall second") = res.msgs_per_s;
        }
    }
    stats_table_print(ft, stdout);
    if (write_outputs(out, "fabric", &fs, ft))
        status = 1;
    stats_table_free(ft);
    stats_free(&fs);
    printf("diktamo_bench: results in %s/{kernel,fabric}.{json,csv}\n", out);
    return status;
}
