/* fluidanimate: PARSEC fluidanimate, smoothed particle hydrodynamics (SPH) of a fluid in a tank.
 *
 * Shared data (CXL memory): two grids of nx x ny x nz cells (PARSEC's cells and cells2, used in
 * turn: frame f reads grid f % 2 and rebuilds into the other), a barrier. A cell is 29 lines:
 *   line 0: word 0 the cell's lock, word 1 its particle count (words 2..7 unused);
 *   then, as PARSEC's struct Cell lays them out, arrays of CAP = 16 particles: positions p[16][3],
 *   half-step velocities hv[16][3], velocities v[16][3], accelerations a[16][3], densities d[16],
 *   and ids[16] (the particle's number, and above bit 32 the stamp of the frame that wrote the
 *   slot: f + 1 for frame f, 0 for setup). Values are doubles, except a and d while they are summed
 *   (below). Nothing is thread-private: the threads' scratch (neighbour lists, the fields of the
 *   neighbouring cells they gather) lives in their registers and L1, as in PARSEC.
 *
 * The fluid starts as a jittered lattice at the rest spacing (5 mm, h = 1.695 spacings: PARSEC's
 * kernel radius) filling a channel of lx x m x m points, m = floor(cbrt(particles / 8)), with
 * small random velocities; the cells are a little wider than h (so that a pair within h always
 * lies in neighbouring cells), and the tank is one cell taller than the fluid. The channel is
 * split along x into nthreads slabs of whole cell columns (PARSEC splits in x and z; slabs keep
 * the split simple; with more threads than columns some slabs are empty). A cell is a border cell
 * when a neighbour belongs to another thread's slab. Each frame runs PARSEC's phases, a barrier
 * after each:
 *   clear     the owner zeroes its cells' counts in the grid being built;
 *   rebuild   the owner of each old cell moves its particles into the new cells their positions
 *             fall in, reserving the slot by the count under the cell's lock when that cell is a
 *             border cell (or another thread's), then writing the particle, its density 0 and its
 *             acceleration gravity (PARSEC's InitDensitiesAndForces, folded in), the stamp last
 *             (so that a slot with the frame's stamp is whole). As in PARSEC, a particle moves
 *             less than a cell a frame (the time step keeps it so; the check would see a race):
 *             only its owner writes an interior cell. A particle finding its cell full (16) is
 *             dropped and counted (PARSEC 2's fixed cells; never with these inputs: the lattice
 *             starts at most 8 in a cell); the check then fails on the counts;
 *   densities for each particle, its neighbours in the 27 surrounding cells: each pair once (the
 *             particle at the higher address takes it, PARSEC's rule), and a pair within h adds
 *             its contribution to both particles' densities, under the cell's lock when the cell
 *             is a border cell;
 *   densities to final form (owner);
 *   forces    the same pairs: the pressure and viscosity acceleration added to one particle and
 *             taken from the other, under border cells' locks;
 *   collisions the walls' penalty accelerations (owner);
 *   advance   leapfrog integration of velocities and positions (owner).
 * A particle's fields are written one pair at a time, from many threads, spread over the phase:
 * the stores the paper finds waiting in the store buffer for a coalescing that never comes.
 *
 * The scattered sums (density, acceleration) are kept in fixed point (64-bit two's-complement
 * words, 2^-40 of h^6 for a density, 2^-32 m/s^2 for an acceleration): each pair's contribution is
 * rounded to fixed point on its own, and integer additions commute, so the result does not depend
 * on the interleaving; the densities phase converts the density to a double in place (PARSEC's
 * ComputeDensities2), and the advance reads the acceleration out of fixed point. A pair's
 * contribution is exactly antisymmetric, whichever of its particles takes it. Only the order of
 * the particles in a cell depends on the interleaving (the rebuild's race for slots).
 *
 * check(): recomputes the frames sequentially from the seed, particle by particle, and wants
 * every word bit for bit: each cell's count (the particles whose positions fall in it; they add up
 * to the particles: none lost or duplicated), each slot below the count holding one of those
 * particles (by its id, once) with all of its fields as of the last frame that wrote the grid, and
 * each slot above the count either never written or holding, whole and bit for bit, the particle
 * of the frame its stamp names, which lay in that cell then; every lock free; the barrier released
 * 7 phases a frame. After a CN failure the lost threads' slabs were not computed (their particles
 * drop out of the next grid) and a survivor's sums may hold garbage from them: the check then
 * wants every lock free or held by a lost thread, the barrier released, counts within the cells,
 * every particle of the last frame at most once in its grid, at most one half-written slot per
 * lost thread in the survivors' cells, and a grid no frame rebuilt still exactly as setup left it.
 * (The rebuild skips a slot below the count whose stamp is not the last frame's: one a lost thread
 * reserved and never finished; otherwise a survivor would copy its stale particle.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/rng.h"
#include "workloads/workloads.h"

/* The cell (words). */
#define CAP 16u /* particles a cell holds (PARSEC's Cell) */
#define W_LOCK 0u
#define W_COUNT 1u
#define F_P 8u
#define F_HV (F_P + 3 * CAP)
#define F_V (F_HV + 3 * CAP)
#define F_A (F_V + 3 * CAP)
#define F_D (F_A + 3 * CAP)
#define F_ID (F_D + CAP)
#define CELL_WORDS (F_ID + CAP) /* 232 words, 29 lines */
#define SLOT_WORDS 14u          /* a particle: p, hv, v, a (3 each), d, id */
#define PHASES 7u               /* barriers a frame */
#define NEIGH_MAX 27u
#define LOWER_MAX 14u /* neighbour cells at or below a cell's address: 13 and itself */

/* The physics (SI units; PARSEC's constants unless said). */
#define SPACING 0.005          /* rest spacing of the particles (m): 1 / restParticlesPerMeter */
#define KERNEL_MULT 1.695      /* h / spacing (kernelRadiusMultiplier) */
#define CELL_MARGIN (1.0 + 1.0 / 64.0) /* cell side / h */
#define REST_DENSITY2 2000.0   /* twice the rest density (doubleRestDensity, kg/m^3) */
#define STIFFNESS 1.5
#define VISCOSITY 0.4
#define GRAVITY (-9.8)
#define TIME_STEP 0.005        /* s */
#define PAR_SIZE 0.0002        /* the walls' reach (m) */
#define WALL_STIFFNESS 30000.0
#define WALL_DAMPING 128.0
#define WALL_EPS 1e-10
#define JITTER 0.05            /* of a spacing, each way */
#define LATTICE_OFFSET 0.04    /* of a spacing: the first layer inside the walls' reach */
#define SPEED0 0.05            /* initial velocity components within +-0.05 m/s */
#define D_SHIFT 40             /* fixed point: density sums in 2^-40 h^6 */
#define A_SHIFT 32             /* accelerations in 2^-32 m/s^2 */

