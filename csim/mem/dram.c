#include "mem/dram.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The stored lines, in blocks of 16 consecutive lines (1 KiB), each block allocated zeroed at the
 * first write into it (a line never written reads as zeros, written or not into an allocated
 * block), found through an open-addressing map whose slots hold the block's number. A block costs
 * its 1 KiB and a map slot: 1.0 to 1.1 times the data for memory written in runs (a workload's
 * table, the directory's entries, an LU's log), where a map of single lines at half load had cost
 * 2.5 times (80 bytes a line, twice as many slots as lines). */
#define DRAM_BLOCK_LINES 16u

typedef struct dram_block {
    uint64_t w[DRAM_BLOCK_LINES][MSG_WORDS_PER_LINE];
} dram_block_t;

typedef struct dram_slot {
    uint64_t key; /* block number + 1 (0: empty) */
    dram_block_t *b;
} dram_slot_t;

/* An access until it completes (a read's data is taken when its channel serves it); kept on the
 * DRAM's free list after, for the next one. */
typedef struct access {
    struct dram *d;
    bool write;
    uint64_t addr;
    uint64_t data[MSG_WORDS_PER_LINE];
    dram_done_fn done;
    void *obj;
    uint64_t tag;
    struct access *next_free;
    struct access *next_made; /* every access made, free or in flight (dram_free frees them all) */
} access_t;

struct dram {
    kernel_t *k;
    dram_params_t p;
    dram_slot_t *map;
    size_t nblocks, cap;
    uint64_t *free_at; /* per channel: busy until (ps) */
    unsigned busy;
    access_t *free_access;
    access_t *made;
    uint64_t *reads, *writes;
    stats_hist_t *queue_ns;
};

static uint64_t hash(uint64_t a)
{
    a ^= a >> 33;
    a *= 0xff51afd7ed558ccdull;
    a ^= a >> 33;
    return a;
}

/* The block holding line addr, or NULL when nothing was written into it. */
static dram_block_t *find(const dram_t *d, uint64_t addr)
{
    if (!d->cap)
        return NULL;
    const uint64_t key = addr / DRAM_BLOCK_LINES + 1;
    for (size_t i = hash(key) & (d->cap - 1);; i = (i + 1) & (d->cap - 1)) {
        if (!d->map[i].key)
            return NULL;
        if (d->map[i].key == key)
            return d->map[i].b;
    }
}

static dram_block_t *insert(dram_t *d, uint64_t addr)
{
    dram_block_t *b = find(d, addr);
    if (b)
        return b;
    if (4 * (d->nblocks + 1) > 3 * d->cap) {
        size_t ncap = d->cap ? 2 * d->cap : 1024;
        dram_slot_t *nm = calloc(ncap, sizeof *nm);
        if (!nm)
            abort();
        for (size_t i = 0; i < d->cap; i++) {
            if (!d->map[i].key)
                continue;
            size_t j = hash(d->map[i].key) & (ncap - 1);
            while (nm[j].key)
                j = (j + 1) & (ncap - 1);
            nm[j] = d->map[i];
        }
        free(d->map);
        d->map = nm;
        d->cap = ncap;
    }
    if (!(b = calloc(1, sizeof *b)))
        abort();
    const uint64_t key = addr / DRAM_BLOCK_LINES + 1;
    size_t i = hash(key) & (d->cap - 1);
    while (d->map[i].key)
        i = (i + 1) & (d->cap - 1);
    d->map[i] = (dram_slot_t){key, b};
    d->nblocks++;
    return b;
}

