/* Tests of rtl/dir/dir_cache.sv through tb/hdl/dir_cache_tb.sv (4 sets, 2 ways, 6-bit lines, 9-bit
 * entries), in both forms of its arrays: the simulation form (model dir_cache_tb: arrays of the
 * module, read only in a cycle that looks) and the synthesis form (model dir_cache_tb_synth,
 * Verilated with SYNTHESIS defined: a ram_1r1w per way, read every cycle, its answer gated). Both
 * run the same random legal traffic, the way dir_ctrl drives the cache, against a C model of the
 * cache; every cycle their outputs must be the model's (entry_o only on a hit, wb_line_o and
 * wb_entry_o only with wb_valid_o: otherwise they show words never written) and, in a cycle that
 * does not look, all 0. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <string.h>

#include "base/rng.h"
#include "tb_seed.h"
#include "vw_dir_cache_tb.h"
#include "vw_dir_cache_tb_synth.h"

#define PERIOD_PS 1000
#define SETS 4u
#define WAYS 2u
#define SET_BITS 2u
#define LINES 64u
#define ENT_MASK 0x1ffu

_Static_assert(sizeof(vw_dir_cache_tb_in) == sizeof(vw_dir_cache_tb_synth_in) &&
                   sizeof(vw_dir_cache_tb_out) == sizeof(vw_dir_cache_tb_synth_out),
               "dir_cache_tb and dir_cache_tb_synth differ in their ports");

/** The C model: tags, entries, valid and dirty bits, and the round-robin victim of every set. */
typedef struct dc_model {
    unsigned tag[SETS][WAYS], ent[SETS][WAYS], vict[SETS];
    bool valid[SETS][WAYS], dirty[SETS][WAYS];
} dc_model_t;

/** What the model answers in a cycle that looks. */
typedef struct dc_answer {
    bool hit, wb;
    unsigned hway, entry, wb_line, wb_entry;
} dc_answer_t;

static unsigned set_of(const vw_dir_cache_tb_in *in) { return in->wbsel_i ? in->wbset_i : in->line_i % SETS; }

static dc_answer_t answer(const dc_model_t *m, const vw_dir_cache_tb_in *in)
{
    dc_answer_t a = {0};
    const unsigned s = set_of(in), tag = in->line_i >> SET_BITS;
    for (unsigned w = 0; w < WAYS; w++)
        if (m->valid[s][w] && m->tag[s][w] == tag) {
            a.hit = true;
            a.hway = w;
            a.entry = m->ent[s][w];
        }
    const unsigned b = in->wbsel_i ? in->wbway_i : m->vict[s];
    a.wb = m->valid[s][b] && m->dirty[s][b];
    a.wb_line = m->tag[s][b] << SET_BITS | s;
    a.wb_entry = m->ent[s][b];
    return a;
}

/* The edge: the arrays written (a fill into the victim way, an update into the hit way), then the
 * flags (an invalidation drops every entry). */
static void tick(dc_model_t *m, const vw_dir_cache_tb_in *in, const dc_answer_t *a)
{
    const unsigned s = set_of(in), tag = in->line_i >> SET_BITS;
    if (in->fill_i) {
        const unsigned v = m->vict[s];
        m->tag[s][v] = tag;
        m->ent[s][v] = in->fill_entry_i;
        m->valid[s][v] = true;
        m->dirty[s][v] = false;
        m->vict[s] = (v + 1) % WAYS;
    } else if (in->upd_i && a->hit) {
        m->ent[s][a->hway] = in->upd_entry_i;
        m->dirty[s][a->hway] = true;
    } else if (in->wbsel_i && in->clean_i) {
        m->dirty[s][in->wbway_i] = false;
    }
    if (in->inv_i) {
        memset(m->valid, 0, sizeof m->valid);
        memset(m->dirty, 0, sizeof m->dirty);
        memset(m->vict, 0, sizeof m->vict);
    }
}

/* The outputs of one form against the model's answer. */
static void check(const char *form, uint64_t seed, uint64_t cyc, const vw_dir_cache_tb_in *in,
                  const vw_dir_cache_tb_out *o, const dc_answer_t *a)
{
    if (!in->look_i) {
        cr_assert(o->hit_o == 0 && o->entry_o == 0 && o->wb_valid_o == 0 && o->wb_line_o == 0 && o->wb_entry_o == 0,
                  "%s seed=%llu cycle=%llu: a cycle that does not look answers 0", form, (unsigned long long)seed,
                  (unsigned long long)cyc);
        return;
    }
    cr_assert_eq(o->hit_o, a->hit, "%s seed=%llu cycle=%llu: hit_o", form, (unsigned long long)seed,
                 (unsigned long long)cyc);
    if (a->hit)
        cr_assert_eq(o->entry_o, a->entry, "%s seed=%llu cycle=%llu: entry_o", form, (unsigned long long)seed,
                     (unsigned long long)cyc);
    cr_assert_eq(o->wb_valid_o, a->wb, "%s seed=%llu cycle=%llu: wb_valid_o", form, (unsigned long long)seed,
                 (unsigned long long)cyc);
    if (a->wb) {
        cr_assert_eq(o->wb_line_o, a->wb_line, "%s seed=%llu cycle=%llu: wb_line_o", form, (unsigned long long)seed,
                     (unsigned long long)cyc);
        cr_assert_eq(o->wb_entry_o, a->wb_entry, "%s seed=%llu cycle=%llu: wb_entry_o", form,
                     (unsigned long long)seed, (unsigned long long)cyc);
    }
}

