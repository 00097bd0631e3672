/* Statistics: a registry of named counters, gauges and histograms that models register once and
 * then update directly (a counter is a plain uint64_t the model increments through a pointer, so
 * the hot path costs one add), plus row/column tables for benchmark results.
 *
 * Names are dotted paths of segments [A-Za-z0-9_-]+, e.g. "fabric.port3.REQ.msgs". A name cannot
 * be both a value and a prefix of another name ("a.b" and "a.b.c"), because JSON nests them:
 *   {"fabric": {"port3": {"REQ": {"msgs": 12}}}}
 * stats_write_json writes that nested form, keys sorted by segment in natural order (port2 before
 * port10). Counters are JSON integers (exact: readers that keep integers exact, such as Python,
 * see the full 64 bits), gauges are JSON numbers written with 17 significant digits, and a
 * non-finite gauge (NaN, inf) is written as null. A histogram is an object:
 *   {"count": N, "sum": S, "min": m, "max": M, "mean": x, "p50": x, "p99": x,
 *    "buckets": [[lo, hi, count], ...]}
 * with only the non-empty buckets, each covering [lo, hi); min/max/mean/p50/p99 are null when
 * the histogram is empty.
 *
 * No globals: a stats_t is a value the caller owns (stats_init / stats_free); several coexist.
 */
#ifndef STATS_H
#define STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------------------------------------
 * Histograms */

typedef enum stats_bucket_kind {
    STATS_LINEAR, /* n buckets [lo + i*width, lo + (i+1)*width), plus under- and overflow */
    STATS_LOG2,   /* bucket 0 holds 0, bucket k >= 1 holds [2^(k-1), 2^k): 65 buckets, no overflow */
} stats_bucket_kind_e;

typedef struct stats_buckets {
    stats_bucket_kind_e kind;
    uint64_t lo;    /* STATS_LINEAR: lower edge of the first bucket */
    uint64_t width; /* STATS_LINEAR: bucket width, >= 1 */
    uint32_t n;     /* STATS_LINEAR: number of in-range buckets, 1 .. STATS_HIST_MAX_BUCKETS */
} stats_buckets_t;

#define STATS_HIST_MAX_BUCKETS 4096u

typedef struct stats_hist {
    stats_buckets_t scheme;
    uint64_t count;
    uint64_t sum; /* wraps modulo 2^64 past 1.8e19 (e.g. 5 hours of summed picoseconds) */
    uint64_t min, max;
    uint32_t nb;     /* number of slots in bucket[] */
    uint64_t *bucket; /* LINEAR: [0] underflow, [1..n] in range, [n+1] overflow; LOG2: 65 */
} stats_hist_t;

/** Adds one sample. */
void stats_hist_add(stats_hist_t *h, uint64_t v);
/** Mean of the samples (0 when empty). */
double stats_hist_mean(const stats_hist_t *h);
/** The p-quantile (p in [0, 1]; 0.5 is the median p50, 0.99 is p99), estimated from the buckets
 *  with the nearest-rank definition: the value of the r-th smallest sample, r = ceil(p * count)
 *  (at least 1). r = 1 gives min and r = count gives max, exactly. Otherwise the samples of the
 *  bucket holding rank r are assumed spread evenly over the bucket (clipped to [min, max]) and
 *  the estimate is rounded to an integer. Precision: exact for STATS_LINEAR buckets of width 1
 *  (value in range); otherwise the error is less than the bucket's width (STATS_LOG2: less than
 *  the true value, i.e. within a factor of 2); always within [min, max].
 *  Returns 0 when the histogram is empty. */
double stats_hist_quantile(const stats_hist_t *h, double p);

/* ---------------------------------------------------------------------------------------------
 * Registry */

typedef struct stats_entry stats_entry_t;

typedef struct stats_slot stats_slot_t;

typedef struct stats {
    stats_entry_t **entries; /* owned; each entry is its own allocation, so pointers stay put */
    size_t n, cap;
    stats_slot_t *ix; /* hash index of the names and of their groups (dotted prefixes) */
    size_t ix_n, ix_cap;
    char err[256]; /* why the last registration failed */
} stats_t;

/** Initializes an empty registry. Returns 0. */
int stats_init(stats_t *s);
/** Frees everything the registry owns; pointers it handed out become invalid. */
void stats_free(stats_t *s);

