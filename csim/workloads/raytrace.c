/* raytrace: a SPLASH-2 raytrace-like renderer of a read-mostly triangle scene, tile by tile.
 *
 * Shared data (CXL memory):
 *   - the scene, read-only once setup wrote it: raytrace_triangles triangles, each a record of 24
 *     words (three lines): vertex v0, edges e1 = v1 - v0 and e2 = v2 - v0 (the 9 doubles a ray's
 *     intersection test reads), the three vertex normals (9 doubles, interpolated at a hit as
 *     SPLASH-2's TriNormal does), an RGB colour and a reflectivity (4 doubles), two zero words;
 *     then a uniform grid of G^3 cells over the scene's bounding box (two words a cell: offset and
 *     count of its run in the index list) and the index list (triangle numbers, cell after cell).
 *     The triangles are a checkerboard floor (about a sixteenth of them) and up to 24 spheres, their
 *     radii waved, tessellated in latitude and longitude, placed, sized and coloured from the seed;
 *     every other sphere reflects;
 *   - the frame buffer: raytrace_image^2 pixels, row-major, one word a pixel (RGBA, 16 bits a
 *     channel, alpha opaque: never 0 once written);
 *   - the tiles: the image cut into 4 x 4 pixel tiles (SPLASH-2's bundles; the edge ones smaller),
 *     one state word each: the claiming thread's tid + 1 in the low half, the number of times it
 *     was rendered in the high half;
 *   - the work pools, one per thread, as SPLASH-2's distributed task queues: a line holding the
 *     pool's lock, its status (valid, or empty once someone found it empty) and its top, and an
 *     array of tile numbers (a stack: tiles are taken from the top). Setup deals the tiles out
 *     round-robin, tile k to pool k % nthreads, as InitWorkPool does;
 *   - a barrier.
 * Thread-private data (local memory of the thread's CN): its log of the tiles it rendered, its
 * counters (tiles, rays, steals, rescues) and its ray stack (a reflected ray is pushed there and
 * popped before it is traced, as the original keeps its ray tree in private memory).
 *
 * A thread takes a tile from its own pool, else from the others in turn (tid + 1, tid + 2, ...),
 * as GetJobs: it skips a pool whose status is empty, locks it, and pops the top tile, claiming it
 * by a CAS of the tile's state from 0 to its tid + 1 before it moves the top. For each pixel it
 * shoots a primary ray through the pixel's centre, walks the grid cell by cell (3-D DDA: each cell
 * read, then its index run, then its triangles' words: dependent loads) and intersects the
 * triangles of each cell (Moller-Trumbore) until the nearest hit lies within the cells walked.
 * The hit is shaded: ambient, Lambert and Phong terms of one point light, a shadow ray to it (any
 * hit stops it), and for a reflective triangle a reflected ray, up to two bounces. The pixel's
 * colour is stored to the frame buffer: one store per pixel, a whole ray tree's work apart, to
 * words of the same line for the pixels of a tile's row (the stores DIKTAMO's coalescing waits for
 * in vain, section VII). After its last pixel the thread adds 1 to the high half of the tile's
 * state (an atomic, which drains its pixel stores first) and logs the tile. With no tile left in
 * any pool it waits at the barrier.
 *
 * A pixel's colour depends on the scene alone, not on who renders it nor when: check() renders
 * every tile sequentially from setup's host copy of the scene, with the same code, and wants
 * every pixel bit for bit. It also wants the scene, the pools' arrays and the tiles' numbers in
 * them unchanged, every pool empty (top 0, status empty) and unlocked, the barrier released once
 * with every thread's bit, every tile rendered exactly once (high half 1) by the thread its low
 * half names, that thread's log holding it once, and each thread's counters matching its log
 * (tiles, steals, and rays: the sequential render counts each tile's rays).
 *
 * After a CN failure its threads are lost mid-work: their logs and counters with their CN's
 * memory, a pool lock maybe held (wl_lock takes it over), a tile maybe claimed but not moved off
 * its pool (the next popper skips it) or claimed and half rendered. Survivors steal the lost
 * threads' pools as any other. Past the barrier, if a thread was lost, each survivor sweeps the
 * tile states and rescues every tile a lost thread claimed and did not finish: it claims it by CAS
 * from the lost claimer and renders it again whole (the pixels already stored are the same values)
 * and logs it as rescued. The check then judges the same way, except that a lost thread has no log
 * to hold its tiles, and a tile a lost thread claimed and left unfinished (only when it was lost
 * after every survivor's sweep) may be half written: each of its pixels must be 0 or exact. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/rng.h"
#include "workloads/workloads.h"

#define RT_PI 3.14159265358979323846
#define TILE 4u             /* pixels per side of a tile (SPLASH-2's bundle) */
#define TRI_WORDS 24u       /* words of a triangle record */
#define T_NORMAL 9u         /* the record's vertex normals (9 words), after v0, e1, e2 */
#define T_COLOUR 18u        /* its colour (3 words) and reflectivity (1) */
#define MAX_DEPTH 3u        /* rays of a pixel's tree: the primary ray and two reflections */
#define CELLS_PER_TRI 2u    /* grid resolution: about two cells a triangle */
#define MAX_GRID 256u       /* cells per side at most */
#define TRIS_PER_OBJECT 32u /* triangles of an object, about (until there are MAX_OBJECTS) */
#define MAX_OBJECTS 24u
#define CHUNK 8u            /* triangles of a cell whose words are read at once */

/* Non-memory instructions (CPI 1), counted from the arithmetic each step does. */
#define PIXEL_INSTRS 30u /* the primary ray: the pixel's position on the screen, a normalized direction,
                            and the colour's clamping and packing */
#define WALK_INSTRS 40u  /* a walk's start: the slab clip of the box (6 divides, min/max), the first cell,
                            the steps and the distances to the next planes */
#define STEP_INSTRS 12u  /* a DDA step: the smallest of three distances, a cell index moved and tested */
#define CELL_INSTRS 6u   /* a cell's index arithmetic and its run's decoding */
#define TEST_INSTRS 38u  /* a Moller-Trumbore test: two cross products, three dot products, a divide
                            and the compares */
#define SHADE_INSTRS 70u /* a hit's shading: the interpolated normal normalized, the light vector,
                            Lambert, the Phong term (a reflection and a 16th power), the colour */
#define REFLECT_INSTRS 20u /* a reflected ray: its origin and direction, and the mix of its colour */
#define SWEEP_INSTRS 4u  /* per tile state looked at by a rescue sweep */

