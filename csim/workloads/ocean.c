/* ocean_ncp and ocean_cp: SPLASH-2 ocean's red-black SOR relaxation, in its two data layouts.
 *
 * The grid: (n+2) x (n+2) doubles, fixed boundary values around n x n interior points. The threads
 * form a pr x pc grid of blocks as SPLASH-2's ocean partitions the ocean (pc the largest divisor of
 * nthreads not above its square root, pr = nthreads / pc: square blocks for 4, 16 and 64 threads,
 * bands of rows for a prime count); thread tid owns block (tid / pc, tid % pc), the interior rows
 * and columns of its share. Each layout is one of the two programs:
 *   - ocean_ncp ("non-contiguous partitions"): one row-major grid on CXL memory, unpadded. A
 *     block's rows are n + 2 words apart, and the lines at a block's left and right edges hold the
 *     points of two threads (false sharing); a thread reads its neighbours' edge points where they
 *     lie.
 *   - ocean_cp ("contiguous partitions"): each block is its own (rows + 2) x (cols + 2) array on
 *     CXL memory, line-aligned, with a ring of ghost points around the block: the domain's boundary
 *     where the block touches it, elsewhere copies of the neighbouring blocks' edge points. After
 *     each half-sweep (and a barrier) every thread pulls the colour just relaxed from its
 *     neighbours' edges into its ghosts, as ocean_cp's copy_red and copy_black do; its sweeps then
 *     read only its own block. The ghost corners are never read (a 5-point stencil): they keep
 *     their initial values.
 * Both: one residual word per sweep and a barrier on CXL memory; the thread's partial residual of
 * the current sweep in its CN's local memory.
 *
 * A sweep is a red half-sweep (points with i + j even), a barrier, [ocean_cp: the red ghosts], a
 * black half-sweep, [ocean_cp: a barrier, the black ghosts], the residual reduction and a barrier.
 * A red point's new value depends only on black neighbours and the other way round, so the result
 * does not depend on how the threads interleave: check() recomputes the same sweeps single-threaded
 * in C and wants every point bit for bit (ocean_cp: the ghosts too).
 *
 * The residual of a sweep is the sum of |new - old| over the points. Each thread adds every row's
 * sum (over its block's columns) to its partial in local memory, converts the partial to fixed
 * point (2^-24 units) and adds it to the sweep's shared word with one atomic fetch-and-add: integer
 * addition commutes, so the shared sum is exact whatever the order in which threads arrive, and
 * check() wants it exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/rng.h"
#include "workloads/workloads.h"

#define OMEGA 1.5        /* over-relaxation factor (SOR converges for 1 < omega < 2) */
#define RESID_SHIFT 24   /* fixed-point residual: units of 2^-24 */
#define POINT_INSTRS 10  /* non-memory instructions per point: the stencil's arithmetic and the loop */
#define ROW_INSTRS 6     /* per row: the row's index arithmetic */
#define COPY_INSTRS 3    /* per ghost point copied: its index arithmetic */
#define POINTS_IN_FLIGHT 16 /* points whose loads are in flight at once: about what the ROB holds
                               (352 entries / 16 instructions per point = 22) */

typedef struct ocean {
    const char *name;
    bool contiguous;           /* ocean_cp */
    uint64_t n, m, iters;      /* m = n + 2 */
    unsigned nthreads, pr, pc; /* blocks: pr rows of pc */
    uint64_t seed;
    uint64_t grid;             /* ocean_ncp: the grid (remote) */
    uint64_t *block;           /* ocean_cp: per thread, its block with its ghosts (remote) */
    uint64_t resid, bar;       /* remote */
    uint64_t *partial;         /* per thread: its partial residual word (local) */
} ocean_t;

static uint64_t to_fixed(double x) { return (uint64_t)(ldexp(x, RESID_SHIFT) + 0.5); }

/* One SOR step of a point; used by the threads and by check(), so both round identically. */
static double relax(double c, double up, double dn, double l, double r)
{
    return c + OMEGA * (0.25 * (up + dn + l + r) - c);
}

/* Part k of p of the interior indices 1 .. n: [lo, hi). */
static uint64_t part_lo(uint64_t n, unsigned p, unsigned k) { return 1 + k * n / p; }

/* The block of thread tid: interior rows [r0, r1), columns [c0, c1). */
typedef struct blk {
    uint64_t r0, r1, c0, c1;
} blk_t;

