/* The oracle of committed stores (see oracle.h).
 *
 * Words live in a dense array (first-record order) indexed by an open-addressing hash map whose
 * slots hold the address too, so that probing stays inside the index (one cache miss) instead of
 * visiting a word per probe. (Hashing a line's 8 words to 8 neighbouring slots was tried: the
 * 8-slot runs make linear probing cluster badly, about 5 probes a lookup instead of 1.) A word keeps its initial and last values; each value a commit replaces
 * is pushed on the word's history, a singly linked list in one append-only arena (12 B an entry):
 * a commit is a hash lookup and an append, never a search. The history is read only at check
 * time, and only for a word that does not hold its last value (to tell lost from phantom).
 * Cheap duplicates are skipped (the replaced value equal to the initial one or to the history's
 * head), so a lock word alternating 0 / 1 costs one entry, not one per store. */
#include "oracle.h"

#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define EMPTY_IDX UINT32_MAX
#define NO_HIST UINT32_MAX
#define NO_COMMIT UINT32_MAX

/* A word: what every word needs (a workload's setup may initialize hundreds of millions that are
 * never stored: 24 bytes each, and 4 in the index); its commits, when it has any, in a commit_t. */
typedef struct word {
    uint64_t addr, init;
    uint32_t c; /* its commit_t, or NO_COMMIT (never stored: it must hold init) */
} word_t;

typedef struct commit {
    uint64_t last, stores, last_t;
    uint64_t top;  /* the value of hist (a copy: comparing with it costs no arena miss) */
    uint64_t prev;  /* the value the last commit replaced */
    uint64_t dbase; /* the value before the commits in doubt (oracle_doubt) */
    uint32_t hist; /* newest replaced value in the arena, or NO_HIST */
    uint16_t last_cn, last_core;
    uint8_t doubt;  /* the last commits that are in doubt */
} commit_t;

struct oracle {
    word_t *w;
    size_t nw, capw;
    commit_t *c;
    size_t nc, capc;
    uint32_t *idx; /* hash slots: index into w, or EMPTY_IDX */
    size_t idx_mask;
    uint64_t *hv;   /* history arena: replaced values ... */
    uint32_t *hnext; /* ... and the next older entry of the same word, or NO_HIST */
    size_t nh, caph;
    uint64_t stores;
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

oracle_t *oracle_create(void)
{
    oracle_t *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->idx_mask = 1023;
    o->idx = malloc((o->idx_mask + 1) * sizeof *o->idx);
    if (!o->idx) {
        oracle_free(o);
        return NULL;
    }
    memset(o->idx, 0xff, (o->idx_mask + 1) * sizeof *o->idx);
    return o;
}

void oracle_free(oracle_t *o)
{
    if (!o)
        return;
    free(o->w);
    free(o->c);
    free(o->idx);
    free(o->hv);
    free(o->hnext);
    free(o);
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fprintf(stderr, "oracle: out of memory (%zu bytes)\n", n);
        abort();
    }
    return q;
}

/* Slot of addr in the index: where it is, or the empty slot where it would go. */
static size_t idx_slot(const oracle_t *o, uint64_t addr)
{
    size_t s = (size_t)mix(addr) & o->idx_mask;
    while (o->idx[s] != EMPTY_IDX && o->w[o->idx[s]].addr != addr)
        s = (s + 1) & o->idx_mask;
    return s;
}

static void idx_grow(oracle_t *o)
{
    size_t n = (o->idx_mask + 1) * 2;
    free(o->idx);
    o->idx = xrealloc(NULL, n * sizeof *o->idx);
    memset(o->idx, 0xff, n * sizeof *o->idx);
    o->idx_mask = n - 1;
    for (size_t i = 0; i < o->nw; i++)
        o->idx[idx_slot(o, o->w[i].addr)] = (uint32_t)i;
}

