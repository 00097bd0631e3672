/* sc_btree: SC-BTree, the Prism blog's software-coherent B+-tree on partly coherent CXL memory:
 * nodes in the Large Non-coherent Region (LNR), 128 keys each, one version per node in the Small
 * Coherent Region (SCR), bumped on every change and checked by readers (index.h: keys, operations,
 * the version discipline and the check).
 *
 * Layout. A node is 33 lines (258 words used): word 0 its key count (bit 63: a leaf), word 1 a
 * leaf's successor + 1 (0: the last leaf), then 128 keys, then 128 values (a leaf) or children (an
 * inner node: child i holds the keys from key i, the least of them, up to key i + 1). Setup loads
 * the sorted keys bottom up, as a bulk load does: leaves of 128 keys (the last ones share the
 * remainder evenly), then inner levels of up to 128 children, up to one root; node ids count
 * leaves first, the root last. The key set is fixed (index.h), so the tree's shape never changes:
 * a put rewrites one value word of one leaf under the leaf's version, and every host that cached
 * any of the leaf's 128 keys must flush the whole node before reading it again (the blog's false
 * invalidations).
 * Operations. A search in a node is a binary search over its keys, one dependent load a step (about
 * seven for 128 keys), each node on the path read under its version (index.h). get: down to the
 * leaf, the key's value. put: down to the leaf (inner nodes read), lock the leaf's version, write
 * the value, write its line back, publish the next version. scan: down to the first key's leaf,
 * then leaf after leaf along the successor links, each leaf's keys and values for the scan read as
 * one batch of independent loads under the leaf's version.
 * A CN failure: a leaf's version a lost thread holds is taken over by a survivor (index.h); a put
 * writes one word, so the leaf is whole either way. */
#include <stdlib.h>

#include "workloads/index.h"

#define FANOUT 128u
#define W_KEYS 2u
#define W_SLOTS (W_KEYS + FANOUT)
#define NODE_LINES ((W_SLOTS + FANOUT + 7) / 8)
#define NODE_BYTES (NODE_LINES * 64ull)
#define LEAF (1ull << 63)
#define STEP_INSTRS 4u /* a binary search step's compare and branch */
#define NONE UINT64_MAX

typedef struct btree {
    idx_t ix;
    uint64_t nodes, leaves, root, base; /* nodes (the leaves first); the root's id; LNR: node i at base + i *
                                           NODE_BYTES */
} btree_t;

static void bt_free(void *state)
{
    btree_t *b = state;
    if (!b)
        return;
    idx_free(&b->ix);
    free(b);
}

static uint64_t node_at(const btree_t *b, uint64_t n) { return b->base + n * NODE_BYTES; }
static uint64_t key_at(uint64_t a, uint64_t i) { return a + 8 * (W_KEYS + i); }
static uint64_t slot_at(uint64_t a, uint64_t i) { return a + 8 * (W_SLOTS + i); }

/* Nodes of a level over `below` nodes (or keys): ceil(below / FANOUT), and the i-th's share. */
static uint64_t level_nodes(uint64_t below) { return (below + FANOUT - 1) / FANOUT; }
static uint64_t share_of(uint64_t below, uint64_t n, uint64_t i) { return below / n + (i < below % n); }

static int bt_setup(wl_env_t *e, void **state, char *err)
{
    *state = NULL;
    btree_t *b = calloc(1, sizeof *b);
    if (!b)
        return wl_errf(err, "sc_btree: out of host memory");
    if (idx_setup(e, &b->ix, "sc_btree", 0, err)) {
        free(b);
        return -1;
    }
    const idx_t *ix = &b->ix;
    for (uint64_t below = ix->nkeys;; below = level_nodes(below)) {
        b->nodes += level_nodes(below);
        if (level_nodes(below) == 1)
            break;
    }
    b->base = b->nodes <= UINT64_MAX / NODE_BYTES ? e->ops->alloc_lnr(e, b->nodes * NODE_BYTES) : WL_ALLOC_FAIL;
    if (b->base == WL_ALLOC_FAIL) {
        const uint64_t nodes = b->nodes;
        bt_free(b);
        return wl_errf(err, "sc_btree: %llu nodes of %llu bytes do not fit the Large Non-coherent Region",
                       (unsigned long long)nodes, (unsigned long long)NODE_BYTES);
    }
    if (idx_versions(e, &b->ix, b->nodes, e->cfg->workload.share_scr_budget, 0, err)) {
        bt_free(b);
        return -1;
    }
    for (uint64_t w = 0; w < b->nodes * NODE_BYTES / 8; w++) /* every word written, the padding too */
        e->ops->poke(e, 0, b->base + 8 * w, 0);
    /* the leaves, then each inner level over the one below (its first node's id: lo) */
    uint64_t id = 0, lo = 0, below = ix->nkeys, k = 0;
    const uint64_t leaves = b->leaves = level_nodes(ix->nkeys);
    for (uint64_t i = 0; i < leaves; i++, id++) {
        const uint64_t a = node_at(b, id), nk = share_of(ix->nkeys, leaves, i);
        e->ops->poke(e, 0, a, nk | LEAF);
        e->ops->poke(e, 0, a + 8, i + 1 < leaves ? id + 2 : 0);
        for (uint64_t j = 0; j < nk; j++, k++)
            e->ops->poke(e, 0, key_at(a, j), ix->key[k]); /* values: setup's, 0 */
    }
    for (below = leaves; below > 1; below = level_nodes(below)) {
        const uint64_t n = level_nodes(below), first = id;
        for (uint64_t i = 0, c = lo; i < n; i++, id++) {
            const uint64_t a = node_at(b, id), nk = share_of(below, n, i);
            e->ops->poke(e, 0, a, nk);
            for (uint64_t j = 0; j < nk; j++, c++) {
                e->ops->poke(e, 0, key_at(a, j), e->ops->peek(e, 0, key_at(node_at(b, c), 0)));
                e->ops->poke(e, 0, slot_at(a, j), c);
            }
        }
        lo = first;
    }
    b->root = id - 1;
    *state = b;
    return 0;
}

