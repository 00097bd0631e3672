/* The CN memory hierarchy (csim/cn/cn_mem): directed GIVEN / WHEN / THEN tests of the hierarchy
 * and of the CN's side of the directory's contract (docs/architecture.md section 11c) against a
 * scripted MN (the test reads what the CN sends and answers by hand, at chosen times), and random
 * runs of several CNs against the directory's reference model (tb/sb/cn_sys).
 *
 * Randomized tests print their seed; rerun one with TB_SEED=<seed> and --filter. Each random test
 * runs TB_CN_MEM_SEEDS seeds (default 3) from TB_SEED (default: its own). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/addr.h"
#include "cn/cn_mem.h"
#include "sb/cn_sys.h"
#include "tb_seed.h"

#define W ADDR_WORDS_PER_LINE
#define CN 1u
#define MN MSG_MN_BASE

/* ---------------------------------------------------------------------------------------------
 * A CN against a scripted MN */

enum { R_DONE, R_COMMIT };
typedef struct rec {
    int what;
    uint64_t tag, v, t;
    unsigned ver; /* a commit's version */
} rec_t;

typedef struct fx {
    kernel_t k;
    stats_t st;
    cn_mem_params_t p;
    cn_mem_t *c;
    const mem_if_t *mi;
    clock_domain_t clk;
    unsigned crd[MSG_NUM_CLASSES];
    uint64_t released[MSG_NUM_CLASSES];
    msg_t sent[256];
    uint64_t sent_t[256];
    unsigned nsent, seen;
    rec_t rec[256];
    unsigned nrec;
} fx_t;

static unsigned fl_credits(void *obj, msg_class_t c) { return ((fx_t *)obj)->crd[c]; }
static void fl_send(void *obj, const msg_t *m)
{
    fx_t *f = obj;
    msg_class_t c = msg_class(m->opcode);
    cr_assert_gt(f->crd[c], 0, "%s sent without a %s credit", msg_name(m->opcode), msg_class_name(c));
    cr_assert_null(msg_check(m), "malformed %s: %s", msg_name(m->opcode), msg_check(m));
    cr_assert_lt(f->nsent, 256);
    f->crd[c]--;
    f->sent_t[f->nsent] = f->k.now;
    f->sent[f->nsent++] = *m;
}
static void fl_release(void *obj, msg_class_t c) { ((fx_t *)obj)->released[c]++; }

/* Defaults: CN 1 of 2 cores, paper latencies at 2.4 GHz, small caches (L1 2 sets x 2 ways, L2 4 x
 * 2, L3 4 x 4), one MN, SCR = lines [0, 1024), local DRAM 45 ns; 4 credits per class. */
static cn_mem_params_t fx_params(void)
{
    return (cn_mem_params_t){.cn = CN, .cores = 2, .l1 = {256, 2, 5}, .l2 = {512, 2, 13}, .l3 = {1024, 4, 36},
                             .core_freq_hz = 2400000000ull, .local_latency_ps = 45000, .local_bytes = 1 << 20,
                             .num_mn = 1, .interleave_bytes = 64, .scr_lo = 0, .scr_hi = 1024, .name = "cn1.mem",
                             .seed = 1};
}

static fx_t *fx_new(const cn_mem_params_t *p)
{
    fx_t *f = calloc(1, sizeof *f);
    cr_assert_not_null(f);
    kernel_init(&f->k);
    cr_assert_eq(stats_init(&f->st), 0);
    f->p = p ? *p : fx_params();
    for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
        f->crd[c] = 4;
    f->clk = clock_domain("core", f->p.core_freq_hz);
    char err[256];
    cn_link_t l = {.obj = f, .credits = fl_credits, .send = fl_send, .release = fl_release};
    f->c = cn_mem_create(&f->k, &f->p, &l, &f->st, err);
    cr_assert_not_null(f->c, "%s", err);
    f->mi = cn_mem_if(f->c);
    return f;
}

static void fx_free(fx_t *f)
{
    cn_mem_free(f->c);
    stats_free(&f->st);
    kernel_free(&f->k);
    free(f);
}

static void fx_run(fx_t *f) { kernel_run(&f->k, UINT64_MAX); }
static void nop(void *obj, uint64_t arg) { (void)obj, (void)arg; }
/* Runs the events up to time t (ps) and stops there. */
static void fx_until(fx_t *f, uint64_t t)
{
    kernel_at(&f->k, t, nop, NULL, 0);
    kernel_run(&f->k, t);
}
/* When an access called at t with a round trip of n core cycles is performed. */
static uint64_t fx_after_from(fx_t *f, uint64_t t, uint64_t n)
{
    return clock_edge(&f->clk, clock_cycle_at_or_after(&f->clk, t) + n);
}
/* When an access called now with a round trip of n core cycles is performed. */
static uint64_t fx_after(fx_t *f, uint64_t n)
{
    return clock_edge(&f->clk, clock_cycle_at_or_after(&f->clk, f->k.now) + n);
}

static uint64_t ctr(fx_t *f, const char *name)
{
    char full[128];
    snprintf(full, sizeof full, "%s.%s", f->p.name, name);
    const uint64_t *v = stats_find_counter(&f->st, full);
    cr_assert_not_null(v, "no counter %s", full);
    return *v;
}

static void on_done(void *obj, uint64_t tag, uint64_t v)
{
    fx_t *f = obj;
    cr_assert_lt(f->nrec, 256);
    f->rec[f->nrec++] = (rec_t){R_DONE, tag, v, f->k.now, 0};
}
static void on_commit(void *obj, uint64_t tag, uint64_t v, unsigned version)
{
    fx_t *f = obj;
    cr_assert_lt(f->nrec, 256);
    f->rec[f->nrec++] = (rec_t){R_COMMIT, tag, v, f->k.now, version};
}
static const rec_t *fx_rec(const fx_t *f, int what, uint64_t tag)
{
    for (unsigned i = 0; i < f->nrec; i++)
        if (f->rec[i].what == what && f->rec[i].tag == tag)
            return &f->rec[i];
    return NULL;
}
/* Asserts access tag is done at time t (UINT64_MAX: any time) with value v; returns when. */
static uint64_t fx_done(const fx_t *f, uint64_t tag, uint64_t t, uint64_t v)
{
    const rec_t *r = fx_rec(f, R_DONE, tag);
    cr_assert_not_null(r, "access %llu is not done", (unsigned long long)tag);
    if (t != UINT64_MAX)
        cr_assert_eq(r->t, t, "access %llu done at %llu ps, want %llu", (unsigned long long)tag,
                     (unsigned long long)r->t, (unsigned long long)t);
    cr_assert_eq(r->v, v, "access %llu returned 0x%llx, want 0x%llx", (unsigned long long)tag,
                 (unsigned long long)r->v, (unsigned long long)v);
    return r->t;
}
static void fx_not_done(const fx_t *f, uint64_t tag)
{
    cr_assert_null(fx_rec(f, R_DONE, tag), "access %llu is done already", (unsigned long long)tag);
}

static void ld(fx_t *f, unsigned core, uint64_t addr, uint64_t tag) { f->mi->load(f->mi->obj, core, addr, on_done, f, tag); }
static void st(fx_t *f, unsigned core, uint64_t addr, uint64_t v, bool wt, uint64_t tag)
{
    uint64_t words[W] = {0};
    words[addr_word(addr)] = v;
    f->mi->store(f->mi->obj, core, addr_line(addr), (uint8_t)(1u << addr_word(addr)), words, wt, on_commit, on_done,
                 f, tag);
}
static void st_mask(fx_t *f, unsigned core, uint64_t line, uint8_t mask, const uint64_t *words, bool wt, uint64_t tag)
{
    f->mi->store(f->mi->obj, core, line, mask, words, wt, on_commit, on_done, f, tag);
}
static void fl(fx_t *f, unsigned core, uint64_t addr, uint64_t tag) { f->mi->flush(f->mi->obj, core, addr, on_done, f, tag); }
static void rmw(fx_t *f, unsigned core, uint64_t addr, mem_rmw_e op, uint64_t a, uint64_t b, bool wt, uint64_t tag)
{
    f->mi->rmw(f->mi->obj, core, addr, op, a, b, wt, on_commit, on_done, f, tag);
}

/* The next message the CN sent: opcode op for global line gl; returns it. */
static msg_t fx_next(fx_t *f, msg_op_t op, uint64_t gl)
{
    cr_assert_lt(f->seen, f->nsent, "expected %s for line 0x%llx, nothing more was sent", msg_name(op),
                 (unsigned long long)gl);
    msg_t m = f->sent[f->seen++];
    cr_assert(m.opcode == op && m.addr == gl && m.src == CN,
              "expected %s for line 0x%llx from CN %u, got %s for line 0x%llx from %u", msg_name(op),
              (unsigned long long)gl, CN, msg_name(m.opcode), (unsigned long long)m.addr, m.src);
    return m;
}
static void fx_nothing_sent(const fx_t *f)
{
    cr_assert_eq(f->seen, f->nsent, "unexpected %s for line 0x%llx", msg_name(f->sent[f->seen].opcode),
                 (unsigned long long)f->sent[f->seen].addr);
}

