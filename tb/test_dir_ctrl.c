/* Tests of the directory controller (rtl/dir/dir_ctrl.sv), Verilated on its own and driven through
 * csim/drv/dir_drv (link with credits both ways, MN DRAM behind csim/mem/dram.c). One directed test
 * per row of the state x event table (docs/architecture.md section 11c), named after the row,
 * written GIVEN / WHEN / THEN: the CNs are played by the test, which sends their requests and snoop
 * answers and checks every message the directory sends, the data, memory and the row counters. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv/dir_drv.h"
#include "sb/dir_models.h"

#define MN MSG_MN_BASE
#define MAXRX 4096

typedef struct tctx {
    dir_drv_t *d;
    dir_drv_cfg_t cfg;
    msg_t rx[MAXRX]; /* every message the directory sent, in order */
    size_t nrx, seen;
    msg_t sw[64]; /* messages passed to the software */
    size_t nsw;
    bool auto_snoop; /* the CNs answer every snoop at once (BIRSP_S to BISNP_DATA, else BIRSP_I) */
    size_t mg_seen;  /* management port answers consumed */
} tctx_t;

static void on_tx(void *ctx, const msg_t *m, uint64_t cycle)
{
    (void)cycle;
    tctx_t *t = ctx;
    cr_assert_lt(t->nrx, MAXRX);
    t->rx[t->nrx++] = *m;
}

static void on_sw(void *ctx, const msg_t *m, uint64_t cycle)
{
    (void)cycle;
    tctx_t *t = ctx;
    cr_assert_lt(t->nsw, 64);
    t->sw[t->nsw++] = *m;
}

static tctx_t *mk_cfg(const dir_model_ops_t *ops, const dir_drv_cfg_t *cfg)
{
    tctx_t *t = calloc(1, sizeof *t);
    cr_assert_not_null(t);
    t->cfg = *cfg;
    t->d = dir_drv_create(ops, cfg, 1, on_tx, t);
    dir_drv_on_sw(t->d, on_sw);
    for (int i = 0; i < 20; i++)
        dir_drv_step(t->d); /* credits granted */
    return t;
}

static tctx_t *mk(void)
{
    dir_drv_cfg_t cfg = dir_drv_cfg_default();
    cfg.mem_latency_ps = 20000;
    return mk_cfg(&dir_ops_default, &cfg);
}

static void done(tctx_t *t)
{
    dir_drv_free(t->d);
    free(t);
}

static void line_fill(uint64_t *v, uint64_t seed)
{
    for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
        v[w] = seed * 0x100 + w;
}

static void send_full(tctx_t *t, msg_op_t op, unsigned src, uint64_t addr, uint8_t mask, const uint64_t *data,
                      unsigned flags, unsigned tag);
static void send_msg(tctx_t *t, const msg_t *m);

/* One cycle; with auto_snoop, the snoops sent so far are answered (as credits allow). */
static void step(tctx_t *t)
{
    dir_drv_step(t->d);
    if (!t->auto_snoop)
        return;
    for (size_t k = 0; k < t->nrx && dir_drv_credits(t->d, CLS_BIRSP); k++) {
        msg_t *m = &t->rx[k];
        if (msg_class(m->opcode) != CLS_BISNP || m->src == 0xff)
            continue;
        msg_t b = {.opcode = m->opcode == OP_BISNP_DATA ? OP_BIRSP_S : OP_BIRSP_I, .src = m->dst,
                   .dst = (uint8_t)t->cfg.node_id, .tag = m->tag, .addr = m->addr};
        dir_drv_send(t->d, &b, 1);
        m->src = 0xff;
        t->seen++;
    }
}

/* Sends a message from CN src (waiting for a credit). */
static void send_full(tctx_t *t, msg_op_t op, unsigned src, uint64_t addr, uint8_t mask, const uint64_t *data,
                      unsigned flags, unsigned tag)
{
    msg_t m = {0};
    m.opcode = op;
    m.src = (uint8_t)src;
    m.dst = (uint8_t)t->cfg.node_id;
    m.addr = addr;
    m.tag = (uint16_t)tag;
    if (msg_class(op) != CLS_BIRSP && msg_class(op) < CLS_DKREQ)
        m.core = 1;
    if (msg_class(op) == CLS_BIRSP)
        m.flags = (uint8_t)flags;
    if (data) {
        m.mask = mask;
        memcpy(m.data, data, sizeof m.data);
    }
    send_msg(t, &m);
}

/* Sends m (waiting for a credit of its class). */
static void send_msg(tctx_t *t, const msg_t *m)
{
    msg_class_t c = msg_class(m->opcode);
    for (int i = 0; i < 1000 && dir_drv_credits(t->d, c) == 0; i++)
        step(t);
    if (dir_drv_credits(t->d, c) == 0) {
        bool e;
        uint32_t used = dir_drv_csr(t->d, DIR_CSR_IN_USE, &e), reqs = dir_drv_csr(t->d, DIR_CSR_REQS, &e);
        cr_assert_fail("no %s credit after 1000 cycles (%u transactions in the table, %u requests taken, %zu "
                       "messages sent)", msg_class_name(c), used, reqs, t->nrx);
    }
    dir_drv_send(t->d, m, 1);
}

static void req(tctx_t *t, msg_op_t op, unsigned src, uint64_t addr) { send_full(t, op, src, addr, 0, NULL, 0, 7); }

/* Steps until the directory has sent a message op to dst not seen before; returns it. */
static msg_t expect(tctx_t *t, msg_op_t op, unsigned dst)
{
    for (int i = 0; i < 5000; i++) {
        for (size_t k = 0; k < t->nrx; k++) {
            msg_t *m = &t->rx[k];
            if (m->opcode == op && m->dst == dst && m->src != 0xff) {
                msg_t r = *m;
                m->src = 0xff; /* consumed */
                t->seen++;
                return r;
            }
        }
        step(t);
    }
    cr_assert_fail("no %s to node %u after 5000 cycles (%zu messages sent)", msg_name(op), dst, t->nrx);
    return (msg_t){0};
}

/* Runs until the controller is idle; every message it sent must have been expected. */
static void settle(tctx_t *t)
{
    for (int i = 0; i < 20000 && !dir_drv_idle(t->d); i++)
        step(t);
    for (int i = 0; i < 50; i++)
        step(t);
    cr_assert(dir_drv_idle(t->d), "the directory is not idle");
    cr_assert_eq(t->seen, t->nrx, "%zu messages sent that the test did not expect (first: %s)", t->nrx - t->seen,
                 msg_name(t->rx[t->seen].opcode));
}

static uint32_t csr(tctx_t *t, unsigned a)
{
    bool err = true;
    uint32_t v = dir_drv_csr(t->d, a, &err);
    cr_assert(!err, "CSR 0x%02x refused", a);
    return v;
}

static void expect_data(const msg_t *m, const uint64_t *v)
{
    cr_assert_eq(m->mask, 0xff);
    for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
        cr_assert_eq(m->data[w], v[w], "word %u: 0x%llx, expected 0x%llx", w, (unsigned long long)m->data[w],
                     (unsigned long long)v[w]);
}

static void expect_mem(tctx_t *t, uint32_t l, const uint64_t *v)
{
    uint64_t line[MSG_WORDS_PER_LINE];
    dir_drv_mem_peek(t->d, l, line);
    for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
        cr_assert_eq(line[w], v[w], "memory line %u word %u: 0x%llx, expected 0x%llx", l, w,
                     (unsigned long long)line[w], (unsigned long long)v[w]);
}

static void expect_viol(tctx_t *t, size_t n, unsigned kind, msg_op_t op, unsigned src)
{
    cr_assert_eq(dir_drv_viols(t->d), n, "%zu violations, expected %zu", dir_drv_viols(t->d), n);
    const dir_viol_rec_t *v = dir_drv_viol(t->d, n - 1);
    cr_assert_eq(v->kind, kind, "violation kind %u, expected %u", v->kind, kind);
    cr_assert_eq(v->m.opcode, op, "violation of %s, expected %s", msg_name(v->m.opcode), msg_name(op));
    cr_assert_eq(v->m.src, src);
}

/* GIVEN helpers: put line a in a state. */
static void make_em(tctx_t *t, unsigned o, uint64_t a)
{
    req(t, OP_RD_OWN, o, a);
    expect(t, OP_DATA_E, o);
    settle(t);
}

/* Line a shared by CNs first (granted E, then snooped to S) and second. */
static void make_s(tctx_t *t, unsigned first, unsigned second, uint64_t a)
{
    req(t, OP_RD_SHARED, first, a);
    expect(t, OP_DATA_E, first);
    settle(t);
    req(t, OP_RD_SHARED, second, a);
    msg_t s = expect(t, OP_BISNP_DATA, first);
    send_full(t, OP_BIRSP_S, first, a, 0, NULL, 0, s.tag);
    expect(t, OP_DATA_S, second);
    settle(t);
}

static void make_s12(tctx_t *t, uint64_t a) { make_s(t, 1, 2, a); }

Test(dir_ctrl, I_RdS)
{
    tctx_t *t = mk();
    uint64_t v[8];
    line_fill(v, 5);
    dir_drv_mem_poke(t->d, 5, 0xff, v);
    /* GIVEN line 5 in I WHEN CN 1 reads it shared THEN it gets the memory's line, granted E */
    req(t, OP_RD_SHARED, 1, 5);
    msg_t m = expect(t, OP_DATA_E, 1);
    expect_data(&m, v);
    cr_assert_eq(m.src, MN);
    cr_assert_eq(m.tag, 7);
    cr_assert_eq(m.core, 1);
    cr_assert_eq(m.addr, 5);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_I_RdS), 1);
    cr_assert_eq(csr(t, DIR_CSR_DC_MISSES), 1);
    /* AND a second reader finds an owner (EM): it snoops CN 1 */
    req(t, OP_RD_SHARED, 2, 5);
    msg_t s = expect(t, OP_BISNP_DATA, 1);
    cr_assert_eq(s.addr, 5);
    send_full(t, OP_BIRSP_I, 1, 5, 0, NULL, 0, s.tag);
    m = expect(t, OP_DATA_E, 2);
    expect_data(&m, v);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_EM_RdS), 1);
    cr_assert_eq(csr(t, DIR_CSR_DC_HITS), 1);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}