/* The state of a pool (word 1 of its line) and the words of the line. */
enum { WPS_VALID = 2, WPS_EMPTY = 3 };
enum { Q_LOCK, Q_STAT, Q_TOP };
#define DONE_ONE (1ull << 32) /* a tile state's count of renders */
#define RESCUED (1ull << 63)  /* a log entry's mark: a tile rescued from a lost thread */

/* A thread's counters in local memory. */
enum { C_TILES, C_RAYS, C_STEALS, C_RESCUES, C_SKIPS, C_TAKEOVERS, C_WORDS };
static const char *const c_names[C_WORDS] = {"raytrace.tiles", "raytrace.rays", "raytrace.steals",
                                             "raytrace.rescues", "raytrace.skips", "raytrace.takeovers"};
static const char *const c_docs[C_WORDS] = {
    "raytrace: tiles rendered", "raytrace: rays traced (primary, shadow and reflected)",
    "raytrace: tiles taken from another thread's pool",
    "raytrace: tiles a lost thread claimed and left unfinished, rendered again by a survivor",
    "raytrace: tiles found claimed on top of a pool taken over from a lost thread, left for the rescue",
    "raytrace: pool locks taken over from a lost thread"};

typedef struct rt {
    uint64_t side, ntris, ntiles, tiles_x, cap; /* cap: a pool's array */
    unsigned nthreads, grid;
    double bmin[3], cell[3];                       /* the grid's box and its cells' size */
    double eye[3], fwd[3], right[3], up[3], light[3]; /* camera and light */
    uint64_t scene, cells, list, nlist;            /* remote: the scene's start, its grid, its index list */
    uint64_t scene_words;
    uint64_t *img; /* host: the scene's words as setup wrote them */
    uint64_t fb, tstate, pools, arrays, bar; /* remote */
    uint64_t *log, *cnt, *stack;              /* per thread (local) */
    uint64_t *stat[C_WORDS];                  /* the run's statistics (workload.raytrace.*) */
} rt_t;

static double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static void normalize(double a[3])
{
    double l = sqrt(dot(a, a));
    if (l > 0)
        for (int i = 0; i < 3; i++)
            a[i] /= l;
}

/* ---------------------------------------------------------------------------------------------
 * The scene (setup, host side) */

static uint64_t tile_w(const rt_t *r, uint64_t k, uint64_t *x0, uint64_t *y0, uint64_t *h)
{
    *x0 = k % r->tiles_x * TILE;
    *y0 = k / r->tiles_x * TILE;
    *h = r->side - *y0 < TILE ? r->side - *y0 : TILE;
    return r->side - *x0 < TILE ? r->side - *x0 : TILE;
}

typedef struct object {
    double c[3], rad, colour[3], refl;
    uint64_t ntris, nlon, nlat, seed;
} object_t;

/* Vertex (i, j) of object o (latitude i of nlat, longitude j of nlon) and its sphere normal: the
 * radius bumped by a smooth wave of the object's own frequencies and phases, which vanishes at the
 * poles, so that neighbouring triangles share their vertices exactly. */
static void vertex(const object_t *o, uint64_t i, uint64_t j, double p[3], double n[3])
{
    j %= o->nlon;
    const double th = RT_PI * (double)i / (double)o->nlat, ph = 2 * RT_PI * (double)j / (double)o->nlon;
    const double f1 = (double)(2 + o->seed % 4), f2 = (double)(2 + (o->seed >> 8) % 5);
    const double p1 = (double)((o->seed >> 16) % 628) / 100, p2 = (double)((o->seed >> 32) % 628) / 100;
    const double bump = 1.0 + 0.15 * sin(th) * sin(f1 * th + p1) * cos(f2 * ph + p2);
    n[0] = sin(th) * cos(ph), n[1] = cos(th), n[2] = sin(th) * sin(ph);
    for (int a = 0; a < 3; a++)
        p[a] = o->c[a] + o->rad * bump * n[a];
}

/* Writes triangle k of object o, its vertices v[0..2] given as (latitude, longitude), into the host
 * image. */
static void put_tri(const rt_t *r, const object_t *o, uint64_t k, const uint64_t v[3][2], rng_t *g)
{
    double p[3][3], n[3][3];
    for (int i = 0; i < 3; i++)
        vertex(o, v[i][0], v[i][1], p[i], n[i]);
    uint64_t *w = r->img + k * TRI_WORDS;
    for (int a = 0; a < 3; a++) {
        w[a] = wl_bits(p[0][a]);
        w[3 + a] = wl_bits(p[1][a] - p[0][a]);
        w[6 + a] = wl_bits(p[2][a] - p[0][a]);
        for (int i = 0; i < 3; i++)
            w[T_NORMAL + 3 * i + a] = wl_bits(n[i][a]);
        w[T_COLOUR + a] = wl_bits(o->colour[a] * (0.9 + 0.1 * rng_unit(g)));
    }
    w[T_COLOUR + 3] = wl_bits(o->refl);
}

/* Object o's triangles from k on: its latitude bands top to bottom, two triangles a quad (one at a
 * pole), until it has its count. */
static uint64_t put_object(const rt_t *r, const object_t *o, uint64_t k, rng_t *g)
{
    uint64_t made = 0;
    for (uint64_t i = 0; i < o->nlat && made < o->ntris; i++)
        for (uint64_t j = 0; j < o->nlon && made < o->ntris; j++) {
            /* the quad's lower-left and upper-right halves; the first vanishes at the south pole, the
             * second at the north pole */
            const uint64_t a[3][2] = {{i, j}, {i + 1, j}, {i + 1, j + 1}};
            const uint64_t b[3][2] = {{i, j}, {i + 1, j + 1}, {i, j + 1}};
            if (i + 1 < o->nlat)
                put_tri(r, o, k + made++, a, g);
            if (i > 0 && made < o->ntris)
                put_tri(r, o, k + made++, b, g);
        }
    return made;
}