/* The MN answers request q (now) with op, carrying data when not NULL. */
static void fx_answer(fx_t *f, const msg_t *q, msg_op_t op, const uint64_t *data)
{
    msg_t m = {.opcode = op, .src = q->dst, .dst = CN, .core = q->core, .tag = q->tag, .addr = q->addr};
    if (data) {
        m.mask = 0xff;
        memcpy(m.data, data, sizeof m.data);
    }
    cr_assert_null(msg_check(&m));
    cn_mem_deliver(f->c, &m);
    fx_run(f);
}
/* The MN snoops global line gl with op and tag (now). */
static void fx_snoop(fx_t *f, msg_op_t op, uint64_t gl, uint16_t tag)
{
    msg_t m = {.opcode = op, .src = MN, .dst = CN, .tag = tag, .addr = gl};
    cn_mem_deliver(f->c, &m);
    fx_run(f);
}
/* The next message is the answer to snoop tag: op, flags, and (data kinds) the line data. */
static void fx_birsp(fx_t *f, msg_op_t op, uint64_t gl, uint16_t tag, uint8_t flags, const uint64_t *data)
{
    msg_t m = fx_next(f, op, gl);
    cr_assert_eq(m.tag, tag, "%s carries tag %u, the snoop had %u", msg_name(op), m.tag, tag);
    cr_assert_eq(m.dst, MN);
    cr_assert_eq(m.flags, flags, "%s flags 0x%x, want 0x%x", msg_name(op), m.flags, flags);
    if (data)
        for (unsigned w = 0; w < W; w++)
            cr_assert_eq(m.data[w], data[w], "%s word %u is 0x%llx, want 0x%llx", msg_name(op), w,
                         (unsigned long long)m.data[w], (unsigned long long)data[w]);
}

static cn_mem_probe_t probe(const fx_t *f, uint64_t addr)
{
    cn_mem_probe_t p;
    cn_mem_probe(f->c, addr, &p);
    return p;
}

static void line_data(uint64_t *d, uint64_t base)
{
    for (unsigned w = 0; w < W; w++)
        d[w] = base + w;
}

/* Global line gl as a byte address, word w. */
static uint64_t ra(uint64_t gl, unsigned w) { return gl * ADDR_LINE_BYTES + 8 * w; }
/* Local line n, word w. */
static uint64_t la(uint64_t n, unsigned w) { return ADDR_LOCAL_BASE + n * ADDR_LINE_BYTES + 8 * w; }

/* ---------------------------------------------------------------------------------------------
 * Parameters, timing, the hierarchy inside the CN */

Test(cn_mem, create_refuses_unusable_parameters)
{
    kernel_t k;
    kernel_init(&k);
    stats_t s;
    stats_init(&s);
    cn_link_t l = {0};
    char err[256];
    cn_mem_params_t p = fx_params();
    p.cores = 17;
    cr_assert_null(cn_mem_create(&k, &p, &l, &s, err));
    cr_assert(strstr(err, "cores"), "%s", err);
    p = fx_params();
    p.num_mn = 3;
    cr_assert_null(cn_mem_create(&k, &p, &l, &s, err));
    cr_assert(strstr(err, "power of two"), "%s", err);
    p = fx_params();
    p.interleave_bytes = 32;
    cr_assert_null(cn_mem_create(&k, &p, &l, &s, err));
    cr_assert(strstr(err, "interleave"), "%s", err);
    p = fx_params();
    p.l2.size_bytes = 64;
    cr_assert_null(cn_mem_create(&k, &p, &l, &s, err));
    cr_assert(strstr(err, "L2"), "%s", err);
    p = fx_params();
    p.scr_lo = 10, p.scr_hi = 5;
    cr_assert_null(cn_mem_create(&k, &p, &l, &s, err));
    cr_assert(strstr(err, "SCR"), "%s", err);
    stats_free(&s);
    kernel_free(&k);
}

Test(cn_mem, each_level_answers_after_its_round_trip_latency)
{
    /* GIVEN a CN with the paper's latencies (L1 5, L2 13, L3 36 core cycles at 2.4 GHz; local DRAM
     * 45 ns) and a local word X holding 0xabc in DRAM only */
    fx_t *f = fx_new(NULL);
    uint64_t X = la(1, 0), Y1 = la(3, 0), Y2 = la(5, 0); /* one L1 set; X and Y2 share an L2 set */
    cn_mem_local_poke(f->c, X, 0xabc);
    /* WHEN core 0 loads X: a miss (L3 lookup, then DRAM) */
    uint64_t t_miss = fx_after(f, 36) + 45000;
    ld(f, 0, X, 1);
    fx_run(f);
    /* THEN it is performed when DRAM's data are in, with DRAM's value */
    fx_done(f, 1, t_miss, 0xabc);
    cr_assert_eq(t_miss, 60000);
    /* WHEN it loads X again: an L1 hit, 5 cycles */
    uint64_t t_l1 = fx_after(f, 5);
    ld(f, 0, X, 2);
    fx_run(f);
    fx_done(f, 2, t_l1, 0xabc);
    /* WHEN two more lines of X's L1 set push X out of the L1 (not out of the L2): an L2 hit, 13 */
    ld(f, 0, Y1, 3);
    fx_run(f);
    ld(f, 0, Y2, 4);
    fx_run(f);
    cn_mem_probe_t p = probe(f, X);
    cr_assert(p.l1[0] == CN_PV_I && p.l2[0] != CN_PV_I, "X should be in core 0's L2 only");
    uint64_t t_l2 = fx_after(f, 13);
    ld(f, 0, X, 5);
    fx_run(f);
    fx_done(f, 5, t_l2, 0xabc);
    /* WHEN core 1, which holds nothing, loads X: an L3 hit, 36 */
    uint64_t t_l3 = fx_after(f, 36);
    ld(f, 1, X, 6);
    fx_run(f);
    fx_done(f, 6, t_l3, 0xabc);
    /* WHEN core 1 loads a remote line: the request leaves after the L3 lookup (36 cycles) and the
     * load is performed when the answer arrives */
    uint64_t t_req = fx_after(f, 36);
    ld(f, 1, ra(7, 3), 7);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_SHARED, 7);
    cr_assert_eq(f->sent_t[0], t_req, "RD_SHARED left at %llu ps, want %llu", (unsigned long long)f->sent_t[0],
                 (unsigned long long)t_req);
    cr_assert_eq(q.dst, MN);
    cr_assert_eq(q.core, 1);
    fx_until(f, t_req + 200000);
    uint64_t d[W];
    line_data(d, 0x700);
    fx_answer(f, &q, OP_DATA_S, d);
    fx_done(f, 7, t_req + 200000, 0x703);
    /* THEN the counters say where each access was served */
    cr_assert_eq(ctr(f, "core0.l1.hits"), 1);
    cr_assert_eq(ctr(f, "core0.l2.hits"), 1);
    cr_assert_eq(ctr(f, "core0.l1.misses"), 4);
    cr_assert_eq(ctr(f, "core0.l2.misses"), 3);
    cr_assert_eq(ctr(f, "core1.l2.misses"), 2);
    cr_assert_eq(ctr(f, "l3.hits"), 1);
    cr_assert_eq(ctr(f, "l3.misses"), 4);
    cr_assert_eq(ctr(f, "port.tx.RD_SHARED"), 1);
    cr_assert(cn_mem_idle(f->c));
    fx_free(f);
}

/* A message the MN delivers at a chosen time (kernel event). */
typedef struct late {
    fx_t *f;
    msg_t m;
} late_t;
static void deliver_late(void *obj, uint64_t arg)
{
    (void)arg;
    late_t *l = obj;
    cn_mem_deliver(l->f->c, &l->m);
}

Test(cn_mem, a_copy_lost_between_lookup_and_perform_costs_the_next_levels_round_trip)
{
    /* GIVEN core 0 holds remote line 3 shared in its L1 */
    fx_t *f = fx_new(NULL);
    uint64_t d[W];
    line_data(d, 0x300);
    ld(f, 0, ra(3, 0), 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_SHARED, 3);
    fx_answer(f, &q, OP_DATA_S, d);
    /* WHEN it loads the line again (an L1 hit at the lookup) and a BISNP_INV takes the line one
     * picosecond later, before the load is performed */
    uint64_t t_l3 = fx_after(f, 36);
    ld(f, 0, ra(3, 1), 2);
    late_t l = {f, {.opcode = OP_BISNP_INV, .src = MN, .dst = CN, .tag = 9, .addr = 3}};
    kernel_at(&f->k, f->k.now + 1, deliver_late, &l, 0);
    fx_run(f);
    /* THEN the load goes on to the L3's round trip and misses there: its RD_SHARED leaves 36
     * cycles after the call, not 5 */
    fx_birsp(f, OP_BIRSP_I, 3, 9, 0, NULL);
    msg_t r = fx_next(f, OP_RD_SHARED, 3);
    cr_assert_eq(f->sent_t[f->seen - 1], t_l3, "the request left at %llu ps, want %llu",
                 (unsigned long long)f->sent_t[f->seen - 1], (unsigned long long)t_l3);
    fx_not_done(f, 2);
    fx_answer(f, &r, OP_DATA_S, d);
    fx_done(f, 2, UINT64_MAX, 0x301);
    fx_free(f);
}

Test(cn_mem, a_store_invalidates_other_cores_and_a_load_takes_the_owners_dirty_data)
{
    /* GIVEN core 0 holds local line X alone (granted exclusively on its load) */
    fx_t *f = fx_new(NULL);
    uint64_t X = la(9, 2);
    ld(f, 0, X, 1);
    fx_run(f);
    cr_assert_eq(probe(f, X).l1[0], CN_PV_X, "a lone reader gets the line exclusively");
    /* WHEN it stores: an L1 hit (5 cycles), committed at once */
    uint64_t t = fx_after(f, 5);
    st(f, 0, X, 0x111, false, 2);
    fx_run(f);
    const rec_t *c = fx_rec(f, R_COMMIT, 2);
    cr_assert(c && c->t == t, "the store commits on its L1 hit");
    fx_done(f, 2, t, 0);
    /* WHEN core 1 loads X: the owner is downgraded, its dirty word moves to the L3 */
    ld(f, 1, X, 3);
    fx_run(f);
    fx_done(f, 3, UINT64_MAX, 0x111);
    cn_mem_probe_t p = probe(f, X);
    cr_assert(p.l1[0] == CN_PV_S && p.l1[1] == CN_PV_S && p.owner == -1, "both share X");
    cr_assert_eq(p.dmask, 1u << 2, "the word is dirty in the L3 (toward local DRAM)");
    /* WHEN core 1 stores: core 0's copies are invalidated */
    st(f, 1, X, 0x222, false, 4);
    fx_run(f);
    p = probe(f, X);
    cr_assert(p.l1[0] == CN_PV_I && p.l2[0] == CN_PV_I && p.l1[1] == CN_PV_X && p.owner == 1);
    cr_assert_eq(ctr(f, "l3.local_upgrades"), 1, "core 1 upgraded its shared copy inside the CN");
    /* THEN core 0 reads core 1's value, and nothing went to the fabric (local memory) */
    ld(f, 0, X, 5);
    fx_run(f);
    fx_done(f, 5, UINT64_MAX, 0x222);
    cr_assert_eq(cn_mem_local_peek(f->c, X), 0x222);
    cr_assert_eq(f->nsent, 0);
    fx_free(f);
}

