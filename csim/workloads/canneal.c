/* canneal: PARSEC canneal, simulated annealing of a chip's placement to minimise its routing cost,
 * with the threads swapping elements of one shared netlist.
 *
 * Shared data (CXL memory):
 *   - the netlist: one 64-byte record per element, as PARSEC's netlist_elem:
 *       word 0 lock, 1 location word (grid slot | version << 32; PARSEC's present_loc pointer),
 *       2 address of its fan-in list, 3 fan-in count, 4 address of its fan-out list, 5 fan-out
 *       count, 6 its name (8 ASCII bytes), 7 padding;
 *     the wire lists (one word per wire end: the address of the other element's record, as
 *     PARSEC's vectors of netlist_elem pointers); the grid's location records {x, y}, read-only.
 *     Elements are made from the seed like a synthetic netlist: element i takes 1 to 3 inputs,
 *     nine in ten from the 64 elements before it (logic stays local) and one in ten from anywhere
 *     before it (long wires); fan-outs are the other ends. The chip is max_x x max_y slots,
 *     max_x = ceil(sqrt(elements)); the slots beyond the elements hold blank elements without
 *     wires, which are swapped like the others (PARSEC's _chip_size). Setup places the elements
 *     at a seeded random permutation of the slots (an unplaced design);
 *   - one intent line per thread (below), and the barrier.
 * Thread-private data (local memory of the thread's CN): its log of accepted swaps (the pair,
 * the two versions before the swap, the cost change) and its counters.
 *
 * The algorithm is PARSEC's annealer_thread::Run: the temperature starts at 2000 and is divided
 * by 1.5 at the start of each of workload.canneal_steps steps; in a step each thread tries
 * workload.canneal_swaps moves, each between the previous move's second element a and a new
 * random b (its own seeded stream), then meets the others at a barrier. A move reads both
 * records and wire lists, the location words of a, b and their neighbours and the neighbours'
 * coordinates (a pointer chase: record -> list -> neighbour's record -> its location), computes
 * the change of the routing cost (Manhattan lengths of the wires of a and b; a wire between a
 * and b keeps its length) and decides by the annealing rule: accepted when the cost falls, else
 * with probability exp(-delta / T). A rejected move writes nothing, as in PARSEC.
 *
 * An accepted move takes the two elements' locks (in index order: no deadlock), then reads the
 * lock words and location words of the neighbours after its own CASes: if a neighbour is locked
 * (by a live thread or a lost one), the move is given up as a conflict; otherwise no neighbour
 * can move until it unlocks (a mover of neighbour n takes n's lock by CAS, then finds a or b
 * locked among n's neighbours -- the store-buffering pattern, fenced by the CASes, so at least
 * one of two such movers sees the other). So the cost change is recomputed exactly under the
 * locks and decided again with the same random draw. PARSEC swaps the two location pointers
 * with atomic exchanges (AtomicPtr::Swap, its own per-pointer locks) and reads the neighbours
 * without any lock: its cost changes can be stale; here they cannot, which is what makes the
 * check's cost equation exact. Then the swap: the thread's intent (the pair and their two old
 * location words, in one of two slots, then the word naming the pair and slot), the new
 * location words (each with its version + 1), the unlocks, and the log entry.
 *
 * check(): the netlist, its wire lists and the grid as setup wrote them; the location words a
 * permutation of the slots; no lock held; each thread's counters add up to its moves and its
 * log to its accepted ones (cost falls for the good, not for the bad); the logs replayed from
 * the initial placement in per-element version order (swaps of disjoint pairs commute; swaps
 * of one element were serialized by its lock, its version numbers them) give every location
 * word exactly, versions included; each thread's intent names its last two swaps' old words;
 * the routing cost of the final placement equals the initial cost plus every logged change
 * (integers: exact whatever the interleaving, since each change was computed with the pair's
 * neighbourhood frozen); the barrier released one phase per step.
 *
 * After a CN failure (docs/architecture.md 11g) a lost thread may hold element locks in the
 * middle of a swap. A thread that takes such a lock over (wl_lock) rolls every lost thread's
 * last intent forward: a CAS of each named element's location word from its old word to its
 * moved word (the other's slot, version + 1), which only succeeds while the swap is unfinished
 * (versions only grow), so it is idempotent and safe however many survivors do it. The check
 * applies the same roll-forward to pairs whose locks a lost thread still holds, then wants a
 * permutation, locks free or held by lost threads, the live threads' counters, logs and
 * intents as above, and each element's logged versions distinct and below its version in
 * memory; the lost threads' swaps are unlogged, so the replay and the cost equation are
 * skipped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/rng.h"
#include "workloads/workloads.h"

#define START_TEMP 2000.0 /* PARSEC's start temperature (every input set) */
#define COOLING 1.5       /* T = T / 1.5 at the start of each step */
#define MAX_FANIN 3u      /* inputs of an element: 1 to 3 */
#define MAX_FANOUT 16u    /* an output wire beyond 16 is not made */
#define MAX_NB (MAX_FANIN + MAX_FANOUT)
#define WINDOW 64u     /* a local input comes from the 64 elements before */
#define GLOBAL_PCT 10u /* % of inputs from anywhere before (long wires) */

/* Words of an element's record. */
enum { W_LOCK, W_LOC, W_FIN, W_NFIN, W_FOUT, W_NFOUT, W_NAME, REC_WORDS = 8 };
#define REC_BYTES (8u * REC_WORDS)
#define LOC_BYTES 16u    /* a location record: x, y */
#define INTENT_BYTES 64u /* a thread's intent: the pair word, then two slots of two old location words */
#define LOG_BYTES 24u    /* a log entry: a | b << 32, version of a | version of b << 32, cost change */

