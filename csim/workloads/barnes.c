/* barnes: SPLASH-2 barnes, a Barnes-Hut N-body simulation over a shared octree.
 *
 * Shared data (CXL memory): the bodies (16 words each, two lines: mass, position, velocity,
 * acceleration, potential, interaction count); the octree's nodes (16 words each: a header line
 * with meta, mass, centre of mass and a completion flag, then a line of eight child pointers, a
 * cell's subtrees or a leaf's bodies); one lock word per node (the cell lock of SPLASH-2's
 * loadtree, in an array of its own as SPLASH-2's CellLock); the pool counter the threads claim
 * chunks of 8 node slots from; the bounding box of two consecutive steps and its lock; a
 * barrier. Thread-private data (local memory of the thread's CN): the list of the chunks the
 * thread claimed, which make its node pool (SPLASH-2's per-process cell and leaf tables; the nodes
 * themselves are shared). A node's meta word holds its type (cell or leaf), depth, number of
 * bodies (a leaf) and creator (tid + 1; 0 the root, which has a fixed slot).
 *
 * Setup draws a Plummer model from the seed (SPLASH-2's testdata: masses 1/N, radii from the
 * Plummer mass profile cut at 0.999 of the mass, speeds by rejection from its distribution
 * function, centre of mass at rest at the origin) and orders the bodies along a Morton curve of
 * their first positions, so that each thread's contiguous range of bodies is a compact region of
 * space (what SPLASH-2's costzones give; the ranges here stay fixed). A time step, in parallel:
 *   1. build: every thread inserts its bodies into the one tree from the root down (SPLASH-2's
 *      loadtree): the child slot is read without a lock; an empty slot, or a leaf, is handled
 *      under the lock of the cell that holds the slot: a new leaf, or the body added to a leaf with
 *      room (at most 8 bodies, SPLASH-2's MAX_BODIES_PER_LEAF), or a full leaf subdivided: a new
 *      cell with new leaves for its bodies, published by one store, the old leaf cleared. Nodes
 *      come from the thread's pool. Barrier.
 *   2. centres of mass, bottom-up (SPLASH-2's hackcofm): each thread takes the nodes it created,
 *      newest first (a node is always newer than its parent); a leaf sums its bodies in address
 *      order (sorted in registers: the sums do not depend on the order of insertion), a cell its
 *      children in their order once each one's completion flag is set; then every thread does the
 *      root (the same values). Barrier.
 *   3. forces: each thread walks the tree for each of its bodies from the root (dependent loads),
 *      opening a node when tol^2 |d|^2 < side^2 (SPLASH-2's subdivp, tol = 1.0), else taking its
 *      centre of mass (softening eps = 0.05), a leaf's bodies in address order; writes the
 *      body's acceleration, potential and count of interactions. Barrier.
 *   4. advance (leapfrog, SPLASH-2's stepsystem, dt = 0.025) of the thread's bodies; their
 *      bounding box merged under a lock into the next step's box; the root emptied for the next
 *      step. Barrier.
 * With at most 8 bodies in a leaf, a node is a cell exactly when more than 8 bodies fall in its
 * cube, so the octree of a set of bodies is the same whatever the order of insertion (but for the
 * order of a leaf's bodies); with leaves summed in address order and children in their fixed
 * order, centres of mass and forces do not depend on the interleaving. check() recomputes every
 * step single-threaded in C with the same arithmetic and wants every body word, the final tree
 * (walked side by side with its own: every node word) and both bounding boxes bit for bit; every
 * node slot of the claimed chunks not in the tree must be zero; the threads' chunk lists must
 * cover the claimed chunks once each; locks free, the barrier's phases all released.
 *
 * Left out of SPLASH-2's barnes: costzones (the partition is fixed, by the Morton order of the
 * first positions), the per-step timing and output, and the distinction of the first step; the
 * pool is claimed in chunks of a shared arena rather than fixed per-process tables, so that no
 * thread's share of the tree has to be known in advance.
 *
 * After a CN failure (docs/architecture.md 11g) the lost threads' bodies are no longer inserted
 * nor advanced. A lock a lost thread held is taken over (wl_lock): its leaf insertion may have
 * written a body past the leaf's count; the new owner clears the cell's leaves past their counts
 * (and the centre-of-mass phase clears any such body left where no one took a lock over).
 * A subdivision is invisible until its one publishing store. A survivor that waits for the
 * centre of mass of a node whose creator was lost computes it itself (every writer of a node
 * writes the same values). check() then judges the structure of the final tree (types, depths,
 * counts, nothing past a leaf's count, no body twice, every survivor's body present), every
 * cell's mass and centre of mass from its children bit for bit and every leaf's mass from its
 * bodies, every body's mass unchanged and the survivors' bodies finite; not the forces, which
 * depend on when the lost thread's bodies left the tree, nor the free slots (a lost thread may
 * leave half-made nodes no tree reaches). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/rng.h"
#include "workloads/workloads.h"

/* The physics of SPLASH-2's input file: dtime 0.025, eps 0.05, tol 1.0. */
#define DTIME 0.025
#define DTHF (0.5 * DTIME)
#define EPSSQ (0.05 * 0.05)
#define TOLSQ (1.0 * 1.0)
#define MFRAC 0.999 /* Plummer mass cut-off (testdata) */

#define LEAF_MAX 8u   /* bodies in a leaf (SPLASH-2's MAX_BODIES_PER_LEAF) */
#define MAX_DEPTH 30u /* integer coordinates of 30 bits: a leaf at depth 30 cannot be split */
#define CHUNK 8u      /* node slots a thread claims at a time */

/* A node: word 0 meta, 1 mass, 2..4 centre of mass, 5 done, 6..7 zero, 8..15 children. */
#define NODE_BYTES 128u
#define N_MASS 8u
#define N_POS 16u
#define N_DONE 40u
#define N_SUB 64u
#define T_CELL 1u
#define T_LEAF 2u
/* A body: word 0 mass, 1..3 position, 4..6 velocity, 7..9 acceleration, 10 potential, 11 count. */
#define BODY_BYTES 128u
#define B_POS 8u
#define B_VEL 32u
#define B_ACC 56u
#define B_PHI 80u
#define B_COST 88u
/* Overflow flags (words of one line): pool exhausted, a leaf of depth 30 full, a body outside the
 * root's cube. */
enum { F_POOL, F_DEPTH, F_OUTSIDE, F_COUNT };

/* Non-memory instructions (x86-64 at -O3, counted from SPLASH-2's loops). */
#define INTCOORD_INSTRS 18 /* 3 x (sub, div, range test, convert) and the loop */
#define DESCEND_INSTRS 10  /* a level of loadtree: subindex (3 shifts, 3 ands, 2 ors), the slot address */
#define INIT_INSTRS 6      /* a node's allocation: pool arithmetic */
#define SPLIT_INSTRS 14    /* per body of a split leaf: subindex and its group */
#define COFM_INSTRS 9      /* per body or child: mass add, 3 multiplies, 3 adds, loop */
#define NODE_INSTRS 12     /* per node of hackcofm: 3 divides, the type test, the flag */
#define SORT_INSTRS 6      /* per body of a leaf: insertion sort's compares */
#define OPEN_INSTRS 12     /* subdivp: 3 subs, 3 multiplies, 2 adds, tol^2, compare, branch */
#define VISIT_INSTRS 8     /* walksub's call, type test, loop over the children */
#define INTERACT_INSTRS 24 /* gravsub: dr, |dr|^2 + eps^2, sqrt, 2 divides, phi, acc */
#define BODY_INSTRS 10     /* per body of the force phase: pos0, the stores' addresses */
#define ADVANCE_INSTRS 18  /* 3 x (mul, add, mul, add, add) and the loop */
#define BOUND_INSTRS 12    /* 3 mins and 3 maxes per body */
#define SPIN_INSTRS 8      /* a poll of a completion flag */
#define GEOMETRY_INSTRS 30 /* setbound's box to cube: 3 subtracts, compares, a divide, 3 multiplies */