Test(dir_ctrl, I_RdOwn)
{
    tctx_t *t = mk();
    uint64_t v[8];
    line_fill(v, 9);
    dir_drv_mem_poke(t->d, 9, 0xff, v);
    /* GIVEN line 9 in I WHEN CN 3 reads it for ownership THEN DATA_E with memory's line */
    req(t, OP_RD_OWN, 3, 9);
    expect_data((msg_t[]){expect(t, OP_DATA_E, 3)}, v);
    settle(t);
    /* AND an upgrade from a CN that holds nothing (line 10, in I) is served as RdOwn */
    req(t, OP_RD_UPGRADE, 4, 10);
    expect(t, OP_DATA_E, 4);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_I_RdOwn), 2);
    done(t);
}

Test(dir_ctrl, I_Evict)
{
    tctx_t *t = mk();
    /* GIVEN line 3 in I WHEN CN 2 sends a clean eviction, a write-back and a write-through THEN
     * each is a violation (nobody's stale write), dropped, not answered */
    req(t, OP_CLEAN_EVICT, 2, 3);
    settle(t);
    expect_viol(t, 1, DIR_VIOL_NOT_OWNER, OP_CLEAN_EVICT, 2);
    uint64_t v[8];
    line_fill(v, 1);
    send_full(t, OP_DIRTY_EVICT, 2, 3, 0xff, v, 0, 8);
    settle(t);
    expect_viol(t, 2, DIR_VIOL_NOT_OWNER, OP_DIRTY_EVICT, 2);
    send_full(t, OP_WT_WR, 2, 3, 0x1, v, 0, 9);
    settle(t);
    expect_viol(t, 3, DIR_VIOL_NOT_OWNER, OP_WT_WR, 2);
    cr_assert_eq(csr(t, DIR_TR_I_Evict), 3);
    cr_assert_eq(csr(t, DIR_CSR_VIOL(DIR_VIOL_NOT_OWNER - 1)), 3);
    expect_mem(t, 3, (uint64_t[8]){0});
    done(t);
}

Test(dir_ctrl, S_RdS)
{
    tctx_t *t = mk();
    uint64_t v[8];
    line_fill(v, 4);
    dir_drv_mem_poke(t->d, 4, 0xff, v);
    make_s12(t, 4);
    /* GIVEN S{1,2} WHEN CN 3 reads shared THEN DATA_S from memory, no snoop */
    req(t, OP_RD_SHARED, 3, 4);
    expect_data((msg_t[]){expect(t, OP_DATA_S, 3)}, v);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_S_RdS), 1);
    cr_assert_eq(csr(t, DIR_CSR_SNOOPS), 1); /* only make_s12's */
    done(t);
}

Test(dir_ctrl, S_ReRead)
{
    tctx_t *t = mk();
    make_s12(t, 4);
    /* GIVEN S{1,2} WHEN CN 2 reads shared again THEN DUP_REQ, not answered */
    req(t, OP_RD_SHARED, 2, 4);
    settle(t);
    expect_viol(t, 1, DIR_VIOL_DUP_REQ, OP_RD_SHARED, 2);
    /* AND a sharer's RD_OWN is refused too (a sharer asks for ownership with RD_UPGRADE) */
    req(t, OP_RD_OWN, 1, 4);
    settle(t);
    expect_viol(t, 2, DIR_VIOL_DUP_REQ, OP_RD_OWN, 1);
    cr_assert_eq(csr(t, DIR_TR_S_ReRead), 2);
    cr_assert_eq(csr(t, DIR_CSR_SNOOPS), 1); /* make_s12's only */
    done(t);
}

Test(dir_ctrl, S_RdOwn)
{
    tctx_t *t = mk();
    uint64_t v[8];
    line_fill(v, 6);
    dir_drv_mem_poke(t->d, 4, 0xff, v);
    make_s12(t, 4);
    /* GIVEN S{1,2} WHEN CN 3 reads for ownership THEN both sharers are invalidated and, once both
     * answered, CN 3 gets DATA_E */
    req(t, OP_RD_OWN, 3, 4);
    msg_t s1 = expect(t, OP_BISNP_INV, 1), s2 = expect(t, OP_BISNP_INV, 2);
    send_full(t, OP_BIRSP_I, 2, 4, 0, NULL, 0, s2.tag);
    for (int i = 0; i < 300; i++)
        dir_drv_step(t->d);
    for (size_t k = 0; k < t->nrx; k++)
        cr_assert(t->rx[k].opcode != OP_DATA_E || t->rx[k].dst != 3, "DATA_E before every sharer answered");
    send_full(t, OP_BIRSP_I, 1, 4, 0, NULL, 0, s1.tag);
    expect_data((msg_t[]){expect(t, OP_DATA_E, 3)}, v);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_S_RdOwn), 1);
    /* AND CN 3 is the owner: a read from CN 1 snoops it */
    req(t, OP_RD_SHARED, 1, 4);
    msg_t s = expect(t, OP_BISNP_DATA, 3);
    send_full(t, OP_BIRSP_S, 3, 4, 0, NULL, 0, s.tag);
    expect(t, OP_DATA_S, 1);
    settle(t);
    done(t);
}

Test(dir_ctrl, S_Upg)
{
    tctx_t *t = mk();
    make_s12(t, 4);
    /* GIVEN S{1,2} WHEN CN 1 upgrades THEN CN 2 is invalidated and CN 1 gets CMP_E (no data) */
    req(t, OP_RD_UPGRADE, 1, 4);
    msg_t s = expect(t, OP_BISNP_INV, 2);
    send_full(t, OP_BIRSP_I, 2, 4, 0, NULL, 0, s.tag);
    expect(t, OP_CMP_E, 1);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_S_Upg), 1);
    /* AND CN 1 owns it: its write-back is accepted */
    uint64_t v[8];
    line_fill(v, 0x77);
    send_full(t, OP_DIRTY_EVICT, 1, 4, 0xff, v, 0, 3);
    expect(t, OP_CMP, 1);
    settle(t);
    expect_mem(t, 4, v);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}

Test(dir_ctrl, S_CleanEvict)
{
    tctx_t *t = mk();
    make_s12(t, 4);
    /* GIVEN S{1,2} WHEN both evict THEN CMP each, and the line is I again (a reader gets E) */
    req(t, OP_CLEAN_EVICT, 1, 4);
    expect(t, OP_CMP, 1);
    req(t, OP_CLEAN_EVICT, 2, 4);
    expect(t, OP_CMP, 2);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_S_CleanEvict), 2);
    req(t, OP_RD_SHARED, 3, 4);
    expect(t, OP_DATA_E, 3);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_I_RdS), 2);
    done(t);
}

Test(dir_ctrl, S_StaleWr)
{
    tctx_t *t = mk();
    make_s12(t, 4);
    /* GIVEN S{1,2} WHEN CN 1 writes back (it is no owner) or CN 3 evicts THEN violations */
    uint64_t v[8];
    line_fill(v, 2);
    send_full(t, OP_DIRTY_EVICT, 1, 4, 0xff, v, 0, 3);
    settle(t);
    expect_viol(t, 1, DIR_VIOL_NOT_OWNER, OP_DIRTY_EVICT, 1);
    req(t, OP_CLEAN_EVICT, 3, 4);
    settle(t);
    expect_viol(t, 2, DIR_VIOL_NOT_OWNER, OP_CLEAN_EVICT, 3);
    cr_assert_eq(csr(t, DIR_TR_S_StaleWr), 2);
    done(t);
}

Test(dir_ctrl, EM_RdS)
{
    tctx_t *t = mk();
    make_em(t, 1, 8);
    uint64_t v[8];
    line_fill(v, 0xd1);
    /* GIVEN EM(1) WHEN CN 2 reads shared and CN 1 answers with dirty data, keeping S THEN memory
     * and CN 2 get CN 1's data, DATA_S */
    req(t, OP_RD_SHARED, 2, 8);
    msg_t s = expect(t, OP_BISNP_DATA, 1);
    send_full(t, OP_BIRSP_S_DATA, 1, 8, 0xff, v, 0, s.tag);
    expect_data((msg_t[]){expect(t, OP_DATA_S, 2)}, v);
    settle(t);
    expect_mem(t, 8, v);
    /* AND both share it: an upgrade by CN 2 invalidates CN 1 */
    req(t, OP_RD_UPGRADE, 2, 8);
    s = expect(t, OP_BISNP_INV, 1);
    send_full(t, OP_BIRSP_I, 1, 8, 0, NULL, 0, s.tag);
    expect(t, OP_CMP_E, 2);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_EM_RdS), 1);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}

Test(dir_ctrl, EM_RdOwn)
{
    tctx_t *t = mk();
    uint64_t v[8];
    line_fill(v, 0x31);
    dir_drv_mem_poke(t->d, 8, 0xff, v);
    make_em(t, 1, 8);
    /* GIVEN EM(1) WHEN CN 2 reads for ownership and CN 1 had it clean (BIRSP_I, no data) THEN
     * memory's line goes to CN 2 */
    req(t, OP_RD_OWN, 2, 8);
    msg_t s = expect(t, OP_BISNP_INV, 1);
    send_full(t, OP_BIRSP_I, 1, 8, 0, NULL, 0, s.tag);
    expect_data((msg_t[]){expect(t, OP_DATA_E, 2)}, v);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_EM_RdOwn), 1);
    done(t);
}

Test(dir_ctrl, EM_ReRead)
{
    tctx_t *t = mk();
    make_em(t, 1, 8);
    /* GIVEN EM(1) WHEN CN 1 asks again THEN DUP_REQ, no snoop of itself */
    req(t, OP_RD_SHARED, 1, 8);
    settle(t);
    expect_viol(t, 1, DIR_VIOL_DUP_REQ, OP_RD_SHARED, 1);
    req(t, OP_RD_UPGRADE, 1, 8);
    settle(t);
    expect_viol(t, 2, DIR_VIOL_DUP_REQ, OP_RD_UPGRADE, 1);
    cr_assert_eq(csr(t, DIR_TR_EM_ReRead), 2);
    done(t);
}