/* The word at addr, created (initial value 0) when new. */
static word_t *word_get(oracle_t *o, uint64_t addr)
{
    assert((addr & 7u) == 0 && "oracle: unaligned word address");
    size_t s = idx_slot(o, addr);
    if (o->idx[s] != EMPTY_IDX)
        return &o->w[o->idx[s]];
    assert(o->nw < EMPTY_IDX && "oracle: more than 2^32 - 1 words");
    if (o->nw == o->capw) {
        o->capw = o->capw ? o->capw * 2 : 1024;
        o->w = xrealloc(o->w, o->capw * sizeof *o->w);
    }
    word_t *w = &o->w[o->nw];
    *w = (word_t){.addr = addr, .c = NO_COMMIT};
    o->idx[s] = (uint32_t)o->nw++;
    if (o->nw * 4 > (o->idx_mask + 1) * 3) {
        idx_grow(o);
        return &o->w[o->nw - 1];
    }
    return w;
}

static const word_t *word_find(const oracle_t *o, uint64_t addr)
{
    size_t s = idx_slot(o, addr);
    return o->idx[s] == EMPTY_IDX ? NULL : &o->w[o->idx[s]];
}

/* The commits of w, created at its first commit. */
static commit_t *commit_get(oracle_t *o, word_t *w)
{
    if (w->c != NO_COMMIT)
        return &o->c[w->c];
    assert(o->nc < NO_COMMIT && "oracle: more than 2^32 - 1 stored words");
    if (o->nc == o->capc) {
        o->capc = o->capc ? o->capc * 2 : 1024;
        o->c = xrealloc(o->c, o->capc * sizeof *o->c);
    }
    w->c = (uint32_t)o->nc;
    o->c[o->nc] = (commit_t){.last = w->init, .hist = NO_HIST};
    return &o->c[o->nc++];
}

static void hist_push(oracle_t *o, const word_t *ww, commit_t *w, uint64_t v)
{
    if (v == ww->init || (w->hist != NO_HIST && w->top == v))
        return;
    assert(o->nh < NO_HIST && "oracle: more than 2^32 - 1 history entries");
    if (o->nh == o->caph) {
        o->caph = o->caph ? o->caph * 2 : 4096;
        o->hv = xrealloc(o->hv, o->caph * sizeof *o->hv);
        o->hnext = xrealloc(o->hnext, o->caph * sizeof *o->hnext);
    }
    o->hv[o->nh] = v;
    o->hnext[o->nh] = w->hist;
    w->hist = (uint32_t)o->nh++;
    w->top = v;
}

static bool hist_has(const oracle_t *o, const commit_t *w, uint64_t v)
{
    for (uint32_t i = w->hist; i != NO_HIST; i = o->hnext[i])
        if (o->hv[i] == v)
            return true;
    return false;
}

void oracle_init(oracle_t *o, uint64_t addr, uint64_t v)
{
    word_t *w = word_get(o, addr);
    assert(w->c == NO_COMMIT && "oracle_init after a committed store to the word");
    w->init = v;
}

void oracle_commit(oracle_t *o, uint64_t addr, uint64_t v, uint64_t t_ps, unsigned cn, unsigned core)
{
    word_t *ww = word_get(o, addr);
    commit_t *w = commit_get(o, ww);
    assert((w->stores == 0 || t_ps >= w->last_t) && "oracle_commit: commit time went back for a word");
    if (w->stores && w->last != v)
        hist_push(o, ww, w, w->last);
    w->prev = w->last;
    w->doubt = 0; /* a later commit: whatever was in doubt was seen by its committer */
    w->last = v;
    w->last_t = t_ps;
    w->last_cn = (uint16_t)cn;
    w->last_core = (uint16_t)core;
    w->stores++;
    o->stores++;
}

/* The word's last commit when it is CN cn's (and core's, unless core is UINT_MAX), its doubt begun
 * (dbase: the value before it); NULL when the word was never stored or another committed it last
 * (the doubted commit was superseded: its value was seen). */
static commit_t *doubt_begin(oracle_t *o, uint64_t addr, unsigned cn, unsigned core)
{
    const word_t *ww = word_find(o, addr);
    commit_t *w = ww && ww->c != NO_COMMIT ? &o->c[ww->c] : NULL;
    if (!w || w->last_cn != cn || (core != UINT_MAX && w->last_core != core))
        return NULL;
    if (w->doubt == 0)
        w->dbase = w->prev;
    return w;
}