/* Non-memory instructions (CPI 1) of the C++ loops, as compiled at -O3. */
#define CELL_INSTRS 12u     /* per cell a phase visits: the index arithmetic and loop */
#define NEIGH_INSTRS 4u     /* per neighbour cell listed: bounds and index */
#define CAND_INSTRS 9u      /* per candidate pair: 3 sub, 3 mul, 2 add, the compare */
#define DPAIR_INSTRS 8u     /* a density contribution: t^3, scaling, conversion */
#define FPAIR_INSTRS 44u    /* a force: sqrt, max, 2 div, ~20 mul/add, 3 conversions */
#define ADD_INSTRS 2u       /* per word added into a sum */
#define CELL_OF_INSTRS 20u  /* a position's cell: 3 mul, 3 conversions, 6 clamps, the index */
#define MOVE_INSTRS 10u     /* the rebuild's per-particle copy loop */
#define FINAL_INSTRS 6u     /* a density to final form */
#define WALL_INSTRS 30u     /* 3 predicted coordinates, 6 compares, the rare penalties */
#define ADVANCE_INSTRS 24u  /* 3 x (2 mul-add, add, mul), 3 conversions */

enum { S_PAIRS, S_LOCKED, S_DROPPED, S_TAKEOVERS, S_SKIPPED, S_WORDS };
static const char *const s_leaf[S_WORDS] = {"pairs", "locked_updates", "dropped", "takeovers", "skipped_slots"};
static const char *const s_doc[S_WORDS] = {
    "particle pairs within the smoothing length (each counted once a frame, in the densities phase)",
    "density and acceleration updates made under a border cell's lock",
    "particles the rebuild found no room for in their cell (must be 0)",
    "cell locks taken over from a thread lost with its CN",
    "slots the rebuild skipped: reserved by a lost thread, never written whole"};

/* A cell's neighbourhood as the pair phases see it: the neighbours' counts, and the fields of the
 * particles of the neighbours at or below the cell's address (the pairs it takes). */
typedef struct hood {
    uint64_t nb[NEIGH_MAX];
    unsigned nn, self, cnt[NEIGH_MAX];
    uint64_t f[LOWER_MAX][CAP * 7]; /* per lower neighbour: each particle's p (3), then v (3) and d */
} hood_t;

typedef struct fa {
    uint64_t n, frames;
    unsigned nthreads;
    unsigned nx, ny, nz; /* cells along x (the slab axis), y (up) and z */
    unsigned lx, m;      /* the initial lattice: lx x m x m points */
    uint64_t ncells;
    uint64_t seed;
    uint64_t grid[2], bar; /* remote */
    double h, hsq, w, lim[3], dcoef, pcoef, vcoef;
    uint64_t g_fixed;  /* gravity in fixed point */
    uint8_t *border;   /* per x: the cells of that column are border cells */
    struct hood *hood; /* per thread: its scratch (registers and L1) */
    uint64_t *stat[S_WORDS];
} fa_t;

/* A particle's state (the reference's, and setup's). */
typedef struct part {
    double p[3], hv[3], v[3], d;
    uint64_t a[3];
} part_t;

/* x in units of 2^-shift, rounded half away from zero (so that -x gives exactly the negation),
 * saturated at +-2^62; NaN gives 0 (only garbage after a failure makes one). */
static uint64_t to_fixed(double x, int shift)
{
    double y = ldexp(x, shift);
    if (!(y == y))
        return 0;
    y = y > 0x1p62 ? 0x1p62 : y < -0x1p62 ? -0x1p62 : y;
    return (uint64_t)llround(y);
}

static double from_fixed(uint64_t u, int shift) { return ldexp((double)(int64_t)u, -shift); }

/* ------------------------------------------------------------------------------------------------
 * The physics, shared by the threads and check() so that both round alike */

static double dist_sq(const double *a, const double *b)
{
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/* A pair's density contribution, (1 - r^2/h^2)^3 in 2^-40 units. */
static uint64_t dens_pair(const fa_t *s, double dsq)
{
    double t = 1.0 - dsq / s->hsq;
    return to_fixed(t * t * t, D_SHIFT);
}

/* The density from its sum: (sum + the particle itself) x the coefficient. */
static double dens_final(const fa_t *s, uint64_t sum) { return (from_fixed(sum, D_SHIFT) + 1.0) * s->dcoef; }

/* Particle i's acceleration from its pair with j (p, v, d: position, velocity, density); j's is
 * exactly its negation (every term changes sign with the swap, and rounding is symmetric). */
static void force_pair(const fa_t *s, const double *pi, const double *pj, const double *vi, const double *vj, double di,
                       double dj, double dsq, uint64_t *acc)
{
    double dist = sqrt(fmax(dsq, 1e-12)), hmr = s->h - dist;
    double sp = s->pcoef * (hmr * hmr / dist) * (di + dj - REST_DENSITY2), sv = s->vcoef * hmr, dd = di * dj;
    for (unsigned k = 0; k < 3; k++)
        acc[k] = to_fixed(((pi[k] - pj[k]) * sp + (vj[k] - vi[k]) * sv) / dd, A_SHIFT);
}

/* The walls' penalty accelerations, added to a (fixed point); true when one was. */
static bool wall(const fa_t *s, const double *p, const double *hv, const double *v, uint64_t *a)
{
    bool hit = false;
    for (unsigned k = 0; k < 3; k++) {
        double pos = p[k] + hv[k] * TIME_STEP, diff = PAR_SIZE - pos;
        if (diff > WALL_EPS)
            a[k] += to_fixed(WALL_STIFFNESS * diff - WALL_DAMPING * v[k], A_SHIFT), hit = true;
        diff = PAR_SIZE - (s->lim[k] - pos);
        if (diff > WALL_EPS)
            a[k] -= to_fixed(WALL_STIFFNESS * diff + WALL_DAMPING * v[k], A_SHIFT), hit = true;
    }
    return hit;
}

/* Leapfrog: p, hv and v advanced one step under a. */
static void advance(double *p, double *hv, double *v, const uint64_t *a)
{
    for (unsigned k = 0; k < 3; k++) {
        double vh = hv[k] + from_fixed(a[k], A_SHIFT) * TIME_STEP;
        p[k] += vh * TIME_STEP;
        v[k] = (hv[k] + vh) * 0.5;
        hv[k] = vh;
    }
}

/* The cell a position falls in (clamped into the grid, as PARSEC clamps); *x its column. */
static uint64_t cell_of(const fa_t *s, const double *p, unsigned *x)
{
    const unsigned n[3] = {s->nx, s->ny, s->nz};
    unsigned i[3];
    for (unsigned k = 0; k < 3; k++) {
        double q = p[k] / s->w;
        i[k] = q >= n[k] ? n[k] - 1 : q > 0 ? (unsigned)q : 0;
    }
    *x = i[0];
    return ((uint64_t)i[0] * s->ny + i[1]) * s->nz + i[2];
}

/* ------------------------------------------------------------------------------------------------
 * The grid */

static uint64_t cell_at(const fa_t *s, unsigned g, uint64_t c) { return s->grid[g] + 8 * CELL_WORDS * c; }
static uint64_t wd(uint64_t cell, unsigned word) { return cell + 8 * word; }

/* Cell columns [x0, x1) of thread tid's slab. */
static void slab(const fa_t *s, unsigned tid, unsigned *x0, unsigned *x1)
{
    *x0 = (unsigned)((uint64_t)tid * s->nx / s->nthreads);
    *x1 = (unsigned)((uint64_t)(tid + 1) * s->nx / s->nthreads);
}

/* The thread whose slab holds column x: the last one starting at or before it. */
static unsigned owner(const fa_t *s, unsigned x)
{
    return (unsigned)((((uint64_t)x + 1) * s->nthreads + s->nx - 1) / s->nx - 1);
}

/* The neighbours of cell (x, y, z) inside the grid, in address order, into nb; returns how many,
 * and *self the cell's own place among them. */
static unsigned neighbours(const fa_t *s, unsigned x, unsigned y, unsigned z, uint64_t *nb, unsigned *self)
{
    unsigned n = 0;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dz = -1; dz <= 1; dz++) {
                long i = (long)x + dx, j = (long)y + dy, k = (long)z + dz;
                if (i < 0 || j < 0 || k < 0 || i >= s->nx || j >= s->ny || k >= s->nz)
                    continue;
                if (dx == 0 && dy == 0 && dz == 0)
                    *self = n;
                nb[n++] = ((uint64_t)i * s->ny + (uint64_t)j) * s->nz + (uint64_t)k;
            }
    return n;
}