Test(dir_ctrl, EM_CleanEvict)
{
    tctx_t *t = mk();
    make_em(t, 1, 8);
    /* GIVEN EM(1) WHEN CN 1 evicts clean THEN CMP and the line is I (the next reader is not
     * snooped) */
    req(t, OP_CLEAN_EVICT, 1, 8);
    expect(t, OP_CMP, 1);
    settle(t);
    req(t, OP_RD_SHARED, 2, 8);
    expect(t, OP_DATA_E, 2);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_EM_CleanEvict), 1);
    cr_assert_eq(csr(t, DIR_CSR_SNOOPS), 0);
    done(t);
}

Test(dir_ctrl, EM_DirtyEvict)
{
    tctx_t *t = mk();
    make_em(t, 1, 8);
    uint64_t v[8];
    line_fill(v, 0xee);
    /* GIVEN EM(1) WHEN CN 1 writes the line back THEN memory holds it, CMP, line I */
    send_full(t, OP_DIRTY_EVICT, 1, 8, 0xff, v, 0, 3);
    expect(t, OP_CMP, 1);
    settle(t);
    expect_mem(t, 8, v);
    req(t, OP_RD_SHARED, 2, 8);
    expect_data((msg_t[]){expect(t, OP_DATA_E, 2)}, v);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_EM_DirtyEvict), 1);
    done(t);
}

Test(dir_ctrl, EM_WtWr)
{
    tctx_t *t = mk();
    uint64_t v[8], w[8], x[8];
    line_fill(v, 0x10);
    line_fill(w, 0x20);
    dir_drv_mem_poke(t->d, 8, 0xff, v);
    make_em(t, 1, 8);
    /* GIVEN EM(1) WHEN CN 1 writes words 1 and 6 through THEN only those change, CMP, still EM(1) */
    send_full(t, OP_WT_WR, 1, 8, 0x42, w, 0, 3);
    expect(t, OP_CMP, 1);
    settle(t);
    memcpy(x, v, sizeof x);
    x[1] = w[1];
    x[6] = w[6];
    expect_mem(t, 8, x);
    req(t, OP_RD_SHARED, 2, 8);
    msg_t s = expect(t, OP_BISNP_DATA, 1);
    send_full(t, OP_BIRSP_S, 1, 8, 0, NULL, 0, s.tag);
    expect_data((msg_t[]){expect(t, OP_DATA_S, 2)}, x);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_EM_WtWr), 1);
    done(t);
}

/* The stale-write race: CN 1 owns line 8 dirty and writes it back while CN 2's RdOwn snoops it.
 * CN 1 answers the snoop with its data and WR_IN_FLIGHT; its write-back, arriving before or after
 * that answer, is stale: CMP, data dropped, no violation. */
static void stale_race(bool evict_first)
{
    tctx_t *t = mk();
    make_em(t, 1, 8);
    uint64_t v[8], later[8];
    line_fill(v, 0xab);
    line_fill(later, 0xcd);
    req(t, OP_RD_OWN, 2, 8);
    msg_t s = expect(t, OP_BISNP_INV, 1);
    if (evict_first)
        send_full(t, OP_DIRTY_EVICT, 1, 8, 0xff, v, 0, 3);
    send_full(t, OP_BIRSP_I_DATA, 1, 8, 0xff, v, 4 /* WR_IN_FLIGHT */, s.tag);
    expect_data((msg_t[]){expect(t, OP_DATA_E, 2)}, v);
    if (!evict_first) {
        /* CN 2 wrote meanwhile and wrote it back: the stale write must not undo it */
        settle(t);
        send_full(t, OP_DIRTY_EVICT, 2, 8, 0xff, later, 0, 4);
        expect(t, OP_CMP, 2);
        settle(t);
        send_full(t, OP_DIRTY_EVICT, 1, 8, 0xff, v, 0, 3);
    }
    expect(t, OP_CMP, 1);
    settle(t);
    expect_mem(t, 8, evict_first ? v : later);
    cr_assert_eq(dir_drv_viols(t->d), 0, "a stale write reported as a violation");
    cr_assert_eq(csr(t, DIR_CSR_STALE), 1);
    /* AND the stale bit is used up: another write-back from CN 1 is a violation */
    send_full(t, OP_DIRTY_EVICT, 1, 8, 0xff, v, 0, 5);
    settle(t);
    expect_viol(t, 1, DIR_VIOL_NOT_OWNER, OP_DIRTY_EVICT, 1);
    done(t);
}

Test(dir_ctrl, EM_StaleWr_evict_before_answer) { stale_race(true); }
Test(dir_ctrl, EM_StaleWr_evict_after_answer) { stale_race(false); }

Test(dir_ctrl, EM_StaleWr_violation)
{
    tctx_t *t = mk();
    make_em(t, 1, 8);
    uint64_t v[8];
    line_fill(v, 3);
    /* GIVEN EM(1) WHEN CN 2 writes back or writes through THEN NOT_OWNER */
    send_full(t, OP_DIRTY_EVICT, 2, 8, 0xff, v, 0, 3);
    send_full(t, OP_WT_WR, 2, 8, 0x1, v, 0, 4);
    settle(t);
    cr_assert_eq(dir_drv_viols(t->d), 2);
    cr_assert_eq(csr(t, DIR_TR_EM_StaleWr), 2);
    expect_mem(t, 8, (uint64_t[8]){0});
    done(t);
}

static tctx_t *mk_lnr(void)
{
    dir_drv_cfg_t cfg = dir_drv_cfg_default();
    cfg.mem_latency_ps = 20000;
    cfg.scr_lo = 0;
    cfg.scr_hi = 100; /* lines 100.. are the LNR */
    return mk_cfg(&dir_ops_default, &cfg);
}

Test(dir_ctrl, LNR_Rd_and_LNR_Wr)
{
    tctx_t *t = mk_lnr();
    uint64_t v[8], w[8], x[8];
    line_fill(v, 0x50);
    line_fill(w, 0x60);
    dir_drv_mem_poke(t->d, 200, 0xff, v);
    /* GIVEN an LNR line WHEN CN 1 writes words 0 and 7 and CN 2 reads THEN CMP, DATA_NC with the
     * words, no snoop, no directory state */
    send_full(t, OP_LNR_WR, 1, 200, 0x81, w, 0, 3);
    expect(t, OP_CMP, 1);
    req(t, OP_LNR_RD, 2, 200);
    memcpy(x, v, sizeof x);
    x[0] = w[0];
    x[7] = w[7];
    expect_data((msg_t[]){expect(t, OP_DATA_NC, 2)}, x);
    req(t, OP_LNR_RD, 1, 200);
    expect(t, OP_DATA_NC, 1);
    settle(t);
    cr_assert_eq(csr(t, DIR_TR_LNR_Wr), 1);
    cr_assert_eq(csr(t, DIR_TR_LNR_Rd), 2);
    cr_assert_eq(csr(t, DIR_CSR_SNOOPS), 0);
    cr_assert_eq(csr(t, DIR_CSR_DC_MISSES), 0);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}

Test(dir_ctrl, region_mismatch_is_a_violation)
{
    tctx_t *t = mk_lnr();
    /* GIVEN SCR = lines 0..99 WHEN a coherent read of an LNR line or an LNR read of an SCR line
     * THEN REGION, not answered */
    req(t, OP_RD_SHARED, 1, 200);
    settle(t);
    expect_viol(t, 1, DIR_VIOL_REGION, OP_RD_SHARED, 1);
    req(t, OP_LNR_RD, 1, 50);
    settle(t);
    expect_viol(t, 2, DIR_VIOL_REGION, OP_LNR_RD, 1);
    cr_assert_eq(csr(t, DIR_CSR_VIOL(DIR_VIOL_REGION - 1)), 2);
    done(t);
}

Test(dir_ctrl, address_outside_the_mn_is_a_violation)
{
    dir_drv_cfg_t cfg = dir_drv_cfg_default();
    cfg.mn_shift = 1; /* two MNs, interleaved by 4 lines; this is MN 1, 64 lines */
    cfg.gran_shift = 2;
    cfg.mn_idx = 1;
    cfg.node_id = MN + 1;
    cfg.lines = 64;
    tctx_t *t = mk_cfg(&dir_ops_default, &cfg);
    uint64_t v[8];
    line_fill(v, 0x44);
    /* global line 13 = chunk 3 (MN 1), local line ((3 >> 1) << 2) | 1 = 5 */
    cr_assert_eq(dir_addr_local(13, cfg.mn_shift, cfg.gran_shift), 5);
    dir_drv_mem_poke(t->d, 5, 0xff, v);
    req(t, OP_RD_SHARED, 1, 13);
    expect_data((msg_t[]){expect(t, OP_DATA_E, 1)}, v);
    /* line 9 = chunk 2: MN 0's; line 128 = chunk 32, local 64: beyond this MN's memory */
    req(t, OP_RD_SHARED, 1, 9);
    req(t, OP_RD_SHARED, 1, 132);
    settle(t);
    cr_assert_eq(dir_drv_viols(t->d), 2);
    cr_assert_eq(dir_drv_viol(t->d, 0)->kind, DIR_VIOL_ADDR);
    cr_assert_eq(dir_drv_viol(t->d, 0)->m.addr, 9);
    cr_assert_eq(dir_drv_viol(t->d, 1)->m.addr, 132);
    done(t);
}