void oracle_doubt(oracle_t *o, uint64_t addr, unsigned cn, unsigned core)
{
    commit_t *w = doubt_begin(o, addr, cn, core);
    if (w && w->doubt < UINT8_MAX)
        w->doubt++;
}

void oracle_doubt_unwritten(oracle_t *o, uint64_t addr, unsigned cn)
{
    commit_t *w = doubt_begin(o, addr, cn, UINT_MAX);
    if (w)
        w->doubt = UINT8_MAX; /* any earlier value */
}

static void fill(const oracle_t *o, const word_t *w, oracle_word_t *out)
{
    *out = (oracle_word_t){.addr = w->addr, .init = w->init, .last = w->init};
    if (w->c != NO_COMMIT) {
        const commit_t *c = &o->c[w->c];
        out->last = c->last;
        out->stores = c->stores;
        out->last_t_ps = c->last_t;
        out->last_cn = c->last_cn;
        out->last_core = c->last_core;
    }
}

size_t oracle_num_words(const oracle_t *o) { return o->nw; }

void oracle_word_at(const oracle_t *o, size_t i, oracle_word_t *w)
{
    assert(i < o->nw);
    fill(o, &o->w[i], w);
}

bool oracle_lookup(const oracle_t *o, uint64_t addr, oracle_word_t *w)
{
    const word_t *x = word_find(o, addr);
    if (x)
        fill(o, x, w);
    return x != NULL;
}

typedef struct bad {
    const word_t *w;
    uint64_t holds;
    bool phantom;
} bad_t;

static int bad_cmp(const void *a, const void *b)
{
    uint64_t x = ((const bad_t *)a)->w->addr, y = ((const bad_t *)b)->w->addr;
    return x < y ? -1 : x > y;
}

void oracle_check(const oracle_t *o, oracle_peek_fn peek, void *obj, FILE *f, size_t max_lines,
                  oracle_report_t *r)
{
    *r = (oracle_report_t){.words = o->nw, .stores = o->stores};
    bad_t *bad = NULL;
    size_t nbad = 0, capbad = 0;
    for (size_t i = 0; i < o->nw; i++) {
        const word_t *ww = &o->w[i];
        const commit_t *w = ww->c != NO_COMMIT ? &o->c[ww->c] : NULL;
        uint64_t v = peek(obj, ww->addr);
        if (v == (w ? w->last : ww->init)) {
            r->ok++;
            continue;
        }
        bool older = w && (v == ww->init || hist_has(o, w, v));
        if (w && w->doubt && (w->doubt == 1 ? v == w->dbase : older)) {
            r->undurable++;
            continue;
        }
        bool lost = older;
        if (lost)
            r->lost++;
        else
            r->phantom++;
        if (!f)
            continue;
        /* Keep the lowest max_lines addresses only when printing: collect all, sort once. */
        if (nbad == capbad) {
            capbad = capbad ? capbad * 2 : 64;
            bad = xrealloc(bad, capbad * sizeof *bad);
        }
        bad[nbad++] = (bad_t){ww, v, !lost};
    }
    if (!f || nbad == 0) {
        free(bad);
        return;
    }
    qsort(bad, nbad, sizeof *bad, bad_cmp);
    size_t n = nbad < max_lines ? nbad : max_lines;
    for (size_t i = 0; i < n; i++) {
        oracle_word_t w;
        fill(o, bad[i].w, &w);
        const char *what = bad[i].phantom ? "phantom" : bad[i].holds == w.init ? "lost (holds its initial value)"
                                                                               : "lost (holds an earlier store)";
        fprintf(f, "oracle: word 0x%" PRIx64 " %s: holds 0x%" PRIx64 ", should hold 0x%" PRIx64, w.addr, what,
                bad[i].holds, w.last);
        if (w.stores)
            fprintf(f, " (the last of %" PRIu64 " stores, committed at %" PRIu64 " ps by cn %u core %u)\n",
                    w.stores, w.last_t_ps, w.last_cn, w.last_core);
        else
            fprintf(f, " (its initial value, never stored)\n");
    }
    if (nbad > n)
        fprintf(f, "oracle: ... and %zu more mismatched words\n", nbad - n);
    free(bad);
}