/* A floor of f x f squares (two triangles each) from k on, a checkerboard below the objects. */
static uint64_t put_floor(const rt_t *r, uint64_t f, uint64_t k, rng_t *g)
{
    const double y = -0.9, half = 2.4, s = 2 * half / (double)f;
    for (uint64_t i = 0; i < f; i++)
        for (uint64_t j = 0; j < f; j++)
            for (int h = 0; h < 2; h++) {
                uint64_t *w = r->img + (k + 2 * (i * f + j) + h) * TRI_WORDS;
                const double x0 = -half + s * (double)j, z0 = -half + s * (double)i, dark = (i + j) % 2 ? 0.35 : 0.85;
                /* (x0, z0), (x0 + s, z0 + s) and (x0 + s, z0) or (x0, z0 + s) */
                const double v0[3] = {x0, y, z0}, e1[3] = {s, 0, s}, e2[3] = {h ? 0 : s, 0, h ? s : 0};
                for (int a = 0; a < 3; a++) {
                    w[a] = wl_bits(v0[a]), w[3 + a] = wl_bits(e1[a]), w[6 + a] = wl_bits(e2[a]);
                    for (int v = 0; v < 3; v++)
                        w[T_NORMAL + 3 * v + a] = wl_bits(a == 1 ? 1.0 : 0.0);
                    w[T_COLOUR + a] = wl_bits(dark * (0.9 + 0.1 * rng_unit(g)));
                }
                w[T_COLOUR + 3] = wl_bits(0.0);
            }
    return 2 * f * f;
}

/* The floor (about a sixteenth of the triangles) and the objects, from the seed. */
static void make_triangles(rt_t *r, uint64_t seed)
{
    rng_t g;
    rng_init_named(&g, seed, "raytrace.scene");
    const uint64_t f = (uint64_t)floor(sqrt((double)r->ntris / 32.0)), nt = r->ntris - 2 * f * f;
    uint64_t k = put_floor(r, f, 0, &g), nobj = nt / TRIS_PER_OBJECT;
    nobj = nobj < 1 ? 1 : nobj > MAX_OBJECTS ? MAX_OBJECTS : nobj;
    for (uint64_t ob = 0; ob < nobj; ob++) {
        object_t o = {.ntris = nt / nobj + (ob < nt % nobj), .seed = wl_mix64(seed ^ ob)};
        o.nlon = (uint64_t)llround(sqrt((double)o.ntris));
        o.nlon = o.nlon < 3 ? 3 : o.nlon;
        o.nlat = 1 + (o.ntris + 2 * o.nlon - 1) / (2 * o.nlon);
        o.nlat = o.nlat < 2 ? 2 : o.nlat;
        const double span[3] = {1.3, 0.5, 1.3};
        for (int a = 0; a < 3; a++) {
            o.c[a] = span[a] * (2 * rng_unit(&g) - 1);
            o.colour[a] = 0.2 + 0.8 * rng_unit(&g);
        }
        o.rad = 0.25 + 0.3 * rng_unit(&g);
        o.refl = ob % 2 ? 0.4 : 0.0;
        k += put_object(r, &o, k, &g);
    }
}

/* The triangle's box in cells, [lo, hi] per axis. */
static void tri_cells(const rt_t *r, uint64_t k, int64_t lo[3], int64_t hi[3])
{
    const uint64_t *w = r->img + k * TRI_WORDS;
    for (int a = 0; a < 3; a++) {
        double v0 = wl_dbl(w[a]), v1 = v0 + wl_dbl(w[3 + a]), v2 = v0 + wl_dbl(w[6 + a]);
        double mn = fmin(v0, fmin(v1, v2)), mx = fmax(v0, fmax(v1, v2));
        lo[a] = (int64_t)floor((mn - r->bmin[a]) / r->cell[a]);
        hi[a] = (int64_t)floor((mx - r->bmin[a]) / r->cell[a]);
        lo[a] = lo[a] < 0 ? 0 : lo[a];
        hi[a] = hi[a] >= r->grid ? r->grid - 1 : hi[a];
    }
}

/* The grid's box (the triangles' one, a little larger) and its resolution. */
static void grid_box(rt_t *r)
{
    double mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint64_t k = 0; k < r->ntris; k++) {
        const uint64_t *w = r->img + k * TRI_WORDS;
        for (int a = 0; a < 3; a++)
            for (int i = 0; i < 3; i++) {
                double v = wl_dbl(w[a]) + (i ? wl_dbl(w[3 * i + a]) : 0.0);
                mn[a] = fmin(mn[a], v), mx[a] = fmax(mx[a], v);
            }
    }
    unsigned g = (unsigned)ceil(cbrt((double)(CELLS_PER_TRI * r->ntris)));
    r->grid = g < 1 ? 1 : g > MAX_GRID ? MAX_GRID : g;
    for (int a = 0; a < 3; a++) {
        double pad = 1e-3 * (mx[a] - mn[a]) + 1e-6;
        r->bmin[a] = mn[a] - pad;
        r->cell[a] = (mx[a] - mn[a] + 2 * pad) / r->grid;
    }
}

/* Counts the index list's entries (list == NULL) or fills the cells and the list. */
static uint64_t grid_fill(const rt_t *r, uint64_t *cells, uint64_t *list)
{
    const uint64_t g = r->grid, ncell = g * g * g;
    uint64_t *cnt = calloc(ncell, sizeof *cnt), total = 0;
    if (!cnt)
        return UINT64_MAX;
    for (int pass = 0; pass < (list ? 2 : 1); pass++) {
        if (pass == 1)
            for (uint64_t c = 0, off = 0; c < ncell; c++) {
                cells[2 * c] = off, cells[2 * c + 1] = 0;
                off += cnt[c];
            }
        for (uint64_t k = 0; k < r->ntris; k++) {
            int64_t lo[3], hi[3];
            tri_cells(r, k, lo, hi);
            for (int64_t z = lo[2]; z <= hi[2]; z++)
                for (int64_t y = lo[1]; y <= hi[1]; y++)
                    for (int64_t x = lo[0]; x <= hi[0]; x++) {
                        uint64_t c = ((uint64_t)z * g + (uint64_t)y) * g + (uint64_t)x;
                        if (pass == 0)
                            cnt[c]++, total++;
                        else
                            list[cells[2 * c] + cells[2 * c + 1]++] = k;
                    }
        }
    }
    free(cnt);
    return total;
}

/* The camera looks at the scene's centre from the front, a little above; the light is above left. */
static void camera(rt_t *r)
{
    const double eye[3] = {0.4, 1.2, -3.8}, at[3] = {0, -0.35, 0}, sky[3] = {0, 1, 0}, light[3] = {-3, 4, -2.5};
    const double half = tan(25.0 * RT_PI / 180.0); /* a 50-degree field of view */
    for (int a = 0; a < 3; a++) {
        r->eye[a] = eye[a], r->light[a] = light[a];
        r->fwd[a] = at[a] - eye[a];
    }
    normalize(r->fwd);
    cross(r->right, sky, r->fwd);
    normalize(r->right);
    cross(r->up, r->fwd, r->right);
    for (int a = 0; a < 3; a++)
        r->right[a] *= half, r->up[a] *= half;
}