/* Particle i's initial state, and the stream that draws it (particles in order). */
static void initial(const fa_t *s, uint64_t i, rng_t *r, part_t *o)
{
    const uint64_t lat[3] = {i / ((uint64_t)s->m * s->m), i / s->m % s->m, i % s->m};
    memset(o, 0, sizeof *o);
    for (unsigned k = 0; k < 3; k++)
        o->p[k] = ((double)lat[k] + LATTICE_OFFSET + (2 * rng_unit(r) - 1) * JITTER) * SPACING;
    for (unsigned k = 0; k < 3; k++)
        o->hv[k] = o->v[k] = (2 * rng_unit(r) - 1) * SPEED0;
}

/* ------------------------------------------------------------------------------------------------
 * Setup */

static void fa_free(void *state)
{
    fa_t *s = state;
    if (s)
        free(s->border), free(s->hood);
    free(s);
}

/* The grid's shape and the coefficients from the particle count. */
static void shape(fa_t *s)
{
    unsigned m = 1;
    while ((uint64_t)(m + 1) * (m + 1) * (m + 1) * 8 <= s->n)
        m++;
    s->m = m;
    s->lx = (unsigned)((s->n + (uint64_t)m * m - 1) / ((uint64_t)m * m));
    s->h = KERNEL_MULT * SPACING;
    s->hsq = s->h * s->h;
    s->w = s->h * CELL_MARGIN;
    s->nx = (unsigned)(s->lx * SPACING / s->w) + 1;
    s->nz = (unsigned)(m * SPACING / s->w) + 1;
    s->ny = s->nz + 1;
    s->ncells = (uint64_t)s->nx * s->ny * s->nz;
    s->lim[0] = s->nx * s->w, s->lim[1] = s->ny * s->w, s->lim[2] = s->nz * s->w;
    const double pi = 3.14159265358979323846, h3 = s->h * s->h * s->h, h6 = h3 * h3;
    const double mass = 0.5 * REST_DENSITY2 * SPACING * SPACING * SPACING;
    s->dcoef = mass * 315.0 / (64.0 * pi * h3); /* 315 / (64 pi h^9), the sums being in h^6 */
    s->pcoef = 3.0 * 15.0 / (pi * h6) * 0.5 * STIFFNESS * mass;
    s->vcoef = VISCOSITY * 45.0 / (pi * h6) * mass;
    s->g_fixed = to_fixed(GRAVITY, A_SHIFT);
}

/* The initial particles into grid 0 (the stamp 0). */
static int place(wl_env_t *e, fa_t *s, char *err)
{
    uint8_t *cnt = calloc(s->ncells, 1);
    if (!cnt)
        return wl_errf(err, "fluidanimate: out of host memory for %llu cells", (unsigned long long)s->ncells);
    rng_t r;
    rng_init_named(&r, s->seed, "fluidanimate.particles");
    for (uint64_t i = 0; i < s->n; i++) {
        part_t q;
        unsigned x;
        initial(s, i, &r, &q);
        uint64_t c = cell_of(s, q.p, &x), cell = cell_at(s, 0, c), k = cnt[c]++;
        if (k >= CAP) { /* cannot happen: the lattice puts at most 2 x 2 x 2 points in a cell */
            free(cnt);
            return wl_errf(err, "fluidanimate: setup put more than %u particles in cell %llu", CAP,
                           (unsigned long long)c);
        }
        for (unsigned d = 0; d < 3; d++) {
            e->ops->poke(e, 0, wd(cell, F_P + 3 * (unsigned)k + d), wl_bits(q.p[d]));
            e->ops->poke(e, 0, wd(cell, F_HV + 3 * (unsigned)k + d), wl_bits(q.hv[d]));
            e->ops->poke(e, 0, wd(cell, F_V + 3 * (unsigned)k + d), wl_bits(q.v[d]));
        }
        e->ops->poke(e, 0, wd(cell, F_ID + (unsigned)k), i);
        e->ops->poke(e, 0, wd(cell, W_COUNT), k + 1);
    }
    free(cnt);
    return 0;
}

/* On failure the state is freed here: the caller frees it only after a successful setup. */
static int fa_setup(wl_env_t *e, void **state, char *err)
{
    const sim_config_t *c = e->cfg;
    *state = NULL;
    const uint64_t n = c->workload.fluidanimate_particles, frames = c->workload.fluidanimate_frames;
    if (n == 0 || n > UINT32_MAX)
        return wl_errf(err, "fluidanimate: %llu particles (workload.fluidanimate_particles): 1 to 2^32 - 1 work",
                       (unsigned long long)n);
    if (frames == 0 || frames >= UINT32_MAX)
        return wl_errf(err, "fluidanimate: %llu frames (workload.fluidanimate_frames): 1 to 2^32 - 2 work",
                       (unsigned long long)frames);
    fa_t *s = calloc(1, sizeof *s);
    int rc = 0;
    if (!s) {
        rc = wl_errf(err, "fluidanimate: out of host memory");
        goto out;
    }
    s->n = n;
    s->frames = frames;
    s->nthreads = e->nthreads;
    s->seed = e->seed;
    shape(s);
    const uint64_t bytes = s->ncells * CELL_WORDS * 8;
    if (!(s->border = calloc(s->nx, 1)) || !(s->hood = malloc(e->nthreads * sizeof *s->hood))) {
        rc = wl_errf(err, "fluidanimate: out of host memory for %u cell columns", s->nx);
        goto out;
    }
    for (unsigned x = 0; x < s->nx; x++)
        s->border[x] = (x > 0 && owner(s, x - 1) != owner(s, x)) || (x + 1 < s->nx && owner(s, x + 1) != owner(s, x));
    s->grid[0] = e->ops->alloc_cxl(e, bytes);
    s->grid[1] = e->ops->alloc_cxl(e, bytes);
    s->bar = e->ops->alloc_cxl(e, WL_BARRIER_BYTES);
    if (s->grid[0] == WL_ALLOC_FAIL || s->grid[1] == WL_ALLOC_FAIL || s->bar == WL_ALLOC_FAIL) {
        rc = wl_errf(err, "fluidanimate: two grids of %u x %u x %u cells (%llu bytes) for %llu particles "
                     "(workload.fluidanimate_particles) do not fit the CXL memory", s->nx, s->ny, s->nz,
                     (unsigned long long)(2 * bytes), (unsigned long long)n);
        goto out;
    }
    if (wl_counters(e, "fluidanimate", s_leaf, s_doc, S_WORDS, s->stat, err) || place(e, s, err))
        rc = -1;
out:
    if (rc)
        fa_free(s);
    else
        *state = s;
    return rc;
}

