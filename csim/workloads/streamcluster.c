/* streamcluster: PARSEC streamcluster, online k-median clustering of a stream of points.
 *
 * Shared data (CXL memory), in one allocation:
 *   - the stream: workload.streamcluster_points points of streamcluster_dims coordinates (doubles,
 *     uniform in [0, 1) as PARSEC's SimStream makes them), written at setup, read-only after;
 *   - a point struct per point, as PARSEC's Point: weight, the address of its coordinates, the
 *     median it is assigned to (its index in the chunk) and the cost of that assignment (weight x
 *     the squared distance, PARSEC's dist). Each chunk has its own structs (PARSEC reuses one
 *     block), so that the check sees every chunk's result;
 *   - the work memory of pgain (PARSEC's work_mem): per thread one row, line-aligned, holding the
 *     tag of the reduction it was last written for, its partial (the cost of opening the
 *     candidate, or a sum of costs) and lower[] (per median, what closing it would save), and a
 *     row of switch_membership flags, one byte per point, eight to a word;
 *   - per chunk the result: the medians' count, the cost, the facility cost z and the medians;
 *   - a barrier.
 * Thread-private data (local memory of the thread's CN): the thread's copy of the open medians
 * (the sorted list, and per point its slot + 1 in it or 0: PARSEC's is_center and center_table),
 * gl_lower (the medians' summed lower) and the feasible candidates.
 *
 * Each chunk of streamcluster_chunk points is clustered by pkmedian as in PARSEC: the points are
 * split among the threads by index ranges; the facility cost z starts at half the cost of
 * serving every point from point 0; pspeedy opens facilities by a random test over the points
 * in order (open point i with probability cost_i / z), all threads moving their points to each
 * opened one; then rounds of pFL: a feasible candidate x after another from a shuffled list,
 * and pgain(x): each thread computes, for its points, the cost of serving them from x, marks
 * those that would switch (switch_membership), sums their saving and adds what the others would
 * save if their median closed into lower[] (the distance loop over shared coordinates: loads, few
 * writes); a barrier; the decision whether opening x (and closing the medians that no longer pay)
 * lowers the total cost; the threads move the points that switch or lose their median to x; a
 * barrier. pkmedian binary-searches z until the chunk has between kmin = kmax / 2 and kmax =
 * streamcluster_centers medians (PARSEC: 10 and 20). The lowest thread writes the chunk's result.
 * Left out: PARSEC's shuffle of the points before each pspeedy (the stream is random already),
 * the final clustering of every chunk's medians, and candidates that are medians already (pgain
 * would count them open twice); coordinates and costs are doubles where PARSEC has floats.
 *
 * Every decision (pspeedy's openings, pgain's gain and closings, pFL's rounds, the search on z) is
 * made by every thread alike from the same shared data and the same random stream (each thread its
 * own copy of it): in PARSEC thread 0 decides and tells the others, which a failure of thread 0's
 * CN would stall. The reductions read the per-thread partials in thread order, and only those
 * whose tag names the current reduction: a thread lost with its CN stops contributing, the same
 * for every survivor, and the survivors go on with their own points.
 *
 * check(): every point's cost is its weight times its squared distance to its median, bit for
 * bit, and its median is one of its chunk's result; then (without a lost thread) the same run
 * replayed sequentially, phase by phase and thread by thread (the same code on an image of the
 * memory), must leave every shared word as the threads left it, and the barrier must have
 * released the phases the replay counts. After a CN failure the first part covers the live
 * threads' points and every chunk's result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/addr.h"
#include "base/config.h"
#include "base/rng.h"
#include "workloads/workloads.h"

#define ITER 3         /* PARSEC's ITER: a pFL round tries ITER kmax ln kmax candidates */
#define SP 1           /* PARSEC's SP: pspeedy runs at one facility cost before it is lowered */
#define MAX_ROUNDS 64  /* pFL rounds at most (PARSEC has no bound; with e > 0 it stops long before) */
#define DIM_INSTRS 4   /* per coordinate of a distance: subtract, multiply, add, the loop */
#define POINT_INSTRS 12 /* per point and distance: weight x distance, the compare, the indices */
#define SCAN_INSTRS 16 /* per point of pspeedy's test: lrand48, cost / z, the compare */
#define SLOT_INSTRS 3  /* per median and thread reduced: the add and the indexing */
#define TABLE_INSTRS 4 /* per median of the private tables rewritten */
#define SCAN_BATCH 8   /* costs loaded ahead in pspeedy's test */
#define RED_BATCH 64   /* lower[] words loaded at once from a row */

enum { W_WEIGHT, W_COORD, W_ASSIGN, W_COST, PT_WORDS }; /* a point struct */
enum { R_TAG, R_PART, R_LOWER };                        /* a work row */
enum { O_K, O_COST, O_Z, O_MED };                       /* a chunk's result */

typedef struct sc {
    uint64_t n, dims, chunk, nchunks, kmax, kmin, nfeas, iter;
    unsigned nthreads;
    uint64_t seed;
    uint64_t region, words;                   /* the CXL allocation and its words */
    uint64_t coords, pts, rows, sw, out, bar; /* in it */
    uint64_t row_words, sw_words, out_words;
    uint64_t p_slot, p_glow, p_feas, priv_words; /* private layout (words); the sorted medians at 0 */
    uint64_t *priv;                              /* per thread: its private words (local) */
    uint64_t *scratch; /* per thread, chunk + 1 host words: priv_reopen's list (a thread lost with its
                        * CN never returns to free what it allocated) */
} sc_t;