Test(dir_ctrl, unexpected_birsp_is_a_violation)
{
    tctx_t *t = mk();
    make_em(t, 1, 8);
    /* GIVEN no snoop outstanding WHEN CN 1 answers one anyway THEN BIRSP violation */
    send_full(t, OP_BIRSP_I, 1, 8, 0, NULL, 0, 0);
    settle(t);
    expect_viol(t, 1, DIR_VIOL_BIRSP, OP_BIRSP_I, 1);
    /* AND a sharer's BIRSP_S to an invalidation is one too: dropped, the transaction still awaits
     * a valid answer from that CN */
    tctx_t *u = mk();
    make_s12(u, 4);
    req(u, OP_RD_OWN, 3, 4);
    msg_t s1 = expect(u, OP_BISNP_INV, 1), s2 = expect(u, OP_BISNP_INV, 2);
    send_full(u, OP_BIRSP_S, 1, 4, 0, NULL, 0, s1.tag);
    send_full(u, OP_BIRSP_I, 2, 4, 0, NULL, 0, s2.tag);
    for (int i = 0; i < 300; i++)
        step(u);
    for (size_t k = 0; k < u->nrx; k++)
        cr_assert(u->rx[k].opcode != OP_DATA_E || u->rx[k].dst != 3, "granted on a refused answer");
    expect_viol(u, 1, DIR_VIOL_BIRSP, OP_BIRSP_S, 1);
    send_full(u, OP_BIRSP_I, 1, 4, 0, NULL, 0, s1.tag);
    expect(u, OP_DATA_E, 3);
    settle(u);
    cr_assert_eq(dir_drv_viols(u->d), 1);
    done(u);
    done(t);
}

Test(dir_ctrl, message_of_another_class_is_dropped_and_its_credit_returned)
{
    tctx_t *t = mk();
    unsigned before = dir_drv_credits(t->d, CLS_DKREQ);
    uint64_t v[8] = {0};
    /* GIVEN the directory WHEN a REPL reaches it THEN BAD_MSG on the receive lane, credit back */
    send_full(t, OP_REPL, 1, 8, 0x1, v, 0, 3);
    settle(t);
    cr_assert_eq(dir_drv_viols(t->d), 1);
    cr_assert_eq(dir_drv_viol(t->d, 0)->kind, DIR_VIOL_BAD_MSG);
    cr_assert_eq(dir_drv_viol(t->d, 0)->m.opcode, OP_REPL);
    cr_assert_eq(dir_drv_credits(t->d, CLS_DKREQ), before);
    cr_assert_eq(csr(t, DIR_CSR_VIOL(DIR_VIOL_BAD_MSG - 1)), 1);
    done(t);
}

Test(dir_ctrl, requests_to_one_line_are_served_in_arrival_order)
{
    tctx_t *t = mk();
    /* GIVEN line 8 in I WHEN CNs 1..5 ask for ownership at once THEN each in turn gets it, the
     * previous owner snooped first */
    for (unsigned c = 1; c <= 5; c++)
        req(t, OP_RD_OWN, c, 8);
    expect(t, OP_DATA_E, 1);
    for (unsigned c = 2; c <= 5; c++) {
        msg_t s = expect(t, OP_BISNP_INV, c - 1);
        send_full(t, OP_BIRSP_I, c - 1, 8, 0, NULL, 0, s.tag);
        expect(t, OP_DATA_E, c);
    }
    settle(t);
    cr_assert_eq(csr(t, DIR_CSR_WAITED), 4);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}

Test(dir_ctrl, small_table_and_cache_back_pressure_and_evict)
{
    dir_drv_cfg_t cfg = dir_drv_cfg_default();
    cfg.mem_latency_ps = 45000;
    tctx_t *t = mk_cfg(&dir_ops_small, &cfg);
    /* GIVEN 4 transactions and 2 cache entries WHEN CN c owns line c for 24 lines, then CN 30
     * reads each THEN every owner is snooped (its entry came back from DRAM) */
    for (unsigned c = 0; c < 24; c++)
        req(t, OP_RD_OWN, c, 64 + c);
    for (unsigned c = 0; c < 24; c++)
        expect(t, OP_DATA_E, c);
    settle(t);
    cr_assert_gt(csr(t, DIR_CSR_DC_WBS), 0);
    for (unsigned c = 0; c < 24; c++) {
        dir_entry_t e;
        dir_drv_entry_peek(t->d, 64 + c, &e);
        if (e.state != DIR_I) {
            cr_assert_eq(e.state, DIR_EM);
            cr_assert_eq(e.vec, 1u << c);
        }
    }
    t->auto_snoop = true;
    size_t first = t->nrx;
    for (unsigned c = 0; c < 24; c++)
        req(t, OP_RD_SHARED, 30, 64 + c);
    for (unsigned c = 0; c < 24; c++)
        expect(t, OP_DATA_S, 30);
    for (unsigned c = 0; c < 24; c++) {
        bool snooped = false;
        for (size_t k = first; k < t->nrx; k++)
            snooped |= t->rx[k].opcode == OP_BISNP_DATA && t->rx[k].dst == c && t->rx[k].addr == 64 + c;
        cr_assert(snooped, "owner %u of line %u was not snooped", c, 64 + c);
    }
    settle(t);
    cr_assert_gt(csr(t, DIR_CSR_FULL), 0);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}

Test(dir_ctrl, software_port_passes_management_messages_both_ways)
{
    tctx_t *t = mk();
    /* GIVEN the MN WHEN an INIT_RECOV and a DUMP_DATA arrive THEN the software gets both; WHEN the
     * software sends INIT_RECOV_RESP THEN it leaves on the link */
    msg_t m = {.opcode = OP_INIT_RECOV, .src = 0, .dst = MN, .subject = 3};
    dir_drv_send(t->d, &m, 1);
    uint64_t v[8] = {1, 2, 3};
    send_full(t, OP_DUMP_DATA, 2, 0, 0xff, v, 0, 0);
    for (int i = 0; i < 50; i++)
        dir_drv_step(t->d);
    cr_assert_eq(t->nsw, 2);
    cr_assert_eq(t->sw[0].opcode, OP_INIT_RECOV);
    cr_assert_eq(t->sw[0].subject, 3);
    cr_assert_eq(t->sw[1].opcode, OP_DUMP_DATA);
    cr_assert_eq(t->sw[1].data[2], 3);
    msg_t r = {.opcode = OP_INIT_RECOV_RESP, .src = MN, .dst = 0, .subject = 3};
    dir_drv_sw_send(t->d, &r);
    msg_t got = expect(t, OP_INIT_RECOV_RESP, 0);
    cr_assert_eq(got.subject, 3);
    settle(t);
    done(t);
}

Test(dir_ctrl, csr_out_of_map_is_refused)
{
    tctx_t *t = mk();
    bool err = false;
    dir_drv_csr(t->d, DIR_CSR_FAILED + 1, &err);
    cr_assert(err);
    dir_drv_csr(t->d, DIR_CSR_FAILED, &err);
    cr_assert(!err);
    done(t);
}

/* ---------------------------------------------------------------------------------------------
 * The management port (recovery, paper Algorithm 1; section 11c): FAIL, WALK, RECOVER, RESUME.
 * The test plays the MN's recovery handler. */

/* Sends a command; steps until an answer of that kind arrives (the first not yet consumed). */
static dir_mg_rsp_t mg_expect(tctx_t *t, dir_mg_rsp_e kind)
{
    for (int i = 0; i < 200000; i++) {
        for (size_t k = t->mg_seen; k < dir_drv_mg_rsps(t->d); k++) {
            const dir_mg_rsp_t *r = dir_drv_mg_rsp(t->d, k);
            cr_assert_eq(r->kind, kind, "management answer %zu is of kind %u, expected %u (line 0x%llx)", k, r->kind,
                         kind, (unsigned long long)r->line);
            t->mg_seen = k + 1;
            return *r;
        }
        step(t);
    }
    cr_assert_fail("no management answer of kind %u after 200000 cycles", kind);
    return (dir_mg_rsp_t){0};
}

static void mg_cmd(tctx_t *t, dir_mg_op_e op, unsigned cn, uint64_t line, uint8_t wmask, const uint64_t *data)
{
    dir_mg_cmd_t c = {.op = op, .cn = cn, .line = line, .wmask = wmask};
    if (data)
        memcpy(c.data, data, sizeof c.data);
    dir_drv_mg_send(t->d, &c);
}

/* FAIL(cn): answered DONE. */
static void mg_fail(tctx_t *t, unsigned cn)
{
    mg_cmd(t, DIR_MG_FAIL, cn, 0, 0, NULL);
    mg_expect(t, DIR_MR_DONE);
}

/* The answers of a WALK given: the OWNED lines (sorted as reported, at most max) and the walk's
 * cycles. */
static size_t mg_walked(tctx_t *t, uint64_t *owned, size_t max, uint32_t *cycles)
{
    size_t n = 0;
    for (int i = 0; i < 400000; i++) {
        if (t->mg_seen < dir_drv_mg_rsps(t->d)) {
            const dir_mg_rsp_t *r = dir_drv_mg_rsp(t->d, t->mg_seen++);
            if (r->kind == DIR_MR_WALKED) {
                *cycles = r->count;
                return n;
            }
            cr_assert_eq(r->kind, DIR_MR_OWNED, "answer of kind %u during a walk", r->kind);
            cr_assert_lt(n, max, "more OWNED lines than expected");
            owned[n++] = r->line;
            continue;
        }
        step(t);
    }
    cr_assert_fail("the walk did not end in 400000 cycles");
    return 0;
}

/* WALK: its answers (mg_walked). */
static size_t mg_walk(tctx_t *t, uint64_t *owned, size_t max, uint32_t *cycles)
{
    mg_cmd(t, DIR_MG_WALK, 0, 0, 0, NULL);
    return mg_walked(t, owned, max, cycles);
}

static tctx_t *mk_rec(const dir_model_ops_t *ops, uint32_t lines)
{
    dir_drv_cfg_t cfg = dir_drv_cfg_default();
    cfg.mem_latency_ps = 20000;
    cfg.lines = lines;
    return mk_cfg(ops, &cfg);
}

static void expect_entry(tctx_t *t, uint32_t l, unsigned st, uint32_t vec, uint32_t stale)
{
    dir_entry_t e;
    dir_drv_entry_peek(t->d, l, &e);
    cr_assert(e.state == st && e.vec == vec && e.stale == stale,
              "entry of line %u: state %u vector 0x%x stale 0x%x; expected %u 0x%x 0x%x", l, e.state, e.vec, e.stale,
              st, vec, stale);
}

/* RECOVER line with the words of wmask and, with set_ts, version ts. */
static void mg_recover(tctx_t *t, uint64_t line, uint8_t wmask, const uint64_t *data, bool set_ts, unsigned ts)
{
    dir_mg_cmd_t c = {.op = DIR_MG_RECOVER, .line = line, .wmask = wmask, .set_ts = set_ts, .ts = (uint8_t)ts};
    memcpy(c.data, data, sizeof c.data);
    dir_drv_mg_send(t->d, &c);
}