/* Non-memory instructions (CPI 1) of a move. */
#define PICK_INSTRS 20   /* a random element: a xoshiro step, the bounded draw, the "not a" test, the address */
#define ELEM_INSTRS 10   /* per element of the pair: the list bounds and the loops' set-up */
#define WIRE_INSTRS 12   /* per wire: two Manhattan distances (2 subtractions, 2 absolute values, an add each),
                            their difference, the loop */
#define ACCEPT_INSTRS 40 /* the annealing rule when the cost does not fall: a draw, a division, exp, a compare */
#define SWAP_INSTRS 12   /* packing the intent, the new location words and the log entry */

/* A thread's counters in local memory (after its log), and in the run's statistics. */
enum { C_GOOD, C_BAD, C_REJECTED, C_CONFLICTS, C_WORDS };
enum { S_TAKEOVERS = C_WORDS, S_ROLLED, S_WORDS };
static const char *const c_leaf[S_WORDS] = {"accepted_good", "accepted_bad", "rejected", "conflicts", "takeovers",
                                            "rolled_forward"};
static const char *const c_doc[S_WORDS] = {
    "moves accepted because the routing cost fell",
    "moves accepted by the annealing rule although the cost did not fall",
    "moves rejected by the annealing rule",
    "accepted moves given up because a neighbour was locked by another swap",
    "element locks taken over from threads lost with their CN",
    "location words of lost threads' unfinished swaps rolled forward by the survivors"};

typedef struct canneal {
    uint64_t nelem, chip, max_y, swaps, steps;
    unsigned nthreads;
    uint64_t elems, fans, locs, intents, bar; /* remote */
    uint64_t *log, *cnt;                      /* per thread (local): its swap log, its counters */
    uint64_t *stat[S_WORDS];
    /* the netlist as setup made it (host): wires of element e at fin[e * MAX_FANIN], fout[e *
     * MAX_FANOUT]; where their lists are (word offsets in fans); its first slot */
    uint32_t *nfin, *nfout, *fin, *fout, *place;
    uint64_t *fin_at, *fout_at;
} canneal_t;

typedef struct move_stats {
    uint64_t c[C_WORDS], accepted;
} move_stats_t;

/* ------------------------------------------------------------------------------------------------
 * Words and the netlist */

static uint64_t rec(const canneal_t *k, uint64_t el) { return k->elems + REC_BYTES * el; }
static uint64_t loc_word(uint64_t slot, uint64_t ver) { return slot | ver << 32; }
static uint64_t slot_of(uint64_t w) { return w & 0xffffffffu; }
static uint64_t ver_of(uint64_t w) { return w >> 32; }
/* An element's location word after swapping with the element whose word was other. */
static uint64_t moved(uint64_t own, uint64_t other) { return loc_word(slot_of(other), ver_of(own) + 1); }
static uint64_t intent_pair(uint64_t a, uint64_t b, unsigned slot)
{
    return (a + 1) | (b + 1) << 31 | (uint64_t)slot << 62;
}

/* An element's name as PARSEC's netlist files write them: 'e' and its index in base 36. */
static uint64_t name_word(uint64_t el)
{
    char s[8] = {'e'};
    for (unsigned i = 1; i < 8; i++, el /= 36)
        s[i] = el ? "0123456789abcdefghijklmnopqrstuvwxyz"[el % 36] : 0;
    uint64_t w;
    memcpy(&w, s, sizeof w);
    return w;
}

static int64_t manhattan(uint64_t x0, uint64_t y0, uint64_t x1, uint64_t y1)
{
    return llabs((long long)x0 - (long long)x1) + llabs((long long)y0 - (long long)y1);
}

/* The routing cost of a placement (slot of each element): every wire's length, once. */
static int64_t routing_cost(const canneal_t *k, const uint64_t *slot)
{
    int64_t cost = 0;
    for (uint64_t el = 0; el < k->chip; el++)
        for (uint32_t j = 0; j < k->nfin[el]; j++) {
            uint64_t s0 = slot[el], s1 = slot[k->fin[el * MAX_FANIN + j]];
            cost += manhattan(s0 / k->max_y, s0 % k->max_y, s1 / k->max_y, s1 % k->max_y);
        }
    return cost;
}

/* The wires, their list offsets and the first placement, from the seed. */
static void make_netlist(canneal_t *k, uint64_t seed)
{
    rng_t r;
    rng_init_named(&r, seed, "canneal.netlist");
    for (uint64_t i = 1; i < k->nelem; i++) {
        uint64_t want = 1 + rng_below(&r, MAX_FANIN);
        for (uint64_t j = 0; j < want; j++) {
            uint64_t src = rng_below(&r, 100) < GLOBAL_PCT ? rng_below(&r, i)
                                                            : i - 1 - rng_below(&r, i < WINDOW ? i : WINDOW);
            bool dup = false;
            for (uint32_t q = 0; q < k->nfin[i]; q++)
                dup |= k->fin[i * MAX_FANIN + q] == src;
            if (dup || k->nfout[src] == MAX_FANOUT)
                continue;
            k->fin[i * MAX_FANIN + k->nfin[i]++] = (uint32_t)src;
            k->fout[src * MAX_FANOUT + k->nfout[src]++] = (uint32_t)i;
        }
    }
    uint64_t at = 0;
    for (uint64_t el = 0; el < k->chip; el++) {
        k->fin_at[el] = at;
        at += k->nfin[el];
        k->fout_at[el] = at;
        at += k->nfout[el];
    }
    rng_init_named(&r, seed, "canneal.place");
    for (uint64_t s = 0; s < k->chip; s++)
        k->place[s] = (uint32_t)s;
    for (uint64_t s = k->chip - 1; s > 0; s--) {
        uint64_t j = rng_below(&r, s + 1);
        uint32_t x = k->place[s];
        k->place[s] = k->place[j];
        k->place[j] = x;
    }
}

