/* bodytrack: a PARSEC bodytrack-like tracker of a 3-D body pose with an annealed particle filter
 * over the images of four cameras.
 *
 * The body is ten limbs (torso, head, upper and lower arms and legs), cylinders hung on a
 * kinematic chain, as PARSEC's body model of ten conic sections; a pose is DIMS doubles (root
 * position, torso yaw and lean, and three angles a limb: swing, abduction and elbow or knee flex).
 * Setup renders, for every frame, the body in a known walking pose into each camera's image over
 * a textured background (intensities in [0, 1] with seeded sensor noise), as PARSEC's input
 * sequences are photographs of a walking person; the filter starts around frame 0's pose, and each
 * frame's particles are the previous frame's last resampling.
 *
 * Shared data (CXL memory), row-major doubles:
 *   img[frame][cam][y][x]   the camera images (input, read only), bg[cam][y][x] the background;
 *   grad, fg, edge[cam][y][x] the current frame's maps: thresholded gradient magnitude, binary
 *                           foreground (|img - bg| above a threshold), and the edge map (grad
 *                           blurred by a 3 x 3 Gaussian), each rewritten every frame;
 *   particles[2][P][DIMS]   the particle set and the new set the resampling writes (they swap);
 *   wt[P] = {weight, step}  each particle's weight and the step (frame * layers + layer + 1) that
 *                           wrote it, in one line-sharing pair;
 *   est[frame][DIMS]        the estimated pose of each frame; tickets[frame * layers + layer] the
 *                           work queue's counter of each step; a barrier.
 * Thread-private data (local memory of the thread's CN): the thread's cumulative weights (P
 * doubles), which it searches to resample.
 *
 * Per frame, in parallel:
 *   1. image processing: the C x S rows of the four images split into nthreads bands; each thread
 *      writes grad and fg of its rows (a central-difference gradient and two thresholds), a barrier,
 *      then edge of its rows (the blur reads the neighbouring bands' grad), a barrier;
 *   2. per annealing layer l: the particle weights through a work queue (an atomic ticket counter:
 *      fetch-and-add, one particle a ticket): the thread loads the particle, works out the limbs,
 *      projects them into each camera and gathers the edge map along each limb's two outlines and
 *      the foreground map along its axis (wl_ld_batch, one camera at a time); the error is the mean
 *      of (1 - edge)^2 plus the mean of (1 - fg)^2, the weight exp(-beta_l error), beta_l growing
 *      with the layer (annealing); a barrier; then every thread sums the weights in index order
 *      into its local cumulative weights, and resamples its band of the new particles: new particle
 *      j draws its parent from the weights and Gaussian noise (standard deviation shrinking with
 *      the layer) from a stream of its own (seed, step, j); after the last layer, the threads also
 *      write the estimated pose (the weighted mean of the particles), a band of dimensions each;
 *      a barrier.
 * A weight depends only on its particle and the maps, a new particle only on j, the weights in
 * index order and the old set: the result does not depend on how the threads interleave, and
 * check() recomputes the whole run single-threaded and wants every word bit for bit: the inputs,
 * the last frame's maps, both particle sets, the weights and their steps, the estimates, the
 * ticket counters (P + one overshoot a thread), the barrier's words and each live thread's
 * cumulative weights.
 *
 * A CN failure (docs/architecture.md 11g) loses its threads and what they had not done. Each
 * thread marks its share of a phase done in shared memory; at the phase's end the threads read the
 * marks between two barriers, and while a share is missing the live threads redo the missing ones
 * and read again (end_static): the band of lost thread d goes to the live thread of rank d mod (live
 * threads), and a particle whose weight record does not hold the current step (its ticket was taken
 * by a lost thread) to the live thread of rank (particle mod live threads). A failure while work is
 * redone leaves that work to the next round. Redoing is idempotent (the same values), so the result,
 * and the check, are the same as without the loss; only the ticket counters may have fewer
 * overshoots and the barrier more phases. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/rng.h"
#include "workloads/workloads.h"

#define CAMS 4u
#define PARTS 10u
#define DIMS 17u
#define SAMPLES 3u                  /* points a limb along each outline and along its axis */
#define EDGE_PTS (2u * SAMPLES)      /* edge samples a limb: two outlines */
#define CAM_PTS (PARTS * 3u * SAMPLES) /* gathers a camera: edge and foreground samples of every limb */
#define MIN_SIDE 8u
#define MAX_THREADS 64u

/* Simulated cost (non-memory instructions at CPI 1), counted on what an -O3 build does: */
#define KIN_INSTRS 500u  /* a pose's limbs: 13 sin/cos pairs (~25 each), 20 joints rotated and moved */
#define PROJ_INSTRS 48u  /* a limb in a camera: two endpoints (rotate, divide, scale), normal, radius */
#define SAMPLE_INSTRS 14u /* a sample: its point, rounding, clamping, index, (1 - v)^2 accumulated */
#define WEIGHT_INSTRS 40u /* the two means, beta, exp */
#define PIX1_INSTRS 24u  /* a pixel of grad and fg: two differences, sqrt, two thresholds, fabs */
#define PIX2_INSTRS 22u  /* a pixel of edge: 9 taps multiplied and added, clamped neighbour indices */
#define ROW_INSTRS 8u    /* a row: its camera, its neighbours' rows, loop */
#define CDF_INSTRS 3u    /* a weight added to the running sum */
#define SEARCH_INSTRS 6u /* a step of the binary search for a parent */
#define DRAW_INSTRS 30u  /* a new particle's random draw and scaling */
#define NOISE_INSTRS 45u /* a dimension's Gaussian noise: half a Box-Muller pair (log, sqrt, sincos) */
#define EST_INSTRS 3u    /* a particle's weighted term of one estimated dimension */

#define PIX_BATCH 16u    /* pixels whose loads are in flight at once */
#define CDF_BATCH 64u    /* weights loaded at once */

/* Image model: intensities, thresholds (pass 1), camera (pinhole on a circle around the scene). */
#define GRAD_FULL 0.25   /* gradient magnitude mapped to 1 */
#define GRAD_THR 0.2     /* below: not an edge */
#define FG_THR 0.15      /* |img - bg| above: foreground */
#define CAM_DIST 4.0     /* m from the scene's centre */
#define CAM_H 0.9        /* m: the cameras' height */
#define FOCAL 2.0        /* focal length in image sides */

/* Filter: annealing and noise. */
#define BETA0 6.0        /* beta of layer 0; layer l: (l + 1) beta0, at most BETA_MAX */
#define BETA_MAX 300.0
#define ANNEAL 0.6       /* noise shrinks by this a layer */

/* The run's statistics, workload.bodytrack.* (stat_leaf below). */
enum { ST_WEIGHED, ST_REWEIGHED, ST_REDONE, ST_COUNT };

