/* fluid: a PARSEC fluidanimate-like exchange of quantities between neighbouring cells.
 *
 * Shared data (CXL memory): fluid_cells cells laid out as a 2-D grid (w = floor(sqrt(cells))
 * columns, the last row possibly partial), one 64-byte line each:
 *   word 0 lock, 1 mass, 2 momentum x, 3 momentum y, 4 update counter (5..7 unused).
 * The lock sits on its cell's line, as fluidanimate's per-cell mutexes do, so that a cell's data
 * moves with its lock. Mass is an integer (exact conservation); momenta are two's-complement.
 *
 * The cells are split into nthreads contiguous ranges (fluidanimate's spatial partitioning). Each
 * thread makes fluid_updates moves: it computes (the particle physics, wl_compute), picks a cell
 * of its range and one of that cell's 8 grid neighbours (seeded per thread; a neighbour may lie in
 * another thread's range: the contended border), locks the two in index order (no deadlock),
 * moves a share of the first cell's mass and some momentum to the second (amounts that depend on
 * the values read, so a lost update shows), bumps both counters, unlocks, and appends the move to
 * its log in its CN's local memory.
 *
 * check(): every cell equals its initial value plus the logged moves touching it (mass, momenta,
 * counter), total mass is conserved, the counters add up to two per move, and no lock is held. */
#include <stdlib.h>

#include "config.h"
#include "rng.h"
#include "workloads/workloads.h"

#define CELL_BYTES 64u
#define W_LOCK 0u
#define W_MASS 8u
#define W_PX 16u
#define W_PY 24u
#define W_UPD 32u
#define LOG_BYTES 32u       /* a move in the log: (a | b << 32, dm, dpx, dpy) */
#define PHYSICS_INSTRS 150u /* per move outside the locks: densities and forces of a particle */
#define MOVE_INSTRS 20u     /* inside the locks: the exchange's arithmetic */

typedef struct fluid {
    uint64_t ncells, w, updates;
    unsigned nthreads;
    uint64_t cells;  /* remote */
    uint64_t *log;   /* per thread: its log (local) */
    uint64_t *mass0; /* initial values (host copy, for check) */
    int64_t *px0, *py0;
} fluid_t;

static void fluid_free(void *state)
{
    fluid_t *f = state;
    if (!f)
        return;
    free(f->log);
    free(f->mass0);
    free(f->px0);
    free(f->py0);
    free(f);
}

static uint64_t cell(const fluid_t *f, uint64_t c, unsigned word) { return f->cells + CELL_BYTES * c + word; }

/* Cells [lo, hi) of thread tid; all cells when the thread's share is empty (more threads than
 * cells). */
static void range(const fluid_t *f, unsigned tid, uint64_t *lo, uint64_t *hi)
{
    *lo = tid * f->ncells / f->nthreads;
    *hi = (tid + 1) * f->ncells / f->nthreads;
    if (*lo == *hi)
        *lo = 0, *hi = f->ncells;
}

/* A random grid neighbour of cell a (one always exists: with w = floor(sqrt(cells)) < cells there
 * are at least two rows, all but the last full, so every cell has one above or below it). */
static uint64_t neighbour(const fluid_t *f, uint64_t a, rng_t *r)
{
    static const int8_t dr[8] = {-1, -1, -1, 0, 0, 1, 1, 1}, dc[8] = {-1, 0, 1, -1, 1, -1, 0, 1};
    int64_t row = (int64_t)(a / f->w), col = (int64_t)(a % f->w);
    for (;;) {
        unsigned d = (unsigned)rng_below(r, 8);
        int64_t nr = row + dr[d], nc = col + dc[d];
        if (nr < 0 || nc < 0 || nc >= (int64_t)f->w)
            continue;
        uint64_t b = (uint64_t)nr * f->w + (uint64_t)nc;
        if (b < f->ncells)
            return b;
    }
}