Test(cn_mem, misses_of_several_cores_merge_on_one_request)
{
    /* GIVEN nothing cached */
    fx_t *f = fx_new(NULL);
    /* WHEN both cores load words of remote line 5 at once */
    ld(f, 0, ra(5, 2), 1);
    ld(f, 1, ra(5, 3), 2);
    fx_run(f);
    /* THEN one RD_SHARED leaves (for core 0, the first), the second miss waits on it */
    msg_t q = fx_next(f, OP_RD_SHARED, 5);
    cr_assert_eq(q.core, 0);
    fx_nothing_sent(f);
    cr_assert_eq(ctr(f, "mshr.merges"), 1);
    cr_assert_eq(probe(f, ra(5, 0)).waiting, 2);
    /* WHEN DATA_E comes: both loads are performed at that moment */
    fx_until(f, 100000);
    uint64_t d[W];
    line_data(d, 0x500);
    fx_answer(f, &q, OP_DATA_E, d);
    fx_done(f, 1, 100000, 0x502);
    fx_done(f, 2, 100000, 0x503);
    cn_mem_probe_t p = probe(f, ra(5, 0));
    cr_assert(p.l3 == CN_L3_OWN && p.l1[0] == CN_PV_S && p.l1[1] == CN_PV_S);
    cr_assert(cn_mem_idle(f->c));
    fx_free(f);
}

Test(cn_mem, a_store_to_a_shared_line_asks_rd_upgrade_and_commits_on_cmp_e)
{
    /* GIVEN remote line 6 shared (DATA_S) in core 0's caches */
    fx_t *f = fx_new(NULL);
    uint64_t d[W];
    line_data(d, 0x600);
    ld(f, 0, ra(6, 0), 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_SHARED, 6);
    fx_answer(f, &q, OP_DATA_S, d);
    fx_done(f, 1, UINT64_MAX, 0x600);
    /* WHEN core 1 stores word 1 */
    st(f, 1, ra(6, 1), 0x6161, false, 2);
    fx_run(f);
    /* THEN the CN asks for ownership with RD_UPGRADE (never RD_OWN from S), and core 0 still
     * reads its shared copy meanwhile */
    msg_t u = fx_next(f, OP_RD_UPGRADE, 6);
    cr_assert_eq(u.core, 1);
    cr_assert_null(fx_rec(f, R_COMMIT, 2));
    ld(f, 0, ra(6, 1), 3);
    fx_run(f);
    fx_done(f, 3, UINT64_MAX, 0x601);
    /* WHEN CMP_E comes: the store commits, core 0's copy is gone */
    fx_until(f, f->k.now + 50000);
    uint64_t t = f->k.now;
    fx_answer(f, &u, OP_CMP_E, NULL);
    const rec_t *c = fx_rec(f, R_COMMIT, 2);
    cr_assert(c && c->t == t, "the store commits when CMP_E arrives");
    fx_done(f, 2, t, 0);
    cn_mem_probe_t p = probe(f, ra(6, 0));
    cr_assert(p.l3 == CN_L3_OWN && p.l1[0] == CN_PV_I && p.l1[1] == CN_PV_X);
    uint64_t v;
    cr_assert(cn_mem_peek(f->c, ra(6, 1), &v) && v == 0x6161, "the CN holds the newest copy");
    cr_assert(cn_mem_peek(f->c, ra(6, 2), &v) && v == 0x602);
    fx_nothing_sent(f);
    fx_free(f);
}

Test(cn_mem, prefetch_x_brings_the_line_exclusively_so_the_store_hits_the_l1)
{
    /* GIVEN nothing cached */
    fx_t *f = fx_new(NULL);
    /* WHEN core 0 prefetches remote line 21 for a store */
    f->mi->prefetch_x(f->mi->obj, 0, ra(21, 3));
    fx_run(f);
    /* THEN it asks for ownership and the line lands in its L1 exclusively */
    msg_t q = fx_next(f, OP_RD_OWN, 21);
    uint64_t d[W];
    line_data(d, 0x2100);
    fx_answer(f, &q, OP_DATA_E, d);
    cr_assert_eq(probe(f, ra(21, 0)).l1[0], CN_PV_X);
    /* WHEN the store comes: an L1 hit, committed after 5 cycles, nothing sent */
    uint64_t t = fx_after(f, 5);
    st(f, 0, ra(21, 3), 0x77, false, 1);
    fx_run(f);
    const rec_t *c = fx_rec(f, R_COMMIT, 1);
    cr_assert(c && c->t == t);
    fx_nothing_sent(f);
    cr_assert(cn_mem_idle(f->c));
    fx_free(f);
}

/* ---------------------------------------------------------------------------------------------
 * Snoops: the CN's side of the directory's contract */

Test(cn_mem, bisnp_during_a_dirty_eviction_is_answered_from_the_eviction_buffer_with_wr_in_flight)
{
    /* GIVEN remote line 8 owned and dirty (core 0 stored word 0) */
    fx_t *f = fx_new(NULL);
    uint64_t d[W], ev[W];
    line_data(d, 0x800);
    st(f, 0, ra(8, 0), 0x8080, false, 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_OWN, 8);
    fx_answer(f, &q, OP_DATA_E, d);
    cr_assert_not_null(fx_rec(f, R_COMMIT, 1));
    /* WHEN core 0 flushes it: DIRTY_EVICT with the whole line, kept until its CMP */
    fl(f, 0, ra(8, 0), 2);
    fx_run(f);
    msg_t e = fx_next(f, OP_DIRTY_EVICT, 8);
    memcpy(ev, d, sizeof ev);
    ev[0] = 0x8080;
    cr_assert_eq(e.mask, 0xff);
    for (unsigned w = 0; w < W; w++)
        cr_assert_eq(e.data[w], ev[w]);
    fx_not_done(f, 2);
    /* AND core 1 loads the line meanwhile: it waits for the CMP (one request per line) */
    ld(f, 1, ra(8, 3), 3);
    fx_run(f);
    fx_nothing_sent(f);
    cr_assert_eq(probe(f, ra(8, 0)).out, CN_OUT_DIRTY_EVICT);
    /* WHEN a BISNP_INV crosses the eviction */
    fx_snoop(f, OP_BISNP_INV, 8, 0x21);
    /* THEN it is answered at once, I kind, with the evicted data and WR_IN_FLIGHT */
    fx_birsp(f, OP_BIRSP_I_DATA, 8, 0x21, MSG_FLAG_WR_IN_FLIGHT, ev);
    cr_assert_eq(ctr(f, "snoop.wr_in_flight"), 1);
    /* WHEN the eviction's CMP comes: the flush is done, and only now the load asks */
    fx_until(f, f->k.now + 10000);
    uint64_t t = f->k.now;
    fx_answer(f, &e, OP_CMP, NULL);
    fx_done(f, 2, t, 0);
    msg_t r = fx_next(f, OP_RD_SHARED, 8);
    cr_assert_eq(r.core, 1);
    line_data(d, 0x8800);
    fx_answer(f, &r, OP_DATA_S, d);
    fx_done(f, 3, UINT64_MAX, 0x8803);
    cr_assert_eq(ctr(f, "evict.dirty"), 1);
    cr_assert(cn_mem_idle(f->c));
    fx_free(f);
}

Test(cn_mem, bisnp_data_during_a_clean_eviction_is_answered_birsp_i_with_wr_in_flight)
{
    /* GIVEN remote line 9 held clean in E (DATA_E to a read) */
    fx_t *f = fx_new(NULL);
    uint64_t d[W];
    line_data(d, 0x900);
    ld(f, 0, ra(9, 0), 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_SHARED, 9);
    fx_answer(f, &q, OP_DATA_E, d);
    /* WHEN it is flushed: CLEAN_EVICT */
    fl(f, 0, ra(9, 0), 2);
    fx_run(f);
    msg_t e = fx_next(f, OP_CLEAN_EVICT, 9);
    /* AND a BISNP_DATA crosses it */
    fx_snoop(f, OP_BISNP_DATA, 9, 0x22);
    /* THEN the answer is of an I kind (the line is leaving: never S), no data, WR_IN_FLIGHT */
    fx_birsp(f, OP_BIRSP_I, 9, 0x22, MSG_FLAG_WR_IN_FLIGHT, NULL);
    fx_not_done(f, 2);
    fx_answer(f, &e, OP_CMP, NULL);
    fx_done(f, 2, UINT64_MAX, 0);
    cr_assert_eq(probe(f, ra(9, 0)).l3, CN_L3_I);
    cr_assert(cn_mem_idle(f->c));
    fx_free(f);
}