/* ---------------------------------------------------------------------------------------------
 * The tracer: one code for the threads (loads from simulated memory, instructions counted) and
 * for check()'s sequential render (the host image), so that both compute the same bits. */

typedef struct tracer {
    const rt_t *r;
    wl_thread_t *t;  /* NULL: check()'s render */
    uint64_t stack;  /* the thread's ray stack (local) */
    uint64_t rays;   /* rays traced */
} tracer_t;

static void fetch(tracer_t *tr, const uint64_t *a, uint64_t *v, unsigned n)
{
    if (tr->t) {
        wl_ld_batch(tr->t, a, v, n);
        return;
    }
    for (unsigned i = 0; i < n; i++)
        v[i] = tr->r->img[(a[i] - tr->r->scene) / 8];
}

static void work(tracer_t *tr, uint64_t n)
{
    if (tr->t)
        wl_compute(tr->t, n);
}

typedef struct hit {
    double t, u, v;
    uint64_t tri;
} hit_t;

#define EPS 1e-9

/* Moller-Trumbore of the ray (o, d) and the triangle of words w (v0, e1, e2): the distance, or 0. */
static double intersect(const uint64_t w[9], const double o[3], const double d[3], double *u, double *v)
{
    const double v0[3] = {wl_dbl(w[0]), wl_dbl(w[1]), wl_dbl(w[2])}, e1[3] = {wl_dbl(w[3]), wl_dbl(w[4]), wl_dbl(w[5])};
    const double e2[3] = {wl_dbl(w[6]), wl_dbl(w[7]), wl_dbl(w[8])};
    double p[3], q[3], s[3];
    cross(p, d, e2);
    const double det = dot(e1, p);
    if (fabs(det) < 1e-14)
        return 0;
    const double inv = 1.0 / det;
    for (int a = 0; a < 3; a++)
        s[a] = o[a] - v0[a];
    *u = dot(s, p) * inv;
    if (*u < 0 || *u > 1)
        return 0;
    cross(q, s, e1);
    *v = dot(d, q) * inv;
    if (*v < 0 || *u + *v > 1)
        return 0;
    const double t = dot(e2, q) * inv;
    return t > EPS ? t : 0;
}

/* Tests the triangles of cell c: a nearer hit than h->t replaces it. any: the first hit ends it. */
static bool cell_test(tracer_t *tr, uint64_t c, const double o[3], const double d[3], bool any, hit_t *h)
{
    const rt_t *r = tr->r;
    uint64_t a[9 * CHUNK], v[9 * CHUNK], run[2];
    a[0] = r->cells + 16 * c, a[1] = a[0] + 8;
    fetch(tr, a, run, 2);
    work(tr, CELL_INSTRS);
    bool found = false;
    for (uint64_t i = 0; i < run[1]; i += CHUNK) {
        const unsigned n = run[1] - i < CHUNK ? (unsigned)(run[1] - i) : CHUNK;
        uint64_t ids[CHUNK];
        for (unsigned j = 0; j < n; j++)
            a[j] = r->list + 8 * (run[0] + i + j);
        fetch(tr, a, ids, n);
        for (unsigned j = 0; j < n; j++)
            for (unsigned w = 0; w < 9; w++)
                a[9 * j + w] = r->scene + 8 * (ids[j] * TRI_WORDS + w);
        fetch(tr, a, v, 9 * n);
        for (unsigned j = 0; j < n; j++) {
            double u, vv, t = intersect(&v[9 * j], o, d, &u, &vv);
            work(tr, TEST_INSTRS);
            if (t > 0 && t < h->t) {
                *h = (hit_t){t, u, vv, ids[j]};
                found = true;
                if (any)
                    return true;
            }
        }
    }
    return found;
}

/* Walks the grid along the ray (o, d), d normalized, up to distance h->t (3-D DDA, Amanatides and
 * Woo): the nearest hit in h, or with any the first one found. True when there is one. */
static bool walk(tracer_t *tr, const double o[3], const double d[3], bool any, hit_t *h)
{
    const rt_t *r = tr->r;
    const int64_t g = r->grid;
    double t0 = 0, t1 = h->t, tmax[3], tdelta[3];
    int64_t c[3], step[3];
    work(tr, WALK_INSTRS);
    for (int a = 0; a < 3; a++) {
        const double lo = r->bmin[a], hi = r->bmin[a] + r->cell[a] * (double)g;
        if (d[a] == 0) {
            if (o[a] < lo || o[a] > hi)
                return false;
            continue;
        }
        double ta = (lo - o[a]) / d[a], tb = (hi - o[a]) / d[a];
        t0 = fmax(t0, fmin(ta, tb));
        t1 = fmin(t1, fmax(ta, tb));
    }
    if (t0 > t1)
        return false;
    for (int a = 0; a < 3; a++) {
        const double p = o[a] + t0 * d[a];
        c[a] = (int64_t)floor((p - r->bmin[a]) / r->cell[a]);
        c[a] = c[a] < 0 ? 0 : c[a] >= g ? g - 1 : c[a];
        step[a] = d[a] > 0 ? 1 : d[a] < 0 ? -1 : 0;
        if (step[a] == 0) {
            tmax[a] = tdelta[a] = INFINITY;
            continue;
        }
        const double edge = r->bmin[a] + r->cell[a] * (double)(c[a] + (step[a] > 0));
        tmax[a] = (edge - o[a]) / d[a];
        tdelta[a] = r->cell[a] / fabs(d[a]);
    }
    bool found = false;
    for (;;) {
        found |= cell_test(tr, (uint64_t)((c[2] * g + c[1]) * g + c[0]), o, d, any, h);
        if (found && any)
            return true;
        const int a = tmax[0] <= tmax[1] ? (tmax[0] <= tmax[2] ? 0 : 2) : (tmax[1] <= tmax[2] ? 1 : 2);
        if (h->t <= tmax[a] || tmax[a] > t1)
            return found;
        c[a] += step[a];
        if (c[a] < 0 || c[a] >= g)
            return found;
        tmax[a] += tdelta[a];
        work(tr, STEP_INSTRS);
    }
}

