/* ocean: a SPLASH-2 ocean-like red-black SOR relaxation.
 *
 * Shared data (CXL memory): an (n+2) x (n+2) grid of doubles, row-major, unpadded (rows of
 * neighbouring threads share the lines at their border, as in ocean_ncp); fixed boundary values
 * around n x n interior points; one residual word per sweep; a barrier. Thread-private data
 * (local memory of the thread's CN): the thread's partial residual of the current sweep.
 *
 * The interior rows are split into nthreads contiguous bands. A sweep is a red half-sweep (points
 * with i + j even), a barrier, a black half-sweep (i + j odd), the residual reduction and a
 * barrier. A red point's new value depends only on black neighbours and the other way round, so
 * the result does not depend on how the threads interleave: check() recomputes the same sweeps
 * single-threaded in C and wants the grid bit for bit.
 *
 * The residual of a sweep is the sum of |new - old| over the points. Each thread adds every row's
 * sum to its partial in local memory, converts the partial to fixed point (2^-24 units) and adds
 * it to the sweep's shared word with one atomic fetch-and-add: integer addition commutes, so the
 * shared sum is exact whatever the order in which threads arrive, and check() wants it exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "rng.h"
#include "workloads/workloads.h"

#define OMEGA 1.5        /* over-relaxation factor (SOR converges for 1 < omega < 2) */
#define RESID_SHIFT 24   /* fixed-point residual: units of 2^-24 */
#define POINT_INSTRS 10  /* non-memory instructions per point: the stencil's arithmetic and the loop */
#define ROW_INSTRS 6     /* per row: the row's index arithmetic */
#define POINTS_IN_FLIGHT 16 /* points whose loads are in flight at once: about what the ROB holds
                               (352 entries / 16 instructions per point = 22) */

typedef struct ocean {
    uint64_t n, iters;
    unsigned nthreads;
    uint64_t seed;
    uint64_t grid, resid, bar; /* remote */
    uint64_t *partial;         /* per thread: its partial residual word (local) */
} ocean_t;

