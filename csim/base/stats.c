#include "base/stats.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef enum kind { K_COUNTER, K_GAUGE, K_HIST } kind_e;

struct stats_entry {
    char *name;
    char *doc;
    kind_e kind;
    union {
        uint64_t counter;
        double gauge;
        stats_hist_t hist;
    } v;
};

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* ---------------------------------------------------------------------------------------------
 * Histograms */

static uint32_t hist_slot(const stats_hist_t *h, uint64_t v)
{
    if (h->scheme.kind == STATS_LOG2)
        return v == 0 ? 0 : (uint32_t)(64 - __builtin_clzll(v));
    if (v < h->scheme.lo)
        return 0;
    uint64_t i = (v - h->scheme.lo) / h->scheme.width;
    return i >= h->scheme.n ? h->scheme.n + 1 : (uint32_t)i + 1;
}

/* [lo, hi) of a slot, hi saturating at UINT64_MAX (then meaning "up to and including"). */
static void slot_range(const stats_hist_t *h, uint32_t i, uint64_t *lo, uint64_t *hi)
{
    if (h->scheme.kind == STATS_LOG2) {
        *lo = i == 0 ? 0 : 1ull << (i - 1);
        *hi = i == 0 ? 1 : i == 64 ? UINT64_MAX : 1ull << i;
        return;
    }
    const stats_buckets_t *b = &h->scheme;
    uint64_t top = b->lo + (uint64_t)b->n * b->width; /* checked not to overflow at creation */
    if (i == 0) {
        *lo = 0;
        *hi = b->lo;
    } else if (i == b->n + 1) {
        *lo = top;
        *hi = UINT64_MAX;
    } else {
        *lo = b->lo + (uint64_t)(i - 1) * b->width;
        *hi = *lo + b->width;
    }
}

void stats_hist_add(stats_hist_t *h, uint64_t v)
{
    h->bucket[hist_slot(h, v)]++;
    if (h->count == 0 || v < h->min)
        h->min = v;
    if (h->count == 0 || v > h->max)
        h->max = v;
    h->count++;
    h->sum += v;
}

double stats_hist_mean(const stats_hist_t *h)
{
    return h->count ? (double)h->sum / (double)h->count : 0.0;
}

double stats_hist_quantile(const stats_hist_t *h, double p)
{
    if (h->count == 0)
        return 0.0;
    if (!(p >= 0.0)) /* also NaN */
        p = 0.0;
    if (p > 1.0)
        p = 1.0;
    double rd = ceil(p * (double)h->count);
    uint64_t r = rd < 1.0 ? 1 : rd >= (double)h->count ? h->count : (uint64_t)rd;
    if (r == 1)
        return (double)h->min;
    if (r == h->count)
        return (double)h->max;
    uint64_t before = 0;
    for (uint32_t i = 0; i < h->nb; i++) {
        uint64_t cnt = h->bucket[i];
        if (before + cnt < r) {
            before += cnt;
            continue;
        }
        uint64_t lo, hi;
        slot_range(h, i, &lo, &hi);
        uint64_t last = hi == UINT64_MAX ? UINT64_MAX : hi - 1; /* largest value in the slot */
        if (lo < h->min)
            lo = h->min;
        if (last > h->max)
            last = h->max;
        uint64_t j = r - before; /* 1 .. cnt */
        if (cnt == 1)
            return (double)lo + round((double)(last - lo) / 2.0);
        return (double)lo + round((double)(last - lo) * (double)(j - 1) / (double)(cnt - 1));
    }
    return (double)h->max; /* unreachable: the buckets hold count samples */
}

static void hist_reset(stats_hist_t *h)
{
    h->count = h->sum = h->min = h->max = 0;
    memset(h->bucket, 0, h->nb * sizeof h->bucket[0]);
}

/* ---------------------------------------------------------------------------------------------
 * Registry */

