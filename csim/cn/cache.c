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
    c->line = calloc((size_t)c->sets * ways, sizeof *c->line);
    if (!c->line)
        abort();
    for (unsigned i = 0; i < c->sets * ways; i++)
        c->line[i].owner = -1;
    return c;
}

void cache_free(cache_t *c)
{
    if (!c)
        return;
    free(c->line);
    free(c);
}

static cache_line_t *set_of(const cache_t *c, uint64_t key)
{
    return &c->line[(size_t)((key / ADDR_LINE_BYTES) % c->sets) * c->ways];
}

cache_line_t *cache_find(const cache_t *c, uint64_t key)
{
    cache_line_t *s = set_of(c, key);
    for (unsigned w = 0; w < c->ways; w++)
        if (s[w].valid && s[w].key == key)
            return &s[w];
    return NULL;
}

void cache_touch(cache_t *c, cache_line_t *l) { l->lru = ++c->stamp; }

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