static blk_t block_of(const ocean_t *o, unsigned tid)
{
    unsigned br = tid / o->pc, bc = tid % o->pc;
    return (blk_t){part_lo(o->n, o->pr, br), part_lo(o->n, o->pr, br + 1), part_lo(o->n, o->pc, bc),
                   part_lo(o->n, o->pc, bc + 1)};
}

/* The part of 1 .. n (split in p) holding interior index i. */
static unsigned part_of(uint64_t n, unsigned p, uint64_t i)
{
    unsigned k = (unsigned)((i - 1) * p / n);
    while (k + 1 < p && part_lo(n, p, k + 1) <= i)
        k++;
    while (k > 0 && part_lo(n, p, k) > i)
        k--;
    return k;
}

/* Where point (i, j) lies for thread tid (ocean_cp: in tid's block, ghosts included; ocean_ncp: in
 * the grid). */
static uint64_t at(const ocean_t *o, unsigned tid, uint64_t i, uint64_t j)
{
    if (!o->contiguous)
        return o->grid + 8 * (i * o->m + j);
    blk_t b = block_of(o, tid);
    return o->block[tid] + 8 * ((i + 1 - b.r0) * (b.c1 - b.c0 + 2) + (j + 1 - b.c0));
}

/* First column of colour col (0 red, 1 black) in row i at or after column j0. */
static uint64_t first_col(uint64_t i, uint64_t j0, unsigned col) { return j0 + (((i + j0) & 1u) != col); }

/* The initial grid, from the seed: boundary values 1 along the top, 0.5 along the left, 0
 * elsewhere (a hot edge), interior values uniform in [0, 1). */
static void initial(const ocean_t *o, double *g)
{
    rng_t r;
    rng_init_named(&r, o->seed, "ocean.grid");
    for (uint64_t i = 0; i < o->m; i++)
        for (uint64_t j = 0; j < o->m; j++) {
            bool border = i == 0 || j == 0 || i == o->m - 1 || j == o->m - 1;
            g[i * o->m + j] = !border ? rng_unit(&r) : i == 0 ? 1.0 : j == 0 ? 0.5 : 0.0;
        }
}

/* Calls f(o, tid, i, j, arg) for every point of memory, tid the thread whose memory holds it
 * (ocean_ncp: the whole grid, the boundary as thread 0's; ocean_cp: each block with its ghosts). */
static void each_point(const ocean_t *o, void (*f)(const ocean_t *, unsigned, uint64_t, uint64_t, void *), void *arg)
{
    if (!o->contiguous) {
        for (uint64_t i = 0; i < o->m; i++)
            for (uint64_t j = 0; j < o->m; j++)
                f(o, 0, i, j, arg);
        return;
    }
    for (unsigned t = 0; t < o->nthreads; t++) {
        blk_t b = block_of(o, t);
        for (uint64_t i = b.r0 - 1; i < b.r1 + 1; i++)
            for (uint64_t j = b.c0 - 1; j < b.c1 + 1; j++)
                f(o, t, i, j, arg);
    }
}

static void ocean_free(void *state);

/* Splits nthreads into pr x pc blocks (pc <= pr, pc as large as divides). */
static void blocks(unsigned nthreads, unsigned *pr, unsigned *pc)
{
    unsigned c = 1;
    for (unsigned d = 1; d * d <= nthreads; d++)
        if (nthreads % d == 0)
            c = d;
    *pc = c, *pr = nthreads / c;
}

static void poke_point(const ocean_t *o, unsigned tid, uint64_t i, uint64_t j, void *arg)
{
    wl_env_t *e = ((void **)arg)[0];
    const double *g = ((void **)arg)[1];
    e->ops->poke(e, 0, at(o, tid, i, j), wl_bits(g[i * o->m + j]));
}

