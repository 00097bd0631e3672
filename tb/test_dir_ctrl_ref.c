/* Tests of the directory controller's reference model (tb/ref/dir_ctrl_ref.c, docs/architecture.md
 * section 11c) and of the random coherence tester (tb/sb/coh_tester.c) that judges it:
 * - one directed GIVEN / WHEN / THEN test per row of the state x event table, named after the row:
 *   the messages sent (opcode, destination, tag, core, data), the next entry, memory, the counters;
 * - every violation kind counted with its offending message, dropped, never answered;
 * - the stale-write races: an eviction or write-through crossing a snoop, in both arrival orders;
 * - fairness: many requesters on one line are served in arrival order; a stream of RWD does not
 *   starve REQ; a full table holds the input; the directory cache and the address map;
 * - the random tester on the model over every preset configuration, three seeds each; the tester
 *   reaches every row of the table; the tester fails on each deliberately broken model.
 * Randomized tests print their seed; rerun one with TB_SEED=<seed> and --filter. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <string.h>

#include "base/rng.h"
#include "ref/dir_ctrl_ref.h"
#include "sb/coh_home_ref.h"
#include "sb/coh_tester.h"
#include "tb_seed.h"

#define MN MSG_MN_BASE
#define L 0x45u /* the line of the directed tests (global = local with one MN) */

/* ------------------------------------------------------------------------------------------------
 * A controller driven by hand: messages in, every message out recorded in order. */

typedef struct dt {
    dir_ctrl_ref_t *r;
    msg_t out[1024];
    size_t nout, seen;
    msg_t sw[16];
    size_t nsw;
} dt_t;

static void dt_on_send(void *arg, const msg_t *m)
{
    dt_t *d = arg;
    cr_assert_lt(d->nout, 1024);
    const char *why = msg_check(m);
    cr_assert_null(why, "the model sent a malformed %s: %s", msg_name(m->opcode), why);
    d->out[d->nout++] = *m;
}

static void dt_on_sw(void *arg, const msg_t *m)
{
    dt_t *d = arg;
    cr_assert_lt(d->nsw, 16);
    d->sw[d->nsw++] = *m;
}

static dir_ctrl_ref_cfg_t dt_cfg(void)
{
    dir_ctrl_ref_cfg_t c = dir_ctrl_ref_default_cfg();
    c.mem_latency = 10;
    return c;
}

static void dt_init_cfg(dt_t *d, dir_ctrl_ref_cfg_t c)
{
    memset(d, 0, sizeof *d);
    c.send = dt_on_send;
    c.send_arg = d;
    c.sw_rx = dt_on_sw;
    c.sw_arg = d;
    cr_assert_null(dir_ctrl_ref_cfg_check(&c));
    d->r = dir_ctrl_ref_init(&c);
}

static void dt_init(dt_t *d) { dt_init_cfg(d, dt_cfg()); }
static void dt_free(dt_t *d) { dir_ctrl_ref_free(d->r); }

static void dt_in(dt_t *d, msg_t m)
{
    cr_assert(dir_ctrl_ref_can_recv(d->r, &m), "no credit for %s", msg_name(m.opcode));
    dir_ctrl_ref_recv(d->r, &m);
}

static void dt_ticks(dt_t *d, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        dir_ctrl_ref_tick(d->r);
}

/* Runs until the controller is idle. */
static void dt_settle(dt_t *d)
{
    for (unsigned i = 0; i < 100000 && !dir_ctrl_ref_idle(d->r); i++)
        dir_ctrl_ref_tick(d->r);
    cr_assert(dir_ctrl_ref_idle(d->r), "the controller does not settle");
}

/* A request or write from CN cn (core 1). */
static msg_t req(msg_op_t op, unsigned cn, uint64_t addr, uint16_t tag)
{
    return (msg_t){.opcode = op, .src = (uint8_t)cn, .dst = MN, .core = 1, .tag = tag, .addr = addr};
}
static msg_t rwd(msg_op_t op, unsigned cn, uint64_t addr, uint16_t tag, uint8_t mask, const uint64_t *data)
{
    msg_t m = req(op, cn, addr, tag);
    m.mask = mask;
    for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
        if (mask >> w & 1)
            m.data[w] = data[w];
    return m;
}
/* CN cn's answer to snoop s. */
static msg_t birsp(msg_op_t op, unsigned cn, const msg_t *s, uint8_t flags, const uint64_t *data)
{
    msg_t m = {.opcode = op, .src = (uint8_t)cn, .dst = MN, .tag = s->tag, .flags = flags, .addr = s->addr};
    if (data) {
        m.mask = 0xff;
        memcpy(m.data, data, sizeof m.data);
    }
    return m;
}

/* A line's data: words k * 0x100 + w. */
static void line_data(uint64_t k, uint64_t d[MSG_WORDS_PER_LINE])
{
    for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
        d[w] = k * 0x100 + w;
}

/* GIVEN: line addr in state (vec, stale), memory holding line_data(mem_k). */
static void given(dt_t *d, uint64_t addr, unsigned state, uint32_t vec, uint32_t stale, uint64_t mem_k)
{
    dir_entry_t e = {.state = state, .vec = vec, .stale = stale};
    cr_assert(dir_ctrl_ref_poke_entry(d->r, addr, &e));
    uint64_t data[MSG_WORDS_PER_LINE];
    line_data(mem_k, data);
    cr_assert(dir_ctrl_ref_mem_poke(d->r, addr, data));
}

/* THEN: the next message sent is op to dst about addr; returned. */
static msg_t next_out(dt_t *d, msg_op_t op, unsigned dst, uint64_t addr)
{
    cr_assert_lt(d->seen, d->nout, "expected %s to %u, nothing more was sent", msg_name(op), dst);
    msg_t m = d->out[d->seen++];
    cr_assert(m.opcode == op && m.dst == dst && m.addr == addr && m.src == MN,
              "expected %s to %u line 0x%x, got %s to %u line 0x%llx from %u", msg_name(op), dst, (unsigned)addr,
              msg_name(m.opcode), m.dst, (unsigned long long)m.addr, m.src);
    return m;
}

/* THEN: a response answers request q: its tag and core, and its data (NULL: none). */
static void expect_answer_line(dt_t *d, msg_op_t op, const msg_t *q, const uint64_t *want)
{
    msg_t m = next_out(d, op, q->src, q->addr);
    cr_assert_eq(m.tag, q->tag, "%s carries tag %u, the request had %u", msg_name(op), m.tag, q->tag);
    cr_assert_eq(m.core, q->core);
    if (want) {
        cr_assert_eq(m.mask, 0xff);
        for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
            cr_assert_eq(m.data[w], want[w], "%s word %u is 0x%llx, want 0x%llx", msg_name(op), w,
                         (unsigned long long)m.data[w], (unsigned long long)want[w]);
    } else {
        cr_assert_eq(m.mask, 0);
    }
}

/* The same with data line_data(k) (k < 0: no data). */
static void expect_answer(dt_t *d, msg_op_t op, const msg_t *q, int64_t k)
{
    uint64_t want[MSG_WORDS_PER_LINE];
    if (k >= 0)
        line_data((uint64_t)k, want);
    expect_answer_line(d, op, q, k >= 0 ? want : NULL);
}

static const uint64_t zero_line[MSG_WORDS_PER_LINE];

static void expect_nothing_more(dt_t *d)
{
    cr_assert_eq(d->seen, d->nout, "unexpected %s to %u", msg_name(d->out[d->seen].opcode), d->out[d->seen].dst);
}

static void expect_entry(dt_t *d, uint64_t addr, unsigned state, uint32_t vec, uint32_t stale)
{
    dir_entry_t e;
    cr_assert(dir_ctrl_ref_peek_entry(d->r, addr, &e));
    cr_assert(e.state == state && e.vec == vec && e.stale == stale,
              "entry of line 0x%llx is state %u vec 0x%x stale 0x%x, want %u 0x%x 0x%x", (unsigned long long)addr,
              e.state, e.vec, e.stale, state, vec, stale);
}

static void expect_mem(dt_t *d, uint64_t addr, const uint64_t *want)
{
    uint64_t m[MSG_WORDS_PER_LINE];
    cr_assert(dir_ctrl_ref_mem_peek(d->r, addr, m));
    for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
        cr_assert_eq(m[w], want[w], "memory of line 0x%llx word %u is 0x%llx, want 0x%llx", (unsigned long long)addr, w,
                     (unsigned long long)m[w], (unsigned long long)want[w]);
}
static void expect_mem_k(dt_t *d, uint64_t addr, uint64_t k)
{
    uint64_t want[MSG_WORDS_PER_LINE];
    line_data(k, want);
    expect_mem(d, addr, want);
}

/* THEN: row tr fired n times, and no other row. */
static void expect_rows(dt_t *d, dir_tr_e tr, uint64_t n)
{
    const dir_ref_counts_t *c = dir_ctrl_ref_counts(d->r);
    for (int k = 0; k < DIR_TR_NUM; k++)
        cr_assert_eq(c->tr[k], k == (int)tr ? n : 0, "row %s counted %llu", dir_tr_name((dir_tr_e)k),
                     (unsigned long long)c->tr[k]);
}

static void expect_no_violation(dt_t *d)
{
    size_t n;
    const dir_ref_viol_t *v = dir_ctrl_ref_violations(d->r, &n);
    cr_assert_eq(n, 0, "violation %s of %s from %u", n ? dir_viol_name(v[0].kind) : "", n ? msg_name(v[0].msg.opcode) : "",
                 n ? v[0].msg.src : 0);
}