static void background(const double d[3], double col[3])
{
    const double s = 0.5 * (d[1] + 1);
    col[0] = 0.15 + 0.25 * s, col[1] = 0.2 + 0.3 * s, col[2] = 0.35 + 0.5 * s;
}

/* The reflected ray goes through the thread's ray stack in local memory: pushed, then popped. */
static void spill(tracer_t *tr, unsigned depth, double ro[3], double rd[3])
{
    if (!tr->t)
        return;
    uint64_t a[6], v[6];
    for (unsigned i = 0; i < 6; i++) {
        a[i] = tr->stack + 8 * (8 * depth + i);
        wl_st(tr->t, a[i], wl_bits(i < 3 ? ro[i] : rd[i - 3]));
    }
    wl_ld_batch(tr->t, a, v, 6);
    for (unsigned i = 0; i < 3; i++)
        ro[i] = wl_dbl(v[i]), rd[i] = wl_dbl(v[3 + i]);
}

static void trace(tracer_t *tr, const double o[3], const double d[3], unsigned depth, double col[3]);

/* The colour at hit h of the ray (o, d). */
static void shade(tracer_t *tr, const hit_t *h, const double o[3], const double d[3], unsigned depth, double col[3])
{
    const rt_t *r = tr->r;
    uint64_t a[13], w[13];
    for (unsigned i = 0; i < 13; i++)
        a[i] = r->scene + 8 * (h->tri * TRI_WORDS + T_NORMAL + i);
    fetch(tr, a, w, 13);
    work(tr, SHADE_INSTRS);
    double p[3], n[3], l[3];
    const double b0 = 1 - h->u - h->v;
    for (int k = 0; k < 3; k++) {
        p[k] = o[k] + h->t * d[k];
        n[k] = b0 * wl_dbl(w[k]) + h->u * wl_dbl(w[3 + k]) + h->v * wl_dbl(w[6 + k]);
        l[k] = r->light[k] - p[k];
    }
    normalize(n);
    if (dot(n, d) > 0)
        for (int k = 0; k < 3; k++)
            n[k] = -n[k];
    const double dist = sqrt(dot(l, l));
    for (int k = 0; k < 3; k++)
        l[k] /= dist;
    double diff = dot(n, l), spec = 0;
    if (diff > 0) {
        double so[3];
        for (int k = 0; k < 3; k++)
            so[k] = p[k] + 1e-6 * n[k];
        hit_t sh = {.t = dist};
        tr->rays++;
        if (walk(tr, so, l, true, &sh))
            diff = 0;
    }
    if (diff > 0) {
        double rl = 0;
        for (int k = 0; k < 3; k++)
            rl -= (2 * diff * n[k] - l[k]) * d[k];
        spec = rl > 0 ? rl : 0;
        spec *= spec, spec *= spec, spec *= spec, spec *= spec; /* ^16 */
    } else {
        diff = 0;
    }
    for (int k = 0; k < 3; k++)
        col[k] = wl_dbl(w[9 + k]) * (0.12 + 0.8 * diff) + 0.5 * spec;
    const double refl = wl_dbl(w[12]);
    if (refl > 0 && depth + 1 < MAX_DEPTH) {
        double ro[3], rd[3], rc[3];
        const double dn = dot(d, n);
        for (int k = 0; k < 3; k++)
            rd[k] = d[k] - 2 * dn * n[k], ro[k] = p[k] + 1e-6 * n[k];
        work(tr, REFLECT_INSTRS);
        spill(tr, depth + 1, ro, rd);
        trace(tr, ro, rd, depth + 1, rc);
        for (int k = 0; k < 3; k++)
            col[k] = (1 - refl) * col[k] + refl * rc[k];
    }
}

static void trace(tracer_t *tr, const double o[3], const double d[3], unsigned depth, double col[3])
{
    hit_t h = {.t = 1e30};
    tr->rays++;
    if (walk(tr, o, d, false, &h))
        shade(tr, &h, o, d, depth, col);
    else
        background(d, col);
}

static uint64_t channel(double c)
{
    c = c < 0 ? 0 : c > 1 ? 1 : c;
    return (uint64_t)(c * 65535.0 + 0.5);
}

/* The colour of pixel (x, y), packed: RGBA, 16 bits each, alpha opaque. */
static uint64_t pixel(tracer_t *tr, uint64_t x, uint64_t y)
{
    const rt_t *r = tr->r;
    const double sx = 2 * ((double)x + 0.5) / (double)r->side - 1, sy = 1 - 2 * ((double)y + 0.5) / (double)r->side;
    double d[3], col[3];
    for (int a = 0; a < 3; a++)
        d[a] = r->fwd[a] + sx * r->right[a] + sy * r->up[a];
    normalize(d);
    work(tr, PIXEL_INSTRS);
    trace(tr, r->eye, d, 0, col);
    return channel(col[0]) | channel(col[1]) << 16 | channel(col[2]) << 32 | 0xffffull << 48;
}

/* Renders tile k: its pixels stored to the frame buffer (a thread) or to out (check()). */
static void render_tile(tracer_t *tr, uint64_t k, uint64_t *out)
{
    const rt_t *r = tr->r;
    uint64_t x0, y0, h, w = tile_w(r, k, &x0, &y0, &h);
    for (uint64_t y = y0; y < y0 + h; y++)
        for (uint64_t x = x0; x < x0 + w; x++) {
            const uint64_t px = pixel(tr, x, y);
            if (tr->t)
                wl_st(tr->t, r->fb + 8 * (y * r->side + x), px);
            else
                out[y * r->side + x] = px;
        }
}

/* ---------------------------------------------------------------------------------------------
 * Setup */

static void rt_free(void *state)
{
    rt_t *r = state;
    if (!r)
        return;
    free(r->img);
    free(r->log);
    free(r->cnt);
    free(r->stack);
    free(r);
}

static uint64_t pool_tiles(const rt_t *r, unsigned q)
{
    return q < r->ntiles ? (r->ntiles - q + r->nthreads - 1) / r->nthreads : 0;
}