Test(cn_mem, bisnp_overtaking_the_answer_to_a_read_is_held_until_the_answer_is_in)
{
    /* GIVEN core 0 waits for the answer to its RD_SHARED of line 10 */
    fx_t *f = fx_new(NULL);
    uint64_t d[W];
    line_data(d, 0xa00);
    ld(f, 0, ra(10, 4), 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_SHARED, 10);
    /* WHEN a BISNP_INV arrives first (about the answer, already decided) */
    fx_snoop(f, OP_BISNP_INV, 10, 0x23);
    /* THEN it is held: no answer yet, the load still waits */
    fx_nothing_sent(f);
    cr_assert(probe(f, ra(10, 0)).held);
    fx_not_done(f, 1);
    cr_assert_eq(ctr(f, "snoop.held"), 1);
    /* WHEN the DATA_E comes: the load is performed with it, then the snoop is answered from the
     * cache (clean E: BIRSP_I without data) and the line is gone */
    fx_until(f, f->k.now + 30000);
    uint64_t t = f->k.now;
    fx_answer(f, &q, OP_DATA_E, d);
    fx_done(f, 1, t, 0xa04);
    fx_birsp(f, OP_BIRSP_I, 10, 0x23, 0, NULL);
    cr_assert_eq(probe(f, ra(10, 0)).l3, CN_L3_I);
    cr_assert(cn_mem_idle(f->c));
    fx_free(f);
}

Test(cn_mem, bisnp_data_overtaking_the_answer_to_rd_own_sees_the_committed_store)
{
    /* GIVEN core 1's store waits for the answer to RD_OWN of line 11 */
    fx_t *f = fx_new(NULL);
    uint64_t d[W];
    line_data(d, 0xb00);
    st(f, 1, ra(11, 2), 0xb2, false, 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_OWN, 11);
    /* WHEN a BISNP_DATA overtakes the DATA_E */
    fx_snoop(f, OP_BISNP_DATA, 11, 0x24);
    fx_nothing_sent(f);
    fx_answer(f, &q, OP_DATA_E, d);
    /* THEN the store commits first, then the snoop gets the line with the store in it, and the CN
     * keeps a shared copy */
    cr_assert_not_null(fx_rec(f, R_COMMIT, 1));
    d[2] = 0xb2;
    fx_birsp(f, OP_BIRSP_S_DATA, 11, 0x24, 0, d);
    cn_mem_probe_t p = probe(f, ra(11, 0));
    cr_assert(p.l3 == CN_L3_S && p.l1[1] == CN_PV_S && p.dmask == 0);
    uint64_t v;
    cr_assert(!cn_mem_peek(f->c, ra(11, 2), &v), "memory has the newest copy now");
    fx_free(f);
}

/* GIVEN line 12 shared, core 0's store waiting for its RD_UPGRADE, WHEN a BISNP_INV arrives:
 * answered at once (BIRSP_I), the S copy dropped. Returns the upgrade. */
static msg_t upgrade_then_snooped(fx_t *f)
{
    uint64_t d[W];
    line_data(d, 0xc00);
    ld(f, 0, ra(12, 0), 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_SHARED, 12);
    fx_answer(f, &q, OP_DATA_S, d);
    st(f, 0, ra(12, 1), 0xc1, false, 2);
    fx_run(f);
    msg_t u = fx_next(f, OP_RD_UPGRADE, 12);
    fx_snoop(f, OP_BISNP_INV, 12, 0x25);
    fx_birsp(f, OP_BIRSP_I, 12, 0x25, 0, NULL);
    cn_mem_probe_t p = probe(f, ra(12, 0));
    cr_assert(p.l3 == CN_L3_PEND && p.l1[0] == CN_PV_I && p.l2[0] == CN_PV_I, "the S copy is dropped");
    cr_assert_eq(ctr(f, "snoop.upgrade_lost"), 1);
    cr_assert_null(fx_rec(f, R_COMMIT, 2));
    return u;
}

Test(cn_mem, bisnp_inv_on_an_s_copy_with_an_upgrade_waiting_is_answered_at_once_and_cmp_e_is_then_void)
{
    fx_t *f = fx_new(NULL);
    msg_t u = upgrade_then_snooped(f);
    /* AND core 1 loads the line: a miss now, waiting on the outstanding upgrade */
    ld(f, 1, ra(12, 5), 3);
    fx_run(f);
    fx_nothing_sent(f);
    /* WHEN CMP_E comes (the upgrade had been granted before the snoop took the line) */
    fx_answer(f, &u, OP_CMP_E, NULL);
    /* THEN it is void: nothing committed, the CN asks again with RD_OWN (it holds no S copy) */
    cr_assert_null(fx_rec(f, R_COMMIT, 2));
    msg_t o = fx_next(f, OP_RD_OWN, 12);
    cr_assert_eq(o.core, 0);
    cr_assert_eq(ctr(f, "snoop.void_cmp_e"), 1);
    /* WHEN DATA_E comes: the store commits, then the load reads the new line */
    uint64_t d[W];
    line_data(d, 0xcc00);
    fx_answer(f, &o, OP_DATA_E, d);
    cr_assert_not_null(fx_rec(f, R_COMMIT, 2));
    fx_done(f, 3, UINT64_MAX, 0xcc05);
    uint64_t v;
    cr_assert(cn_mem_peek(f->c, ra(12, 1), &v) && v == 0xc1);
    cr_assert(cn_mem_idle(f->c));
    fx_free(f);
}

Test(cn_mem, data_e_to_an_upgrade_after_its_s_copy_was_snooped_away_is_a_valid_grant)
{
    fx_t *f = fx_new(NULL);
    msg_t u = upgrade_then_snooped(f);
    /* WHEN the upgrade is answered DATA_E (served after the snoop, from I) */
    uint64_t d[W];
    line_data(d, 0xcd00);
    fx_answer(f, &u, OP_DATA_E, d);
    /* THEN the line is installed and the store commits; nothing more is asked */
    cr_assert_not_null(fx_rec(f, R_COMMIT, 2));
    fx_nothing_sent(f);
    uint64_t v;
    cr_assert(cn_mem_peek(f->c, ra(12, 4), &v) && v == 0xcd04);
    cr_assert(cn_mem_peek(f->c, ra(12, 1), &v) && v == 0xc1);
    cr_assert_eq(ctr(f, "snoop.void_cmp_e"), 0);
    fx_free(f);
}

/* cn_mem_wt_pending's calls: the last one's arguments and their number. */
typedef struct wtp {
    unsigned n, core;
    uint64_t gline;
    uint8_t mask;
} wtp_t;

static void wtp_fn(void *obj, unsigned core, uint64_t gline, uint8_t mask)
{
    wtp_t *p = obj;
    p->n++, p->core = core, p->gline = gline, p->mask = mask;
}

Test(cn_mem, write_through_store_answers_snoops_with_wr_in_flight_until_its_cmp)
{
    /* GIVEN core 0 stores words 0 and 1 of line 13 written through */
    fx_t *f = fx_new(NULL);
    uint64_t d[W], words[W] = {0xd0, 0xd1};
    line_data(d, 0xd00);
    st_mask(f, 0, ra(13, 0), 0x03, words, true, 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_OWN, 13);
    fx_answer(f, &q, OP_DATA_E, d);
    /* THEN it commits with ownership and sends WT_WR with just those words; not done yet */
    cr_assert_not_null(fx_rec(f, R_COMMIT, 1));
    msg_t w = fx_next(f, OP_WT_WR, 13);
    cr_assert(w.mask == 0x03 && w.data[0] == 0xd0 && w.data[1] == 0xd1 && w.core == 0);
    fx_not_done(f, 1);
    cr_assert_eq(probe(f, ra(13, 0)).l3, CN_L3_OWN, "the line stays owned");
    /* AND it is a write-through not durable yet (a failure now would put it in doubt) */
    wtp_t p = {0};
    cn_mem_wt_pending(f->c, wtp_fn, &p);
    cr_assert(p.n == 1 && p.core == 0 && p.gline == w.addr && p.mask == 0x03,
              "%u pending, core %u line 0x%llx mask 0x%x", p.n, p.core, (unsigned long long)p.gline, p.mask);
    /* WHEN a BISNP_DATA comes before the CMP: the line's data, WR_IN_FLIGHT, the CN keeps S */
    d[0] = 0xd0, d[1] = 0xd1;
    fx_snoop(f, OP_BISNP_DATA, 13, 0x26);
    fx_birsp(f, OP_BIRSP_S_DATA, 13, 0x26, MSG_FLAG_WR_IN_FLIGHT, d);
    cr_assert_eq(probe(f, ra(13, 0)).l3, CN_L3_S);
    /* WHEN then a BISNP_INV: from S, BIRSP_I without data (it went with the first answer) */
    fx_snoop(f, OP_BISNP_INV, 13, 0x27);
    fx_birsp(f, OP_BIRSP_I, 13, 0x27, MSG_FLAG_WR_IN_FLIGHT, NULL);
    cr_assert_eq(probe(f, ra(13, 0)).l3, CN_L3_I);
    /* WHEN the CMP comes: the store is done; a new read may go */
    fx_until(f, f->k.now + 5000);
    uint64_t t = f->k.now;
    fx_answer(f, &w, OP_CMP, NULL);
    fx_done(f, 1, t, 0);
    p = (wtp_t){0};
    cn_mem_wt_pending(f->c, wtp_fn, &p);
    cr_assert_eq(p.n, 0, "a write-through still pending after its CMP");
    ld(f, 0, ra(13, 0), 2);
    fx_run(f);
    fx_next(f, OP_RD_SHARED, 13);
    cr_assert_eq(ctr(f, "write_throughs"), 1);
    cr_assert_eq(ctr(f, "snoop.wr_in_flight"), 2);
    fx_free(f);
}