/* A thread's registers, or the check's replay of every thread (t NULL): the same code runs on
 * memory through the thread or on the images. A phase (ph_*) runs the part of thread tid; par()
 * runs it for the thread, or for every thread in turn in the replay, then the barrier. Phases
 * leave their results in res_* (every thread the same), which the caller takes after par(). */
typedef struct run {
    const sc_t *s;
    wl_thread_t *t;
    uint64_t *img, **pimg; /* replay: the CXL words, each thread's private words */
    unsigned tid, phase;   /* barrier phases passed */
    uint64_t step;         /* reductions done: the current one's tag is step + 1 */
    uint64_t c, base, np;  /* the chunk, its first point, its points */
    uint64_t k, x, from, mask; /* medians open, the candidate, where pspeedy's test goes on, participants */
    double z, cost;
    rng_t rng, rng_next;   /* the shared random stream */
    uint64_t res_next, res_mask, res_open, res_nclose;
    double res_sum, res_gain;
} run_t;

static void sc_free(void *state)
{
    sc_t *s = state;
    if (s) {
        free(s->priv);
        free(s->scratch);
    }
    free(s);
}

/* PARSEC's dist: the squared Euclidean distance, summed in dimension order. */
static double dist(const double *a, const double *b, uint64_t dims)
{
    double d = 0.0;
    for (uint64_t i = 0; i < dims; i++)
        d += (a[i] - b[i]) * (a[i] - b[i]);
    return d;
}

static uint64_t round_line(uint64_t words) { return (words + 7) / 8 * 8; }

/* ---------------------------------------------------------------------------------------------
 * Memory, through the thread or on the replay's images */

static uint64_t *word(run_t *r, uint64_t a)
{
    if (addr_is_local(a))
        return &r->pimg[r->tid][(a - r->s->priv[r->tid]) / 8];
    return &r->img[(a - r->s->region) / 8];
}
static uint64_t ld(run_t *r, uint64_t a) { return r->t ? wl_ld(r->t, a) : *word(r, a); }
static void st(run_t *r, uint64_t a, uint64_t v)
{
    if (r->t)
        wl_st(r->t, a, v);
    else
        *word(r, a) = v;
}
static void ldb(run_t *r, const uint64_t *a, uint64_t *v, unsigned n)
{
    if (r->t)
        wl_ld_batch(r->t, a, v, n);
    else
        for (unsigned i = 0; i < n; i++)
            v[i] = *word(r, a[i]);
}
static void work(run_t *r, uint64_t n)
{
    if (r->t)
        wl_compute(r->t, n);
}

typedef void phase_fn(run_t *r);

/* f for every thread; with sync, then the barrier. */
static void each(run_t *r, phase_fn *f, bool sync)
{
    if (r->t) {
        f(r);
        if (sync)
            wl_barrier(r->t, r->s->bar, r->s->nthreads, &r->phase);
        return;
    }
    for (unsigned t = 0; t < r->s->nthreads; t++) {
        r->tid = t;
        f(r);
    }
    r->tid = 0;
    r->phase += sync;
}
static void par(run_t *r, phase_fn *f) { each(r, f, true); }
static void solo(run_t *r, phase_fn *f) { each(r, f, false); }

/* Addresses. i is a point's index in the chunk, g in the stream. */
static uint64_t pt(const run_t *r, uint64_t i, unsigned w) { return r->s->pts + 8 * (PT_WORDS * (r->base + i) + w); }
static uint64_t coords_of(const sc_t *s, uint64_t g) { return s->coords + 8 * s->dims * g; }
static uint64_t row(const sc_t *s, unsigned t, uint64_t w) { return s->rows + 8 * (t * s->row_words + w); }
static uint64_t swrow(const sc_t *s, unsigned t, uint64_t w) { return s->sw + 8 * (t * s->sw_words + w); }
static uint64_t outw(const run_t *r, uint64_t w) { return r->s->out + 8 * (r->c * r->s->out_words + w); }
static uint64_t prv(const run_t *r, uint64_t w) { return r->s->priv[r->tid] + 8 * w; }

/* Points [lo, hi) of the chunk are thread tid's. */
static void range(const run_t *r, unsigned tid, uint64_t *lo, uint64_t *hi)
{
    *lo = r->np * tid / r->s->nthreads;
    *hi = r->np * (tid + 1) / r->s->nthreads;
}

/* The coordinates at address a (dims <= 1024: one batch). */
static void load_coords(run_t *r, uint64_t a, double *c)
{
    uint64_t addr[1024], v[1024];
    const unsigned d = (unsigned)r->s->dims;
    addr[0] = a; /* dims >= 1 (setup); the compiler cannot know */
    for (unsigned i = 1; i < d; i++)
        addr[i] = a + 8 * i;
    ldb(r, addr, v, d);
    for (unsigned i = 0; i < d; i++)
        c[i] = wl_dbl(v[i]);
}

/* Point i's struct, then its coordinates through the struct's pointer (the thread's own points:
 * another point's struct is its owner's to initialize, and a lost owner may never have: the
 * coordinates of point 0 and of a candidate are found by their index, as PARSEC lays them out). */
static void load_point(run_t *r, uint64_t i, uint64_t f[PT_WORDS], double *c)
{
    const uint64_t a[PT_WORDS] = {pt(r, i, 0), pt(r, i, 1), pt(r, i, 2), pt(r, i, 3)};
    ldb(r, a, f, PT_WORDS);
    load_coords(r, f[W_COORD], c);
}

/* weight x distance of point (f, c) to coordinates x, with its instructions. */
static double cost_to(run_t *r, const uint64_t f[PT_WORDS], const double *c, const double *x)
{
    work(r, DIM_INSTRS * r->s->dims + POINT_INSTRS);
    return wl_dbl(f[W_WEIGHT]) * dist(c, x, r->s->dims);
}

