/* sc_art: SC-ART, the Prism blog's software-coherent adaptive radix tree on partly coherent CXL
 * memory: nodes in the Large Non-coherent Region (LNR), one version per node, in the Small
 * Coherent Region (SCR) while workload.share_scr_budget lasts and spilled into the LNR beyond it
 * (a flush before every read of a spilled version; budget 0 is the blog's "unlimited SCR"
 * variant). Keys, operations, the version discipline and the check: index.h.
 *
 * Layout. An adaptive radix tree over the keys' 8 bytes, most significant first (Leis et al., ICDE
 * 2013): inner nodes of four kinds by their number of children, Node4 (1 line: its header, its
 * prefix, 4 key bytes in one word, 4 children), Node16 (3 lines: 16 key bytes in two words, 16
 * children), Node48 (11 lines: a 256-byte index of child slots, 48 children) and Node256 (33 lines:
 * 256 children); path compression (a node's header word holds its kind, child count and prefix
 * length, the next word up to 7 prefix bytes) and lazy expansion (a subtree of one key is a leaf:
 * the key and its value, 16 bytes). A node's leaves sit in whole lines right after it and share
 * its version: a put rewrites a value under its parent node's version, which every reader of the
 * node checks. A child word is a leaf's index among its node's leaves (bit 63 set) or an inner
 * node's id + 1: the id names the node's version, and stands for the pointer, which in a real ART
 * carries the node's address and kind (here a host table of addresses and extents, read at no
 * simulated cost). Setup builds the tree from the sorted keys (a key set that never changes:
 * index.h) and numbers the nodes breadth first, so the versions that fit the SCR are the upper
 * levels' and the spilled ones the lower levels'. Random 63-bit keys make a Node256 root (its top
 * byte has 128 values), dense Node256s below it while a byte's range holds many keys, then mostly
 * Node4s: about 0.27 inner nodes per key at 100 000 keys (the blog's 100 M keys make about 40 M).
 * Operations. A node read (index.h) reads the header, compares the prefix, finds the child for the
 * key's next byte (a Node4's or Node16's key bytes, a Node48's index byte, a Node256's slot) and,
 * when the child is a leaf, its key and value, all before the version is read again. get: down to
 * the key's leaf. put: down to the leaf's node, lock its version, write the value, write its line
 * back, publish. scan: depth first from the key's path, each node's children (and its leaves'
 * keys and values) read in one validated read, in key order, until the scan has its keys.
 * A CN failure: a node's version (or a spilled version's stripe) a lost thread holds is taken over
 * by a survivor (index.h); a put writes one word, so the node is whole either way. */
#include <stdlib.h>
#include <string.h>

#include "workloads/index.h"

#define N4 0u
#define N16 1u
#define N48 2u
#define N256 3u
#define H_PLEN_SHIFT 16u
#define H_KIND_SHIFT 62u
#define LEAF_BIT (1ull << 63)
#define W_KEYS 2u     /* Node4, Node16: key bytes from this word on; Node48: the index; Node256: children */
#define N48_SLOTS 34u /* a Node48's children from this word on (after its 32-word index) */
#define STEP_INSTRS 4u
#define NONE UINT64_MAX

static const unsigned kind_cap[4] = {4, 16, 48, 256};
static const unsigned kind_lines[4] = {1, 3, 11, 33};
/* the word of child slot i */
static unsigned slot_word(unsigned kind, unsigned i)
{
    return kind == N4 ? 3 + i : kind == N16 ? 4 + i : kind == N48 ? N48_SLOTS + i : W_KEYS + i;
}

/* The tree as setup builds it (host memory; then written into the LNR). */
typedef struct anode {
    unsigned kind, n, plen;
    uint64_t prefix;          /* its prefix bytes, the first at bits 56..63 */
    uint8_t byte[256];        /* the children's bytes, ascending */
    uint64_t ref[256];        /* a child: a key rank | LEAF_BIT, or a node's build index */
    uint64_t id, addr, lines; /* after numbering: id, LNR address, lines with its leaves */
} anode_t;

typedef struct art {
    idx_t ix;
    uint64_t nodes;
    uint64_t *addr, *lines; /* per id: the node's LNR address and lines (its leaves included) */
    uint8_t *kind;          /* per id */
} art_t;

static void art_free(void *state)
{
    art_t *t = state;
    if (!t)
        return;
    idx_free(&t->ix);
    free(t->addr);
    free(t->lines);
    free(t->kind);
    free(t);
}

static unsigned kbyte(uint64_t key, unsigned d) { return (unsigned)(key >> (56 - 8 * d) & 0xff); }