Test(cn_mem, a_second_write_through_to_a_line_waits_for_the_first_ones_cmp)
{
    /* GIVEN three cores; core 0's write-through to line 14 waits for its CMP */
    cn_mem_params_t p = fx_params();
    p.cores = 3;
    fx_t *f = fx_new(&p);
    uint64_t d[W];
    line_data(d, 0xe00);
    st(f, 0, ra(14, 0), 0xe0, true, 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_OWN, 14);
    fx_answer(f, &q, OP_DATA_E, d);
    msg_t w1 = fx_next(f, OP_WT_WR, 14);
    /* WHEN core 1 writes through to the same line, and core 2 stores without write-through */
    st(f, 1, ra(14, 5), 0xe5, true, 2);
    st(f, 2, ra(14, 6), 0xe6, false, 3);
    fx_run(f);
    /* THEN core 1's store waits (one write-through per line in flight), core 2's commits */
    fx_nothing_sent(f);
    cr_assert_null(fx_rec(f, R_COMMIT, 2));
    fx_done(f, 3, UINT64_MAX, 0);
    /* WHEN the first CMP comes: the first is done, the second commits and goes */
    fx_answer(f, &w1, OP_CMP, NULL);
    fx_done(f, 1, UINT64_MAX, 0);
    cr_assert_not_null(fx_rec(f, R_COMMIT, 2));
    msg_t w2 = fx_next(f, OP_WT_WR, 14);
    cr_assert(w2.mask == 1u << 5 && w2.data[5] == 0xe5 && w2.core == 1);
    fx_answer(f, &w2, OP_CMP, NULL);
    fx_done(f, 2, UINT64_MAX, 0);
    uint64_t v;
    cr_assert(cn_mem_peek(f->c, ra(14, 6), &v) && v == 0xe6);
    cr_assert(cn_mem_idle(f->c));
    fx_free(f);
}

/* ---------------------------------------------------------------------------------------------
 * LNR lines, evictions, atomics, credits, zero-time access */

/* GIVEN an LNR line read (DATA_NC) and two of its words stored, WHEN core 0 flushes it: returns
 * the mask of the LNR_WR (the test of the LNR write-back, per word or whole lines, and with a
 * mutation). A whole line carries the clean words as the CN holds them. */
static uint8_t lnr_store_then_flush(bool word, unsigned mutate)
{
    cn_mem_params_t p = fx_params();
    p.lnr_word_writeback = word;
    p.mutate = mutate;
    fx_t *f = fx_new(&p);
    const uint64_t L = 2000; /* outside the SCR [0, 1024) */
    uint64_t d[W], words[W] = {0};
    line_data(d, 0xf00);
    ld(f, 0, ra(L, 1), 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_LNR_RD, L);
    fx_answer(f, &q, OP_DATA_NC, d);
    fx_done(f, 1, UINT64_MAX, 0xf01);
    cr_assert_eq(probe(f, ra(L, 0)).l3, CN_L3_NC);
    words[2] = 0x22, words[5] = 0x55;
    st_mask(f, 0, ra(L, 0), 0x24, words, false, 2);
    fx_run(f);
    fx_done(f, 2, UINT64_MAX, 0);
    fx_nothing_sent(f); /* no coherence: the store hits the cached copy */
    uint64_t v;
    cr_assert(cn_mem_peek(f->c, ra(L, 5), &v) && v == 0x55, "a dirty LNR word is the CN's");
    cr_assert(!cn_mem_peek(f->c, ra(L, 3), &v), "a clean one is memory's");
    fl(f, 0, ra(L, 0), 3);
    fx_run(f);
    msg_t w = fx_next(f, OP_LNR_WR, L);
    cr_assert(w.data[2] == 0x22 && w.data[5] == 0x55);
    for (unsigned i = 0; i < W; i++)
        cr_assert(!(w.mask >> i & 1) || i == 2 || i == 5 || w.data[i] == d[i], "word %u: 0x%llx", i,
                  (unsigned long long)w.data[i]);
    fx_not_done(f, 3);
    fx_answer(f, &w, OP_CMP, NULL);
    fx_done(f, 3, UINT64_MAX, 0);
    cr_assert_eq(probe(f, ra(L, 0)).l3, CN_L3_I, "flushed lines are dropped");
    /* a flush of a line the CN does not hold is done after the L3 lookup, without a message */
    uint64_t t = fx_after(f, 36);
    fl(f, 1, ra(L, 0), 4);
    fx_run(f);
    fx_done(f, 4, t, 0);
    fx_nothing_sent(f);
    ld(f, 0, ra(L, 2), 5);
    fx_run(f);
    fx_next(f, OP_LNR_RD, L);
    fx_free(f);
    return w.mask;
}

Test(cn_mem, lnr_lines_are_read_with_lnr_rd_and_flushed_whole_or_with_only_their_dirty_words)
{
    cr_assert_eq(lnr_store_then_flush(false, 0), 0xff, "the LNR_WR must carry the whole line (default)");
    cr_assert_eq(lnr_store_then_flush(true, 0), 0x24, "the LNR_WR must carry only the dirty words");
}

Test(cn_mem, the_lnr_test_fails_when_write_backs_carry_clean_words)
{
    /* The test above can fail: with the deliberate bug the per-word mask is the whole line. */
    cr_assert_eq(lnr_store_then_flush(true, CN_MUT_LNR_WRITE_ALL), 0xff);
}

Test(cn_mem, lnr_victims_write_back_dirty_words_and_clean_ones_leave_silently)
{
    /* GIVEN an L3 of one set of 4 ways holding a dirty and a clean LNR line, per-word write-backs */
    cn_mem_params_t p = fx_params();
    p.lnr_word_writeback = true;
    p.l1 = (cfg_cache_t){64, 1, 5}, p.l2 = (cfg_cache_t){128, 2, 13}, p.l3 = (cfg_cache_t){256, 4, 36};
    fx_t *f = fx_new(&p);
    uint64_t d[W];
    line_data(d, 0x100);
    ld(f, 0, ra(2001, 0), 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_LNR_RD, 2001);
    fx_answer(f, &q, OP_DATA_NC, d);
    st(f, 0, ra(2001, 3), 0x33, false, 2);
    fx_run(f);
    ld(f, 0, ra(2002, 0), 3);
    fx_run(f);
    q = fx_next(f, OP_LNR_RD, 2002);
    fx_answer(f, &q, OP_DATA_NC, d);
    /* WHEN local lines fill the set */
    for (unsigned i = 0; i < 4; i++) {
        ld(f, 1, la(i, 0), 10 + i);
        fx_run(f);
    }
    /* THEN the dirty LNR line left with its one dirty word, the clean one without a message */
    msg_t w = fx_next(f, OP_LNR_WR, 2001);
    cr_assert(w.mask == 1u << 3 && w.data[3] == 0x33, "LNR_WR mask 0x%x", w.mask);
    fx_nothing_sent(f);
    cr_assert_eq(ctr(f, "evict.lnr"), 1);
    cr_assert_eq(ctr(f, "evict.lnr_clean"), 1);
    cr_assert_eq(probe(f, ra(2001, 0)).l3, CN_L3_I);
    cr_assert_eq(probe(f, ra(2002, 0)).l3, CN_L3_I);
    /* AND a new read of the dirty line waits for the write-back's CMP */
    ld(f, 0, ra(2001, 3), 4);
    fx_run(f);
    fx_nothing_sent(f);
    fx_answer(f, &w, OP_CMP, NULL);
    fx_next(f, OP_LNR_RD, 2001);
    fx_free(f);
}

Test(cn_mem, an_inclusive_l3_victim_back_invalidates_the_private_copies_with_their_data)
{
    /* GIVEN an L3 of one set of 2 ways, and core 0 holding remote line 15 dirty in its L1 */
    cn_mem_params_t p = fx_params();
    p.l1 = (cfg_cache_t){64, 1, 5}, p.l2 = (cfg_cache_t){128, 2, 13}, p.l3 = (cfg_cache_t){128, 2, 36};
    fx_t *f = fx_new(&p);
    uint64_t d[W];
    line_data(d, 0x1500);
    st(f, 0, ra(15, 0), 0xf0, false, 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_OWN, 15);
    fx_answer(f, &q, OP_DATA_E, d);
    cr_assert_eq(probe(f, ra(15, 0)).l1[0], CN_PV_X);
    /* WHEN core 1 reads two local lines: the remote line is the L3's victim */
    ld(f, 1, la(0, 0), 2);
    fx_run(f);
    ld(f, 1, la(1, 0), 3);
    fx_run(f);
    /* THEN core 0's L1 and L2 copies are gone and the DIRTY_EVICT carries core 0's store */
    cn_mem_probe_t pr = probe(f, ra(15, 0));
    cr_assert(pr.l1[0] == CN_PV_I && pr.l2[0] == CN_PV_I && pr.l3 == CN_L3_I);
    msg_t e = fx_next(f, OP_DIRTY_EVICT, 15);
    d[0] = 0xf0;
    for (unsigned w = 0; w < W; w++)
        cr_assert_eq(e.data[w], d[w], "DIRTY_EVICT word %u", w);
    fx_answer(f, &e, OP_CMP, NULL);
    /* WHEN core 0 stores local line 2 (dirty in its L1) and core 1 reads lines 3 and 4 */
    st(f, 0, la(2, 0), 0x77, false, 4);
    fx_run(f);
    ld(f, 1, la(3, 0), 5);
    fx_run(f);
    ld(f, 1, la(4, 0), 6);
    fx_run(f);
    /* THEN line 2 left every level and its dirty word is in local DRAM */
    pr = probe(f, la(2, 0));
    cr_assert(pr.l1[0] == CN_PV_I && pr.l2[0] == CN_PV_I && pr.l3 == CN_L3_I);
    cr_assert_eq(cn_mem_local_peek(f->c, la(2, 0)), 0x77);
    ld(f, 0, la(2, 0), 7);
    fx_run(f);
    fx_done(f, 7, UINT64_MAX, 0x77);
    cr_assert_geq(ctr(f, "evict.local"), 2);
    cr_assert(cn_mem_idle(f->c));
    fx_free(f);
}