/* ---------------------------------------------------------------------------------------------
 * The thread's private medians: the sorted list at 0, each point's slot + 1 (0: not a median) */

static uint64_t med(run_t *r, uint64_t c) { return ld(r, prv(r, c)); }

/* Forgets the r->k medians open. */
static void priv_clear(run_t *r)
{
    for (uint64_t c = 0; c < r->k; c++)
        st(r, prv(r, r->s->p_slot + med(r, c)), 0);
    work(r, TABLE_INSTRS * r->k);
}

/* The medians from now on: list[0..n), sorted. */
static void priv_set(run_t *r, const uint64_t *list, uint64_t n)
{
    for (uint64_t c = 0; c < n; c++) {
        st(r, prv(r, c), list[c]);
        st(r, prv(r, r->s->p_slot + list[c]), c + 1);
    }
    work(r, TABLE_INSTRS * n);
}

/* After the closing medians (gl_lower > 0) are gone and x is open. */
static void priv_reopen(run_t *r, uint64_t x, bool closing_too)
{
    uint64_t *list = r->s->scratch + r->tid * (r->s->chunk + 1), n = 0; /* k <= chunk */
    for (uint64_t c = 0; c < r->k; c++) {
        uint64_t m = med(r, c);
        if (closing_too && wl_dbl(ld(r, prv(r, r->s->p_glow + c))) > 0)
            continue;
        list[n++] = m;
    }
    priv_clear(r);
    uint64_t at = n;
    while (at > 0 && list[at - 1] > x)
        at--;
    memmove(list + at + 1, list + at, (n - at) * sizeof *list);
    list[at] = x;
    priv_set(r, list, n + 1);
}

/* ---------------------------------------------------------------------------------------------
 * Phases */

/* A chunk begins: the thread's point structs (weight 1, as PARSEC's streamCluster sets them),
 * each assigned to point 0 at its cost; the partial: their cost, hiz's share. */
static void ph_init(run_t *r)
{
    const sc_t *s = r->s;
    uint64_t lo, hi;
    range(r, r->tid, &lo, &hi);
    double p0[1024], c[1024], sum = 0.0;
    load_coords(r, coords_of(s, r->base), p0);
    for (uint64_t i = lo; i < hi; i++) {
        const uint64_t f[PT_WORDS] = {wl_bits(1.0), coords_of(s, r->base + i), 0, 0};
        load_coords(r, f[W_COORD], c);
        double cost = cost_to(r, f, c, p0);
        st(r, pt(r, i, W_WEIGHT), f[W_WEIGHT]);
        st(r, pt(r, i, W_COORD), f[W_COORD]);
        st(r, pt(r, i, W_ASSIGN), 0);
        st(r, pt(r, i, W_COST), wl_bits(cost));
        sum += cost;
    }
    st(r, row(s, r->tid, R_PART), wl_bits(sum));
    st(r, row(s, r->tid, R_TAG), r->step + 1);
    priv_clear(r);
    const uint64_t zero = 0;
    priv_set(r, &zero, 1);
}

/* A chunk too small to cluster (at most kmax points; PARSEC: every point its own median). */
static void ph_all(run_t *r)
{
    const sc_t *s = r->s;
    uint64_t lo, hi;
    range(r, r->tid, &lo, &hi);
    for (uint64_t i = lo; i < hi; i++) {
        st(r, pt(r, i, W_WEIGHT), wl_bits(1.0));
        st(r, pt(r, i, W_COORD), coords_of(s, r->base + i));
        st(r, pt(r, i, W_ASSIGN), i);
        st(r, pt(r, i, W_COST), wl_bits(0.0));
    }
    st(r, row(s, r->tid, R_PART), wl_bits(0.0));
    st(r, row(s, r->tid, R_TAG), r->step + 1);
    priv_clear(r);
    uint64_t list[1024];
    for (uint64_t i = 0; i < r->np; i++)
        list[i] = i;
    priv_set(r, list, r->np);
}

/* Which threads wrote this reduction's partial (their tag), and the sum of those partials in
 * thread order. */
static uint64_t gather(run_t *r, double *part, double *sum)
{
    const sc_t *s = r->s;
    uint64_t a[128], v[128], mask = 0;
    for (unsigned p = 0; p < s->nthreads; p++)
        a[2 * p] = row(s, p, R_TAG), a[2 * p + 1] = row(s, p, R_PART);
    ldb(r, a, v, 2 * s->nthreads);
    *sum = 0.0;
    for (unsigned p = 0; p < s->nthreads; p++) {
        part[p] = wl_dbl(v[2 * p + 1]);
        if (v[2 * p] == r->step + 1) {
            mask |= 1ull << p;
            *sum += part[p];
        }
    }
    work(r, SLOT_INSTRS * s->nthreads);
    return mask;
}

static void ph_reduce(run_t *r)
{
    double part[64];
    r->res_mask = gather(r, part, &r->res_sum);
}

/* pspeedy again: every point back to point 0. */
static void ph_reinit(run_t *r)
{
    uint64_t lo, hi, f[PT_WORDS];
    range(r, r->tid, &lo, &hi);
    double p0[1024], c[1024];
    load_coords(r, coords_of(r->s, r->base), p0);
    for (uint64_t i = lo; i < hi; i++) {
        load_point(r, i, f, c);
        st(r, pt(r, i, W_ASSIGN), 0);
        st(r, pt(r, i, W_COST), wl_bits(cost_to(r, f, c, p0)));
    }
    priv_clear(r);
    const uint64_t zero = 0;
    priv_set(r, &zero, 1);
}