typedef struct bodytrack {
    uint64_t np, nl, nf, side; /* particles, layers, frames, pixels a side */
    unsigned nthreads;
    uint64_t seed;
    uint64_t img, bg, grad, fg, edge, part[2], wt, est, tickets, bar; /* remote */
    uint64_t done; /* remote: per thread, the last phase end (1, 2, ...) its share of which is done */
    uint64_t *cdf;             /* per thread: its cumulative weights (local) */
    uint64_t *stat[ST_COUNT];
} bodytrack_t;

typedef struct seg {
    double a[3], b[3], r; /* a limb: its axis from a to b (m), its radius */
} seg_t;

/* Lo and hi of share k of n items among m: [k n / m, (k + 1) n / m). */
static uint64_t share_lo(uint64_t k, uint64_t n, uint64_t m) { return k * n / m; }

/* -----------------------------------------------------------------------------------------------
 * The body model and the cameras (threads and check alike) */

/* Noise of each pose dimension at layer 0: the root's position (m), then angles (rad). */
static double sigma(unsigned d) { return d < 3 ? 0.05 : 0.12; }

/* The walking pose of frame f (what setup renders). */
static void true_pose(uint64_t f, double *p)
{
    const double t = 0.5 * (double)f, w = sin(2.0 * t);
    p[0] = 0.2 * sin(0.7 * t), p[1] = 0.95, p[2] = 0.3 * sin(0.4 * t), p[3] = 0.4 * t, p[4] = 0.05;
    for (unsigned k = 0; k < 4; k++) {
        double s = k & 1 ? -1.0 : 1.0, *q = &p[5 + 3 * k];
        if (k < 2) /* arms: swing, abduction, elbow */
            q[0] = 0.5 * s * w, q[1] = 0.15, q[2] = 0.3 + 0.2 * s * w;
        else /* legs: swing, abduction, knee */
            q[0] = -0.4 * s * w, q[1] = 0.05, q[2] = -0.3 - 0.2 * s * w;
    }
}

static void add3(double *o, const double *a, double k, const double *d)
{
    for (unsigned i = 0; i < 3; i++)
        o[i] = a[i] + k * d[i];
}

/* A limb from base (side +1 left, -1 right) with swing a, abduction bb, flex c: two segments. */
static void limb(seg_t *s, const double *base, double side, const double *q, double l1, double l2, double r1,
                 double r2)
{
    const double a = q[0], bb = q[1], c = q[2];
    const double d1[3] = {side * sin(bb), -cos(a) * cos(bb), sin(a) * cos(bb)};
    const double d2[3] = {side * sin(bb), -cos(a + c) * cos(bb), sin(a + c) * cos(bb)};
    memcpy(s[0].a, base, sizeof s[0].a);
    add3(s[0].b, base, l1, d1);
    memcpy(s[1].a, s[0].b, sizeof s[1].a);
    add3(s[1].b, s[0].b, l2, d2);
    s[0].r = r1, s[1].r = r2;
}

/* Point v of the body's frame into the world: turned by the yaw (cos cy, sin sy), moved to the root. */
static void place(double *v, const double *p, double cy, double sy)
{
    const double x = v[0], z = v[2];
    v[0] = p[0] + cy * x + sy * z, v[1] += p[1], v[2] = p[2] - sy * x + cy * z;
}

/* The ten limbs of pose p in world coordinates (y up). */
static void body(const double *p, seg_t *s)
{
    const double o[3] = {0, 0, 0}, up[3] = {0, cos(p[4]), sin(p[4])};
    double neck[3], top[3];
    add3(neck, o, 0.55, up);
    add3(top, neck, 0.25, up);
    memcpy(s[0].a, o, sizeof s[0].a), memcpy(s[0].b, neck, sizeof s[0].b), s[0].r = 0.14;
    memcpy(s[1].a, neck, sizeof s[1].a), memcpy(s[1].b, top, sizeof s[1].b), s[1].r = 0.1;
    for (unsigned k = 0; k < 4; k++) {
        const double side = k & 1 ? -1.0 : 1.0;
        double base[3];
        if (k < 2)
            base[0] = neck[0] + 0.2 * side, base[1] = neck[1], base[2] = neck[2];
        else
            base[0] = 0.1 * side, base[1] = 0, base[2] = 0;
        if (k < 2)
            limb(&s[2 + 2 * k], base, side, &p[5 + 3 * k], 0.3, 0.28, 0.05, 0.04);
        else
            limb(&s[2 + 2 * k], base, side, &p[5 + 3 * k], 0.45, 0.45, 0.08, 0.06);
    }
    const double cy = cos(p[3]), sy = sin(p[3]);
    for (unsigned i = 0; i < PARTS; i++) {
        place(s[i].a, p, cy, sy);
        place(s[i].b, p, cy, sy);
    }
}

/* Point v into camera c: image coordinates (u right, w down, pixels); returns the depth. */
static double project(uint64_t side, unsigned c, const double *v, double *u, double *w)
{
    const double th = 0.3 + 1.5707963267948966 * c, ct = cos(th), st = sin(th);
    const double x = ct * v[0] - st * v[2], z = st * v[0] + ct * v[2], depth = CAM_DIST - z;
    const double f = FOCAL * (double)side, h = 0.5 * (double)side;
    *u = h + f * x / depth;
    *w = h - f * (v[1] - CAM_H) / depth;
    return depth;
}

/* A limb in camera c: endpoints (pixels), unit normal, radius (pixels). */
typedef struct seg2 {
    double au, aw, bu, bw, nu, nw, r;
} seg2_t;

static seg2_t project_seg(uint64_t side, unsigned c, const seg_t *s)
{
    seg2_t q;
    double da = project(side, c, s->a, &q.au, &q.aw), db = project(side, c, s->b, &q.bu, &q.bw);
    double du = q.bu - q.au, dw = q.bw - q.aw, len = sqrt(du * du + dw * dw);
    q.nu = len > 1e-9 ? -dw / len : 1.0;
    q.nw = len > 1e-9 ? du / len : 0.0;
    q.r = FOCAL * (double)side * s->r / (0.5 * (da + db));
    return q;
}

static uint64_t clampi(double x, uint64_t side)
{
    double r = floor(x + 0.5);
    return r < 0 ? 0 : r > (double)(side - 1) ? side - 1 : (uint64_t)r;
}

/* The pixels (index in a camera's map) camera c samples for limbs s: the edge map at idx[0 ..
 * PARTS * EDGE_PTS), the foreground map at idx[PARTS * EDGE_PTS .. CAM_PTS). */