Test(cn_mem, atomics_return_the_old_word_and_commit_the_new_one)
{
    fx_t *f = fx_new(NULL);
    uint64_t X = la(20, 1);
    /* GIVEN local word X = 0: a CAS from 0 writes, a CAS from 0 again does not */
    rmw(f, 0, X, MEM_RMW_CAS, 0, 5, false, 1);
    fx_run(f);
    fx_done(f, 1, UINT64_MAX, 0);
    cr_assert_eq(fx_rec(f, R_COMMIT, 1)->v, 5);
    rmw(f, 1, X, MEM_RMW_CAS, 0, 6, false, 2);
    fx_run(f);
    fx_done(f, 2, UINT64_MAX, 5);
    cr_assert_null(fx_rec(f, R_COMMIT, 2), "a failed CAS writes nothing");
    rmw(f, 0, X, MEM_RMW_FADD, 3, 0, false, 3);
    fx_run(f);
    fx_done(f, 3, UINT64_MAX, 5);
    cr_assert_eq(fx_rec(f, R_COMMIT, 3)->v, 8);
    rmw(f, 1, X, MEM_RMW_SWAP, 0x99, 0, false, 4);
    fx_run(f);
    fx_done(f, 4, UINT64_MAX, 8);
    cr_assert_eq(cn_mem_local_peek(f->c, X), 0x99);
    /* WHEN a written-through FADD on a remote word: committed at the write, done on the CMP */
    rmw(f, 0, ra(16, 1), MEM_RMW_FADD, 2, 0, true, 5);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_OWN, 16);
    uint64_t d[W];
    line_data(d, 0x1600);
    fx_answer(f, &q, OP_DATA_E, d);
    cr_assert_eq(fx_rec(f, R_COMMIT, 5)->v, 0x1603);
    msg_t w = fx_next(f, OP_WT_WR, 16);
    cr_assert(w.mask == 0x02 && w.data[1] == 0x1603);
    fx_not_done(f, 5);
    fx_answer(f, &w, OP_CMP, NULL);
    fx_done(f, 5, UINT64_MAX, 0x1601);
    fx_free(f);
}

Test(cn_mem, messages_wait_in_order_for_send_credits)
{
    /* GIVEN no REQ credit */
    fx_t *f = fx_new(NULL);
    f->crd[CLS_REQ] = 0;
    /* WHEN two misses need requests */
    ld(f, 0, ra(17, 0), 1);
    fx_run(f);
    ld(f, 1, ra(18, 0), 2);
    fx_run(f);
    /* THEN nothing leaves, and the dump says why */
    fx_nothing_sent(f);
    cr_assert(!cn_mem_idle(f->c));
    char buf[4096];
    FILE *m = fmemopen(buf, sizeof buf, "w");
    cn_mem_dump(f->c, m);
    fclose(m);
    cr_assert(strstr(buf, "wait for a credit"), "%s", buf);
    /* WHEN credits come back one at a time: the requests leave in order */
    f->crd[CLS_REQ] = 1;
    cn_mem_credit(f->c, CLS_REQ);
    fx_next(f, OP_RD_SHARED, 17);
    fx_nothing_sent(f);
    f->crd[CLS_REQ] = 1;
    cn_mem_credit(f->c, CLS_REQ);
    fx_next(f, OP_RD_SHARED, 18);
    fx_free(f);
}

Test(cn_mem, a_local_poke_during_the_lines_dram_read_is_not_lost)
{
    /* GIVEN core 0's load of local line 40 waiting for DRAM (the read took DRAM's line already) */
    fx_t *f = fx_new(NULL);
    uint64_t X = la(40, 6);
    ld(f, 0, X, 1);
    fx_until(f, fx_after(f, 36) + 1000);
    cr_assert_eq(probe(f, X).out, CN_OUT_LOCAL_RD);
    /* WHEN the word is poked */
    cn_mem_local_poke(f->c, X, 0x4646);
    fx_run(f);
    /* THEN the load and the cached line have the poked value */
    fx_done(f, 1, UINT64_MAX, 0x4646);
    cr_assert_eq(cn_mem_local_peek(f->c, X), 0x4646);
    fx_free(f);
}

Test(cn_mem, local_poke_and_peek_see_the_newest_copy_and_a_flush_writes_it_to_dram)
{
    /* GIVEN core 0 holds local word X dirty in its L1 */
    fx_t *f = fx_new(NULL);
    uint64_t X = la(30, 1);
    st(f, 0, X, 0xaa, false, 1);
    fx_run(f);
    cr_assert_eq(cn_mem_local_peek(f->c, X), 0xaa, "peek sees the L1's dirty word");
    /* WHEN the word is poked */
    cn_mem_local_poke(f->c, X, 0xbb);
    /* THEN the cores read it, and a flush puts it in DRAM: done when DRAM has it */
    ld(f, 0, X, 2);
    fx_run(f);
    fx_done(f, 2, UINT64_MAX, 0xbb);
    uint64_t t = fx_after(f, 36) + 45000;
    fl(f, 0, X, 3);
    fx_run(f);
    fx_done(f, 3, t, 0);
    cr_assert_eq(probe(f, X).l3, CN_L3_I);
    cr_assert_eq(cn_mem_local_peek(f->c, X), 0xbb);
    cr_assert_eq(f->nsent, 0);
    fx_free(f);
}

Test(cn_mem, clean_coherent_victims_are_announced_with_clean_evict)
{
    /* GIVEN an L3 of one set of 2 ways holding remote line 22 shared and clean */
    cn_mem_params_t p = fx_params();
    p.l1 = (cfg_cache_t){64, 1, 5}, p.l2 = (cfg_cache_t){128, 2, 13}, p.l3 = (cfg_cache_t){128, 2, 36};
    fx_t *f = fx_new(&p);
    uint64_t d[W];
    line_data(d, 0x2200);
    ld(f, 0, ra(22, 0), 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_SHARED, 22);
    fx_answer(f, &q, OP_DATA_S, d);
    /* WHEN two local lines push it out */
    ld(f, 1, la(0, 0), 2);
    fx_run(f);
    ld(f, 1, la(1, 0), 3);
    fx_run(f);
    /* THEN it leaves with CLEAN_EVICT (no silent drop of a coherent line), and the next read of it
     * waits for that CMP */
    msg_t e = fx_next(f, OP_CLEAN_EVICT, 22);
    cr_assert_eq(ctr(f, "evict.clean"), 1);
    ld(f, 0, ra(22, 0), 4);
    fx_run(f);
    fx_nothing_sent(f);
    fx_answer(f, &e, OP_CMP, NULL);
    fx_next(f, OP_RD_SHARED, 22);
    fx_free(f);
}

/* ---------------------------------------------------------------------------------------------
 * Random runs against the directory's reference model (tb/sb/cn_sys) */

static unsigned nseeds(void)
{
    const char *s = getenv("TB_CN_MEM_SEEDS");
    long n = s ? strtol(s, NULL, 0) : 0;
    return n > 0 ? (unsigned)n : 3;
}

/* Runs cfg over TB_CN_MEM_SEEDS seeds from TB_SEED (default dflt); every run must pass. Returns
 * the sums of what the runs exercised (the tests require per-run minimums of the races they are
 * about, about a third of the least seen over 100 seeds). */
static cn_sys_result_t random_runs(const cn_sys_cfg_t *cfg, const char *test, uint64_t dflt)
{
    static cn_sys_result_t r;
    cn_sys_result_t sum = {.ok = true};
    uint64_t base = tb_seed(dflt);
    for (unsigned k = 0; k < nseeds(); k++) {
        uint64_t seed = base + k;
        char replay[200];
        snprintf(replay, sizeof replay, "TB_SEED=%llu TB_CN_MEM_SEEDS=1 build/bin/run_tests --filter 'cn_mem/%s'",
                 (unsigned long long)seed, test);
        cn_sys_run(cfg, seed, replay, &r);
        cr_assert(r.ok, "%s", r.msg);
        cr_assert_geq(r.ops_done, cfg->ops);
        sum.ops_done += r.ops_done, sum.loads += r.loads, sum.stores += r.stores, sum.rmws += r.rmws;
        sum.flushes += r.flushes, sum.wts += r.wts, sum.reordered += r.reordered, sum.held += r.held;
        sum.wif += r.wif, sum.upg_lost += r.upg_lost, sum.void_cmp_e += r.void_cmp_e;
        sum.ev_clean += r.ev_clean, sum.ev_dirty += r.ev_dirty, sum.ev_lnr += r.ev_lnr, sum.merges += r.merges;
        sum.alloc_waits += r.alloc_waits, sum.l3_misses += r.l3_misses, sum.stale_wr += r.stale_wr;
        sum.commits_checked += r.commits_checked;
    }
    return sum;
}

Test(cn_mem, random_three_cns_one_home)
{
    cn_sys_cfg_t c = cn_sys_default_cfg();
    c.name = "three_cns_one_home";
    cn_sys_result_t s = random_runs(&c, "random_three_cns_one_home", 1);
    const unsigned n = nseeds();
    /* the races of the contract happened */
    cr_assert_gt(s.held, 60 * n, "snoops held: %llu", (unsigned long long)s.held);
    cr_assert_gt(s.wif, 35 * n, "WR_IN_FLIGHT answers: %llu", (unsigned long long)s.wif);
    cr_assert_gt(s.upg_lost, 40 * n, "upgrades that lost their S copy: %llu", (unsigned long long)s.upg_lost);
    cr_assert_gt(s.void_cmp_e, 5 * n, "void CMP_E: %llu", (unsigned long long)s.void_cmp_e);
    cr_assert_gt(s.stale_wr, 30 * n);
    cr_assert_gt(s.ev_dirty, 3 * n);
    cr_assert_gt(s.ev_lnr, 6 * n);
    cr_assert_gt(s.merges, 300 * n);
    cr_assert_gt(s.reordered, 150 * n);
    cr_assert_gt(s.commits_checked, 500 * n, "commits whose version was checked: %llu",
                 (unsigned long long)s.commits_checked);
}