/* THEN: exactly one violation, of kind k, recorded with message m; the counters agree. */
static void expect_violation(dt_t *d, dir_viol_e k, const msg_t *m)
{
    size_t n;
    const dir_ref_viol_t *v = dir_ctrl_ref_violations(d->r, &n);
    cr_assert_eq(n, 1, "%zu violations recorded, want one %s", n, dir_viol_name(k));
    cr_assert_eq(v[0].kind, k, "violation %s, want %s", dir_viol_name(v[0].kind), dir_viol_name(k));
    cr_assert(msg_equal(&v[0].msg, m), "the violation records another message (%s from %u)", msg_name(v[0].msg.opcode),
              v[0].msg.src);
    const dir_ref_counts_t *c = dir_ctrl_ref_counts(d->r);
    for (int j = 1; j < DIR_VIOL_NUM; j++)
        cr_assert_eq(c->viol[j], j == (int)k ? 1u : 0u, "violations %s counted %llu", dir_viol_name((dir_viol_e)j),
                     (unsigned long long)c->viol[j]);
}

/* ------------------------------------------------------------------------------------------------
 * The state x event table, one test per row (GIVEN the entry; WHEN the event; THEN messages,
 * entry, memory, counters). */

Test(dir_ctrl_ref, I_RdS)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_I, 0, 0, 7);
    msg_t q = req(OP_RD_SHARED, 3, L, 0x21);
    dt_in(&d, q);
    dt_settle(&d);
    expect_answer(&d, OP_DATA_E, &q, 7); /* no other sharer: granted E */
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_EM, 1u << 3, 0);
    expect_rows(&d, DIR_TR_I_RdS, 1);
    const dir_ref_counts_t *c = dir_ctrl_ref_counts(d.r);
    cr_assert_eq(c->dc_misses, 1); /* the entry came from DRAM */
    cr_assert_eq(c->mem_reads, 2); /* directory line, data line */
    cr_assert_eq(c->bisnp_sent, 0);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, I_RdOwn)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_I, 0, 0, 7);
    msg_t q = req(OP_RD_OWN, 3, L, 0x21);
    dt_in(&d, q);
    dt_settle(&d);
    expect_answer(&d, OP_DATA_E, &q, 7);
    expect_entry(&d, L, DIR_EM, 1u << 3, 0);
    /* An upgrade whose S copy was snooped away meanwhile finds I: served with data. */
    given(&d, L + 1, DIR_I, 0, 0, 8);
    msg_t u = req(OP_RD_UPGRADE, 5, L + 1, 0x22);
    dt_in(&d, u);
    dt_settle(&d);
    expect_answer(&d, OP_DATA_E, &u, 8);
    expect_nothing_more(&d);
    expect_entry(&d, L + 1, DIR_EM, 1u << 5, 0);
    expect_rows(&d, DIR_TR_I_RdOwn, 2);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, I_Evict)
{
    dt_t d;
    dt_init(&d);
    /* GIVEN I with CN 1's and CN 2's stale-write bits: their writes crossed a snoop. */
    given(&d, L, DIR_I, 0, (1u << 1) | (1u << 2), 7);
    uint64_t nd[MSG_WORDS_PER_LINE];
    line_data(9, nd);
    msg_t e1 = req(OP_CLEAN_EVICT, 1, L, 0x10);
    msg_t e2 = rwd(OP_DIRTY_EVICT, 2, L, 0x11, 0xff, nd);
    dt_in(&d, e1);
    dt_in(&d, e2);
    dt_settle(&d);
    /* THEN both are answered CMP, the data dropped (the snoop answer delivered it), bits cleared. */
    expect_answer(&d, OP_CMP, &e2, -1); /* RWD goes first: the two classes take turns, RWD first */
    expect_answer(&d, OP_CMP, &e1, -1);
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_I, 0, 0);
    expect_mem_k(&d, L, 7);
    expect_rows(&d, DIR_TR_I_Evict, 2);
    cr_assert_eq(dir_ctrl_ref_counts(d.r)->stale_wr, 2);
    expect_no_violation(&d);
    /* WHEN a write-through comes from a CN without the bit: a violation, not answered. */
    msg_t w = rwd(OP_WT_WR, 4, L, 0x12, 0x01, nd);
    dt_in(&d, w);
    dt_settle(&d);
    expect_nothing_more(&d);
    expect_violation(&d, DIR_VIOL_NOT_OWNER, &w);
    expect_mem_k(&d, L, 7);
    dt_free(&d);
}

Test(dir_ctrl_ref, S_RdS)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_S, (1u << 1) | (1u << 2), 0, 7);
    msg_t q = req(OP_RD_SHARED, 3, L, 0x30);
    dt_in(&d, q);
    dt_settle(&d);
    expect_answer(&d, OP_DATA_S, &q, 7);
    expect_nothing_more(&d); /* no snoop */
    expect_entry(&d, L, DIR_S, (1u << 1) | (1u << 2) | (1u << 3), 0);
    expect_rows(&d, DIR_TR_S_RdS, 1);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, S_ReRead)
{
    /* A sharer reads again, or asks for ownership with RD_OWN (a sharer upgrades with RD_UPGRADE:
     * with RD_OWN it could not tell a snoop of its S copy from one of the line just granted). */
    msg_op_t ops[] = {OP_RD_SHARED, OP_RD_OWN};
    for (unsigned k = 0; k < 2; k++) {
        dt_t d;
        dt_init(&d);
        given(&d, L, DIR_S, (1u << 1) | (1u << 2), 0, 7);
        msg_t q = req(ops[k], 1, L, 0x30);
        dt_in(&d, q);
        dt_settle(&d);
        expect_nothing_more(&d);
        expect_violation(&d, DIR_VIOL_DUP_REQ, &q);
        expect_entry(&d, L, DIR_S, (1u << 1) | (1u << 2), 0);
        expect_rows(&d, DIR_TR_S_ReRead, 1);
        dt_free(&d);
    }
}

Test(dir_ctrl_ref, S_RdOwn)
{
    dt_t d;
    dt_init(&d);
    /* GIVEN S({1, 2}); WHEN CN 4 reads for ownership */
    given(&d, L, DIR_S, (1u << 1) | (1u << 2), 0, 7);
    msg_t q = req(OP_RD_OWN, 4, L, 0x40);
    dt_in(&d, q);
    dt_ticks(&d, 100);
    /* THEN the sharers are invalidated, lowest first; the data waits for both answers */
    msg_t s1 = next_out(&d, OP_BISNP_INV, 1, L);
    msg_t s2 = next_out(&d, OP_BISNP_INV, 2, L);
    cr_assert_eq(s1.tag, s2.tag); /* the transaction's entry */
    expect_nothing_more(&d);
    dt_in(&d, birsp(OP_BIRSP_I, 2, &s2, 0, NULL));
    dt_ticks(&d, 100);
    expect_nothing_more(&d);
    dt_in(&d, birsp(OP_BIRSP_I, 1, &s1, 0, NULL));
    dt_settle(&d);
    expect_answer(&d, OP_DATA_E, &q, 7);
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_EM, 1u << 4, 0);
    /* An upgrade from a CN that is not a sharer (its copy was invalidated) is served with data. */
    given(&d, L + 1, DIR_S, 1u << 6, 0, 8);
    msg_t u = req(OP_RD_UPGRADE, 3, L + 1, 0x41);
    dt_in(&d, u);
    dt_ticks(&d, 50);
    msg_t s6 = next_out(&d, OP_BISNP_INV, 6, L + 1);
    dt_in(&d, birsp(OP_BIRSP_I, 6, &s6, 0, NULL));
    dt_settle(&d);
    expect_answer(&d, OP_DATA_E, &u, 8);
    expect_entry(&d, L + 1, DIR_EM, 1u << 3, 0);
    expect_rows(&d, DIR_TR_S_RdOwn, 2);
    const dir_ref_counts_t *c = dir_ctrl_ref_counts(d.r);
    cr_assert_eq(c->bisnp_sent, 3);
    cr_assert_eq(c->birsp_rcvd, 3);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, S_Upg)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_S, (1u << 1) | (1u << 2), 0, 7);
    msg_t q = req(OP_RD_UPGRADE, 1, L, 0x50);
    dt_in(&d, q);
    dt_ticks(&d, 100);
    msg_t s = next_out(&d, OP_BISNP_INV, 2, L);
    expect_nothing_more(&d); /* CMP_E only after the answer */
    dt_in(&d, birsp(OP_BIRSP_I, 2, &s, 0, NULL));
    dt_settle(&d);
    expect_answer(&d, OP_CMP_E, &q, -1); /* no data: the requester holds it */
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_EM, 1u << 1, 0);
    /* The only sharer upgrades: CMP_E at once, no snoop, no memory read. */
    given(&d, L + 1, DIR_S, 1u << 5, 0, 8);
    uint64_t reads = dir_ctrl_ref_counts(d.r)->mem_reads;
    msg_t u = req(OP_RD_UPGRADE, 5, L + 1, 0x51);
    dt_in(&d, u);
    dt_settle(&d);
    expect_answer(&d, OP_CMP_E, &u, -1);
    expect_nothing_more(&d);
    expect_entry(&d, L + 1, DIR_EM, 1u << 5, 0);
    cr_assert_eq(dir_ctrl_ref_counts(d.r)->mem_reads, reads + 1); /* the directory line only */
    expect_rows(&d, DIR_TR_S_Upg, 2);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, S_CleanEvict)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_S, (1u << 1) | (1u << 2), 0, 7);
    msg_t e1 = req(OP_CLEAN_EVICT, 1, L, 0x60);
    dt_in(&d, e1);
    dt_settle(&d);
    expect_answer(&d, OP_CMP, &e1, -1);
    expect_entry(&d, L, DIR_S, 1u << 2, 0);
    msg_t e2 = req(OP_CLEAN_EVICT, 2, L, 0x61);
    dt_in(&d, e2);
    dt_settle(&d);
    expect_answer(&d, OP_CMP, &e2, -1);
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_I, 0, 0); /* the last sharer left */
    expect_mem_k(&d, L, 7);
    expect_rows(&d, DIR_TR_S_CleanEvict, 2);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, S_StaleWr)
{
    dt_t d;
    dt_init(&d);
    /* GIVEN S({1}) and the stale bits of CNs 2 and 3 */
    given(&d, L, DIR_S, 1u << 1, (1u << 2) | (1u << 3), 7);
    uint64_t nd[MSG_WORDS_PER_LINE];
    line_data(9, nd);
    msg_t e2 = req(OP_CLEAN_EVICT, 2, L, 0x70);   /* not a sharer, stale */
    msg_t w3 = rwd(OP_WT_WR, 3, L, 0x71, 0x0f, nd); /* stale write-through */
    dt_in(&d, e2);
    dt_settle(&d);
    dt_in(&d, w3);
    dt_settle(&d);
    expect_answer(&d, OP_CMP, &e2, -1);
    expect_answer(&d, OP_CMP, &w3, -1);
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_S, 1u << 1, 0);
    expect_mem_k(&d, L, 7); /* the stale write's data dropped */
    cr_assert_eq(dir_ctrl_ref_counts(d.r)->stale_wr, 2);
    expect_no_violation(&d);
    /* WHEN a sharer without the bit sends a dirty write-back: a violation. */
    msg_t x = rwd(OP_DIRTY_EVICT, 1, L, 0x72, 0xff, nd);
    dt_in(&d, x);
    dt_settle(&d);
    expect_nothing_more(&d);
    expect_violation(&d, DIR_VIOL_NOT_OWNER, &x);
    expect_entry(&d, L, DIR_S, 1u << 1, 0);
    expect_mem_k(&d, L, 7);
    expect_rows(&d, DIR_TR_S_StaleWr, 3);
    dt_free(&d);
}