/* ------------------------------------------------------------------------------------------------
 * The threads */

/* Adds v[0..n) to the n words at a (a particle's density or acceleration) of the cell at cell,
 * under the cell's lock when it is a border cell. */
static void add_words(wl_thread_t *t, const fa_t *s, uint64_t cell, bool border, uint64_t a, const uint64_t *v,
                      unsigned n)
{
    uint64_t ad[3] = {a, a + 8, a + 16}, old[3];
    if (border) {
        *s->stat[S_TAKEOVERS] += wl_lock(t, wd(cell, W_LOCK));
        (*s->stat[S_LOCKED])++;
    }
    wl_ld_batch(t, ad, old, n);
    wl_compute(t, ADD_INSTRS * n);
    for (unsigned i = 0; i < n; i++)
        wl_st(t, a + 8 * i, old[i] + v[i]);
    if (border)
        wl_unlock(t, wd(cell, W_LOCK));
}

/* Loads n words of each of the cnt particles of the cell at cell, field i at word f[i] + width[i] k. */
static void gather(wl_thread_t *t, uint64_t cell, unsigned cnt, const unsigned *f, const unsigned *width, unsigned nf,
                   uint64_t *out)
{
    uint64_t a[CAP * SLOT_WORDS];
    unsigned n = 0;
    for (unsigned k = 0; k < cnt; k++)
        for (unsigned i = 0; i < nf; i++)
            for (unsigned d = 0; d < width[i]; d++)
                a[n++] = wd(cell, f[i] + width[i] * k + d);
    wl_ld_batch(t, a, out, n);
}

/* Clear: the counts of the slab's cells in grid g. */
static void clear(wl_thread_t *t, const fa_t *s, unsigned g, uint64_t c0, uint64_t c1)
{
    for (uint64_t c = c0; c < c1; c++) {
        wl_compute(t, 2);
        wl_st(t, wd(cell_at(s, g, c), W_COUNT), 0);
    }
}

/* Rebuild: one particle (p, hv, v, id: 10 words) into its cell of grid g under the stamp. */
static void move(wl_thread_t *t, const fa_t *s, unsigned g, const uint64_t *q, uint64_t stamp)
{
    double p[3] = {wl_dbl(q[0]), wl_dbl(q[1]), wl_dbl(q[2])};
    unsigned x;
    const uint64_t cell = cell_at(s, g, cell_of(s, p, &x));
    const bool lock = s->border[x] || owner(s, x) != t->tid;
    wl_compute(t, CELL_OF_INSTRS + MOVE_INSTRS);
    if (lock)
        *s->stat[S_TAKEOVERS] += wl_lock(t, wd(cell, W_LOCK));
    uint64_t k = wl_ld(t, wd(cell, W_COUNT));
    if (k < CAP)
        wl_st(t, wd(cell, W_COUNT), k + 1);
    if (lock)
        wl_unlock(t, wd(cell, W_LOCK));
    if (k >= CAP) {
        (*s->stat[S_DROPPED])++;
        return;
    }
    const unsigned j = (unsigned)k;
    for (unsigned d = 0; d < 3; d++)
        wl_st(t, wd(cell, F_P + 3 * j + d), q[d]);
    for (unsigned d = 0; d < 3; d++)
        wl_st(t, wd(cell, F_HV + 3 * j + d), q[3 + d]);
    for (unsigned d = 0; d < 3; d++)
        wl_st(t, wd(cell, F_V + 3 * j + d), q[6 + d]);
    wl_st(t, wd(cell, F_D + j), 0);
    for (unsigned d = 0; d < 3; d++)
        wl_st(t, wd(cell, F_A + 3 * j + d), d == 1 ? s->g_fixed : 0);
    wl_st(t, wd(cell, F_ID + j), (q[9] & 0xffffffffu) | stamp << 32); /* last: the slot is whole */
}

static void rebuild(wl_thread_t *t, const fa_t *s, unsigned from, uint64_t c0, uint64_t c1, uint64_t stamp)
{
    static const unsigned f[4] = {F_P, F_HV, F_V, F_ID}, width[4] = {3, 3, 3, 1};
    for (uint64_t c = c0; c < c1; c++) {
        const uint64_t cell = cell_at(s, from, c);
        wl_compute(t, CELL_INSTRS);
        uint64_t np = wl_ld(t, wd(cell, W_COUNT)), q[CAP * 10];
        np = np < CAP ? np : CAP;
        if (np == 0)
            continue;
        gather(t, cell, (unsigned)np, f, width, 4, q);
        /* gather lays each particle's 10 words out in turn: p, hv, v, id. A slot whose stamp is
         * not the last frame's was reserved by a thread lost with its CN before it wrote the slot
         * whole (never without a failure): skipped. */
        for (unsigned k = 0; k < np; k++)
            if (q[10 * k + 9] >> 32 == stamp - 1)
                move(t, s, 1 - from, q + 10 * k, stamp);
            else
                (*s->stat[S_SKIPPED])++;
    }
}


/* Lists cell c's neighbours and their counts (PARSEC's InitNeighCellList), then loads the fields
 * (width words a particle: 3 = p, 7 = p, v, d) of the lower ones; false when c is empty. */
static bool load_hood(wl_thread_t *t, const fa_t *s, unsigned g, uint64_t c, unsigned width, hood_t *hd)
{
    const unsigned z = (unsigned)(c % s->nz), y = (unsigned)(c / s->nz % s->ny), x = (unsigned)(c / s->nz / s->ny);
    hd->nn = neighbours(s, x, y, z, hd->nb, &hd->self);
    uint64_t a[NEIGH_MAX], v[NEIGH_MAX];
    for (unsigned i = 0; i < hd->nn; i++)
        a[i] = wd(cell_at(s, g, hd->nb[i]), W_COUNT);
    wl_compute(t, CELL_INSTRS + NEIGH_INSTRS * hd->nn);
    wl_ld_batch(t, a, v, hd->nn);
    for (unsigned i = 0; i < hd->nn; i++)
        hd->cnt[i] = v[i] < CAP ? (unsigned)v[i] : CAP;
    if (hd->cnt[hd->self] == 0)
        return false;
    static const unsigned f[3] = {F_P, F_V, F_D}, w3[3] = {3, 3, 1};
    for (unsigned i = 0; i <= hd->self; i++)
        if (hd->cnt[i])
            gather(t, cell_at(s, g, hd->nb[i]), hd->cnt[i], f, w3, width == 3 ? 1 : 3, hd->f[i]);
    return true;
}