Test(cn_mem, random_two_homes_interleaved_by_line)
{
    cn_sys_cfg_t c = cn_sys_default_cfg();
    c.name = "two_homes_by_line";
    c.ncn = 4, c.mn_shift = 1, c.lines_per_mn = 128, c.scr_hi = 192, c.nscr = 16, c.nhot = 4;
    cn_sys_result_t s = random_runs(&c, "random_two_homes_interleaved_by_line", 11);
    const unsigned n = nseeds();
    cr_assert_gt(s.held + s.wif + s.upg_lost, 200 * n);
}

Test(cn_mem, random_two_homes_in_chunks_of_eight_lines)
{
    cn_sys_cfg_t c = cn_sys_default_cfg();
    c.name = "two_homes_chunks";
    c.ncn = 4, c.mn_shift = 1, c.gran_shift = 3, c.lines_per_mn = 128, c.scr_lo = 16, c.scr_hi = 160;
    c.nscr = 16, c.nhot = 3, c.nlnr = 6, c.p_lnr = 0.2;
    c.lnr_word_writeback = false; /* whole-line LNR write-backs (the others check per-word ones) */
    cn_sys_result_t s = random_runs(&c, "random_two_homes_in_chunks_of_eight_lines", 21);
    const unsigned n = nseeds();
    cr_assert_gt(s.ev_lnr, 20 * n);
}

Test(cn_mem, random_eight_cns_on_one_hot_line)
{
    cn_sys_cfg_t c = cn_sys_default_cfg();
    c.name = "hot_line";
    c.ncn = 8, c.nscr = 4, c.nhot = 1, c.hot_share = 0.9, c.p_lnr = 0.02, c.p_local = 0.02;
    cn_sys_result_t s = random_runs(&c, "random_eight_cns_on_one_hot_line", 31);
    const unsigned n = nseeds();
    cr_assert_gt(s.held, 70 * n);
    cr_assert_gt(s.upg_lost, 25 * n);
}

Test(cn_mem, random_order_kept_inside_each_class)
{
    cn_sys_cfg_t c = cn_sys_default_cfg();
    c.name = "class_fifo";
    c.class_fifo = true;
    cn_sys_result_t s = random_runs(&c, "random_order_kept_inside_each_class", 41);
    const unsigned n = nseeds();
    cr_assert_eq(s.reordered, 0, "the link reordered %llu messages inside a class", (unsigned long long)s.reordered);
    cr_assert_gt(s.held, 60 * n, "snoops still overtake answers (other classes)");
}

Test(cn_mem, random_one_credit_and_a_two_entry_directory)
{
    cn_sys_cfg_t c = cn_sys_default_cfg();
    c.name = "one_credit";
    c.credits = 1, c.dir_crd = 1, c.dir_txn = 2, c.ncn = 4;
    random_runs(&c, "random_one_credit_and_a_two_entry_directory", 51);
}

Test(cn_mem, random_every_remote_write_written_through)
{
    cn_sys_cfg_t c = cn_sys_default_cfg();
    c.name = "write_through";
    c.p_wt = 1.0;
    cn_sys_result_t s = random_runs(&c, "random_every_remote_write_written_through", 61);
    const unsigned n = nseeds();
    cr_assert_gt(s.wts, 190 * n);
    cr_assert_gt(s.wif, 120 * n);
}

Test(cn_mem, random_paper_caches_four_cores)
{
    cn_sys_cfg_t c = cn_sys_default_cfg();
    c.name = "paper_caches";
    c.cores = 4, c.ncn = 4;
    c.l1 = (cfg_cache_t){48 * 1024, 12, 5};
    c.l2 = (cfg_cache_t){512 * 1024, 8, 13};
    c.l3 = (cfg_cache_t){8 * 1024 * 1024, 16, 36};
    cn_sys_result_t s = random_runs(&c, "random_paper_caches_four_cores", 71);
    const unsigned n = nseeds();
    cr_assert_gt(s.held + s.upg_lost, 120 * n);
}

Test(cn_mem, random_tiny_l3_under_four_cores)
{
    cn_sys_cfg_t c = cn_sys_default_cfg();
    c.name = "tiny_l3";
    c.cores = 4;
    c.l1 = (cfg_cache_t){128, 2, 5};
    c.l2 = (cfg_cache_t){256, 2, 13};
    c.l3 = (cfg_cache_t){256, 2, 36}; /* 4 lines for 4 cores' 16 L2 lines: inclusion bites */
    cn_sys_result_t s = random_runs(&c, "random_tiny_l3_under_four_cores", 81);
    const unsigned n = nseeds();
    cr_assert_gt(s.alloc_waits, 1000 * n, "no miss found its L3 set busy");
}

Test(cn_mem, random_sixteen_cns_two_homes)
{
    cn_sys_cfg_t c = cn_sys_default_cfg();
    c.name = "sixteen_cns";
    c.ncn = 16, c.cores = 1, c.mn_shift = 1, c.lines_per_mn = 128, c.nscr = 24, c.nhot = 4;
    c.think_ps = 100000;
    random_runs(&c, "random_sixteen_cns_two_homes", 91);
}

/* The random bench catches each deliberate bug: some seed of the small default fails. */
static void caught(unsigned mut, const char *what)
{
    static cn_sys_result_t r;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        cn_sys_cfg_t c = cn_sys_default_cfg();
        c.mutate = mut;
        c.ops = 2000;
        c.stall_ps = 50 * PS_PER_US;
        cn_sys_run(&c, seed, NULL, &r);
        if (!r.ok)
            return;
    }
    cr_assert_fail("the random bench did not catch: %s", what);
}

Test(cn_mem, random_bench_catches_each_deliberate_bug)
{
    caught(CN_MUT_HOLD_UPG_SNOOP, "holding a BISNP_INV on an S copy while the upgrade waits");
    caught(CN_MUT_NO_WIF, "answers without WR_IN_FLIGHT");
    caught(CN_MUT_CMPE_ALWAYS_VALID, "a void CMP_E taken as a grant");
    caught(CN_MUT_SNOOP_AT_ONCE_INSTALL, "answering an overtaking snoop at once and installing the answer");
    caught(CN_MUT_VICTIM_LOSES_DIRTY, "an L3 victim losing its private dirty data");
    caught(CN_MUT_STORE_KEEPS_SHARERS, "a store leaving other cores' copies");
    caught(CN_MUT_SILENT_CLEAN_DROP, "clean coherent victims dropped silently");
    caught(CN_MUT_DOWNGRADE_LOSES_DATA, "a downgrade losing the owner's dirty words");
    caught(CN_MUT_LNR_WRITE_ALL, "LNR write-backs carrying clean (stale) words");
    caught(CN_MUT_VERSION_NOT_KEPT, "lines' versions neither taken from grants nor counted by commits");
}

Test(cn_mem, a_random_run_replays_exactly_from_its_seed)
{
    /* GIVEN one configuration and seed, WHEN run twice, THEN every count and the end time agree */
    cn_sys_cfg_t c = cn_sys_default_cfg();
    c.ops = 1500;
    static cn_sys_result_t a, b;
    cn_sys_run(&c, 7, NULL, &a);
    cn_sys_run(&c, 7, NULL, &b);
    cr_assert(a.ok && b.ok, "%s", a.ok ? b.msg : a.msg);
    cr_assert(a.sim_ps == b.sim_ps && a.ops_done == b.ops_done && a.held == b.held && a.wif == b.wif &&
                  a.l3_misses == b.l3_misses && a.reordered == b.reordered && a.stale_wr == b.stale_wr,
              "two runs of seed 7 differ");
    cn_sys_run(&c, 8, NULL, &b);
    cr_assert(a.sim_ps != b.sim_ps || a.l3_misses != b.l3_misses, "another seed gives the same run");
}

/* ------------------------------------------------------------------------------------------------
 * Versions (docs/architecture.md section 11b) and acquire */

Test(cn_mem, a_lines_version_comes_with_the_grant_goes_up_per_commit_and_leaves_with_the_data)
{
    /* GIVEN a CN with no copy of line 40
     * WHEN core 0 acquires it (DATA_E with version 126), then core 0 stores two words in one
     *      entry, core 1 stores (the line moves between the cores' L1s), core 0 does a FADD, and a
     *      BISNP_INV takes the line
     * THEN the acquire is done when the DATA_E is in; the commits report 127, 0 (wrapped), 1; the
     *      snoop answer carries the data and version 1; a local store and an LNR-free check:
     *      a local line's commit reports 0 */
    fx_t *f = fx_new(NULL);
    f->mi->acquire(f->mi->obj, 0, ra(40, 1), on_done, f, 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_OWN, 40);
    fx_not_done(f, 1);
    uint64_t d[W];
    line_data(d, 0x500);
    msg_t g = {.opcode = OP_DATA_E, .src = q.dst, .dst = CN, .core = q.core, .tag = q.tag, .addr = q.addr,
               .mask = 0xff, .ts = 126};
    memcpy(g.data, d, sizeof g.data);
    cr_assert_null(msg_check(&g));
    cn_mem_deliver(f->c, &g);
    fx_run(f);
    cr_assert_not_null(fx_rec(f, R_DONE, 1), "the acquire is done once the grant is in");
    cr_assert_eq(probe(f, ra(40, 0)).ver, 126);
    uint64_t w2[W] = {0, 11, 12};
    st_mask(f, 0, ra(40, 0), 0x06, w2, false, 2);
    fx_run(f);
    st(f, 1, ra(40, 3), 13, false, 3);
    fx_run(f);
    rmw(f, 0, ra(40, 4), MEM_RMW_FADD, 5, 0, false, 4);
    fx_run(f);
    const unsigned want[] = {127, 0, 1};
    for (unsigned i = 0; i < 3; i++) {
        const rec_t *r = fx_rec(f, R_COMMIT, 2 + i);
        cr_assert_not_null(r);
        cr_assert_eq(r->ver, want[i], "commit %u reports version %u, want %u", i, r->ver, want[i]);
    }
    fx_nothing_sent(f);
    fx_snoop(f, OP_BISNP_INV, 40, 7);
    msg_t a = fx_next(f, OP_BIRSP_I_DATA, 40);
    cr_assert_eq(a.ts, 1, "the snoop answer carries version %u, want 1", a.ts);
    cr_assert_null(msg_check(&a));
    /* a local line has no version */
    st(f, 0, la(3, 0), 9, false, 8);
    fx_run(f);
    cr_assert_eq(fx_rec(f, R_COMMIT, 8)->ver, 0);
    /* acquiring a line the L1 already owns: done after the L1's round trip, nothing sent */
    st(f, 0, la(4, 0), 9, false, 9);
    fx_run(f);
    uint64_t t0 = f->k.now;
    f->mi->acquire(f->mi->obj, 0, la(4, 0), on_done, f, 10);
    fx_run(f);
    cr_assert_eq(fx_rec(f, R_DONE, 10)->t, fx_after_from(f, t0, 5));
    fx_free(f);
}