/* Allocates the grid (or the blocks) and pokes the initial values. */
static int ocean_grid(wl_env_t *e, ocean_t *o, char *err)
{
    uint64_t bytes = 0;
    if (!o->contiguous) {
        bytes = o->m * o->m * 8;
        o->grid = e->ops->alloc_cxl(e, bytes);
    } else {
        for (unsigned t = 0; t < o->nthreads && o->grid != WL_ALLOC_FAIL; t++) {
            blk_t b = block_of(o, t);
            uint64_t sz = (b.r1 - b.r0 + 2) * (b.c1 - b.c0 + 2) * 8;
            bytes += sz;
            o->block[t] = e->ops->alloc_cxl(e, sz);
            if (o->block[t] == WL_ALLOC_FAIL)
                o->grid = WL_ALLOC_FAIL;
        }
    }
    if (o->grid == WL_ALLOC_FAIL)
        return wl_errf(err, "%s: the %llu x %llu grid (%llu bytes%s) does not fit the CXL memory", o->name,
                       (unsigned long long)o->m, (unsigned long long)o->m, (unsigned long long)bytes,
                       o->contiguous ? " so far, in blocks with their ghosts" : "");
    double *g = malloc(o->m * o->m * sizeof *g);
    if (!g)
        return wl_errf(err, "%s: out of host memory for a %llu x %llu grid", o->name, (unsigned long long)o->m,
                       (unsigned long long)o->m);
    initial(o, g);
    void *arg[2] = {e, g};
    each_point(o, poke_point, arg);
    free(g);
    return 0;
}

/* On failure the state is freed here: the caller frees it only after a successful setup. */
static int ocean_setup(wl_env_t *e, void **state, char *err, const char *name, bool contiguous)
{
    const sim_config_t *c = e->cfg;
    const uint64_t n = c->workload.ocean_grid;
    *state = NULL;
    unsigned pr, pc;
    blocks(e->nthreads, &pr, &pc);
    if (pr > n)
        return wl_errf(err, "%s: %u threads make %u x %u blocks but only %llu grid rows to share "
                       "(workload.ocean_grid = %llu): use fewer threads or a larger grid", name, e->nthreads, pr, pc,
                       (unsigned long long)n, (unsigned long long)n);
    ocean_t *o = calloc(1, sizeof *o);
    int rc = 0;
    if (!o || !(o->partial = calloc(e->nthreads, sizeof *o->partial)) ||
        !(o->block = calloc(e->nthreads, sizeof *o->block))) {
        free(o ? o->partial : NULL), free(o);
        return wl_errf(err, "%s: out of host memory", name);
    }
    *o = (ocean_t){.name = name, .contiguous = contiguous, .n = n, .m = n + 2, .iters = c->workload.ocean_iters,
                   .nthreads = e->nthreads, .pr = pr, .pc = pc, .seed = e->seed, .block = o->block,
                   .partial = o->partial};
    o->resid = e->ops->alloc_cxl(e, o->iters * 8);
    o->bar = e->ops->alloc_cxl(e, WL_BARRIER_BYTES);
    if (o->resid == WL_ALLOC_FAIL || o->bar == WL_ALLOC_FAIL) {
        rc = wl_errf(err, "%s: the residuals and the barrier do not fit the CXL memory", name);
        goto out;
    }
    if ((rc = ocean_grid(e, o, err)))
        goto out;
    for (unsigned t = 0; t < e->nthreads; t++) {
        o->partial[t] = e->ops->alloc_local(e, e->thread_cn[t], 8);
        if (o->partial[t] == WL_ALLOC_FAIL) {
            rc = wl_errf(err, "%s: thread %u's partial residual does not fit CN %u's local memory", name, t,
                         e->thread_cn[t]);
            goto out;
        }
    }
out:
    if (rc)
        ocean_free(o);
    else
        *state = o;
    return rc;
}

static int ncp_setup(wl_env_t *e, void **state, char *err) { return ocean_setup(e, state, err, "ocean_ncp", false); }
static int cp_setup(wl_env_t *e, void **state, char *err) { return ocean_setup(e, state, err, "ocean_cp", true); }