/* The index of the last of the node's nk keys that is <= key (0 when key is below them all): a
 * binary search, one dependent load a step. */
static uint64_t search(wl_thread_t *t, uint64_t a, uint64_t nk, uint64_t key)
{
    uint64_t lo = 0, hi = nk ? nk - 1 : 0;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo + 1) / 2;
        if (wl_ld(t, key_at(a, mid)) <= key)
            lo = mid;
        else
            hi = mid - 1;
        wl_compute(t, STEP_INSTRS);
    }
    return lo;
}

/* From the root down to the leaf that holds key: each inner node read under its version. */
static uint64_t descend(wl_thread_t *t, const btree_t *b, uint64_t key)
{
    uint64_t n = b->root;
    while (n >= b->leaves) {
        const uint64_t a = node_at(b, n), v = idx_rbegin(t, &b->ix, n, a, NODE_LINES);
        const uint64_t child = wl_ld(t, slot_at(a, search(t, a, wl_ld(t, a), key)));
        if (idx_rend(t, &b->ix, n, v))
            n = child;
    }
    return n;
}

static uint64_t bt_get(wl_thread_t *t, void *w, uint64_t key)
{
    const btree_t *b = w;
    const uint64_t n = descend(t, b, key), a = node_at(b, n);
    for (;;) {
        const uint64_t v = idx_rbegin(t, &b->ix, n, a, NODE_LINES), nk = wl_ld(t, a) & ~LEAF;
        const uint64_t i = search(t, a, nk, key), k = wl_ld(t, key_at(a, i)), val = wl_ld(t, slot_at(a, i));
        if (idx_rend(t, &b->ix, n, v))
            return k == key ? val : NONE; /* NONE: a key lost, which the check reports */
    }
}

static void bt_put(wl_thread_t *t, void *w, uint64_t key, uint64_t val)
{
    const btree_t *b = w;
    const uint64_t n = descend(t, b, key), a = node_at(b, n);
    const uint64_t v = idx_wlock(t, &b->ix, n, a, NODE_LINES), nk = wl_ld(t, a) & ~LEAF;
    const uint64_t i = search(t, a, nk, key), s = slot_at(a, i);
    if (wl_ld(t, key_at(a, i)) == key) /* else a key lost: the check finds its value never written */
        wl_st(t, s, val);
    const uint64_t dirty = s & ~63ull;
    idx_wunlock(t, &b->ix, n, v, &dirty, 1);
}

static unsigned bt_scan(wl_thread_t *t, void *w, uint64_t key, unsigned want, uint64_t *keys, uint64_t *vals)
{
    const btree_t *b = w;
    uint64_t n = descend(t, b, key), addr[2 * IDX_SCAN_MAX], got[2 * IDX_SCAN_MAX];
    unsigned done = 0;
    bool first = true;
    while (done < want && n != NONE) {
        const uint64_t a = node_at(b, n), v = idx_rbegin(t, &b->ix, n, a, NODE_LINES);
        const uint64_t nk = wl_ld(t, a) & ~LEAF, next = wl_ld(t, a + 8);
        uint64_t p = first ? search(t, a, nk, key) : 0;
        if (first && p < nk && wl_ld(t, key_at(a, p)) < key)
            p++; /* key is not in the leaf: the scan starts at the next key */
        const unsigned m = (unsigned)(nk - p < want - done ? nk - p : want - done);
        for (unsigned j = 0; j < m; j++) {
            addr[2 * j] = key_at(a, p + j);
            addr[2 * j + 1] = slot_at(a, p + j);
        }
        wl_ld_batch(t, addr, got, 2 * m);
        if (!idx_rend(t, &b->ix, n, v))
            continue;
        for (unsigned j = 0; j < m; j++) {
            keys[done + j] = got[2 * j];
            vals[done + j] = got[2 * j + 1];
        }
        done += m;
        first = false;
        n = next ? next - 1 : NONE;
    }
    return done;
}

static uint64_t bt_final(wl_env_t *e, void *w, uint64_t key)
{
    const btree_t *b = w;
    for (uint64_t n = b->root;;) {
        const uint64_t a = node_at(b, n), w0 = e->ops->peek(e, 0, a), nk = w0 & ~LEAF;
        uint64_t lo = 0, hi = nk ? nk - 1 : 0;
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo + 1) / 2;
            if (e->ops->peek(e, 0, key_at(a, mid)) <= key)
                lo = mid;
            else
                hi = mid - 1;
        }
        const uint64_t i = lo;
        if (w0 & LEAF)
            return e->ops->peek(e, 0, key_at(a, i)) == key ? e->ops->peek(e, 0, slot_at(a, i)) : NONE;
        n = e->ops->peek(e, 0, slot_at(a, i));
    }
}

static const idx_ops_t bt_ops = {.get = bt_get, .put = bt_put, .scan = bt_scan, .final = bt_final};

static void bt_thread(wl_thread_t *t, void *state) { idx_run(t, &((btree_t *)state)->ix, state, &bt_ops); }

static int bt_check(wl_env_t *e, void *state, char *err)
{
    btree_t *b = state;
    return idx_check(e, &b->ix, b, &bt_ops, err);
}

const workload_t wl_sc_btree = {
    .name = "sc_btree",
    .doc = "SC-BTree: a B+-tree of 128 keys per node in the LNR, one version per node in the SCR",
    .setup = bt_setup,
    .thread = bt_thread,
    .check = bt_check,
    .free = bt_free,
};