/* pspeedy's test from point r->from on: the next point to open (np: none). */
static void ph_scan(run_t *r)
{
    rng_t g = r->rng;
    uint64_t i = r->from, next = r->np;
    while (i < r->np && next == r->np) {
        uint64_t a[SCAN_BATCH], v[SCAN_BATCH];
        unsigned nb = 0;
        for (; nb < SCAN_BATCH && i + nb < r->np; nb++)
            a[nb] = pt(r, i + nb, W_COST);
        ldb(r, a, v, nb);
        for (unsigned j = 0; j < nb && next == r->np; j++) {
            work(r, SCAN_INSTRS);
            if (rng_unit(&g) < wl_dbl(v[j]) / r->z)
                next = i + j;
        }
        i += nb;
    }
    r->res_next = next;
    r->rng_next = g;
}

/* pspeedy opens r->x: the thread's points closer to it move to it. */
static void ph_open(run_t *r)
{
    uint64_t lo, hi, f[PT_WORDS];
    range(r, r->tid, &lo, &hi);
    double x[1024], c[1024];
    load_coords(r, coords_of(r->s, r->base + r->x), x);
    for (uint64_t i = lo; i < hi; i++) {
        load_point(r, i, f, c);
        double d = cost_to(r, f, c, x);
        if (d < wl_dbl(f[W_COST])) {
            st(r, pt(r, i, W_COST), wl_bits(d));
            st(r, pt(r, i, W_ASSIGN), r->x);
        }
    }
    priv_reopen(r, r->x, false);
}

/* pspeedy's total: the partial, the cost of the thread's points. */
static void ph_partial(run_t *r)
{
    uint64_t lo, hi;
    range(r, r->tid, &lo, &hi);
    double sum = 0.0;
    for (uint64_t i = lo; i < hi; i += SCAN_BATCH) {
        uint64_t a[SCAN_BATCH], v[SCAN_BATCH];
        unsigned nb = 0;
        for (; nb < SCAN_BATCH && i + nb < hi; nb++)
            a[nb] = pt(r, i + nb, W_COST);
        ldb(r, a, v, nb);
        for (unsigned j = 0; j < nb; j++)
            sum += wl_dbl(v[j]);
        work(r, 2 * nb);
    }
    st(r, row(r->s, r->tid, R_PART), wl_bits(sum));
    st(r, row(r->s, r->tid, R_TAG), r->step + 1);
}

/* pgain's first half: the thread's points against candidate r->x. */
static void ph_gain(run_t *r)
{
    const sc_t *s = r->s;
    const unsigned me = r->tid;
    uint64_t lo, hi, f[PT_WORDS];
    range(r, me, &lo, &hi);
    for (uint64_t w = 0; w < (hi - lo + 7) / 8; w++) /* memset(switch_membership + k1, 0, ...) */
        st(r, swrow(s, me, w), 0);
    for (uint64_t c = 0; c < r->k; c++) /* memset(lower, 0, ...) */
        st(r, row(s, me, R_LOWER + c), 0);
    double x[1024], c[1024], open_x = 0.0;
    load_coords(r, coords_of(s, r->base + r->x), x);
    uint64_t swv = 0;
    for (uint64_t i = lo; i < hi; i++) {
        if ((i - lo) % 8 == 0)
            swv = 0;
        load_point(r, i, f, c);
        double xc = cost_to(r, f, c, x), cur = wl_dbl(f[W_COST]);
        if (xc < cur) {
            swv |= 1ull << 8 * ((i - lo) % 8);
            st(r, swrow(s, me, (i - lo) / 8), swv);
            open_x += xc - cur;
        } else {
            uint64_t slot = ld(r, prv(r, s->p_slot + f[W_ASSIGN])) - 1, a = row(s, me, R_LOWER + slot);
            st(r, a, wl_bits(wl_dbl(ld(r, a)) + (cur - xc)));
        }
    }
    st(r, row(s, me, R_PART), wl_bits(open_x));
    st(r, row(s, me, R_TAG), r->step + 1);
}

/* gl_lower of every median (z plus the participants' lower[], in thread order), kept private;
 * returns the cost of opening x (z plus the partials, less what the closings give back) and
 * sets *nclose. */
static double lowers(run_t *r, uint64_t mask, double open_x, uint64_t *nclose)
{
    const sc_t *s = r->s;
    *nclose = 0;
    for (uint64_t c0 = 0; c0 < r->k; c0 += RED_BATCH) {
        const unsigned nb = (unsigned)(r->k - c0 < RED_BATCH ? r->k - c0 : RED_BATCH);
        double low[RED_BATCH];
        for (unsigned j = 0; j < nb; j++)
            low[j] = r->z;
        for (unsigned p = 0; p < s->nthreads; p++) {
            if (!(mask >> p & 1))
                continue;
            uint64_t a[RED_BATCH], v[RED_BATCH];
            for (unsigned j = 0; j < nb; j++)
                a[j] = row(s, p, R_LOWER + c0 + j);
            ldb(r, a, v, nb);
            for (unsigned j = 0; j < nb; j++)
                low[j] += wl_dbl(v[j]);
            work(r, SLOT_INSTRS * nb);
        }
        for (unsigned j = 0; j < nb; j++) {
            if (low[j] > 0) {
                ++*nclose;
                open_x -= low[j];
            }
            st(r, prv(r, s->p_glow + c0 + j), wl_bits(low[j]));
        }
    }
    return open_x;
}

/* pgain's second half: the decision, and when x opens, the thread's points that switch or lose
 * their median move to it. */