/* Statistics (workload.barnes.*). */
enum { S_INTERACT, S_SPLITS, S_TAKEOVERS, S_ADOPTED, S_COUNT };
static const char *const s_names[S_COUNT] = {"interactions", "subdivisions", "takeovers", "adopted_nodes"};
static const char *const s_docs[S_COUNT] = {
    "body-body and body-cell interactions of the force phase", "full leaves subdivided while building",
    "cell locks taken over from a thread lost with its CN",
    "centres of mass a survivor computed for a node whose creator was lost"};

typedef struct barnes {
    uint64_t nbody, steps;
    uint64_t chunks; /* chunks of CHUNK node slots in the arena; chunk 0 holds the root */
    unsigned nthreads;
    uint64_t seed;
    uint64_t bar, pool, flags, block, bounds, bodies, nodes, locks; /* remote */
    uint64_t *list;             /* per thread: its chunk list (local): count, then chunk numbers */
    uint64_t *stat[S_COUNT];
} barnes_t;

static uint64_t meta_make(unsigned type, unsigned depth, unsigned count, unsigned creator)
{
    return type | (uint64_t)depth << 8 | (uint64_t)count << 16 | (uint64_t)creator << 32;
}
static unsigned m_type(uint64_t m) { return (unsigned)(m & 0xff); }
static unsigned m_depth(uint64_t m) { return (unsigned)(m >> 8 & 0xff); }
static unsigned m_count(uint64_t m) { return (unsigned)(m >> 16 & 0xff); }
static unsigned m_creator(uint64_t m) { return (unsigned)(m >> 32); } /* tid + 1; 0: the root */

/* ------------------------------------------------------------------------------------------------
 * The arithmetic, shared by the threads and check() so that both round alike */

/* SPLASH-2's setbound: the root's cube from the bounding box. */
static void geometry(const double mn[3], const double mx[3], double rmin[3], double *rsize)
{
    double side = 0.0;
    for (int k = 0; k < 3; k++)
        if (mx[k] - mn[k] > side)
            side = mx[k] - mn[k];
    if (!(side > 0.0))
        side = 1.0;
    for (int k = 0; k < 3; k++)
        rmin[k] = mn[k] - side / 100000.0;
    *rsize = 1.00002 * side;
}

/* Integer coordinates of 30 bits in the root's cube; false outside it. */
static bool intcoord(const double pos[3], const double rmin[3], double rsize, uint32_t xp[3])
{
    for (int k = 0; k < 3; k++) {
        double x = (pos[k] - rmin[k]) / rsize;
        if (!(x >= 0.0 && x < 1.0))
            return false;
        xp[k] = (uint32_t)(x * (double)(1u << MAX_DEPTH));
    }
    return true;
}

/* The child of a cell of depth `depth` that holds integer coordinates xp. */
static unsigned subindex(const uint32_t xp[3], unsigned depth)
{
    const unsigned bit = MAX_DEPTH - 1 - depth;
    return (xp[0] >> bit & 1u) << 2 | (xp[1] >> bit & 1u) << 1 | (xp[2] >> bit & 1u);
}

/* hackcofm: the mass and centre of mass of n parts in their order. */
static void cofm(unsigned n, const double *m, const double (*p)[3], double *mass, double pos[3])
{
    double tm = 0.0, s[3] = {0.0, 0.0, 0.0};
    for (unsigned i = 0; i < n; i++) {
        tm += m[i];
        for (int k = 0; k < 3; k++)
            s[k] += m[i] * p[i][k];
    }
    *mass = tm;
    for (int k = 0; k < 3; k++)
        pos[k] = s[k] / tm;
}

/* The force on one body (SPLASH-2's pos0, phi0, acc0 and interaction count). */
typedef struct force {
    double pos0[3], acc[3], phi;
    uint64_t n;
} force_t;

/* subdivp: the node at pos must be opened (dsq: its side squared). */
static bool opens(const force_t *f, const double pos[3], double dsq)
{
    double drsq = 0.0;
    for (int k = 0; k < 3; k++) {
        double d = pos[k] - f->pos0[k];
        drsq += d * d;
    }
    return TOLSQ * drsq < dsq;
}

/* gravsub: the pull of mass m at pos, softened. */
static void interact(force_t *f, double m, const double pos[3])
{
    double dr[3], drsq = 0.0;
    for (int k = 0; k < 3; k++) {
        dr[k] = pos[k] - f->pos0[k];
        drsq += dr[k] * dr[k];
    }
    drsq += EPSSQ;
    const double phii = m / sqrt(drsq), mor3 = phii / drsq;
    f->phi -= phii;
    for (int k = 0; k < 3; k++)
        f->acc[k] += dr[k] * mor3;
    f->n++;
}

/* The leapfrog of stepsystem. */
static void advance(double pos[3], double vel[3], const double acc[3])
{
    for (int k = 0; k < 3; k++) {
        const double dvel = acc[k] * DTHF, vel1 = vel[k] + dvel;
        pos[k] += vel1 * DTIME;
        vel[k] = vel1 + dvel;
    }
}

/* Bodies [lo, hi) of thread tid. */
static void range(const barnes_t *b, unsigned tid, uint64_t *lo, uint64_t *hi)
{
    *lo = tid * b->nbody / b->nthreads;
    *hi = (tid + 1) * b->nbody / b->nthreads;
}

static uint64_t body_at(const barnes_t *b, uint64_t i) { return b->bodies + i * BODY_BYTES; }
static uint64_t bound_at(const barnes_t *b, uint64_t step) { return b->bounds + (step & 1) * ADDR_LINE_BYTES; }
static uint64_t lock_of(const barnes_t *b, uint64_t node) { return b->locks + (node - b->nodes) / NODE_BYTES * 8; }

/* ------------------------------------------------------------------------------------------------
 * The initial system */

typedef struct body {
    double mass, pos[3], vel[3], acc[3], phi;
    uint64_t cost;
} body_t;

typedef struct keyed {
    uint64_t key, idx;
} keyed_t;