/* EM_RdS with each of the owner's four possible answers. */
static void em_rds_case(msg_op_t ans, msg_op_t grant, unsigned next_state, int64_t data_k, int64_t mem_k)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_EM, 1u << 2, 0, 7);
    msg_t q = req(OP_RD_SHARED, 5, L, 0x80);
    dt_in(&d, q);
    dt_ticks(&d, 100);
    msg_t s = next_out(&d, OP_BISNP_DATA, 2, L);
    expect_nothing_more(&d);
    uint64_t od[MSG_WORDS_PER_LINE];
    line_data(9, od);
    bool with_data = ans == OP_BIRSP_S_DATA || ans == OP_BIRSP_I_DATA;
    dt_in(&d, birsp(ans, 2, &s, 0, with_data ? od : NULL));
    dt_settle(&d);
    expect_answer(&d, grant, &q, data_k);
    expect_nothing_more(&d);
    expect_entry(&d, L, next_state, next_state == DIR_S ? (1u << 2) | (1u << 5) : 1u << 5, 0);
    expect_mem_k(&d, L, (uint64_t)mem_k);
    expect_rows(&d, DIR_TR_EM_RdS, 1);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, EM_RdS)
{
    /* dirty owner keeps S: its data to memory and to the requester; both share */
    em_rds_case(OP_BIRSP_S_DATA, OP_DATA_S, DIR_S, 9, 9);
    /* dirty owner drops the line: the requester alone, granted E with the owner's data */
    em_rds_case(OP_BIRSP_I_DATA, OP_DATA_E, DIR_EM, 9, 9);
    /* clean owner keeps S: memory's data */
    em_rds_case(OP_BIRSP_S, OP_DATA_S, DIR_S, 7, 7);
    /* clean owner drops it: memory's data, E */
    em_rds_case(OP_BIRSP_I, OP_DATA_E, DIR_EM, 7, 7);
}

static void em_rdown_case(msg_op_t op, msg_op_t ans, int64_t k)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_EM, 1u << 2, 0, 7);
    msg_t q = req(op, 5, L, 0x90);
    dt_in(&d, q);
    dt_ticks(&d, 100);
    msg_t s = next_out(&d, OP_BISNP_INV, 2, L);
    expect_nothing_more(&d);
    uint64_t od[MSG_WORDS_PER_LINE];
    line_data(9, od);
    dt_in(&d, birsp(ans, 2, &s, 0, ans == OP_BIRSP_I_DATA ? od : NULL));
    dt_settle(&d);
    expect_answer(&d, OP_DATA_E, &q, k);
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_EM, 1u << 5, 0);
    expect_mem_k(&d, L, (uint64_t)k);
    expect_rows(&d, DIR_TR_EM_RdOwn, 1);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, EM_RdOwn)
{
    em_rdown_case(OP_RD_OWN, OP_BIRSP_I_DATA, 9); /* dirty owner: its data, also to memory */
    em_rdown_case(OP_RD_OWN, OP_BIRSP_I, 7);      /* clean owner: memory's data */
    em_rdown_case(OP_RD_UPGRADE, OP_BIRSP_I, 7);  /* an upgrade whose S copy is long gone */
}

Test(dir_ctrl_ref, EM_ReRead)
{
    /* The owner asks again for a line it owns (also an upgrade): DUP_REQ, dropped. */
    msg_op_t ops[] = {OP_RD_SHARED, OP_RD_OWN, OP_RD_UPGRADE};
    for (unsigned k = 0; k < 3; k++) {
        dt_t d;
        dt_init(&d);
        given(&d, L, DIR_EM, 1u << 2, 0, 7);
        msg_t q = req(ops[k], 2, L, 0xa0);
        dt_in(&d, q);
        dt_settle(&d);
        expect_nothing_more(&d);
        expect_violation(&d, DIR_VIOL_DUP_REQ, &q);
        expect_entry(&d, L, DIR_EM, 1u << 2, 0);
        expect_rows(&d, DIR_TR_EM_ReRead, 1);
        dt_free(&d);
    }
}

Test(dir_ctrl_ref, EM_CleanEvict)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_EM, 1u << 2, 0, 7);
    msg_t e = req(OP_CLEAN_EVICT, 2, L, 0xb0);
    dt_in(&d, e);
    dt_settle(&d);
    expect_answer(&d, OP_CMP, &e, -1);
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_I, 0, 0);
    expect_mem_k(&d, L, 7);
    expect_rows(&d, DIR_TR_EM_CleanEvict, 1);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, EM_DirtyEvict)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_EM, 1u << 2, 0, 7);
    uint64_t nd[MSG_WORDS_PER_LINE];
    line_data(9, nd);
    msg_t e = rwd(OP_DIRTY_EVICT, 2, L, 0xb1, 0xff, nd);
    dt_in(&d, e);
    dt_settle(&d);
    expect_answer(&d, OP_CMP, &e, -1);
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_I, 0, 0);
    expect_mem_k(&d, L, 9);
    expect_rows(&d, DIR_TR_EM_DirtyEvict, 1);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, EM_WtWr)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_EM, 1u << 2, 0, 7);
    uint64_t nd[MSG_WORDS_PER_LINE];
    line_data(9, nd);
    msg_t w = rwd(OP_WT_WR, 2, L, 0xb2, 0x05, nd);
    dt_in(&d, w);
    dt_settle(&d);
    expect_answer(&d, OP_CMP, &w, -1);
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_EM, 1u << 2, 0); /* the writer keeps the line */
    uint64_t want[MSG_WORDS_PER_LINE];
    line_data(7, want);
    want[0] = nd[0], want[2] = nd[2]; /* only the masked words */
    expect_mem(&d, L, want);
    expect_rows(&d, DIR_TR_EM_WtWr, 1);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, EM_StaleWr)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_EM, 1u << 2, 1u << 4, 7);
    uint64_t nd[MSG_WORDS_PER_LINE];
    line_data(9, nd);
    msg_t e = rwd(OP_DIRTY_EVICT, 4, L, 0xc0, 0xff, nd);
    dt_in(&d, e);
    dt_settle(&d);
    expect_answer(&d, OP_CMP, &e, -1);
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_EM, 1u << 2, 0);
    expect_mem_k(&d, L, 7); /* dropped: the owner may have written since */
    cr_assert_eq(dir_ctrl_ref_counts(d.r)->stale_wr, 1);
    expect_no_violation(&d);
    msg_t c = req(OP_CLEAN_EVICT, 3, L, 0xc1);
    dt_in(&d, c);
    dt_settle(&d);
    expect_nothing_more(&d);
    expect_violation(&d, DIR_VIOL_NOT_OWNER, &c);
    expect_rows(&d, DIR_TR_EM_StaleWr, 2);
    dt_free(&d);
}

