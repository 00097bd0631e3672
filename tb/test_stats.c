/* Tests of csim/base/stats: the statistics registry, its JSON and text output, histograms and tables. */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/rng.h"
#include "base/stats.h"
#include "tb_seed.h"

/* ---------------------------------------------------------------------------------------------
 * Helpers */

/* Output of a writer into a malloc'ed string. */
#define CAPTURE(out, call)                                                                         \
    do {                                                                                           \
        size_t len_;                                                                               \
        FILE *f = open_memstream(&(out), &len_);                                                   \
        cr_assert_not_null(f);                                                                     \
        cr_assert_eq((call), 0);                                                                   \
        fclose(f);                                                                                 \
    } while (0)

/* Runs `python3 -c script` on the JSON text; returns what it prints (malloc'ed). The script reads
 * the document with json.load, so a malformed document fails the test. */
static char *python_on_json(const char *json, const char *script)
{
    char dir[] = "/tmp/test_stats_XXXXXX", path[64], cmd[2048];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/s.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(json, f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json,sys\nd=json.load(open(sys.argv[1]))\n%s' %s 2>&1", script,
             path);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char *out = calloc(1, 4096);
    size_t n = fread(out, 1, 4095, p);
    out[n] = '\0';
    int rc = pclose(p);
    unlink(path);
    rmdir(dir);
    cr_assert_eq(rc, 0, "python3 failed on\n%s\n%s", json, out);
    return out;
}

