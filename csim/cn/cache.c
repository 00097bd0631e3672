#include "cn/cache.h"

#include <stdlib.h>
#include <string.h>

cache_t *cache_create(uint64_t size_bytes, unsigned ways)
{
    if (ways == 0)
        return NULL;
    cache_t *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    uint64_t sets = size_bytes / ADDR_LINE_BYTES / ways;
    c->sets = sets ? (unsigned)sets : 1;
    c->ways = ways;
    c->set_mask = (c->sets & (c->sets - 1)) == 0 ? c->sets - 1 : 0;
    c->line = calloc((size_t)c->sets * ways, sizeof *c->line);
    c->tag = calloc((size_t)c->sets * ways, sizeof *c->tag);
    if (!c->line || !c->tag)
        abort();
    for (unsigned i = 0; i < c->sets * ways; i++)
        c->line[i].owner = -1;
    c->memo_key = UINT64_MAX; /* no line key: keys are multiples of the line size */
    c->memo_at = -1;
    return c;
}

void cache_free(cache_t *c)
{
    if (!c)
        return;
    free(c->line);
    free(c->tag);
    free(c);
}

/* Index of the first way of key's set. */
static size_t set_base(const cache_t *c, uint64_t key)
{
    uint64_t n = key / ADDR_LINE_BYTES;
    return (size_t)(c->set_mask ? n & c->set_mask : n % c->sets) * c->ways;
}

static cache_line_t *set_of(const cache_t *c, uint64_t key) { return &c->line[set_base(c, key)]; }

cache_line_t *cache_find_set(cache_t *c, uint64_t key)
{
    c->memo_key = key;
    c->memo_at = -1;
    size_t b = set_base(c, key);
    const uint64_t *t = &c->tag[b];
    for (unsigned w = 0; w < c->ways; w++)
        if (t[w] == key && c->line[b + w].valid) { /* an invalidated line keeps its stale tag */
            c->memo_at = (int64_t)(b + w);
            return &c->line[b + w];
        }
    return NULL;
}

cache_line_t *cache_victim(const cache_t *c, uint64_t key, cache_busy_fn busy, void *arg)
{
    cache_line_t *s = set_of(c, key), *v = NULL;
    for (unsigned w = 0; w < c->ways; w++) {
        if (!s[w].valid)
            return &s[w];
        if (busy && busy(arg, &s[w]))
            continue;
        if (!v || s[w].lru < v->lru)
            v = &s[w];
    }
    return v;
}

void cache_install(cache_t *c, cache_line_t *l, uint64_t key)
{
    memset(l, 0, sizeof *l);
    l->key = key;
    c->tag[l - c->line] = key;
    c->memo_key = key;
    c->memo_at = l - c->line;
    l->valid = true;
    l->owner = -1;
    cache_touch(c, l);
}

void cache_invalidate(cache_line_t *l)
{
    l->valid = false;
    l->state = 0;
    l->dmask = 0;
    l->owner = -1;
    l->pres = 0;
}