static uint64_t bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double dbl(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static uint64_t to_fixed(double x) { return (uint64_t)(ldexp(x, RESID_SHIFT) + 0.5); }

/* One SOR step of a point; used by the threads and by check(), so both round identically. */
static double relax(double c, double up, double dn, double l, double r)
{
    return c + OMEGA * (0.25 * (up + dn + l + r) - c);
}

/* Interior rows [lo, hi) of thread tid. */
static void band(const ocean_t *o, unsigned tid, uint64_t *lo, uint64_t *hi)
{
    *lo = 1 + tid * o->n / o->nthreads;
    *hi = 1 + (tid + 1) * o->n / o->nthreads;
}

/* First column of colour col (0 red, 1 black) in row i: (i + j) % 2 == col. */
static uint64_t first_col(uint64_t i, unsigned col) { return ((i + 1) & 1u) == col ? 1 : 2; }

/* The initial grid, from the seed: boundary values 1 along the top, 0.5 along the left, 0
 * elsewhere (a hot edge), interior values uniform in [0, 1). */
static void initial(const ocean_t *o, double *g)
{
    rng_t r;
    rng_init_named(&r, o->seed, "ocean.grid");
    uint64_t m = o->n + 2;
    for (uint64_t i = 0; i < m; i++)
        for (uint64_t j = 0; j < m; j++) {
            bool border = i == 0 || j == 0 || i == m - 1 || j == m - 1;
            g[i * m + j] = !border ? rng_unit(&r) : i == 0 ? 1.0 : j == 0 ? 0.5 : 0.0;
        }
}

static void ocean_free(void *state);

/* On failure the state is freed here: the caller frees it only after a successful setup. */
static int ocean_setup(wl_env_t *e, void **state, char *err)
{
    const sim_config_t *c = e->cfg;
    uint64_t n = c->workload.ocean_grid, m = n + 2;
    *state = NULL;
    if (e->nthreads > n)
        return wl_errf(err, "ocean: %u threads but only %llu grid rows to share (workload.ocean_grid = %llu): use "
                       "at most %llu threads or a larger grid", e->nthreads, (unsigned long long)n,
                       (unsigned long long)n, (unsigned long long)n);
    ocean_t *o = calloc(1, sizeof *o);
    double *g = malloc(m * m * sizeof *g);
    int rc = 0;
    if (!o || !g || !(o->partial = calloc(e->nthreads, sizeof *o->partial))) {
        rc = wl_errf(err, "ocean: out of host memory for a %llu x %llu grid", (unsigned long long)m,
                     (unsigned long long)m);
        goto out;
    }
    o->n = n;
    o->iters = c->workload.ocean_iters;
    o->nthreads = e->nthreads;
    o->seed = e->seed;
    o->grid = e->ops->alloc_cxl(e, m * m * 8);
    o->resid = e->ops->alloc_cxl(e, o->iters * 8);
    o->bar = e->ops->alloc_cxl(e, WL_BARRIER_BYTES);
    if (o->grid == WL_ALLOC_FAIL || o->resid == WL_ALLOC_FAIL || o->bar == WL_ALLOC_FAIL) {
        rc = wl_errf(err, "ocean: the %llu x %llu grid (%llu bytes) does not fit the CXL memory",
                     (unsigned long long)m, (unsigned long long)m, (unsigned long long)(m * m * 8));
        goto out;
    }
    for (unsigned t = 0; t < e->nthreads; t++) {
        o->partial[t] = e->ops->alloc_local(e, e->thread_cn[t], 8);
        if (o->partial[t] == WL_ALLOC_FAIL) {
            rc = wl_errf(err, "ocean: thread %u's partial residual does not fit CN %u's local memory", t,
                         e->thread_cn[t]);
            goto out;
        }
    }
    initial(o, g);
    for (uint64_t k = 0; k < m * m; k++)
        e->ops->poke(e, 0, o->grid + 8 * k, bits(g[k]));
out:
    free(g);
    if (rc)
        ocean_free(o);
    else
        *state = o;
    return rc;
}

static void ocean_thread(wl_thread_t *t, void *state)
{
    const ocean_t *o = state;
    const uint64_t m = o->n + 2, part = o->partial[t->tid];
    uint64_t lo, hi;
    band(o, t->tid, &lo, &hi);
    unsigned sense = 0;
#define AT(i, j) (o->grid + 8 * ((i) * m + (j)))
    for (uint64_t it = 0; it < o->iters; it++) {
        wl_st(t, part, bits(0.0));
        for (unsigned col = 0; col < 2; col++) {
            for (uint64_t i = lo; i < hi; i++) {
                wl_compute(t, ROW_INSTRS);
                double rowsum = 0.0;
                for (uint64_t j0 = first_col(i, col); j0 <= o->n; j0 += 2 * POINTS_IN_FLIGHT) {
                    /* the loads of the next points at once: they read only the other colour, which
                     * nobody writes in this half-sweep, so they are independent of the stores */
                    uint64_t a[5 * POINTS_IN_FLIGHT], v[5 * POINTS_IN_FLIGHT];
                    unsigned np = 0;
                    for (uint64_t j = j0; j <= o->n && np < POINTS_IN_FLIGHT; j += 2, np++) {
                        uint64_t *q = &a[5 * np];
                        q[0] = AT(i, j), q[1] = AT(i - 1, j), q[2] = AT(i + 1, j), q[3] = AT(i, j - 1);
                        q[4] = AT(i, j + 1);
                    }
                    wl_ld_batch(t, a, v, 5 * np);
                    for (unsigned p = 0; p < np; p++) {
                        const uint64_t *q = &v[5 * p];
                        double c = dbl(q[0]), nv = relax(c, dbl(q[1]), dbl(q[2]), dbl(q[3]), dbl(q[4]));
                        wl_compute(t, POINT_INSTRS);
                        wl_st(t, AT(i, j0 + 2 * p), bits(nv));
                        rowsum += fabs(nv - c);
                    }
                }
                wl_st(t, part, bits(dbl(wl_ld(t, part)) + rowsum));
            }
            if (col == 0)
                wl_barrier(t, o->bar, o->nthreads, &sense);
        }
        wl_fadd(t, o->resid + 8 * it, to_fixed(dbl(wl_ld(t, part))));
        wl_barrier(t, o->bar, o->nthreads, &sense);
    }
#undef AT
}

static int ocean_check(wl_env_t *e, void *state, char *err)
{
    const ocean_t *o = state;
    if (wl_env_lost(e))
        return 0; /* the lost threads' bands were not swept: no reference to compare with (the oracle
                     still judges every word) */
    const uint64_t m = o->n + 2;
    double *g = malloc(m * m * sizeof *g), *part = malloc(o->nthreads * sizeof *part);
    uint64_t *resid = calloc(o->iters, sizeof *resid);
    if (!g || !part || !resid) {
        free(g), free(part), free(resid);
        return wl_errf(err, "ocean: check: out of host memory");
    }
    /* The same sweeps in the same per-thread order of additions: bit-exact. */
    initial(o, g);
    for (uint64_t it = 0; it < o->iters; it++) {
        for (unsigned t = 0; t < o->nthreads; t++)
            part[t] = 0.0;
        for (unsigned col = 0; col < 2; col++)
            for (unsigned t = 0; t < o->nthreads; t++) {
                uint64_t lo, hi;
                band(o, t, &lo, &hi);
                for (uint64_t i = lo; i < hi; i++) {
                    double rowsum = 0.0;
                    for (uint64_t j = first_col(i, col); j <= o->n; j += 2) {
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
    int rc = 0;
    uint64_t bad = 0, first = 0;
    for (uint64_t k = 0; k < m * m; k++)
        if (e->ops->peek(e, 0, o->grid + 8 * k) != bits(g[k]) && bad++ == 0)
            first = k;
    if (bad) {
        uint64_t got = e->ops->peek(e, 0, o->grid + 8 * first);
        rc = wl_errf(err, "ocean: grid[%llu][%llu] holds %.17g (0x%016llx), want %.17g (0x%016llx) after %llu "
                     "sweeps; %llu of %llu points differ", (unsigned long long)(first / m),
                     (unsigned long long)(first % m), dbl(got), (unsigned long long)got, g[first],
                     (unsigned long long)bits(g[first]), (unsigned long long)o->iters, (unsigned long long)bad,
                     (unsigned long long)(m * m));
    }
    for (uint64_t it = 0; rc == 0 && it < o->iters; it++) {
        uint64_t got = e->ops->peek(e, 0, o->resid + 8 * it);
        if (got != resid[it])
            rc = wl_errf(err, "ocean: the residual of sweep %llu is %.17g (0x%llx units of 2^-%d), want %.17g (0x%llx)",
                         (unsigned long long)it, ldexp((double)got, -RESID_SHIFT), (unsigned long long)got,
                         RESID_SHIFT, ldexp((double)resid[it], -RESID_SHIFT), (unsigned long long)resid[it]);
    }
    /* The barrier (csim/cn/wl_sync.c): two phases a sweep released; the last one's arrival mask holds
     * every thread, the other two were zeroed by the last two releases. */
    const uint64_t line = WL_BARRIER_BYTES / 4, phases = 2 * o->iters, last = phases - 1;
    const uint64_t group = o->nthreads >= 64 ? ~0ull : (1ull << o->nthreads) - 1;
    if (rc == 0 && e->ops->peek(e, 0, o->bar) != phases)
        rc = wl_errf(err, "ocean: the barrier released %llu phases, want %llu (two a sweep)",
                     (unsigned long long)e->ops->peek(e, 0, o->bar), (unsigned long long)phases);
    for (uint64_t k = 0; rc == 0 && k < 3; k++) {
        uint64_t got = e->ops->peek(e, 0, o->bar + line * (1 + k)), want = k == last % 3 ? group : 0;
        if (got != want)
            rc = wl_errf(err, "ocean: the barrier's arrival mask %llu is 0x%llx, want 0x%llx after its last phase",
                         (unsigned long long)k, (unsigned long long)got, (unsigned long long)want);
    }
    free(g), free(part), free(resid);
    return rc;
}

static void ocean_free(void *state)
{
    ocean_t *o = state;
    if (o)
        free(o->partial);
    free(o);
}

const workload_t wl_ocean_ncp = {
    .name = "ocean_ncp",
    .doc = "red-black SOR stencil over a shared grid, rows split among the threads, barriers between half-sweeps",
    .setup = ocean_setup,
    .thread = ocean_thread,
    .check = ocean_check,
    .free = ocean_free,
};

const workload_t wl_ocean_cp = {
    .name = "ocean_cp",
    .doc = "red-black SOR stencil over a shared grid, rows split among the threads, barriers between half-sweeps",
    .setup = ocean_setup,
    .thread = ocean_thread,
    .check = ocean_check,
    .free = ocean_free,
};