static void sample_pixels(uint64_t side, unsigned c, const seg_t *s, uint64_t *idx)
{
    for (unsigned k = 0; k < PARTS; k++) {
        seg2_t q = project_seg(side, c, &s[k]);
        for (unsigned j = 0; j < SAMPLES; j++) {
            double t = (j + 0.5) / SAMPLES, u = q.au + t * (q.bu - q.au), w = q.aw + t * (q.bw - q.aw);
            uint64_t *e = &idx[k * EDGE_PTS + 2 * j];
            e[0] = clampi(w + q.r * q.nw, side) * side + clampi(u + q.r * q.nu, side);
            e[1] = clampi(w - q.r * q.nw, side) * side + clampi(u - q.r * q.nu, side);
            idx[PARTS * EDGE_PTS + k * SAMPLES + j] = clampi(w, side) * side + clampi(u, side);
        }
    }
}

/* Adds camera's sampled values (as sample_pixels orders them) to the two error sums. */
static void add_errors(const double *v, double *ee, double *ef)
{
    for (unsigned i = 0; i < PARTS * EDGE_PTS; i++)
        *ee += (1.0 - v[i]) * (1.0 - v[i]);
    for (unsigned i = PARTS * EDGE_PTS; i < CAM_PTS; i++)
        *ef += (1.0 - v[i]) * (1.0 - v[i]);
}

static double weight_of(double ee, double ef, uint64_t l)
{
    double beta = fmin(BETA0 * (double)(l + 1), BETA_MAX);
    return exp(-beta * (ee / (CAMS * PARTS * EDGE_PTS) + ef / (CAMS * PARTS * SAMPLES)));
}

/* The parent and noisy pose of new particle j at step s after layer l, from cumulative weights
 * cdf (read through get) and the old set (read through get_old). Threads and check alike. */
static rng_t particle_rng(uint64_t seed, uint64_t s, uint64_t j)
{
    rng_t r;
    rng_init(&r, wl_mix64(seed ^ wl_mix64(s << 32 | j)));
    return r;
}

static void noise(rng_t *r, uint64_t nl, uint64_t l, double *p)
{
    const double k = pow(ANNEAL, (double)((l + 1) % nl));
    for (unsigned d = 0; d < DIMS; d += 2) {
        double u1 = 1.0 - rng_unit(r), u2 = rng_unit(r), m = sqrt(-2.0 * log(u1));
        p[d] += k * sigma(d) * m * cos(6.283185307179586 * u2);
        if (d + 1 < DIMS)
            p[d + 1] += k * sigma(d + 1) * m * sin(6.283185307179586 * u2);
    }
}

/* -----------------------------------------------------------------------------------------------
 * The synthetic input */

static double bg_value(unsigned c, uint64_t x, uint64_t y, uint64_t side, rng_t *r)
{
    double s = 8.0 / (double)side;
    return 0.25 + 0.1 * sin(s * 3.0 * (double)x + c) * cos(s * 2.0 * (double)y) + 0.02 * rng_unit(r);
}

static void make_bg(const bodytrack_t *b, double *bg)
{
    rng_t r;
    rng_init_named(&r, b->seed, "bodytrack.bg");
    const uint64_t S = b->side;
    for (unsigned c = 0; c < CAMS; c++)
        for (uint64_t y = 0; y < S; y++)
            for (uint64_t x = 0; x < S; x++)
                bg[(c * S + y) * S + x] = bg_value(c, x, y, S, &r);
}

/* Distance (pixels) of pixel (x, y) from limb q's axis. */
static double seg_dist(const seg2_t *q, double x, double y)
{
    double du = q->bu - q->au, dw = q->bw - q->aw, l2 = du * du + dw * dw;
    double t = l2 > 0 ? ((x - q->au) * du + (y - q->aw) * dw) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double eu = q->au + t * du - x, ew = q->aw + t * dw - y;
    return sqrt(eu * eu + ew * ew);
}

/* Frame f's images: the walking pose over the background, limbs of intensity 0.75 .. 0.93. */
static void make_frame(const bodytrack_t *b, uint64_t f, const double *bg, double *img)
{
    const uint64_t S = b->side;
    double p[DIMS];
    seg_t s[PARTS];
    true_pose(f, p);
    body(p, s);
    rng_t r;
    rng_init(&r, wl_mix64(b->seed ^ wl_mix64(0xb0d7 + f)));
    for (unsigned c = 0; c < CAMS; c++) {
        seg2_t q[PARTS];
        for (unsigned k = 0; k < PARTS; k++)
            q[k] = project_seg(S, c, &s[k]);
        for (uint64_t y = 0; y < S; y++)
            for (uint64_t x = 0; x < S; x++) {
                double v = bg[(c * S + y) * S + x];
                for (unsigned k = 0; k < PARTS; k++)
                    if (seg_dist(&q[k], (double)x, (double)y) < fmax(q[k].r, 0.7))
                        v = 0.75 + 0.02 * k;
                img[(c * S + y) * S + x] = v + 0.02 * (rng_unit(&r) - 0.5);
            }
    }
}

static void initial_particles(const bodytrack_t *b, double *part)
{
    rng_t r;
    rng_init_named(&r, b->seed, "bodytrack.particles");
    double p[DIMS];
    true_pose(0, p);
    for (uint64_t i = 0; i < b->np; i++)
        for (unsigned d = 0; d < DIMS; d++)
            part[i * DIMS + d] = p[d] + 2.0 * sigma(d) * (rng_unit(&r) - 0.5);
}

/* -----------------------------------------------------------------------------------------------
 * Image processing, one pixel (threads and check alike) */

/* grad and fg of a pixel from its image value c, its four neighbours and background value g. */
static void pixel1(double c, double l, double r, double up, double dn, double g, double *grad, double *fg)
{
    double gx = 0.5 * (r - l), gy = 0.5 * (dn - up), m = sqrt(gx * gx + gy * gy) / GRAD_FULL;
    *grad = m < GRAD_THR ? 0.0 : fmin(m, 1.0);
    *fg = fabs(c - g) > FG_THR ? 1.0 : 0.0;
}

