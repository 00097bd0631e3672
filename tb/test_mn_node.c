/* The memory node on the fabric (csim/mn_node): the Verilated directory controller clocked by the
 * kernel behind a real fabric (fabric_top c2m2 / c4m2), MN DRAM on the same kernel, scripted CNs on
 * the CN ports that send through fabric_send and record what comes back. The idle round trip of
 * paper Table II (200 ns, directory lookup included) is measured end to end, from the request
 * leaving a CN's adapter to the answer arriving there. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dir_defs.h"
#include "fabric.h"
#include "kernel.h"
#include "mn_node.h"
#include "rng.h"
#include "sb/dir_models.h"
#include "stats.h"
#include "tb_seed.h"

#define GHZ 1000000000ull
#define MAX_CN 4
#define MAX_MN 2

/* One thing seen: a message a CN received (port = the CN's), or an MN observation (port = 100 +
 * MN, kind the mn_obs_e). */
typedef struct rec {
    uint64_t t;
    unsigned port, kind;
    uint64_t addr;
    msg_t m;
} rec_t;

typedef struct sys sys_t;
struct mn_ctx {
    sys_t *s;
    unsigned mn;
};

/* A scripted CN: its adapter sends in order per class when it holds a credit, consumes every
 * delivery at once, and (auto_snoop) answers snoops of lines it holds clean: BIRSP_S to
 * BISNP_DATA, BIRSP_I to BISNP_INV. */
typedef struct cn {
    sys_t *s;
    unsigned port;
    msg_t out[256];
    size_t nout;
    bool auto_snoop;
    void (*on_rx)(struct cn *c, const msg_t *m); /* the workload's agent, if any */
    void *agent;
} cn_t;

typedef struct setup {
    unsigned ncn, nmn;
    uint64_t link_ps, jitter_ps, dram_ps;
    bool skip;
    uint64_t seed;
    uint64_t scr_lo, scr_hi; /* global lines; scr_hi 0: all coherent */
} setup_t;

struct sys {
    setup_t su;
    kernel_t k;
    stats_t st;
    fabric_t *f;
    mn_node_t *mn[MAX_MN];
    struct mn_ctx mnx[MAX_MN];
    cn_t cn[MAX_CN];
    rec_t *rec;
    size_t nrec, caprec;
    msg_t sw[16];
    size_t nsw;
    unsigned mn_shift, gran_shift;
};

static void add_rec(sys_t *s, unsigned port, unsigned kind, uint64_t addr, const msg_t *m)
{
    if (s->nrec == s->caprec) {
        s->caprec = s->caprec ? 2 * s->caprec : 4096;
        s->rec = realloc(s->rec, s->caprec * sizeof *s->rec);
        cr_assert_not_null(s->rec);
    }
    rec_t *r = &s->rec[s->nrec++];
    memset(r, 0, sizeof *r);
    r->t = s->k.now, r->port = port, r->kind = kind, r->addr = addr;
    if (m)
        r->m = *m;
}

static void cn_flush(cn_t *c)
{
    /* Per class in order; a class without a credit holds back only itself. */
    uint32_t blocked = 0;
    size_t keep = 0;
    for (size_t i = 0; i < c->nout; i++) {
        msg_class_t k = msg_class(c->out[i].opcode);
        if (!(blocked >> k & 1u) && fabric_credits(c->s->f, c->port, k)) {
            fabric_send(c->s->f, c->port, &c->out[i]);
            continue;
        }
        blocked |= 1u << k;
        c->out[keep++] = c->out[i];
    }
    c->nout = keep;
}

static void cn_send(cn_t *c, const msg_t *m)
{
    cr_assert_lt(c->nout, 256);
    c->out[c->nout++] = *m;
    cn_flush(c);
}

static void cn_deliver(void *obj, unsigned port, const msg_t *m)
{
    cn_t *c = obj;
    add_rec(c->s, port, 0, 0, m);
    fabric_release(c->s->f, port, msg_class(m->opcode));
    if (c->auto_snoop && msg_class(m->opcode) == CLS_BISNP) {
        msg_t b = {.opcode = m->opcode == OP_BISNP_DATA ? OP_BIRSP_S : OP_BIRSP_I, .src = (uint8_t)port,
                   .dst = m->src, .tag = m->tag, .addr = m->addr};
        cn_send(c, &b);
    }
    if (c->on_rx)
        c->on_rx(c, m);
}

static void cn_credit(void *obj, unsigned port, msg_class_t cls)
{
    (void)port, (void)cls;
    cn_flush(obj);
}