static unsigned column(const fa_t *s, uint64_t c) { return (unsigned)(c / s->nz / s->ny); }

/* Densities: every pair this cell takes, its contribution added to both particles. */
static void densities(wl_thread_t *t, const fa_t *s, unsigned g, uint64_t c, hood_t *hd)
{
    if (!load_hood(t, s, g, c, 3, hd))
        return;
    const uint64_t cell = cell_at(s, g, c);
    const bool bc = s->border[column(s, c)];
    for (unsigned j = 0; j < hd->cnt[hd->self]; j++) {
        const double pj[3] = {wl_dbl(hd->f[hd->self][3 * j]), wl_dbl(hd->f[hd->self][3 * j + 1]),
                              wl_dbl(hd->f[hd->self][3 * j + 2])};
        for (unsigned i = 0; i <= hd->self; i++) {
            const unsigned kmax = i == hd->self ? j : hd->cnt[i];
            wl_compute(t, CAND_INSTRS * kmax);
            for (unsigned k = 0; k < kmax; k++) {
                const double pk[3] = {wl_dbl(hd->f[i][3 * k]), wl_dbl(hd->f[i][3 * k + 1]),
                                      wl_dbl(hd->f[i][3 * k + 2])};
                const double dsq = dist_sq(pj, pk);
                if (!(dsq < s->hsq))
                    continue;
                const uint64_t dp = dens_pair(s, dsq), nc = cell_at(s, g, hd->nb[i]);
                wl_compute(t, DPAIR_INSTRS);
                (*s->stat[S_PAIRS])++;
                add_words(t, s, cell, bc, wd(cell, F_D + j), &dp, 1);
                add_words(t, s, nc, s->border[column(s, hd->nb[i])], wd(nc, F_D + k), &dp, 1);
            }
        }
    }
}

/* Forces: the same pairs, the acceleration added to one particle and taken from the other. */
static void forces(wl_thread_t *t, const fa_t *s, unsigned g, uint64_t c, hood_t *hd)
{
    if (!load_hood(t, s, g, c, 7, hd))
        return;
    const uint64_t cell = cell_at(s, g, c);
    const bool bc = s->border[column(s, c)];
    const uint64_t *own = hd->f[hd->self];
    for (unsigned j = 0; j < hd->cnt[hd->self]; j++) {
        const uint64_t *qj = own + 7 * j;
        const double pj[3] = {wl_dbl(qj[0]), wl_dbl(qj[1]), wl_dbl(qj[2])};
        const double vj[3] = {wl_dbl(qj[3]), wl_dbl(qj[4]), wl_dbl(qj[5])};
        for (unsigned i = 0; i <= hd->self; i++) {
            const unsigned kmax = i == hd->self ? j : hd->cnt[i];
            wl_compute(t, CAND_INSTRS * kmax);
            for (unsigned k = 0; k < kmax; k++) {
                const uint64_t *qk = hd->f[i] + 7 * k;
                const double pk[3] = {wl_dbl(qk[0]), wl_dbl(qk[1]), wl_dbl(qk[2])};
                const double dsq = dist_sq(pj, pk);
                if (!(dsq < s->hsq))
                    continue;
                const double vk[3] = {wl_dbl(qk[3]), wl_dbl(qk[4]), wl_dbl(qk[5])};
                uint64_t acc[3], neg[3];
                force_pair(s, pj, pk, vj, vk, wl_dbl(qj[6]), wl_dbl(qk[6]), dsq, acc);
                for (unsigned d = 0; d < 3; d++)
                    neg[d] = -acc[d];
                wl_compute(t, FPAIR_INSTRS);
                const uint64_t nc = cell_at(s, g, hd->nb[i]);
                add_words(t, s, cell, bc, wd(cell, F_A + 3 * j), acc, 3);
                add_words(t, s, nc, s->border[column(s, hd->nb[i])], wd(nc, F_A + 3 * k), neg, 3);
            }
        }
    }
}

/* The count of the slab's cell c in grid g (at most CAP). */
static unsigned count(wl_thread_t *t, const fa_t *s, unsigned g, uint64_t c)
{
    wl_compute(t, CELL_INSTRS);
    uint64_t np = wl_ld(t, wd(cell_at(s, g, c), W_COUNT));
    return np < CAP ? (unsigned)np : CAP;
}

/* Densities to final form. */
static void densities_final(wl_thread_t *t, const fa_t *s, unsigned g, uint64_t c)
{
    static const unsigned f[1] = {F_D}, w1[1] = {1};
    const uint64_t cell = cell_at(s, g, c);
    const unsigned np = count(t, s, g, c);
    uint64_t v[CAP];
    if (np == 0)
        return;
    gather(t, cell, np, f, w1, 1, v);
    for (unsigned j = 0; j < np; j++) {
        wl_compute(t, FINAL_INSTRS);
        wl_st(t, wd(cell, F_D + j), wl_bits(dens_final(s, v[j])));
    }
}

/* The motion of cell c's particles (positions, half-step velocities, velocities, accelerations:
 * one batch of the particles' lines) into q, 12 words a particle; returns how many particles. */
static unsigned load_motion(wl_thread_t *t, const fa_t *s, unsigned g, uint64_t c, uint64_t q[CAP * 12])
{
    static const unsigned f[4] = {F_P, F_HV, F_V, F_A}, w4[4] = {3, 3, 3, 3};
    const unsigned np = count(t, s, g, c);
    if (np)
        gather(t, cell_at(s, g, c), np, f, w4, 4, q);
    return np;
}

/* A particle's position, half-step velocity and velocity from its 12 words of load_motion. */
static void motion_of(const uint64_t *r, double p[3], double hv[3], double v[3])
{
    for (unsigned d = 0; d < 3; d++)
        p[d] = wl_dbl(r[d]), hv[d] = wl_dbl(r[3 + d]), v[d] = wl_dbl(r[6 + d]);
}

/* Collisions with the walls: only the acceleration components that change are written. */
static void collisions(wl_thread_t *t, const fa_t *s, unsigned g, uint64_t c)
{
    const uint64_t cell = cell_at(s, g, c);
    uint64_t q[CAP * 12];
    const unsigned np = load_motion(t, s, g, c, q);
    for (unsigned j = 0; j < np; j++) {
        const uint64_t *r = q + 12 * j;
        double p[3], hv[3], v[3];
        uint64_t a[3] = {r[9], r[10], r[11]};
        motion_of(r, p, hv, v);
        wl_compute(t, WALL_INSTRS);
        if (wall(s, p, hv, v, a))
            for (unsigned d = 0; d < 3; d++)
                if (a[d] != r[9 + d])
                    wl_st(t, wd(cell, F_A + 3 * j + d), a[d]);
    }
}