static void ph_decide(run_t *r)
{
    const sc_t *s = r->s;
    const unsigned me = r->tid;
    double part[64], sum;
    uint64_t mask = gather(r, part, &sum), nclose;
    double gl = lowers(r, mask, r->z + sum, &nclose);
    r->res_mask = mask;
    r->res_open = gl < 0;
    r->res_gain = gl < 0 ? -gl : 0.0;
    r->res_nclose = nclose;
    if (gl >= 0)
        return;
    uint64_t lo, hi, f[PT_WORDS];
    range(r, me, &lo, &hi);
    double x[1024], c[1024];
    load_coords(r, coords_of(s, r->base + r->x), x);
    uint64_t swv = 0;
    for (uint64_t i = lo; i < hi; i++) {
        if ((i - lo) % 8 == 0)
            swv = ld(r, swrow(s, me, (i - lo) / 8));
        uint64_t assign = ld(r, pt(r, i, W_ASSIGN));
        uint64_t slot = ld(r, prv(r, s->p_slot + assign)) - 1;
        bool closing = wl_dbl(ld(r, prv(r, s->p_glow + slot))) > 0;
        work(r, POINT_INSTRS);
        if (!(swv >> 8 * ((i - lo) % 8) & 1) && !closing)
            continue;
        load_point(r, i, f, c);
        st(r, pt(r, i, W_COST), wl_bits(cost_to(r, f, c, x)));
        st(r, pt(r, i, W_ASSIGN), r->x);
    }
    priv_reopen(r, r->x, true);
}

static void ph_feasible(run_t *r)
{
    rng_t g = r->rng;
    for (uint64_t j = 0; j < r->s->nfeas; j++)
        st(r, prv(r, r->s->p_feas + j), rng_below(&g, r->np));
    work(r, SCAN_INSTRS * r->s->nfeas);
    r->rng_next = g;
}

/* PARSEC's intshuffle of the feasible candidates. */
static void ph_shuffle(run_t *r)
{
    rng_t g = r->rng;
    const uint64_t n = r->s->nfeas, a = r->s->p_feas;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t j = i + rng_below(&g, n - i), vi = ld(r, prv(r, a + i)), vj = ld(r, prv(r, a + j));
        st(r, prv(r, a + i), vj);
        st(r, prv(r, a + j), vi);
    }
    work(r, SCAN_INSTRS * n);
    r->rng_next = g;
}

static void write_out(run_t *r)
{
    for (uint64_t c = 0; c < r->k; c++)
        st(r, outw(r, O_MED + c), med(r, c));
    st(r, outw(r, O_COST), wl_bits(r->cost));
    st(r, outw(r, O_Z), wl_bits(r->z));
    st(r, outw(r, O_K), r->k); /* last: the result is whole once its count shows */
}

/* The chunk's result, by the lowest thread of the last reduction. */
static void ph_out(run_t *r)
{
    if (r->mask && r->tid == (unsigned)__builtin_ctzll(r->mask))
        write_out(r);
}

/* After the barrier: if that thread was lost before it finished, every thread writes it (all the
 * same values). */
static void ph_out_again(run_t *r)
{
    if (ld(r, outw(r, O_K)) == 0)
        write_out(r);
}

/* ---------------------------------------------------------------------------------------------
 * pkmedian */

/* A reduction of the partials just written: their sum. */
static double reduce(run_t *r)
{
    par(r, ph_reduce);
    r->step++;
    r->mask = r->res_mask;
    return r->res_sum;
}

/* pspeedy at facility cost z: the total cost. first: the points are at point 0 already. */
static double pspeedy(run_t *r, bool first)
{
    if (!first)
        par(r, ph_reinit);
    r->k = 1;
    r->from = 1;
    for (;;) {
        par(r, ph_scan);
        r->rng = r->rng_next;
        if (r->res_next >= r->np)
            break;
        r->x = r->res_next;
        par(r, ph_open);
        r->k++;
        r->from = r->x + 1;
    }
    par(r, ph_partial);
    return r->z * (double)r->k + reduce(r);
}

/* pgain(x): what opening x saved (0: not opened). */
static double pgain(run_t *r, uint64_t x)
{
    r->x = x;
    par(r, ph_gain);
    par(r, ph_decide);
    r->step++;
    r->mask = r->res_mask;
    if (r->res_open)
        r->k = r->k + 1 - r->res_nclose;
    return r->res_gain;
}

/* pFL: rounds of the shuffled candidates while a round improves the cost by more than e. A
 * candidate already a median is passed over (PARSEC would count it open twice). */
static double pfl(run_t *r, double cost, double e)
{
    const sc_t *s = r->s;
    double change = cost;
    for (unsigned round = 0; change / cost > e && round < MAX_ROUNDS; round++) {
        change = 0.0;
        solo(r, ph_shuffle);
        r->rng = r->rng_next;
        for (uint64_t i = 0; i < s->iter; i++) {
            uint64_t x = ld(r, prv(r, s->p_feas + i % s->nfeas));
            if (ld(r, prv(r, s->p_slot + x)) == 0)
                change += pgain(r, x);
        }
        cost -= change;
    }
    return cost;
}