/* The host image of the scene: triangles, grid, index list. */
static int build_scene(rt_t *r, uint64_t seed, char *err)
{
    const uint64_t tri_words = r->ntris * TRI_WORDS;
    if (!(r->img = calloc(tri_words, 8)))
        return wl_errf(err, "raytrace: out of host memory for %llu triangles", (unsigned long long)r->ntris);
    make_triangles(r, seed);
    grid_box(r);
    r->nlist = grid_fill(r, NULL, NULL);
    const uint64_t g = r->grid, cell_words = 2 * g * g * g;
    r->scene_words = tri_words + cell_words + r->nlist;
    uint64_t *img = r->nlist == UINT64_MAX ? NULL : realloc(r->img, r->scene_words * 8);
    if (!img)
        return wl_errf(err, "raytrace: out of host memory for a grid of %llu^3 cells", (unsigned long long)g);
    r->img = img;
    grid_fill(r, img + tri_words, img + tri_words + cell_words);
    return 0;
}

static int alloc_shared(rt_t *r, wl_env_t *e, char *err)
{
    const uint64_t n = r->nthreads;
    r->scene = e->ops->alloc_cxl(e, r->scene_words * 8);
    if (r->scene == WL_ALLOC_FAIL)
        return wl_errf(err, "raytrace: a scene of %llu triangles in a %u^3 grid (%llu bytes) does not fit the CXL "
                       "memory", (unsigned long long)r->ntris, r->grid, (unsigned long long)(r->scene_words * 8));
    r->cells = r->scene + 8 * r->ntris * TRI_WORDS;
    r->list = r->cells + 16ull * r->grid * r->grid * r->grid;
    r->fb = e->ops->alloc_cxl(e, 8 * r->side * r->side);
    r->tstate = e->ops->alloc_cxl(e, 8 * r->ntiles);
    r->pools = e->ops->alloc_cxl(e, 64 * n);
    r->arrays = e->ops->alloc_cxl(e, 8 * n * r->cap);
    r->bar = e->ops->alloc_cxl(e, WL_BARRIER_BYTES);
    if (r->fb == WL_ALLOC_FAIL || r->tstate == WL_ALLOC_FAIL || r->pools == WL_ALLOC_FAIL ||
        r->arrays == WL_ALLOC_FAIL || r->bar == WL_ALLOC_FAIL)
        return wl_errf(err, "raytrace: a %llu x %llu frame buffer and its %llu tiles do not fit the CXL memory",
                       (unsigned long long)r->side, (unsigned long long)r->side, (unsigned long long)r->ntiles);
    for (uint64_t i = 0; i < r->scene_words; i++)
        e->ops->poke(e, 0, r->scene + 8 * i, r->img[i]);
    for (unsigned q = 0; q < n; q++) {
        e->ops->poke(e, 0, r->pools + 64 * q + 8 * Q_STAT, WPS_VALID);
        e->ops->poke(e, 0, r->pools + 64 * q + 8 * Q_TOP, pool_tiles(r, q));
    }
    for (uint64_t k = 0; k < r->ntiles; k++)
        e->ops->poke(e, 0, r->arrays + 8 * (k % n * r->cap + k / n), k);
    return 0;
}

static int alloc_private(rt_t *r, wl_env_t *e, char *err)
{
    for (unsigned i = 0; i < C_WORDS; i++)
        if (!(r->stat[i] = e->ops->counter(e, c_names[i], c_docs[i], err)))
            return -1;
    for (unsigned t = 0; t < r->nthreads; t++) {
        const unsigned cn = e->thread_cn[t];
        r->log[t] = e->ops->alloc_local(e, cn, 8 * r->ntiles);
        r->cnt[t] = e->ops->alloc_local(e, cn, 8 * C_WORDS);
        r->stack[t] = e->ops->alloc_local(e, cn, 64 * MAX_DEPTH);
        if (r->log[t] == WL_ALLOC_FAIL || r->cnt[t] == WL_ALLOC_FAIL || r->stack[t] == WL_ALLOC_FAIL)
            return wl_errf(err, "raytrace: thread %u's tile log (%llu bytes) does not fit CN %u's local memory", t,
                           (unsigned long long)(8 * r->ntiles), cn);
    }
    return 0;
}