static dir_ctrl_ref_cfg_t lnr_cfg(void)
{
    dir_ctrl_ref_cfg_t c = dt_cfg();
    c.scr_lo = 0, c.scr_hi = 512; /* lines 512 .. 1023 are the LNR */
    return c;
}

Test(dir_ctrl_ref, LNR_Rd)
{
    dt_t d;
    dt_init_cfg(&d, lnr_cfg());
    uint64_t data[MSG_WORDS_PER_LINE];
    line_data(5, data);
    cr_assert(dir_ctrl_ref_mem_poke(d.r, 600, data));
    msg_t q = req(OP_LNR_RD, 3, 600, 0xd0);
    dt_in(&d, q);
    dt_settle(&d);
    expect_answer(&d, OP_DATA_NC, &q, 5);
    expect_nothing_more(&d);
    const dir_ref_counts_t *c = dir_ctrl_ref_counts(d.r);
    cr_assert_eq(c->dc_hits + c->dc_misses, 0); /* no directory state */
    cr_assert_eq(c->bisnp_sent, 0);
    expect_rows(&d, DIR_TR_LNR_Rd, 1);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, LNR_Wr)
{
    dt_t d;
    dt_init_cfg(&d, lnr_cfg());
    uint64_t data[MSG_WORDS_PER_LINE], nd[MSG_WORDS_PER_LINE];
    line_data(5, data);
    line_data(9, nd);
    cr_assert(dir_ctrl_ref_mem_poke(d.r, 600, data));
    msg_t w = rwd(OP_LNR_WR, 3, 600, 0xd1, 0x81, nd);
    dt_in(&d, w);
    dt_settle(&d);
    expect_answer(&d, OP_CMP, &w, -1);
    expect_nothing_more(&d);
    data[0] = nd[0], data[7] = nd[7];
    expect_mem(&d, 600, data);
    /* A read taken after a write of the line sees it (in-order memory port). */
    msg_t q = req(OP_LNR_RD, 4, 600, 0xd2);
    dt_in(&d, rwd(OP_LNR_WR, 3, 600, 0xd3, 0x02, nd));
    dt_ticks(&d, 1);
    dt_in(&d, q);
    dt_settle(&d);
    next_out(&d, OP_CMP, 3, 600);
    msg_t a = next_out(&d, OP_DATA_NC, 4, 600);
    cr_assert_eq(a.data[1], nd[1]);
    const dir_ref_counts_t *c = dir_ctrl_ref_counts(d.r);
    cr_assert_eq(c->tr[DIR_TR_LNR_Wr], 2);
    cr_assert_eq(c->tr[DIR_TR_LNR_Rd], 1);
    expect_no_violation(&d);
    dt_free(&d);
}

/* A served request clears its CN's stale-write bit. Such a bit is left by a write-through that the
 * directory had already done when the CN answered a snoop with WR_IN_FLIGHT: the CMP was still on
 * its way, so the CN could not know (found by the random tester; section 11c). */
Test(dir_ctrl_ref, write_through_done_before_a_crossing_snoop_leaves_a_bit_the_next_request_clears)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_EM, 1u << 1, 0, 7);
    uint64_t nd[MSG_WORDS_PER_LINE];
    line_data(9, nd);
    /* WHEN CN 1's write-through is done (its CMP on its way) */
    msg_t w = rwd(OP_WT_WR, 1, L, 0xe0, 0x03, nd);
    dt_in(&d, w);
    dt_settle(&d);
    expect_answer(&d, OP_CMP, &w, -1);
    /* AND CN 2's read for ownership snoops CN 1 before that CMP reaches it: CN 1 still counts its
     * write in flight and says so */
    msg_t q = req(OP_RD_OWN, 2, L, 0xe1);
    dt_in(&d, q);
    dt_ticks(&d, 50);
    msg_t s = next_out(&d, OP_BISNP_INV, 1, L);
    uint64_t line[MSG_WORDS_PER_LINE];
    line_data(7, line);
    line[0] = nd[0], line[1] = nd[1];
    dt_in(&d, birsp(OP_BIRSP_I_DATA, 1, &s, MSG_FLAG_WR_IN_FLIGHT, line));
    dt_settle(&d);
    msg_t g = next_out(&d, OP_DATA_E, 2, L);
    cr_assert_eq(g.data[1], nd[1]);
    /* THEN the bit is left set: no write of CN 1 will come */
    expect_entry(&d, L, DIR_EM, 1u << 2, 1u << 1);
    /* WHEN CN 1 (its CMP in) reads the line again, THEN serving that request clears the bit */
    msg_t r = req(OP_RD_SHARED, 1, L, 0xe2);
    dt_in(&d, r);
    dt_ticks(&d, 50);
    msg_t s2 = next_out(&d, OP_BISNP_DATA, 2, L);
    dt_in(&d, birsp(OP_BIRSP_I, 2, &s2, 0, NULL));
    dt_settle(&d);
    expect_answer_line(&d, OP_DATA_E, &r, line); /* memory took CN 1's line from its answer */
    expect_entry(&d, L, DIR_EM, 1u << 1, 0);
    expect_no_violation(&d);
    dt_free(&d);
}

/* ------------------------------------------------------------------------------------------------
 * Violations: each counted with its message, dropped (state, memory unchanged), never answered. */

Test(dir_ctrl_ref, violation_addr_names_another_mn_or_a_line_beyond_memory)
{
    dir_ctrl_ref_cfg_t c = dt_cfg();
    c.mn_shift = 1, c.mn_idx = 0, c.lines = 64, c.scr_hi = 128;
    msg_t bad[] = {
        req(OP_RD_SHARED, 1, 1, 0x1),   /* line 1 belongs to MN 1 */
        req(OP_RD_OWN, 1, 128, 0x2),    /* MN 0, local line 64: beyond its 64 lines */
    };
    for (unsigned k = 0; k < 2; k++) {
        dt_t d;
        dt_init_cfg(&d, c);
        dt_in(&d, bad[k]);
        dt_settle(&d);
        expect_nothing_more(&d);
        expect_violation(&d, DIR_VIOL_ADDR, &bad[k]);
        cr_assert_eq(dir_ctrl_ref_counts(d.r)->reqs, 0); /* no transaction */
        dt_free(&d);
    }
}

Test(dir_ctrl_ref, violation_region_mixes_coherent_and_lnr)
{
    uint64_t nd[MSG_WORDS_PER_LINE];
    line_data(9, nd);
    msg_t bad[] = {
        req(OP_RD_SHARED, 1, 600, 0x1),          /* coherent read of an LNR line */
        rwd(OP_LNR_WR, 1, 5, 0x2, 0xff, nd),     /* LNR write to an SCR line */
        rwd(OP_WT_WR, 1, 700, 0x3, 0x01, nd),    /* write-through to an LNR line */
    };
    for (unsigned k = 0; k < 3; k++) {
        dt_t d;
        dt_init_cfg(&d, lnr_cfg());
        dt_in(&d, bad[k]);
        dt_settle(&d);
        expect_nothing_more(&d);
        expect_violation(&d, DIR_VIOL_REGION, &bad[k]);
        expect_mem(&d, bad[k].addr, zero_line);
        dt_free(&d);
    }
}

Test(dir_ctrl_ref, violation_not_owner_is_a_write_without_ownership_or_stale_bit)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_EM, 1u << 2, 0, 7);
    uint64_t nd[MSG_WORDS_PER_LINE];
    line_data(9, nd);
    msg_t w = rwd(OP_DIRTY_EVICT, 3, L, 0x1, 0xff, nd);
    dt_in(&d, w);
    dt_settle(&d);
    expect_nothing_more(&d);
    expect_violation(&d, DIR_VIOL_NOT_OWNER, &w);
    expect_entry(&d, L, DIR_EM, 1u << 2, 0);
    expect_mem_k(&d, L, 7);
    dt_free(&d);
}

Test(dir_ctrl_ref, violation_dup_req_is_a_request_for_a_line_already_held)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_S, 1u << 2, 0, 7);
    msg_t q = req(OP_RD_SHARED, 2, L, 0x1);
    dt_in(&d, q);
    dt_settle(&d);
    expect_nothing_more(&d);
    expect_violation(&d, DIR_VIOL_DUP_REQ, &q);
    expect_entry(&d, L, DIR_S, 1u << 2, 0);
    dt_free(&d);
}

Test(dir_ctrl_ref, violation_birsp_unawaited_wrong_kind_or_data_from_a_sharer)
{
    /* Nobody awaits it: no transaction on the line. */
    {
        dt_t d;
        dt_init(&d);
        msg_t s = {.opcode = OP_BISNP_INV, .src = MN, .dst = 1, .tag = 3, .addr = L};
        msg_t b = birsp(OP_BIRSP_I, 1, &s, 0, NULL);
        dt_in(&d, b);
        dt_settle(&d);
        expect_nothing_more(&d);
        expect_violation(&d, DIR_VIOL_BIRSP, &b);
        dt_free(&d);
    }
    /* While S_RdOwn awaits CNs 1 and 2: CN 3 (not snooped) answers; CN 1 answers BIRSP_S (it may
     * not keep S after BISNP_INV), then with data (a sharer has none). Each is dropped and the
     * transaction still awaits CN 1's valid answer. */
    uint64_t od[MSG_WORDS_PER_LINE];
    line_data(9, od);
    for (unsigned k = 0; k < 3; k++) {
        dt_t d;
        dt_init(&d);
        given(&d, L, DIR_S, (1u << 1) | (1u << 2), 0, 7);
        msg_t q = req(OP_RD_OWN, 4, L, 0x10);
        dt_in(&d, q);
        dt_ticks(&d, 50);
        msg_t s1 = next_out(&d, OP_BISNP_INV, 1, L);
        msg_t s2 = next_out(&d, OP_BISNP_INV, 2, L);
        dt_in(&d, birsp(OP_BIRSP_I, 2, &s2, 0, NULL));
        msg_t bad = k == 0 ? birsp(OP_BIRSP_I, 3, &s1, 0, NULL)
                    : k == 1 ? birsp(OP_BIRSP_S, 1, &s1, 0, NULL)
                             : birsp(OP_BIRSP_I_DATA, 1, &s1, 0, od);
        dt_in(&d, bad);
        dt_ticks(&d, 100);
        expect_nothing_more(&d);
        expect_violation(&d, DIR_VIOL_BIRSP, &bad);
        expect_mem_k(&d, L, 7);
        dt_in(&d, birsp(OP_BIRSP_I, 1, &s1, 0, NULL));
        dt_settle(&d);
        expect_answer(&d, OP_DATA_E, &q, 7);
        expect_entry(&d, L, DIR_EM, 1u << 4, 0);
        dt_free(&d);
    }
}