int stats_init(stats_t *s)
{
    memset(s, 0, sizeof *s);
    return 0;
}

static void entry_free(stats_entry_t *e)
{
    if (!e)
        return;
    if (e->kind == K_HIST)
        free(e->v.hist.bucket);
    free(e->name);
    free(e->doc);
    free(e);
}

void stats_free(stats_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        entry_free(s->entries[i]);
    free(s->entries);
    free(s->ix);
    memset(s, 0, sizeof *s);
}

const char *stats_error(const stats_t *s) { return s->err; }

__attribute__((format(printf, 2, 3))) static void seterr(stats_t *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
}

static bool seg_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '-'; }

static bool valid_name(const char *name)
{
    if (!*name)
        return false;
    bool seg_empty = true;
    for (const char *p = name; *p; p++) {
        if (*p == '.') {
            if (seg_empty)
                return false;
            seg_empty = true;
        } else if (seg_char(*p)) {
            seg_empty = false;
        } else {
            return false;
        }
    }
    return !seg_empty;
}

/* True when a is b, or a is a dotted prefix of b (or the reverse). */
/* The index: an open-addressed hash table of every name (a value) and every dotted prefix of a
 * name (a group: "cn0" and "cn0.core1" for "cn0.core1.loads"), each key a span of its entry's own
 * name, so that registering and finding a name cost the same whatever the registry's size. */
struct stats_slot {
    const char *key; /* NULL: empty */
    size_t len;
    stats_entry_t *e; /* the value, or one value of the group */
    bool group;
};

static uint64_t span_hash(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    return h;
}

static stats_slot_t *ix_find(const stats_t *s, const char *p, size_t n)
{
    if (!s->ix_cap)
        return NULL;
    for (size_t i = span_hash(p, n) & (s->ix_cap - 1);; i = (i + 1) & (s->ix_cap - 1)) {
        stats_slot_t *x = &s->ix[i];
        if (!x->key)
            return NULL;
        if (x->len == n && !memcmp(x->key, p, n))
            return x;
    }
}

/* Room for k more keys at half load at most; false when out of memory (nothing changed). */
static bool ix_reserve(stats_t *s, size_t k)
{
    if (2 * (s->ix_n + k) > s->ix_cap) {
        size_t cap = s->ix_cap ? s->ix_cap : 256;
        while (2 * (s->ix_n + k) > cap)
            cap *= 2;
        stats_slot_t *nx = calloc(cap, sizeof *nx);
        if (!nx)
            return false;
        for (size_t i = 0; i < s->ix_cap; i++) {
            const stats_slot_t *x = &s->ix[i];
            if (!x->key)
                continue;
            size_t j = span_hash(x->key, x->len) & (cap - 1);
            while (nx[j].key)
                j = (j + 1) & (cap - 1);
            nx[j] = *x;
        }
        free(s->ix);
        s->ix = nx;
        s->ix_cap = cap;
    }
    return true;
}

/* Adds a key known to be absent, with room reserved. */
static void ix_put(stats_t *s, const char *p, size_t n, stats_entry_t *e, bool group)
{
    size_t j = span_hash(p, n) & (s->ix_cap - 1);
    while (s->ix[j].key)
        j = (j + 1) & (s->ix_cap - 1);
    s->ix[j] = (stats_slot_t){.key = p, .len = n, .e = e, .group = group};
    s->ix_n++;
}

/* The entry a new name would clash with (a name is either a value or a group), or NULL. */
static const stats_entry_t *clash(const stats_t *s, const char *name)
{
    size_t len = strlen(name);
    const stats_slot_t *x = ix_find(s, name, len);
    if (x)
        return x->e; /* the same value again, or a group of values */
    for (size_t i = 0; i < len; i++)
        if (name[i] == '.' && (x = ix_find(s, name, i)) && !x->group)
            return x->e; /* a value where the name needs a group */
    return NULL;
}