/* Advance: positions, velocities and half-step velocities (stored in that order, as PARSEC does). */
static void advance_cell(wl_thread_t *t, const fa_t *s, unsigned g, uint64_t c)
{
    const uint64_t cell = cell_at(s, g, c);
    uint64_t q[CAP * 12];
    /* v is loaded with the rest (one batch of the particle's lines), though only written */
    const unsigned np = load_motion(t, s, g, c, q);
    for (unsigned j = 0; j < np; j++) {
        const uint64_t *r = q + 12 * j;
        double p[3], hv[3], v[3];
        motion_of(r, p, hv, v);
        advance(p, hv, v, r + 9);
        wl_compute(t, ADVANCE_INSTRS);
        for (unsigned d = 0; d < 3; d++)
            wl_st(t, wd(cell, F_P + 3 * j + d), wl_bits(p[d]));
        for (unsigned d = 0; d < 3; d++)
            wl_st(t, wd(cell, F_V + 3 * j + d), wl_bits(v[d]));
        for (unsigned d = 0; d < 3; d++)
            wl_st(t, wd(cell, F_HV + 3 * j + d), wl_bits(hv[d]));
    }
}

static void fa_thread(wl_thread_t *t, void *state)
{
    const fa_t *s = state;
    unsigned x0, x1, phase = 0;
    slab(s, t->tid, &x0, &x1);
    const uint64_t col = (uint64_t)s->ny * s->nz, c0 = x0 * col, c1 = x1 * col;
    hood_t *hd = &s->hood[t->tid];
    for (uint64_t f = 0; f < s->frames; f++) {
        const unsigned from = (unsigned)(f & 1), g = 1 - from;
        clear(t, s, g, c0, c1);
        wl_barrier(t, s->bar, s->nthreads, &phase);
        rebuild(t, s, from, c0, c1, f + 1);
        wl_barrier(t, s->bar, s->nthreads, &phase);
        for (uint64_t c = c0; c < c1; c++)
            densities(t, s, g, c, hd);
        wl_barrier(t, s->bar, s->nthreads, &phase);
        for (uint64_t c = c0; c < c1; c++)
            densities_final(t, s, g, c);
        wl_barrier(t, s->bar, s->nthreads, &phase);
        for (uint64_t c = c0; c < c1; c++)
            forces(t, s, g, c, hd);
        wl_barrier(t, s->bar, s->nthreads, &phase);
        for (uint64_t c = c0; c < c1; c++)
            collisions(t, s, g, c);
        wl_barrier(t, s->bar, s->nthreads, &phase);
        for (uint64_t c = c0; c < c1; c++)
            advance_cell(t, s, g, c);
        wl_barrier(t, s->bar, s->nthreads, &phase);
    }
}

/* ------------------------------------------------------------------------------------------------
 * The check */

/* A slot of the final memory: grid g, cell c, slot k, its particle and stamp, below the count. */
typedef struct rec {
    uint64_t c;
    uint32_t g, k, id, stamp;
    bool live;
} rec_t;

/* The reference: the particles' states, and the bins of the frame (cells of the positions at its
 * start): order[] the particles cell by cell, each cell's run at start[c], cnt[c] long. */
typedef struct ref {
    part_t *p;
    uint64_t *cell, *order, *start, *dsum;
    uint32_t *cnt, *mark;
} ref_t;

static const char *const slot_field[SLOT_WORDS] = {"p.x",  "p.y",  "p.z",  "hv.x", "hv.y",    "hv.z", "v.x",
                                                   "v.y",  "v.z",  "a.x",  "a.y",     "a.z",  "density", "id"};

/* The grid's latest stamp: the last frame that rebuilt it + 1 (0: setup, when none did). */
static uint64_t latest(const fa_t *s, unsigned g) { return s->frames % 2 == g ? s->frames : s->frames - 1; }

static const uint64_t *cell_words(uint64_t *const *mem, unsigned g, uint64_t c)
{
    return mem[g] + CELL_WORDS * c;
}

/* Slot k's 14 words, in the order of slot_field. */
static void slot_words(const uint64_t *cw, unsigned k, uint64_t *w)
{
    for (unsigned d = 0; d < 3; d++) {
        w[d] = cw[F_P + 3 * k + d];
        w[3 + d] = cw[F_HV + 3 * k + d];
        w[6 + d] = cw[F_V + 3 * k + d];
        w[9 + d] = cw[F_A + 3 * k + d];
    }
    w[12] = cw[F_D + k];
    w[13] = cw[F_ID + k];
}

/* What a slot holding particle id of stamp st holds (setup leaves the density and acceleration 0). */
static void want_words(const part_t *q, uint64_t id, uint64_t st, uint64_t *w)
{
    for (unsigned d = 0; d < 3; d++) {
        w[d] = wl_bits(q->p[d]);
        w[3 + d] = wl_bits(q->hv[d]);
        w[6 + d] = wl_bits(q->v[d]);
        w[9 + d] = st ? q->a[d] : 0;
    }
    w[12] = st ? wl_bits(q->d) : 0;
    w[13] = id | st << 32;
}

static int read_grids(wl_env_t *e, const fa_t *s, uint64_t **mem, char *err)
{
    const uint64_t words = s->ncells * CELL_WORDS;
    for (unsigned g = 0; g < 2; g++) {
        if (!(mem[g] = malloc(words * sizeof *mem[g])))
            return wl_errf(err, "fluidanimate: check: out of host memory");
        for (uint64_t i = 0; i < words; i++)
            mem[g][i] = e->ops->peek(e, 0, s->grid[g] + 8 * i);
    }
    return 0;
}

/* Locks free (or, after a failure, held by a lost thread), counts within the cells. */
static int check_cells(wl_env_t *e, const fa_t *s, uint64_t *const *mem, char *err)
{
    for (unsigned g = 0; g < 2; g++)
        for (uint64_t c = 0; c < s->ncells; c++) {
            const uint64_t *cw = cell_words(mem, g, c), lock = cw[W_LOCK];
            if (lock && (lock > s->nthreads || wl_env_alive(e, (unsigned)(lock - 1))))
                return wl_errf(err, "fluidanimate: grid %u cell %llu's lock is still held (0x%llx) after every thread "
                               "ended", g, (unsigned long long)c, (unsigned long long)lock);
            if (cw[W_COUNT] > CAP)
                return wl_errf(err, "fluidanimate: grid %u cell %llu's count is %llu, more than a cell holds (%u)", g,
                               (unsigned long long)c, (unsigned long long)cw[W_COUNT], CAP);
        }
    return 0;
}

/* The barrier released PHASES phases a frame; without a loss, the last one's arrival mask holds
 * every thread and the other two were zeroed. */