static void canneal_free(void *state)
{
    canneal_t *k = state;
    if (!k)
        return;
    free(k->log), free(k->cnt), free(k->nfin), free(k->nfout), free(k->fin), free(k->fout), free(k->place);
    free(k->fin_at), free(k->fout_at);
    free(k);
}

/* ------------------------------------------------------------------------------------------------
 * Setup */

static int alloc_host(canneal_t *k, unsigned nthreads)
{
    const uint64_t c = k->chip;
    return (k->log = calloc(nthreads, sizeof *k->log)) && (k->cnt = calloc(nthreads, sizeof *k->cnt)) &&
                   (k->nfin = calloc(c, 4)) && (k->nfout = calloc(c, 4)) && (k->fin = calloc(c * MAX_FANIN, 4)) &&
                   (k->fout = calloc(c * MAX_FANOUT, 4)) && (k->place = calloc(c, 4)) &&
                   (k->fin_at = calloc(c, 8)) && (k->fout_at = calloc(c, 8))
               ? 0
               : -1;
}

static int alloc_memory(wl_env_t *e, canneal_t *k, char *err)
{
    const uint64_t wires = k->fout_at[k->chip - 1] + k->nfout[k->chip - 1];
    const uint64_t bytes = k->chip * (REC_BYTES + LOC_BYTES) + 8 * wires;
    k->elems = e->ops->alloc_cxl(e, k->chip * REC_BYTES);
    k->fans = e->ops->alloc_cxl(e, 8 * (wires ? wires : 1));
    k->locs = e->ops->alloc_cxl(e, k->chip * LOC_BYTES);
    k->intents = e->ops->alloc_cxl(e, (uint64_t)INTENT_BYTES * k->nthreads);
    k->bar = e->ops->alloc_cxl(e, WL_BARRIER_BYTES);
    if (k->elems == WL_ALLOC_FAIL || k->fans == WL_ALLOC_FAIL || k->locs == WL_ALLOC_FAIL ||
        k->intents == WL_ALLOC_FAIL || k->bar == WL_ALLOC_FAIL)
        return wl_errf(err, "canneal: the netlist of %llu elements on %llu slots (%llu bytes with its wires and "
                       "grid) does not fit the CXL memory", (unsigned long long)k->nelem,
                       (unsigned long long)k->chip, (unsigned long long)bytes);
    const uint64_t log_bytes = k->swaps * k->steps * LOG_BYTES;
    for (unsigned t = 0; t < k->nthreads; t++) {
        k->log[t] = e->ops->alloc_local(e, e->thread_cn[t], log_bytes);
        k->cnt[t] = e->ops->alloc_local(e, e->thread_cn[t], 8 * C_WORDS);
        if (k->log[t] == WL_ALLOC_FAIL || k->cnt[t] == WL_ALLOC_FAIL)
            return wl_errf(err, "canneal: thread %u's swap log (%llu bytes) does not fit CN %u's local memory", t,
                           (unsigned long long)log_bytes, e->thread_cn[t]);
    }
    return 0;
}

static void write_netlist(wl_env_t *e, const canneal_t *k)
{
    for (uint64_t el = 0; el < k->chip; el++) {
        const uint64_t r = rec(k, el), fin = k->fans + 8 * k->fin_at[el], fout = k->fans + 8 * k->fout_at[el];
        e->ops->poke(e, 0, r + 8 * W_LOC, loc_word(k->place[el], 0));
        e->ops->poke(e, 0, r + 8 * W_FIN, fin);
        e->ops->poke(e, 0, r + 8 * W_NFIN, k->nfin[el]);
        e->ops->poke(e, 0, r + 8 * W_FOUT, fout);
        e->ops->poke(e, 0, r + 8 * W_NFOUT, k->nfout[el]);
        e->ops->poke(e, 0, r + 8 * W_NAME, name_word(el));
        for (uint32_t j = 0; j < k->nfin[el]; j++)
            e->ops->poke(e, 0, fin + 8 * j, rec(k, k->fin[el * MAX_FANIN + j]));
        for (uint32_t j = 0; j < k->nfout[el]; j++)
            e->ops->poke(e, 0, fout + 8 * j, rec(k, k->fout[el * MAX_FANOUT + j]));
        e->ops->poke(e, 0, k->locs + LOC_BYTES * el, el / k->max_y);
        e->ops->poke(e, 0, k->locs + LOC_BYTES * el + 8, el % k->max_y);
    }
}

/* On failure the state is freed here: the caller frees it only after a successful setup. */
static int canneal_setup(wl_env_t *e, void **state, char *err)
{
    const sim_config_t *c = e->cfg;
    const uint64_t n = c->workload.canneal_elements, swaps = c->workload.canneal_swaps;
    const uint64_t steps = c->workload.canneal_steps;
    *state = NULL;
    if (n < 2 || n > (1u << 26))
        return wl_errf(err, "canneal: %llu elements (workload.canneal_elements): 2 to 2^26 can be placed and "
                       "swapped in pairs", (unsigned long long)n);
    if (!swaps || !steps || swaps > (1u << 30) || steps > (1u << 20) || e->nthreads * swaps * steps >= (1ull << 32))
        return wl_errf(err, "canneal: %u threads x %llu moves (workload.canneal_swaps) x %llu steps "
                       "(workload.canneal_steps) must be 1 to 2^32 - 1 (an element's version has 32 bits)",
                       e->nthreads, (unsigned long long)swaps, (unsigned long long)steps);
    canneal_t *k = calloc(1, sizeof *k);
    int rc = 0;
    if (!k)
        return wl_errf(err, "canneal: out of host memory");
    k->nelem = n;
    k->swaps = swaps;
    k->steps = steps;
    k->nthreads = e->nthreads;
    uint64_t max_x = (uint64_t)ceil(sqrt((double)n));
    while (max_x * max_x < n)
        max_x++;
    k->max_y = (n + max_x - 1) / max_x;
    k->chip = max_x * k->max_y;
    if (alloc_host(k, e->nthreads)) {
        rc = wl_errf(err, "canneal: out of host memory for %llu elements", (unsigned long long)n);
        goto out;
    }
    make_netlist(k, e->seed);
    if ((rc = alloc_memory(e, k, err)))
        goto out;
    if ((rc = wl_counters(e, "canneal", c_leaf, c_doc, S_WORDS, k->stat, err)))
        goto out;
    write_netlist(e, k);
out:
    if (rc)
        canneal_free(k);
    else
        *state = k;
    return rc;
}