Test(dir_ctrl_ref, violation_bad_msg_is_a_class_opcode_or_source_a_directory_does_not_take)
{
    msg_t repl = {.opcode = OP_REPL, .src = 1, .dst = MN, .core = 1, .tag = 1, .addr = L, .mask = 1, .data = {5}};
    msg_t bad[] = {
        {.opcode = OP_CMP, .src = 1, .dst = MN, .core = 1, .tag = 1, .addr = L},      /* NDR */
        {.opcode = OP_BISNP_INV, .src = 1, .dst = MN, .tag = 1, .addr = L},          /* BISNP */
        repl,                                                                        /* DKREQ */
        {.opcode = (msg_op_t)40, .src = 1, .dst = MN, .addr = L},                    /* no such opcode */
        req(OP_RD_SHARED, MSG_MN_BASE + 1, L, 0x1),                                  /* from an MN */
    };
    for (unsigned k = 0; k < 5; k++) {
        dt_t d;
        dt_init(&d);
        given(&d, L, DIR_I, 0, 0, 7);
        dt_in(&d, bad[k]);
        dt_settle(&d);
        expect_nothing_more(&d);
        expect_violation(&d, DIR_VIOL_BAD_MSG, &bad[k]);
        expect_entry(&d, L, DIR_I, 0, 0);
        /* the credit came back: the class takes messages again */
        cr_assert(dir_ctrl_ref_can_recv(d.r, &bad[k]));
        dt_free(&d);
    }
}

Test(dir_ctrl_ref, management_messages_go_to_the_software_port)
{
    dt_t d;
    dt_init(&d);
    msg_t a = {.opcode = OP_INIT_RECOV, .src = 40, .dst = MN, .subject = 3};
    msg_t b = {.opcode = OP_DUMP_DATA, .src = 2, .dst = MN, .tag = 1, .flags = 1, .addr = 0, .mask = 0xff};
    dt_in(&d, a);
    dt_in(&d, b);
    dt_settle(&d);
    cr_assert_eq(d.nsw, 2);
    cr_assert(msg_equal(&d.sw[0], &a) && msg_equal(&d.sw[1], &b));
    cr_assert_eq(dir_ctrl_ref_counts(d.r)->sw_rx, 2);
    expect_nothing_more(&d);
    expect_no_violation(&d);
    dt_free(&d);
}

/* ------------------------------------------------------------------------------------------------
 * Stale writes: an eviction or write-through crossing a snoop, in both arrival orders. */

/* GIVEN EM(1); CN 1 writes its line back (data 9) while CN 2's read for ownership snoops it. */
Test(dir_ctrl_ref, dirty_evict_crossing_a_snoop_arrives_before_the_answer)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_EM, 1u << 1, 0, 7);
    uint64_t d9[MSG_WORDS_PER_LINE];
    line_data(9, d9);
    msg_t q = req(OP_RD_OWN, 2, L, 0x10);
    msg_t e = rwd(OP_DIRTY_EVICT, 1, L, 0x11, 0xff, d9);
    dt_in(&d, q);
    dt_ticks(&d, 50);
    msg_t s = next_out(&d, OP_BISNP_INV, 1, L);
    /* WHEN the write-back arrives first: it waits behind the snooping transaction */
    dt_in(&d, e);
    dt_ticks(&d, 50);
    expect_nothing_more(&d);
    cr_assert_eq(dir_ctrl_ref_counts(d.r)->waited, 1);
    /* AND then the answer, with the line and WR_IN_FLIGHT */
    dt_in(&d, birsp(OP_BIRSP_I_DATA, 1, &s, MSG_FLAG_WR_IN_FLIGHT, d9));
    dt_settle(&d);
    /* THEN CN 2 gets CN 1's data; the write-back is stale: CMP, dropped, bit cleared */
    expect_answer(&d, OP_DATA_E, &q, 9);
    expect_answer(&d, OP_CMP, &e, -1);
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_EM, 1u << 2, 0);
    expect_mem_k(&d, L, 9);
    const dir_ref_counts_t *c = dir_ctrl_ref_counts(d.r);
    cr_assert_eq(c->stale_wr, 1);
    cr_assert_eq(c->tr[DIR_TR_EM_RdOwn], 1);
    cr_assert_eq(c->tr[DIR_TR_EM_StaleWr], 1);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, dirty_evict_crossing_a_snoop_arrives_after_the_answer)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_EM, 1u << 1, 0, 7);
    uint64_t d9[MSG_WORDS_PER_LINE], d11[MSG_WORDS_PER_LINE];
    line_data(9, d9);
    line_data(11, d11);
    msg_t q = req(OP_RD_OWN, 2, L, 0x10);
    dt_in(&d, q);
    dt_ticks(&d, 50);
    msg_t s = next_out(&d, OP_BISNP_INV, 1, L);
    /* WHEN the answer (WR_IN_FLIGHT) comes first */
    dt_in(&d, birsp(OP_BIRSP_I_DATA, 1, &s, MSG_FLAG_WR_IN_FLIGHT, d9));
    dt_settle(&d);
    expect_answer(&d, OP_DATA_E, &q, 9);
    expect_entry(&d, L, DIR_EM, 1u << 2, 1u << 1); /* CN 1's write is on its way */
    /* AND CN 2 writes and writes back before CN 1's write-back arrives */
    msg_t e2 = rwd(OP_DIRTY_EVICT, 2, L, 0x12, 0xff, d11);
    dt_in(&d, e2);
    dt_settle(&d);
    expect_answer(&d, OP_CMP, &e2, -1);
    expect_mem_k(&d, L, 11);
    msg_t e = rwd(OP_DIRTY_EVICT, 1, L, 0x11, 0xff, d9);
    dt_in(&d, e);
    dt_settle(&d);
    /* THEN the late write-back is stale: CMP, its old data not written over CN 2's */
    expect_answer(&d, OP_CMP, &e, -1);
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_I, 0, 0);
    expect_mem_k(&d, L, 11);
    cr_assert_eq(dir_ctrl_ref_counts(d.r)->stale_wr, 1);
    cr_assert_eq(dir_ctrl_ref_counts(d.r)->tr[DIR_TR_I_Evict], 1);
    expect_no_violation(&d);
    dt_free(&d);
}

/* GIVEN S({1, 3}); CN 1 evicts its clean copy while CN 2's read for ownership invalidates it. */
static void clean_evict_crossing(bool evict_first)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_S, (1u << 1) | (1u << 3), 0, 7);
    msg_t q = req(OP_RD_OWN, 2, L, 0x20);
    msg_t e = req(OP_CLEAN_EVICT, 1, L, 0x21);
    dt_in(&d, q);
    dt_ticks(&d, 50);
    msg_t s1 = next_out(&d, OP_BISNP_INV, 1, L);
    msg_t s3 = next_out(&d, OP_BISNP_INV, 3, L);
    dt_in(&d, birsp(OP_BIRSP_I, 3, &s3, 0, NULL));
    if (evict_first) {
        dt_in(&d, e);
        dt_ticks(&d, 20);
        dt_in(&d, birsp(OP_BIRSP_I, 1, &s1, MSG_FLAG_WR_IN_FLIGHT, NULL));
        dt_settle(&d);
        expect_answer(&d, OP_DATA_E, &q, 7);
        expect_answer(&d, OP_CMP, &e, -1);
        expect_entry(&d, L, DIR_EM, 1u << 2, 0);
    } else {
        dt_in(&d, birsp(OP_BIRSP_I, 1, &s1, MSG_FLAG_WR_IN_FLIGHT, NULL));
        dt_settle(&d);
        expect_answer(&d, OP_DATA_E, &q, 7);
        expect_entry(&d, L, DIR_EM, 1u << 2, 1u << 1);
        dt_in(&d, e);
        dt_settle(&d);
        expect_answer(&d, OP_CMP, &e, -1);
        expect_entry(&d, L, DIR_EM, 1u << 2, 0);
    }
    expect_nothing_more(&d);
    cr_assert_eq(dir_ctrl_ref_counts(d.r)->tr[DIR_TR_EM_StaleWr], 1);
    cr_assert_eq(dir_ctrl_ref_counts(d.r)->stale_wr, 1);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, clean_evict_crossing_an_invalidation_arrives_before_the_answer) { clean_evict_crossing(true); }