/** Registers a counter (starting at 0) and returns where it lives, for the model to increment
 *  directly. Returns NULL on an invalid or duplicate/conflicting name or out of memory;
 *  stats_error() says which. doc is one line, copied. */
uint64_t *stats_counter(stats_t *s, const char *name, const char *doc);
/** stats_counter of "<prefix>.<leaf>" (a block's counters under its name). */
uint64_t *stats_counter_in(stats_t *s, const char *prefix, const char *leaf, const char *doc);
/** Registers a gauge (a double the model sets, starting at 0). NULL on error as above. */
double *stats_gauge(stats_t *s, const char *name, const char *doc);
/** Registers a histogram with the given bucket scheme. NULL on error (also a bad scheme). */
stats_hist_t *stats_hist(stats_t *s, const char *name, const char *doc, stats_buckets_t scheme);

/** One statistic of a block's table (stats_register): a counter or a gauge named "<prefix>.<leaf>"
 *  (leaf alone without a prefix), whose handle goes into the block's struct at offset `at` (a
 *  uint64_t * for a counter, a double * for a gauge). STATS_COUNTER_DEF and STATS_GAUGE_DEF write a
 *  row from the struct's type and field. */
typedef struct stats_def {
    bool gauge;
    const char *leaf;
    size_t at;
    const char *doc;
} stats_def_t;
#define STATS_COUNTER_DEF(type, field, leaf, doc) {false, (leaf), offsetof(type, field), (doc)}
#define STATS_GAUGE_DEF(type, field, leaf, doc) {true, (leaf), offsetof(type, field), (doc)}
#define STATS_DEFS_N(defs) (sizeof(defs) / sizeof((defs)[0]))
/** Registers the n statistics of defs in their order, each handle stored into obj at its row's
 *  offset. Returns 0, or -1 at the first that fails (stats_error says why; the rows before it are
 *  registered and their handles set). */
int stats_register(stats_t *s, const char *prefix, const stats_def_t *defs, size_t n, void *obj);

/** Why the last failed registration failed. */
const char *stats_error(const stats_t *s);

/** Lookup by name (tests, reports); NULL when absent or of another kind. */
const uint64_t *stats_find_counter(const stats_t *s, const char *name);
const double *stats_find_gauge(const stats_t *s, const char *name);
const stats_hist_t *stats_find_hist(const stats_t *s, const char *name);

/** Zeroes every counter, gauge and histogram (e.g. at the end of a warm-up). */
void stats_reset(stats_t *s);

/** Writes all values as one nested JSON object (format above) and a final newline.
 *  Returns 0, or -1 on a write error. */
int stats_write_json(const stats_t *s, FILE *f);
/** Writes a plain-text end-of-run summary: non-zero counters and gauges, non-empty histograms
 *  (count, mean, p50, p99, max), one per line, names aligned, sorted like the JSON.
 *  Returns 0, or -1 on a write error. */
int stats_print_summary(const stats_t *s, FILE *f);
/** Writes a markdown table of every registered name, its kind and doc. 0 or -1. */
int stats_write_doc(const stats_t *s, FILE *f);

/* ---------------------------------------------------------------------------------------------
 * Tables: rows of string cells under named columns. */

typedef struct stats_table {
    char *title;
    size_t ncols;
    char **cols;   /* ncols names */
    size_t nrows, cap;
    char **cells;  /* nrows * ncols, NULL = empty */
} stats_table_t;

/** Creates an empty table; NULL on out of memory or ncols == 0. */
stats_table_t *stats_table_new(const char *title, size_t ncols, const char *const *col_names);
void stats_table_free(stats_table_t *t);
/** Appends an empty row, which becomes the current row. Returns 0 or -1 (out of memory). */
int stats_table_add_row(stats_table_t *t);
/** Sets cell `col` of the current row from a printf format. Returns 0, or -1 when there is no
 *  row, col is out of range or memory runs out. */
int stats_table_set(stats_table_t *t, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Column index of a name, or -1. */
int stats_table_col(const stats_table_t *t, const char *name);
/** CSV (RFC 4180): a header row, then the rows; cells with a comma, quote or line break are
 *  quoted, quotes doubled; lines end with "\n". The title is not written. 0 or -1. */
int stats_table_write_csv(const stats_table_t *t, FILE *f);
/** Aligned text table for a terminal: the title, the header, a rule, the rows; cells that look
 *  numeric are right-aligned, others left-aligned. 0 or -1. */
int stats_table_print(const stats_table_t *t, FILE *f);

#endif