/* ------------------------------------------------------------------------------------------------
 * The threads */

/* A move's pair (e[0] = a, e[1] = b) and their neighbours' indices. */
typedef struct view {
    uint64_t e[2];
    unsigned nn[2];
    uint64_t nb[2][MAX_NB];
} view_t;

/* The pair's records and wire lists: two batches (the records, then the lists they point to). */
static void read_pair(wl_thread_t *t, const canneal_t *k, view_t *v)
{
    uint64_t ad[2 * MAX_NB], val[2 * MAX_NB];
    for (unsigned i = 0; i < 2; i++)
        for (unsigned w = 0; w < 4; w++)
            ad[4 * i + w] = rec(k, v->e[i]) + 8 * (W_FIN + w);
    wl_ld_batch(t, ad, val, 8);
    wl_compute(t, 2 * ELEM_INSTRS);
    unsigned m = 0;
    for (unsigned i = 0; i < 2; i++) {
        uint64_t nfin = val[4 * i + 1] < MAX_FANIN ? val[4 * i + 1] : MAX_FANIN;
        uint64_t nfout = val[4 * i + 3] < MAX_FANOUT ? val[4 * i + 3] : MAX_FANOUT;
        v->nn[i] = (unsigned)(nfin + nfout);
        for (uint64_t j = 0; j < nfin; j++)
            ad[m++] = val[4 * i] + 8 * j;
        for (uint64_t j = 0; j < nfout; j++)
            ad[m++] = val[4 * i + 2] + 8 * j;
    }
    wl_ld_batch(t, ad, val, m);
    for (unsigned i = 0, q = 0; i < 2; i++)
        for (unsigned j = 0; j < v->nn[i]; j++, q++)
            v->nb[i][j] = (val[q] - k->elems) / REC_BYTES;
}

/* The cost change of swapping a and b, given the location words w of a, b and then of the
 * neighbours in view order: one batch of the slots' coordinates. */
static int64_t pair_delta(wl_thread_t *t, const canneal_t *k, const view_t *v, const uint64_t *w)
{
    uint64_t ad[4 + 4 * MAX_NB], xy[4 + 4 * MAX_NB];
    const unsigned nw = 2 + v->nn[0] + v->nn[1];
    for (unsigned i = 0; i < nw; i++) {
        uint64_t s = slot_of(w[i]) < k->chip ? slot_of(w[i]) : 0;
        ad[2 * i] = k->locs + LOC_BYTES * s;
        ad[2 * i + 1] = ad[2 * i] + 8;
    }
    wl_ld_batch(t, ad, xy, 2 * nw);
    int64_t d = 0;
    for (unsigned i = 0, q = 2; i < 2; i++) {
        const uint64_t *own = &xy[2 * i], *other = &xy[2 * (1 - i)];
        for (unsigned j = 0; j < v->nn[i]; j++, q++) {
            const uint64_t *p = &xy[2 * q];
            if (v->nb[i][j] != v->e[1 - i]) /* a wire between a and b keeps its length */
                d += manhattan(other[0], other[1], p[0], p[1]) - manhattan(own[0], own[1], p[0], p[1]);
        }
    }
    wl_compute(t, WIRE_INSTRS * (nw - 2));
    return d;
}

/* The unlocked look, as PARSEC's: the location words of a, b and the neighbours (one batch). */
static int64_t look(wl_thread_t *t, const canneal_t *k, const view_t *v)
{
    uint64_t ad[2 + 2 * MAX_NB], w[2 + 2 * MAX_NB];
    unsigned m = 0;
    ad[m++] = rec(k, v->e[0]) + 8 * W_LOC;
    ad[m++] = rec(k, v->e[1]) + 8 * W_LOC;
    for (unsigned i = 0; i < 2; i++)
        for (unsigned j = 0; j < v->nn[i]; j++)
            ad[m++] = rec(k, v->nb[i][j]) + 8 * W_LOC;
    wl_ld_batch(t, ad, w, m);
    return pair_delta(t, k, v, w);
}

/* Under the pair's locks: the location words of a and b, and each neighbour's lock word then
 * location word (one batch, in that order). False when a neighbour other than a or b is locked. */
static bool locked_look(wl_thread_t *t, const canneal_t *k, const view_t *v, uint64_t *w)
{
    uint64_t ad[2 + 4 * MAX_NB], val[2 + 4 * MAX_NB];
    unsigned m = 0;
    ad[m++] = rec(k, v->e[0]) + 8 * W_LOC;
    ad[m++] = rec(k, v->e[1]) + 8 * W_LOC;
    for (unsigned i = 0; i < 2; i++)
        for (unsigned j = 0; j < v->nn[i]; j++) {
            ad[m++] = rec(k, v->nb[i][j]) + 8 * W_LOCK;
            ad[m++] = rec(k, v->nb[i][j]) + 8 * W_LOC;
        }
    wl_ld_batch(t, ad, val, m);
    w[0] = val[0], w[1] = val[1];
    bool free_ = true;
    for (unsigned i = 0, q = 0; i < 2; i++)
        for (unsigned j = 0; j < v->nn[i]; j++, q++) {
            const uint64_t n = v->nb[i][j];
            free_ &= n == v->e[0] || n == v->e[1] || val[2 + 2 * q] == 0;
            w[2 + q] = val[3 + 2 * q];
        }
    return free_;
}