Test(dir_ctrl_ref, clean_evict_crossing_an_invalidation_arrives_after_the_answer) { clean_evict_crossing(false); }

/* GIVEN EM(1); CN 1 writes words 0 and 1 through while CN 2's read snoops it; CN 1 keeps S. */
static void write_through_crossing(bool write_first)
{
    dt_t d;
    dt_init(&d);
    given(&d, L, DIR_EM, 1u << 1, 0, 7);
    uint64_t line[MSG_WORDS_PER_LINE], d9[MSG_WORDS_PER_LINE];
    line_data(7, line);
    line_data(9, d9);
    line[0] = d9[0], line[1] = d9[1]; /* CN 1's cache: the written words in */
    msg_t q = req(OP_RD_SHARED, 2, L, 0x30);
    msg_t w = rwd(OP_WT_WR, 1, L, 0x31, 0x03, d9);
    dt_in(&d, q);
    dt_ticks(&d, 50);
    msg_t s = next_out(&d, OP_BISNP_DATA, 1, L);
    if (write_first) {
        dt_in(&d, w);
        dt_ticks(&d, 20);
    }
    dt_in(&d, birsp(OP_BIRSP_S_DATA, 1, &s, MSG_FLAG_WR_IN_FLIGHT, line));
    dt_settle(&d);
    msg_t g = next_out(&d, OP_DATA_S, 2, L);
    cr_assert(!memcmp(g.data, line, sizeof line), "the requester must get the line with the written words");
    if (!write_first) {
        expect_entry(&d, L, DIR_S, (1u << 1) | (1u << 2), 1u << 1);
        dt_in(&d, w);
        dt_settle(&d);
    }
    expect_answer(&d, OP_CMP, &w, -1);
    expect_nothing_more(&d);
    expect_entry(&d, L, DIR_S, (1u << 1) | (1u << 2), 0);
    expect_mem(&d, L, line);
    cr_assert_eq(dir_ctrl_ref_counts(d.r)->tr[DIR_TR_S_StaleWr], 1);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, write_through_crossing_a_snoop_arrives_before_the_answer) { write_through_crossing(true); }
Test(dir_ctrl_ref, write_through_crossing_a_snoop_arrives_after_the_answer) { write_through_crossing(false); }

/* ------------------------------------------------------------------------------------------------
 * Ordering, fairness, back-pressure, the directory cache, the address map. */

Test(dir_ctrl_ref, requesters_hammering_one_line_are_served_in_arrival_order)
{
    uint64_t seed = tb_seed(101);
    rng_t rng;
    rng_init_named(&rng, seed, "dir_ref_test.fairness");
    dir_ctrl_ref_cfg_t c = dt_cfg();
    c.txn_entries = 8; /* fewer than the requesters: the input holds too */
    dt_t d;
    dt_init_cfg(&d, c);
    given(&d, L, DIR_I, 0, 0, 7);
    /* 24 CNs in a random order, each reading (shared or for ownership) line L once. */
    enum { N = 24 };
    unsigned order[N];
    for (unsigned i = 0; i < N; i++)
        order[i] = i;
    for (unsigned i = N - 1; i > 0; i--) {
        unsigned j = (unsigned)rng_below(&rng, i + 1), x = order[i];
        order[i] = order[j], order[j] = x;
    }
    unsigned sent = 0, served = 0, owner = 99;
    bool full_seen = false;
    for (unsigned cyc = 0; cyc < 100000 && served < N; cyc++) {
        if (sent < N) {
            msg_t q = req(rng_chance(&rng, 0.5) ? OP_RD_SHARED : OP_RD_OWN, order[sent], L, (uint16_t)(0x100 + sent));
            if (dir_ctrl_ref_can_recv(d.r, &q)) {
                dir_ctrl_ref_recv(d.r, &q);
                sent++;
            } else {
                full_seen = true;
            }
        }
        dir_ctrl_ref_tick(d.r);
        while (d.seen < d.nout) {
            msg_t m = d.out[d.seen++];
            if (m.opcode == OP_BISNP_INV || m.opcode == OP_BISNP_DATA) {
                /* the owner gives the line up, with its data (its CN number in word 0) */
                cr_assert_eq(m.dst, owner, "seed %llu: a snoop to CN %u, the owner is %u", (unsigned long long)seed,
                             m.dst, owner);
                uint64_t od[MSG_WORDS_PER_LINE] = {owner};
                msg_t a = birsp(OP_BIRSP_I_DATA, owner, &m, 0, od);
                cr_assert(dir_ctrl_ref_can_recv(d.r, &a));
                dir_ctrl_ref_recv(d.r, &a);
            } else {
                cr_assert(m.opcode == OP_DATA_E, "seed %llu: %s to CN %u", (unsigned long long)seed,
                          msg_name(m.opcode), m.dst);
                cr_assert_eq(m.dst, order[served],
                             "seed %llu (replay: TB_SEED=%llu): grant %u went to CN %u, CN %u arrived before it",
                             (unsigned long long)seed, (unsigned long long)seed, served, m.dst, order[served]);
                cr_assert_eq(m.data[0], served ? owner : 7 * 0x100, "seed %llu: grant %u carries the wrong data",
                             (unsigned long long)seed, served);
                owner = m.dst;
                served++;
            }
        }
    }
    cr_assert_eq(served, N, "seed %llu: only %u of %u requesters served", (unsigned long long)seed, served, N);
    dt_settle(&d);
    const dir_ref_counts_t *k = dir_ctrl_ref_counts(d.r);
    cr_assert(full_seen, "seed %llu: the input never held back", (unsigned long long)seed);
    cr_assert_eq(k->waited, N - 1);
    cr_assert_eq(k->max_active, 8);
    cr_assert_gt(k->table_full_cycles, 0);
    expect_entry(&d, L, DIR_EM, 1u << owner, 0);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, a_stream_of_writes_does_not_starve_requests)
{
    /* RWD and REQ take turns: LNR writes arriving every cycle keep the RWD FIFO full, yet a read
     * is taken within a few cycles (with RWD strictly first it would wait for the stream's end). */
    dt_t d;
    dt_init_cfg(&d, lnr_cfg());
    uint64_t nd[MSG_WORDS_PER_LINE];
    line_data(9, nd);
    msg_t q = req(OP_RD_SHARED, 1, L, 0x1);
    unsigned k = 0;
    bool read_sent = false, granted = false;
    for (unsigned cyc = 0; cyc < 400 && !granted; cyc++) {
        for (;;) {
            msg_t w = rwd(OP_LNR_WR, 2 + k % 8, 600 + k % 400, (uint16_t)k, 0x01, nd);
            if (!dir_ctrl_ref_can_recv(d.r, &w))
                break;
            dir_ctrl_ref_recv(d.r, &w);
            k++;
        }
        if (cyc == 10 && !read_sent) {
            dt_in(&d, q);
            read_sent = true;
        }
        dir_ctrl_ref_tick(d.r);
        for (size_t i = 0; i < d.nout; i++)
            granted |= d.out[i].opcode == OP_DATA_E;
        d.nout = d.seen = 0;
    }
    cr_assert(granted, "the read was not served while writes kept coming (%u writes taken)", k);
    dt_free(&d);
}

