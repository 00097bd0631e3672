/* A set-associative cache array with real data and LRU replacement: the storage of one cache level
 * of a compute node (its memory system, csim/cn/cn_mem.h, uses one per L1, per L2 and one for the
 * L3).
 *
 * It only stores: lines are keyed by a 64-bit line key (the byte address of the line), each holds
 * 8 words, a per-word dirty mask and two fields the owner interprets (state, and for the L3 the
 * local directory: presence bits and the private owner). Which state a line is in and what moving
 * it means is the owner's business; the array offers lookup, LRU touch, victim choice (the owner
 * says which lines may not leave) and installation. The set of a key is (key / 64) mod sets, so a
 * size that is not a power of two works. */
#ifndef CN_CACHE_H
#define CN_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/addr.h"

typedef struct cache_line {
    uint64_t key;   /* line key (byte address of the line) */
    uint64_t lru;   /* last use (larger = more recent) */
    bool valid;
    uint8_t state;  /* the owner's */
    uint8_t dmask;  /* words newer than the level below (bit i = word i) */
    int8_t owner;   /* L3: the core holding the line exclusively in its L1/L2, or -1 */
    uint32_t pres;  /* L3: cores holding the line in their L1/L2 (bit per core) */
    uint64_t data[ADDR_WORDS_PER_LINE];
} cache_line_t;

typedef struct cache {
    unsigned sets, ways;
    unsigned set_mask; /* sets - 1 when sets is a power of two (a mask finds the set), else 0 */
    uint64_t stamp; /* LRU clock */
    cache_line_t *line; /* sets * ways, set-major */
    uint64_t *tag;      /* line[i].key as installed, packed: a lookup reads one set's keys in a few
                           host cache lines, then the valid bit of the line it matches */
    /* The last key looked up or installed and where its line is (-1: nowhere), as of then: a
     * cache's owner looks a key up several times while one access goes on (its level, whether it
     * may perform, the perform), mostly with nothing installed in between. Only an install makes a
     * key valid (and moves the memo to it), so the memo stays true but for lines invalidated
     * since, which the valid bit tells. */
    uint64_t memo_key;
    int64_t memo_at;
} cache_t;

/** Says whether line l may not be chosen as a victim (it is busy). */
typedef bool (*cache_busy_fn)(void *arg, const cache_line_t *l);

/** A cache of size_bytes in ways ways (at least one set: sets = size / 64 / ways, rounded down,
 *  at least 1); NULL when ways is 0. */
cache_t *cache_create(uint64_t size_bytes, unsigned ways);
void cache_free(cache_t *c);
/** The look-up of key in its set (cache_find's, when the memo is of another key): sets the memo. */
cache_line_t *cache_find_set(cache_t *c, uint64_t key);
/** The valid line of key, or NULL. No LRU update (the look-up's memo changes: not const). Inline
 *  with the memo's answer, as cache_touch: a compute node asks them about ten times per access. */
static inline cache_line_t *cache_find(cache_t *c, uint64_t key)
{
    if (key != c->memo_key)
        return cache_find_set(c, key);
    cache_line_t *l = c->memo_at < 0 ? NULL : &c->line[c->memo_at];
    return l && l->valid ? l : NULL;
}
/** Marks l most recently used. */
static inline void cache_touch(cache_t *c, cache_line_t *l) { l->lru = ++c->stamp; }
/** The way key would go to: an invalid way of its set if there is one, else the least recently
 *  used line of the set that busy (may be NULL) does not refuse; NULL when every line is busy.
 *  The caller empties a valid victim (writes it back, invalidates it) before cache_install. */
cache_line_t *cache_victim(const cache_t *c, uint64_t key, cache_busy_fn busy, void *arg);
/** Makes l hold key: valid, state 0, dirty mask 0, no owner, no presence, data zero; most
 *  recently used. */
void cache_install(cache_t *c, cache_line_t *l, uint64_t key);
/** Invalidates l (the data are dropped: write them back first). */
void cache_invalidate(cache_line_t *l);
/** Line number i (0 .. sets * ways - 1), for dumps and whole-cache walks. */
static inline cache_line_t *cache_at(const cache_t *c, unsigned i) { return &c->line[i]; }
static inline unsigned cache_lines(const cache_t *c) { return c->sets * c->ways; }

#endif