/* Rolls forward the last intent of every lost thread (after a takeover; see the header). */
static void roll_forward(wl_thread_t *t, const canneal_t *k)
{
    for (unsigned d = 0; d < k->nthreads; d++) {
        const uint64_t in = k->intents + (uint64_t)INTENT_BYTES * d;
        uint64_t pair;
        if (wl_alive(t, d) || !(pair = wl_ld(t, in)))
            continue;
        const uint64_t a = (pair & 0x7fffffffu) - 1, b = (pair >> 31 & 0x7fffffffu) - 1, s = pair >> 62;
        const uint64_t ad[2] = {in + 8 * (1 + 2 * s), in + 8 * (2 + 2 * s)};
        uint64_t old[2];
        wl_ld_batch(t, ad, old, 2);
        if (a >= k->chip || b >= k->chip)
            continue;
        *k->stat[S_ROLLED] += wl_cas(t, rec(k, a) + 8 * W_LOC, old[0], moved(old[0], old[1])) == old[0];
        *k->stat[S_ROLLED] += wl_cas(t, rec(k, b) + 8 * W_LOC, old[1], moved(old[1], old[0])) == old[1];
    }
}

static void lock_elem(wl_thread_t *t, const canneal_t *k, uint64_t el)
{
    if (wl_lock(t, rec(k, el) + 8 * W_LOCK)) {
        (*k->stat[S_TAKEOVERS])++;
        roll_forward(t, k);
    }
}

/* The annealing rule; u is the move's one uniform draw, made when first needed (< 0: not yet). */
static int decide(wl_thread_t *t, int64_t d, double temp, double *u, rng_t *r)
{
    if (d < 0)
        return C_GOOD;
    wl_compute(t, ACCEPT_INSTRS);
    if (*u < 0)
        *u = rng_unit(r);
    return exp(-(double)d / temp) > *u ? C_BAD : C_REJECTED;
}

/* The swap of an accepted move, under both locks: intent, location words, log entry. */
static void swap(wl_thread_t *t, const canneal_t *k, move_stats_t *ms, const view_t *v, const uint64_t *w, int64_t d)
{
    const uint64_t in = k->intents + (uint64_t)INTENT_BYTES * t->tid, a = v->e[0], b = v->e[1];
    const unsigned s = ms->accepted & 1;
    wl_compute(t, SWAP_INSTRS);
    wl_st(t, in + 8 * (1 + 2 * s), w[0]);
    wl_st(t, in + 8 * (2 + 2 * s), w[1]);
    wl_st(t, in, intent_pair(a, b, s));
    wl_st(t, rec(k, a) + 8 * W_LOC, moved(w[0], w[1]));
    wl_st(t, rec(k, b) + 8 * W_LOC, moved(w[1], w[0]));
    const uint64_t lg = k->log[t->tid] + LOG_BYTES * ms->accepted++;
    wl_st(t, lg, a | b << 32);
    wl_st(t, lg + 8, ver_of(w[0]) | ver_of(w[1]) << 32);
    wl_st(t, lg + 16, (uint64_t)d);
}

static void count(const canneal_t *k, move_stats_t *ms, int what)
{
    ms->c[what]++;
    (*k->stat[what])++;
}

static void move(wl_thread_t *t, const canneal_t *k, move_stats_t *ms, rng_t *r, view_t *v, double temp)
{
    read_pair(t, k, v);
    double u = -1;
    int dec = decide(t, look(t, k, v), temp, &u, r);
    if (dec == C_REJECTED) {
        count(k, ms, dec);
        return;
    }
    const uint64_t lo = v->e[0] < v->e[1] ? v->e[0] : v->e[1], hi = v->e[0] ^ v->e[1] ^ lo;
    lock_elem(t, k, lo);
    lock_elem(t, k, hi);
    uint64_t w[2 + 2 * MAX_NB];
    if (!locked_look(t, k, v, w))
        dec = C_CONFLICTS;
    int64_t d = 0;
    if (dec != C_CONFLICTS) {
        d = pair_delta(t, k, v, w);
        dec = decide(t, d, temp, &u, r);
    }
    if (dec == C_GOOD || dec == C_BAD)
        swap(t, k, ms, v, w, d);
    wl_unlock(t, rec(k, hi) + 8 * W_LOCK);
    wl_unlock(t, rec(k, lo) + 8 * W_LOCK);
    count(k, ms, dec);
}

static uint64_t pick(wl_thread_t *t, const canneal_t *k, rng_t *r, uint64_t not_this)
{
    uint64_t el;
    do
        el = rng_below(r, k->chip);
    while (el == not_this);
    wl_compute(t, PICK_INSTRS);
    return el;
}

static void canneal_thread(wl_thread_t *t, void *state)
{
    const canneal_t *k = state;
    rng_t r;
    rng_init_named(&r, t->seed, "canneal");
    move_stats_t ms = {{0}, 0};
    view_t v;
    v.e[1] = pick(t, k, &r, UINT64_MAX);
    double temp = START_TEMP;
    unsigned phase = 0;
    for (uint64_t step = 0; step < k->steps; step++) {
        temp /= COOLING;
        for (uint64_t i = 0; i < k->swaps; i++) {
            /* only one new element a move: the other is the last move's (PARSEC: cache reuse) */
            v.e[0] = v.e[1];
            v.e[1] = pick(t, k, &r, v.e[0]);
            move(t, k, &ms, &r, &v, temp);
        }
        wl_barrier(t, k->bar, k->nthreads, &phase);
    }
    for (unsigned i = 0; i < C_WORDS; i++)
        wl_st(t, k->cnt[t->tid] + 8 * i, ms.c[i]);
}