static void pkmedian(run_t *r)
{
    const sc_t *s = r->s;
    const double kmin = (double)s->kmin, kmax = (double)s->kmax;
    par(r, ph_init);
    double hiz = reduce(r), loz = 0.0;
    r->k = 1;
    r->z = (hiz + loz) / 2.0;
    double cost = pspeedy(r, true);
    unsigned i = 0;
    for (; r->k < s->kmin && i < SP; i++)
        cost = pspeedy(r, false);
    while (r->k < s->kmin) {
        if (i >= SP) {
            hiz = r->z;
            r->z = (hiz + loz) / 2.0;
            i = 0;
        }
        cost = pspeedy(r, false);
        i++;
    }
    solo(r, ph_feasible);
    r->rng = r->rng_next;
    for (;;) {
        cost = pfl(r, cost, 0.1);
        double k = (double)r->k;
        if ((k <= 1.1 * kmax && k >= 0.9 * kmin) || (k <= kmax + 2 && k >= kmin - 2))
            cost = pfl(r, cost, 0.001);
        k = (double)r->k;
        if (k > kmax) {
            loz = r->z;
            r->z = (hiz + loz) / 2.0;
            cost += (r->z - loz) * k;
        }
        if (k < kmin) {
            hiz = r->z;
            r->z = (hiz + loz) / 2.0;
            cost += (r->z - hiz) * k;
        }
        if ((k <= kmax && k >= kmin) || loz >= 0.999 * hiz)
            break;
    }
    r->cost = cost;
}

static void run_chunks(run_t *r)
{
    const sc_t *s = r->s;
    for (r->c = 0; r->c < s->nchunks; r->c++) {
        r->base = r->c * s->chunk;
        r->np = s->n - r->base < s->chunk ? s->n - r->base : s->chunk;
        if (r->np <= s->kmax) {
            par(r, ph_all);
            reduce(r);
            r->k = r->np;
            r->cost = r->z = 0.0;
        } else {
            pkmedian(r);
        }
        par(r, ph_out);
        solo(r, ph_out_again);
    }
}

static void sc_thread(wl_thread_t *t, void *state)
{
    run_t r = {.s = state, .t = t, .tid = t->tid};
    rng_init_named(&r.rng, r.s->seed, "streamcluster.search");
    run_chunks(&r);
}

/* ---------------------------------------------------------------------------------------------
 * Setup */

/* The stream's coordinates (PARSEC's SimStream: uniform in [0, 1)), into c[n * dims]. */
static void stream(const sc_t *s, double *c)
{
    rng_t g;
    rng_init_named(&g, s->seed, "streamcluster.stream");
    for (uint64_t i = 0; i < s->n * s->dims; i++)
        c[i] = rng_unit(&g);
}

/* The layout of the CXL region and of the private words. */
static void layout(sc_t *s)
{
    const uint64_t per_thread = (s->chunk + s->nthreads - 1) / s->nthreads;
    s->row_words = round_line(R_LOWER + s->chunk);
    s->sw_words = round_line((per_thread + 7) / 8);
    s->out_words = round_line(O_MED + s->chunk);
    uint64_t w = 0;
    s->coords = w, w += round_line(s->n * s->dims);
    s->pts = w, w += round_line(s->n * PT_WORDS);
    s->rows = w, w += s->nthreads * s->row_words;
    s->sw = w, w += s->nthreads * s->sw_words;
    s->out = w, w += s->nchunks * s->out_words;
    s->bar = w, w += WL_BARRIER_BYTES / 8;
    s->words = w;
    s->p_slot = s->chunk;
    s->p_glow = 2 * s->chunk;
    s->p_feas = 3 * s->chunk;
    s->priv_words = 3 * s->chunk + s->nfeas;
}

static int sc_sizes(wl_env_t *e, sc_t *s, char *err)
{
    const sim_config_t *c = e->cfg;
    s->n = c->workload.streamcluster_points;
    s->dims = c->workload.streamcluster_dims;
    s->kmax = c->workload.streamcluster_centers;
    s->chunk = c->workload.streamcluster_chunk < s->n ? c->workload.streamcluster_chunk : s->n;
    if (s->dims < 1 || s->dims > 1024)
        return wl_errf(err, "streamcluster: %llu dimensions (workload.streamcluster_dims): 1 to 1024 work",
                       (unsigned long long)s->dims);
    if (s->kmax < 1 || s->kmax >= s->chunk)
        return wl_errf(err, "streamcluster: %llu centers (workload.streamcluster_centers) need chunks of more "
                       "points; a chunk has %llu (workload.streamcluster_chunk, workload.streamcluster_points)",
                       (unsigned long long)s->kmax, (unsigned long long)s->chunk);
    s->nthreads = e->nthreads;
    s->seed = e->seed;
    s->nchunks = (s->n + s->chunk - 1) / s->chunk;
    s->kmin = s->kmax / 2 ? s->kmax / 2 : 1;
    /* PARSEC: ITER kmin ln kmin feasible candidates (at most the points), ITER kmax ln kmax a round */
    s->nfeas = (uint64_t)(ITER * s->kmin * log((double)s->kmin));
    s->nfeas = s->nfeas < 1 ? 1 : s->nfeas > s->chunk ? s->chunk : s->nfeas;
    s->iter = (uint64_t)(ITER * s->kmax * log((double)s->kmax));
    s->iter = s->iter < 1 ? 1 : s->iter;
    layout(s);
    return 0;
}