/* GIVEN helper: CN o owns line a, granted with version ver (its write-back with ver, then RD_OWN). */
static void own_at_version(tctx_t *t, unsigned o, uint64_t a, unsigned ver)
{
    make_em(t, o, a);
    msg_t wb = {.opcode = OP_DIRTY_EVICT, .src = (uint8_t)o, .dst = (uint8_t)t->cfg.node_id, .core = 1, .tag = 3,
                .addr = a, .mask = 0xff, .ts = (uint8_t)ver};
    line_fill(wb.data, 0x900 + a);
    send_msg(t, &wb);
    expect(t, OP_CMP, o);
    settle(t);
    req(t, OP_RD_OWN, o, a);
    msg_t g = expect(t, OP_DATA_E, o);
    cr_assert_eq(g.ts, ver, "line %llu granted with version %u, expected %u", (unsigned long long)a, g.ts, ver);
    settle(t);
}

Test(dir_ctrl, recovery_walk_removes_a_failed_sharer_and_reports_its_owned_lines)
{
    tctx_t *t = mk_rec(&dir_ops_default, 64);
    uint64_t old[8], rec[8];
    line_fill(old, 0x80);
    line_fill(rec, 0xee);
    dir_drv_mem_poke(t->d, 8, 0xff, old);
    /* GIVEN line 4 S{1,2}, line 8 EM(1), line 9 EM(2), line 12 S{1}, line 13 EM(1) (the entries
     * in the directory cache, not yet in DRAM) */
    make_s12(t, 4);
    make_em(t, 1, 8);
    make_em(t, 2, 9);
    req(t, OP_RD_SHARED, 1, 12);
    expect(t, OP_DATA_E, 1);
    settle(t);
    req(t, OP_RD_SHARED, 2, 12);
    msg_t s = expect(t, OP_BISNP_DATA, 1);
    send_full(t, OP_BIRSP_S, 1, 12, 0, NULL, 0, s.tag);
    expect(t, OP_DATA_S, 2); /* 12: S{1,2} */
    settle(t);
    req(t, OP_CLEAN_EVICT, 2, 12);
    expect(t, OP_CMP, 2); /* 12: S{1} */
    settle(t);
    make_em(t, 1, 13);
    expect_entry(t, 4, DIR_I, 0, 0); /* all still in the cache only */
    /* WHEN the handler declares CN 1 failed and walks the directory */
    mg_fail(t, 1);
    cr_assert_eq(csr(t, DIR_CSR_FAILED), 1u << 1);
    uint64_t owned[8];
    uint32_t cyc = 0;
    size_t n = mg_walk(t, owned, 8, &cyc);
    /* THEN the lines CN 1 owned are reported, in directory order, and CN 1 leaves every sharer
     * vector (line 12 becomes I); other entries are as they were */
    cr_assert_eq(n, 2, "%zu OWNED lines", n);
    cr_assert_eq(owned[0], 8);
    cr_assert_eq(owned[1], 13);
    expect_entry(t, 4, DIR_S, 1u << 2, 0);
    expect_entry(t, 8, DIR_EM, 1u << 1, 0);
    expect_entry(t, 9, DIR_EM, 1u << 2, 0);
    expect_entry(t, 12, DIR_I, 0, 0);
    expect_entry(t, 13, DIR_EM, 1u << 1, 0);
    /* AND the walk's time is counted: the cache flush (256 x 4) and 16 directory lines */
    cr_assert_geq(cyc, 256 * 4 + 16, "TravDir %u cycles", cyc);
    cr_assert_eq(csr(t, DIR_CSR_TRAV_DIR), cyc);
    cr_assert_eq(csr(t, DIR_CSR_WALK_LINES), 16);
    cr_assert_eq(csr(t, DIR_CSR_WALK_SH), 2);
    cr_assert_eq(csr(t, DIR_CSR_OWNED), 2);
    /* WHEN the handler recovers words 0..3 of line 8 and resumes */
    mg_cmd(t, DIR_MG_RECOVER, 0, 8, 0x0f, rec);
    dir_mg_rsp_t r = mg_expect(t, DIR_MR_RECOVERED);
    cr_assert_eq(r.line, 8);
    mg_cmd(t, DIR_MG_RESUME, 0, 0, 0, NULL);
    mg_expect(t, DIR_MR_DONE);
    /* THEN memory holds the recovered words and the old others, and the line has no owner: CN 3
     * reads it for ownership without a snoop */
    uint64_t want[8];
    for (unsigned w = 0; w < 8; w++)
        want[w] = w < 4 ? rec[w] : old[w];
    req(t, OP_RD_OWN, 3, 8);
    expect_data((msg_t[]){expect(t, OP_DATA_E, 3)}, want);
    settle(t);
    expect_mem(t, 8, want);
    cr_assert_eq(csr(t, DIR_CSR_RECOVERED), 1);
    /* AND a request from the failed CN is refused */
    req(t, OP_RD_SHARED, 1, 20);
    settle(t);
    expect_viol(t, 1, DIR_VIOL_BAD_MSG, OP_RD_SHARED, 1);
    cr_assert_eq(csr(t, DIR_CSR_SNOOPS), 2, "a snoop went to the failed CN");
    done(t);
}

static void a_transaction_held_on_a_failed_owner_is_released_by_recover(const dir_model_ops_t *ops)
{
    tctx_t *t = mk_rec(ops, 64);
    uint64_t rec[8];
    line_fill(rec, 0x5a);
    own_at_version(t, 1, 8, 5);
    /* GIVEN EM(1), granted with version 5, and CN 2's read of line 8 snooping CN 1, and CN 3's read
     * for ownership behind it */
    req(t, OP_RD_SHARED, 2, 8);
    expect(t, OP_BISNP_DATA, 1);
    req(t, OP_RD_OWN, 3, 8);
    for (int i = 0; i < 200; i++)
        step(t);
    /* WHEN CN 1 fails before it answers, and the handler walks */
    mg_fail(t, 1);
    uint64_t owned[4];
    uint32_t cyc;
    size_t n = mg_walk(t, owned, 4, &cyc);
    /* THEN line 8 is reported owned, and no read has been answered */
    cr_assert_eq(n, 1);
    cr_assert_eq(owned[0], 8);
    for (size_t k = 0; k < t->nrx; k++)
        cr_assert(msg_class(t->rx[k].opcode) != CLS_DRS || t->rx[k].dst == 1, "%s to %u before the recovery",
                  msg_name(t->rx[k].opcode), t->rx[k].dst);
    /* WHEN the handler recovers the line */
    mg_cmd(t, DIR_MG_RECOVER, 0, 8, 0xff, rec);
    cr_assert_eq(mg_expect(t, DIR_MR_RECOVERED).line, 8);
    /* THEN CN 2's read goes on as if CN 1 had answered I: the recovered line, granted E, with the
     * entry's version (the RECOVER carried none) */
    msg_t g = expect(t, OP_DATA_E, 2);
    expect_data(&g, rec);
    cr_assert_eq(g.ts, 5, "granted with version 0x%x, expected the entry's 5", g.ts);
    /* AND CN 3's waiting read for ownership comes next and snoops CN 2, the new owner */
    msg_t s = expect(t, OP_BISNP_INV, 2);
    send_full(t, OP_BIRSP_I, 2, 8, 0, NULL, 0, s.tag);
    expect_data((msg_t[]){expect(t, OP_DATA_E, 3)}, rec);
    mg_cmd(t, DIR_MG_RESUME, 0, 0, 0, NULL);
    mg_expect(t, DIR_MR_DONE);
    settle(t);
    expect_mem(t, 8, rec);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}
Test(dir_ctrl, recovery_a_transaction_held_on_a_failed_owner_is_released_by_recover)
{
    a_transaction_held_on_a_failed_owner_is_released_by_recover(&dir_ops_default);
}

/* A RECOVER that needs a transaction of its own while held transactions fill the table is answered
 * BUSY (the RECOVERs behind it release them); sent again once they are released, it is carried
 * out. Waiting for a free entry would hold the port for ever (a recovery make faults once stalled
 * in: the MN waiting for RECOVER answers, its table full). */
static void recover_busy(const dir_model_ops_t *ops)
{
    tctx_t *t = mk_rec(ops, 64);
    const uint64_t n = ops->txn_entries;
    uint64_t rec[8];
    line_fill(rec, 0x77);
    /* GIVEN CN 1 owning lines 0 .. n, and CN 2 reading lines 1 .. n: n reads snooping CN 1, the
     * table full */
    for (uint64_t a = 0; a <= n; a++)
        make_em(t, 1, a);
    for (uint64_t a = 1; a <= n; a++)
        send_full(t, OP_RD_SHARED, 2, a, 0, NULL, 0, (unsigned)(16 + a));
    for (uint64_t a = 1; a <= n; a++)
        expect(t, OP_BISNP_DATA, 1);
    cr_assert_eq(csr(t, DIR_CSR_IN_USE), n);
    /* WHEN CN 1 fails before it answers, and the handler walks */
    mg_fail(t, 1);
    uint64_t owned[32];
    uint32_t cyc;
    cr_assert_eq(mg_walk(t, owned, 32, &cyc), n + 1);
    cr_assert_eq(owned[0], 0);
    /* THEN the RECOVER of line 0, which no transaction holds, is answered BUSY: the table is full */
    mg_cmd(t, DIR_MG_RECOVER, 0, 0, 0xff, rec);
    cr_assert_eq(mg_expect(t, DIR_MR_BUSY).line, 0);
    /* AND the RECOVERs of the held lines release their reads, which get the recovered line */
    for (uint64_t a = 1; a <= n; a++) {
        mg_cmd(t, DIR_MG_RECOVER, 0, a, 0xff, rec);
        cr_assert_eq(mg_expect(t, DIR_MR_RECOVERED).line, a);
    }
    for (uint64_t a = 1; a <= n; a++)
        expect_data((msg_t[]){expect(t, OP_DATA_E, 2)}, rec);
    settle(t);
    /* AND line 0's RECOVER, sent again, is carried out */
    mg_cmd(t, DIR_MG_RECOVER, 0, 0, 0xff, rec);
    cr_assert_eq(mg_expect(t, DIR_MR_RECOVERED).line, 0);
    mg_cmd(t, DIR_MG_RESUME, 0, 0, 0, NULL);
    mg_expect(t, DIR_MR_DONE);
    settle(t);
    expect_mem(t, 0, rec);
    /* AND line 0 has no owner: CN 3 reads it for ownership without a snoop */
    req(t, OP_RD_OWN, 3, 0);
    expect_data((msg_t[]){expect(t, OP_DATA_E, 3)}, rec);
    settle(t);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}