/* ------------------------------------------------------------------------------------------------
 * The check */

typedef struct entry {
    uint64_t a, b, va, vb, oa, ob; /* the pair, their versions before, their old words (replay) */
    int64_t d;
} entry_t;

typedef struct chk {
    wl_env_t *e;
    const canneal_t *k;
    char *err;
    unsigned lost;
    uint64_t *loc;     /* each element's location word (after rolling lost intents forward) */
    entry_t *ent;      /* the live threads' log entries, thread by thread */
    uint64_t nent, *first, *nacc; /* per thread: its first entry, its accepted swaps */
} chk_t;

static uint64_t peek(const chk_t *c, uint64_t a) { return c->e->ops->peek(c->e, 0, a); }

/* Every word setup wrote and no thread writes: records, wire lists, grid. */
static int check_netlist(const chk_t *c)
{
    const canneal_t *k = c->k;
    for (uint64_t el = 0; el < k->chip; el++) {
        const uint64_t r = rec(k, el), fin = k->fans + 8 * k->fin_at[el], fout = k->fans + 8 * k->fout_at[el];
        const uint64_t want[REC_WORDS] = {0, 0, fin, k->nfin[el], fout, k->nfout[el], name_word(el), 0};
        for (unsigned w = W_FIN; w < REC_WORDS; w++)
            if (peek(c, r + 8 * w) != want[w])
                return wl_errf(c->err, "canneal: element %llu's record word %u is 0x%llx, want 0x%llx (setup's)",
                               (unsigned long long)el, w, (unsigned long long)peek(c, r + 8 * w),
                               (unsigned long long)want[w]);
        for (uint32_t j = 0; j < k->nfin[el] + k->nfout[el]; j++) {
            uint64_t other = j < k->nfin[el] ? k->fin[el * MAX_FANIN + j] : k->fout[el * MAX_FANOUT + j - k->nfin[el]];
            uint64_t at = j < k->nfin[el] ? fin + 8 * j : fout + 8 * (j - k->nfin[el]);
            if (peek(c, at) != rec(k, other))
                return wl_errf(c->err, "canneal: element %llu's wire %u points to 0x%llx, want element %llu's record "
                               "0x%llx", (unsigned long long)el, j, (unsigned long long)peek(c, at),
                               (unsigned long long)other, (unsigned long long)rec(k, other));
        }
        if (peek(c, k->locs + LOC_BYTES * el) != el / k->max_y || peek(c, k->locs + LOC_BYTES * el + 8) != el % k->max_y)
            return wl_errf(c->err, "canneal: slot %llu's location record holds (%llu, %llu), want (%llu, %llu)",
                           (unsigned long long)el, (unsigned long long)peek(c, k->locs + LOC_BYTES * el),
                           (unsigned long long)peek(c, k->locs + LOC_BYTES * el + 8),
                           (unsigned long long)(el / k->max_y), (unsigned long long)(el % k->max_y));
    }
    return 0;
}

/* A lost thread's last intent rolled forward in the check's copy of the location words. */
static void roll_forward_copy(chk_t *c, unsigned d)
{
    const canneal_t *k = c->k;
    const uint64_t in = k->intents + (uint64_t)INTENT_BYTES * d, pair = peek(c, in), s = pair >> 62;
    const uint64_t a = (pair & 0x7fffffffu) - 1, b = (pair >> 31 & 0x7fffffffu) - 1;
    if (!pair || a >= k->chip || b >= k->chip)
        return;
    const uint64_t oa = peek(c, in + 8 * (1 + 2 * s)), ob = peek(c, in + 8 * (2 + 2 * s));
    if (c->loc[a] == oa)
        c->loc[a] = moved(oa, ob);
    if (c->loc[b] == ob)
        c->loc[b] = moved(ob, oa);
}

/* Location words a permutation of the slots; locks free (or a lost thread's). */
static int check_placement(chk_t *c)
{
    const canneal_t *k = c->k;
    for (uint64_t el = 0; el < k->chip; el++)
        c->loc[el] = peek(c, rec(k, el) + 8 * W_LOC);
    for (unsigned d = 0; d < k->nthreads; d++)
        if (!wl_env_alive(c->e, d))
            roll_forward_copy(c, d);
    uint8_t *held = calloc(k->chip, 1);
    if (!held)
        return wl_errf(c->err, "canneal: check: out of host memory");
    int rc = 0;
    for (uint64_t el = 0; el < k->chip && !rc; el++) {
        uint64_t s = slot_of(c->loc[el]), lock = peek(c, rec(k, el) + 8 * W_LOCK);
        if (s >= k->chip || held[s]++)
            rc = wl_errf(c->err, "canneal: element %llu is at slot %llu, %s", (unsigned long long)el,
                         (unsigned long long)s, s >= k->chip ? "off the chip" : "which another element holds too");
        else if (lock && (lock > k->nthreads || wl_env_alive(c->e, (unsigned)(lock - 1))))
            rc = wl_errf(c->err, "canneal: element %llu's lock is still held (0x%llx) after every thread ended",
                         (unsigned long long)el, (unsigned long long)lock);
    }
    free(held);
    return rc;
}