static int fluid_setup(wl_env_t *e, void **state, char *err)
{
    const sim_config_t *c = e->cfg;
    *state = NULL;
    uint64_t n = c->workload.fluid_cells;
    if (n < 2)
        return wl_errf(err, "fluid: %llu cell: a move needs a cell and a neighbour (workload.fluid_cells >= 2)",
                       (unsigned long long)n);
    fluid_t *f = calloc(1, sizeof *f);
    int rc = 0;
    if (!f || !(f->log = calloc(e->nthreads, sizeof *f->log)) || !(f->mass0 = malloc(n * sizeof *f->mass0)) ||
        !(f->px0 = malloc(n * sizeof *f->px0)) || !(f->py0 = malloc(n * sizeof *f->py0))) {
        rc = wl_errf(err, "fluid: out of host memory for %llu cells", (unsigned long long)n);
        goto out;
    }
    f->ncells = n;
    f->updates = c->workload.fluid_updates;
    f->nthreads = e->nthreads;
    for (f->w = 1; (f->w + 1) * (f->w + 1) <= n; f->w++)
        ;
    f->cells = e->ops->alloc_cxl(e, n * CELL_BYTES);
    if (f->cells == WL_ALLOC_FAIL) {
        rc = wl_errf(err, "fluid: %llu cells (%llu bytes) do not fit the CXL memory", (unsigned long long)n,
                     (unsigned long long)(n * CELL_BYTES));
        goto out;
    }
    for (unsigned t = 0; t < e->nthreads; t++) {
        f->log[t] = e->ops->alloc_local(e, e->thread_cn[t], f->updates * LOG_BYTES);
        if (f->log[t] == WL_ALLOC_FAIL) {
            rc = wl_errf(err, "fluid: thread %u's log of %llu moves (%llu bytes) does not fit CN %u's local memory",
                         t, (unsigned long long)f->updates, (unsigned long long)(f->updates * LOG_BYTES),
                         e->thread_cn[t]);
            goto out;
        }
    }
    rng_t r;
    rng_init_named(&r, e->seed, "fluid.cells");
    for (uint64_t k = 0; k < n; k++) {
        f->mass0[k] = 1000 + rng_below(&r, 1000);
        f->px0[k] = (int64_t)rng_below(&r, 101) - 50;
        f->py0[k] = (int64_t)rng_below(&r, 101) - 50;
        e->ops->poke(e, 0, cell(f, k, W_MASS), f->mass0[k]);
        e->ops->poke(e, 0, cell(f, k, W_PX), (uint64_t)f->px0[k]);
        e->ops->poke(e, 0, cell(f, k, W_PY), (uint64_t)f->py0[k]);
    }
out:
    if (rc)
        fluid_free(f);
    else
        *state = f;
    return rc;
}

static void fluid_thread(wl_thread_t *t, void *state)
{
    const fluid_t *f = state;
    rng_t r;
    rng_init_named(&r, t->seed, "fluid");
    uint64_t lo, hi;
    range(f, t->tid, &lo, &hi);
    const uint64_t log = f->log[t->tid];
    for (uint64_t k = 0; k < f->updates; k++) {
        wl_compute(t, PHYSICS_INSTRS);
        uint64_t a = lo + rng_below(&r, hi - lo), b = neighbour(f, a, &r);
        uint64_t share = rng_below(&r, 17); /* sixty-fourths of a's mass, 0 .. 25 % */
        int64_t kick_x = (int64_t)rng_below(&r, 21) - 10, kick_y = (int64_t)rng_below(&r, 21) - 10;
        uint64_t first = a < b ? a : b, second = a < b ? b : a;
        wl_lock(t, cell(f, first, W_LOCK));
        wl_lock(t, cell(f, second, W_LOCK));
        const uint64_t ad[8] = {cell(f, a, W_MASS), cell(f, b, W_MASS), cell(f, a, W_PX), cell(f, a, W_PY),
                                cell(f, b, W_PX),   cell(f, b, W_PY),   cell(f, a, W_UPD), cell(f, b, W_UPD)};
        uint64_t v[8];
        wl_ld_batch(t, ad, v, 8); /* both cells' fields: independent loads */
        uint64_t ma = v[0], mb = v[1];
        int64_t pax = (int64_t)v[2], pay = (int64_t)v[3], pbx = (int64_t)v[4], pby = (int64_t)v[5];
        /* The moved mass carries its share of a's momentum, plus a pressure kick. */
        uint64_t dm = ma * share / 64;
        int64_t dpx = ma ? pax * (int64_t)dm / (int64_t)ma + kick_x : kick_x;
        int64_t dpy = ma ? pay * (int64_t)dm / (int64_t)ma + kick_y : kick_y;
        wl_compute(t, MOVE_INSTRS);
        wl_st(t, cell(f, a, W_MASS), ma - dm);
        wl_st(t, cell(f, b, W_MASS), mb + dm);
        wl_st(t, cell(f, a, W_PX), (uint64_t)(pax - dpx));
        wl_st(t, cell(f, b, W_PX), (uint64_t)(pbx + dpx));
        wl_st(t, cell(f, a, W_PY), (uint64_t)(pay - dpy));
        wl_st(t, cell(f, b, W_PY), (uint64_t)(pby + dpy));
        wl_st(t, cell(f, a, W_UPD), v[6] + 1);
        wl_st(t, cell(f, b, W_UPD), v[7] + 1);
        wl_unlock(t, cell(f, second, W_LOCK));
        wl_unlock(t, cell(f, first, W_LOCK));
        uint64_t at = log + LOG_BYTES * k;
        wl_st(t, at, a | b << 32);
        wl_st(t, at + 8, dm);
        wl_st(t, at + 16, (uint64_t)dpx);
        wl_st(t, at + 24, (uint64_t)dpy);
    }
}

