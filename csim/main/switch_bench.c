/* switch_bench: the CXL switch (rtl/switch/cxl_switch.sv) on its own, Verilated (fast flavour), with
 * virtual output queues (VOQ, Voq = 1) and with input FIFOs (FIFO, Voq = 0), side by side.
 *
 *   load     throughput and mean / p99 latency versus offered load (10 % .. 100 %) for three
 *            traffic patterns: uniform (every input to a uniformly random port), hot-spot (every CN
 *            port to MN 0; MN ports idle) and permutation (input p always to port perm[p], a fixed
 *            random permutation). One class (REQ), the classic setting. Open loop: each active
 *            input generates a message with probability `load` per cycle into an unbounded source
 *            queue outside the switch and sends the queue's head whenever it holds a credit; the
 *            link partner of every output grants SINK_CRD credits per class and returns each one
 *            the cycle after the message arrives. Latency = output cycle - generation cycle (so it
 *            includes the source queue; 1 at zero load); throughput = messages delivered per
 *            active output per cycle. Both over --cycles cycles after a warm-up of a quarter of it.
 *   fairness two saturated inputs to one output, one sending single-flit NDR messages (no data), the
 *            other data-carrying DRS messages: each one's share of the output's messages and bytes
 *            (the allocator shares an output by message, not by byte); and every CN sending REQ to
 *            MN 0: each input's share (round robin among the inputs competing for an output).
 *
 * Beyond a pattern's saturation load the source queues grow without bound, so latency there grows
 * with --cycles: it says the switch is saturated, not how long a message waits in a real system
 * ("-" in the table, null in the JSON: no message generated after the warm-up got out at all).
 *
 * Options: --out DIR, --cycles N (per point, default 8000), --seed S, --shape LIST (comma-separated
 * shapes among those linked, e.g. c4m4_k16; default all). Prints the tables (progress and wall
 * times on stderr) and writes DIR/switch.json, DIR/switch.csv (load) and DIR/switch_fairness.csv.
 * The same seed gives the same output, byte for byte. Speed is measured here, never asserted in
 * tests. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/outfile.h"
#include "base/progress.h"
#include "base/rng.h"
#include "base/stats.h"
#include "drv/cxl_switch_drv.h"
#include "gen/msg_rand.h"

#define SINK_CRD 16u   /* credits per class the link partner of every output grants */
#define NUM_LOADS 10u  /* 10 % .. 100 % */
#define PREFIX "cxl_switch_"

static void die(const char *what)
{
    fprintf(stderr, "switch_bench: %s\n", what);
    exit(2);
}

/* ---- growable ring of 64-bit values ---- */

typedef struct ring {
    uint64_t *v;
    size_t head, n, cap;
} ring_t;

static void ring_push(ring_t *q, uint64_t x)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 64;
        uint64_t *v = malloc(cap * sizeof *v);
        if (!v)
            die("out of memory");
        for (size_t i = 0; i < q->n; i++)
            v[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = v;
        q->head = 0;
        q->cap = cap;
    }
    q->v[(q->head + q->n++) % q->cap] = x;
}

static uint64_t ring_pop(ring_t *q)
{
    uint64_t x = q->v[q->head];
    q->head = (q->head + 1) % q->cap;
    q->n--;
    return x;
}

/* ---- traffic ---- */

typedef enum pattern { PAT_UNIFORM, PAT_HOTSPOT, PAT_PERM, NUM_PATTERNS } pattern_e;
static const char *const pattern_name[NUM_PATTERNS] = {"uniform", "hotspot", "permutation"};

/* A random message of class c (any of its types) from port src to port out. */
static void make_msg(rng_t *r, const sw_t *s, msg_class_t c, unsigned src, unsigned out, msg_t *m)
{
    msg_op_t ops[MSG_NUM_MSGS];
    unsigned n = 0;
    for (unsigned op = 0; op < MSG_NUM_MSGS; op++)
        if (op != OP_MSI && msg_class((msg_op_t)op) == c)
            ops[n++] = (msg_op_t)op;
    msg_fill_random(r, ops[rng_below(r, n)], m);
    m->src = (uint8_t)sw_port_node(s, src);
    m->dst = (uint8_t)sw_port_node(s, out);
}

static void start(sw_t *s, const sw_model_ops_t *ops, uint64_t seed)
{
    if (sw_init(s, ops, seed, true))
        die("a switch model could not be made and set up");
    sw_grant_all(s, SINK_CRD);
}