static void mn_obs(void *obj, uint64_t cycle, mn_obs_e kind, const msg_t *m, uint64_t addr)
{
    (void)cycle; /* the record's time is the edge's */
    struct mn_ctx *x = obj;
    add_rec(x->s, 100 + x->mn, kind, addr, m);
}

static void on_sw(void *obj, const msg_t *m)
{
    sys_t *s = obj;
    cr_assert_lt(s->nsw, 16);
    s->sw[s->nsw++] = *m;
}

static unsigned home_mn(const sys_t *s, uint64_t line) { return dir_addr_mn(line, s->mn_shift, s->gran_shift); }

static const uint64_t MN_BYTES = 1ull << 20;       /* 16 Ki lines per MN */
static const uint64_t INTERLEAVE = 4096;            /* 64 lines */

static void sys_init(sys_t *s, const setup_t *su)
{
    memset(s, 0, sizeof *s);
    s->su = *su;
    kernel_init(&s->k);
    cr_assert_eq(stats_init(&s->st), 0);
    const fabric_model_ops_t *ops = fabric_model_find(su->ncn, su->nmn);
    cr_assert_not_null(ops, "shape c%um%u is not linked into the tests", su->ncn, su->nmn);
    fabric_params_t fp = {
        .freq_hz = GHZ,
        .link_latency_ps = su->link_ps ? su->link_ps : 35000,
        .link_jitter_ps = su->jitter_ps,
        .rx_credits = 4,
        .skip_idle = su->skip,
        .seed = su->seed,
        .reset_cycles = 4,
        .heartbeat_cycles = 256,
        .silence_cycles = 4096,
        .accept_cycles = 65536,
    };
    s->f = fabric_create(&s->k, ops, &fp, &s->st);
    cr_assert_not_null(s->f);
    for (unsigned i = 0; i < su->ncn; i++) {
        s->cn[i] = (cn_t){.s = s, .port = i, .auto_snoop = true};
        fabric_attach(s->f, i, cn_deliver, cn_credit, &s->cn[i]);
    }
    s->mn_shift = su->nmn == 1 ? 0 : su->nmn == 2 ? 1 : 2;
    s->gran_shift = 6;
    for (unsigned j = 0; j < su->nmn; j++) {
        char name[16], err[MN_NODE_ERR_MAX];
        snprintf(name, sizeof name, "mn%u", j);
        mn_node_params_t mp = {.mn = j, .num_mn = su->nmn, .mn_bytes = MN_BYTES, .interleave_bytes = INTERLEAVE,
                               .scr_lo = su->scr_lo, .scr_hi = su->scr_hi, .freq_hz = GHZ,
                               .dram_latency_ps = su->dram_ps ? su->dram_ps : 45000, .name = name,
                               .seed = su->seed + j, .skip_idle = su->skip};
        s->mn[j] = mn_node_create(&s->k, s->f, su->ncn + j, &dir_ops_default, &mp, &s->st, err);
        cr_assert_not_null(s->mn[j], "%s", err);
        s->mnx[j] = (struct mn_ctx){s, j};
        mn_node_observe(s->mn[j], mn_obs, &s->mnx[j]);
        mn_node_on_sw(s->mn[j], on_sw, s);
    }
    /* Reset, routes, credits advertised and home: the system is idle after this. */
    kernel_run(&s->k, 2 * PS_PER_US);
}

static void sys_free(sys_t *s)
{
    for (unsigned j = 0; j < s->su.nmn; j++)
        mn_node_free(s->mn[j]);
    fabric_free(s->f);
    kernel_free(&s->k);
    stats_free(&s->st);
    free(s->rec);
}

static void sys_dump(const sys_t *s)
{
    for (unsigned j = 0; j < s->su.nmn; j++)
        mn_node_dump(s->mn[j], stderr);
}

static msg_t mk(const sys_t *s, msg_op_t op, unsigned cn, uint64_t line, unsigned tag)
{
    msg_t m = {.opcode = op, .src = (uint8_t)cn, .dst = (uint8_t)(MSG_MN_BASE + home_mn(s, line)),
               .core = (uint8_t)(cn & 3), .tag = (uint16_t)tag, .addr = line};
    return m;
}

static void fill(uint64_t *w, uint64_t seed)
{
    for (unsigned i = 0; i < MSG_WORDS_PER_LINE; i++)
        w[i] = seed << 8 | i;
}

