/* The oracle of committed stores (see oracle.h).
 *
 * Words live in blocks of 64 consecutive words (512 bytes of addresses), created when one of their
 * words is first recorded: a block holds its words' initial values, their commit indices and a bit
 * per recorded word, 12 bytes a word and about 40 a block. Workloads set up their data in runs of
 * consecutive words (YCSB's 205 M words of records at the paper's size), so a block is nearly full
 * and a setup writes the blocks in order. Blocks are found by an open-addressing hash map whose
 * slots hold the block's address too (probing stays inside the map), after a one-block cache for
 * the block last found. (Before, each word had an entry of 24 bytes in an array in first-record
 * order and one of its own in the map, which held only the array index: each probe missed in the
 * array, and YCSB at the paper's size took 6 GB and most of its 98 s of setup there.)
 * A word with commits has a commit_t; each value a commit replaces is pushed on the word's
 * history, a singly linked list in one append-only arena (12 B an entry): a commit is a lookup and
 * an append, never a search. The history is read only at check time, and only for a word that
 * does not hold its last value (to tell lost from phantom). Cheap duplicates are skipped (the
 * replaced value equal to the initial one or to the history's head), so a lock word alternating
 * 0 / 1 costs one entry, not one per store. */
#include "sys/oracle.h"

#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define NO_HIST UINT32_MAX
#define NO_COMMIT UINT32_MAX
#define BLOCK_WORDS 64u
#define BLOCK_SHIFT 9 /* log2(BLOCK_WORDS * 8): a block's byte address is addr >> BLOCK_SHIFT */

/* 64 consecutive words: what every recorded word needs (a workload's setup may initialize hundreds
 * of millions that are never stored); its commits, when it has any, in a commit_t. */
typedef struct block {
    uint64_t base;              /* address of word 0 */
    uint64_t present;           /* bit i: word i is recorded */
    uint64_t init[BLOCK_WORDS]; /* initial values */
    uint32_t c[BLOCK_WORDS];    /* commit_t of each, or NO_COMMIT (never stored: it must hold init) */
} block_t;

/* A recorded word: its block and its index there. */
typedef struct word {
    block_t *b;
    unsigned i;
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

/* A slot of the block map: a block's address (base >> BLOCK_SHIFT, plus 1 so that 0 is empty) and
 * its place in blocks[]. */
typedef struct slot {
    uint64_t key;
    size_t b;
} slot_t;

struct oracle {
    block_t **blocks; /* in creation order */
    size_t nb, capb;
    slot_t *map;
    size_t map_mask;
    block_t *hot;     /* the block found last */
    size_t nw;        /* recorded words */
    size_t *before;   /* per block: recorded words in the blocks before it (oracle_word_at), ... */
    size_t nw_before; /* ... worked out when nw was this (a new block comes with a new word) */
    commit_t *c;
    size_t nc, capc;
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

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fprintf(stderr, "oracle: out of memory (%zu bytes)\n", n);
        abort();
    }
    return q;
}

oracle_t *oracle_create(void)
{
    oracle_t *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->map_mask = 1023;
    o->map = calloc(o->map_mask + 1, sizeof *o->map);
    if (!o->map) {
        oracle_free(o);
        return NULL;
    }
    return o;
}

void oracle_free(oracle_t *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->nb; i++)
        free(o->blocks[i]);
    free(o->blocks);
    free(o->map);
    free(o->before);
    free(o->c);
    free(o->hv);
    free(o->hnext);
    free(o);
}

/* Slot of key in the map: where it is, or the empty slot where it would go. */
static size_t map_slot(const oracle_t *o, uint64_t key)
{
    size_t s = (size_t)mix(key) & o->map_mask;
    while (o->map[s].key && o->map[s].key != key)
        s = (s + 1) & o->map_mask;
    return s;
}

static void map_grow(oracle_t *o)
{
    size_t n = (o->map_mask + 1) * 2;
    free(o->map);
    o->map = xrealloc(NULL, n * sizeof *o->map);
    memset(o->map, 0, n * sizeof *o->map);
    o->map_mask = n - 1;
    for (size_t i = 0; i < o->nb; i++) {
        const uint64_t key = (o->blocks[i]->base >> BLOCK_SHIFT) + 1;
        o->map[map_slot(o, key)] = (slot_t){key, i};
    }
}

/* The block holding addr, or NULL. */
static block_t *block_find(const oracle_t *o, uint64_t addr)
{
    const uint64_t base = addr & ~(uint64_t)(BLOCK_WORDS * 8 - 1);
    if (o->hot && o->hot->base == base)
        return o->hot;
    const slot_t *sl = &o->map[map_slot(o, (addr >> BLOCK_SHIFT) + 1)];
    return sl->key ? o->blocks[sl->b] : NULL;
}

/* A new block for addr, in the map. */
static block_t *block_new(oracle_t *o, uint64_t addr)
{
    block_t *b = xrealloc(NULL, sizeof *b);
    b->base = addr & ~(uint64_t)(BLOCK_WORDS * 8 - 1);
    b->present = 0;
    if (o->nb == o->capb) {
        o->capb = o->capb ? o->capb * 2 : 256;
        o->blocks = xrealloc(o->blocks, o->capb * sizeof *o->blocks);
    }
    o->blocks[o->nb] = b;
    const uint64_t key = (addr >> BLOCK_SHIFT) + 1;
    o->map[map_slot(o, key)] = (slot_t){key, o->nb++};
    if (o->nb * 4 > (o->map_mask + 1) * 3)
        map_grow(o);
    return b;
}