Test(dir_ctrl, recovery_a_recover_finding_the_table_full_is_answered_busy)
{
    recover_busy(&dir_ops_default);
    recover_busy(&dir_ops_small);
}

Test(dir_ctrl, recovery_a_cn_failing_while_the_walk_waits_is_taken_and_walked_too)
{
    tctx_t *t = mk_rec(&dir_ops_default, 64);
    uint64_t rec[8];
    line_fill(rec, 0x77);
    /* GIVEN EM(1) on line 8, EM(2) on line 9, and CN 3's read of line 9 snooping CN 2 */
    make_em(t, 1, 8);
    make_em(t, 2, 9);
    req(t, OP_RD_SHARED, 3, 9);
    expect(t, OP_BISNP_DATA, 2);
    /* WHEN CN 1 is declared failed and the walk asked for, while CN 2, failed too but not yet
     * declared, never answers THEN the walk waits for quiet */
    mg_fail(t, 1);
    mg_cmd(t, DIR_MG_WALK, 0, 0, 0, NULL);
    for (int i = 0; i < 2000; i++)
        step(t);
    cr_assert_eq(dir_drv_mg_rsps(t->d), t->mg_seen, "the walk went on with a transaction waiting for CN 2");
    /* WHEN the handler declares CN 2 failed meanwhile THEN the FAIL is taken and answered, and the
     * walk goes on: both CNs' lines are reported, CN 3's read held on line 9 */
    mg_fail(t, 2);
    cr_assert_eq(csr(t, DIR_CSR_FAILED), 3u << 1);
    uint64_t owned[4];
    uint32_t cyc;
    size_t n = mg_walked(t, owned, 4, &cyc);
    cr_assert(n == 2 && owned[0] == 8 && owned[1] == 9, "%zu OWNED lines", n);
    /* WHEN line 9 is recovered THEN CN 3's read goes on with it */
    mg_cmd(t, DIR_MG_RECOVER, 0, 9, 0xff, rec);
    cr_assert_eq(mg_expect(t, DIR_MR_RECOVERED).line, 9);
    expect_data((msg_t[]){expect(t, OP_DATA_E, 3)}, rec);
    mg_cmd(t, DIR_MG_RECOVER, 0, 8, 0xff, rec);
    cr_assert_eq(mg_expect(t, DIR_MR_RECOVERED).line, 8);
    mg_cmd(t, DIR_MG_RESUME, 0, 0, 0, NULL);
    mg_expect(t, DIR_MR_DONE);
    settle(t);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}

Test(dir_ctrl, recovery_a_failed_sharers_snoop_answer_is_taken_as_birsp_i)
{
    tctx_t *t = mk_rec(&dir_ops_default, 64);
    uint64_t v[8];
    line_fill(v, 0x44);
    dir_drv_mem_poke(t->d, 4, 0xff, v);
    make_s12(t, 4);
    /* GIVEN S{1,2} and CN 3's read for ownership snooping both; CN 2 answers */
    req(t, OP_RD_OWN, 3, 4);
    expect(t, OP_BISNP_INV, 1);
    msg_t s2 = expect(t, OP_BISNP_INV, 2);
    send_full(t, OP_BIRSP_I, 2, 4, 0, NULL, 0, s2.tag);
    for (int i = 0; i < 200; i++)
        step(t);
    /* WHEN CN 1 fails without answering THEN the directory takes its answer as BIRSP_I (a
     * shared copy is clean) and CN 3 gets the line */
    mg_fail(t, 1);
    expect_data((msg_t[]){expect(t, OP_DATA_E, 3)}, v);
    cr_assert_eq(csr(t, DIR_CSR_PURGED), 1);
    /* AND the walk finds nothing of CN 1's left */
    uint64_t owned[2];
    uint32_t cyc;
    cr_assert_eq(mg_walk(t, owned, 2, &cyc), 0);
    expect_entry(t, 4, DIR_EM, 1u << 3, 0);
    mg_cmd(t, DIR_MG_RESUME, 0, 0, 0, NULL);
    mg_expect(t, DIR_MR_DONE);
    settle(t);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}

Test(dir_ctrl, recovery_a_failed_cns_requests_are_dropped_unanswered)
{
    tctx_t *t = mk_rec(&dir_ops_default, 64);
    make_em(t, 2, 8);
    /* GIVEN EM(2), CN 3's read snooping CN 2, and CN 1's read for ownership waiting behind it */
    req(t, OP_RD_SHARED, 3, 8);
    msg_t s = expect(t, OP_BISNP_DATA, 2);
    req(t, OP_RD_OWN, 1, 8);
    for (int i = 0; i < 200; i++)
        step(t);
    /* WHEN CN 1 fails, and CN 1 sends one more request (still on the link: it waits in the receive
     * FIFO while the recovery holds new requests) */
    mg_fail(t, 1);
    req(t, OP_RD_SHARED, 1, 9);
    send_full(t, OP_BIRSP_I, 2, 8, 0, NULL, 0, s.tag);
    /* THEN CN 3 is served, CN 1's waiting request is dropped unanswered, nothing of CN 1's is owned */
    expect(t, OP_DATA_E, 3);
    uint64_t owned[2];
    uint32_t cyc;
    cr_assert_eq(mg_walk(t, owned, 2, &cyc), 0);
    expect_entry(t, 8, DIR_EM, 1u << 3, 0);
    cr_assert_eq(csr(t, DIR_CSR_VOIDED), 1);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    /* AND after RESUME its request left in the FIFO is refused (BAD_MSG), never served */
    mg_cmd(t, DIR_MG_RESUME, 0, 0, 0, NULL);
    mg_expect(t, DIR_MR_DONE);
    settle(t);
    expect_viol(t, 1, DIR_VIOL_BAD_MSG, OP_RD_SHARED, 1);
    done(t);
}

Test(dir_ctrl, recovery_recover_of_a_line_no_failed_cn_owns_changes_nothing)
{
    dir_drv_cfg_t cfg = dir_drv_cfg_default();
    cfg.mem_latency_ps = 20000;
    cfg.lines = 64;
    cfg.mn_shift = 1; /* two MNs, line by line: this one (0) holds the even lines */
    cfg.scr_hi = 100; /* lines 100 and above are LNR */
    tctx_t *t = mk_cfg(&dir_ops_default, &cfg);
    uint64_t v[8], rec[8];
    line_fill(v, 0x33);
    line_fill(rec, 0x99);
    make_em(t, 2, 18); /* local line 9 */
    dir_drv_mem_poke(t->d, 9, 0xff, v);
    mg_fail(t, 1);
    /* WHEN the handler recovers a line CN 2 (alive) owns THEN NOT_OWNED, memory and entry unchanged */
    mg_cmd(t, DIR_MG_RECOVER, 0, 18, 0xff, rec);
    cr_assert_eq(mg_expect(t, DIR_MR_NOT_OWNED).line, 18);
    expect_mem(t, 9, v);
    /* AND a line of the other MN, and an LNR line, are refused */
    mg_cmd(t, DIR_MG_RECOVER, 0, 19, 0xff, rec);
    cr_assert_eq(mg_expect(t, DIR_MR_REFUSED).line, 19);
    mg_cmd(t, DIR_MG_RECOVER, 0, 102, 0xff, rec);
    cr_assert_eq(mg_expect(t, DIR_MR_REFUSED).line, 102);
    cr_assert_eq(csr(t, DIR_CSR_NOT_OWNED), 1);
    mg_cmd(t, DIR_MG_RESUME, 0, 0, 0, NULL);
    mg_expect(t, DIR_MR_DONE);
    /* AND CN 2 still owns line 18: a read snoops it */
    req(t, OP_RD_SHARED, 3, 18);
    msg_t s = expect(t, OP_BISNP_DATA, 2);
    send_full(t, OP_BIRSP_I, 2, 18, 0, NULL, 0, s.tag);
    expect_data((msg_t[]){expect(t, OP_DATA_E, 3)}, v);
    settle(t);
    done(t);
}

/* RECOVER with a version (section 11b, 11c): the failed owner's commits advanced the line's version
 * past the one it was granted, and the logs hold those versions; the handler passes the newest, and
 * the line's next owner must build on it. */
static void recover_with_a_version_sets_an_owned_lines_version(const dir_model_ops_t *ops)
{
    tctx_t *t = mk_rec(ops, 64);
    uint64_t rec[8], rec2[8];
    line_fill(rec, 0x71);
    line_fill(rec2, 0x72);
    /* GIVEN lines 8 and 13 owned by CN 1, both granted with version 5; CN 1's commits to line 8
     * went on up to version 0x6d (in the logs) */
    own_at_version(t, 1, 8, 5);
    own_at_version(t, 1, 13, 5);
    /* WHEN CN 1 fails, the handler walks, recovers line 8 with version 0x6d and line 13 without
     * one, and resumes */
    mg_fail(t, 1);
    uint64_t owned[4];
    uint32_t cyc;
    cr_assert_eq(mg_walk(t, owned, 4, &cyc), 2);
    mg_recover(t, 8, 0xff, rec, true, 0x6d);
    cr_assert_eq(mg_expect(t, DIR_MR_RECOVERED).line, 8);
    mg_recover(t, 13, 0xff, rec2, false, 0x22);
    cr_assert_eq(mg_expect(t, DIR_MR_RECOVERED).line, 13);
    mg_cmd(t, DIR_MG_RESUME, 0, 0, 0, NULL);
    mg_expect(t, DIR_MR_DONE);
    /* THEN line 8's next grant carries version 0x6d with the recovered line (the new owner's first
     * commit is 0x6e, newer than every version the logs hold) */
    req(t, OP_RD_OWN, 3, 8);
    msg_t g = expect(t, OP_DATA_E, 3);
    expect_data(&g, rec);
    cr_assert_eq(g.ts, 0x6d, "line 8 granted with version 0x%x after RECOVER with 0x6d", g.ts);
    /* AND line 13, recovered without a version, keeps the entry's (the one CN 1 was granted) */
    req(t, OP_RD_SHARED, 3, 13);
    g = expect(t, OP_DATA_E, 3);
    expect_data(&g, rec2);
    cr_assert_eq(g.ts, 5, "line 13 granted with version 0x%x after RECOVER without one", g.ts);
    settle(t);
    cr_assert_eq(csr(t, DIR_CSR_RECOVERED), 2);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}