typedef struct build {
    const uint64_t *key;
    anode_t *node;
    uint64_t n, cap;
} build_t;

/* Builds the subtree of the sorted keys [lo, hi) past depth bytes; returns its child word as the
 * parent holds it in the build (LEAF_BIT | rank, or the node's build index), NONE out of memory. */
static uint64_t build(build_t *b, uint64_t lo, uint64_t hi, unsigned depth)
{
    if (hi - lo == 1)
        return LEAF_BIT | lo;
    unsigned p = 0;
    while (kbyte(b->key[lo], depth + p) == kbyte(b->key[hi - 1], depth + p))
        p++; /* distinct keys differ before their last byte runs out */
    if (b->n == b->cap) {
        uint64_t cap = b->cap ? 2 * b->cap : 1024;
        anode_t *nn = realloc(b->node, cap * sizeof *nn);
        if (!nn)
            return NONE;
        b->node = nn;
        b->cap = cap;
    }
    const uint64_t me = b->n++;
    anode_t *x = &b->node[me];
    memset(x, 0, sizeof *x);
    x->plen = p;
    for (unsigned i = 0; i < p; i++)
        x->prefix |= (uint64_t)kbyte(b->key[lo], depth + i) << (56 - 8 * i);
    const unsigned d = depth + p;
    for (uint64_t i = lo; i < hi;) {
        const unsigned by = kbyte(b->key[i], d);
        uint64_t j = i + 1;
        while (j < hi && kbyte(b->key[j], d) == by)
            j++;
        const uint64_t r = build(b, i, j, d + 1);
        if (r == NONE)
            return NONE;
        x = &b->node[me]; /* the array may have moved */
        x->byte[x->n] = (uint8_t)by;
        x->ref[x->n++] = r;
        i = j;
    }
    x->kind = x->n <= 4 ? N4 : x->n <= 16 ? N16 : x->n <= 48 ? N48 : N256;
    return me;
}

static uint64_t leaves_of(const anode_t *x)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < x->n; i++)
        n += (x->ref[i] & LEAF_BIT) != 0;
    return n;
}

/* The words of node x (its lines' worth, leaves after it), given its children's ids. */
static void write_node(wl_env_t *e, const build_t *b, const anode_t *x)
{
    const uint64_t a = x->addr;
    for (uint64_t w = 0; w < x->lines * 8; w++) /* every word written, the padding too */
        e->ops->poke(e, 0, a + 8 * w, 0);
    e->ops->poke(e, 0, a, (uint64_t)x->kind << H_KIND_SHIFT | (uint64_t)x->plen << H_PLEN_SHIFT | x->n);
    e->ops->poke(e, 0, a + 8, x->prefix);
    uint64_t leaf = 0, kw[2] = {0, 0};
    const uint64_t la = a + 64ull * kind_lines[x->kind];
    for (unsigned i = 0; i < x->n; i++) {
        uint64_t c;
        if (x->ref[i] & LEAF_BIT) {
            e->ops->poke(e, 0, la + 16 * leaf, b->key[x->ref[i] & ~LEAF_BIT]); /* its value: setup's, 0 */
            c = LEAF_BIT | leaf++;
        } else {
            c = b->node[x->ref[i]].id + 1;
        }
        if (x->kind == N4 || x->kind == N16)
            kw[i / 8] |= (uint64_t)x->byte[i] << (8 * (i % 8));
        else if (x->kind == N48) { /* the index: byte b's slot + 1 */
            const uint64_t iw = a + 8 * (W_KEYS + x->byte[i] / 8u);
            e->ops->poke(e, 0, iw, e->ops->peek(e, 0, iw) | (uint64_t)(i + 1) << (8 * (x->byte[i] % 8)));
        }
        e->ops->poke(e, 0, a + 8 * slot_word(x->kind, x->kind == N256 ? x->byte[i] : i), c);
    }
    if (x->kind == N4 || x->kind == N16) {
        e->ops->poke(e, 0, a + 8 * W_KEYS, kw[0]);
        if (x->kind == N16)
            e->ops->poke(e, 0, a + 8 * (W_KEYS + 1), kw[1]);
    }
}