/* The live threads' counters and logs, into c->ent. */
static int read_logs(chk_t *c)
{
    const canneal_t *k = c->k;
    const uint64_t moves = k->swaps * k->steps;
    uint64_t total = 0;
    for (unsigned t = 0; t < k->nthreads; t++) {
        if (!wl_env_alive(c->e, t))
            continue;
        uint64_t n[C_WORDS];
        for (unsigned i = 0; i < C_WORDS; i++)
            n[i] = c->e->ops->peek(c->e, c->e->thread_cn[t], k->cnt[t] + 8 * i);
        if (n[C_GOOD] + n[C_BAD] + n[C_REJECTED] + n[C_CONFLICTS] != moves || n[C_GOOD] + n[C_BAD] > moves)
            return wl_errf(c->err, "canneal: thread %u counted %llu good, %llu bad, %llu rejected and %llu given-up "
                           "moves, want %llu in all", t, (unsigned long long)n[C_GOOD], (unsigned long long)n[C_BAD],
                           (unsigned long long)n[C_REJECTED], (unsigned long long)n[C_CONFLICTS],
                           (unsigned long long)moves);
        c->first[t] = total;
        c->nacc[t] = n[C_GOOD] + n[C_BAD];
        uint64_t good = 0;
        for (uint64_t j = 0; j < c->nacc[t]; j++) {
            const uint64_t lg = k->log[t] + LOG_BYTES * j, cn = c->e->thread_cn[t];
            const uint64_t p = c->e->ops->peek(c->e, cn, lg), v = c->e->ops->peek(c->e, cn, lg + 8);
            entry_t *en = &c->ent[total++];
            *en = (entry_t){p & 0xffffffffu, p >> 32, v & 0xffffffffu, v >> 32, 0, 0,
                            (int64_t)c->e->ops->peek(c->e, cn, lg + 16)};
            if (en->a >= k->chip || en->b >= k->chip || en->a == en->b)
                return wl_errf(c->err, "canneal: thread %u's swap %llu names elements %llu and %llu (%llu on the chip)",
                               t, (unsigned long long)j, (unsigned long long)en->a, (unsigned long long)en->b,
                               (unsigned long long)k->chip);
            good += en->d < 0;
        }
        if (good != n[C_GOOD])
            return wl_errf(c->err, "canneal: thread %u logged %llu swaps that lowered the cost, but counted %llu good "
                           "moves", t, (unsigned long long)good, (unsigned long long)n[C_GOOD]);
    }
    c->nent = total;
    return 0;
}

/* Each element's logged swaps by version: pos[at[el] + v] = entry + 1. Without a loss the versions
 * of an element's swaps are exactly 0 .. n - 1; with one, distinct and below its version in memory. */
static int index_versions(const chk_t *c, uint64_t *at, uint64_t *pos)
{
    const canneal_t *k = c->k;
    uint64_t sum = 0;
    for (uint64_t el = 0; el < k->chip; el++) {
        at[el] = sum;
        sum += ver_of(c->loc[el]);
    }
    at[k->chip] = sum;
    for (uint64_t i = 0; i < c->nent; i++) {
        const entry_t *en = &c->ent[i];
        const uint64_t el2[2] = {en->a, en->b}, v2[2] = {en->va, en->vb};
        for (unsigned j = 0; j < 2; j++) {
            const uint64_t el = el2[j], v = v2[j];
            if (v >= ver_of(c->loc[el]) || pos[at[el] + v])
                return wl_errf(c->err, "canneal: element %llu has a logged swap of version %llu %s (its version in "
                               "memory: %llu)", (unsigned long long)el, (unsigned long long)v,
                               v >= ver_of(c->loc[el]) ? "beyond the swaps it took part in" : "twice",
                               (unsigned long long)ver_of(c->loc[el]));
            pos[at[el] + v] = i + 1;
        }
    }
    if (!c->lost && 2 * c->nent != sum)
        return wl_errf(c->err, "canneal: the elements' versions add up to %llu swap ends, the logs to %llu",
                       (unsigned long long)sum, (unsigned long long)(2 * c->nent));
    return 0;
}

/* No loss: the logs replayed from the first placement, in each element's version order. */
static int replay(chk_t *c, const uint64_t *at, const uint64_t *pos)
{
    const canneal_t *k = c->k;
    uint64_t *cur = malloc(k->chip * sizeof *cur), *queue = malloc((c->nent + 1) * sizeof *queue), nq = 0, done = 0;
    if (!cur || !queue) {
        free(cur), free(queue);
        return wl_errf(c->err, "canneal: check: out of host memory");
    }
    for (uint64_t el = 0; el < k->chip; el++)
        cur[el] = loc_word(k->place[el], 0);
#define NEXT(el) (ver_of(cur[el]) < at[(el) + 1] - at[el] ? pos[at[el] + ver_of(cur[el])] : 0)
#define READY(i) (NEXT(c->ent[(i) - 1].a) == (i) && NEXT(c->ent[(i) - 1].b) == (i))
    for (uint64_t i = 1; i <= c->nent; i++)
        if (c->ent[i - 1].va == 0 && c->ent[i - 1].vb == 0)
            queue[nq++] = i;
    while (nq) {
        const uint64_t i = queue[--nq];
        entry_t *en = &c->ent[i - 1];
        en->oa = cur[en->a], en->ob = cur[en->b];
        cur[en->a] = moved(en->oa, en->ob), cur[en->b] = moved(en->ob, en->oa);
        done++;
        const uint64_t nx[2] = {NEXT(en->a), NEXT(en->b)};
        for (unsigned j = 0; j < 2; j++)
            if (nx[j] && READY(nx[j]) && (j == 0 || nx[1] != nx[0]))
                queue[nq++] = nx[j];
    }
#undef READY
#undef NEXT
    int rc = 0;
    if (done != c->nent)
        rc = wl_errf(c->err, "canneal: only %llu of the %llu logged swaps can be replayed in version order (the "
                     "rest wait on each other: swaps of one element were not serialized)",
                     (unsigned long long)done, (unsigned long long)c->nent);
    for (uint64_t el = 0; el < k->chip && !rc; el++)
        if (cur[el] != c->loc[el])
            rc = wl_errf(c->err, "canneal: element %llu's location word is slot %llu version %llu, the logs replayed "
                         "give slot %llu version %llu", (unsigned long long)el, (unsigned long long)slot_of(c->loc[el]),
                         (unsigned long long)ver_of(c->loc[el]), (unsigned long long)slot_of(cur[el]),
                         (unsigned long long)ver_of(cur[el]));
    free(cur), free(queue);
    return rc;
}