static stats_entry_t *add_entry(stats_t *s, const char *name, const char *doc, kind_e kind)
{
    if (!name || !valid_name(name)) {
        seterr(s, "invalid statistic name '%s' (dotted segments of [A-Za-z0-9_-])",
               name ? name : "(null)");
        return NULL;
    }
    const stats_entry_t *c = clash(s, name);
    if (c) {
        seterr(s, "statistic '%s' clashes with '%s' (a name is either a value or a group)", name, c->name);
        return NULL;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        stats_entry_t **ne = realloc(s->entries, cap * sizeof *ne);
        if (!ne) {
            seterr(s, "out of memory");
            return NULL;
        }
        s->entries = ne;
        s->cap = cap;
    }
    size_t len = strlen(name), keys = 1;
    for (size_t i = 0; i < len; i++)
        keys += name[i] == '.';
    stats_entry_t *e = calloc(1, sizeof *e);
    if (!e || !(e->name = dupstr(name)) || !(e->doc = dupstr(doc ? doc : "")) || !ix_reserve(s, keys)) {
        entry_free(e);
        seterr(s, "out of memory");
        return NULL;
    }
    e->kind = kind;
    ix_put(s, e->name, len, e, false);
    for (size_t i = 0; i < len; i++)
        if (e->name[i] == '.' && !ix_find(s, e->name, i))
            ix_put(s, e->name, i, e, true);
    s->entries[s->n++] = e;
    return e;
}

uint64_t *stats_counter(stats_t *s, const char *name, const char *doc)
{
    stats_entry_t *e = add_entry(s, name, doc, K_COUNTER);
    return e ? &e->v.counter : NULL;
}

uint64_t *stats_counter_in(stats_t *s, const char *prefix, const char *leaf, const char *doc)
{
    char name[256];
    if ((size_t)snprintf(name, sizeof name, "%s.%s", prefix, leaf) >= sizeof name)
        return stats_counter(s, "", doc); /* refused, as any invalid name */
    return stats_counter(s, name, doc);
}

double *stats_gauge(stats_t *s, const char *name, const char *doc)
{
    stats_entry_t *e = add_entry(s, name, doc, K_GAUGE);
    return e ? &e->v.gauge : NULL;
}

int stats_register(stats_t *s, const char *prefix, const stats_def_t *defs, size_t n, void *obj)
{
    for (size_t i = 0; i < n; i++) {
        char name[256];
        const char *full = defs[i].leaf;
        if (prefix) {
            if ((size_t)snprintf(name, sizeof name, "%s.%s", prefix, defs[i].leaf) >= sizeof name) {
                seterr(s, "statistic name too long: %s.%s", prefix, defs[i].leaf);
                return -1;
            }
            full = name;
        }
        void *h;
        if (defs[i].gauge)
            h = stats_gauge(s, full, defs[i].doc);
        else
            h = stats_counter(s, full, defs[i].doc);
        if (!h)
            return -1;
        memcpy((char *)obj + defs[i].at, &h, sizeof h);
    }
    return 0;
}

stats_hist_t *stats_hist(stats_t *s, const char *name, const char *doc, stats_buckets_t scheme)
{
    uint32_t nb;
    if (scheme.kind == STATS_LOG2) {
        nb = 65;
    } else if (scheme.kind == STATS_LINEAR) {
        uint64_t span;
        if (scheme.width == 0 || scheme.n == 0 || scheme.n > STATS_HIST_MAX_BUCKETS ||
            __builtin_mul_overflow((uint64_t)scheme.n, scheme.width, &span) ||
            __builtin_add_overflow(span, scheme.lo, &span)) {
            seterr(s, "histogram '%s': bad linear buckets (width >= 1, 1 <= n <= %u, "
                      "lo + n * width < 2^64)",
                   name ? name : "(null)", STATS_HIST_MAX_BUCKETS);
            return NULL;
        }
        nb = scheme.n + 2;
    } else {
        seterr(s, "histogram '%s': unknown bucket kind", name ? name : "(null)");
        return NULL;
    }
    uint64_t *b = calloc(nb, sizeof *b);
    if (!b) {
        seterr(s, "out of memory");
        return NULL;
    }
    stats_entry_t *e = add_entry(s, name, doc, K_HIST);
    if (!e) {
        free(b);
        return NULL;
    }
    e->v.hist = (stats_hist_t){.scheme = scheme, .nb = nb, .bucket = b};
    return &e->v.hist;
}