/* Nearest-rank quantile of sorted v[0..n). */
static uint64_t nearest_rank(const uint64_t *v, size_t n, double p)
{
    double r = ceil(p * (double)n);
    size_t k = r < 1 ? 1 : (size_t)r;
    if (k > n)
        k = n;
    return v[k - 1];
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* ---------------------------------------------------------------------------------------------
 * Registry */

Test(stats, counter_is_incremented_through_its_pointer)
{
    stats_t s;
    cr_assert_eq(stats_init(&s), 0);
    uint64_t *c = stats_counter(&s, "fabric.port3.REQ.msgs", "messages");
    cr_assert_not_null(c, "%s", stats_error(&s));
    cr_assert_eq(*c, 0);
    for (int i = 0; i < 12; i++)
        (*c)++;
    /* registering more entries must not move it */
    for (int i = 0; i < 200; i++) {
        char name[32];
        snprintf(name, sizeof name, "other.c%d", i);
        cr_assert_not_null(stats_counter(&s, name, ""));
    }
    (*c)++;
    const uint64_t *found = stats_find_counter(&s, "fabric.port3.REQ.msgs");
    cr_assert_eq(found, c);
    cr_assert_eq(*found, 13);
    cr_assert_null(stats_find_counter(&s, "fabric.port3.REQ"));
    cr_assert_null(stats_find_gauge(&s, "fabric.port3.REQ.msgs"), "wrong kind must not be found");
    stats_free(&s);
}

Test(stats, bad_names_are_refused)
{
    stats_t s;
    stats_init(&s);
    cr_assert_not_null(stats_counter(&s, "a.b", ""));
    static const char *const bad[] = {"", ".a", "a.", "a..b", "a b", "a\"b", "a/b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_null(stats_counter(&s, bad[i], ""), "'%s' accepted", bad[i]);
        cr_assert(strstr(stats_error(&s), "invalid statistic name"), "%s", stats_error(&s));
    }
    cr_assert_null(stats_counter(&s, "a.b", ""), "duplicate accepted");
    cr_assert_null(stats_gauge(&s, "a.b.c", ""), "a value used as a group");
    cr_assert(strstr(stats_error(&s), "clashes with 'a.b'"), "%s", stats_error(&s));
    cr_assert_null(stats_hist(&s, "a", "", (stats_buckets_t){.kind = STATS_LOG2}),
                   "a group used as a value");
    cr_assert_not_null(stats_counter(&s, "a.bc", ""), "a.bc does not clash with a.b");
    cr_assert_not_null(stats_counter(&s, "a-b", ""));
    stats_free(&s);
}

/* A block's table: stats_register stores each handle at its field, in the table's order, names them
 * under the prefix (or alone), and stops at the first refused name with the ones before it set. */
typedef struct tbl_block {
    uint64_t *a;
    double *g;
    uint64_t *b[2];
} tbl_block_t;

static const stats_def_t tbl_defs[] = {
    STATS_COUNTER_DEF(tbl_block_t, a, "a", "counter a"),
    STATS_GAUGE_DEF(tbl_block_t, g, "g", "gauge g"),
    STATS_COUNTER_DEF(tbl_block_t, b[1], "b1", "second b"),
    STATS_COUNTER_DEF(tbl_block_t, b[0], "b0", "first b"),
};

Test(stats, a_table_registers_every_row_at_its_field)
{
    stats_t s;
    stats_init(&s);
    tbl_block_t x = {0}, y = {0};
    cr_assert_eq(stats_register(&s, "blk.one", tbl_defs, STATS_DEFS_N(tbl_defs), &x), 0, "%s", stats_error(&s));
    cr_assert_eq(x.a, stats_find_counter(&s, "blk.one.a"));
    cr_assert_eq(x.g, stats_find_gauge(&s, "blk.one.g"));
    cr_assert_eq(x.b[0], stats_find_counter(&s, "blk.one.b0"));
    cr_assert_eq(x.b[1], stats_find_counter(&s, "blk.one.b1"));
    cr_assert_neq(x.b[0], x.b[1]);
    cr_assert_eq(stats_register(&s, NULL, tbl_defs, 2, &y), 0, "%s", stats_error(&s));
    cr_assert_eq(y.a, stats_find_counter(&s, "a"));
    cr_assert_eq(y.g, stats_find_gauge(&s, "g"));
    cr_assert_null(y.b[0], "a row past n is not registered");
    /* a clash stops it: a second table under the same prefix refuses its first row */
    tbl_block_t z = {0};
    cr_assert_eq(stats_register(&s, "blk.one", tbl_defs, STATS_DEFS_N(tbl_defs), &z), -1);
    cr_assert(strstr(stats_error(&s), "blk.one.a"), "%s", stats_error(&s));
    cr_assert_null(z.a);
    cr_assert_null(z.g, "rows after the refused one are not registered");
    /* a later row refused: the earlier ones are set */
    tbl_block_t w = {0};
    cr_assert_not_null(stats_counter(&s, "blk.two.b1", ""));
    cr_assert_eq(stats_register(&s, "blk.two", tbl_defs, STATS_DEFS_N(tbl_defs), &w), -1);
    cr_assert_not_null(w.a);
    cr_assert_not_null(w.g);
    cr_assert_null(w.b[1]);
    cr_assert_null(w.b[0]);
    /* a name too long for the prefix */
    char longp[300];
    memset(longp, 'p', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    cr_assert_eq(stats_register(&s, longp, tbl_defs, 1, &w), -1);
    cr_assert(strstr(stats_error(&s), "name too long"), "%s", stats_error(&s));
    stats_free(&s);
}

/* The rule of bad_names_are_refused, one pair at a time: a and b clash when equal or when one is a
 * dotted prefix of the other. */
static bool ref_clash(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), m = la < lb ? la : lb;
    return !memcmp(a, b, m) && (la == lb || (la < lb ? b[la] == '.' : a[lb] == '.'));
}

Test(stats, random_names_are_accepted_exactly_when_nothing_clashes)
{
    /* GIVEN thousands of random dotted names over a few short segments (many shared prefixes,
     *       many clashes)
     * WHEN each is registered
     * THEN it is accepted exactly when it clashes with no name accepted before (checked pair by
     *      pair), a refusal names an accepted name it clashes with, and every accepted name is
     *      found again as what it was registered as */
    uint64_t seed = tb_seed(0x57A75u);
    rng_t r;
    rng_init_named(&r, seed, "stats_names");
    static const char *const seg[] = {"a", "b", "ab", "cn0", "cn1", "core0", "x-y", "q_1"};
    stats_t s;
    stats_init(&s);
    enum { N = 3000 };
    static char names[N][64];
    static bool ok[N];
    for (unsigned i = 0; i < N; i++) {
        unsigned depth = (unsigned)rng_range(&r, 1, 4);
        size_t k = 0;
        for (unsigned d = 0; d < depth; d++)
            k += (size_t)snprintf(names[i] + k, sizeof names[i] - k, "%s%s", d ? "." : "", seg[rng_below(&r, 8)]);
        bool want = true;
        for (unsigned j = 0; j < i; j++)
            want &= !(ok[j] && ref_clash(names[j], names[i]));
        ok[i] = stats_counter(&s, names[i], "") != NULL;
        cr_assert_eq(ok[i], want, "'%s': accepted %d, want %d; seed %" PRIu64 " (replay: TB_SEED=%" PRIu64 ")",
                     names[i], ok[i], want, seed, seed);
        if (!ok[i]) {
            const char *q = strstr(stats_error(&s), "clashes with '");
            cr_assert_not_null(q, "%s", stats_error(&s));
            char other[64];
            cr_assert_eq(sscanf(q + strlen("clashes with '"), "%63[^']", other), 1);
            bool named = false;
            for (unsigned j = 0; j < i; j++)
                named |= ok[j] && !strcmp(names[j], other) && ref_clash(other, names[i]);
            cr_assert(named, "'%s' refused for '%s', which it does not clash with", names[i], other);
        }
    }
    for (unsigned i = 0; i < N; i++)
        if (ok[i]) {
            cr_assert_not_null(stats_find_counter(&s, names[i]), "%s", names[i]);
            cr_assert_null(stats_find_gauge(&s, names[i]), "%s is a counter", names[i]);
        }
    cr_assert_null(stats_find_counter(&s, "no.such.name"));
    stats_free(&s);
}

Test(stats, json_nests_dotted_names_and_is_valid)
{
    stats_t s;
    stats_init(&s);
    *stats_counter(&s, "fabric.port3.REQ.msgs", "") = 12;
    *stats_counter(&s, "fabric.port3.RSP.msgs", "") = 7;
    *stats_counter(&s, "fabric.port10.REQ.msgs", "") = 1;
    *stats_counter(&s, "fabric.port2.REQ.msgs", "") = 2;
    *stats_counter(&s, "fabric.cycles", "") = UINT64_MAX;
    *stats_gauge(&s, "run.wall_s", "") = 1.25;
    *stats_gauge(&s, "run.nan", "") = NAN;
    *stats_gauge(&s, "run.inf", "") = -INFINITY;
    *stats_counter(&s, "top", "") = 5;
    stats_hist_t *h = stats_hist(&s, "traffic.latency_ns", "",
                                 (stats_buckets_t){.kind = STATS_LINEAR, .lo = 0, .width = 1, .n = 100});
    cr_assert_not_null(h);
    stats_hist_add(h, 3);
    stats_hist_add(h, 5);
    stats_hist(&s, "traffic.empty", "", (stats_buckets_t){.kind = STATS_LOG2});
    char *json;
    CAPTURE(json, stats_write_json(&s, f));
    char *out = python_on_json(
        json, "f=d[\"fabric\"]\n"
              "print(f[\"port3\"][\"REQ\"][\"msgs\"], f[\"port3\"][\"RSP\"][\"msgs\"], "
              "f[\"port10\"][\"REQ\"][\"msgs\"], f[\"port2\"][\"REQ\"][\"msgs\"], f[\"cycles\"])\n"
              "print(d[\"run\"][\"wall_s\"], d[\"run\"][\"nan\"], d[\"run\"][\"inf\"], d[\"top\"])\n"
              "l=d[\"traffic\"][\"latency_ns\"]\n"
              "print(l[\"count\"], l[\"sum\"], l[\"min\"], l[\"max\"], l[\"mean\"], l[\"p50\"], "
              "l[\"buckets\"])\n"
              "e=d[\"traffic\"][\"empty\"]\n"
              "print(e[\"count\"], e[\"mean\"], e[\"p99\"], e[\"buckets\"])\n"
              "print(list(f.keys()))");
    cr_assert_str_eq(out, "12 7 1 2 18446744073709551615\n"
                          "1.25 None None 5\n"
                          "2 8 3 5 4 3 [[3, 4, 1], [5, 6, 1]]\n"
                          "0 None None []\n"
                          "['cycles', 'port2', 'port3', 'port10']\n",
                     "JSON was\n%s", json);
    free(out);
    free(json);
    stats_free(&s);
}

Test(stats, json_of_an_empty_registry)
{
    stats_t s;
    stats_init(&s);
    char *json;
    CAPTURE(json, stats_write_json(&s, f));
    cr_assert_str_eq(json, "{}\n");
    free(json);
    stats_free(&s);
}

Test(stats, reset_zeroes_everything)
{
    stats_t s;
    stats_init(&s);
    uint64_t *c = stats_counter(&s, "c", "");
    double *g = stats_gauge(&s, "g", "");
    stats_hist_t *h = stats_hist(&s, "h", "", (stats_buckets_t){.kind = STATS_LOG2});
    *c = 4;
    *g = 2.5;
    stats_hist_add(h, 100);
    stats_reset(&s);
    cr_assert_eq(*c, 0);
    cr_assert_eq(*g, 0.0);
    cr_assert_eq(h->count, 0);
    cr_assert_eq(h->bucket[7], 0);
    stats_hist_add(h, 9);
    cr_assert_eq(h->min, 9);
    cr_assert_eq(h->max, 9);
    stats_free(&s);
}

Test(stats, summary_lists_non_zero_values_only)
{
    stats_t s;
    stats_init(&s);
    *stats_counter(&s, "b.long_name", "") = 3;
    *stats_counter(&s, "a.zero", "") = 0;
    *stats_gauge(&s, "c", "") = 0.5;
    stats_hist_t *h = stats_hist(&s, "d", "", (stats_buckets_t){.kind = STATS_LINEAR, .width = 1, .n = 10});
    stats_hist_add(h, 4);
    stats_hist(&s, "e", "", (stats_buckets_t){.kind = STATS_LOG2});
    char *txt;
    CAPTURE(txt, stats_print_summary(&s, f));
    cr_assert_str_eq(txt, "b.long_name  3\n"
                          "c            0.5\n"
                          "d            count 1  mean 4  p50 4  p99 4  max 4\n");
    free(txt);
    stats_free(&s);
}

Test(stats, doc_table_lists_every_name)
{
    stats_t s;
    stats_init(&s);
    stats_counter(&s, "x.msgs", "messages | sent");
    stats_gauge(&s, "x.rate", "rate");
    char *md;
    CAPTURE(md, stats_write_doc(&s, f));
    cr_assert_str_eq(md, "| statistic | kind | description |\n| --- | --- | --- |\n"
                         "| `x.msgs` | counter | messages \\| sent |\n"
                         "| `x.rate` | gauge | rate |\n");
    free(md);
    stats_free(&s);
}

/* ---------------------------------------------------------------------------------------------
 * Histograms */

Test(stats, hist_known_data)
{
    stats_t s;
    stats_init(&s);
    stats_hist_t *h = stats_hist(&s, "h", "", (stats_buckets_t){.kind = STATS_LINEAR, .lo = 0, .width = 1, .n = 1000});
    for (uint64_t v = 1; v <= 100; v++)
        stats_hist_add(h, v);
    cr_assert_eq(h->count, 100);
    cr_assert_eq(h->sum, 5050);
    cr_assert_eq(h->min, 1);
    cr_assert_eq(h->max, 100);
    cr_assert_float_eq(stats_hist_mean(h), 50.5, 1e-12);
    cr_assert_float_eq(stats_hist_quantile(h, 0.5), 50.0, 0.0);
    cr_assert_float_eq(stats_hist_quantile(h, 0.99), 99.0, 0.0);
    cr_assert_float_eq(stats_hist_quantile(h, 0.0), 1.0, 0.0);
    cr_assert_float_eq(stats_hist_quantile(h, 1.0), 100.0, 0.0);
    cr_assert_float_eq(stats_hist_quantile(h, 0.255), 26.0, 0.0);
    stats_free(&s);
}

Test(stats, hist_width_one_percentiles_are_exact)
{
    uint64_t seed = tb_seed(5);
    rng_t g;
    rng_init(&g, seed);
    stats_t s;
    stats_init(&s);
    stats_hist_t *h = stats_hist(&s, "h", "", (stats_buckets_t){.kind = STATS_LINEAR, .lo = 100, .width = 1, .n = 500});
    size_t n = 1 + rng_below(&g, 3000);
    uint64_t *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        v[i] = 100 + rng_below(&g, 500);
        stats_hist_add(h, v[i]);
    }
    qsort(v, n, sizeof *v, cmp_u64);
    static const double ps[] = {0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        cr_assert_eq((uint64_t)stats_hist_quantile(h, ps[i]), nearest_rank(v, n, ps[i]),
                     "seed %" PRIu64 ", n %zu, p %g", seed, n, ps[i]);
    free(v);
    stats_free(&s);
}

Test(stats, hist_coarse_buckets_err_by_less_than_a_bucket)
{
    uint64_t seed = tb_seed(6);
    rng_t g;
    rng_init(&g, seed);
    stats_t s;
    stats_init(&s);
    const uint64_t lo = 1000, width = 64, nb = 50;
    stats_hist_t *lin = stats_hist(&s, "lin", "", (stats_buckets_t){.kind = STATS_LINEAR, .lo = lo, .width = width, .n = (uint32_t)nb});
    stats_hist_t *l2 = stats_hist(&s, "log", "", (stats_buckets_t){.kind = STATS_LOG2});
    size_t n = 2000;
    uint64_t *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        /* mostly in range, some under- and overflow */
        v[i] = rng_below(&g, lo + width * nb + 2000);
        stats_hist_add(lin, v[i]);
        stats_hist_add(l2, v[i]);
    }
    qsort(v, n, sizeof *v, cmp_u64);
    for (double p = 0.0; p <= 1.0; p += 0.01) {
        uint64_t t = nearest_rank(v, n, p);
        double el = stats_hist_quantile(lin, p), eg = stats_hist_quantile(l2, p);
        double wl = t < lo ? (double)lo : t >= lo + width * nb ? 2000.0 + 2 : (double)width;
        cr_assert_lt(fabs(el - (double)t), wl, "seed %" PRIu64 " p %g: linear %g vs %" PRIu64, seed, p, el, t);
        cr_assert_lt(fabs(eg - (double)t), t ? (double)t : 1.0, "seed %" PRIu64 " p %g: log2 %g vs %" PRIu64, seed, p, eg, t);
        cr_assert(el >= (double)v[0] && el <= (double)v[n - 1]);
        cr_assert(eg >= (double)v[0] && eg <= (double)v[n - 1]);
    }
    free(v);
    stats_free(&s);
}