Test(dir_cache, both_forms_answer_as_the_model_and_zero_when_not_looking, .timeout = 60)
{
    const unsigned cycles = 20000;
    const uint64_t seed = tb_seed(1);
    rng_t rng;
    rng_init_named(&rng, seed, "dir_cache");
    vw_dir_cache_tb *sim = vw_dir_cache_tb_create(PERIOD_PS, seed);
    vw_dir_cache_tb_synth *syn = vw_dir_cache_tb_synth_create(PERIOD_PS, seed + 1);
    dc_model_t m;
    memset(&m, 0, sizeof m);
    uint64_t cyc = vw_dir_cache_tb_reset(sim, 0, 2);
    vw_dir_cache_tb_synth_reset(syn, 0, 2);
    unsigned hits = 0, evictions = 0, updates = 0, cleans = 0, invs = 0, quiet = 0;
    for (unsigned c = 0; c < cycles; c++, cyc++) {
        vw_dir_cache_tb_in in;
        memset(&in, 0, sizeof in);
        in.rst_ni = 1;
        in.line_i = (unsigned)rng_range(&rng, 0, LINES - 1);
        in.look_i = rng_chance(&rng, 0.7);
        in.fill_entry_i = (unsigned)rng_next(&rng) & ENT_MASK;
        in.upd_entry_i = (unsigned)rng_next(&rng) & ENT_MASK;
        in.wbset_i = (unsigned)rng_range(&rng, 0, SETS - 1);
        in.wbway_i = (unsigned)rng_range(&rng, 0, WAYS - 1);
        /* As dir_ctrl drives it: an operation only in a cycle that looks; a fill only on a miss, an
         * update (that may miss), or a flush's look at a way (clean it); now and then an invalidation.
         * Other cycles look without an operation, or do not look at all. */
        if (in.look_i) {
            const unsigned op = (unsigned)rng_range(&rng, 0, 5);
            in.wbsel_i = op == 4;
            const dc_answer_t pre = answer(&m, &in);
            in.fill_i = op <= 1 && !pre.hit;
            in.upd_i = op == 2;
            in.clean_i = op == 4 && rng_chance(&rng, 0.8);
            in.inv_i = op == 5 && rng_chance(&rng, 0.02);
        } else {
            /* (the inputs a controller leaves as they were: random, unused) */
            in.wbsel_i = rng_chance(&rng, 0.1);
            quiet++;
        }
        const dc_answer_t a = answer(&m, &in);
        hits += in.look_i && a.hit;
        evictions += in.fill_i && a.wb;
        updates += in.upd_i && a.hit;
        cleans += in.clean_i && a.wb;
        invs += in.inv_i;
        vw_dir_cache_tb_out o1, o2;
        vw_dir_cache_tb_set(sim, &in);
        vw_dir_cache_tb_get(sim, &o1);
        vw_dir_cache_tb_synth_set(syn, (const vw_dir_cache_tb_synth_in *)&in);
        vw_dir_cache_tb_synth_get(syn, (vw_dir_cache_tb_synth_out *)&o2);
        check("simulation form", seed, cyc, &in, &o1, &a);
        check("synthesis form", seed, cyc, &in, &o2, &a);
        tick(&m, &in, &a);
        vw_dir_cache_tb_tick(sim, cyc);
        vw_dir_cache_tb_synth_tick(syn, cyc);
    }
    /* Coverage: the run hit, evicted dirty entries, updated, cleaned, invalidated and stayed quiet. */
    cr_assert(hits > 1000 && evictions > 100 && updates > 100 && cleans > 30 && invs > 5 && quiet > 1000,
              "seed=%llu: hits %u, dirty evictions %u, updates %u, cleans %u, invalidations %u, quiet %u",
              (unsigned long long)seed, hits, evictions, updates, cleans, invs, quiet);
    vw_dir_cache_tb_free(sim);
    vw_dir_cache_tb_synth_free(syn);
}