/* The word at addr, recorded (initial value 0) when new. */
static word_t word_get(oracle_t *o, uint64_t addr)
{
    assert((addr & 7u) == 0 && "oracle: unaligned word address");
    block_t *b = block_find(o, addr);
    if (!b)
        b = block_new(o, addr);
    o->hot = b;
    const unsigned i = (unsigned)((addr - b->base) >> 3);
    if (!(b->present >> i & 1u)) {
        b->present |= 1ull << i;
        b->init[i] = 0;
        b->c[i] = NO_COMMIT;
        o->nw++;
    }
    return (word_t){b, i};
}

/* The word at addr, or one with a NULL block when the oracle never saw it. */
static word_t word_find(const oracle_t *o, uint64_t addr)
{
    block_t *b = block_find(o, addr);
    const unsigned i = (unsigned)((addr >> 3) & (BLOCK_WORDS - 1));
    return b && (b->present >> i & 1u) ? (word_t){b, i} : (word_t){NULL, 0};
}

static uint64_t word_addr(word_t w) { return w.b->base + 8u * w.i; }

/* The commits of a recorded word, or NULL when it was never stored. */
static commit_t *commit_of(const oracle_t *o, word_t w)
{
    return w.b->c[w.i] != NO_COMMIT ? &o->c[w.b->c[w.i]] : NULL;
}

/* The commits of w, created at its first commit. */
static commit_t *commit_get(oracle_t *o, word_t w)
{
    commit_t *c = commit_of(o, w);
    if (c)
        return c;
    assert(o->nc < NO_COMMIT && "oracle: more than 2^32 - 1 stored words");
    if (o->nc == o->capc) {
        o->capc = o->capc ? o->capc * 2 : 1024;
        o->c = xrealloc(o->c, o->capc * sizeof *o->c);
    }
    w.b->c[w.i] = (uint32_t)o->nc;
    o->c[o->nc] = (commit_t){.last = w.b->init[w.i], .hist = NO_HIST};
    return &o->c[o->nc++];
}

static void hist_push(oracle_t *o, uint64_t init, commit_t *w, uint64_t v)
{
    if (v == init || (w->hist != NO_HIST && w->top == v))
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
    word_t w = word_get(o, addr);
    assert(w.b->c[w.i] == NO_COMMIT && "oracle_init after a committed store to the word");
    w.b->init[w.i] = v;
}

void oracle_commit(oracle_t *o, uint64_t addr, uint64_t v, uint64_t t_ps, unsigned cn, unsigned core)
{
    word_t ww = word_get(o, addr);
    commit_t *w = commit_get(o, ww);
    assert((w->stores == 0 || t_ps >= w->last_t) && "oracle_commit: commit time went back for a word");
    if (w->stores && w->last != v)
        hist_push(o, ww.b->init[ww.i], w, w->last);
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
    const word_t ww = word_find(o, addr);
    commit_t *w = ww.b ? commit_of(o, ww) : NULL;
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

static void fill(const oracle_t *o, word_t w, oracle_word_t *out)
{
    const uint64_t init = w.b->init[w.i];
    *out = (oracle_word_t){.addr = word_addr(w), .init = init, .last = init};
    const commit_t *c = commit_of(o, w);
    if (c) {
        out->last = c->last;
        out->stores = c->stores;
        out->last_t_ps = c->last_t;
        out->last_cn = c->last_cn;
        out->last_core = c->last_core;
    }
}

size_t oracle_num_words(const oracle_t *o) { return o->nw; }

/* The i-th word: blocks in creation order, a block's words in address order. The blocks' counts
 * of the words before them are worked out again when words were recorded since. */
void oracle_word_at(const oracle_t *o, size_t i, oracle_word_t *w)
{
    assert(i < o->nw);
    oracle_t *m = (oracle_t *)o; /* the counts are a cache: the recorded words are unchanged */
    if (m->nw_before != m->nw) {
        m->before = xrealloc(m->before, (m->nb ? m->nb : 1) * sizeof *m->before);
        size_t n = 0;
        for (size_t b = 0; b < m->nb; b++) {
            m->before[b] = n;
            n += (size_t)__builtin_popcountll(m->blocks[b]->present);
        }
        m->nw_before = m->nw;
    }
    size_t lo = 0, hi = o->nb; /* the last block with before <= i */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->before[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    const block_t *b = o->blocks[lo];
    uint64_t p = b->present;
    for (size_t k = i - o->before[lo]; k; k--)
        p &= p - 1;
    fill(o, (word_t){(block_t *)b, (unsigned)__builtin_ctzll(p)}, w);
}

bool oracle_lookup(const oracle_t *o, uint64_t addr, oracle_word_t *w)
{
    const word_t x = word_find(o, addr);
    if (x.b)
        fill(o, x, w);
    return x.b != NULL;
}

typedef struct bad {
    word_t w;
    uint64_t holds;
    bool phantom;
} bad_t;

static int bad_cmp(const void *a, const void *b)
{
    uint64_t x = word_addr(((const bad_t *)a)->w), y = word_addr(((const bad_t *)b)->w);
    return x < y ? -1 : x > y;
}

void oracle_check(const oracle_t *o, oracle_peek_fn peek, void *obj, FILE *f, size_t max_lines,
                  oracle_report_t *r)
{
    *r = (oracle_report_t){.words = o->nw, .stores = o->stores};
    bad_t *bad = NULL;
    size_t nbad = 0, capbad = 0;
    for (size_t bi = 0; bi < o->nb; bi++) {
        for (uint64_t p = o->blocks[bi]->present; p; p &= p - 1) {
            const word_t ww = {o->blocks[bi], (unsigned)__builtin_ctzll(p)};
            const uint64_t init = ww.b->init[ww.i];
            const commit_t *w = commit_of(o, ww);
            uint64_t v = peek(obj, word_addr(ww));
            if (v == (w ? w->last : init)) {
                r->ok++;
                continue;
            }
            bool older = w && (v == init || hist_has(o, w, v));
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