Test(dir_ctrl, recovery_recover_with_a_version_sets_an_owned_lines_version)
{
    recover_with_a_version_sets_an_owned_lines_version(&dir_ops_default);
}

static void recover_with_a_version_releases_a_held_read_with_it(const dir_model_ops_t *ops)
{
    tctx_t *t = mk_rec(ops, 64);
    uint64_t rec[8];
    line_fill(rec, 0x4a);
    /* GIVEN line 8 owned by CN 1, granted with version 5, CN 2's read of it snooping CN 1, and CN 3's
     * read for ownership behind it; CN 1 fails before it answers, the walk reports line 8 */
    own_at_version(t, 1, 8, 5);
    req(t, OP_RD_SHARED, 2, 8);
    expect(t, OP_BISNP_DATA, 1);
    req(t, OP_RD_OWN, 3, 8);
    for (int i = 0; i < 200; i++)
        step(t);
    mg_fail(t, 1);
    uint64_t owned[4];
    uint32_t cyc;
    cr_assert_eq(mg_walk(t, owned, 4, &cyc), 1);
    cr_assert_eq(owned[0], 8);
    /* WHEN the handler recovers the line with version 0x4a (CN 1's last commit) */
    mg_recover(t, 8, 0xff, rec, true, 0x4a);
    cr_assert_eq(mg_expect(t, DIR_MR_RECOVERED).line, 8);
    /* THEN CN 2's held read is granted E with the recovered line and that version */
    msg_t g = expect(t, OP_DATA_E, 2);
    expect_data(&g, rec);
    cr_assert_eq(g.ts, 0x4a, "the held read granted with version 0x%x after RECOVER with 0x4a", g.ts);
    /* AND the entry keeps it: CN 2 answers CN 3's snoop without data (no commit), and CN 3's grant
     * carries 0x4a too */
    msg_t s = expect(t, OP_BISNP_INV, 2);
    send_full(t, OP_BIRSP_I, 2, 8, 0, NULL, 0, s.tag);
    g = expect(t, OP_DATA_E, 3);
    expect_data(&g, rec);
    cr_assert_eq(g.ts, 0x4a, "the next grant carries version 0x%x, expected 0x4a", g.ts);
    mg_cmd(t, DIR_MG_RESUME, 0, 0, 0, NULL);
    mg_expect(t, DIR_MR_DONE);
    settle(t);
    expect_mem(t, 8, rec);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}
Test(dir_ctrl, recovery_recover_with_a_version_releases_a_held_read_with_it)
{
    recover_with_a_version_releases_a_held_read_with_it(&dir_ops_default);
}

/* The walk over a directory larger than its cache, with entries spread over it: owned lines
 * reported with their global addresses (MN 1 of four, chunks of two lines), every entry right in
 * DRAM afterwards. */
static void walk_many(const dir_model_ops_t *ops)
{
    dir_drv_cfg_t cfg = dir_drv_cfg_default();
    cfg.mem_latency_ps = 20000;
    cfg.lines = 203; /* not a multiple of four: the last directory line is partly used */
    cfg.mn_shift = 2;
    cfg.gran_shift = 1;
    cfg.mn_idx = 1;
    cfg.node_id = MSG_MN_BASE + 1;
    tctx_t *t = mk_cfg(ops, &cfg);
    /* GIVEN every 7th local line owned by CN 5, every 5th shared by CNs 5 and 6 (not owned) */
    uint64_t want_owned[64];
    size_t nwant = 0;
    for (uint32_t l = 0; l < cfg.lines; l++) {
        uint64_t g = dir_addr_global(l, 1, 2, 1);
        if (l % 7 == 0) {
            make_em(t, 5, g);
            want_owned[nwant++] = g;
        } else if (l % 5 == 0) {
            make_s(t, 6, 5, g);
        }
    }
    /* WHEN CN 5 fails and the handler walks */
    mg_fail(t, 5);
    uint64_t owned[64];
    uint32_t cyc;
    size_t n = mg_walk(t, owned, 64, &cyc);
    /* THEN every line CN 5 owned is reported, once, in local order; sharers lost CN 5 */
    cr_assert_eq(n, nwant, "%zu OWNED, expected %zu", n, nwant);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(owned[i], want_owned[i], "OWNED %zu: line 0x%llx, expected 0x%llx", i,
                     (unsigned long long)owned[i], (unsigned long long)want_owned[i]);
    for (uint32_t l = 0; l < cfg.lines; l++) {
        if (l % 7 == 0)
            expect_entry(t, l, DIR_EM, 1u << 5, 0);
        else if (l % 5 == 0)
            expect_entry(t, l, DIR_S, 1u << 6, 0);
        else
            expect_entry(t, l, DIR_I, 0, 0);
    }
    cr_assert_eq(csr(t, DIR_CSR_WALK_LINES), 51);
    cr_assert_geq(cyc, ops->dc_sets * ops->dc_ways + 51, "TravDir %u cycles", cyc);
    mg_cmd(t, DIR_MG_RESUME, 0, 0, 0, NULL);
    mg_expect(t, DIR_MR_DONE);
    settle(t);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}

Test(dir_ctrl, recovery_walk_covers_every_line_with_global_addresses, .timeout = 120) { walk_many(&dir_ops_default); }
Test(dir_ctrl, recovery_walk_with_a_small_table_and_cache, .timeout = 120) { walk_many(&dir_ops_small); }

/* The walk's pace (TravDir, paper section V's sequential prefetching): WalkReads directory lines
 * read ahead of the scan, a line whose entries need nothing scanned in one cycle, so a walk over
 * L directory lines after the cache flush takes about L / WalkReads DRAM latencies; a line that
 * needs something costs a cycle per entry that does. */
static void walk_pace(const dir_model_ops_t *ops, uint64_t lat_ps)
{
    dir_drv_cfg_t cfg = dir_drv_cfg_default();
    cfg.mem_latency_ps = lat_ps;
    cfg.lines = 8192; /* 2 048 directory lines */
    tctx_t *t = mk_cfg(ops, &cfg);
    /* GIVEN CN 3 sharing every 64th line with CN 4 (their entries must lose CN 3) */
    unsigned nsh = 0;
    for (uint32_t l = 0; l < cfg.lines; l += 64, nsh++)
        make_s(t, 4, 3, l);
    /* WHEN CN 3 fails and the handler walks */
    mg_fail(t, 3);
    uint64_t owned[1];
    uint32_t cyc;
    cr_assert_eq(mg_walk(t, owned, 1, &cyc), 0);
    /* THEN every shared entry lost CN 3, and the walk took the flush and about lines / WalkReads
     * DRAM latencies: never less (WalkReads reads in flight at most), and at most a cycle a line
     * (the scan) or WalkReads lines per latency and 4 cycles (a read's way through the memory
     * queue, the answer into the walk queue, the scan), plus the first read and a cycle per
     * changed entry */
    for (uint32_t l = 0; l < cfg.lines; l += 64)
        expect_entry(t, l, DIR_S, 1u << 4, 0);
    cr_assert_eq(csr(t, DIR_CSR_WALK_LINES), cfg.lines / 4);
    cr_assert_eq(csr(t, DIR_CSR_WALK_SH), nsh);
    const uint64_t dlines = cfg.lines / 4, lat = lat_ps / cfg.period_ps, flush = ops->dc_sets * ops->dc_ways;
    const uint64_t lo = flush + dlines * lat / ops->walk_reads;
    const uint64_t per = lat + 4 > ops->walk_reads ? lat + 4 : ops->walk_reads; /* per WalkReads lines */
    const uint64_t hi = flush + dlines * per / ops->walk_reads + lat + 2 * nsh + 64;
    cr_log_info("walk_pace %s, %llu ps: TravDir %u cycles, bounds [%llu, %llu]", ops->name, (unsigned long long)lat_ps,
                cyc, (unsigned long long)lo, (unsigned long long)hi);
    cr_assert(cyc >= lo && cyc <= hi, "%s, DRAM latency %llu ps: TravDir %u cycles over %llu directory lines, "
              "expected %llu to %llu", ops->name, (unsigned long long)lat_ps, cyc, (unsigned long long)dlines,
              (unsigned long long)lo, (unsigned long long)hi);
    mg_cmd(t, DIR_MG_RESUME, 0, 0, 0, NULL);
    mg_expect(t, DIR_MR_DONE);
    settle(t);
    cr_assert_eq(dir_drv_viols(t->d), 0);
    done(t);
}

Test(dir_ctrl, recovery_walk_streams_its_reads_ahead_of_a_line_a_cycle_scan, .timeout = 120)
{
    walk_pace(&dir_ops_default, 45000); /* Table II's DRAM: 16 ahead, about 2.8 cycles a line */
    walk_pace(&dir_ops_default, 8000);  /* reads outrun the scan: about a cycle a line */
    walk_pace(&dir_ops_small, 20000);   /* one read ahead: a latency a line */
}

/* ---------------------------------------------------------------------------------------------
 * The scenario of the saved GTKWave view (waves/dir_ctrl.gtkw, `make waves-dir`; csim/gen/dir_scn.c,
 * which the program tracing the view runs too), message by message, so that the view cannot
 * silently show something else. */
#include "gen/dir_scn.h"