/* On failure the state is freed here: the caller frees it only after a successful setup. */
static int rt_setup(wl_env_t *e, void **state, char *err)
{
    const sim_config_t *c = e->cfg;
    *state = NULL;
    if (e->nthreads > 64)
        return wl_errf(err, "raytrace: %u threads, but its barrier (csim/cn/wl_sync.c) serves at most 64",
                       e->nthreads);
    rt_t *r = calloc(1, sizeof *r);
    if (!r)
        return wl_errf(err, "raytrace: out of host memory");
    r->side = c->workload.raytrace_image;
    r->ntris = c->workload.raytrace_triangles;
    r->nthreads = e->nthreads;
    r->tiles_x = (r->side + TILE - 1) / TILE;
    r->ntiles = r->tiles_x * r->tiles_x;
    r->cap = (r->ntiles + r->nthreads - 1) / r->nthreads;
    camera(r);
    int rc = 0;
    if (!(r->log = calloc(r->nthreads, sizeof *r->log)) || !(r->cnt = calloc(r->nthreads, sizeof *r->cnt)) ||
        !(r->stack = calloc(r->nthreads, sizeof *r->stack)))
        rc = wl_errf(err, "raytrace: out of host memory");
    if (!rc)
        rc = build_scene(r, e->seed, err);
    if (!rc)
        rc = alloc_shared(r, e, err);
    if (!rc)
        rc = alloc_private(r, e, err);
    if (rc)
        rt_free(r);
    else
        *state = r;
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * The threads */

/* Pops a tile of pool q into *k (GetJob): false when the pool is empty. */
static bool pop(const rt_t *r, wl_thread_t *t, unsigned q, uint64_t *k, uint64_t c[C_WORDS])
{
    const uint64_t pool = r->pools + 64 * q;
    if (wl_ld(t, pool + 8 * Q_STAT) != WPS_VALID)
        return false;
    if (wl_lock(t, pool + 8 * Q_LOCK))
        c[C_TAKEOVERS]++, (*r->stat[C_TAKEOVERS])++;
    uint64_t top = wl_ld(t, pool + 8 * Q_TOP);
    while (top > 0) {
        const uint64_t tile = wl_ld(t, r->arrays + 8 * (q * r->cap + top - 1));
        const uint64_t old = wl_cas(t, r->tstate + 8 * tile, 0, t->tid + 1);
        top--;
        if (old == 0) {
            wl_st(t, pool + 8 * Q_TOP, top);
            wl_unlock(t, pool + 8 * Q_LOCK);
            *k = tile;
            return true;
        }
        /* claimed by a thread lost before it could move the top: the rescue sweep renders it */
        c[C_SKIPS]++, (*r->stat[C_SKIPS])++;
    }
    wl_st(t, pool + 8 * Q_TOP, 0);
    wl_st(t, pool + 8 * Q_STAT, WPS_EMPTY);
    wl_unlock(t, pool + 8 * Q_LOCK);
    return false;
}

/* Counts a finished tile (the state's render count, the log, the counters). */
static void finish(const rt_t *r, wl_thread_t *t, uint64_t k, uint64_t entry, uint64_t c[C_WORDS], uint64_t rays)
{
    const uint64_t cnt = r->cnt[t->tid];
    wl_fadd(t, r->tstate + 8 * k, DONE_ONE);
    wl_st(t, r->log[t->tid] + 8 * c[C_TILES], entry);
    (*r->stat[C_TILES])++;
    *r->stat[C_RAYS] += rays;
    c[C_TILES]++, c[C_RAYS] += rays;
    for (unsigned i = 0; i < C_WORDS; i++)
        wl_st(t, cnt + 8 * i, c[i]);
}

/* Past the barrier with threads lost: renders again every tile a lost thread claimed and did not
 * finish, claiming it from the lost thread by CAS. */
static void sweep(const rt_t *r, wl_thread_t *t, tracer_t *tr, uint64_t c[C_WORDS])
{
    for (uint64_t k0 = 0; k0 < r->ntiles; k0 += CHUNK) {
        uint64_t a[CHUNK], v[CHUNK];
        const unsigned n = r->ntiles - k0 < CHUNK ? (unsigned)(r->ntiles - k0) : CHUNK;
        for (unsigned i = 0; i < n; i++)
            a[i] = r->tstate + 8 * (k0 + i);
        wl_ld_batch(t, a, v, n);
        wl_compute(t, SWEEP_INSTRS * n);
        for (unsigned i = 0; i < n; i++) {
            const uint64_t who = v[i] & 0xffffffffu;
            if (v[i] >> 32 || who == 0 || wl_alive(t, (unsigned)(who - 1)))
                continue;
            if (wl_cas(t, a[i], v[i], t->tid + 1) != v[i])
                continue;
            const uint64_t rays = tr->rays;
            render_tile(tr, k0 + i, NULL);
            c[C_RESCUES]++;
            (*r->stat[C_RESCUES])++;
            finish(r, t, k0 + i, (k0 + i) | RESCUED, c, tr->rays - rays);
        }
    }
}

static void rt_thread(wl_thread_t *t, void *state)
{
    const rt_t *r = state;
    tracer_t tr = {.r = r, .t = t, .stack = r->stack[t->tid]};
    uint64_t c[C_WORDS] = {0};
    for (;;) {
        uint64_t k = 0;
        unsigned q = t->tid;
        bool got = pop(r, t, q, &k, c);
        for (unsigned i = 1; !got && i < r->nthreads; i++)
            got = pop(r, t, q = (t->tid + i) % r->nthreads, &k, c);
        if (!got)
            break;
        if (q != t->tid)
            c[C_STEALS]++, (*r->stat[C_STEALS])++;
        const uint64_t rays = tr.rays;
        render_tile(&tr, k, NULL);
        finish(r, t, k, k, c, tr.rays - rays);
    }
    unsigned phase = 0;
    wl_barrier(t, r->bar, r->nthreads, &phase);
    if (wl_any_lost(t))
        sweep(r, t, &tr, c);
}

/* ---------------------------------------------------------------------------------------------
 * The check */

typedef struct ref {
    uint64_t *fb;     /* the sequential render */
    uint64_t *rays;   /* per tile */
    unsigned *logged; /* per tile: the live thread whose log holds it, + 1 */
} ref_t;

static int check_scene(wl_env_t *e, const rt_t *r, char *err)
{
    for (uint64_t i = 0; i < r->scene_words; i++) {
        const uint64_t got = e->ops->peek(e, 0, r->scene + 8 * i);
        if (got == r->img[i])
            continue;
        const uint64_t tw = r->ntris * TRI_WORDS, cw = 2ull * r->grid * r->grid * r->grid;
        if (i < tw)
            return wl_errf(err, "raytrace: word %llu of triangle %llu holds 0x%llx, want 0x%llx (the scene is "
                           "read-only)", (unsigned long long)(i % TRI_WORDS), (unsigned long long)(i / TRI_WORDS),
                           (unsigned long long)got, (unsigned long long)r->img[i]);
        return wl_errf(err, "raytrace: %s %llu holds 0x%llx, want 0x%llx (the grid is read-only)",
                       i < tw + cw ? "the grid's cell word" : "the grid's index list entry",
                       (unsigned long long)(i < tw + cw ? i - tw : i - tw - cw), (unsigned long long)got,
                       (unsigned long long)r->img[i]);
    }
    return 0;
}

static int check_pools(wl_env_t *e, const rt_t *r, char *err)
{
    for (unsigned q = 0; q < r->nthreads; q++) {
        const uint64_t pool = r->pools + 64 * q, lock = e->ops->peek(e, 0, pool + 8 * Q_LOCK);
        const uint64_t st = e->ops->peek(e, 0, pool + 8 * Q_STAT), top = e->ops->peek(e, 0, pool + 8 * Q_TOP);
        if (lock && (lock > r->nthreads || wl_env_alive(e, (unsigned)(lock - 1))))
            return wl_errf(err, "raytrace: pool %u's lock holds 0x%llx at the end (free, or a lost thread's)", q,
                           (unsigned long long)lock);
        if (st != WPS_EMPTY || top != 0)
            return wl_errf(err, "raytrace: pool %u ends with status %llu and %llu tiles, want empty (%d) and 0", q,
                           (unsigned long long)st, (unsigned long long)top, WPS_EMPTY);
        for (uint64_t i = 0; i < pool_tiles(r, q); i++) {
            const uint64_t got = e->ops->peek(e, 0, r->arrays + 8 * (q * r->cap + i));
            if (got != q + i * r->nthreads)
                return wl_errf(err, "raytrace: pool %u's entry %llu holds tile %llu, want %llu (its tiles are "
                               "popped, never written)", q, (unsigned long long)i, (unsigned long long)got,
                               (unsigned long long)(q + i * r->nthreads));
        }
    }
    /* The barrier: released once; its first mask holds every live thread (and only threads). */
    const uint64_t line = WL_BARRIER_BYTES / 4, group = r->nthreads >= 64 ? ~0ull : (1ull << r->nthreads) - 1;
    uint64_t live = 0;
    for (unsigned t = 0; t < r->nthreads; t++)
        live |= (uint64_t)wl_env_alive(e, t) << t;
    const uint64_t ph = e->ops->peek(e, 0, r->bar), m0 = e->ops->peek(e, 0, r->bar + line);
    const uint64_t m1 = e->ops->peek(e, 0, r->bar + 2 * line), m2 = e->ops->peek(e, 0, r->bar + 3 * line);
    if (ph != 1 || (m0 & live) != live || (m0 & ~group) || m1 || m2)
        return wl_errf(err, "raytrace: the barrier released %llu phases (want 1) with masks 0x%llx, 0x%llx, 0x%llx "
                       "(want every live thread 0x%llx, 0, 0)", (unsigned long long)ph, (unsigned long long)m0,
                       (unsigned long long)m1, (unsigned long long)m2, (unsigned long long)live);
    return 0;
}

/* Each live thread's log and counters; fills ref->logged. */
static int check_logs(wl_env_t *e, const rt_t *r, ref_t *ref, char *err)
{
    for (unsigned t = 0; t < r->nthreads; t++) {
        if (!wl_env_alive(e, t))
            continue; /* its log and counters were in its failed CN's memory */
        const unsigned cn = e->thread_cn[t];
        uint64_t c[C_WORDS], want[C_WORDS] = {0};
        for (unsigned i = 0; i < C_WORDS; i++)
            c[i] = e->ops->peek(e, cn, r->cnt[t] + 8 * i);
        if (c[C_TILES] > r->ntiles)
            return wl_errf(err, "raytrace: thread %u counts %llu tiles of %llu", t, (unsigned long long)c[C_TILES],
                           (unsigned long long)r->ntiles);
        for (uint64_t i = 0; i < c[C_TILES]; i++) {
            const uint64_t en = e->ops->peek(e, cn, r->log[t] + 8 * i), k = en & ~RESCUED;
            if (k >= r->ntiles || ref->logged[k])
                return wl_errf(err, "raytrace: thread %u's log entry %llu names tile %llu, %s", t,
                               (unsigned long long)i, (unsigned long long)k,
                               k >= r->ntiles ? "beyond the image" : "which another log entry names too");
            ref->logged[k] = t + 1;
            want[C_TILES]++, want[C_RAYS] += ref->rays[k];
            want[C_RESCUES] += !!(en & RESCUED);
            want[C_STEALS] += !(en & RESCUED) && k % r->nthreads != t;
        }
        for (unsigned i = C_RAYS; i <= C_RESCUES; i++)
            if (c[i] != want[i])
                return wl_errf(err, "raytrace: thread %u counts %llu %s, its log %llu", t, (unsigned long long)c[i],
                               c_names[i] + strlen("raytrace."), (unsigned long long)want[i]);
    }
    return 0;
}

/* Pixel by pixel against the sequential render; a tile left half done by a lost thread may hold 0s. */
static int check_pixels(wl_env_t *e, const rt_t *r, uint64_t k, bool partial, const ref_t *ref, char *err)
{
    uint64_t x0, y0, h, w = tile_w(r, k, &x0, &y0, &h);
    for (uint64_t y = y0; y < y0 + h; y++)
        for (uint64_t x = x0; x < x0 + w; x++) {
            const uint64_t i = y * r->side + x, got = e->ops->peek(e, 0, r->fb + 8 * i);
            if (got != ref->fb[i] && !(partial && got == 0))
                return wl_errf(err, "raytrace: pixel (%llu, %llu) of tile %llu holds 0x%016llx, want 0x%016llx (the "
                               "sequential render)%s", (unsigned long long)x, (unsigned long long)y,
                               (unsigned long long)k, (unsigned long long)got, (unsigned long long)ref->fb[i],
                               partial ? " or 0" : "");
        }
    return 0;
}

static int check_tiles(wl_env_t *e, const rt_t *r, const ref_t *ref, char *err)
{
    for (uint64_t k = 0; k < r->ntiles; k++) {
        const uint64_t st = e->ops->peek(e, 0, r->tstate + 8 * k), n = st >> 32, who = st & 0xffffffffu;
        const bool lost = who >= 1 && who <= r->nthreads && !wl_env_alive(e, (unsigned)(who - 1));
        const char *bad = NULL;
        if (who == 0 || who > r->nthreads)
            bad = "claimed by no thread";
        else if (n > 1)
            bad = "rendered more than once";
        else if (n == 0 && !lost)
            bad = "claimed by a live thread, never finished";
        else if (!lost && ref->logged[k] != who)
            bad = "finished by a thread whose log does not hold it";
        else if (lost && ref->logged[k])
            bad = "claimed by a lost thread, yet in a live thread's log";
        if (bad)
            return wl_errf(err, "raytrace: tile %llu's state is 0x%llx (rendered %llu times, claimed by thread "
                           "%lld): %s", (unsigned long long)k, (unsigned long long)st, (unsigned long long)n, (long long)who - 1,
                           bad);
        if (check_pixels(e, r, k, n == 0, ref, err))
            return -1;
    }
    return 0;
}

static int rt_check(wl_env_t *e, void *state, char *err)
{
    const rt_t *r = state;
    ref_t ref = {malloc(r->side * r->side * sizeof *ref.fb), calloc(r->ntiles, sizeof *ref.rays),
                 calloc(r->ntiles, sizeof *ref.logged)};
    int rc = 0;
    if (!ref.fb || !ref.rays || !ref.logged) {
        rc = wl_errf(err, "raytrace: check: out of host memory");
        goto out;
    }
    tracer_t tr = {.r = r};
    for (uint64_t k = 0; k < r->ntiles; k++) {
        const uint64_t rays = tr.rays;
        render_tile(&tr, k, ref.fb);
        ref.rays[k] = tr.rays - rays;
    }
    if (!(rc = check_scene(e, r, err)) && !(rc = check_pools(e, r, err)) && !(rc = check_logs(e, r, &ref, err)))
        rc = check_tiles(e, r, &ref, err);
out:
    free(ref.fb), free(ref.rays), free(ref.logged);
    return rc;
}

const workload_t wl_raytrace = {
    .name = "raytrace",
    .doc = "rays through a read-mostly triangle scene in a uniform grid, tiles from per-thread pools with stealing",
    .setup = rt_setup,
    .thread = rt_thread,
    .check = rt_check,
    .free = rt_free,
};