static int fluid_check(wl_env_t *e, void *state, char *err)
{
    const fluid_t *f = state;
    if (wl_env_lost(e))
        return 0; /* a lost thread's move may be half done and its log is lost with its CN's memory: the
                     exchange cannot be replayed (the oracle still judges every word) */
    const uint64_t n = f->ncells;
    uint64_t *mass = malloc(n * sizeof *mass), *px = malloc(n * sizeof *px), *py = malloc(n * sizeof *py);
    uint64_t *upd = calloc(n, sizeof *upd);
    int rc = 0;
    if (!mass || !px || !py || !upd) {
        rc = wl_errf(err, "fluid: check: out of host memory");
        goto out;
    }
    for (uint64_t k = 0; k < n; k++)
        mass[k] = f->mass0[k], px[k] = (uint64_t)f->px0[k], py[k] = (uint64_t)f->py0[k];
    /* Replay the logs: moves commute (additions), so their order does not matter. */
    for (unsigned t = 0; t < f->nthreads; t++) {
        unsigned cn = e->thread_cn[t];
        for (uint64_t k = 0; k < f->updates; k++) {
            uint64_t at = f->log[t] + LOG_BYTES * k, ab = e->ops->peek(e, cn, at);
            uint64_t a = ab & 0xffffffffu, b = ab >> 32;
            if (a >= n || b >= n || a == b) {
                rc = wl_errf(err, "fluid: thread %u's log entry %llu names cells %llu and %llu (%llu cells)", t,
                             (unsigned long long)k, (unsigned long long)a, (unsigned long long)b,
                             (unsigned long long)n);
                goto out;
            }
            uint64_t dm = e->ops->peek(e, cn, at + 8), dpx = e->ops->peek(e, cn, at + 16);
            uint64_t dpy = e->ops->peek(e, cn, at + 24);
            mass[a] -= dm, mass[b] += dm;
            px[a] -= dpx, px[b] += dpx;
            py[a] -= dpy, py[b] += dpy;
            upd[a]++, upd[b]++;
        }
    }
    uint64_t total0 = 0, total = 0, updates = 0;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t got[4] = {e->ops->peek(e, 0, cell(f, k, W_MASS)), e->ops->peek(e, 0, cell(f, k, W_PX)),
                           e->ops->peek(e, 0, cell(f, k, W_PY)), e->ops->peek(e, 0, cell(f, k, W_UPD))};
        uint64_t want[4] = {mass[k], px[k], py[k], upd[k]};
        static const char *const what[4] = {"mass", "momentum x", "momentum y", "update counter"};
        for (unsigned i = 0; i < 4 && rc == 0; i++)
            if (got[i] != want[i])
                rc = wl_errf(err, "fluid: cell %llu's %s is %lld, want %lld (initial + the %llu logged moves that "
                             "touch it)", (unsigned long long)k, what[i], (long long)got[i], (long long)want[i],
                             (unsigned long long)upd[k]);
        uint64_t lock = e->ops->peek(e, 0, cell(f, k, W_LOCK));
        if (rc == 0 && lock)
            rc = wl_errf(err, "fluid: cell %llu's lock is still held (0x%llx) after every thread ended",
                         (unsigned long long)k, (unsigned long long)lock);
        total0 += f->mass0[k], total += got[0], updates += got[3];
    }
    if (rc == 0 && total != total0)
        rc = wl_errf(err, "fluid: total mass is %llu, was %llu", (unsigned long long)total,
                     (unsigned long long)total0);
    if (rc == 0 && updates != 2 * f->updates * f->nthreads)
        rc = wl_errf(err, "fluid: the update counters add up to %llu, want %llu (2 per move)",
                     (unsigned long long)updates, (unsigned long long)(2 * f->updates * f->nthreads));
out:
    free(mass), free(px), free(py), free(upd);
    return rc;
}

const workload_t wl_fluid = {
    .name = "fluid",
    .doc = "lock-protected exchanges of mass and momentum between neighbouring shared cells (fluidanimate-like)",
    .setup = fluid_setup,
    .thread = fluid_thread,
    .check = fluid_check,
    .free = fluid_free,
};