/* Sinks: every output's link partner returns, each cycle, one credit per class it owes. */
static void return_credits(sw_t *s, unsigned (*owed)[MSG_NUM_CLASSES])
{
    uint32_t *crd = sw_in(s, s->ops->tx_crd_i);
    for (unsigned p = 0; p < s->np; p++)
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++) {
            unsigned g = owed[p][c] > 0;
            owed[p][c] -= g;
            sw_set_bit(crd, p * MSG_NUM_CLASSES + c, g);
        }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

typedef struct point {
    double thr;      /* delivered per active output per cycle */
    double lat_mean; /* cycles */
    double lat_p99;  /* cycles, nearest rank */
} point_t;

/* One open-loop run of pattern pat at offered load `load` per active input. */
static void run_point(const sw_model_ops_t *ops, pattern_e pat, double load, uint64_t cycles, uint64_t seed,
                      point_t *pt)
{
    sw_t s;
    start(&s, ops, seed);
    const unsigned np = s.np, ncn = ops->ncn;
    char name[96];
    snprintf(name, sizeof name, "%s.%u", pattern_name[pat], (unsigned)lround(load * 100));
    rng_t r;
    rng_init_named(&r, seed, name);
    unsigned perm[SW_MAX_PORTS];
    rng_t pr;
    rng_init_named(&pr, seed, "permutation");
    for (unsigned p = 0; p < np; p++)
        perm[p] = p;
    for (unsigned p = np - 1; p > 0; p--) {
        unsigned k = (unsigned)rng_below(&pr, p + 1), t = perm[p];
        perm[p] = perm[k];
        perm[k] = t;
    }
    const unsigned n_in = pat == PAT_HOTSPOT ? ncn : np, n_out = pat == PAT_HOTSPOT ? 1 : np;
    ring_t srcq[SW_MAX_PORTS] = {{0}}; /* generation cycle << 8 | output */
    ring_t *flow = calloc((size_t)np * np, sizeof *flow); /* [src][out]: generation cycles in flight */
    uint32_t *lat = malloc((size_t)(cycles * n_out + 1) * sizeof *lat);
    if (!flow || !lat)
        die("out of memory");
    unsigned owed[SW_MAX_PORTS][MSG_NUM_CLASSES] = {{0}};
    const uint64_t t0 = s.cycle + cycles / 4, t1 = t0 + cycles;
    uint64_t delivered = 0, nlat = 0;
    double lat_sum = 0;
    while (s.cycle < t1) {
        return_credits(&s, owed);
        for (unsigned p = 0; p < np; p++) {
            sw_set_bit(sw_in(&s, ops->rx_valid_i), p, 0);
            sw_set_bit(sw_in(&s, ops->rx_hb_i), p, 1);
            if (p >= n_in)
                continue;
            if (rng_chance(&r, load)) {
                unsigned out = pat == PAT_UNIFORM   ? (unsigned)rng_below(&r, np)
                               : pat == PAT_HOTSPOT ? ncn /* MN 0 */
                                                    : perm[p];
                ring_push(&srcq[p], s.cycle << 8 | out);
            }
            if (srcq[p].n && s.in_crd[p][CLS_REQ]) {
                uint64_t e = ring_pop(&srcq[p]);
                unsigned out = (unsigned)(e & 0xff);
                msg_t m;
                make_msg(&r, &s, CLS_REQ, p, out, &m);
                sw_send(&s, p, &m);
                sw_set_bit(sw_in(&s, ops->rx_hb_i), p, 0);
                ring_push(&flow[p * np + out], e >> 8);
            }
        }
        sw_step(&s);
        const uint64_t now = s.cycle - 1; /* the cycle whose edge put the messages out */
        for (unsigned p = 0; p < np; p++) {
            msg_t m;
            if (!sw_delivered(&s, p, &m))
                continue;
            owed[p][msg_class(m.opcode)]++;
            ring_t *f = &flow[sw_node_port(&s, m.src) * np + p];
            if (!f->n)
                die("a message came out that was not sent");
            uint64_t gen = ring_pop(f);
            if (now >= t0) {
                delivered++;
                if (gen >= t0) {
                    lat[nlat++] = (uint32_t)(now - gen);
                    lat_sum += (double)(now - gen);
                }
            }
        }
    }
    pt->thr = (double)delivered / (double)cycles / n_out;
    pt->lat_mean = nlat ? lat_sum / (double)nlat : NAN;
    pt->lat_p99 = NAN;
    if (nlat) {
        qsort(lat, nlat, sizeof *lat, cmp_u32);
        uint64_t rank = (uint64_t)ceil(0.99 * (double)nlat);
        pt->lat_p99 = lat[(rank ? rank : 1) - 1];
    }
    for (unsigned p = 0; p < np; p++)
        free(srcq[p].v);
    for (size_t i = 0; i < (size_t)np * np; i++)
        free(flow[i].v);
    free(flow);
    free(lat);
    sw_free(&s);
}