Test(dir_ctrl_ref, a_full_table_holds_the_input_and_loses_nothing)
{
    dir_ctrl_ref_cfg_t c = dt_cfg();
    c.txn_entries = 2, c.crd_per_cls = 2, c.mem_latency = 50;
    dt_t d;
    dt_init_cfg(&d, c);
    unsigned sent = 0;
    bool held = false;
    for (unsigned cyc = 0; cyc < 5000 && sent < 10; cyc++) {
        msg_t q = req(OP_RD_SHARED, sent % 4, 100 + sent, (uint16_t)sent);
        if (dir_ctrl_ref_can_recv(d.r, &q)) {
            dir_ctrl_ref_recv(d.r, &q);
            sent++;
        } else {
            held = true;
        }
        dir_ctrl_ref_tick(d.r);
    }
    dt_settle(&d);
    cr_assert(held, "the input never held back");
    for (unsigned i = 0; i < 10; i++) {
        msg_t m = next_out(&d, OP_DATA_E, i % 4, 100 + i);
        cr_assert_eq(m.tag, i);
    }
    expect_nothing_more(&d);
    const dir_ref_counts_t *k = dir_ctrl_ref_counts(d.r);
    cr_assert_eq(k->max_active, 2);
    cr_assert_gt(k->table_full_cycles, 50);
    cr_assert_eq(k->reqs, 10);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, directory_cache_fills_and_writes_dirty_victims_back)
{
    dir_ctrl_ref_cfg_t c = dt_cfg();
    c.dc_sets = 1, c.dc_ways = 1;
    dt_t d;
    dt_init_cfg(&d, c);
    msg_t a = req(OP_RD_SHARED, 1, 10, 0x1), b = req(OP_RD_SHARED, 2, 11, 0x2), a2 = req(OP_RD_SHARED, 3, 10, 0x3);
    dt_in(&d, a);
    dt_settle(&d);
    expect_answer_line(&d, OP_DATA_E, &a, zero_line);
    dt_in(&d, b); /* misses; line 10's dirty entry goes back to DRAM */
    dt_settle(&d);
    expect_answer_line(&d, OP_DATA_E, &b, zero_line);
    const dir_ref_counts_t *k = dir_ctrl_ref_counts(d.r);
    cr_assert_eq(k->dc_wbs, 1);
    expect_entry(&d, 10, DIR_EM, 1u << 1, 0); /* from DRAM */
    dt_in(&d, a2); /* misses again: line 10's entry comes back from DRAM, CN 1 still owns it */
    dt_ticks(&d, 60);
    msg_t s = next_out(&d, OP_BISNP_DATA, 1, 10);
    dt_in(&d, birsp(OP_BIRSP_S, 1, &s, 0, NULL));
    dt_settle(&d);
    expect_answer_line(&d, OP_DATA_S, &a2, zero_line);
    expect_entry(&d, 10, DIR_S, (1u << 1) | (1u << 3), 0);
    expect_entry(&d, 11, DIR_EM, 1u << 2, 0);
    cr_assert_eq(k->dc_misses, 3);
    cr_assert_eq(k->dc_hits, 0);
    cr_assert_eq(k->dc_wbs, 2);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, address_map_interleaves_chunks_over_the_mns)
{
    /* four MNs, chunks of eight lines */
    for (uint64_t a = 0; a < 4096; a++) {
        unsigned mn = dir_addr_mn(a, 2, 3);
        uint64_t l = dir_addr_local(a, 2, 3);
        cr_assert_eq(mn, (a / 8) % 4);
        cr_assert_eq(l, (a / 32) * 8 + a % 8);
        cr_assert_eq(dir_addr_global(l, mn, 2, 3), a);
    }
    dir_ctrl_ref_cfg_t c = dt_cfg();
    c.mn_shift = 2, c.gran_shift = 3, c.mn_idx = 1, c.node_id = MN + 1, c.lines = 64, c.scr_hi = 256;
    dt_t d;
    dt_init_cfg(&d, c);
    msg_t ok = req(OP_RD_SHARED, 1, 40, 0x1), bad = req(OP_RD_SHARED, 1, 32, 0x2); /* MN 1 local 8; MN 0 */
    ok.dst = bad.dst = MN + 1;
    uint64_t data[MSG_WORDS_PER_LINE];
    line_data(3, data);
    cr_assert(dir_ctrl_ref_mem_poke(d.r, 40, data));
    cr_assert(!dir_ctrl_ref_mem_poke(d.r, 32, data));
    dt_in(&d, ok);
    dt_in(&d, bad);
    dt_settle(&d);
    msg_t m = d.out[0];
    cr_assert(m.opcode == OP_DATA_E && m.src == MN + 1 && m.dst == 1 && m.data[0] == data[0]);
    expect_violation(&d, DIR_VIOL_ADDR, &bad);
    dt_free(&d);
}

/* ------------------------------------------------------------------------------------------------
 * The random coherence tester on the reference model. */

typedef struct rnd_sum {
    coh_stats_t st;
    dir_ref_counts_t home; /* summed over the homes and the seeds */
} rnd_sum_t;

static void add_home_counts(dir_ref_counts_t *s, const dir_ref_counts_t *c)
{
    for (int k = 0; k < DIR_TR_NUM; k++)
        s->tr[k] += c->tr[k];
    s->bisnp_sent += c->bisnp_sent, s->stale_wr += c->stale_wr, s->dc_wbs += c->dc_wbs;
    s->table_full_cycles += c->table_full_cycles, s->waited += c->waited, s->dc_misses += c->dc_misses;
}

/* Runs preset name with seeds TB_SEED (default dflt) .. +nseeds-1; every run must pass. */
static void random_preset(const char *name, uint64_t dflt, unsigned nseeds, rnd_sum_t *sum)
{
    memset(sum, 0, sizeof *sum);
    uint64_t base = tb_seed(dflt);
    for (unsigned k = 0; k < nseeds; k++) {
        uint64_t seed = base + k;
        coh_cfg_t c;
        cr_assert(coh_cfg_preset(name, &c), "no preset %s", name);
        char replay[200];
        snprintf(replay, sizeof replay, "TB_SEED=%llu build/bin/run_tests --filter 'dir_ctrl_ref/random_%s'",
                 (unsigned long long)seed, name);
        coh_tester_t t;
        coh_tester_init(&t, &c, seed, coh_home_ref_make, NULL, replay);
        bool ok = coh_tester_run(&t);
        cr_assert(ok, "%s", t.msg);
        cr_assert_geq(t.st.ops_done, c.ops);
        cr_assert_gt(t.st.wif_answers, 0, "%s: no eviction or write-through crossed a snoop", t.ctx);
        for (unsigned h = 0; h < t.nhomes; h++)
            add_home_counts(&sum->home, dir_ctrl_ref_counts(coh_home_ref_model(&t.homes[h])));
        uint64_t *a = (uint64_t *)&sum->st;
        const uint64_t *b = (const uint64_t *)&t.st;
        for (size_t i = 0; i < sizeof t.st / sizeof(uint64_t); i++)
            a[i] += b[i];
        coh_tester_free(&t);
    }
}

Test(dir_ctrl_ref, random_one_mn)
{
    rnd_sum_t s;
    random_preset("one_mn", 1, 3, &s);
    cr_assert_gt(s.st.voids, 100, "few grants overtaken by a snoop (%llu)", (unsigned long long)s.st.voids);
    cr_assert_gt(s.st.reordered, 1000);
    cr_assert_gt(s.home.stale_wr, 50);
}

Test(dir_ctrl_ref, random_four_mns)
{
    rnd_sum_t s;
    random_preset("four_mns", 11, 3, &s);
    cr_assert_gt(s.st.voids, 100);
}

Test(dir_ctrl_ref, random_interleave_chunks)
{
    rnd_sum_t s;
    random_preset("interleave_chunks", 21, 3, &s);
    cr_assert_gt(s.st.voids, 100);
}

Test(dir_ctrl_ref, random_lnr)
{
    rnd_sum_t s;
    random_preset("lnr", 31, 3, &s);
    cr_assert_gt(s.home.tr[DIR_TR_LNR_Rd], 300);
    cr_assert_gt(s.home.tr[DIR_TR_LNR_Wr], 300);
}

Test(dir_ctrl_ref, random_small_table)
{
    rnd_sum_t s;
    random_preset("small_table", 41, 3, &s);
    cr_assert_gt(s.home.table_full_cycles, 1000, "the table was full only %llu cycles",
                 (unsigned long long)s.home.table_full_cycles);
}

Test(dir_ctrl_ref, random_slow_memory)
{
    rnd_sum_t s;
    random_preset("slow_memory", 51, 3, &s);
    cr_assert_gt(s.home.waited, 1000);
}

Test(dir_ctrl_ref, random_deferred_snoops)
{
    rnd_sum_t s;
    random_preset("deferred_snoops", 61, 3, &s);
    cr_assert_gt(s.st.deferred, 300, "only %llu snoops held", (unsigned long long)s.st.deferred);
}

Test(dir_ctrl_ref, random_mixed_snoops)
{
    rnd_sum_t s;
    random_preset("mixed_snoops", 71, 3, &s);
    cr_assert_gt(s.st.deferred, 100);
    cr_assert_gt(s.st.voids, 100);
}

Test(dir_ctrl_ref, random_tiny_dir_cache)
{
    rnd_sum_t s;
    random_preset("tiny_dir_cache", 81, 3, &s);
    cr_assert_gt(s.home.dc_wbs, 1000, "only %llu directory write-backs", (unsigned long long)s.home.dc_wbs);
}

Test(dir_ctrl_ref, random_hot_line)
{
    rnd_sum_t s;
    random_preset("hot_line", 91, 3, &s);
}

Test(dir_ctrl_ref, random_no_jitter)
{
    rnd_sum_t s;
    random_preset("no_jitter", 101, 3, &s);
}

Test(dir_ctrl_ref, random_many_cns)
{
    rnd_sum_t s;
    random_preset("many_cns", 111, 3, &s);
}

/* Every row a CN that obeys the contract can reach is reached (the two ReRead rows are
 * violations). */
Test(dir_ctrl_ref, random_tester_reaches_every_row_of_the_table)
{
    rnd_sum_t s, t;
    random_preset("lnr", 121, 2, &s);
    random_preset("hot_line", 122, 1, &t);
    for (int k = 0; k < DIR_TR_NUM; k++)
        s.home.tr[k] += t.home.tr[k];
    for (int k = 0; k < DIR_TR_NUM; k++) {
        if (k == DIR_TR_S_ReRead || k == DIR_TR_EM_ReRead)
            cr_assert_eq(s.home.tr[k], 0, "row %s reached by correct agents", dir_tr_name((dir_tr_e)k));
        else
            cr_assert_gt(s.home.tr[k], 0, "row %s never reached", dir_tr_name((dir_tr_e)k));
    }
}

/* The tester fails on a broken directory: each mutation of the model, on preset name, fails some
 * seed within ten. */
static void expect_tester_fails(unsigned mutation, const char *name, const char *what)
{
    for (uint64_t seed = 1; seed <= 10; seed++) {
        coh_cfg_t c;
        cr_assert(coh_cfg_preset(name, &c));
        c.mutate = mutation;
        coh_tester_t t;
        coh_tester_init(&t, &c, seed, coh_home_ref_make, NULL, "mutation test");
        bool ok = coh_tester_run(&t);
        if (!ok) {
            cr_log_info("%s: caught: %.300s", what, t.msg);
            coh_tester_free(&t);
            return;
        }
        coh_tester_free(&t);
    }
    cr_assert_fail("the tester passed ten seeds of %s with %s", name, what);
}