/* Relaxes the points of colour col in row i of thread t's block; returns the row's sum of changes. */
static double relax_row(wl_thread_t *t, const ocean_t *o, blk_t b, uint64_t i, unsigned col)
{
    const unsigned me = t->tid;
    double rowsum = 0.0;
    for (uint64_t j0 = first_col(i, b.c0, col); j0 < b.c1; j0 += 2 * POINTS_IN_FLIGHT) {
        /* the loads of the next points at once: they read only the other colour, which nobody
         * writes in this half-sweep, so they are independent of the stores */
        uint64_t a[5 * POINTS_IN_FLIGHT], v[5 * POINTS_IN_FLIGHT];
        unsigned np = 0;
        for (uint64_t j = j0; j < b.c1 && np < POINTS_IN_FLIGHT; j += 2, np++) {
            uint64_t *q = &a[5 * np];
            q[0] = at(o, me, i, j), q[1] = at(o, me, i - 1, j), q[2] = at(o, me, i + 1, j);
            q[3] = at(o, me, i, j - 1), q[4] = at(o, me, i, j + 1);
        }
        wl_ld_batch(t, a, v, 5 * np);
        for (unsigned p = 0; p < np; p++) {
            const uint64_t *q = &v[5 * p];
            double c = wl_dbl(q[0]), nv = relax(c, wl_dbl(q[1]), wl_dbl(q[2]), wl_dbl(q[3]), wl_dbl(q[4]));
            wl_compute(t, POINT_INSTRS);
            wl_st(t, a[5 * p], wl_bits(nv));
            rowsum += fabs(nv - c);
        }
    }
    return rowsum;
}

/* ocean_cp: pulls the points of colour col along thread t's block edges from the neighbouring
 * blocks into its ghosts (the domain's boundary never changes: those ghosts are left alone). */
static void copy_ghosts(wl_thread_t *t, const ocean_t *o, blk_t b, unsigned col)
{
    uint64_t gi[2] = {b.r0 - 1, b.r1}, gj[2] = {b.c0 - 1, b.c1};
    for (int side = 0; side < 4; side++) {
        const bool row = side < 2; /* a ghost row (above, below) or a ghost column (left, right) */
        const uint64_t fixed = row ? gi[side] : gj[side - 2], lo = row ? b.c0 : b.r0, hi = row ? b.c1 : b.r1;
        if (fixed == 0 || fixed == o->m - 1)
            continue;
        for (uint64_t k0 = first_col(fixed, lo, col); k0 < hi; k0 += 2 * POINTS_IN_FLIGHT) {
            uint64_t a[POINTS_IN_FLIGHT], v[POINTS_IN_FLIGHT], to[POINTS_IN_FLIGHT];
            unsigned np = 0;
            for (uint64_t k = k0; k < hi && np < POINTS_IN_FLIGHT; k += 2, np++) {
                uint64_t i = row ? fixed : k, j = row ? k : fixed;
                unsigned owner = part_of(o->n, o->pr, i) * o->pc + part_of(o->n, o->pc, j);
                a[np] = at(o, owner, i, j), to[np] = at(o, t->tid, i, j);
            }
            wl_ld_batch(t, a, v, np);
            for (unsigned p = 0; p < np; p++) {
                wl_compute(t, COPY_INSTRS);
                wl_st(t, to[p], v[p]);
            }
        }
    }
}

static void ocean_thread(wl_thread_t *t, void *state)
{
    const ocean_t *o = state;
    const uint64_t part = o->partial[t->tid];
    const blk_t b = block_of(o, t->tid);
    unsigned phase = 0;
    for (uint64_t it = 0; it < o->iters; it++) {
        wl_st(t, part, wl_bits(0.0));
        for (unsigned col = 0; col < 2; col++) {
            for (uint64_t i = b.r0; i < b.r1; i++) {
                wl_compute(t, ROW_INSTRS);
                double rowsum = relax_row(t, o, b, i, col);
                wl_st(t, part, wl_bits(wl_dbl(wl_ld(t, part)) + rowsum));
            }
            if (col == 0 || o->contiguous)
                wl_barrier(t, o->bar, o->nthreads, &phase);
            if (o->contiguous)
                copy_ghosts(t, o, b, col);
        }
        wl_fadd(t, o->resid + 8 * it, to_fixed(wl_dbl(wl_ld(t, part))));
        wl_barrier(t, o->bar, o->nthreads, &phase);
    }
}

/* The threads' sweeps, single-threaded, in the same per-thread order of additions: bit-exact. */
static void reference(const ocean_t *o, double *g, double *part, uint64_t *resid)
{
    const uint64_t m = o->m;
    initial(o, g);
    for (uint64_t it = 0; it < o->iters; it++) {
        for (unsigned t = 0; t < o->nthreads; t++)
            part[t] = 0.0;
        for (unsigned col = 0; col < 2; col++)
            for (unsigned t = 0; t < o->nthreads; t++) {
                blk_t b = block_of(o, t);
                for (uint64_t i = b.r0; i < b.r1; i++) {
                    double rowsum = 0.0;
                    for (uint64_t j = first_col(i, b.c0, col); j < b.c1; j += 2) {
                        double *p = &g[i * m + j], c = *p;
                        *p = relax(c, p[-(long)m], p[m], p[-1], p[1]);
                        rowsum += fabs(*p - c);
                    }
                    part[t] += rowsum;
                }
            }
        for (unsigned t = 0; t < o->nthreads; t++)
            resid[it] += to_fixed(part[t]);
    }
}

