#include "sys/repl_check.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/addr.h"
#include "base/idmap.h"

/* A remote word: its commits not yet logged by every replica, [base, n) of all of them. How far
 * each of its replicas has logged is in the check's pos (its replicas, in the order the replica
 * function gives them, are worked out again when needed: the map does not change while it checks). */
typedef struct word {
    uint64_t addr;
    uint64_t *v;   /* commit k's value at v[k - base] */
    uint32_t base, n, cap;
    uint32_t nr;   /* its replicas */
} word_t;

struct repl_check {
    repl_check_replicas_fn replicas;
    void *obj;
    bool stopped;
    idmap_t words;  /* word address + 1 -> its index in w */
    word_t *w;
    uint32_t *pos;  /* word i's replica k has logged pos[i * nr + k] commits */
    unsigned nr;
    size_t n, cap;
    size_t kept;    /* commits kept, over the words */
    size_t faults;
    char *lines[REPL_CHECK_LINES];
};

repl_check_t *repl_check_create(unsigned nr, repl_check_replicas_fn replicas, void *obj)
{
    repl_check_t *c = nr >= 1 && nr <= REPL_CHECK_MAX_NR ? calloc(1, sizeof *c) : NULL;
    if (!c)
        return NULL;
    c->nr = nr;
    c->replicas = replicas;
    c->obj = obj;
    return c;
}

static void drop(repl_check_t *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->w[i].v);
    free(c->w);
    free(c->pos);
    idmap_free(&c->words);
    c->w = NULL, c->pos = NULL;
    c->cap = c->n = c->kept = 0;
}

void repl_check_free(repl_check_t *c)
{
    if (!c)
        return;
    drop(c);
    for (size_t i = 0; i < REPL_CHECK_LINES && i < c->faults; i++)
        free(c->lines[i]);
    free(c);
}

void repl_check_stop(repl_check_t *c)
{
    c->stopped = true;
    drop(c);
}

size_t repl_check_kept(const repl_check_t *c) { return c->kept; }

static void fault(repl_check_t *c, const char *fmt, ...)
{
    if (c->faults < REPL_CHECK_LINES) {
        va_list ap, aq;
        va_start(ap, fmt);
        va_copy(aq, ap);
        int n = vsnprintf(NULL, 0, fmt, ap);
        char *line = n < 0 ? NULL : malloc((size_t)n + 1);
        if (!line)
            abort();
        vsnprintf(line, (size_t)n + 1, fmt, aq);
        va_end(aq);
        va_end(ap);
        c->lines[c->faults] = line;
    }
    c->faults++;
}

static word_t *find(repl_check_t *c, uint64_t addr, bool add)
{
    bool added;
    uint32_t *x = idmap_get(&c->words, addr + 1, add, &added);
    if (!x)
        return NULL;
    if (!added)
        return &c->w[*x];
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->w = realloc(c->w, c->cap * sizeof *c->w);
        c->pos = realloc(c->pos, c->cap * c->nr * sizeof *c->pos);
        if (!c->w || !c->pos)
            abort();
    }
    *x = (uint32_t)c->n;
    memset(&c->pos[c->n * c->nr], 0, c->nr * sizeof *c->pos);
    word_t *w = &c->w[c->n++];
    memset(w, 0, sizeof *w);
    w->addr = addr;
    unsigned rep[REPL_CHECK_MAX_NR];
    w->nr = c->replicas(c->obj, addr_gline(addr), rep);
    return w;
}

void repl_check_commit(repl_check_t *c, uint64_t addr, uint64_t value)
{
    if (c->stopped)
        return;
    word_t *w = find(c, addr, true);
    if (w->n - w->base == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 4;
        w->v = realloc(w->v, w->cap * sizeof *w->v);
        if (!w->v)
            abort();
    }
    w->v[w->n++ - w->base] = value;
    c->kept++;
}

/* Drops the commits every replica of w has logged, once they are half of what it holds. */
static void trim(repl_check_t *c, word_t *w)
{
    const uint32_t *pos = &c->pos[(size_t)(w - c->w) * c->nr];
    uint32_t low = w->n;
    for (unsigned k = 0; k < w->nr; k++)
        low = pos[k] < low ? pos[k] : low;
    uint32_t gone = low - w->base;
    if (gone < 4 || 2 * gone < w->n - w->base)
        return;
    memmove(w->v, w->v + gone, (w->n - low) * sizeof *w->v);
    w->base = low;
    c->kept -= gone;
}

void repl_check_log(repl_check_t *c, unsigned lu, const lu_rec_t *r)
{
    if (c->stopped)
        return;
    uint64_t addr = r->line * ADDR_LINE_BYTES + (uint64_t)r->word * ADDR_WORD_BYTES;
    word_t *w = find(c, addr, false);
    if (!w) {
        fault(c, "LU %u logged 0x%" PRIx64 " = 0x%" PRIx64 ", a word no store committed to\n", lu, addr, r->value);
        return;
    }
    unsigned rep[REPL_CHECK_MAX_NR], nr = c->replicas(c->obj, r->line, rep), k = 0;
    while (k < nr && rep[k] != lu)
        k++;
    if (k == nr) {
        fault(c, "LU %u logged 0x%" PRIx64 ", a word of a line it does not replicate\n", lu, addr);
        return;
    }
    uint32_t *p = &c->pos[(size_t)(w - c->w) * c->nr + k];
    if (!r->written)
        fault(c, "LU %u: a record of 0x%" PRIx64 " is not marked validated\n", lu, addr);
    if (*p >= w->n)
        fault(c, "LU %u logged 0x%" PRIx64 " = 0x%" PRIx64 " after all its %u commits\n", lu, addr, r->value, w->n);
    else if (w->v[*p - w->base] != r->value)
        fault(c, "LU %u: 0x%" PRIx64 "'s record %u is 0x%" PRIx64 ", commit %u wrote 0x%" PRIx64 "\n", lu, addr, *p,
              r->value, *p, w->v[*p - w->base]);
    (*p)++;
    if (*p <= w->n)
        trim(c, w);
}

size_t repl_check_end(repl_check_t *c, FILE *f, size_t max_lines, uint64_t *checked)
{
    *checked = 0;
    if (c->stopped)
        return 0;
    for (size_t i = 0; i < c->n; i++) {
        const word_t *w = &c->w[i];
        const uint32_t *pos = &c->pos[i * c->nr];
        unsigned rep[REPL_CHECK_MAX_NR];
        c->replicas(c->obj, addr_gline(w->addr), rep);
        for (unsigned k = 0; k < w->nr; k++)
            if (pos[k] != w->n)
                fault(c, "replica LU %u logged %u of the %u commits to 0x%" PRIx64 "\n", rep[k], pos[k], w->n, w->addr);
        *checked += w->n;
    }
    for (size_t i = 0; f && i < c->faults && i < max_lines && i < REPL_CHECK_LINES; i++)
        fputs(c->lines[i], f);
    return c->faults;
}
