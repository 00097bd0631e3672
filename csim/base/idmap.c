#include "base/idmap.h"

#include <stdlib.h>

/* The first slot of key k in a table of cap slots (a power of two). */
static size_t first_slot(uint64_t k, size_t cap) { return (size_t)((k * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1); }

static void grow(idmap_t *m)
{
    size_t cap = m->cap ? 2 * m->cap : 1024;
    uint64_t *k = calloc(cap, sizeof *k);
    uint32_t *v = malloc(cap * sizeof *v);
    if (!k || !v)
        abort();
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i]) {
            size_t j = first_slot(m->keys[i], cap);
            while (k[j])
                j = (j + 1) & (cap - 1);
            k[j] = m->keys[i], v[j] = m->vals[i];
        }
    free(m->keys);
    free(m->vals);
    m->keys = k, m->vals = v, m->cap = cap;
}

uint32_t *idmap_get(idmap_t *m, uint64_t key, bool add, bool *added)
{
    if (added)
        *added = false;
    if (add && 2 * (m->n + 1) > m->cap)
        grow(m);
    if (!m->cap)
        return NULL;
    size_t j = first_slot(key, m->cap);
    while (m->keys[j] && m->keys[j] != key)
        j = (j + 1) & (m->cap - 1);
    if (m->keys[j])
        return &m->vals[j];
    if (!add)
        return NULL;
    m->keys[j] = key;
    m->vals[j] = UINT32_MAX;
    m->n++;
    if (added)
        *added = true;
    return &m->vals[j];
}

void idmap_free(idmap_t *m)
{
    free(m->keys);
    free(m->vals);
    *m = (idmap_t){0};
}