static int check_barrier(wl_env_t *e, const fa_t *s, char *err)
{
    char why[32];
    snprintf(why, sizeof why, " (%u a frame)", PHASES);
    return wl_barrier_check(e, "fluidanimate", s->bar, s->nthreads, PHASES * s->frames, why, !wl_env_lost(e), err);
}

static int rec_cmp(const void *a, const void *b)
{
    const rec_t *x = a, *y = b;
    if (x->stamp != y->stamp)
        return x->stamp < y->stamp ? -1 : 1;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* The written slots of grid g into r (*n of them): below the count, a particle of the grid's
 * latest stamp; above it, never written (all 0) or a particle of an earlier frame of the grid. */
static int collect(const fa_t *s, uint64_t *const *mem, unsigned g, rec_t *r, uint64_t *n, char *err)
{
    const uint64_t last = latest(s, g);
    for (uint64_t c = 0; c < s->ncells; c++) {
        const uint64_t *cw = cell_words(mem, g, c);
        for (unsigned k = 0; k < CAP; k++) {
            uint64_t w[SLOT_WORDS], any = 0;
            slot_words(cw, k, w);
            for (unsigned i = 0; i < SLOT_WORDS; i++)
                any |= w[i];
            const bool live = k < cw[W_COUNT];
            if (!live && !any)
                continue;
            const uint64_t id = w[13] & 0xffffffffu, st = w[13] >> 32;
            if (live ? st != last : st % 2 != g || st >= last)
                return wl_errf(err, "fluidanimate: grid %u cell %llu slot %u (%s its count %llu) holds stamp %llu, "
                               "want %s%llu", g, (unsigned long long)c, k, live ? "below" : "above",
                               (unsigned long long)cw[W_COUNT], (unsigned long long)st,
                               live ? "" : "an earlier frame's of the grid's parity, below ", (unsigned long long)last);
            if (id >= s->n)
                return wl_errf(err, "fluidanimate: grid %u cell %llu slot %u holds particle %llu of %llu", g,
                               (unsigned long long)c, k, (unsigned long long)id, (unsigned long long)s->n);
            r[(*n)++] = (rec_t){c, g, k, (uint32_t)id, (uint32_t)st, live};
        }
    }
    return 0;
}

static void ref_free(ref_t *f)
{
    free(f->p), free(f->cell), free(f->order), free(f->start), free(f->dsum), free(f->cnt), free(f->mark);
}

static int ref_init(const fa_t *s, ref_t *f, char *err)
{
    memset(f, 0, sizeof *f);
    f->p = malloc(s->n * sizeof *f->p);
    f->cell = malloc(s->n * sizeof *f->cell);
    f->order = malloc(s->n * sizeof *f->order);
    f->start = malloc(s->ncells * sizeof *f->start);
    f->dsum = malloc(s->n * sizeof *f->dsum);
    f->cnt = malloc(s->ncells * sizeof *f->cnt);
    f->mark = calloc(s->n, sizeof *f->mark);
    if (!f->p || !f->cell || !f->order || !f->start || !f->dsum || !f->cnt || !f->mark) {
        ref_free(f);
        return wl_errf(err, "fluidanimate: check: out of host memory for %llu particles", (unsigned long long)s->n);
    }
    rng_t r;
    rng_init_named(&r, s->seed, "fluidanimate.particles");
    for (uint64_t i = 0; i < s->n; i++)
        initial(s, i, &r, &f->p[i]);
    return 0;
}

/* The bins of frame fr from the positions now (a counting sort, particles in id order in a cell). */
static int ref_bin(const fa_t *s, ref_t *f, uint64_t fr, char *err)
{
    memset(f->cnt, 0, s->ncells * sizeof *f->cnt);
    for (uint64_t i = 0; i < s->n; i++) {
        unsigned x;
        f->cell[i] = cell_of(s, f->p[i].p, &x);
        if (++f->cnt[f->cell[i]] > CAP)
            return wl_errf(err, "fluidanimate: frame %llu puts more than %u particles in cell %llu (the reference's "
                           "bins; the grid holds %u a cell)", (unsigned long long)fr, CAP,
                           (unsigned long long)f->cell[i], CAP);
    }
    for (uint64_t c = 0, at = 0; c < s->ncells; c++)
        f->start[c] = at, at += f->cnt[c];
    for (uint64_t c = 0; c < s->ncells; c++)
        f->cnt[c] = 0;
    for (uint64_t i = 0; i < s->n; i++)
        f->order[f->start[f->cell[i]] + f->cnt[f->cell[i]]++] = i;
    return 0;
}

/* Every pair within h once (the later of the two in the bins' order takes it): densities (forces
 * false) or accelerations. */
static void ref_pairs(const fa_t *s, ref_t *f, bool forces)
{
    for (uint64_t q = 0; q < s->n; q++) {
        const uint64_t i = f->order[q], c = f->cell[i];
        uint64_t nb[NEIGH_MAX];
        unsigned self;
        neighbours(s, (unsigned)(c / s->nz / s->ny), (unsigned)(c / s->nz % s->ny), (unsigned)(c % s->nz), nb, &self);
        part_t *pi = &f->p[i];
        for (unsigned b = 0; b <= self; b++)
            for (uint64_t r = f->start[nb[b]]; r < f->start[nb[b]] + f->cnt[nb[b]] && r < q; r++) {
                part_t *pj = &f->p[f->order[r]];
                const double dsq = dist_sq(pi->p, pj->p);
                if (!(dsq < s->hsq))
                    continue;
                if (!forces) {
                    const uint64_t dp = dens_pair(s, dsq);
                    f->dsum[i] += dp, f->dsum[f->order[r]] += dp;
                    continue;
                }
                uint64_t acc[3];
                force_pair(s, pi->p, pj->p, pi->v, pj->v, pi->d, pj->d, dsq, acc);
                for (unsigned d = 0; d < 3; d++)
                    pi->a[d] += acc[d], pj->a[d] -= acc[d];
            }
    }
}

/* One frame, sequentially, on the binned particles. */
static void ref_frame(const fa_t *s, ref_t *f)
{
    for (uint64_t i = 0; i < s->n; i++) {
        f->dsum[i] = 0;
        f->p[i].a[0] = 0, f->p[i].a[1] = s->g_fixed, f->p[i].a[2] = 0;
    }
    ref_pairs(s, f, false);
    for (uint64_t i = 0; i < s->n; i++)
        f->p[i].d = dens_final(s, f->dsum[i]);
    ref_pairs(s, f, true);
    for (uint64_t i = 0; i < s->n; i++) {
        part_t *q = &f->p[i];
        wall(s, q->p, q->hv, q->v, q->a);
        advance(q->p, q->hv, q->v, q->a);
    }
}

/* The records of stamp st (from *at on) against the reference now; when st is a grid's latest,
 * that grid's counts against the bins. */
static int compare(const fa_t *s, uint64_t *const *mem, ref_t *f, const rec_t *r, uint64_t nr, uint64_t *at,
                   uint64_t st, unsigned gmask, char *err)
{
    for (; *at < nr && r[*at].stamp == st; (*at)++) {
        const rec_t *x = &r[*at];
        uint64_t got[SLOT_WORDS], want[SLOT_WORDS];
        if (f->mark[x->id] == st + 1)
            return wl_errf(err, "fluidanimate: particle %u of stamp %llu is in grid %u twice (cell %llu slot %u the "
                           "second)", x->id, (unsigned long long)st, x->g, (unsigned long long)x->c, x->k);
        f->mark[x->id] = (uint32_t)st + 1;
        if (f->cell[x->id] != x->c)
            return wl_errf(err, "fluidanimate: grid %u cell %llu slot %u holds particle %u of stamp %llu, whose "
                           "position put it in cell %llu", x->g, (unsigned long long)x->c, x->k, x->id,
                           (unsigned long long)st, (unsigned long long)f->cell[x->id]);
        slot_words(cell_words(mem, x->g, x->c), x->k, got);
        want_words(&f->p[x->id], x->id, st, want);
        for (unsigned i = 0; i < SLOT_WORDS; i++) {
            if (got[i] == want[i])
                continue;
            /* the accelerations are fixed point, the id an integer, the rest doubles */
            char g_s[40], w_s[40];
            if (i >= 9 && i != 12) {
                snprintf(g_s, sizeof g_s, "%lld", (long long)got[i]);
                snprintf(w_s, sizeof w_s, "%lld", (long long)want[i]);
            } else {
                snprintf(g_s, sizeof g_s, "%.17g", wl_dbl(got[i]));
                snprintf(w_s, sizeof w_s, "%.17g", wl_dbl(want[i]));
            }
            return wl_errf(err, "fluidanimate: grid %u cell %llu slot %u (particle %u, stamp %llu): %s is %s (0x%016llx), "
                           "want %s (0x%016llx)", x->g, (unsigned long long)x->c, x->k, x->id, (unsigned long long)st,
                           slot_field[i], g_s, (unsigned long long)got[i], w_s, (unsigned long long)want[i]);
        }
    }
    for (unsigned g = 0; g < 2; g++)
        if ((gmask >> g & 1) && latest(s, g) == st)
            for (uint64_t c = 0; c < s->ncells; c++)
                if (cell_words(mem, g, c)[W_COUNT] != f->cnt[c])
                    return wl_errf(err, "fluidanimate: grid %u cell %llu holds %llu particles, want %u (those whose "
                                   "positions fall in it, stamp %llu)", g, (unsigned long long)c,
                                   (unsigned long long)cell_words(mem, g, c)[W_COUNT], f->cnt[c],
                                   (unsigned long long)st);
    return 0;
}

/* Grids gmask bit for bit against the reference run through frames [0, upto). */
static int exact(const fa_t *s, uint64_t *const *mem, unsigned gmask, uint64_t upto, char *err)
{
    rec_t *r = malloc(2 * s->ncells * CAP * sizeof *r);
    ref_t f;
    uint64_t nr = 0, at = 0;
    int rc = -1;
    if (!r) {
        wl_errf(err, "fluidanimate: check: out of host memory");
        return -1;
    }
    for (unsigned g = 0; g < 2; g++)
        if ((gmask >> g & 1) && collect(s, mem, g, r, &nr, err))
            goto out;
    qsort(r, nr, sizeof *r, rec_cmp);
    if (ref_init(s, &f, err))
        goto out;
    for (uint64_t fr = 0; fr < (upto ? upto : 1); fr++) {
        if (ref_bin(s, &f, fr, err) || (fr == 0 && compare(s, mem, &f, r, nr, &at, 0, gmask, err)))
            goto out_ref;
        if (upto == 0)
            break;
        ref_frame(s, &f);
        if (compare(s, mem, &f, r, nr, &at, fr + 1, gmask, err))
            goto out_ref;
    }
    rc = 0;
out_ref:
    ref_free(&f);
out:
    free(r);
    return rc;
}

/* After a failure: the last frame's particles at most once a grid, and in the survivors' cells at
 * most one slot a lost thread reserved but never finished. */
static int after_failure(wl_env_t *e, const fa_t *s, uint64_t *const *mem, char *err)
{
    uint32_t *mark = calloc(s->n, sizeof *mark);
    uint64_t half = 0;
    if (!mark)
        return wl_errf(err, "fluidanimate: check: out of host memory");
    for (unsigned g = 0; g < 2; g++)
        for (uint64_t c = 0; c < s->ncells; c++) {
            const uint64_t *cw = cell_words(mem, g, c);
            const bool kept = wl_env_alive(e, owner(s, column(s, c)));
            for (unsigned k = 0; k < cw[W_COUNT]; k++) {
                const uint64_t id = cw[F_ID + k] & 0xffffffffu, st = cw[F_ID + k] >> 32;
                if (st != latest(s, g)) {
                    half += kept;
                    continue;
                }
                if (id >= s->n || mark[id] == g + 1) {
                    free(mark);
                    return wl_errf(err, "fluidanimate: grid %u cell %llu slot %u holds particle %llu, %s", g,
                                   (unsigned long long)c, k, (unsigned long long)id,
                                   id >= s->n ? "no particle's number" : "which the grid holds twice");
                }
                mark[id] = g + 1;
            }
        }
    free(mark);
    if (half > wl_env_lost(e))
        return wl_errf(err, "fluidanimate: %llu slots of the survivors' cells are reserved but not written, more than "
                       "the %u lost threads can have left", (unsigned long long)half, wl_env_lost(e));
    /* with one frame, nobody rebuilt grid 0: it is setup's */
    return s->frames == 1 ? exact(s, mem, 1u, 0, err) : 0;
}

static int fa_check(wl_env_t *e, void *state, char *err)
{
    const fa_t *s = state;
    uint64_t *mem[2] = {NULL, NULL};
    int rc = check_barrier(e, s, err);
    if (rc == 0)
        rc = read_grids(e, s, mem, err);
    if (rc == 0)
        rc = check_cells(e, s, mem, err);
    if (rc == 0 && wl_env_lost(e))
        rc = after_failure(e, s, mem, err);
    else if (rc == 0) {
        const unsigned g = (unsigned)(s->frames % 2);
        uint64_t total = 0;
        for (uint64_t c = 0; c < s->ncells; c++)
            total += cell_words(mem, g, c)[W_COUNT];
        if (total != s->n)
            rc = wl_errf(err, "fluidanimate: the last grid (%u) holds %llu particles, want %llu: particles lost or "
                         "duplicated", g, (unsigned long long)total, (unsigned long long)s->n);
        else
            rc = exact(s, mem, 3u, s->frames, err);
    }
    free(mem[0]), free(mem[1]);
    return rc;
}

const workload_t wl_fluidanimate = {
    .name = "fluidanimate",
    .doc = "PARSEC fluidanimate: SPH particles in a shared grid of cells, slabs per thread, border cells' updates "
           "under their locks, barriers between phases",
    .setup = fa_setup,
    .thread = fa_thread,
    .check = fa_check,
    .free = fa_free,
};