/* Runs until CN cn has received a message with opcode op and tag tag after record index from;
 * returns its index (fails after limit_ps). */
static size_t wait_for(sys_t *s, size_t from, unsigned cn, msg_op_t op, unsigned tag, uint64_t limit_ps)
{
    uint64_t end = s->k.now + limit_ps;
    for (;;) {
        for (size_t i = from; i < s->nrec; i++)
            if (s->rec[i].port == cn && s->rec[i].kind == 0 && s->rec[i].m.opcode == op && s->rec[i].m.tag == tag)
                return i;
        if (s->k.now >= end)
            break;
        kernel_run(&s->k, s->k.now + 100 * PS_PER_NS);
    }
    sys_dump(s);
    cr_assert_fail("CN %u: no %s with tag %u within %llu ns", cn, msg_name(op), tag,
                   (unsigned long long)(limit_ps / PS_PER_NS));
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */

typedef struct rt_parts {
    uint64_t total, to_mn, dir, from_mn; /* ps */
    uint64_t pre_mem, post_mem;          /* directory cycles before the data read, after its answer */
    unsigned mem_reads;
} rt_parts_t;

/* One RD_SHARED from CN 0 to line at time now (an edge), to its DATA_E: the parts. */
static rt_parts_t round_trip(sys_t *s, uint64_t line, unsigned tag)
{
    size_t from = s->nrec;
    uint64_t t0 = s->k.now;
    msg_t m = mk(s, OP_RD_SHARED, 0, line, tag);
    cn_send(&s->cn[0], &m);
    size_t i = wait_for(s, from, 0, OP_DATA_E, tag, 5 * PS_PER_US);
    rt_parts_t r = {.total = s->rec[i].t - t0};
    uint64_t t_rx = 0, t_tx = 0, t_rd = 0;
    for (size_t j = from; j < i; j++) {
        const rec_t *e = &s->rec[j];
        if (e->port < 100)
            continue;
        if (e->kind == MN_OBS_RX && e->m.opcode == OP_RD_SHARED)
            t_rx = e->t;
        if (e->kind == MN_OBS_MEM_RD) {
            r.mem_reads++;
            t_rd = e->t; /* the data read is the last one */
        }
        if (e->kind == MN_OBS_TX && e->m.opcode == OP_DATA_E)
            t_tx = e->t;
    }
    cr_assert(t_rx && t_tx && t_rd, "the MN saw the request, read memory and answered");
    r.to_mn = t_rx - t0;
    r.dir = t_tx - t_rx;
    r.from_mn = s->rec[i].t - t_tx;
    r.post_mem = (t_tx - t_rd - s->su.dram_ps) / 1000;
    r.pre_mem = (t_rd - t_rx) / 1000;
    return r;
}

static void print_parts(const char *what, const setup_t *su, const rt_parts_t *r)
{
    cr_log_info("%s: link %llu ns, DRAM %llu ns: round trip %llu ns = CN->MN %llu ns (2 links + switch) + "
                "directory %llu ns (%llu cycles before the data read, %u DRAM reads, %llu ns DRAM, %llu cycles "
                "after) + MN->CN %llu ns",
                what, (unsigned long long)(su->link_ps / 1000), (unsigned long long)(su->dram_ps / 1000),
                (unsigned long long)(r->total / 1000), (unsigned long long)(r->to_mn / 1000),
                (unsigned long long)(r->dir / 1000), (unsigned long long)r->pre_mem, r->mem_reads,
                (unsigned long long)(su->dram_ps / 1000), (unsigned long long)r->post_mem,
                (unsigned long long)(r->from_mn / 1000));
}

/* Brings line to I with its entry in the directory cache: CN 0 reads it and gives it back. */
static void warm_entry(sys_t *s, uint64_t line)
{
    size_t from = s->nrec;
    msg_t m = mk(s, OP_RD_SHARED, 0, line, 100);
    cn_send(&s->cn[0], &m);
    wait_for(s, from, 0, OP_DATA_E, 100, 5 * PS_PER_US);
    m = mk(s, OP_CLEAN_EVICT, 0, line, 101);
    cn_send(&s->cn[0], &m);
    wait_for(s, from, 0, OP_CMP, 101, 5 * PS_PER_US);
    kernel_run(&s->k, s->k.now + 1 * PS_PER_US); /* idle again, on an edge */
}

/* Paper Table II: the CXL network round trip is 200 ns including the directory lookup. The config's
 * parts (fabric.link_latency 35 ns a crossing, 1 GHz fabric, mem.dram_latency 45 ns) assumed 15 ns
 * for switch and directory; measured, they take 11 (the switch 2 cycles each way, the directory 7
 * cycles around its DRAM read), so the defaults give 196 ns. 36 ns links give the paper's 200. */
Test(mn_node, idle_round_trip_is_200ns_with_36ns_links_and_a_directory_cache_hit)
{
    /* GIVEN an idle 2 + 2 fabric with 36 ns links, 45 ns MN DRAM, the line's entry cached */
    setup_t su = {.ncn = 2, .nmn = 2, .link_ps = 36000, .dram_ps = 45000, .skip = true, .seed = 1};
    sys_t s;
    sys_init(&s, &su);
    uint64_t v[8], got[8];
    fill(v, 0x77);
    mn_node_poke(s.mn[1], 64 + 5, 0xff, v);
    warm_entry(&s, 64 + 5);
    /* WHEN CN 0 reads the line shared (leaving its adapter on an edge) */
    rt_parts_t r = round_trip(&s, 64 + 5, 1);
    print_parts("36 ns links, entry cached", &su, &r);
    /* THEN DATA_E is back 200 ns later: 2 x (36 + 2 + 36) ns of fabric, 52 ns of directory */
    cr_assert_eq(r.total, 200000, "round trip %llu ps, Table II says 200 ns", (unsigned long long)r.total);
    cr_assert_eq(r.to_mn, 74000);
    cr_assert_eq(r.from_mn, 74000);
    cr_assert_eq(r.dir, 52000);
    cr_assert_eq(r.mem_reads, 1, "a directory cache hit reads only the data");
    const rec_t *last = &s.rec[s.nrec - 1];
    for (size_t i = s.nrec; i-- > 0;)
        if (s.rec[i].port == 0 && s.rec[i].m.opcode == OP_DATA_E) {
            last = &s.rec[i];
            break;
        }
    memcpy(got, last->m.data, sizeof got);
    cr_assert_arr_eq(got, v, sizeof v, "the line's data");
    cr_assert_eq(mn_node_violations(s.mn[1]), 0);
    sys_free(&s);
}

/* The round trip is the sum of its parts with the configuration's defaults too, and a directory
 * cache miss (the first touch of a line's entry group) adds the directory line's DRAM read. */
Test(mn_node, idle_round_trip_is_the_sum_of_links_switch_directory_and_dram)
{
    const uint64_t links[] = {35000, 50000};
    const uint64_t drams[] = {45000, 20000};
    for (unsigned i = 0; i < 2; i++) {
        /* GIVEN an idle fabric with link latency L and DRAM latency D */
        setup_t su = {.ncn = 2, .nmn = 2, .link_ps = links[i], .dram_ps = drams[i], .skip = i == 0, .seed = 3};
        sys_t s;
        sys_init(&s, &su);
        /* WHEN CN 0 reads a line whose entry is not cached, then (given back) reads it again */
        rt_parts_t cold = round_trip(&s, 7, 1);
        print_parts("entry not cached", &su, &cold);
        size_t from = s.nrec;
        msg_t m = mk(&s, OP_CLEAN_EVICT, 0, 7, 2);
        cn_send(&s.cn[0], &m);
        wait_for(&s, from, 0, OP_CMP, 2, 5 * PS_PER_US);
        kernel_run(&s.k, s.k.now + 1 * PS_PER_US);
        rt_parts_t warm = round_trip(&s, 7, 3);
        print_parts("entry cached", &su, &warm);
        /* THEN warm = 4 L + 2 x 2 switch cycles + 7 directory cycles + D, and cold adds D + 2 cycles
         * (the directory line's read, then the data's) */
        uint64_t want = 4 * su.link_ps + 4000 + 7000 + su.dram_ps;
        cr_assert_eq(warm.total, want, "L %llu D %llu: warm round trip %llu ps, want %llu",
                     (unsigned long long)su.link_ps, (unsigned long long)su.dram_ps, (unsigned long long)warm.total,
                     (unsigned long long)want);
        cr_assert_eq(warm.to_mn, 2 * su.link_ps + 2000);
        cr_assert_eq(warm.pre_mem, 4);
        cr_assert_eq(warm.post_mem, 3);
        cr_assert_eq(cold.total, want + su.dram_ps + 2000, "cold round trip %llu ps", (unsigned long long)cold.total);
        cr_assert_eq(cold.mem_reads, 2, "the directory line, then the data");
        sys_free(&s);
    }
}