typedef struct cmp {
    wl_env_t *e;
    const double *g, *g0; /* the reference's final grid, and the initial one (ocean_cp's corners) */
    uint64_t bad, words, addr;
    double want;
} cmp_t;

static void cmp_point(const ocean_t *o, unsigned tid, uint64_t i, uint64_t j, void *arg)
{
    cmp_t *c = arg;
    blk_t b = block_of(o, tid);
    bool corner = o->contiguous && (i < b.r0 || i >= b.r1) && (j < b.c0 || j >= b.c1);
    double want = (corner ? c->g0 : c->g)[i * o->m + j];
    uint64_t a = at(o, tid, i, j);
    c->words++;
    if (c->e->ops->peek(c->e, 0, a) != wl_bits(want) && c->bad++ == 0)
        c->addr = a, c->want = want;
}

static int ocean_check(wl_env_t *e, void *state, char *err)
{
    const ocean_t *o = state;
    if (wl_env_lost(e))
        return 0; /* the lost threads' blocks were not swept: no reference to compare with (the oracle
                     still judges every word) */
    double *g = malloc(o->m * o->m * sizeof *g), *g0 = malloc(o->m * o->m * sizeof *g0);
    double *part = malloc(o->nthreads * sizeof *part);
    uint64_t *resid = calloc(o->iters, sizeof *resid);
    int rc = 0;
    if (!g || !g0 || !part || !resid) {
        rc = wl_errf(err, "%s: check: out of host memory", o->name);
        goto out;
    }
    reference(o, g, part, resid);
    initial(o, g0);
    cmp_t c = {.e = e, .g = g, .g0 = g0};
    each_point(o, cmp_point, &c);
    if (c.bad) {
        uint64_t got = e->ops->peek(e, 0, c.addr);
        rc = wl_errf(err, "%s: the word at 0x%llx holds %.17g (0x%016llx), want %.17g (0x%016llx) after %llu sweeps; "
                     "%llu of %llu points differ", o->name, (unsigned long long)c.addr, wl_dbl(got),
                     (unsigned long long)got, c.want, (unsigned long long)wl_bits(c.want), (unsigned long long)o->iters,
                     (unsigned long long)c.bad, (unsigned long long)c.words);
        goto out;
    }
    for (uint64_t it = 0; it < o->iters; it++) {
        uint64_t got = e->ops->peek(e, 0, o->resid + 8 * it);
        if (got != resid[it]) {
            rc = wl_errf(err, "%s: the residual of sweep %llu is %.17g (0x%llx units of 2^-%d), want %.17g (0x%llx)",
                         o->name, (unsigned long long)it, ldexp((double)got, -RESID_SHIFT), (unsigned long long)got,
                         RESID_SHIFT, ldexp((double)resid[it], -RESID_SHIFT), (unsigned long long)resid[it]);
            goto out;
        }
    }
    rc = wl_barrier_check(e, o->name, o->bar, o->nthreads, (o->contiguous ? 3 : 2) * o->iters,
                          o->contiguous ? " (three a sweep)" : " (two a sweep)", true, err);
out:
    free(g), free(g0), free(part), free(resid);
    return rc;
}

static void ocean_free(void *state)
{
    ocean_t *o = state;
    if (o)
        free(o->partial), free(o->block);
    free(o);
}

const workload_t wl_ocean_ncp = {
    .name = "ocean_ncp",
    .doc = "SPLASH-2 ocean_ncp: red-black SOR over one row-major shared grid, square blocks per thread, barriers",
    .setup = ncp_setup,
    .thread = ocean_thread,
    .check = ocean_check,
    .free = ocean_free,
};

const workload_t wl_ocean_cp = {
    .name = "ocean_cp",
    .doc = "SPLASH-2 ocean_cp: red-black SOR, each thread's block contiguous with ghost points copied from its "
           "neighbours, barriers",
    .setup = cp_setup,
    .thread = ocean_thread,
    .check = ocean_check,
    .free = ocean_free,
};