static int art_setup(wl_env_t *e, void **state, char *err)
{
    *state = NULL;
    art_t *t = calloc(1, sizeof *t);
    if (!t)
        return wl_errf(err, "sc_art: out of host memory");
    if (idx_setup(e, &t->ix, "sc_art", 0, err)) {
        free(t);
        return -1;
    }
    int rc = 0;
    build_t b = {.key = t->ix.key};
    uint64_t *queue = NULL, bytes = 0;
    if (t->ix.nkeys < 2) {
        rc = wl_errf(err, "sc_art: a tree of %llu key has no inner node", (unsigned long long)t->ix.nkeys);
        goto out;
    }
    if (build(&b, 0, t->ix.nkeys, 0) == NONE || !(queue = malloc(b.n * sizeof *queue)) ||
        !(t->addr = malloc(b.n * sizeof *t->addr)) || !(t->lines = malloc(b.n * sizeof *t->lines)) ||
        !(t->kind = malloc(b.n))) {
        rc = wl_errf(err, "sc_art: out of host memory");
        goto out;
    }
    /* breadth first from the root (build index 0): ids, extents */
    t->nodes = b.n;
    uint64_t head = 0, tail = 0;
    queue[tail++] = 0;
    while (head < tail) {
        anode_t *x = &b.node[queue[head]];
        x->id = head++;
        x->lines = kind_lines[x->kind] + (leaves_of(x) * 16 + 63) / 64;
        bytes += 64 * x->lines;
        for (unsigned i = 0; i < x->n; i++)
            if (!(x->ref[i] & LEAF_BIT))
                queue[tail++] = x->ref[i];
    }
    const uint64_t base = e->ops->alloc_lnr(e, bytes);
    if (base == WL_ALLOC_FAIL) {
        rc = wl_errf(err, "sc_art: %llu nodes (%llu bytes with their leaves) do not fit the Large Non-coherent "
                     "Region", (unsigned long long)b.n, (unsigned long long)bytes);
        goto out;
    }
    if ((rc = idx_versions(e, &t->ix, t->nodes, e->cfg->workload.share_scr_budget, 0, err)))
        goto out;
    for (uint64_t i = 0, a = base; i < b.n; i++) { /* in id order */
        anode_t *x = &b.node[queue[i]];
        x->addr = a;
        a += 64 * x->lines;
        t->addr[x->id] = x->addr;
        t->lines[x->id] = x->lines;
        t->kind[x->id] = (uint8_t)x->kind;
    }
    for (uint64_t i = 0; i < b.n; i++)
        write_node(e, &b, &b.node[i]);
out:
    free(b.node);
    free(queue);
    if (rc)
        art_free(t);
    else
        *state = t;
    return rc;
}

/* A node's child for byte by: its child word (0: none), read from memory. */
static uint64_t find_child(wl_thread_t *t, unsigned kind, uint64_t a, unsigned n, unsigned by)
{
    if (kind == N256)
        return wl_ld(t, a + 8 * (W_KEYS + by));
    if (kind == N48) {
        const unsigned s = (unsigned)(wl_ld(t, a + 8 * (W_KEYS + by / 8)) >> (8 * (by % 8)) & 0xff);
        return s ? wl_ld(t, a + 8 * slot_word(N48, s - 1)) : 0;
    }
    uint64_t kw[2];
    const uint64_t ka[2] = {a + 8 * W_KEYS, a + 8 * (W_KEYS + 1)};
    wl_ld_batch(t, ka, kw, kind == N16 ? 2 : 1);
    wl_compute(t, STEP_INSTRS * (kind == N16 ? 4 : 2)); /* a SIMD compare of the key bytes */
    for (unsigned i = 0; i < n; i++)
        if ((kw[i / 8] >> (8 * (i % 8)) & 0xff) == by)
            return wl_ld(t, a + 8 * slot_word(kind, i));
    return 0;
}

/* One validated read of node id on key's path at depth: the child word for the key (0: none; a
 * leaf's: its key and value in *lk, *lv), the depth past it in *next. */
static uint64_t read_step(wl_thread_t *t, const art_t *r, uint64_t id, unsigned depth, uint64_t key, unsigned *next,
                          uint64_t *lk, uint64_t *lv)
{
    const uint64_t a = r->addr[id];
    for (;;) {
        const uint64_t v = idx_rbegin(t, &r->ix, id, a, r->lines[id]);
        const uint64_t h = wl_ld(t, a);
        const unsigned plen = (unsigned)(h >> H_PLEN_SHIFT & 0xf), n = (unsigned)(h & 0x1ff);
        uint64_t c = 0;
        bool match = true;
        if (plen) {
            const uint64_t pw = wl_ld(t, a + 8);
            for (unsigned i = 0; i < plen && match; i++)
                match = kbyte(pw, i) == kbyte(key, depth + i);
        }
        if (match)
            c = find_child(t, r->kind[id], a, n, kbyte(key, depth + plen));
        if (c & LEAF_BIT) {
            const uint64_t la = a + 64ull * kind_lines[r->kind[id]] + 16 * (c & ~LEAF_BIT);
            const uint64_t addr2[2] = {la, la + 8};
            uint64_t kv[2];
            wl_ld_batch(t, addr2, kv, 2);
            *lk = kv[0];
            *lv = kv[1];
        }
        if (idx_rend(t, &r->ix, id, v)) {
            *next = depth + plen + 1;
            return c;
        }
    }
}

