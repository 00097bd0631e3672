/* A map from non-zero 64-bit keys to 32-bit values (indices into the caller's arrays): open
 * addressing with linear probing, at most half full, growing by doubling. Nothing is ever removed. */
#ifndef IDMAP_H
#define IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct idmap {
    uint64_t *keys; /* 0: an empty slot */
    uint32_t *vals;
    size_t cap, n;
} idmap_t;

/** key's value (key != 0), or NULL when it has none and add is false; with add, a key that had none
 *  gets one, UINT32_MAX until the caller sets it (*added is then true). The pointer holds until the
 *  next idmap_get with add. Aborts when memory runs out. */
uint32_t *idmap_get(idmap_t *m, uint64_t key, bool add, bool *added);
/** Keys in the map. */
static inline size_t idmap_size(const idmap_t *m) { return m->n; }
/** Frees it (a zeroed idmap_t is an empty map; it is one again after this). */
void idmap_free(idmap_t *m);

#endif