/* ---- fairness: saturated inputs, each with one class, to one output ---- */

typedef struct fair_in {
    unsigned port;
    msg_class_t cls;
    uint64_t msgs, bytes; /* delivered in the window */
} fair_in_t;

static void run_fair(const sw_model_ops_t *ops, unsigned out, fair_in_t *in, unsigned n, uint64_t cycles,
                     uint64_t seed)
{
    sw_t s;
    start(&s, ops, seed);
    rng_t r;
    rng_init_named(&r, seed, "fairness");
    unsigned owed[SW_MAX_PORTS][MSG_NUM_CLASSES] = {{0}};
    const uint64_t t0 = s.cycle + cycles / 4, t1 = t0 + cycles;
    while (s.cycle < t1) {
        return_credits(&s, owed);
        for (unsigned p = 0; p < s.np; p++) {
            sw_set_bit(sw_in(&s, ops->rx_valid_i), p, 0);
            sw_set_bit(sw_in(&s, ops->rx_hb_i), p, 1);
        }
        for (unsigned i = 0; i < n; i++) {
            if (!s.in_crd[in[i].port][in[i].cls])
                continue;
            msg_t m;
            make_msg(&r, &s, in[i].cls, in[i].port, out, &m);
            sw_send(&s, in[i].port, &m);
            sw_set_bit(sw_in(&s, ops->rx_hb_i), in[i].port, 0);
        }
        sw_step(&s);
        for (unsigned p = 0; p < s.np; p++) {
            msg_t m;
            if (!sw_delivered(&s, p, &m))
                continue;
            owed[p][msg_class(m.opcode)]++;
            if (s.cycle - 1 < t0)
                continue;
            for (unsigned i = 0; i < n; i++)
                if (sw_port_node(&s, in[i].port) == m.src) {
                    in[i].msgs++;
                    in[i].bytes += msg_bytes(&m);
                }
        }
    }
    sw_free(&s);
}

/* ---- the program ---- */

static void port_label(const sw_model_ops_t *ops, unsigned p, char *buf, size_t n)
{
    if (p < ops->ncn)
        snprintf(buf, n, "CN%u", p);
    else
        snprintf(buf, n, "MN%u", p - ops->ncn);
}

/* Shape of a linked model: its name without the prefix and the words fifo and fast
 * (cxl_switch_c4m4_fifo_k16_fast -> c4m4_k16): the VOQ and FIFO models of a shape share it. */
static void shape_of(const sw_model_ops_t *ops, char *buf, size_t n)
{
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s", ops->name + strlen(PREFIX));
    size_t len = 0;
    buf[0] = '\0';
    for (char *save = NULL, *w = strtok_r(tmp, "_", &save); w; w = strtok_r(NULL, "_", &save)) {
        if (!strcmp(w, "fifo") || !strcmp(w, "fast"))
            continue;
        int k = snprintf(buf + len, n - len, "%s%s", len ? "_" : "", w);
        if (k < 0 || (size_t)k >= n - len)
            break;
        len += (size_t)k;
    }
}

static bool listed(const char *list, const char *shape)
{
    if (!list)
        return true;
    size_t n = strlen(shape);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, shape, n))
            return true;
        p += len + (e != NULL);
    }
    return false;
}

static void set_gauge(stats_t *st, const char *name, const char *doc, double v)
{
    double *g = stats_gauge(st, name, doc);
    if (!g) {
        fprintf(stderr, "switch_bench: %s: %s\n", name, stats_error(st));
        exit(2);
    }
    *g = v;
}