dram_t *dram_create(kernel_t *k, const dram_params_t *p, stats_t *st)
{
    if (p->latency_ps == 0 || p->channels == 0) {
        fprintf(stderr, "dram %s: needs a non-zero latency and at least one channel\n", p->name);
        return NULL;
    }
    dram_t *d = calloc(1, sizeof *d);
    if (!d)
        abort();
    d->k = k;
    d->p = *p;
    d->free_at = calloc(p->channels, sizeof *d->free_at);
    if (!d->free_at)
        abort();
    char name[128];
    snprintf(name, sizeof name, "%s.reads", p->name);
    d->reads = stats_counter(st, name, "line reads");
    snprintf(name, sizeof name, "%s.writes", p->name);
    d->writes = stats_counter(st, name, "line writes (masked)");
    snprintf(name, sizeof name, "%s.queue_ns", p->name);
    d->queue_ns = stats_hist(st, name, "time an access waited for its channel (ns)",
                             (stats_buckets_t){.kind = STATS_LOG2});
    return d;
}

void dram_free(dram_t *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->cap; i++)
        free(d->map[i].b);
    free(d->map);
    while (d->made) { /* the free ones and those a stopped kernel never completed */
        access_t *a = d->made;
        d->made = a->next_made;
        free(a);
    }
    free(d->free_at);
    free(d);
}

void dram_peek(const dram_t *d, uint64_t addr, uint64_t *line)
{
    const dram_block_t *b = find(d, addr);
    if (b)
        memcpy(line, b->w[addr % DRAM_BLOCK_LINES], sizeof b->w[0]);
    else
        memset(line, 0, MSG_WORDS_PER_LINE * sizeof *line);
}

void dram_poke(dram_t *d, uint64_t addr, uint8_t mask, const uint64_t *data)
{
    uint64_t *l = insert(d, addr)->w[addr % DRAM_BLOCK_LINES];
    for (unsigned i = 0; i < MSG_WORDS_PER_LINE; i++)
        if (mask >> i & 1u)
            l[i] = data[i];
}

static void complete(void *obj, uint64_t arg)
{
    (void)arg;
    access_t *a = obj;
    dram_t *d = a->d;
    d->busy--;
    a->done(a->obj, a->tag, a->write ? NULL : a->data);
    a->next_free = d->free_access;
    d->free_access = a;
}

/* The access is served (data read, or a write's wdata written under mask) when its channel takes
 * it; it completes latency later. Serving at issue time in arrival order keeps reads after writes
 * to one line coherent. */
static void issue(dram_t *d, access_t *a, uint8_t mask, const uint64_t *wdata)
{
    const uint64_t now = d->k->now;
    uint64_t *free_at = &d->free_at[a->addr % d->p.channels];
    uint64_t start = *free_at > now ? *free_at : now;
    *free_at = start + d->p.burst_ps;
    stats_hist_add(d->queue_ns, (start - now) / PS_PER_NS);
    if (a->write) {
        dram_poke(d, a->addr, mask, wdata);
        (*d->writes)++;
    } else {
        dram_peek(d, a->addr, a->data);
        (*d->reads)++;
    }
    d->busy++;
    kernel_at(d->k, start + d->p.latency_ps, complete, a, 0);
}

/* An access from the free list (or a new one), served now. */
static void begin_access(dram_t *d, bool write, uint64_t addr, uint8_t mask, const uint64_t *wdata, dram_done_fn done,
                         void *obj, uint64_t tag)
{
    access_t *a = d->free_access;
    if (a)
        d->free_access = a->next_free;
    else if ((a = malloc(sizeof *a)) != NULL) {
        a->next_made = d->made;
        d->made = a;
    } else {
        abort();
    }
    a->d = d;
    a->write = write;
    a->addr = addr;
    a->done = done;
    a->obj = obj;
    a->tag = tag;
    issue(d, a, mask, wdata);
}

void dram_read(dram_t *d, uint64_t addr, dram_done_fn done, void *obj, uint64_t tag)
{
    begin_access(d, false, addr, 0, NULL, done, obj, tag);
}

void dram_write(dram_t *d, uint64_t addr, uint8_t mask, const uint64_t *data, dram_done_fn done, void *obj,
                uint64_t tag)
{
    begin_access(d, true, addr, mask, data, done, obj, tag);
}

unsigned dram_busy(const dram_t *d) { return d->busy; }