static int by_key(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key ? 1 : x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* A random vector of length rad (testdata's pickshell). */
static void pickshell(rng_t *r, double v[3], double rad)
{
    double rsq;
    do {
        rsq = 0.0;
        for (int k = 0; k < 3; k++) {
            v[k] = 2.0 * rng_unit(r) - 1.0;
            rsq += v[k] * v[k];
        }
    } while (rsq > 1.0 || rsq == 0.0);
    for (int k = 0; k < 3; k++)
        v[k] *= rad / sqrt(rsq);
}

static void bbox(const body_t *bd, uint64_t n, double mn[3], double mx[3])
{
    for (int k = 0; k < 3; k++)
        mn[k] = INFINITY, mx[k] = -INFINITY;
    for (uint64_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            mn[k] = fmin(mn[k], bd[i].pos[k]);
            mx[k] = fmax(mx[k], bd[i].pos[k]);
        }
}

/* 21 bits of each integer coordinate interleaved. */
static uint64_t morton(const uint32_t xp[3])
{
    uint64_t key = 0;
    for (int l = MAX_DEPTH - 1; l >= (int)MAX_DEPTH - 21; l--)
        for (int k = 0; k < 3; k++)
            key = key << 1 | (xp[k] >> l & 1u);
    return key;
}

/* The Plummer model of testdata, centred, in Morton order. -1 when out of host memory. */
static int initial(const barnes_t *b, body_t *bd)
{
    const double rsc = 3.0 * 3.14159265358979323846 / 16.0, vsc = sqrt(1.0 / rsc);
    const uint64_t n = b->nbody;
    rng_t r;
    rng_init_named(&r, b->seed, "barnes.plummer");
    body_t *raw = calloc(n, sizeof *raw);
    keyed_t *kd = calloc(n, sizeof *kd);
    if (!raw || !kd) {
        free(raw), free(kd);
        return -1;
    }
    double cmr[3] = {0, 0, 0}, cmv[3] = {0, 0, 0};
    for (uint64_t i = 0; i < n; i++) {
        body_t *p = &raw[i];
        p->mass = 1.0 / (double)n;
        const double rad = 1.0 / sqrt(pow(MFRAC * rng_unit(&r), -2.0 / 3.0) - 1.0);
        pickshell(&r, p->pos, rsc * rad);
        double x, y;
        do {
            x = rng_unit(&r);
            y = 0.1 * rng_unit(&r);
        } while (y > x * x * pow(1.0 - x * x, 3.5));
        pickshell(&r, p->vel, vsc * sqrt(2.0) * x / pow(1.0 + rad * rad, 0.25));
        for (int k = 0; k < 3; k++)
            cmr[k] += p->mass * p->pos[k], cmv[k] += p->mass * p->vel[k];
    }
    for (uint64_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            raw[i].pos[k] -= cmr[k], raw[i].vel[k] -= cmv[k];
    double mn[3], mx[3], rmin[3], rsize;
    bbox(raw, n, mn, mx);
    geometry(mn, mx, rmin, &rsize);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t xp[3] = {0, 0, 0};
        (void)intcoord(raw[i].pos, rmin, rsize, xp);
        kd[i] = (keyed_t){morton(xp), i};
    }
    qsort(kd, n, sizeof *kd, by_key);
    for (uint64_t i = 0; i < n; i++)
        bd[i] = raw[kd[i].idx];
    free(raw), free(kd);
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Setup */

static void barnes_free(void *state);

/* Node slots: a slot a body, and two chunks a thread. A Plummer model of 512 to 2048 bodies uses
 * about 0.55 slots a body (leaves of 3 to 4 bodies, a cell for every two or three leaves, the holes
 * subdivided leaves leave) and each thread leaves its last chunk part used; a pool that runs out
 * anyway is reported by the check, not a hang. */
static uint64_t arena_chunks(uint64_t nbody, unsigned nthreads)
{
    return 1 + (nbody + CHUNK - 1) / CHUNK + 2 * (uint64_t)nthreads;
}

static int alloc_remote(wl_env_t *e, barnes_t *b, char *err)
{
    const uint64_t nodes = b->chunks * CHUNK;
    b->bar = e->ops->alloc_cxl(e, WL_BARRIER_BYTES);
    b->pool = e->ops->alloc_cxl(e, ADDR_LINE_BYTES);
    b->flags = e->ops->alloc_cxl(e, ADDR_LINE_BYTES);
    b->block = e->ops->alloc_cxl(e, ADDR_LINE_BYTES);
    b->bounds = e->ops->alloc_cxl(e, 2 * ADDR_LINE_BYTES);
    b->bodies = e->ops->alloc_cxl(e, b->nbody * BODY_BYTES);
    b->nodes = e->ops->alloc_cxl(e, nodes * NODE_BYTES);
    b->locks = e->ops->alloc_cxl(e, nodes * 8);
    if (b->bar == WL_ALLOC_FAIL || b->pool == WL_ALLOC_FAIL || b->flags == WL_ALLOC_FAIL ||
        b->block == WL_ALLOC_FAIL || b->bounds == WL_ALLOC_FAIL || b->bodies == WL_ALLOC_FAIL ||
        b->nodes == WL_ALLOC_FAIL || b->locks == WL_ALLOC_FAIL)
        return wl_errf(err, "barnes: %llu bodies (workload.barnes_bodies) and an octree of %llu nodes (%llu bytes) "
                       "do not fit the CXL memory", (unsigned long long)b->nbody, (unsigned long long)nodes,
                       (unsigned long long)(b->nbody * BODY_BYTES + nodes * (NODE_BYTES + 8)));
    for (unsigned t = 0; t < e->nthreads; t++) {
        b->list[t] = e->ops->alloc_local(e, e->thread_cn[t], (b->chunks + 1) * 8);
        if (b->list[t] == WL_ALLOC_FAIL)
            return wl_errf(err, "barnes: thread %u's chunk list (%llu bytes for %llu bodies, workload.barnes_bodies) "
                           "does not fit CN %u's local memory", t, (unsigned long long)((b->chunks + 1) * 8),
                           (unsigned long long)b->nbody, e->thread_cn[t]);
    }
    return 0;
}

static void poke_initial(wl_env_t *e, const barnes_t *b, const body_t *bd)
{
    for (uint64_t i = 0; i < b->nbody; i++) {
        const uint64_t a = body_at(b, i);
        e->ops->poke(e, 0, a, wl_bits(bd[i].mass));
        for (int k = 0; k < 3; k++) {
            e->ops->poke(e, 0, a + B_POS + 8 * k, wl_bits(bd[i].pos[k]));
            e->ops->poke(e, 0, a + B_VEL + 8 * k, wl_bits(bd[i].vel[k]));
        }
    }
    double mn[3], mx[3];
    bbox(bd, b->nbody, mn, mx);
    for (int k = 0; k < 3; k++) {
        e->ops->poke(e, 0, bound_at(b, 0) + 8 * k, wl_bits(mn[k]));
        e->ops->poke(e, 0, bound_at(b, 0) + 24 + 8 * k, wl_bits(mx[k]));
    }
    e->ops->poke(e, 0, b->nodes, meta_make(T_CELL, 0, 0, 0)); /* the root, in chunk 0 */
    e->ops->poke(e, 0, b->pool, 1);
}

/* On failure the state is freed here: the caller frees it only after a successful setup. */
static int barnes_setup(wl_env_t *e, void **state, char *err)
{
    const sim_config_t *c = e->cfg;
    *state = NULL;
    if (c->workload.barnes_bodies < 2)
        return wl_errf(err, "barnes: workload.barnes_bodies = %llu: an N-body system needs at least 2 bodies",
                       (unsigned long long)c->workload.barnes_bodies);
    if (c->workload.barnes_steps < 1)
        return wl_errf(err, "barnes: workload.barnes_steps = 0: at least one time step");
    if (e->nthreads > 64)
        return wl_errf(err, "barnes: %u threads: the barrier takes at most 64", e->nthreads);
    barnes_t *b = calloc(1, sizeof *b);
    body_t *bd = NULL;
    int rc = 0;
    if (!b || !(b->list = calloc(e->nthreads, sizeof *b->list)) ||
        !(bd = calloc(c->workload.barnes_bodies, sizeof *bd))) {
        rc = wl_errf(err, "barnes: out of host memory for %llu bodies (workload.barnes_bodies)",
                     (unsigned long long)c->workload.barnes_bodies);
        goto out;
    }
    b->nbody = c->workload.barnes_bodies;
    b->steps = c->workload.barnes_steps;
    b->nthreads = e->nthreads;
    b->seed = e->seed;
    b->chunks = arena_chunks(b->nbody, e->nthreads);
    if ((rc = alloc_remote(e, b, err)) != 0 || (rc = wl_counters(e, "barnes", s_names, s_docs, S_COUNT, b->stat, err)))
        goto out;
    if (initial(b, bd)) {
        rc = wl_errf(err, "barnes: out of host memory for %llu bodies (workload.barnes_bodies)",
                     (unsigned long long)b->nbody);
        goto out;
    }
    poke_initial(e, b, bd);
out:
    free(bd);
    if (rc)
        barnes_free(b);
    else
        *state = b;
    return rc;
}

/* ------------------------------------------------------------------------------------------------
 * The threads */

typedef struct ctx {
    wl_thread_t *t;
    const barnes_t *b;
    uint64_t lo, hi;       /* own bodies */
    uint64_t nch;          /* chunks claimed */
    uint64_t used, hwm;    /* node slots of the pool used this step, and ever */
    double rmin[3], rsize; /* the root's cube this step */
    unsigned phase;        /* the barrier's */
} ctx_t;

static void load_doubles(wl_thread_t *t, uint64_t a, double *d, unsigned n)
{
    uint64_t addr[16], v[16];
    for (unsigned i = 0; i < n; i++)
        addr[i] = a + 8 * i;
    wl_ld_batch(t, addr, v, n);
    for (unsigned i = 0; i < n; i++)
        d[i] = wl_dbl(v[i]);
}

/* Slot i of the thread's pool (its chunk list is in local memory). */
static uint64_t slot_addr(ctx_t *c, uint64_t i)
{
    const uint64_t chunk = wl_ld(c->t, c->b->list[c->t->tid] + 8 * (1 + i / CHUNK));
    return c->b->nodes + (chunk * CHUNK + i % CHUNK) * NODE_BYTES;
}

/* A node slot from the pool (a new chunk when it is used up); 0 when the arena is exhausted. */
static uint64_t alloc_node(ctx_t *c)
{
    wl_thread_t *t = c->t;
    const barnes_t *b = c->b;
    wl_compute(t, INIT_INSTRS);
    if (c->used == c->nch * CHUNK) {
        const uint64_t k = wl_fadd(t, b->pool, 1), list = b->list[t->tid];
        if (k >= b->chunks) {
            wl_st(t, b->flags + 8 * F_POOL, 1);
            return 0;
        }
        wl_st(t, list + 8 * (1 + c->nch), k);
        wl_st(t, list, ++c->nch);
    }
    return slot_addr(c, c->used++);
}

/* A node's 16 words: meta, zero header, children (or bodies). */
static void init_node(wl_thread_t *t, uint64_t node, uint64_t meta, const uint64_t sub[8])
{
    wl_st(t, node, meta);
    for (unsigned w = 1; w < 8; w++)
        wl_st(t, node + 8 * w, 0);
    for (unsigned k = 0; k < 8; k++)
        wl_st(t, node + N_SUB + 8 * k, sub[k]);
}

/* A lock taken over from a lost thread: its insertion may have left a body past a leaf's count. */
static void repair_cell(ctx_t *c, uint64_t cell)
{
    wl_thread_t *t = c->t;
    (*c->b->stat[S_TAKEOVERS])++;
    for (unsigned k = 0; k < 8; k++) {
        const uint64_t ch = wl_ld(t, cell + N_SUB + 8 * k);
        const uint64_t m = ch ? wl_ld(t, ch) : 0;
        if (m_type(m) != T_LEAF)
            continue;
        for (unsigned i = m_count(m); i < LEAF_MAX; i++)
            if (wl_ld(t, ch + N_SUB + 8 * i))
                wl_st(t, ch + N_SUB + 8 * i, 0);
    }
}

/* SubdivideLeaf: a new cell of the full leaf's depth with new leaves for its bodies (unpublished);
 * 0 when the pool ran out. */
static uint64_t subdivide(ctx_t *c, uint64_t leaf, unsigned depth)
{
    wl_thread_t *t = c->t;
    uint64_t a[LEAF_MAX], body[LEAF_MAX], pa[3 * LEAF_MAX], pv[3 * LEAF_MAX];
    for (unsigned i = 0; i < LEAF_MAX; i++)
        a[i] = leaf + N_SUB + 8 * i;
    wl_ld_batch(t, a, body, LEAF_MAX);
    for (unsigned i = 0; i < 3 * LEAF_MAX; i++)
        pa[i] = body[i / 3] + B_POS + 8 * (i % 3);
    wl_ld_batch(t, pa, pv, 3 * LEAF_MAX);
    uint64_t group[8][LEAF_MAX], sub[8] = {0};
    unsigned cnt[8] = {0};
    for (unsigned i = 0; i < LEAF_MAX; i++) {
        const double pos[3] = {wl_dbl(pv[3 * i]), wl_dbl(pv[3 * i + 1]), wl_dbl(pv[3 * i + 2])};
        uint32_t xp[3];
        (void)intcoord(pos, c->rmin, c->rsize, xp); /* inserted this step: inside */
        const unsigned k = subindex(xp, depth);
        group[k][cnt[k]++] = body[i];
        wl_compute(t, INTCOORD_INSTRS + SPLIT_INSTRS);
    }
    const uint64_t cell = alloc_node(c);
    if (!cell)
        return 0;
    for (unsigned k = 0; k < 8; k++) {
        if (!cnt[k])
            continue;
        if (!(sub[k] = alloc_node(c)))
            return 0;
        uint64_t bs[8] = {0};
        memcpy(bs, group[k], cnt[k] * sizeof bs[0]);
        init_node(t, sub[k], meta_make(T_LEAF, depth + 1, cnt[k], t->tid + 1), bs);
    }
    init_node(t, cell, meta_make(T_CELL, depth, 0, t->tid + 1), sub);
    (*c->b->stat[S_SPLITS])++;
    return cell;
}

/* Under the lock of the cell (depth d) that holds slot: the body goes into the empty slot, or the
 * leaf there. Returns 0 when placed (or dropped on an overflow), else the cell the slot now holds. */
static uint64_t place(ctx_t *c, unsigned d, uint64_t slot, uint64_t body)
{
    wl_thread_t *t = c->t;
    const barnes_t *b = c->b;
    const uint64_t ch = wl_ld(t, slot), m = ch ? wl_ld(t, ch) : 0;
    if (!ch) { /* a new leaf, whole before it is published */
        const uint64_t leaf = alloc_node(c);
        if (leaf) {
            uint64_t bs[8] = {body};
            init_node(t, leaf, meta_make(T_LEAF, d + 1, 1, t->tid + 1), bs);
            wl_st(t, slot, leaf);
        }
        return 0;
    }
    if (m_type(m) != T_LEAF)
        return ch;
    if (m_count(m) < LEAF_MAX) { /* the body first, then the count that covers it */
        wl_st(t, ch + N_SUB + 8 * m_count(m), body);
        wl_st(t, ch, m + (1ull << 16));
        return 0;
    }
    if (d + 1 >= MAX_DEPTH) {
        wl_st(t, b->flags + 8 * F_DEPTH, 1);
        return 0;
    }
    const uint64_t cell = subdivide(c, ch, d + 1);
    if (!cell)
        return 0;
    wl_st(t, slot, cell); /* published: the old leaf is no one's now */
    wl_st(t, ch, 0);
    for (unsigned i = 0; i < LEAF_MAX; i++)
        wl_st(t, ch + N_SUB + 8 * i, 0);
    return cell;
}

/* loadtree: the body from the root down; a slot is read without a lock, changed under its cell's. */
static void insert(ctx_t *c, uint64_t body)
{
    wl_thread_t *t = c->t;
    const barnes_t *b = c->b;
    double pos[3];
    uint32_t xp[3];
    load_doubles(t, body + B_POS, pos, 3);
    wl_compute(t, INTCOORD_INSTRS);
    if (!intcoord(pos, c->rmin, c->rsize, xp)) {
        wl_st(t, b->flags + 8 * F_OUTSIDE, 1);
        return;
    }
    uint64_t node = b->nodes;
    for (unsigned d = 0;; d++) {
        wl_compute(t, DESCEND_INSTRS);
        const uint64_t slot = node + N_SUB + 8 * subindex(xp, d);
        uint64_t ch = wl_ld(t, slot);
        if (!ch || m_type(wl_ld(t, ch)) != T_CELL) {
            if (wl_lock(t, lock_of(b, node)))
                repair_cell(c, node);
            ch = place(c, d, slot, body);
            wl_unlock(t, lock_of(b, node));
            if (!ch)
                return;
        }
        node = ch;
    }
}

/* The thread's pool slots used in an earlier step and not in this one are cleared. */
static void clear_stale(ctx_t *c)
{
    for (uint64_t i = c->used; i < c->hwm; i++) {
        const uint64_t a = slot_addr(c, i);
        for (unsigned w = 0; w < 16; w++)
            wl_st(c->t, a + 8 * w, 0);
    }
    if (c->used > c->hwm)
        c->hwm = c->used;
}

static void com_node(ctx_t *c, uint64_t node, uint64_t meta);

/* The child's centre of mass is done: waited for, or computed when its creator was lost. */
static void child_ready(ctx_t *c, uint64_t ch)
{
    wl_thread_t *t = c->t;
    for (;;) {
        if (wl_ld(t, ch + N_DONE))
            return;
        const uint64_t m = wl_ld(t, ch);
        const unsigned who = m_creator(m);
        if (who == 0 || !wl_alive(t, who - 1)) {
            com_node(c, ch, m);
            (*c->b->stat[S_ADOPTED])++;
            return;
        }
        wl_compute(t, SPIN_INSTRS);
    }
}

/* mass, centre of mass and the completion flag, after the parts' values were read. */
static void com_store(ctx_t *c, uint64_t node, unsigned n, const double *m, const double (*p)[3])
{
    double mass, pos[3];
    cofm(n, m, p, &mass, pos);
    wl_compute(c->t, NODE_INSTRS + COFM_INSTRS * n);
    wl_st(c->t, node + N_MASS, wl_bits(mass));
    for (int k = 0; k < 3; k++)
        wl_st(c->t, node + N_POS + 8 * k, wl_bits(pos[k]));
    wl_st(c->t, node + N_DONE, 1);
}

/* The mass and position words (4) of each of n parts at base[i], read at once. */
static void load_parts(wl_thread_t *t, const uint64_t *base, unsigned n, double *m, double (*p)[3])
{
    uint64_t a[4 * 8], v[4 * 8];
    for (unsigned i = 0; i < 4 * n; i++)
        a[i] = base[i / 4] + 8 * (i % 4);
    wl_ld_batch(t, a, v, 4 * n);
    for (unsigned i = 0; i < n; i++) {
        m[i] = wl_dbl(v[4 * i]);
        for (int k = 0; k < 3; k++)
            p[i][k] = wl_dbl(v[4 * i + 1 + k]);
    }
}

/* A leaf's n bodies in address order, in registers: sums over them do not depend on the order in
 * which they were inserted. */
static void sort_bodies(wl_thread_t *t, uint64_t *s, unsigned n)
{
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && s[j - 1] > s[j]; j--) {
            const uint64_t x = s[j];
            s[j] = s[j - 1], s[j - 1] = x;
        }
    wl_compute(t, SORT_INSTRS * n);
}

/* A leaf: its bodies in address order; a body a lost thread wrote past the count is cleared. */
static void com_leaf(ctx_t *c, uint64_t node, uint64_t meta)
{
    wl_thread_t *t = c->t;
    const unsigned n = m_count(meta) < LEAF_MAX ? m_count(meta) : LEAF_MAX;
    uint64_t a[LEAF_MAX], s[LEAF_MAX];
    for (unsigned i = 0; i < LEAF_MAX; i++)
        a[i] = node + N_SUB + 8 * i;
    wl_ld_batch(t, a, s, LEAF_MAX);
    for (unsigned i = n; i < LEAF_MAX; i++)
        if (s[i])
            wl_st(t, a[i], 0);
    sort_bodies(t, s, n);
    double m[LEAF_MAX], p[LEAF_MAX][3];
    load_parts(t, s, n, m, p); /* a body's mass and position are its words 0..3 */
    com_store(c, node, n, m, p);
}

static void com_cell(ctx_t *c, uint64_t node)
{
    wl_thread_t *t = c->t;
    uint64_t a[8], sub[8], ch[8];
    for (unsigned k = 0; k < 8; k++)
        a[k] = node + N_SUB + 8 * k;
    wl_ld_batch(t, a, sub, 8);
    unsigned n = 0;
    for (unsigned k = 0; k < 8; k++)
        if (sub[k]) {
            child_ready(c, sub[k]);
            ch[n++] = sub[k] + N_MASS; /* a node's mass and centre are its words 1..4 */
        }
    double m[8], p[8][3];
    load_parts(t, ch, n, m, p);
    com_store(c, node, n, m, p);
}

static void com_node(ctx_t *c, uint64_t node, uint64_t meta)
{
    if (m_type(meta) == T_LEAF)
        com_leaf(c, node, meta);
    else if (m_type(meta) == T_CELL)
        com_cell(c, node);
}

/* hackcofm: the thread's nodes newest first, then the root. */
static void centres(ctx_t *c)
{
    for (uint64_t i = c->used; i-- > 0;) {
        const uint64_t a = slot_addr(c, i), m = wl_ld(c->t, a);
        if (m_type(m))
            com_node(c, a, m); /* a cleared (subdivided) leaf has none */
    }
    com_node(c, c->b->nodes, meta_make(T_CELL, 0, 0, 0));
}

/* walksub: the node's pull on the body, its children's when it must be opened. */
static void walk(ctx_t *c, force_t *f, uint64_t self, uint64_t node, double dsq)
{
    wl_thread_t *t = c->t;
    uint64_t a[4 * LEAF_MAX], v[4 * LEAF_MAX];
    for (unsigned i = 0; i < 5; i++)
        a[i] = node + 8 * i;
    wl_ld_batch(t, a, v, 5);
    const double pos[3] = {wl_dbl(v[2]), wl_dbl(v[3]), wl_dbl(v[4])};
    wl_compute(t, VISIT_INSTRS + OPEN_INSTRS);
    if (!opens(f, pos, dsq)) {
        interact(f, wl_dbl(v[1]), pos);
        wl_compute(t, INTERACT_INSTRS);
        return;
    }
    const uint64_t meta = v[0];
    uint64_t sub[8];
    for (unsigned k = 0; k < 8; k++)
        a[k] = node + N_SUB + 8 * k;
    const unsigned ns = m_type(meta) == T_CELL ? 8 : m_count(meta) < LEAF_MAX ? m_count(meta) : LEAF_MAX;
    wl_ld_batch(t, a, sub, ns);
    if (m_type(meta) == T_CELL) {
        for (unsigned k = 0; k < 8; k++)
            if (sub[k])
                walk(c, f, self, sub[k], dsq / 4.0);
        return;
    }
    double m[LEAF_MAX], p[LEAF_MAX][3];
    sort_bodies(t, sub, ns);
    load_parts(t, sub, ns, m, p);
    for (unsigned i = 0; i < ns; i++)
        if (sub[i] != self) {
            interact(f, m[i], p[i]);
            wl_compute(t, INTERACT_INSTRS);
        }
}

static void forces(ctx_t *c)
{
    wl_thread_t *t = c->t;
    for (uint64_t i = c->lo; i < c->hi; i++) {
        const uint64_t body = body_at(c->b, i);
        force_t f = {.phi = 0.0};
        load_doubles(t, body + B_POS, f.pos0, 3);
        wl_compute(t, BODY_INSTRS);
        walk(c, &f, body, c->b->nodes, c->rsize * c->rsize);
        for (int k = 0; k < 3; k++)
            wl_st(t, body + B_ACC + 8 * k, wl_bits(f.acc[k]));
        wl_st(t, body + B_PHI, wl_bits(f.phi));
        wl_st(t, body + B_COST, f.n);
        *c->b->stat[S_INTERACT] += f.n;
    }
}

/* The thread's bodies advanced; their box merged into the next step's under its lock. */
static void advance_all(ctx_t *c, uint64_t step)
{
    wl_thread_t *t = c->t;
    const barnes_t *b = c->b;
    double mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint64_t i = c->lo; i < c->hi; i++) {
        const uint64_t body = body_at(b, i);
        double v[9];
        load_doubles(t, body + B_POS, v, 9); /* position, velocity, acceleration */
        advance(v, v + 3, v + 6);
        wl_compute(t, ADVANCE_INSTRS + BOUND_INSTRS);
        for (int k = 0; k < 3; k++) {
            wl_st(t, body + B_POS + 8 * k, wl_bits(v[k]));
            mn[k] = fmin(mn[k], v[k]);
            mx[k] = fmax(mx[k], v[k]);
        }
        for (int k = 0; k < 3; k++)
            wl_st(t, body + B_VEL + 8 * k, wl_bits(v[3 + k]));
    }
    if (c->lo == c->hi)
        return;
    const uint64_t bx = bound_at(b, step + 1);
    double g[6];
    wl_lock(t, b->block); /* a lost holder's partial merge is a wider box: harmless */
    load_doubles(t, bx, g, 6);
    wl_compute(t, BOUND_INSTRS);
    for (int k = 0; k < 3; k++) {
        if (mn[k] < g[k])
            wl_st(t, bx + 8 * k, wl_bits(mn[k]));
        if (mx[k] > g[3 + k])
            wl_st(t, bx + 24 + 8 * k, wl_bits(mx[k]));
    }
    wl_unlock(t, b->block);
}

/* Every thread writes the same values: no one thread is needed for them. */
static void reset_box(wl_thread_t *t, uint64_t bx)
{
    for (int k = 0; k < 3; k++) {
        wl_st(t, bx + 8 * k, wl_bits(INFINITY));
        wl_st(t, bx + 24 + 8 * k, wl_bits(-INFINITY));
    }
}

static void reset_root(wl_thread_t *t, uint64_t root)
{
    for (unsigned w = 1; w < 16; w++)
        if (w != 6 && w != 7)
            wl_st(t, root + 8 * w, 0);
}

static void barnes_thread(wl_thread_t *t, void *state)
{
    const barnes_t *b = state;
    ctx_t c = {.t = t, .b = b};
    range(b, t->tid, &c.lo, &c.hi);
    for (uint64_t s = 0; s < b->steps; s++) {
        double g[6];
        load_doubles(t, bound_at(b, s), g, 6);
        geometry(g, g + 3, c.rmin, &c.rsize);
        wl_compute(t, GEOMETRY_INSTRS);
        c.used = 0;
        for (uint64_t i = c.lo; i < c.hi; i++)
            insert(&c, body_at(b, i));
        clear_stale(&c);
        wl_barrier(t, b->bar, b->nthreads, &c.phase);
        centres(&c);
        wl_barrier(t, b->bar, b->nthreads, &c.phase);
        reset_box(t, bound_at(b, s + 1));
        forces(&c);
        wl_barrier(t, b->bar, b->nthreads, &c.phase);
        advance_all(&c, s);
        if (s + 1 < b->steps)
            reset_root(t, b->nodes);
        wl_barrier(t, b->bar, b->nthreads, &c.phase);
    }
}

/* ------------------------------------------------------------------------------------------------
 * The check's reference: the same steps single-threaded, in host memory */

typedef struct rnode {
    unsigned type, depth, count;
    double mass, pos[3];
    uint64_t sub[8]; /* a cell's children (node numbers, 0 none: the root is no one's child); a
                        leaf's bodies (body numbers) */
} rnode_t;

typedef struct ref {
    const barnes_t *b;
    body_t *bd;
    rnode_t *n;
    uint64_t nn, cap;
    double box[2][6]; /* the box of step s at [s & 1]: min, max */
    double rmin[3], rsize;
} ref_t;

static uint64_t ref_node(ref_t *r, unsigned type, unsigned depth)
{
    if (r->nn == r->cap) {
        uint64_t cap = r->cap ? 2 * r->cap : 64;
        rnode_t *n = realloc(r->n, cap * sizeof *n);
        if (!n)
            return UINT64_MAX;
        r->n = n, r->cap = cap;
    }
    r->n[r->nn] = (rnode_t){.type = type, .depth = depth};
    return r->nn++;
}

/* A full leaf (node l) becomes a cell with leaves for its bodies. -1 when out of host memory. */
static int ref_split(ref_t *r, uint64_t l)
{
    rnode_t old = r->n[l];
    r->n[l] = (rnode_t){.type = T_CELL, .depth = old.depth};
    for (unsigned i = 0; i < old.count; i++) {
        uint32_t xp[3];
        (void)intcoord(r->bd[old.sub[i]].pos, r->rmin, r->rsize, xp);
        const unsigned k = subindex(xp, old.depth);
        if (!r->n[l].sub[k]) {
            const uint64_t c = ref_node(r, T_LEAF, old.depth + 1);
            if (c == UINT64_MAX)
                return -1;
            r->n[l].sub[k] = c;
        }
        rnode_t *c = &r->n[r->n[l].sub[k]];
        c->sub[c->count++] = old.sub[i];
    }
    return 0;
}

static int ref_insert(ref_t *r, uint64_t i, char *err)
{
    uint32_t xp[3];
    if (!intcoord(r->bd[i].pos, r->rmin, r->rsize, xp))
        return wl_errf(err, "barnes: check: body %llu lies outside the root's cube", (unsigned long long)i);
    for (uint64_t node = 0;;) {
        const unsigned d = r->n[node].depth, k = subindex(xp, d);
        uint64_t ch = r->n[node].sub[k];
        if (!ch) {
            if ((ch = ref_node(r, T_LEAF, d + 1)) == UINT64_MAX)
                return wl_errf(err, "barnes: check: out of host memory");
            r->n[node].sub[k] = ch;
        }
        rnode_t *c = &r->n[ch];
        if (c->type == T_LEAF && c->count < LEAF_MAX) {
            c->sub[c->count++] = i;
            return 0;
        }
        if (c->type == T_LEAF && c->depth >= MAX_DEPTH)
            return wl_errf(err, "barnes: check: more than %u bodies share a cube of 2^-%u of the root's side",
                           LEAF_MAX, MAX_DEPTH);
        if (c->type == T_LEAF && ref_split(r, ch))
            return wl_errf(err, "barnes: check: out of host memory");
        node = ch;
    }
}

static void ref_com(ref_t *r, uint64_t node)
{
    rnode_t *x = &r->n[node];
    double m[8], p[8][3];
    unsigned n = 0;
    if (x->type == T_LEAF) {
        for (unsigned i = 1; i < x->count; i++) /* address order */
            for (unsigned j = i; j > 0 && x->sub[j - 1] > x->sub[j]; j--) {
                uint64_t s = x->sub[j];
                x->sub[j] = x->sub[j - 1], x->sub[j - 1] = s;
            }
        for (; n < x->count; n++) {
            m[n] = r->bd[x->sub[n]].mass;
            memcpy(p[n], r->bd[x->sub[n]].pos, sizeof p[n]);
        }
    } else
        for (unsigned k = 0; k < 8; k++)
            if (x->sub[k]) {
                ref_com(r, x->sub[k]);
                x = &r->n[node];
                m[n] = r->n[x->sub[k]].mass;
                memcpy(p[n++], r->n[x->sub[k]].pos, sizeof p[0]);
            }
    cofm(n, m, p, &x->mass, x->pos);
}

static void ref_walk(const ref_t *r, force_t *f, uint64_t self, uint64_t node, double dsq)
{
    const rnode_t *x = &r->n[node];
    if (!opens(f, x->pos, dsq)) {
        interact(f, x->mass, x->pos);
        return;
    }
    for (unsigned k = 0; k < (x->type == T_CELL ? 8u : x->count); k++)
        if (x->type == T_CELL && x->sub[k])
            ref_walk(r, f, self, x->sub[k], dsq / 4.0);
        else if (x->type == T_LEAF && x->sub[k] != self)
            interact(f, r->bd[x->sub[k]].mass, r->bd[x->sub[k]].pos);
}

static int ref_step(ref_t *r, uint64_t s, char *err)
{
    const uint64_t n = r->b->nbody;
    const double *g = r->box[s & 1];
    geometry(g, g + 3, r->rmin, &r->rsize);
    r->nn = 0;
    if (ref_node(r, T_CELL, 0) == UINT64_MAX)
        return wl_errf(err, "barnes: check: out of host memory");
    for (uint64_t i = 0; i < n; i++)
        if (ref_insert(r, i, err))
            return -1;
    ref_com(r, 0);
    for (uint64_t i = 0; i < n; i++) {
        force_t f = {.phi = 0.0};
        memcpy(f.pos0, r->bd[i].pos, sizeof f.pos0);
        ref_walk(r, &f, i, 0, r->rsize * r->rsize);
        memcpy(r->bd[i].acc, f.acc, sizeof f.acc);
        r->bd[i].phi = f.phi;
        r->bd[i].cost = f.n;
    }
    for (uint64_t i = 0; i < n; i++)
        advance(r->bd[i].pos, r->bd[i].vel, r->bd[i].acc);
    bbox(r->bd, n, r->box[(s + 1) & 1], r->box[(s + 1) & 1] + 3);
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * The check */

typedef struct judge {
    wl_env_t *e;
    const barnes_t *b;
    const ref_t *r;          /* NULL after a failure: structure only */
    uint8_t *node_seen, *body_seen;
    char *err;
} judge_t;

static uint64_t peek(const judge_t *j, uint64_t a) { return j->e->ops->peek(j->e, 0, a); }

static int node_words(const judge_t *j, uint64_t a, unsigned depth, const uint64_t *w)
{
    const uint64_t slot = (a - j->b->nodes) / NODE_BYTES;
    const unsigned who = m_creator(w[0]), type = m_type(w[0]);
    if (slot == 0 ? who != 0 : who < 1 || who > j->b->nthreads)
        return wl_errf(j->err, "barnes: node slot %llu (depth %u) names creator %u of %u threads",
                       (unsigned long long)slot, depth, who, j->b->nthreads);
    if ((type != T_CELL && type != T_LEAF) || m_depth(w[0]) != depth || (type == T_CELL && m_count(w[0])) ||
        (type == T_LEAF && (m_count(w[0]) < 1 || m_count(w[0]) > LEAF_MAX)) || (w[0] >> 24 & 0xff))
        return wl_errf(j->err, "barnes: node slot %llu at depth %u has a bad meta word 0x%llx",
                       (unsigned long long)slot, depth, (unsigned long long)w[0]);
    if (w[5] != 1 || w[6] || w[7])
        return wl_errf(j->err, "barnes: node slot %llu (depth %u): completion flag %llu, spare words 0x%llx 0x%llx "
                       "(want 1, 0, 0)", (unsigned long long)slot, depth, (unsigned long long)w[5],
                       (unsigned long long)w[6], (unsigned long long)w[7]);
    return 0;
}

/* A leaf's bodies: valid, each in one leaf; their masses (and, with a reference, positions) in m
 * and p, in address order. */
static int leaf_bodies(judge_t *j, uint64_t slot, const uint64_t *w, const rnode_t *x, double *m, double (*p)[3])
{
    const barnes_t *b = j->b;
    const unsigned n = m_count(w[0]);
    uint64_t s[LEAF_MAX];
    memcpy(s, w + 8, sizeof s);
    for (unsigned i = 1; i < n; i++) /* as the threads sum them: in address order */
        for (unsigned k = i; k > 0 && s[k - 1] > s[k]; k--) {
            const uint64_t y = s[k];
            s[k] = s[k - 1], s[k - 1] = y;
        }
    for (unsigned i = 0; i < LEAF_MAX; i++) {
        const uint64_t a = s[i], bi = (a - b->bodies) / BODY_BYTES;
        if (i >= n) {
            if (a)
                return wl_errf(j->err, "barnes: leaf slot %llu of %u bodies holds 0x%llx in its place %u",
                               (unsigned long long)slot, n, (unsigned long long)a, i);
            continue;
        }
        if (a < b->bodies || bi >= b->nbody || (a - b->bodies) % BODY_BYTES || (i && a == s[i - 1]))
            return wl_errf(j->err, "barnes: leaf slot %llu's body %u is 0x%llx: no body, or twice in the leaf",
                           (unsigned long long)slot, i, (unsigned long long)a);
        if (x && bi != x->sub[i])
            return wl_errf(j->err, "barnes: leaf slot %llu's body %u is body %llu, want body %llu",
                           (unsigned long long)slot, i, (unsigned long long)bi, (unsigned long long)x->sub[i]);
        if (j->body_seen[bi]++)
            return wl_errf(j->err, "barnes: body %llu is in two leaves", (unsigned long long)bi);
        m[i] = wl_dbl(peek(j, a));
        if (x)
            memcpy(p[i], j->r->bd[bi].pos, sizeof p[i]); /* where it was when the tree was built */
    }
    return 0;
}

/* The node at a (depth `depth`; reference node ri when there is a reference): its words, its
 * subtree; *mass and pos: its stored mass and centre. */
static int judge_node(judge_t *j, uint64_t a, unsigned depth, uint64_t ri, double *mass, double pos[3])
{
    const barnes_t *b = j->b;
    const uint64_t slot = (a - b->nodes) / NODE_BYTES;
    if (a < b->nodes || slot >= b->chunks * CHUNK || (a - b->nodes) % NODE_BYTES || (depth && slot == 0))
        return wl_errf(j->err, "barnes: a child pointer at depth %u is 0x%llx: no node slot", depth,
                       (unsigned long long)a);
    if (j->node_seen[slot]++)
        return wl_errf(j->err, "barnes: node slot %llu is in the tree twice", (unsigned long long)slot);
    uint64_t w[16];
    for (unsigned i = 0; i < 16; i++)
        w[i] = peek(j, a + 8 * i);
    if (node_words(j, a, depth, w))
        return -1;
    const rnode_t *x = j->r ? &j->r->n[ri] : NULL;
    if (x && (m_type(w[0]) != x->type || (x->type == T_LEAF && m_count(w[0]) != x->count)))
        return wl_errf(j->err, "barnes: node slot %llu at depth %u is a %s of %u bodies, want a %s of %u",
                       (unsigned long long)slot, depth, m_type(w[0]) == T_CELL ? "cell" : "leaf", m_count(w[0]),
                       x->type == T_CELL ? "cell" : "leaf", x->count);
    double m[8], p[8][3] = {{0.0}}, want_m, want_p[3];
    unsigned n = 0;
    *mass = wl_dbl(w[1]);
    for (int k = 0; k < 3; k++)
        pos[k] = wl_dbl(w[2 + k]);
    if (m_type(w[0]) == T_LEAF) {
        if (leaf_bodies(j, slot, w, x, m, p))
            return -1;
        n = m_count(w[0]);
    } else
        for (unsigned k = 0; k < 8; k++) {
            if (x && !w[8 + k] != !x->sub[k])
                return wl_errf(j->err, "barnes: cell slot %llu at depth %u %s child %u", (unsigned long long)slot,
                               depth, w[8 + k] ? "has a surplus" : "lacks its", k);
            if (w[8 + k] && judge_node(j, w[8 + k], depth + 1, x ? x->sub[k] : 0, &m[n], p[n]))
                return -1;
            n += w[8 + k] != 0;
        }
    if (n == 0 && slot != 0)
        return wl_errf(j->err, "barnes: cell slot %llu at depth %u has no child", (unsigned long long)slot, depth);
    if (n == 0)
        return 0;
    cofm(n, m, p, &want_m, want_p);
    const bool cofm_known = x || m_type(w[0]) == T_CELL; /* a leaf's needs its bodies' old positions */
    if (x)
        want_m = x->mass, memcpy(want_p, x->pos, sizeof want_p);
    bool bad = wl_bits(*mass) != wl_bits(want_m);
    for (int k = 0; k < 3; k++)
        bad |= cofm_known && wl_bits(pos[k]) != wl_bits(want_p[k]);
    if (bad)
        return wl_errf(j->err, "barnes: node slot %llu at depth %u holds mass %.17g at (%.17g, %.17g, %.17g), want "
                       "%.17g at (%.17g, %.17g, %.17g)", (unsigned long long)slot, depth, *mass, pos[0], pos[1],
                       pos[2], want_m, want_p[0], want_p[1], want_p[2]);
    return 0;
}

static const char *const word_name[16] = {"mass", "x", "y", "z", "vx", "vy", "vz", "ax", "ay", "az", "phi",
                                          "interactions", "word 12", "word 13", "word 14", "word 15"};

/* Every body word against the reference. */
static int judge_bodies(const judge_t *j)
{
    for (uint64_t i = 0; i < j->b->nbody; i++) {
        const body_t *x = &j->r->bd[i];
        uint64_t want[16] = {wl_bits(x->mass)};
        for (int k = 0; k < 3; k++) {
            want[1 + k] = wl_bits(x->pos[k]);
            want[4 + k] = wl_bits(x->vel[k]);
            want[7 + k] = wl_bits(x->acc[k]);
        }
        want[10] = wl_bits(x->phi);
        want[11] = x->cost;
        for (unsigned w = 0; w < 16; w++) {
            const uint64_t got = peek(j, body_at(j->b, i) + 8 * w);
            if (got != want[w])
                return wl_errf(j->err, "barnes: body %llu's %s is %.17g (0x%016llx), want %.17g (0x%016llx) after %llu "
                               "steps", (unsigned long long)i, word_name[w], wl_dbl(got), (unsigned long long)got,
                               wl_dbl(want[w]), (unsigned long long)want[w], (unsigned long long)j->b->steps);
        }
    }
    return 0;
}

/* The boxes of the last step and of the one after it. */
static int judge_boxes(const judge_t *j)
{
    const uint64_t last = j->b->steps - 1;
    for (uint64_t s = last; s <= last + 1; s++)
        for (unsigned w = 0; w < 8; w++) {
            const uint64_t got = peek(j, bound_at(j->b, s) + 8 * w), want = w < 6 ? wl_bits(j->r->box[s & 1][w]) : 0;
            if (got != want)
                return wl_errf(j->err, "barnes: the bounding box of step %llu has word %u = %.17g (0x%llx), want %.17g",
                               (unsigned long long)s, w, wl_dbl(got), (unsigned long long)got, wl_dbl(want));
        }
    return 0;
}

/* The claimed chunks: each in one thread's list; every node of the tree made by the thread whose
 * list holds its chunk (its meta word's creator; chunk 0 holds the root alone); every slot in no tree
 * zero. */
static int judge_pool(const judge_t *j)
{
    const barnes_t *b = j->b;
    const uint64_t claimed = peek(j, b->pool);
    if (claimed < 1 || claimed > b->chunks)
        return wl_errf(j->err, "barnes: the pool counter is %llu of %llu chunks", (unsigned long long)claimed,
                       (unsigned long long)b->chunks);
    uint8_t *owned = calloc(claimed, 1);
    if (!owned)
        return wl_errf(j->err, "barnes: check: out of host memory");
    uint64_t listed = 0;
    int rc = 0;
    for (unsigned t = 0; t < b->nthreads && !rc; t++) {
        const unsigned cn = j->e->thread_cn[t];
        const uint64_t n = j->e->ops->peek(j->e, cn, b->list[t]);
        for (uint64_t i = 0; i < n && !rc; i++) {
            const uint64_t k = n < claimed ? j->e->ops->peek(j->e, cn, b->list[t] + 8 * (1 + i)) : 0;
            if (k < 1 || k >= claimed || owned[k])
                rc = wl_errf(j->err, "barnes: thread %u's chunk list (%llu chunks) names chunk %llu: none, or twice "
                             "(%llu claimed)", t, (unsigned long long)n, (unsigned long long)k,
                             (unsigned long long)claimed);
            else
                owned[k] = (uint8_t)(t + 1);
        }
        listed += n;
    }
    if (!rc && listed != claimed - 1)
        rc = wl_errf(j->err, "barnes: the threads list %llu chunks, the pool counter says %llu were claimed",
                     (unsigned long long)listed, (unsigned long long)(claimed - 1));
    for (uint64_t s = CHUNK; s < claimed * CHUNK && !rc; s++) {
        const unsigned who = j->node_seen[s] ? m_creator(peek(j, b->nodes + s * NODE_BYTES)) : 0;
        if (j->node_seen[s] && who != owned[s / CHUNK])
            rc = wl_errf(j->err, "barnes: node slot %llu names creator %u, but chunk %llu is thread %u's",
                         (unsigned long long)s, who ? who - 1 : 0, (unsigned long long)(s / CHUNK),
                         owned[s / CHUNK] - 1u);
    }
    for (uint64_t s = 0; s < claimed * CHUNK && !rc; s++)
        for (unsigned w = 0; w < 16 && !j->node_seen[s]; w++) {
            const uint64_t v = peek(j, b->nodes + s * NODE_BYTES + 8 * w);
            if (v) {
                rc = wl_errf(j->err, "barnes: node slot %llu is in no tree but its word %u is 0x%llx",
                             (unsigned long long)s, w, (unsigned long long)v);
                break;
            }
        }
    free(owned);
    return rc;
}

/* Locks free, the barrier's four phases a step released (as ocean's check). */
static int judge_sync(const judge_t *j)
{
    const barnes_t *b = j->b;
    for (uint64_t i = 0; i < b->chunks * CHUNK; i++)
        if (peek(j, b->locks + 8 * i))
            return wl_errf(j->err, "barnes: node slot %llu's lock is held by 0x%llx at the end", (unsigned long long)i,
                           (unsigned long long)peek(j, b->locks + 8 * i));
    if (peek(j, b->block))
        return wl_errf(j->err, "barnes: the bounding box's lock is held at the end");
    return wl_barrier_check(j->e, "barnes", b->bar, b->nthreads, 4 * b->steps, " (four a step)", true, j->err);
}

/* After a failure: masses kept, survivors' bodies finite and in the tree. */
static int judge_survivors(const judge_t *j, const body_t *init)
{
    const barnes_t *b = j->b;
    for (unsigned t = 0; t < b->nthreads; t++) {
        uint64_t lo, hi;
        range(b, t, &lo, &hi);
        for (uint64_t i = lo; i < hi; i++) {
            const uint64_t a = body_at(b, i);
            if (peek(j, a) != wl_bits(init[i].mass))
                return wl_errf(j->err, "barnes: body %llu's mass is %.17g, want %.17g", (unsigned long long)i,
                               wl_dbl(peek(j, a)), init[i].mass);
            if (!wl_env_alive(j->e, t))
                continue;
            for (unsigned w = 1; w < 7; w++)
                if (!isfinite(wl_dbl(peek(j, a + 8 * w))))
                    return wl_errf(j->err, "barnes: body %llu's %s is %g", (unsigned long long)i, word_name[w],
                                   wl_dbl(peek(j, a + 8 * w)));
            if (!j->body_seen[i])
                return wl_errf(j->err, "barnes: body %llu of surviving thread %u is in no leaf", (unsigned long long)i,
                               t);
        }
    }
    return 0;
}

static int barnes_check(wl_env_t *e, void *state, char *err)
{
    const barnes_t *b = state;
    ref_t r = {.b = b};
    judge_t j = {.e = e, .b = b, .err = err};
    int rc = 0;
    r.bd = calloc(b->nbody, sizeof *r.bd);
    j.node_seen = calloc(b->chunks * CHUNK, 1);
    j.body_seen = calloc(b->nbody, 1);
    if (!r.bd || !j.node_seen || !j.body_seen || initial(b, r.bd)) {
        rc = wl_errf(err, "barnes: check: out of host memory");
        goto out;
    }
    static const char *const what[F_COUNT] = {"the octree's node pool ran out", "a leaf of depth 30 was full",
                                              "a body lay outside the root's cube"};
    for (unsigned f = 0; f < F_COUNT && !rc; f++)
        if (peek(&j, b->flags + 8 * f))
            rc = wl_errf(err, "barnes: %s", what[f]);
    bbox(r.bd, b->nbody, r.box[0], r.box[0] + 3);
    if (!rc && !wl_env_lost(e)) {
        for (uint64_t s = 0; s < b->steps && !rc; s++)
            rc = ref_step(&r, s, err);
        j.r = &r;
    }
    double m, p[3];
    if (!rc)
        rc = judge_node(&j, b->nodes, 0, 0, &m, p);
    if (!rc && j.r)
        rc = judge_bodies(&j);
    if (!rc && j.r)
        rc = judge_boxes(&j);
    if (!rc && j.r)
        rc = judge_pool(&j);
    if (!rc && j.r)
        rc = judge_sync(&j);
    if (!rc && !j.r)
        rc = judge_survivors(&j, r.bd);
out:
    free(r.bd), free(r.n), free(j.node_seen), free(j.body_seen);
    return rc;
}

static void barnes_free(void *state)
{
    barnes_t *b = state;
    if (b)
        free(b->list);
    free(b);
}

const workload_t wl_barnes = {
    .name = "barnes",
    .doc = "Barnes-Hut N-body: a shared octree built under cell locks, centres of mass bottom-up, tree walks for the "
           "forces, leapfrog",
    .setup = barnes_setup,
    .thread = barnes_thread,
    .check = barnes_check,
    .free = barnes_free,
};