Test(cn_mem, a_dirty_eviction_and_a_write_through_carry_the_lines_version)
{
    /* GIVEN core 0 owns line 50 (DATA_E, version 9)
     * WHEN it writes through one word, then stores one word and the line is flushed
     * THEN WT_WR carries 10 and DIRTY_EVICT carries 11 */
    fx_t *f = fx_new(NULL);
    st(f, 0, ra(50, 0), 1, false, 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_OWN, 50);
    uint64_t d[W];
    line_data(d, 0x600);
    msg_t g = {.opcode = OP_DATA_E, .src = q.dst, .dst = CN, .core = q.core, .tag = q.tag, .addr = q.addr,
               .mask = 0xff, .ts = 9};
    memcpy(g.data, d, sizeof g.data);
    cn_mem_deliver(f->c, &g);
    fx_run(f);
    cr_assert_eq(fx_rec(f, R_COMMIT, 1)->ver, 10);
    st(f, 0, ra(50, 1), 2, true, 2);
    fx_run(f);
    msg_t w = fx_next(f, OP_WT_WR, 50);
    cr_assert_eq(w.ts, 11, "WT_WR carries version %u, want 11", w.ts);
    fx_answer(f, &w, OP_CMP, NULL);
    st(f, 0, ra(50, 2), 3, false, 3);
    fx_run(f);
    fl(f, 0, ra(50, 0), 4);
    fx_run(f);
    msg_t e = fx_next(f, OP_DIRTY_EVICT, 50);
    cr_assert_eq(e.ts, 12, "DIRTY_EVICT carries version %u, want 12", e.ts);
    cr_assert_null(msg_check(&e));
    fx_free(f);
}

/* A gate that says wait and remembers what the rmw would write. */
static uint64_t g_gate_nv;
static unsigned g_gates;
static bool gate_wait(void *obj, uint64_t tag, uint64_t nv)
{
    (void)obj;
    (void)tag;
    g_gate_nv = nv;
    g_gates++;
    return false;
}

Test(cn_mem, a_gated_rmw_pins_its_line_so_snoops_and_other_cores_wait_for_its_write)
{
    /* GIVEN core 0's gated FADD(+2) on remote word (16, 1), the line coming with DATA_E */
    fx_t *f = fx_new(NULL);
    g_gates = 0;
    uint64_t d[W];
    line_data(d, 0x1600);
    f->mi->rmw_gated(f->mi->obj, 0, ra(16, 1), MEM_RMW_FADD, 2, 0, gate_wait, on_commit, on_done, f, 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_OWN, 16);
    fx_answer(f, &q, OP_DATA_E, d);
    /* THEN the gate sees the new word; nothing is written or done yet */
    cr_assert_eq(g_gates, 1);
    cr_assert_eq(g_gate_nv, 0x1603);
    cr_assert_null(fx_rec(f, R_COMMIT, 1));
    fx_not_done(f, 1);
    cr_assert_eq(ctr(f, "rmw_pins"), 1);
    /* WHEN core 1 loads the word and the MN snoops the line meanwhile */
    ld(f, 1, ra(16, 1), 2);
    fx_run(f);
    fx_snoop(f, OP_BISNP_INV, 16, 0x31);
    fx_until(f, f->k.now + 50000);
    /* THEN both wait: no answer, no request, the load not done */
    fx_nothing_sent(f);
    fx_not_done(f, 2);
    cr_assert_eq(ctr(f, "snoop.held_by_pin"), 1);
    cr_assert(!cn_mem_idle(f->c));
    /* WHEN the gate's owner lets it go */
    f->mi->store_go(f->mi->obj, 0);
    fx_run(f);
    /* THEN the word is written (the commit), the rmw returns the old word, the held snoop takes
     * the dirty line with the new word, and core 1's load asks for the line again and reads it */
    cr_assert_eq(fx_rec(f, R_COMMIT, 1)->v, 0x1603);
    fx_done(f, 1, UINT64_MAX, 0x1601);
    d[1] = 0x1603;
    fx_birsp(f, OP_BIRSP_I_DATA, 16, 0x31, 0, d);
    msg_t r = fx_next(f, OP_RD_SHARED, 16);
    fx_answer(f, &r, OP_DATA_S, d);
    fx_done(f, 2, UINT64_MAX, 0x1603);
    cr_assert(cn_mem_idle(f->c));
    fx_free(f);
}

/* A store gate that says wait (DIKTAMO: the REPL_ACKs are not all in). */
static bool store_gate_wait(void *obj, uint64_t tag)
{
    (void)obj;
    (void)tag;
    g_gates++;
    return false;
}

Test(cn_mem, a_parked_store_keeps_its_line_unpinned_and_counts_it_lost_when_a_snoop_took_it)
{
    /* GIVEN core 0's gated store to remote word (20, 3) parked with write permission (DATA_E) */
    fx_t *f = fx_new(NULL);
    g_gates = 0;
    uint64_t d[W], words[W] = {0};
    line_data(d, 0x2000);
    words[3] = 0x99;
    f->mi->store_gated(f->mi->obj, 0, ra(20, 0), 1u << 3, words, store_gate_wait, on_commit, on_done, f, 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_OWN, 20);
    fx_answer(f, &q, OP_DATA_E, d);
    cr_assert_eq(g_gates, 1);
    fx_not_done(f, 1);
    /* WHEN the MN snoops the line while it waits */
    fx_snoop(f, OP_BISNP_INV, 20, 0x44);
    /* THEN the snoop is answered at once (nothing pins a parked store's line) */
    fx_birsp(f, OP_BIRSP_I, 20, 0x44, 0, NULL);
    cr_assert_eq(ctr(f, "parked_lost"), 0);
    /* WHEN its gate's owner lets it go */
    f->mi->store_go(f->mi->obj, 0);
    fx_run(f);
    /* THEN it counts as lost and asks for the line again, then commits */
    cr_assert_eq(ctr(f, "parked_lost"), 1);
    msg_t q2 = fx_next(f, OP_RD_OWN, 20);
    fx_answer(f, &q2, OP_DATA_E, d);
    cr_assert_eq(fx_rec(f, R_COMMIT, 1)->v, 0);
    fx_done(f, 1, UINT64_MAX, 0);
    /* AND a second parked store on the same line, not snooped, goes on from its L1: not lost */
    words[3] = 0xaa;
    f->mi->store_gated(f->mi->obj, 0, ra(20, 0), 1u << 3, words, store_gate_wait, on_commit, on_done, f, 2);
    fx_run(f);
    cr_assert_eq(g_gates, 2);
    f->mi->store_go(f->mi->obj, 0);
    fx_run(f);
    fx_done(f, 2, UINT64_MAX, 0);
    fx_nothing_sent(f);
    cr_assert_eq(ctr(f, "parked_lost"), 1);
    fx_free(f);
}

Test(cn_mem, a_failed_hierarchy_does_nothing_more_and_its_contents_are_lost)
{
    /* GIVEN core 0 holds remote line 16 dirty (a committed store) and waits for line 17 (RD_SHARED
     *       sent) */
    fx_t *f = fx_new(NULL);
    uint64_t d[W];
    line_data(d, 0x1600);
    st(f, 0, ra(16, 2), 0x77, false, 1);
    fx_run(f);
    msg_t q = fx_next(f, OP_RD_OWN, 16);
    fx_answer(f, &q, OP_DATA_E, d);
    fx_done(f, 1, UINT64_MAX, 0);
    ld(f, 0, ra(17, 0), 2);
    fx_run(f);
    msg_t q2 = fx_next(f, OP_RD_SHARED, 17);
    uint64_t v;
    cr_assert(cn_mem_peek(f->c, ra(16, 2), &v) && v == 0x77);
    /* WHEN the CN fails, then the answer to the read and a snoop arrive, and a core asks again */
    cn_mem_fail(f->c);
    fx_answer(f, &q2, OP_DATA_S, d);
    fx_snoop(f, OP_BISNP_INV, 16, 0x40);
    st(f, 1, ra(18, 0), 5, false, 3);
    fx_until(f, f->k.now + 2 * PS_PER_US);
    /* THEN nothing is done or sent, its caches hold nothing, and it is idle */
    fx_not_done(f, 2);
    fx_not_done(f, 3);
    fx_nothing_sent(f);
    cr_assert(!cn_mem_peek(f->c, ra(16, 2), &v), "a failed CN's cache still answers");
    cr_assert(cn_mem_idle(f->c));
    fx_free(f);
}