/* Down to the node that holds key's leaf: its id, the leaf's child word in *c (0: the key is not
 * in the tree), the leaf's key and value. */
static uint64_t descend(wl_thread_t *t, const art_t *r, uint64_t key, uint64_t *c, uint64_t *lk, uint64_t *lv)
{
    uint64_t id = 0;
    unsigned depth = 0;
    for (;;) {
        *c = read_step(t, r, id, depth, key, &depth, lk, lv);
        if (!*c || (*c & LEAF_BIT))
            return id;
        id = *c - 1;
    }
}

static uint64_t art_get(wl_thread_t *t, void *w, uint64_t key)
{
    uint64_t c, lk = 0, lv = 0;
    descend(t, w, key, &c, &lk, &lv);
    return c && lk == key ? lv : NONE; /* NONE: a key lost, which the check reports */
}

static void art_put(wl_thread_t *t, void *w, uint64_t key, uint64_t val)
{
    const art_t *r = w;
    uint64_t c, lk = 0, lv = 0;
    const uint64_t id = descend(t, r, key, &c, &lk, &lv);
    if (!c || lk != key)
        return; /* a key lost: the check finds its value never written */
    const uint64_t a = r->addr[id], v = idx_wlock(t, &r->ix, id, a, r->lines[id]);
    const uint64_t s = a + 64ull * kind_lines[r->kind[id]] + 16 * (c & ~LEAF_BIT) + 8, dirty = s & ~63ull;
    wl_st(t, s, val);
    idx_wunlock(t, &r->ix, id, v, &dirty, 1);
}

typedef struct scan {
    uint64_t key, *keys, *vals;
    unsigned want, done;
} scan_t;

/* Depth first over node id at depth, in key order; bounded: on the scan key's path (children and
 * leaves below it skipped). Each node's children, and its leaves' keys and values, in one validated
 * read. */
static void scan_node(wl_thread_t *t, const art_t *r, uint64_t id, unsigned depth, bool bounded, scan_t *s)
{
    const uint64_t a = r->addr[id], la = a + 64ull * kind_lines[r->kind[id]];
    const unsigned kind = r->kind[id];
    uint64_t ch[256], lkv[512], addr[512], pw;
    unsigned by[256], m, plen;
    for (;;) {
        const uint64_t v = idx_rbegin(t, &r->ix, id, a, r->lines[id]);
        const uint64_t ha[2] = {a, a + 8};
        uint64_t hw[2];
        wl_ld_batch(t, ha, hw, 2);
        pw = hw[1];
        plen = (unsigned)(hw[0] >> H_PLEN_SHIFT & 0xf);
        const unsigned n = (unsigned)(hw[0] & 0x1ff);
        /* the children in key order, with their bytes */
        m = 0;
        if (kind == N256) {
            for (unsigned i = 0; i < 256; i++)
                addr[i] = a + 8 * (W_KEYS + i);
            wl_ld_batch(t, addr, lkv, 256);
            for (unsigned b = 0; b < 256; b++)
                if (lkv[b]) {
                    by[m] = b;
                    ch[m++] = lkv[b];
                }
        } else if (kind == N48) {
            unsigned slot[48];
            for (unsigned i = 0; i < 32; i++)
                addr[i] = a + 8 * (W_KEYS + i);
            wl_ld_batch(t, addr, lkv, 32);
            for (unsigned b = 0; b < 256 && m < 48; b++) {
                const unsigned sl = (unsigned)(lkv[b / 8] >> (8 * (b % 8)) & 0xff);
                if (sl) {
                    by[m] = b;
                    slot[m++] = sl - 1;
                }
            }
            for (unsigned i = 0; i < m; i++)
                addr[i] = a + 8 * slot_word(N48, slot[i]);
            wl_ld_batch(t, addr, ch, m);
        } else { /* setup writes a Node4's and a Node16's key bytes in key order */
            const uint64_t ka[2] = {a + 8 * W_KEYS, a + 8 * (W_KEYS + 1)};
            uint64_t kw[2];
            m = n < kind_cap[kind] ? n : kind_cap[kind];
            wl_ld_batch(t, ka, kw, kind == N16 ? 2 : 1);
            for (unsigned i = 0; i < m; i++) {
                addr[i] = a + 8 * slot_word(kind, i);
                by[i] = (unsigned)(kw[i / 8] >> (8 * (i % 8)) & 0xff);
            }
            wl_ld_batch(t, addr, ch, m);
        }
        unsigned nl = 0;
        for (unsigned i = 0; i < m; i++)
            if (ch[i] & LEAF_BIT) {
                addr[2 * nl] = la + 16 * (ch[i] & ~LEAF_BIT);
                addr[2 * nl + 1] = addr[2 * nl] + 8;
                nl++;
            }
        wl_ld_batch(t, addr, lkv, 2 * nl);
        wl_compute(t, STEP_INSTRS * m);
        if (idx_rend(t, &r->ix, id, v))
            break;
    }
    /* on the key's path: a prefix above the key's bytes puts the whole node after it, below before */
    for (unsigned i = 0; bounded && i < plen; i++) {
        const unsigned pb = kbyte(pw, i), kb = kbyte(s->key, depth + i);
        if (pb < kb)
            return;
        if (pb > kb)
            bounded = false;
    }
    const unsigned d = depth + plen, kb = kbyte(s->key, d);
    for (unsigned i = 0, l = 0; i < m && s->done < s->want; i++) {
        const bool leaf = ch[i] & LEAF_BIT;
        const uint64_t *kv = leaf ? &lkv[2 * l++] : NULL;
        if (bounded && by[i] < kb)
            continue;
        const bool on_path = bounded && by[i] == kb;
        if (!leaf)
            scan_node(t, r, ch[i] - 1, d + 1, on_path, s);
        else if (!on_path || kv[0] >= s->key) {
            s->keys[s->done] = kv[0];
            s->vals[s->done++] = kv[1];
        }
    }
}