/* Each live thread's intent: the pair of its last swap, the old words of its last two. */
static int check_intents(const chk_t *c)
{
    const canneal_t *k = c->k;
    for (unsigned t = 0; t < k->nthreads; t++) {
        if (!wl_env_alive(c->e, t))
            continue;
        const uint64_t in = k->intents + (uint64_t)INTENT_BYTES * t, n = c->nacc[t];
        uint64_t want[5] = {0};
        for (uint64_t j = n > 2 ? n - 2 : 0; j < n; j++) {
            const entry_t *en = &c->ent[c->first[t] + j];
            const unsigned s = j & 1;
            want[0] = intent_pair(en->a, en->b, s);
            want[1 + 2 * s] = c->lost ? loc_word(slot_of(peek(c, in + 8 * (1 + 2 * s))), en->va) : en->oa;
            want[2 + 2 * s] = c->lost ? loc_word(slot_of(peek(c, in + 8 * (2 + 2 * s))), en->vb) : en->ob;
        }
        for (unsigned w = 0; w < 5; w++)
            if (peek(c, in + 8 * w) != want[w])
                return wl_errf(c->err, "canneal: thread %u's intent word %u is 0x%llx, want 0x%llx (after %llu swaps)",
                               t, w, (unsigned long long)peek(c, in + 8 * w), (unsigned long long)want[w],
                               (unsigned long long)n);
    }
    return 0;
}

static int check_cost(const chk_t *c)
{
    const canneal_t *k = c->k;
    uint64_t *s0 = malloc(k->chip * sizeof *s0), *s1 = malloc(k->chip * sizeof *s1);
    if (!s0 || !s1) {
        free(s0), free(s1);
        return wl_errf(c->err, "canneal: check: out of host memory");
    }
    for (uint64_t el = 0; el < k->chip; el++)
        s0[el] = k->place[el], s1[el] = slot_of(c->loc[el]);
    int64_t before = routing_cost(k, s0), after = routing_cost(k, s1), sum = 0;
    for (uint64_t i = 0; i < c->nent; i++)
        sum += c->ent[i].d;
    free(s0), free(s1);
    if (before + sum != after)
        return wl_errf(c->err, "canneal: the routing cost went from %lld to %lld, but the logged swaps changed it by "
                       "%lld", (long long)before, (long long)after, (long long)sum);
    return 0;
}

/* The barrier (csim/cn/wl_sync.c): a phase a step; the last phase's arrival mask holds every thread,
 * the other two were zeroed by the last two releases (with a loss: only the phases). */
static int check_barrier(const chk_t *c)
{
    const canneal_t *k = c->k;
    return wl_barrier_check(c->e, "canneal", k->bar, k->nthreads, k->steps, " (one a step)", !c->lost, c->err);
}

static int canneal_check(wl_env_t *e, void *state, char *err)
{
    const canneal_t *k = state;
    chk_t c = {.e = e, .k = k, .err = err, .lost = wl_env_lost(e)};
    const uint64_t most = k->nthreads * k->swaps * k->steps;
    uint64_t *at = NULL, *pos = NULL;
    c.loc = malloc(k->chip * sizeof *c.loc);
    c.ent = malloc((most ? most : 1) * sizeof *c.ent);
    c.first = calloc(k->nthreads, sizeof *c.first);
    c.nacc = calloc(k->nthreads, sizeof *c.nacc);
    int rc = 0;
    if (!c.loc || !c.ent || !c.first || !c.nacc || !(at = malloc((k->chip + 1) * sizeof *at))) {
        rc = wl_errf(err, "canneal: check: out of host memory");
        goto out;
    }
    if ((rc = check_netlist(&c)) || (rc = check_placement(&c)) || (rc = read_logs(&c)) || (rc = check_barrier(&c)))
        goto out;
    uint64_t ends = 0;
    for (uint64_t el = 0; el < k->chip; el++)
        ends += ver_of(c.loc[el]);
    if (ends > 2 * most) {
        rc = wl_errf(err, "canneal: the elements' versions add up to %llu swap ends, more than %llu moves can make",
                     (unsigned long long)ends, (unsigned long long)most);
        goto out;
    }
    if (!(pos = calloc(ends ? ends : 1, sizeof *pos))) {
        rc = wl_errf(err, "canneal: check: out of host memory");
        goto out;
    }
    if ((rc = index_versions(&c, at, pos)))
        goto out;
    if (!c.lost && ((rc = replay(&c, at, pos)) || (rc = check_cost(&c))))
        goto out;
    rc = check_intents(&c);
out:
    free(c.loc), free(c.ent), free(c.first), free(c.nacc), free(at), free(pos);
    return rc;
}

const workload_t wl_canneal = {
    .name = "canneal",
    .doc = "PARSEC canneal: simulated annealing of a shared netlist's placement, random swaps under per-element locks",
    .setup = canneal_setup,
    .thread = canneal_thread,
    .check = canneal_check,
    .free = canneal_free,
};