/* On failure the state is freed here: the caller frees it only after a successful setup. */
static int sc_setup(wl_env_t *e, void **state, char *err)
{
    *state = NULL;
    sc_t *s = calloc(1, sizeof *s);
    double *c = NULL;
    int rc = 0;
    if (!s || !(s->priv = calloc(e->nthreads, sizeof *s->priv))) {
        rc = wl_errf(err, "streamcluster: out of host memory");
        goto out;
    }
    if ((rc = sc_sizes(e, s, err)))
        goto out;
    if (!(s->scratch = calloc((size_t)e->nthreads * (s->chunk + 1), sizeof *s->scratch))) {
        rc = wl_errf(err, "streamcluster: out of host memory");
        goto out;
    }
    s->region = e->ops->alloc_cxl(e, 8 * s->words);
    if (s->region == WL_ALLOC_FAIL) {
        rc = wl_errf(err, "streamcluster: %llu points of %llu dimensions and the work memory (%llu bytes) do not "
                     "fit the CXL memory (workload.streamcluster_points)", (unsigned long long)s->n,
                     (unsigned long long)s->dims, (unsigned long long)(8 * s->words));
        goto out;
    }
    s->coords = s->region + 8 * s->coords, s->pts = s->region + 8 * s->pts, s->rows = s->region + 8 * s->rows;
    s->sw = s->region + 8 * s->sw, s->out = s->region + 8 * s->out, s->bar = s->region + 8 * s->bar;
    for (unsigned t = 0; t < e->nthreads; t++) {
        s->priv[t] = e->ops->alloc_local(e, e->thread_cn[t], 8 * s->priv_words);
        if (s->priv[t] == WL_ALLOC_FAIL) {
            rc = wl_errf(err, "streamcluster: thread %u's medians (%llu bytes) do not fit CN %u's local memory "
                         "(workload.streamcluster_chunk)", t, (unsigned long long)(8 * s->priv_words),
                         e->thread_cn[t]);
            goto out;
        }
    }
    if (!(c = malloc(s->n * s->dims * sizeof *c))) {
        rc = wl_errf(err, "streamcluster: out of host memory for %llu points", (unsigned long long)s->n);
        goto out;
    }
    stream(s, c);
    for (uint64_t i = 0; i < s->n * s->dims; i++)
        e->ops->poke(e, 0, s->coords + 8 * i, wl_bits(c[i]));
out:
    free(c);
    if (rc)
        sc_free(s);
    else
        *state = s;
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Check */

/* What word w of the region is, for a message. */
static void describe(const sc_t *s, uint64_t w, char *buf, size_t len)
{
    const uint64_t a = s->region + 8 * w;
    if (a < s->pts)
        snprintf(buf, len, "coordinate %llu of point %llu of the stream", (unsigned long long)(w % s->dims),
                 (unsigned long long)(w / s->dims));
    else if (a < s->rows) {
        static const char *const field[PT_WORDS] = {"weight", "coordinates' address", "median", "cost"};
        uint64_t p = (a - s->pts) / 8 / PT_WORDS;
        snprintf(buf, len, "the %s of point %llu of chunk %llu", field[(a - s->pts) / 8 % PT_WORDS],
                 (unsigned long long)(p % s->chunk), (unsigned long long)(p / s->chunk));
    } else if (a < s->sw) {
        uint64_t t = (a - s->rows) / 8 / s->row_words, k = (a - s->rows) / 8 % s->row_words;
        if (k < R_LOWER)
            snprintf(buf, len, "thread %llu's work row: its %s", (unsigned long long)t, k == R_TAG ? "tag" : "partial");
        else
            snprintf(buf, len, "thread %llu's lower[%llu]", (unsigned long long)t, (unsigned long long)(k - R_LOWER));
    } else if (a < s->out)
        snprintf(buf, len, "thread %llu's switch_membership word %llu", (unsigned long long)((a - s->sw) / 8 / s->sw_words),
                 (unsigned long long)((a - s->sw) / 8 % s->sw_words));
    else {
        static const char *const field[O_MED] = {"median count", "cost", "facility cost z"};
        uint64_t c = (a - s->out) / 8 / s->out_words, k = (a - s->out) / 8 % s->out_words;
        if (k < O_MED)
            snprintf(buf, len, "the %s of chunk %llu's result", field[k], (unsigned long long)c);
        else
            snprintf(buf, len, "median %llu of chunk %llu's result", (unsigned long long)(k - O_MED),
                     (unsigned long long)c);
    }
}

static uint64_t peek(wl_env_t *e, uint64_t a) { return e->ops->peek(e, 0, a); }

/* Chunk c's result: k medians, sorted, in the chunk. */
static int check_result(wl_env_t *e, const sc_t *s, uint64_t c, uint64_t np, uint64_t *meds, uint64_t *k, char *err)
{
    const uint64_t o = s->out + 8 * c * s->out_words;
    *k = peek(e, o + 8 * O_K);
    if (*k < 1 || *k > np)
        return wl_errf(err, "streamcluster: chunk %llu's result has %llu medians, want 1 to %llu",
                       (unsigned long long)c, (unsigned long long)*k, (unsigned long long)np);
    for (uint64_t j = 0; j < *k; j++) {
        meds[j] = peek(e, o + 8 * (O_MED + j));
        if (meds[j] >= np || (j > 0 && meds[j] <= meds[j - 1]))
            return wl_errf(err, "streamcluster: chunk %llu's median %llu is point %llu: not in the chunk (%llu "
                           "points) or out of order", (unsigned long long)c, (unsigned long long)j,
                           (unsigned long long)meds[j], (unsigned long long)np);
    }
    return 0;
}

static bool is_median(const uint64_t *meds, uint64_t k, uint64_t m)
{
    uint64_t lo = 0, hi = k;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (meds[mid] < m)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < k && meds[lo] == m;
}

/* Every point of a live thread: weight 1, its coordinates, a median of its chunk's result, and
 * its cost the squared distance to that median, bit for bit. */
static int check_points(wl_env_t *e, const sc_t *s, const double *coord, uint64_t *meds, char *err)
{
    for (uint64_t c = 0; c < s->nchunks; c++) {
        const uint64_t base = c * s->chunk, np = s->n - base < s->chunk ? s->n - base : s->chunk;
        uint64_t k;
        if (check_result(e, s, c, np, meds, &k, err))
            return -1;
        for (unsigned t = 0; t < s->nthreads; t++) {
            if (!wl_env_alive(e, t))
                continue;
            for (uint64_t i = np * t / s->nthreads; i < np * (t + 1) / s->nthreads; i++) {
                const uint64_t p = s->pts + 8 * PT_WORDS * (base + i);
                uint64_t w = peek(e, p + 8 * W_WEIGHT), ca = peek(e, p + 8 * W_COORD);
                uint64_t m = peek(e, p + 8 * W_ASSIGN), cost = peek(e, p + 8 * W_COST);
                if (w != wl_bits(1.0) || ca != s->coords + 8 * s->dims * (base + i))
                    return wl_errf(err, "streamcluster: point %llu of chunk %llu (thread %u) has weight %g and "
                                   "coordinates at 0x%llx, want 1 and 0x%llx", (unsigned long long)i,
                                   (unsigned long long)c, t, wl_dbl(w), (unsigned long long)ca,
                                   (unsigned long long)(s->coords + 8 * s->dims * (base + i)));
                if (!is_median(meds, k, m))
                    return wl_errf(err, "streamcluster: point %llu of chunk %llu (thread %u) is assigned to point "
                                   "%llu, not one of the chunk's %llu medians", (unsigned long long)i,
                                   (unsigned long long)c, t, (unsigned long long)m, (unsigned long long)k);
                double want = 1.0 * dist(coord + s->dims * (base + i), coord + s->dims * (base + m), s->dims);
                if (cost != wl_bits(want))
                    return wl_errf(err, "streamcluster: point %llu of chunk %llu (thread %u) costs %.17g, but its "
                                   "squared distance to its median %llu is %.17g", (unsigned long long)i,
                                   (unsigned long long)c, t, wl_dbl(cost), (unsigned long long)m, want);
            }
        }
    }
    return 0;
}

/* The stream unchanged. */
static int check_stream(wl_env_t *e, const sc_t *s, const double *coord, char *err)
{
    for (uint64_t i = 0; i < s->n * s->dims; i++)
        if (peek(e, s->coords + 8 * i) != wl_bits(coord[i]))
            return wl_errf(err, "streamcluster: coordinate %llu of point %llu of the stream changed to %.17g, "
                           "was %.17g", (unsigned long long)(i % s->dims), (unsigned long long)(i / s->dims),
                           wl_dbl(peek(e, s->coords + 8 * i)), coord[i]);
    return 0;
}

/* The run replayed on images: every word of the region the same, the barrier's phases too. */
static int check_replay(wl_env_t *e, const sc_t *s, const double *coord, char *err)
{
    uint64_t *img = calloc(s->words, sizeof *img), **pimg = calloc(s->nthreads, sizeof *pimg);
    int rc = 0;
    bool ok = img && pimg;
    for (unsigned t = 0; ok && t < s->nthreads; t++)
        ok = (pimg[t] = calloc(s->priv_words, sizeof **pimg)) != NULL;
    if (!ok) {
        rc = wl_errf(err, "streamcluster: check: out of host memory");
        goto out;
    }
    for (uint64_t i = 0; i < s->n * s->dims; i++)
        img[(s->coords - s->region) / 8 + i] = wl_bits(coord[i]);
    run_t r = {.s = s, .img = img, .pimg = pimg};
    rng_init_named(&r.rng, s->seed, "streamcluster.search");
    run_chunks(&r);
    const uint64_t bar = (s->bar - s->region) / 8;
    for (uint64_t w = 0; w < s->words && rc == 0; w++) {
        uint64_t got = peek(e, s->region + 8 * w);
        if (w >= bar || got == img[w])
            continue;
        char what[160];
        describe(s, w, what, sizeof what);
        rc = wl_errf(err, "streamcluster: %s holds 0x%016llx (%.17g), the sequential replay 0x%016llx (%.17g)", what,
                     (unsigned long long)got, wl_dbl(got), (unsigned long long)img[w], wl_dbl(img[w]));
    }
    /* The barrier (csim/cn/wl_sync.c): the phases released; the last one's arrival mask holds every
     * thread, the other two were zeroed by the last two releases. */
    if (rc == 0)
        rc = wl_barrier_check(e, "streamcluster", s->bar, s->nthreads, r.phase, " (the replay's)", true, err);
out:
    for (unsigned t = 0; pimg && t < s->nthreads; t++)
        free(pimg[t]);
    free(pimg);
    free(img);
    return rc;
}

static int sc_check(wl_env_t *e, void *state, char *err)
{
    const sc_t *s = state;
    double *coord = malloc(s->n * s->dims * sizeof *coord);
    uint64_t *meds = malloc(s->chunk * sizeof *meds);
    int rc = 0;
    if (!coord || !meds)
        rc = wl_errf(err, "streamcluster: check: out of host memory");
    if (rc == 0) {
        stream(s, coord);
        rc = check_stream(e, s, coord, err);
    }
    if (rc == 0)
        rc = check_points(e, s, coord, meds, err);
    if (rc == 0 && !wl_env_lost(e))
        rc = check_replay(e, s, coord, err);
    free(coord);
    free(meds);
    return rc;
}

const workload_t wl_streamcluster = {
    .name = "streamcluster",
    .doc = "online k-median of a stream of points in chunks: pspeedy, then pgain's candidates, points split among the threads",
    .setup = sc_setup,
    .thread = sc_thread,
    .check = sc_check,
    .free = sc_free,
};