static unsigned art_scan(wl_thread_t *t, void *w, uint64_t key, unsigned want, uint64_t *keys, uint64_t *vals)
{
    scan_t s = {.key = key, .keys = keys, .vals = vals, .want = want};
    scan_node(t, w, 0, 0, true, &s);
    return s.done;
}

static uint64_t art_final(wl_env_t *e, void *w, uint64_t key)
{
    const art_t *r = w;
    uint64_t id = 0;
    for (unsigned depth = 0;;) {
        const uint64_t a = r->addr[id], h = e->ops->peek(e, 0, a), pw = e->ops->peek(e, 0, a + 8);
        const unsigned plen = (unsigned)(h >> H_PLEN_SHIFT & 0xf), n = (unsigned)(h & 0x1ff), kind = r->kind[id];
        for (unsigned i = 0; i < plen; i++)
            if (kbyte(pw, i) != kbyte(key, depth + i))
                return NONE;
        const unsigned by = kbyte(key, depth + plen);
        uint64_t c = 0;
        if (kind == N256)
            c = e->ops->peek(e, 0, a + 8 * (W_KEYS + by));
        else if (kind == N48) {
            const unsigned sl = (unsigned)(e->ops->peek(e, 0, a + 8 * (W_KEYS + by / 8)) >> (8 * (by % 8)) & 0xff);
            c = sl ? e->ops->peek(e, 0, a + 8 * slot_word(N48, sl - 1)) : 0;
        } else {
            for (unsigned i = 0; i < n && !c; i++)
                if ((e->ops->peek(e, 0, a + 8 * (W_KEYS + i / 8)) >> (8 * (i % 8)) & 0xff) == by)
                    c = e->ops->peek(e, 0, a + 8 * slot_word(kind, i));
        }
        if (!c)
            return NONE;
        if (c & LEAF_BIT) {
            const uint64_t la = a + 64ull * kind_lines[kind] + 16 * (c & ~LEAF_BIT);
            return e->ops->peek(e, 0, la) == key ? e->ops->peek(e, 0, la + 8) : NONE;
        }
        id = c - 1;
        depth += plen + 1;
    }
}

static const idx_ops_t art_ops = {.get = art_get, .put = art_put, .scan = art_scan, .final = art_final};

static void art_thread(wl_thread_t *t, void *state) { idx_run(t, &((art_t *)state)->ix, state, &art_ops); }

static int art_check(wl_env_t *e, void *state, char *err)
{
    art_t *r = state;
    return idx_check(e, &r->ix, r, &art_ops, err);
}

const workload_t wl_sc_art = {
    .name = "sc_art",
    .doc = "SC-ART: an adaptive radix tree in the LNR, one version per node in the SCR, spilled into the LNR "
           "beyond its budget",
    .setup = art_setup,
    .thread = art_thread,
    .check = art_check,
    .free = art_free,
};