Test(stats, hist_log2_buckets)
{
    stats_t s;
    stats_init(&s);
    stats_hist_t *h = stats_hist(&s, "h", "", (stats_buckets_t){.kind = STATS_LOG2});
    stats_hist_add(h, 0);
    stats_hist_add(h, 1);
    stats_hist_add(h, 2);
    stats_hist_add(h, 3);
    stats_hist_add(h, 1024);
    stats_hist_add(h, UINT64_MAX);
    cr_assert_eq(h->bucket[0], 1);
    cr_assert_eq(h->bucket[1], 1);
    cr_assert_eq(h->bucket[2], 2);
    cr_assert_eq(h->bucket[11], 1);
    cr_assert_eq(h->bucket[64], 1);
    cr_assert_eq(h->max, UINT64_MAX);
    stats_free(&s);
}

Test(stats, hist_bad_schemes_are_refused)
{
    stats_t s;
    stats_init(&s);
    cr_assert_null(stats_hist(&s, "a", "", (stats_buckets_t){.kind = STATS_LINEAR, .width = 0, .n = 4}));
    cr_assert_null(stats_hist(&s, "b", "", (stats_buckets_t){.kind = STATS_LINEAR, .width = 1, .n = 0}));
    cr_assert_null(stats_hist(&s, "c", "", (stats_buckets_t){.kind = STATS_LINEAR, .width = 1, .n = STATS_HIST_MAX_BUCKETS + 1}));
    cr_assert_null(stats_hist(&s, "d", "", (stats_buckets_t){.kind = STATS_LINEAR, .lo = UINT64_MAX - 10, .width = 4, .n = 4}));
    cr_assert(strstr(stats_error(&s), "bad linear buckets"), "%s", stats_error(&s));
    cr_assert_eq(s.n, 0, "a refused histogram was registered");
    stats_free(&s);
}