/* The 3 x 3 Gaussian of nine values, row by row. */
static double pixel2(const double *v)
{
    static const double k[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    double s = 0;
    for (unsigned i = 0; i < 9; i++)
        s += k[i] * v[i];
    return s / 16.0;
}

/* Neighbour offsets of pixel (x, y) in a side x side map, clamped at the borders. */
static void neighbours(uint64_t side, uint64_t x, uint64_t y, uint64_t *xs, uint64_t *ys)
{
    xs[0] = x ? x - 1 : 0, xs[1] = x, xs[2] = x + 1 < side ? x + 1 : x;
    ys[0] = y ? y - 1 : 0, ys[1] = y, ys[2] = y + 1 < side ? y + 1 : y;
}

/* ------------------------------------------------------------------------------------------------
 * Setup */

static void bt_free(void *state)
{
    bodytrack_t *b = state;
    if (b)
        free(b->cdf);
    free(b);
}

static int refuse_sizes(const wl_env_t *e, const sim_config_t *c, char *err)
{
    const struct {
        uint64_t v;
        const char *key;
    } z[] = {{c->workload.bodytrack_particles, "particles"}, {c->workload.bodytrack_layers, "layers"},
             {c->workload.bodytrack_frames, "frames"}};
    for (unsigned i = 0; i < 3; i++)
        if (z[i].v == 0)
            return wl_errf(err, "bodytrack: workload.bodytrack_%s = 0: nothing to track", z[i].key);
    if (c->workload.bodytrack_image < MIN_SIDE)
        return wl_errf(err, "bodytrack: workload.bodytrack_image = %llu pixels a side is too small for the body "
                       "model: at least %u", (unsigned long long)c->workload.bodytrack_image, MIN_SIDE);
    if (c->workload.bodytrack_particles > (1ull << 31) || c->workload.bodytrack_layers * c->workload.bodytrack_frames >
                                                                 (1ull << 31))
        return wl_errf(err, "bodytrack: workload.bodytrack_particles or frames x layers beyond 2^31");
    if (e->nthreads > MAX_THREADS)
        return wl_errf(err, "bodytrack: %u threads, at most %u (its barriers)", e->nthreads, MAX_THREADS);
    return 0;
}

static int alloc_remote(wl_env_t *e, bodytrack_t *b, char *err)
{
    const uint64_t map = CAMS * b->side * b->side * 8;
    uint64_t *a[] = {&b->img, &b->bg, &b->grad, &b->fg, &b->edge, &b->part[0], &b->part[1], &b->wt, &b->est,
                     &b->tickets, &b->bar, &b->done};
    const uint64_t n[] = {b->nf * map, map, map, map, map, b->np * DIMS * 8, b->np * DIMS * 8, b->np * 16,
                          b->nf * DIMS * 8, b->nf * b->nl * 8, WL_BARRIER_BYTES, b->nthreads * 8};
    uint64_t total = 0;
    for (unsigned i = 0; i < sizeof a / sizeof a[0]; i++) {
        total += n[i];
        *a[i] = e->ops->alloc_cxl(e, n[i]);
        if (*a[i] == WL_ALLOC_FAIL) {
            for (unsigned k = i + 1; k < sizeof a / sizeof a[0]; k++)
                total += n[k];
            return wl_errf(err, "bodytrack: the images (%llu frames of %u cameras, %llu x %llu pixels), their maps "
                           "and %llu particles (%llu bytes) do not fit the CXL memory (workload.bodytrack_image, "
                           "workload.bodytrack_frames, workload.bodytrack_particles)", (unsigned long long)b->nf,
                           CAMS, (unsigned long long)b->side, (unsigned long long)b->side, (unsigned long long)b->np,
                           (unsigned long long)total);
        }
    }
    return 0;
}

static void poke_doubles(wl_env_t *e, uint64_t addr, const double *v, uint64_t n)
{
    for (uint64_t k = 0; k < n; k++)
        e->ops->poke(e, 0, addr + 8 * k, wl_bits(v[k]));
}

static int poke_input(wl_env_t *e, const bodytrack_t *b, char *err)
{
    const uint64_t map = CAMS * b->side * b->side;
    double *bg = malloc(map * sizeof *bg), *img = malloc(map * sizeof *img);
    double *part = malloc(b->np * DIMS * sizeof *part);
    if (!bg || !img || !part) {
        free(bg), free(img), free(part);
        return wl_errf(err, "bodytrack: out of host memory for images of %llu x %llu pixels (workload.bodytrack_image)",
                       (unsigned long long)b->side, (unsigned long long)b->side);
    }
    make_bg(b, bg);
    poke_doubles(e, b->bg, bg, map);
    for (uint64_t f = 0; f < b->nf; f++) {
        make_frame(b, f, bg, img);
        poke_doubles(e, b->img + 8 * f * map, img, map);
    }
    initial_particles(b, part);
    poke_doubles(e, b->part[0], part, b->np * DIMS);
    free(bg), free(img), free(part);
    return 0;
}

static const char *const stat_leaf[ST_COUNT] = {"weighed", "reweighed", "redone"};
static const char *const stat_doc[ST_COUNT] = {
    "particle weights computed (a particle a layer, and again those a lost thread owed)",
    "particle weights a survivor computed again: their tickets were taken by a lost thread",
    "bands (image rows, new particles and estimated dimensions) of lost threads redone by survivors"};

/* On failure the state is freed here: the caller frees it only after a successful setup. */
static int bt_setup(wl_env_t *e, void **state, char *err)
{
    const sim_config_t *c = e->cfg;
    *state = NULL;
    if (refuse_sizes(e, c, err))
        return -1;
    bodytrack_t *b = calloc(1, sizeof *b);
    if (!b || !(b->cdf = calloc(e->nthreads, sizeof *b->cdf))) {
        bt_free(b);
        return wl_errf(err, "bodytrack: out of host memory");
    }
    b->np = c->workload.bodytrack_particles;
    b->nl = c->workload.bodytrack_layers;
    b->nf = c->workload.bodytrack_frames;
    b->side = c->workload.bodytrack_image;
    b->nthreads = e->nthreads;
    b->seed = e->seed;
    uint64_t *stat[ST_COUNT];
    int rc = alloc_remote(e, b, err);
    for (unsigned t = 0; rc == 0 && t < e->nthreads; t++) {
        b->cdf[t] = e->ops->alloc_local(e, e->thread_cn[t], b->np * 8);
        if (b->cdf[t] == WL_ALLOC_FAIL)
            rc = wl_errf(err, "bodytrack: thread %u's cumulative weights (%llu bytes, workload.bodytrack_particles = "
                         "%llu) do not fit CN %u's local memory", t, (unsigned long long)(b->np * 8),
                         (unsigned long long)b->np, e->thread_cn[t]);
    }
    if (rc == 0)
        rc = wl_counters(e, "bodytrack", stat_leaf, stat_doc, ST_COUNT, stat, err);
    if (rc == 0)
        rc = poke_input(e, b, err);
    if (rc) {
        bt_free(b);
        return -1;
    }
    memcpy(b->stat, stat, sizeof stat);
    *state = b;
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * The threads */

enum { PH_PASS1, PH_PASS2, PH_RESAMPLE };

#define MAP(m, c, y, x) ((m) + 8 * (((c) * b->side + (y)) * b->side + (x)))

/* Pass 1 of image rows [lo, hi) of frame f (row r: camera r / side, y = r % side). */
static void pass1_rows(wl_thread_t *t, const bodytrack_t *b, uint64_t f, uint64_t lo, uint64_t hi)
{
    const uint64_t S = b->side, im = b->img + 8 * f * CAMS * S * S;
    for (uint64_t row = lo; row < hi; row++) {
        const unsigned c = (unsigned)(row / S);
        const uint64_t y = row % S;
        wl_compute(t, ROW_INSTRS);
        for (uint64_t x0 = 0; x0 < S; x0 += PIX_BATCH) {
            uint64_t a[6 * PIX_BATCH], v[6 * PIX_BATCH], xs[3], ys[3];
            unsigned np = 0;
            for (uint64_t x = x0; x < S && np < PIX_BATCH; x++, np++) {
                neighbours(S, x, y, xs, ys);
                uint64_t *q = &a[6 * np];
                q[0] = MAP(im, c, y, x), q[1] = MAP(im, c, y, xs[0]), q[2] = MAP(im, c, y, xs[2]);
                q[3] = MAP(im, c, ys[0], x), q[4] = MAP(im, c, ys[2], x), q[5] = MAP(b->bg, c, y, x);
            }
            wl_ld_batch(t, a, v, 6 * np);
            wl_compute(t, (uint64_t)PIX1_INSTRS * np);
            for (unsigned p = 0; p < np; p++) {
                const uint64_t *q = &v[6 * p];
                double g, fg;
                pixel1(wl_dbl(q[0]), wl_dbl(q[1]), wl_dbl(q[2]), wl_dbl(q[3]), wl_dbl(q[4]), wl_dbl(q[5]), &g, &fg);
                wl_st(t, MAP(b->grad, c, y, x0 + p), wl_bits(g));
                wl_st(t, MAP(b->fg, c, y, x0 + p), wl_bits(fg));
            }
        }
    }
}

/* Pass 2 (edge = grad blurred) of image rows [lo, hi). */
static void pass2_rows(wl_thread_t *t, const bodytrack_t *b, uint64_t lo, uint64_t hi)
{
    const uint64_t S = b->side;
    for (uint64_t row = lo; row < hi; row++) {
        const unsigned c = (unsigned)(row / S);
        const uint64_t y = row % S;
        wl_compute(t, ROW_INSTRS);
        for (uint64_t x0 = 0; x0 < S; x0 += PIX_BATCH / 2) {
            uint64_t a[9 * PIX_BATCH / 2], v[9 * PIX_BATCH / 2], xs[3], ys[3];
            unsigned np = 0;
            for (uint64_t x = x0; x < S && np < PIX_BATCH / 2; x++, np++) {
                neighbours(S, x, y, xs, ys);
                for (unsigned i = 0; i < 9; i++)
                    a[9 * np + i] = MAP(b->grad, c, ys[i / 3], xs[i % 3]);
            }
            wl_ld_batch(t, a, v, 9 * np);
            wl_compute(t, (uint64_t)PIX2_INSTRS * np);
            for (unsigned p = 0; p < np; p++) {
                double n9[9];
                for (unsigned i = 0; i < 9; i++)
                    n9[i] = wl_dbl(v[9 * p + i]);
                wl_st(t, MAP(b->edge, c, y, x0 + p), wl_bits(pixel2(n9)));
            }
        }
    }
}

/* The weight of particle i at step s (layer l): its record {weight, s}. */
static void weigh(wl_thread_t *t, const bodytrack_t *b, uint64_t s, uint64_t l, uint64_t i)
{
    const uint64_t cur = b->part[(s - 1) & 1], S = b->side;
    uint64_t a[CAM_PTS], v[CAM_PTS], idx[CAM_PTS];
    double p[DIMS], vals[CAM_PTS], ee = 0, ef = 0;
    for (unsigned d = 0; d < DIMS; d++)
        a[d] = cur + 8 * (i * DIMS + d);
    wl_ld_batch(t, a, v, DIMS);
    for (unsigned d = 0; d < DIMS; d++)
        p[d] = wl_dbl(v[d]);
    seg_t seg[PARTS];
    body(p, seg);
    wl_compute(t, KIN_INSTRS);
    for (unsigned c = 0; c < CAMS; c++) {
        sample_pixels(S, c, seg, idx);
        for (unsigned k = 0; k < CAM_PTS; k++)
            a[k] = (k < PARTS * EDGE_PTS ? b->edge : b->fg) + 8 * (c * S * S + idx[k]);
        wl_compute(t, PARTS * PROJ_INSTRS);
        wl_ld_batch(t, a, v, CAM_PTS);
        for (unsigned k = 0; k < CAM_PTS; k++)
            vals[k] = wl_dbl(v[k]);
        add_errors(vals, &ee, &ef);
        wl_compute(t, CAM_PTS * SAMPLE_INSTRS);
    }
    wl_compute(t, WEIGHT_INSTRS);
    wl_st(t, b->wt + 16 * i, wl_bits(weight_of(ee, ef, l)));
    wl_st(t, b->wt + 16 * i + 8, s);
    (*b->stat[ST_WEIGHED])++;
}

/* Thread tid's rank among the live threads; *nlive: how many live. */
static unsigned live_rank(const wl_thread_t *t, unsigned tid, unsigned *nlive)
{
    unsigned r = 0, n = 0;
    for (unsigned k = 0; k < t->nthreads; k++)
        if (wl_alive(t, k)) {
            r += k < tid;
            n++;
        }
    *nlive = n;
    return r;
}

/* The cumulative weights of the current step into this thread's local memory; returns the total. */
static double make_cdf(wl_thread_t *t, const bodytrack_t *b)
{
    const uint64_t cdf = b->cdf[t->tid];
    double sum = 0;
    for (uint64_t i0 = 0; i0 < b->np; i0 += CDF_BATCH) {
        uint64_t a[CDF_BATCH], v[CDF_BATCH];
        unsigned n = 0;
        for (uint64_t i = i0; i < b->np && n < CDF_BATCH; i++, n++)
            a[n] = b->wt + 16 * i;
        wl_ld_batch(t, a, v, n);
        wl_compute(t, (uint64_t)CDF_INSTRS * n);
        for (unsigned k = 0; k < n; k++) {
            sum += wl_dbl(v[k]);
            wl_st(t, cdf + 8 * (i0 + k), wl_bits(sum));
        }
    }
    return sum;
}

/* The first particle whose cumulative weight exceeds u (the last when none), a local binary search. */
static uint64_t find_parent(wl_thread_t *t, const bodytrack_t *b, double u)
{
    uint64_t lo = 0, hi = b->np - 1;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        wl_compute(t, SEARCH_INSTRS);
        if (wl_dbl(wl_ld(t, b->cdf[t->tid] + 8 * mid)) > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* New particles [lo, hi) after step s (layer l), from this thread's cumulative weights (total). */
static void resample(wl_thread_t *t, const bodytrack_t *b, uint64_t s, uint64_t l, double total, uint64_t lo,
                     uint64_t hi)
{
    const uint64_t cur = b->part[(s - 1) & 1], nxt = b->part[s & 1];
    for (uint64_t j = lo; j < hi; j++) {
        rng_t r = particle_rng(b->seed, s, j);
        double u = rng_unit(&r) * total;
        wl_compute(t, DRAW_INSTRS);
        uint64_t par = total > 0 ? find_parent(t, b, u) : j;
        uint64_t a[DIMS], v[DIMS];
        double p[DIMS];
        for (unsigned d = 0; d < DIMS; d++)
            a[d] = cur + 8 * (par * DIMS + d);
        wl_ld_batch(t, a, v, DIMS);
        for (unsigned d = 0; d < DIMS; d++)
            p[d] = wl_dbl(v[d]);
        noise(&r, b->nl, l, p);
        wl_compute(t, (uint64_t)NOISE_INSTRS * DIMS);
        for (unsigned d = 0; d < DIMS; d++)
            wl_st(t, nxt + 8 * (j * DIMS + d), wl_bits(p[d]));
    }
}

/* Estimated dimensions [lo, hi) of frame f: the weighted mean of the particles of step s. */
static void estimate(wl_thread_t *t, const bodytrack_t *b, uint64_t f, uint64_t s, unsigned lo, unsigned hi)
{
    const uint64_t cur = b->part[(s - 1) & 1];
    for (unsigned d = lo; d < hi; d++) {
        double sw = 0, sx = 0, sp = 0;
        for (uint64_t i0 = 0; i0 < b->np; i0 += CDF_BATCH / 2) {
            uint64_t a[CDF_BATCH], v[CDF_BATCH];
            unsigned n = 0;
            for (uint64_t i = i0; i < b->np && n < CDF_BATCH / 2; i++, n++)
                a[2 * n] = b->wt + 16 * i, a[2 * n + 1] = cur + 8 * (i * DIMS + d);
            wl_ld_batch(t, a, v, 2 * n);
            wl_compute(t, (uint64_t)EST_INSTRS * n);
            for (unsigned k = 0; k < n; k++) {
                double w = wl_dbl(v[2 * k]), x = wl_dbl(v[2 * k + 1]);
                sw += w, sx += w * x, sp += x;
            }
        }
        wl_st(t, b->est + 8 * (f * DIMS + d), wl_bits(sw > 0 ? sx / sw : sp / (double)b->np));
    }
}

/* Thread `owner`'s static share of phase ph (frame f, layer l; total: this thread's weight total). */
static void do_share(wl_thread_t *t, const bodytrack_t *b, int ph, unsigned owner, uint64_t f, uint64_t l,
                     double total)
{
    const unsigned n = b->nthreads;
    const uint64_t rows = CAMS * b->side, s = f * b->nl + l + 1;
    if (ph == PH_PASS1)
        pass1_rows(t, b, f, share_lo(owner, rows, n), share_lo(owner + 1, rows, n));
    else if (ph == PH_PASS2)
        pass2_rows(t, b, share_lo(owner, rows, n), share_lo(owner + 1, rows, n));
    else {
        if (l + 1 == b->nl)
            estimate(t, b, f, s, (unsigned)share_lo(owner, DIMS, n), (unsigned)share_lo(owner + 1, DIMS, n));
        resample(t, b, s, l, total, share_lo(owner, b->np, n), share_lo(owner + 1, b->np, n));
    }
}

/* The end of phase end number e (1, 2, ...: the same count in every thread). Each thread marks its
 * share of the phase done (done[tid] = e) before it arrives. Then, until a round finds every share
 * done: a barrier; every thread reads the marks (nobody writes one between this barrier and the
 * next, so all read the same and decide alike); a barrier; if some share is not done, the live
 * threads redo the missing ones (static phases: thread d's share goes to the live thread of rank d
 * mod live threads, which then marks it; weights: each particle whose weight record lacks step s,
 * its ticket taken by a lost thread, to the live thread of rank particle mod live threads) and a
 * round begins again. Without a loss that is the two barriers of a round; a CN lost while others
 * redo its threads' or earlier lost threads' work leaves that work to the next round. */
static bool shares_done(wl_thread_t *t, const bodytrack_t *b, uint64_t e)
{
    uint64_t a[MAX_THREADS], v[MAX_THREADS];
    for (unsigned d = 0; d < b->nthreads; d++)
        a[d] = b->done + 8 * d;
    wl_ld_batch(t, a, v, b->nthreads);
    for (unsigned d = 0; d < b->nthreads; d++)
        if (v[d] != e)
            return false;
    return true;
}

/* The weights of step s of layer l all there (their records hold s): loads every record's step. With
 * redo, this thread also weighs the missing ones whose particle number is its rank among the nlive
 * live threads, modulo nlive. */
static bool weights_done(wl_thread_t *t, const bodytrack_t *b, uint64_t s, uint64_t l, bool redo, unsigned me,
                         unsigned nlive)
{
    bool all = true;
    for (uint64_t i0 = 0; i0 < b->np; i0 += CDF_BATCH) {
        uint64_t a[CDF_BATCH], v[CDF_BATCH];
        unsigned n = 0;
        for (uint64_t i = i0; i < b->np && n < CDF_BATCH; i++, n++)
            a[n] = b->wt + 16 * i + 8;
        wl_ld_batch(t, a, v, n);
        for (unsigned k = 0; k < n; k++) {
            all &= v[k] == s;
            if (redo && v[k] != s && (i0 + k) % nlive == me) {
                weigh(t, b, s, l, i0 + k);
                (*b->stat[ST_REWEIGHED])++;
            }
        }
    }
    return all;
}

/* A round's decision, between its two barriers. */
static bool round_done(wl_thread_t *t, const bodytrack_t *b, unsigned *bp, uint64_t e, uint64_t s)
{
    wl_barrier(t, b->bar, b->nthreads, bp);
    bool done = shares_done(t, b, e) || (s && weights_done(t, b, s, 0, false, 0, 1));
    wl_barrier(t, b->bar, b->nthreads, bp);
    return done;
}

/* The end of a phase of static shares (phase end e). */
static void end_static(wl_thread_t *t, const bodytrack_t *b, unsigned *bp, uint64_t e, int ph, uint64_t f,
                       uint64_t l, double total)
{
    wl_st(t, b->done + 8 * t->tid, e);
    while (!round_done(t, b, bp, e, 0)) {
        unsigned nlive, me = live_rank(t, t->tid, &nlive);
        uint64_t a[MAX_THREADS], v[MAX_THREADS];
        for (unsigned d = 0; d < b->nthreads; d++)
            a[d] = b->done + 8 * d;
        wl_ld_batch(t, a, v, b->nthreads);
        for (unsigned d = 0; d < b->nthreads; d++)
            if (v[d] != e && d % nlive == me) {
                do_share(t, b, ph, d, f, l, total);
                wl_st(t, b->done + 8 * d, e);
                (*b->stat[ST_REDONE])++;
            }
    }
}

/* The end of the weights of step s of layer l (phase end e). */
static void end_weights(wl_thread_t *t, const bodytrack_t *b, unsigned *bp, uint64_t e, uint64_t s, uint64_t l)
{
    wl_st(t, b->done + 8 * t->tid, e);
    while (!round_done(t, b, bp, e, s)) {
        unsigned nlive, me = live_rank(t, t->tid, &nlive);
        weights_done(t, b, s, l, true, me, nlive);
    }
}

static void bt_thread(wl_thread_t *t, void *state)
{
    const bodytrack_t *b = state;
    unsigned bp = 0;
    uint64_t e = 0; /* phase ends so far */
    for (uint64_t f = 0; f < b->nf; f++) {
        do_share(t, b, PH_PASS1, t->tid, f, 0, 0);
        end_static(t, b, &bp, ++e, PH_PASS1, f, 0, 0);
        do_share(t, b, PH_PASS2, t->tid, f, 0, 0);
        end_static(t, b, &bp, ++e, PH_PASS2, f, 0, 0);
        for (uint64_t l = 0; l < b->nl; l++) {
            const uint64_t s = f * b->nl + l + 1;
            for (uint64_t i; (i = wl_fadd(t, b->tickets + 8 * (s - 1), 1)) < b->np;)
                weigh(t, b, s, l, i);
            end_weights(t, b, &bp, ++e, s, l);
            double total = make_cdf(t, b);
            do_share(t, b, PH_RESAMPLE, t->tid, f, l, total);
            end_static(t, b, &bp, ++e, PH_RESAMPLE, f, l, total);
        }
    }
}

#undef MAP

/* ------------------------------------------------------------------------------------------------
 * The check: the same run, single-threaded */

typedef struct ref {
    double *bg, *img, *grad, *fg, *edge, *part[2], *w, *cdf, *est;
} ref_t;

static void ref_free(ref_t *r)
{
    free(r->bg), free(r->img), free(r->grad), free(r->fg), free(r->edge), free(r->part[0]), free(r->part[1]);
    free(r->w), free(r->cdf), free(r->est);
}

/* grad, fg and edge of the images img (one frame's). */
static void ref_maps(const bodytrack_t *b, ref_t *r, const double *img)
{
    const uint64_t S = b->side;
    for (unsigned c = 0; c < CAMS; c++)
        for (uint64_t y = 0; y < S; y++)
            for (uint64_t x = 0; x < S; x++) {
                uint64_t xs[3], ys[3], o = c * S * S;
                neighbours(S, x, y, xs, ys);
                const double *im = img + o;
                pixel1(im[y * S + x], im[y * S + xs[0]], im[y * S + xs[2]], im[ys[0] * S + x], im[ys[2] * S + x],
                       r->bg[o + y * S + x], &r->grad[o + y * S + x], &r->fg[o + y * S + x]);
            }
    for (unsigned c = 0; c < CAMS; c++)
        for (uint64_t y = 0; y < S; y++)
            for (uint64_t x = 0; x < S; x++) {
                uint64_t xs[3], ys[3], o = c * S * S;
                double n9[9];
                neighbours(S, x, y, xs, ys);
                for (unsigned i = 0; i < 9; i++)
                    n9[i] = r->grad[o + ys[i / 3] * S + xs[i % 3]];
                r->edge[o + y * S + x] = pixel2(n9);
            }
}

static void ref_weights(const bodytrack_t *b, ref_t *r, uint64_t s, uint64_t l)
{
    const double *cur = r->part[(s - 1) & 1];
    const uint64_t S = b->side;
    for (uint64_t i = 0; i < b->np; i++) {
        seg_t seg[PARTS];
        uint64_t idx[CAM_PTS];
        double vals[CAM_PTS], ee = 0, ef = 0;
        body(&cur[i * DIMS], seg);
        for (unsigned c = 0; c < CAMS; c++) {
            sample_pixels(S, c, seg, idx);
            for (unsigned k = 0; k < CAM_PTS; k++)
                vals[k] = (k < PARTS * EDGE_PTS ? r->edge : r->fg)[c * S * S + idx[k]];
            add_errors(vals, &ee, &ef);
        }
        r->w[i] = weight_of(ee, ef, l);
    }
}

static void ref_resample(const bodytrack_t *b, ref_t *r, uint64_t f, uint64_t s, uint64_t l)
{
    const double *cur = r->part[(s - 1) & 1];
    double *nxt = r->part[s & 1], sum = 0;
    for (uint64_t i = 0; i < b->np; i++)
        r->cdf[i] = sum += r->w[i];
    if (l + 1 == b->nl)
        for (unsigned d = 0; d < DIMS; d++) {
            double sw = 0, sx = 0, sp = 0;
            for (uint64_t i = 0; i < b->np; i++)
                sw += r->w[i], sx += r->w[i] * cur[i * DIMS + d], sp += cur[i * DIMS + d];
            r->est[f * DIMS + d] = sw > 0 ? sx / sw : sp / (double)b->np;
        }
    for (uint64_t j = 0; j < b->np; j++) {
        rng_t g = particle_rng(b->seed, s, j);
        double u = rng_unit(&g) * sum;
        uint64_t lo = 0, hi = b->np - 1;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (r->cdf[mid] > u)
                hi = mid;
            else
                lo = mid + 1;
        }
        uint64_t par = sum > 0 ? lo : j;
        memcpy(&nxt[j * DIMS], &cur[par * DIMS], DIMS * sizeof *nxt);
        noise(&g, b->nl, l, &nxt[j * DIMS]);
    }
}

static int ref_run(const bodytrack_t *b, ref_t *r)
{
    const uint64_t map = CAMS * b->side * b->side, pd = b->np * DIMS;
    r->bg = malloc(map * 8), r->img = malloc(b->nf * map * 8), r->grad = malloc(map * 8);
    r->fg = malloc(map * 8), r->edge = malloc(map * 8), r->part[0] = malloc(pd * 8), r->part[1] = calloc(pd, 8);
    r->w = malloc(b->np * 8), r->cdf = malloc(b->np * 8), r->est = malloc(b->nf * DIMS * 8);
    if (!r->bg || !r->img || !r->grad || !r->fg || !r->edge || !r->part[0] || !r->part[1] || !r->w || !r->cdf ||
        !r->est)
        return -1;
    make_bg(b, r->bg);
    initial_particles(b, r->part[0]);
    for (uint64_t f = 0; f < b->nf; f++)
        make_frame(b, f, r->bg, r->img + f * map);
    for (uint64_t f = 0; f < b->nf; f++) {
        ref_maps(b, r, r->img + f * map);
        for (uint64_t l = 0; l < b->nl; l++) {
            ref_weights(b, r, f * b->nl + l + 1, l);
            ref_resample(b, r, f, f * b->nl + l + 1, l);
        }
    }
    return 0;
}

/* The first of n words at addr (stride words apart) that differs from want[]; -1 when none. */
static int64_t first_diff(wl_env_t *e, unsigned cn, uint64_t addr, const double *want, uint64_t n, uint64_t *bad)
{
    int64_t first = -1;
    *bad = 0;
    for (uint64_t k = 0; k < n; k++)
        if (e->ops->peek(e, cn, addr + 8 * k) != wl_bits(want[k]) && (*bad)++ == 0)
            first = (int64_t)k;
    return first;
}

/* Each shared array against the reference. */
static int check_arrays(wl_env_t *e, const bodytrack_t *b, const ref_t *r, char *err)
{
    const uint64_t map = CAMS * b->side * b->side;
    const struct {
        const char *what;
        uint64_t addr, n;
        const double *want;
    } arr[] = {{"camera image", b->img, b->nf * map, r->img}, {"background", b->bg, map, r->bg},
               {"gradient map", b->grad, map, r->grad}, {"foreground map", b->fg, map, r->fg},
               {"edge map", b->edge, map, r->edge}, {"particle set 0", b->part[0], b->np * DIMS, r->part[0]},
               {"particle set 1", b->part[1], b->np * DIMS, r->part[1]},
               {"estimated pose", b->est, b->nf * DIMS, r->est}};
    for (unsigned i = 0; i < sizeof arr / sizeof arr[0]; i++) {
        uint64_t bad;
        int64_t k = first_diff(e, 0, arr[i].addr, arr[i].want, arr[i].n, &bad);
        if (k >= 0) {
            uint64_t got = e->ops->peek(e, 0, arr[i].addr + 8 * (uint64_t)k);
            return wl_errf(err, "bodytrack: %s word %lld holds %.17g (0x%016llx), want %.17g; %llu of %llu words "
                           "differ", arr[i].what, (long long)k, wl_dbl(got), (unsigned long long)got, arr[i].want[k],
                           (unsigned long long)bad, (unsigned long long)arr[i].n);
        }
    }
    const uint64_t last = b->nf * b->nl;
    for (uint64_t i = 0; i < b->np; i++) {
        uint64_t w = e->ops->peek(e, 0, b->wt + 16 * i), s = e->ops->peek(e, 0, b->wt + 16 * i + 8);
        if (w != wl_bits(r->w[i]) || s != last)
            return wl_errf(err, "bodytrack: particle %llu's weight record is {%.17g, step %llu}, want {%.17g, step "
                           "%llu}", (unsigned long long)i, wl_dbl(w), (unsigned long long)s, r->w[i],
                           (unsigned long long)last);
    }
    return 0;
}

/* Ticket counters, each live thread's cumulative weights, the barrier's words, the statistics. */
static int check_sync(wl_env_t *e, const bodytrack_t *b, const ref_t *r, char *err)
{
    const unsigned n = b->nthreads, lost = wl_env_lost(e);
    for (uint64_t s = 0; s < b->nf * b->nl; s++) {
        uint64_t got = e->ops->peek(e, 0, b->tickets + 8 * s);
        if (got < b->np + n - lost || got > b->np + n)
            return wl_errf(err, "bodytrack: step %llu's ticket counter is %llu, want %llu particles + one overshoot "
                           "for each of %u threads (%u lost)", (unsigned long long)s + 1, (unsigned long long)got,
                           (unsigned long long)b->np, n, lost);
    }
    for (unsigned t = 0; t < n; t++) {
        uint64_t bad;
        int64_t k = wl_env_alive(e, t) ? first_diff(e, e->thread_cn[t], b->cdf[t], r->cdf, b->np, &bad) : -1;
        if (k >= 0)
            return wl_errf(err, "bodytrack: thread %u's cumulative weight %lld is %.17g, want %.17g", t, (long long)k,
                           wl_dbl(e->ops->peek(e, e->thread_cn[t], b->cdf[t] + 8 * (uint64_t)k)), r->cdf[k]);
    }
    /* two barriers a phase end, and two more for each round that redid work after a loss */
    const uint64_t ends = b->nf * (2 + 2 * b->nl), least = 2 * ends, phases = e->ops->peek(e, 0, b->bar);
    if (lost ? phases < least || (phases - least) % 2 : phases != least)
        return wl_errf(err, "bodytrack: the barrier released %llu phases, want %s%llu", (unsigned long long)phases,
                       lost ? "an even number of them more than " : "", (unsigned long long)least);
    for (unsigned d = 0; d < n; d++)
        if (e->ops->peek(e, 0, b->done + 8 * d) != ends)
            return wl_errf(err, "bodytrack: thread %u's share of the last phase is marked done at phase end %llu, "
                           "want %llu", d, (unsigned long long)e->ops->peek(e, 0, b->done + 8 * d),
                           (unsigned long long)ends);
    if (wl_barrier_check(e, "bodytrack", b->bar, n, phases, "", true, err))
        return -1;
    if (!lost && (*b->stat[ST_WEIGHED] != b->nf * b->nl * b->np || *b->stat[ST_REWEIGHED] || *b->stat[ST_REDONE]))
        return wl_errf(err, "bodytrack: %llu weights computed, %llu again and %llu bands redone without a loss, want "
                       "%llu, 0 and 0", (unsigned long long)*b->stat[ST_WEIGHED],
                       (unsigned long long)*b->stat[ST_REWEIGHED], (unsigned long long)*b->stat[ST_REDONE],
                       (unsigned long long)(b->nf * b->nl * b->np));
    return 0;
}

static int bt_check(wl_env_t *e, void *state, char *err)
{
    const bodytrack_t *b = state;
    ref_t r = {0};
    int rc = ref_run(b, &r) ? wl_errf(err, "bodytrack: check: out of host memory") : 0;
    if (rc == 0)
        rc = check_arrays(e, b, &r, err);
    if (rc == 0)
        rc = check_sync(e, b, &r, err);
    ref_free(&r);
    return rc;
}

const workload_t wl_bodytrack = {
    .name = "bodytrack",
    .doc = "annealed particle filter tracking a body over four camera images: edge maps in row bands, particle "
           "weights from a ticket queue, resampling in bands, barriers between",
    .setup = bt_setup,
    .thread = bt_thread,
    .check = bt_check,
    .free = bt_free,
};