Test(dir_ctrl_ref, random_tester_fails_when_a_sharer_is_left_valid)
{
    expect_tester_fails(DIR_MUT_SKIP_ONE_SHARER, "one_mn", "a sharer left valid");
}
Test(dir_ctrl_ref, random_tester_fails_when_stale_memory_is_forwarded)
{
    expect_tester_fails(DIR_MUT_STALE_FORWARD, "one_mn", "memory forwarded instead of the owner's data");
}
Test(dir_ctrl_ref, random_tester_fails_when_a_stale_write_is_applied)
{
    expect_tester_fails(DIR_MUT_APPLY_STALE_WR, "one_mn", "a stale write applied");
}
Test(dir_ctrl_ref, random_tester_fails_when_write_in_flight_is_ignored)
{
    expect_tester_fails(DIR_MUT_NO_STALE_BIT, "one_mn", "WR_IN_FLIGHT ignored");
}
Test(dir_ctrl_ref, random_tester_fails_when_an_upgrade_does_not_wait)
{
    expect_tester_fails(DIR_MUT_UPG_NO_WAIT, "one_mn", "CMP_E before the answers");
}
Test(dir_ctrl_ref, random_tester_fails_when_waiting_requests_are_served_last_first)
{
    expect_tester_fails(DIR_MUT_LIFO_WAIT, "hot_line", "waiting requests served last first");
}
Test(dir_ctrl_ref, random_tester_fails_when_an_old_owner_stays_a_sharer)
{
    expect_tester_fails(DIR_MUT_KEEP_OLD_OWNER, "one_mn", "an old owner left in the sharer vector");
}
Test(dir_ctrl_ref, random_tester_fails_when_a_served_request_keeps_its_stale_bit)
{
    expect_tester_fails(DIR_MUT_KEEP_STALE_BIT, "one_mn", "a stale-write bit kept after a served request");
}
Test(dir_ctrl_ref, random_tester_fails_when_a_write_back_loses_its_version)
{
    expect_tester_fails(DIR_MUT_WR_NO_VERSION, "one_mn", "a write-back's version not stored");
}
Test(dir_ctrl_ref, random_tester_fails_when_a_snoop_answer_loses_its_version)
{
    expect_tester_fails(DIR_MUT_SNOOP_NO_VERSION, "one_mn", "a snoop answer's version not stored");
}

/* ------------------------------------------------------------------------------------------------
 * The line's version (docs/architecture.md section 11b): kept in the entry, taken from the owner's
 * write-back, write-through and snoop answer with data, sent with every grant. */

static void expect_ver(dt_t *d, uint64_t addr, unsigned ver)
{
    dir_entry_t e;
    cr_assert(dir_ctrl_ref_peek_entry(d->r, addr, &e));
    cr_assert_eq(e.ver, ver, "the entry of line 0x%llx holds version %u, want %u", (unsigned long long)addr, e.ver, ver);
}

Test(dir_ctrl_ref, a_line_never_written_is_granted_with_version_0)
{
    /* GIVEN a fresh line; WHEN CN 3 reads it; THEN DATA_E carries version 0 */
    dt_t d;
    dt_init(&d);
    msg_t q = req(OP_RD_SHARED, 3, L, 0x11);
    dt_in(&d, q);
    dt_settle(&d);
    msg_t g = next_out(&d, OP_DATA_E, 3, L);
    cr_assert_eq(g.ts, 0);
    expect_ver(&d, L, 0);
    dt_free(&d);
}

Test(dir_ctrl_ref, a_dirty_evicts_version_comes_back_in_the_next_data_e)
{
    /* GIVEN CN 2 owns the line (version 5 stored); WHEN it writes it back with version 9, then
     * CN 4 reads it for ownership; THEN the entry holds 9 and DATA_E carries 9 */
    dt_t d;
    dt_init(&d);
    dir_entry_t e0 = {.state = DIR_EM, .vec = 1u << 2, .ver = 5};
    cr_assert(dir_ctrl_ref_poke_entry(d.r, L, &e0));
    uint64_t nd[MSG_WORDS_PER_LINE];
    line_data(9, nd);
    msg_t w = rwd(OP_DIRTY_EVICT, 2, L, 0xb1, 0xff, nd);
    w.ts = 9;
    dt_in(&d, w);
    dt_settle(&d);
    expect_answer(&d, OP_CMP, &w, -1);
    cr_assert_eq(d.out[d.seen - 1].ts, 0, "CMP carries no version");
    expect_ver(&d, L, 9);
    msg_t q = req(OP_RD_OWN, 4, L, 0x12);
    dt_in(&d, q);
    dt_settle(&d);
    msg_t g = next_out(&d, OP_DATA_E, 4, L);
    cr_assert_eq(g.ts, 9, "DATA_E carries version %u, the write-back's was 9", g.ts);
    expect_no_violation(&d);
    dt_free(&d);
}

static void snoop_version_case(msg_op_t rd, msg_op_t ans, msg_op_t grant, unsigned want_ver)
{
    /* GIVEN CN 2 owns the line, version 126 stored; WHEN CN 5 reads, CN 2 answers (with data:
     * version 127; else its clean copy, still 126); THEN the grant carries the answer's version,
     * and the entry holds it */
    dt_t d;
    dt_init(&d);
    dir_entry_t e0 = {.state = DIR_EM, .vec = 1u << 2, .ver = 126};
    cr_assert(dir_ctrl_ref_poke_entry(d.r, L, &e0));
    msg_t q = req(rd, 5, L, 0x13);
    dt_in(&d, q);
    dt_ticks(&d, 100);
    msg_t s = next_out(&d, rd == OP_RD_SHARED ? OP_BISNP_DATA : OP_BISNP_INV, 2, L);
    uint64_t od[MSG_WORDS_PER_LINE];
    line_data(9, od);
    bool data = ans == OP_BIRSP_I_DATA || ans == OP_BIRSP_S_DATA;
    msg_t a = birsp(ans, 2, &s, 0, data ? od : NULL);
    if (data)
        a.ts = 127;
    dt_in(&d, a);
    dt_settle(&d);
    msg_t g = next_out(&d, grant, 5, L);
    cr_assert_eq(g.ts, want_ver, "%s after %s carries version %u, want %u", msg_name(grant), msg_name(ans), g.ts,
                 want_ver);
    expect_ver(&d, L, want_ver);
    expect_no_violation(&d);
    dt_free(&d);
}

Test(dir_ctrl_ref, a_snoop_answers_version_is_forwarded_to_the_requester)
{
    snoop_version_case(OP_RD_SHARED, OP_BIRSP_S_DATA, OP_DATA_S, 127);
    snoop_version_case(OP_RD_SHARED, OP_BIRSP_I_DATA, OP_DATA_E, 127);
    snoop_version_case(OP_RD_OWN, OP_BIRSP_I_DATA, OP_DATA_E, 127);
    snoop_version_case(OP_RD_SHARED, OP_BIRSP_S, OP_DATA_S, 126); /* clean: the stored one */
    snoop_version_case(OP_RD_OWN, OP_BIRSP_I, OP_DATA_E, 126);
}

Test(dir_ctrl_ref, a_write_through_updates_the_version_and_a_stale_one_does_not)
{
    /* GIVEN CN 2 owns the line, version 3; WHEN it writes through with version 4; THEN the entry
     * holds 4. GIVEN CN 6 owns it and CN 2's stale bit is set; WHEN CN 2's late write-through
     * (version 100) arrives; THEN it is stale and the version stays 4. GIVEN CN 2 shares it; WHEN
     * it upgrades; THEN CMP_E carries 4. */
    dt_t d;
    dt_init(&d);
    dir_entry_t e0 = {.state = DIR_EM, .vec = 1u << 2, .ver = 3};
    cr_assert(dir_ctrl_ref_poke_entry(d.r, L, &e0));
    uint64_t nd[MSG_WORDS_PER_LINE];
    line_data(9, nd);
    msg_t w = rwd(OP_WT_WR, 2, L, 0xb2, 0x05, nd);
    w.ts = 4;
    dt_in(&d, w);
    dt_settle(&d);
    expect_answer(&d, OP_CMP, &w, -1);
    expect_ver(&d, L, 4);
    /* a write-through from a CN that is not the owner (stale, its bit set) leaves the version */
    dir_entry_t e1 = {.state = DIR_EM, .vec = 1u << 6, .stale = 1u << 2, .ver = 4};
    cr_assert(dir_ctrl_ref_poke_entry(d.r, L, &e1));
    msg_t w2 = rwd(OP_WT_WR, 2, L, 0xb3, 0x01, nd);
    w2.ts = 100;
    dt_in(&d, w2);
    dt_settle(&d);
    expect_answer(&d, OP_CMP, &w2, -1);
    expect_ver(&d, L, 4);
    /* an upgrade's CMP_E carries the version too */
    dir_entry_t e2 = {.state = DIR_S, .vec = 1u << 2, .ver = 4};
    cr_assert(dir_ctrl_ref_poke_entry(d.r, L, &e2));
    msg_t u = req(OP_RD_UPGRADE, 2, L, 0x14);
    dt_in(&d, u);
    dt_settle(&d);
    msg_t g = next_out(&d, OP_CMP_E, 2, L);
    cr_assert_eq(g.ts, 4);
    expect_no_violation(&d);
    dt_free(&d);
}