/* ---------------------------------------------------------------------------------------------
 * Tables */

static stats_table_t *sample_table(void)
{
    static const char *const cols[] = {"config", "load", "msgs/cycle", "note"};
    stats_table_t *t = stats_table_new("Throughput", 4, cols);
    cr_assert_not_null(t);
    cr_assert_eq(stats_table_add_row(t), 0);
    stats_table_set(t, 0, "%s", "c16m16");
    stats_table_set(t, 1, "%.2f", 0.5);
    stats_table_set(t, 2, "%d", 31);
    stats_table_set(t, 3, "%s", "plain");
    cr_assert_eq(stats_table_add_row(t), 0);
    stats_table_set(t, 0, "%s", "c4m2");
    stats_table_set(t, 1, "%.2f", 1.0);
    stats_table_set(t, 2, "%d", 6);
    stats_table_set(t, 3, "%s", "has, comma and \"quotes\"");
    return t;
}

Test(stats, table_csv_quotes_what_needs_it)
{
    stats_table_t *t = sample_table();
    char *csv;
    CAPTURE(csv, stats_table_write_csv(t, f));
    cr_assert_str_eq(csv, "config,load,msgs/cycle,note\n"
                          "c16m16,0.50,31,plain\n"
                          "c4m2,1.00,6,\"has, comma and \"\"quotes\"\"\"\n");
    free(csv);
    stats_table_free(t);
}

Test(stats, table_print_aligns_columns)
{
    stats_table_t *t = sample_table();
    char *txt;
    CAPTURE(txt, stats_table_print(t, f));
    cr_assert_str_eq(txt, "Throughput\n"
                          "config  load  msgs/cycle  note\n"
                          "-------------------------------------------------\n"
                          "c16m16  0.50          31  plain\n"
                          "c4m2    1.00           6  has, comma and \"quotes\"\n");
    free(txt);
    stats_table_free(t);
}

Test(stats, table_errors)
{
    static const char *const cols[] = {"a"};
    cr_assert_null(stats_table_new("t", 0, cols));
    stats_table_t *t = stats_table_new("t", 1, cols);
    cr_assert_eq(stats_table_set(t, 0, "x"), -1, "set without a row");
    stats_table_add_row(t);
    cr_assert_eq(stats_table_set(t, 1, "x"), -1, "column out of range");
    cr_assert_eq(stats_table_col(t, "a"), 0);
    cr_assert_eq(stats_table_col(t, "b"), -1);
    stats_table_free(t);
}