static stats_entry_t *find(const stats_t *s, const char *name, kind_e kind)
{
    const stats_slot_t *x = ix_find(s, name, strlen(name));
    return x && !x->group && x->e->kind == kind ? x->e : NULL;
}

const uint64_t *stats_find_counter(const stats_t *s, const char *name)
{
    stats_entry_t *e = find(s, name, K_COUNTER);
    return e ? &e->v.counter : NULL;
}

const double *stats_find_gauge(const stats_t *s, const char *name)
{
    stats_entry_t *e = find(s, name, K_GAUGE);
    return e ? &e->v.gauge : NULL;
}

const stats_hist_t *stats_find_hist(const stats_t *s, const char *name)
{
    stats_entry_t *e = find(s, name, K_HIST);
    return e ? &e->v.hist : NULL;
}

void stats_reset(stats_t *s)
{
    for (size_t i = 0; i < s->n; i++) {
        stats_entry_t *e = s->entries[i];
        switch (e->kind) {
        case K_COUNTER: e->v.counter = 0; break;
        case K_GAUGE: e->v.gauge = 0.0; break;
        case K_HIST: hist_reset(&e->v.hist); break;
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Output order: names compared segment by segment, digit runs by value ("port2" < "port10"),
 * so that every group's members are contiguous. */

static int natural_cmp_seg(const char *a, size_t la, const char *b, size_t lb)
{
    size_t i = 0, j = 0;
    while (i < la && j < lb) {
        if (isdigit((unsigned char)a[i]) && isdigit((unsigned char)b[j])) {
            size_t i0 = i, j0 = j;
            while (i0 < la && a[i0] == '0')
                i0++;
            while (j0 < lb && b[j0] == '0')
                j0++;
            size_t i1 = i0, j1 = j0;
            while (i1 < la && isdigit((unsigned char)a[i1]))
                i1++;
            while (j1 < lb && isdigit((unsigned char)b[j1]))
                j1++;
            if (i1 - i0 != j1 - j0)
                return i1 - i0 < j1 - j0 ? -1 : 1;
            int c = memcmp(a + i0, b + j0, i1 - i0);
            if (c)
                return c;
            if (i1 - i != j1 - j) /* same value, fewer leading zeros first */
                return i1 - i < j1 - j ? -1 : 1;
            i = i1;
            j = j1;
        } else {
            if (a[i] != b[j])
                return (unsigned char)a[i] < (unsigned char)b[j] ? -1 : 1;
            i++;
            j++;
        }
    }
    return (i < la) - (j < lb);
}

static int name_cmp(const char *a, const char *b)
{
    for (;;) {
        size_t la = strcspn(a, "."), lb = strcspn(b, ".");
        int c = natural_cmp_seg(a, la, b, lb);
        if (c)
            return c;
        a += la;
        b += lb;
        if (!*a || !*b)
            return (*a != 0) - (*b != 0);
        a++;
        b++;
    }
}

static int entry_cmp(const void *x, const void *y)
{
    const stats_entry_t *a = *(stats_entry_t *const *)x, *b = *(stats_entry_t *const *)y;
    return name_cmp(a->name, b->name);
}

/* A sorted copy of the entry pointers (the registry itself keeps registration order). */
static stats_entry_t **sorted(const stats_t *s)
{
    stats_entry_t **v = malloc((s->n ? s->n : 1) * sizeof *v);
    if (!v)
        return NULL;
    if (s->n)
        memcpy(v, s->entries, s->n * sizeof *v);
    qsort(v, s->n, sizeof *v, entry_cmp);
    return v;
}

/* ---------------------------------------------------------------------------------------------
 * JSON */

static void json_str(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Shortest text that reads back as d; null when d is not finite (JSON has no NaN/inf). */
static void json_num(FILE *f, double d)
{
    if (!isfinite(d)) {
        fputs("null", f);
        return;
    }
    char buf[32];
    if (d == trunc(d) && fabs(d) < 9007199254740992.0) { /* integral: no exponent form */
        fprintf(f, "%.0f", d);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    fputs(buf, f);
}

static void indent(FILE *f, int depth)
{
    for (int i = 0; i < depth; i++)
        fputs("  ", f);
}

static void json_hist(FILE *f, const stats_hist_t *h, int depth)
{
    fprintf(f, "{\"count\": %" PRIu64 ", \"sum\": %" PRIu64, h->count, h->sum);
    if (h->count) {
        fprintf(f, ", \"min\": %" PRIu64 ", \"max\": %" PRIu64 ", \"mean\": ", h->min, h->max);
        json_num(f, stats_hist_mean(h));
        fputs(", \"p50\": ", f);
        json_num(f, stats_hist_quantile(h, 0.5));
        fputs(", \"p99\": ", f);
        json_num(f, stats_hist_quantile(h, 0.99));
    } else {
        fputs(", \"min\": null, \"max\": null, \"mean\": null, \"p50\": null, \"p99\": null", f);
    }
    fputs(",\n", f);
    indent(f, depth + 1);
    fputs("\"buckets\": [", f);
    bool first = true;
    for (uint32_t i = 0; i < h->nb; i++) {
        if (!h->bucket[i])
            continue;
        uint64_t lo, hi;
        slot_range(h, i, &lo, &hi);
        fprintf(f, "%s[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", first ? "" : ", ", lo, hi,
                h->bucket[i]);
        first = false;
    }
    fputs("]}", f);
}

/* Number of leading segments two names share. */
static size_t common_segs(const char *a, const char *b)
{
    size_t n = 0;
    for (;;) {
        size_t la = strcspn(a, "."), lb = strcspn(b, ".");
        if (la != lb || memcmp(a, b, la) != 0 || !a[la] || !b[lb])
            return n;
        n++;
        a += la + 1;
        b += lb + 1;
    }
}

static size_t num_segs(const char *a)
{
    size_t n = 1;
    for (; *a; a++)
        n += *a == '.';
    return n;
}

/* Pointer to segment k (0-based) of a and its length. */
static const char *seg(const char *a, size_t k, size_t *len)
{
    for (; k; k--)
        a = strchr(a, '.') + 1;
    *len = strcspn(a, ".");
    return a;
}

int stats_write_json(const stats_t *s, FILE *f)
{
    stats_entry_t **v = sorted(s);
    if (!v)
        return -1;
    fputc('{', f);
    /* depth = open objects below the root = segments of the previous name's group. */
    size_t depth = 0;
    const char *prev = NULL;
    for (size_t i = 0; i < s->n; i++) {
        const char *name = v[i]->name;
        size_t groups = num_segs(name) - 1;
        size_t common = prev ? common_segs(prev, name) : 0;
        if (common > groups)
            common = groups;
        while (depth > common) {
            fputc('\n', f);
            indent(f, (int)depth);
            fputc('}', f);
            depth--;
        }
        /* Now depth == common: the object at this depth already holds prev's branch. */
        bool sibling = prev != NULL;
        for (; depth < groups; depth++) {
            size_t len;
            const char *sg = seg(name, depth, &len);
            fputs(sibling ? ",\n" : "\n", f);
            indent(f, (int)depth + 1);
            json_str(f, sg, len);
            fputs(": {", f);
            sibling = false;
        }
        size_t len;
        const char *leaf = seg(name, groups, &len);
        fputs(sibling ? ",\n" : "\n", f);
        indent(f, (int)depth + 1);
        json_str(f, leaf, len);
        fputs(": ", f);
        switch (v[i]->kind) {
        case K_COUNTER: fprintf(f, "%" PRIu64, v[i]->v.counter); break;
        case K_GAUGE: json_num(f, v[i]->v.gauge); break;
        case K_HIST: json_hist(f, &v[i]->v.hist, (int)depth + 1); break;
        }
        prev = name;
    }
    while (depth > 0) {
        fputc('\n', f);
        indent(f, (int)depth);
        fputc('}', f);
        depth--;
    }
    fputs(s->n ? "\n}\n" : "}\n", f);
    free(v);
    fflush(f);
    return ferror(f) ? -1 : 0;
}

/* ---------------------------------------------------------------------------------------------
 * Text */

int stats_print_summary(const stats_t *s, FILE *f)
{
    stats_entry_t **v = sorted(s);
    if (!v)
        return -1;
    int w = 0;
    for (size_t i = 0; i < s->n; i++) {
        int l = (int)strlen(v[i]->name);
        if (l > w)
            w = l;
    }
    for (size_t i = 0; i < s->n; i++) {
        const stats_entry_t *e = v[i];
        switch (e->kind) {
        case K_COUNTER:
            if (e->v.counter)
                fprintf(f, "%-*s  %" PRIu64 "\n", w, e->name, e->v.counter);
            break;
        case K_GAUGE:
            if (e->v.gauge != 0.0)
                fprintf(f, "%-*s  %.6g\n", w, e->name, e->v.gauge);
            break;
        case K_HIST: {
            const stats_hist_t *h = &e->v.hist;
            if (h->count)
                fprintf(f,
                        "%-*s  count %" PRIu64 "  mean %.6g  p50 %.6g  p99 %.6g  max %" PRIu64
                        "\n",
                        w, e->name, h->count, stats_hist_mean(h), stats_hist_quantile(h, 0.5),
                        stats_hist_quantile(h, 0.99), h->max);
            break;
        }
        }
    }
    free(v);
    fflush(f);
    return ferror(f) ? -1 : 0;
}

int stats_write_doc(const stats_t *s, FILE *f)
{
    stats_entry_t **v = sorted(s);
    if (!v)
        return -1;
    static const char *const kinds[] = {"counter", "gauge", "histogram"};
    fputs("| statistic | kind | description |\n| --- | --- | --- |\n", f);
    for (size_t i = 0; i < s->n; i++) {
        fprintf(f, "| `%s` | %s | ", v[i]->name, kinds[v[i]->kind]);
        for (const char *p = v[i]->doc; *p; p++) {
            if (*p == '|')
                fputs("\\|", f);
            else if (*p != '\n')
                fputc(*p, f);
        }
        fputs(" |\n", f);
    }
    free(v);
    fflush(f);
    return ferror(f) ? -1 : 0;
}

/* ---------------------------------------------------------------------------------------------
 * Tables */

stats_table_t *stats_table_new(const char *title, size_t ncols, const char *const *col_names)
{
    if (ncols == 0)
        return NULL;
    stats_table_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ncols = ncols;
    t->title = dupstr(title ? title : "");
    t->cols = calloc(ncols, sizeof *t->cols);
    if (!t->title || !t->cols) {
        stats_table_free(t);
        return NULL;
    }
    for (size_t i = 0; i < ncols; i++) {
        if (!(t->cols[i] = dupstr(col_names[i] ? col_names[i] : ""))) {
            stats_table_free(t);
            return NULL;
        }
    }
    return t;
}

void stats_table_free(stats_table_t *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    if (t->cols)
        for (size_t i = 0; i < t->ncols; i++)
            free(t->cols[i]);
    free(t->cols);
    free(t->title);
    free(t);
}

int stats_table_add_row(stats_table_t *t)
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char **nc = realloc(t->cells, cap * t->ncols * sizeof *nc);
        if (!nc)
            return -1;
        t->cells = nc;
        t->cap = cap;
    }
    memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof *t->cells);
    t->nrows++;
    return 0;
}

int stats_table_set(stats_table_t *t, size_t col, const char *fmt, ...)
{
    if (t->nrows == 0 || col >= t->ncols)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return -1;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    char **cell = &t->cells[(t->nrows - 1) * t->ncols + col];
    free(*cell);
    *cell = s;
    return 0;
}

int stats_table_col(const stats_table_t *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (strcmp(t->cols[i], name) == 0)
            return (int)i;
    return -1;
}

static const char *cell(const stats_table_t *t, size_t r, size_t c)
{
    const char *s = t->cells[r * t->ncols + c];
    return s ? s : "";
}

static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int stats_table_write_csv(const stats_table_t *t, FILE *f)
{
    for (size_t c = 0; c < t->ncols; c++) {
        if (c)
            fputc(',', f);
        csv_field(f, t->cols[c]);
    }
    fputc('\n', f);
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            if (c)
                fputc(',', f);
            csv_field(f, cell(t, r, c));
        }
        fputc('\n', f);
    }
    fflush(f);
    return ferror(f) ? -1 : 0;
}