Test(dir_ctrl, rdx_scenario_of_the_waves_view)
{
    static dir_scn_t s;
    /* GIVEN line 0x2a5 read shared by CNs 1, 2, 3 WHEN CN 4 reads it for ownership */
    int rc = dir_scn_rdx(&dir_ops_default, NULL, &s);
    cr_assert_eq(rc, 0, "the scenario did not complete: %s", s.err);
    static const struct {
        bool to_dir;
        msg_op_t op;
        unsigned src, dst;
    } want[] = {
        {true, OP_RD_SHARED, 1, MN},  {false, OP_DATA_E, MN, 1},                                  /* I_RdS */
        {true, OP_RD_SHARED, 2, MN},  {false, OP_BISNP_DATA, MN, 1}, {true, OP_BIRSP_S, 1, MN}, /* EM_RdS */
        {false, OP_DATA_S, MN, 2},    {true, OP_RD_SHARED, 3, MN},   {false, OP_DATA_S, MN, 3}, /* S_RdS */
        {true, OP_RD_OWN, 4, MN},                                                               /* S_RdOwn */
        {false, OP_BISNP_INV, MN, 1}, {false, OP_BISNP_INV, MN, 2},  {false, OP_BISNP_INV, MN, 3},
        {true, OP_BIRSP_I, 1, MN},    {true, OP_BIRSP_I, 2, MN},     {true, OP_BIRSP_I, 3, MN},
        {false, OP_DATA_E, MN, 4},
    };
    const size_t n = sizeof want / sizeof want[0];
    /* THEN the link carries exactly these messages, in this order, all about the line */
    for (size_t i = 0; i < s.nmsg && i < n; i++) {
        const dir_scn_msg_t *x = &s.msg[i];
        cr_assert(x->to_dir == want[i].to_dir && x->m.opcode == want[i].op && x->m.src == want[i].src &&
                      x->m.dst == want[i].dst,
                  "message %zu (cycle %llu): %s %s %u -> %u, expected %s %s %u -> %u", i,
                  (unsigned long long)x->cycle, x->to_dir ? "in" : "out", msg_name(x->m.opcode), x->m.src,
                  x->m.dst, want[i].to_dir ? "in" : "out", msg_name(want[i].op), want[i].src, want[i].dst);
        cr_assert_eq(x->m.addr, DIR_SCN_LINE, "message %zu: line 0x%llx", i, (unsigned long long)x->m.addr);
        if (i)
            cr_assert_geq(x->cycle, s.msg[i - 1].cycle, "message %zu before message %zu", i, i - 1);
    }
    cr_assert_eq(s.nmsg, n, "%zu messages, expected %zu", s.nmsg, n);
    /* AND each answer echoes its request's tag */
    cr_assert_eq(s.msg[1].m.tag, s.msg[0].m.tag);
    cr_assert_eq(s.msg[4].m.tag, s.msg[3].m.tag);
    cr_assert_eq(s.msg[5].m.tag, s.msg[2].m.tag);
    cr_assert_eq(s.msg[7].m.tag, s.msg[6].m.tag);
    cr_assert_eq(s.msg[15].m.tag, s.msg[8].m.tag);
    /* AND the read for ownership is transaction entry 0 (the entry the view shows: a BISNP's tag is
     * its transaction's index); its three BISNP_INVs leave on consecutive cycles, lowest CN first,
     * and each BIRSP_I echoes its snoop's tag */
    cr_assert_eq(s.rdx, 8);
    for (unsigned k = 0; k < DIR_SCN_SHARERS; k++) {
        cr_assert_eq(s.msg[9 + k].m.tag, 0, "BISNP_INV to CN %u names entry %u", k + 1, s.msg[9 + k].m.tag);
        cr_assert_eq(s.msg[9 + k].cycle, s.msg[9].cycle + k);
        cr_assert_eq(s.msg[12 + k].m.tag, s.msg[9 + k].m.tag);
    }
    /* AND memory is read alongside the snoops: the read leaves before the first answer arrives */
    cr_assert(s.mem_rd_cycle > s.msg[8].cycle && s.mem_rd_cycle < s.msg[12].cycle,
              "memory read at cycle %llu, RD_OWN at %llu, first BIRSP_I at %llu", (unsigned long long)s.mem_rd_cycle,
              (unsigned long long)s.msg[8].cycle, (unsigned long long)s.msg[12].cycle);
    /* AND the last answer comes after the data (fixed-latency DRAM, presented a cycle later at most):
     * DATA_E waits for it, and carries memory's line */
    const uint64_t data_in = s.mem_rd_cycle + DIR_SCN_MEM_PS / s.period_ps + 1;
    cr_assert_gt(s.msg[14].cycle, data_in, "CN 3's BIRSP_I at cycle %llu, the data at %llu",
                 (unsigned long long)s.msg[14].cycle, (unsigned long long)data_in);
    cr_assert_gt(s.msg[15].cycle, s.msg[14].cycle);
    expect_data(&s.msg[15].m, s.line);
    /* AND the view's window covers the read for ownership and nothing before it */
    cr_assert_eq(s.from_cycle, s.msg[8].cycle - 2);
    cr_assert_eq(s.to_cycle, s.msg[15].cycle + 3);
    cr_assert_lt(s.msg[7].cycle, s.from_cycle);
    /* AND the counters: one S_RdOwn, four snoops (one BISNP_DATA, three BISNP_INV) and their answers,
     * no violation */
    cr_assert_eq(s.tr_s_rdown, 1);
    cr_assert_eq(s.snoops, 4);
    cr_assert_eq(s.birsps, 4);
    cr_assert_eq(s.viols, 0);
}

/* ---------------------------------------------------------------------------------------------
 * The random coherence tester (tb/sb/coh_tester, section 11c) with the RTL as every home: seeded
 * CN agents with small caches and a jittery link, every load checked against the last completed
 * write, single writer / multiple readers, memory against the shadow at quiescence, no violation.
 * Replay: TB_SEED=<seed> build/bin/run_tests --filter 'dir_ctrl/random_<preset>'. */
#include "sb/coh_home_rtl.h"
#include "tb_seed.h"

static void random_rtl_on(const char *suite, const dir_model_ops_t *model, const char *name, uint64_t dflt,
                          unsigned nseeds, uint64_t ops)
{
    uint64_t base = tb_seed(dflt);
    for (unsigned k = 0; k < nseeds; k++) {
        uint64_t seed = base + k;
        coh_cfg_t c;
        cr_assert(coh_cfg_preset(name, &c), "no preset %s", name);
        if (ops)
            c.ops = ops;
        char replay[200];
        snprintf(replay, sizeof replay, "TB_SEED=%llu build/bin/run_tests --filter '%s/random_%s'",
                 (unsigned long long)seed, suite, name);
        coh_tester_t t;
        coh_tester_init(&t, &c, seed, coh_home_rtl_make, (void *)model, replay);
        bool ok = coh_tester_run(&t);
        cr_assert(ok, "%s", t.msg);
        cr_assert_geq(t.st.ops_done, c.ops);
        cr_assert_gt(t.st.snoops, 0, "%s: no snoop", t.ctx);
        uint64_t stale = 0, waited = 0;
        for (unsigned h = 0; h < t.nhomes; h++) {
            bool err;
            stale += dir_drv_csr(coh_home_rtl_drv(&t.homes[h]), DIR_CSR_STALE, &err);
            waited += dir_drv_csr(coh_home_rtl_drv(&t.homes[h]), DIR_CSR_WAITED, &err);
        }
        cr_assert_gt(waited, 0, "%s: no request waited behind another of its line", t.ctx);
        (void)stale;
        coh_tester_free(&t);
    }
}

static void random_rtl(const char *name, uint64_t dflt, unsigned nseeds, uint64_t ops)
{
    random_rtl_on("dir_ctrl", NULL, name, dflt, nseeds, ops);
}

Test(dir_ctrl, random_one_mn) { random_rtl("one_mn", 1, 2, 0); }
Test(dir_ctrl, random_four_mns) { random_rtl("four_mns", 11, 1, 0); }
Test(dir_ctrl, random_lnr) { random_rtl("lnr", 31, 1, 0); }
Test(dir_ctrl, random_small_table) { random_rtl("small_table", 41, 1, 0); }
Test(dir_ctrl, random_mixed_snoops) { random_rtl("mixed_snoops", 71, 1, 0); }
Test(dir_ctrl, random_hot_line) { random_rtl("hot_line", 91, 1, 0); }
Test(dir_ctrl, random_many_cns) { random_rtl("many_cns", 111, 1, 0); }

/* ---------------------------------------------------------------------------------------------
 * The synthesis form (dir_ctrl_synth: Verilated with SYNTHESIS defined, the form `make synth` maps:
 * its FIFOs and RAMs are ram_1r1w macros, and it never stalls, so no stalled cycle is skipped):
 * the random coherence tester with it as every home, and the RECOVERs, which read the transaction
 * data as a response does. The simulation form keeps some of its state otherwise (rtl/common/fifo.sv,
 * rtl/dir/dir_ctrl.sv): these tests are what says both forms are the same machine. */
Test(dir_ctrl_synth, random_one_mn) { random_rtl_on("dir_ctrl_synth", &dir_ops_synth, "one_mn", 1, 1, 0); }
Test(dir_ctrl_synth, random_four_mns) { random_rtl_on("dir_ctrl_synth", &dir_ops_synth, "four_mns", 11, 1, 0); }
Test(dir_ctrl_synth, random_hot_line) { random_rtl_on("dir_ctrl_synth", &dir_ops_synth, "hot_line", 91, 1, 0); }
Test(dir_ctrl_synth, random_lnr) { random_rtl_on("dir_ctrl_synth", &dir_ops_synth, "lnr", 31, 1, 0); }
Test(dir_ctrl_synth, recovery_a_transaction_held_on_a_failed_owner_is_released_by_recover)
{
    a_transaction_held_on_a_failed_owner_is_released_by_recover(&dir_ops_synth);
}
Test(dir_ctrl_synth, recovery_recover_with_a_version_sets_an_owned_lines_version)
{
    recover_with_a_version_sets_an_owned_lines_version(&dir_ops_synth);
}
Test(dir_ctrl_synth, recovery_recover_with_a_version_releases_a_held_read_with_it)
{
    recover_with_a_version_releases_a_held_read_with_it(&dir_ops_synth);
}