static int write_file(const char *dir, const char *name, int (*wr)(const void *, FILE *), const void *obj)
{
    char p[1024], why[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    if (outfile_write(p, wr, obj, why, sizeof why)) {
        fprintf(stderr, "switch_bench: cannot write %s: %s\n", p, why);
        return -1;
    }
    return 0;
}
static int wr_json(const void *st, FILE *f) { return stats_write_json(st, f); }
static int wr_csv(const void *t, FILE *f) { return stats_table_write_csv(t, f); }

static uint64_t parse_u64(const char *opt, const char *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno || !*v || *end || *v == '-') {
        fprintf(stderr, "switch_bench: %s: not a number: %s\n", opt, v);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    const char *out = "build/bench", *shapes = NULL;
    uint64_t cycles = 8000, seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--cycles") && i + 1 < argc) {
            cycles = parse_u64("--cycles", argv[++i]);
            if (cycles < 100 || cycles > 100000000)
                die("--cycles: between 100 and 10^8");
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = parse_u64("--seed", argv[++i]);
        } else if (!strcmp(argv[i], "--shape") && i + 1 < argc) {
            shapes = argv[++i];
        } else {
            fprintf(stderr,
                    "switch_bench: unknown argument: %s (usage: switch_bench [--out DIR] [--cycles N] [--seed S] "
                    "[--shape c4m4_k16,...])\n",
                    argv[i]);
            return 2;
        }
    }
    static const char *const outs[] = {"switch.json", "switch.csv", "switch_fairness.csv"};
    if (outfile_check_dir("switch_bench", out, outs, sizeof outs / sizeof outs[0]))
        return 2;
    /* The selected models, grouped by shape: [shape][0] VOQ, [shape][1] FIFO. */
    const sw_model_ops_t *sel[16][2] = {{0}};
    char shape[16][32];
    unsigned nshape = 0;
    for (const sw_model_ops_t *const *m = sw_models; *m; m++) {
        char sh[32];
        shape_of(*m, sh, sizeof sh);
        if (!listed(shapes, sh))
            continue;
        unsigned k = 0;
        while (k < nshape && strcmp(shape[k], sh))
            k++;
        if (k == nshape) {
            if (nshape == 16)
                die("too many shapes");
            snprintf(shape[nshape++], sizeof shape[0], "%s", sh);
        }
        sel[k][(*m)->voq ? 0 : 1] = *m;
    }
    if (!nshape) {
        fprintf(stderr, "switch_bench: --shape %s: no such shape linked (linked:", shapes ? shapes : "");
        for (const sw_model_ops_t *const *m = sw_models; *m; m++) {
            char sh[32];
            shape_of(*m, sh, sizeof sh);
            fprintf(stderr, " %s (%s)", sh, (*m)->voq ? "VOQ" : "FIFO");
        }
        fprintf(stderr, ")\n");
        return 2;
    }
    if (mkdir(out, 0777) && errno != EEXIST) {
        fprintf(stderr, "switch_bench: cannot create %s\n", out);
        return 2;
    }
    static const char *const vname[2] = {"VOQ", "FIFO"};
    stats_t st;
    stats_init(&st);
    char title[512];
    snprintf(title, sizeof title,
             "switch: cxl_switch alone (fast flavour), one class (REQ), open-loop sources, sinks return credits "
             "at once; seed %llu, %llu cycles per point after %llu of warm-up. thr = messages per active output "
             "per cycle; latency in cycles from generation to output (source queue included)",
             (unsigned long long)seed, (unsigned long long)cycles, (unsigned long long)(cycles / 4));
    const char *cols[] = {"shape", "pattern", "load", "voq_thr", "voq_lat_mean", "voq_lat_p99",
                          "fifo_thr", "fifo_lat_mean", "fifo_lat_p99"};
    stats_table_t *t = stats_table_new(title, 9, cols);
    const char *fcols[] = {"shape", "switch", "scenario", "output", "input", "class", "msgs", "msg_share", "bytes",
                           "byte_share"};
    stats_table_t *ft = stats_table_new("switch fairness: saturated inputs to one output, sinks return credits at "
                                        "once; shares of the output's messages and bytes",
                                        10, fcols);
    if (!t || !ft)
        die("out of memory");
    for (unsigned k = 0; k < nshape; k++) {
        for (unsigned v = 0; v < 2; v++)
            if (sel[k][v])
                fprintf(stderr, "switch_bench: %s ...\n", sel[k][v]->name);
        double t_start = progress_wall_seconds();
        for (unsigned pat = 0; pat < NUM_PATTERNS; pat++)
            for (unsigned l = 1; l <= NUM_LOADS; l++) {
                const double load = (double)l / NUM_LOADS;
                stats_table_add_row(t);
                stats_table_set(t, 0, "%s", shape[k]);
                stats_table_set(t, 1, "%s", pattern_name[pat]);
                stats_table_set(t, 2, "%.1f", load);
                for (unsigned v = 0; v < 2; v++) {
                    if (!sel[k][v])
                        continue;
                    point_t pt;
                    run_point(sel[k][v], (pattern_e)pat, load, cycles, seed, &pt);
                    stats_table_set(t, 3 + 3 * v, "%.3f", pt.thr);
                    /* "-": no message generated after the warm-up got out (far beyond saturation) */
                    if (isnan(pt.lat_mean)) {
                        stats_table_set(t, 4 + 3 * v, "-");
                        stats_table_set(t, 5 + 3 * v, "-");
                    } else {
                        stats_table_set(t, 4 + 3 * v, "%.1f", pt.lat_mean);
                        stats_table_set(t, 5 + 3 * v, "%.0f", pt.lat_p99);
                    }
                    char name[160];
                    const char *doc[3] = {"messages delivered per active output per cycle",
                                          "mean latency, generation to output (cycles)",
                                          "p99 latency, generation to output (cycles, nearest rank)"};
                    const char *key[3] = {"thr", "lat_mean", "lat_p99"};
                    const double val[3] = {pt.thr, pt.lat_mean, pt.lat_p99};
                    for (unsigned i = 0; i < 3; i++) {
                        snprintf(name, sizeof name, "switch.%s.%s.%s.load%03u.%s", shape[k], vname[v],
                                 pattern_name[pat], l * 100 / NUM_LOADS, key[i]);
                        set_gauge(&st, name, doc[i], val[i]);
                    }
                }
            }
        /* fairness */
        for (unsigned v = 0; v < 2; v++) {
            const sw_model_ops_t *ops = sel[k][v];
            if (!ops)
                continue;
            const unsigned ncn = ops->ncn;
            fair_in_t two[2] = {{ncn + 0, CLS_NDR, 0, 0}, {ncn + 1, CLS_DRS, 0, 0}};
            fair_in_t all[MSG_MAX_CN];
            for (unsigned i = 0; i < ncn; i++)
                all[i] = (fair_in_t){i, CLS_REQ, 0, 0};
            const struct {
                const char *name;
                unsigned out, n;
                fair_in_t *in;
            } sc[2] = {{"ndr_vs_drs", 0, 2, two}, {"all_cns_req", ncn, ncn, all}};
            for (unsigned j = 0; j < 2; j++) {
                run_fair(ops, sc[j].out, sc[j].in, sc[j].n, cycles, seed);
                uint64_t tm = 0, tb = 0;
                for (unsigned i = 0; i < sc[j].n; i++) {
                    tm += sc[j].in[i].msgs;
                    tb += sc[j].in[i].bytes;
                }
                char outl[16], inl[16], name[160];
                port_label(ops, sc[j].out, outl, sizeof outl);
                for (unsigned i = 0; i < sc[j].n; i++) {
                    const fair_in_t *f = &sc[j].in[i];
                    port_label(ops, f->port, inl, sizeof inl);
                    const double ms = tm ? (double)f->msgs / (double)tm : 0, bs = tb ? (double)f->bytes / (double)tb : 0;
                    stats_table_add_row(ft);
                    stats_table_set(ft, 0, "%s", shape[k]);
                    stats_table_set(ft, 1, "%s", vname[v]);
                    stats_table_set(ft, 2, "%s", sc[j].name);
                    stats_table_set(ft, 3, "%s", outl);
                    stats_table_set(ft, 4, "%s", inl);
                    stats_table_set(ft, 5, "%s", msg_class_name(f->cls));
                    stats_table_set(ft, 6, "%llu", (unsigned long long)f->msgs);
                    stats_table_set(ft, 7, "%.3f", ms);
                    stats_table_set(ft, 8, "%llu", (unsigned long long)f->bytes);
                    stats_table_set(ft, 9, "%.3f", bs);
                    snprintf(name, sizeof name, "switch.%s.%s.fairness.%s.%s.msg_share", shape[k], vname[v],
                             sc[j].name, inl);
                    set_gauge(&st, name, "share of the output's messages", ms);
                    snprintf(name, sizeof name, "switch.%s.%s.fairness.%s.%s.byte_share", shape[k], vname[v],
                             sc[j].name, inl);
                    set_gauge(&st, name, "share of the output's bytes", bs);
                }
            }
        }
        fprintf(stderr, "switch_bench: %s done in %.1f s\n", shape[k], progress_wall_seconds() - t_start);
    }
    stats_table_print(t, stdout);
    stats_table_print(ft, stdout);
    int status = 0;
    if (write_file(out, "switch.json", wr_json, &st) || write_file(out, "switch.csv", wr_csv, t) ||
        write_file(out, "switch_fairness.csv", wr_csv, ft))
        status = 1;
    printf("switch_bench: results in %s/switch.{json,csv}, %s/switch_fairness.csv\n", out, out);
    stats_table_free(t);
    stats_table_free(ft);
    stats_free(&st);
    return status;
}