/* A number, possibly followed by a unit-like suffix ("12", "-3.5e3", "97.2%", "1.3x"). */
static bool numeric(const char *s)
{
    if (!*s)
        return false;
    char *end;
    strtod(s, &end);
    if (end == s)
        return false;
    return *end == '\0' || strcmp(end, "%") == 0 || strcmp(end, "x") == 0;
}

int stats_table_print(const stats_table_t *t, FILE *f)
{
    size_t *w = calloc(t->ncols, sizeof *w);
    if (!w)
        return -1;
    for (size_t c = 0; c < t->ncols; c++) {
        w[c] = strlen(t->cols[c]);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t l = strlen(cell(t, r, c));
            if (l > w[c])
                w[c] = l;
        }
    }
    /* A column is right-aligned when all its non-empty cells are numeric. */
    bool *right = calloc(t->ncols, sizeof *right);
    if (!right) {
        free(w);
        return -1;
    }
    for (size_t c = 0; c < t->ncols; c++) {
        bool any = false, all = true;
        for (size_t r = 0; r < t->nrows; r++) {
            const char *s = cell(t, r, c);
            if (!*s)
                continue;
            any = true;
            all = all && numeric(s);
        }
        right[c] = any && all;
    }
    if (*t->title)
        fprintf(f, "%s\n", t->title);
    size_t total = 0;
    for (size_t c = 0; c < t->ncols; c++) {
        fprintf(f, c ? "  " : "");
        if (right[c])
            fprintf(f, "%*s", (int)w[c], t->cols[c]);
        else if (c + 1 == t->ncols) /* no trailing blanks */
            fputs(t->cols[c], f);
        else
            fprintf(f, "%-*s", (int)w[c], t->cols[c]);
        total += w[c] + (c ? 2 : 0);
    }
    fputc('\n', f);
    for (size_t i = 0; i < total; i++)
        fputc('-', f);
    fputc('\n', f);
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            fprintf(f, c ? "  " : "");
            bool last = c + 1 == t->ncols;
            if (right[c])
                fprintf(f, "%*s", (int)w[c], cell(t, r, c));
            else if (last) /* no trailing blanks */
                fputs(cell(t, r, c), f);
            else
                fprintf(f, "%-*s", (int)w[c], cell(t, r, c));
        }
        fputc('\n', f);
    }
    free(w);
    free(right);
    fflush(f);
    return ferror(f) ? -1 : 0;
}
