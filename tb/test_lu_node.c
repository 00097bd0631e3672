/* The Logging Units on the fabric (csim/cn/lu_node, csim/cn/cn_port): a real fabric (fabric_top c4m2),
 * MN nodes (the Verilated directory) with an mn_log store each (lu_store), and on each of the four
 * CN ports a cn_port shared by the CN's Logging Unit (the Verilated logging_unit, paper sizes) and
 * a scripted replication engine. The engine runs stores as DIKTAMO does: REPL to the Nr replica
 * LUs of the line (lu_map_replicas; the writer is often one of them), the store commits once every
 * REPL_ACK is back, then VAL with the line's next version to each replica. Stores to one line are
 * serialized (each commits after the previous one), so version order is commit order; the next
 * store's REPLs race the previous store's VALs.
 *
 * Checked: every replica's DRAM log holds every committed version of each word it replicates,
 * once, in version order (per-word order), with its value; the dumps (dump period, Early Flush at
 * the high watermark, a final one) reach the MN stores without an error, each LU's stored records
 * are exactly its log's records of the buckets it owns in log order, and the stores' search (the FETCH path)
 * returns every written word's last committed value and TS; the LUs see the same inputs at the same
 * cycles with and without idle skipping; a failed LU logs and answers nothing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/kernel.h"
#include "base/rng.h"
#include "base/stats.h"
#include "cn/cn_port.h"
#include "cn/lu_map.h"
#include "cn/lu_node.h"
#include "drv/fabric.h"
#include "mn/lu_store.h"
#include "mn/mn_node.h"
#include "sb/lu_models.h"
#include "tb_seed.h"

#define GHZ 1000000000ull
#define NCN 4u
#define NMN 2u
#define NR 3u
#define MAXL 64u
static const uint64_t MN_BYTES = 1ull << 20; /* 16 Ki lines per MN */
#define LINES (NMN * (1u << 20) / 64u)

typedef struct upd {
    uint64_t line;
    uint8_t mask;
    uint64_t val[8];
    unsigned writer, core, tag, acks, version;
} upd_t;

typedef struct obs {
    uint64_t cycle;
    unsigned kind;
    msg_t m;
    uint64_t addr;
} obs_t;

typedef struct tsys tsys_t;
typedef struct eng {
    tsys_t *s;
    unsigned cn;
    msg_t out[512];
    size_t nout;
    int by_tag[4096]; /* update index + 1 */
    unsigned next_tag;
    bool flushing;
} eng_t;

typedef struct lu_ctx {
    tsys_t *s;
    unsigned cn;
    obs_t *v;
    size_t n, cap;
} lu_ctx_t;

typedef struct setup {
    bool skip;
    uint64_t seed;
    unsigned updates, lines;
    uint64_t dump_period_ps;
    uint64_t dram_log_bytes;
    double hwm;
    uint64_t jitter_ps;
} setup_t;

struct tsys {
    setup_t su;
    kernel_t k;
    stats_t st;
    rng_t rng;
    fabric_t *f;
    mn_node_t *mn[NMN];
    lu_store_t *store[NMN];
    cn_port_t *port[NCN];
    lu_node_t *lu[NCN];
    lu_map_t map; /* every CN alive */
    eng_t eng[NCN];
    lu_ctx_t luc[NCN];
    upd_t *u;
    size_t nu, started;
    uint64_t line[MAXL];
    bool busy[MAXL];
    unsigned version[MAXL];
    uint64_t last_val[MAXL][8]; /* the last committed value and version of each word */
    unsigned last_ver[MAXL][8];
    unsigned committed, acks;
};

static void eng_flush(eng_t *e)
{
    /* The port's credit callback may run inside cn_port_send: flush from the outer call only. */
    if (e->flushing)
        return;
    e->flushing = true;
    uint32_t blocked = 0;
    size_t keep = 0;
    for (size_t i = 0; i < e->nout; i++) {
        msg_class_t c = msg_class(e->out[i].opcode);
        if (!(blocked >> c & 1u) && cn_port_credits(e->s->port[e->cn], CN_PORT_REPL, c)) {
            cn_port_send(e->s->port[e->cn], CN_PORT_REPL, &e->out[i]);
            continue;
        }
        blocked |= 1u << c;
        e->out[keep++] = e->out[i];
    }
    e->nout = keep;
    e->flushing = false;
}

static void eng_send(eng_t *e, const msg_t *m)
{
    cr_assert_lt(e->nout, 512);
    e->out[e->nout++] = *m;
    eng_flush(e);
}

static void eng_credit(void *obj, msg_class_t c)
{
    (void)c;
    eng_flush(obj);
}

static void start_one(void *obj, uint64_t arg);

static void eng_ack(void *obj, const msg_t *m)
{
    eng_t *e = obj;
    tsys_t *s = e->s;
    cn_port_release(s->port[e->cn], msg_class(m->opcode));
    if (m->opcode == OP_REPL_QUERY) { /* an LU asks whether a store committed: PENDING until all its ACKs */
        int q = e->by_tag[m->tag];
        bool pending = q > 0 && s->u[q - 1].line == m->addr;
        msg_t a = {.opcode = OP_REPL_QUERY_RESP, .src = (uint8_t)e->cn, .dst = m->src, .core = m->core, .tag = m->tag,
                   .addr = m->addr, .flags = pending ? (uint8_t)MSG_FLAG_PENDING : 0};
        eng_send(e, &a);
        return;
    }
    cr_assert_eq(m->opcode, OP_REPL_ACK, "seed %llu", (unsigned long long)s->su.seed);
    int ix = e->by_tag[m->tag];
    cr_assert(ix > 0, "seed %llu: CN %u: REPL_ACK of unknown tag %u (src %u dst %u core %u line 0x%llx, %u acks so far)", (unsigned long long)s->su.seed, e->cn, m->tag, m->src, m->dst, m->core, (unsigned long long)m->addr, s->acks);
    upd_t *u = &s->u[ix - 1];
    s->acks++;
    if (++u->acks < NR)
        return;
    /* Committed: the line's next version; VAL to every replica. */
    e->by_tag[m->tag] = 0;
    unsigned li = 0;
    while (s->line[li] != u->line)
        li++;
    u->version = ++s->version[li];
    for (unsigned w = 0; w < 8; w++)
        if (u->mask >> w & 1) {
            s->last_val[li][w] = u->val[w];
            s->last_ver[li][w] = u->version;
        }
    s->committed++;
    unsigned rep[NR];
    lu_map_replicas(&s->map, u->line, NR, rep);
    for (unsigned r = 0; r < NR; r++) {
        msg_t v = {.opcode = OP_VAL, .src = (uint8_t)u->writer, .dst = (uint8_t)rep[r], .core = (uint8_t)u->core,
                   .tag = (uint16_t)u->tag, .addr = u->line, .ts = (uint8_t)(u->version & 127)};
        eng_send(e, &v);
    }
    s->busy[li] = false;
    kernel_after(&s->k, rng_below(&s->rng, 200) * PS_PER_NS, start_one, s, 0);
}

/* Starts the next store on a line that is not busy (if one is left to start). */
static void start_one(void *obj, uint64_t arg)
{
    (void)arg;
    tsys_t *s = obj;
    if (s->started == s->su.updates)
        return;
    unsigned li = (unsigned)rng_below(&s->rng, s->su.lines), k;
    for (k = 0; k < s->su.lines && s->busy[li]; k++)
        li = (li + 1) % s->su.lines;
    if (k == s->su.lines)
        return; /* a commit starts another */
    s->busy[li] = true;
    upd_t *u = &s->u[s->started++];
    u->line = s->line[li];
    u->writer = (unsigned)rng_below(&s->rng, NCN);
    u->core = (unsigned)rng_below(&s->rng, 4);
    u->mask = (uint8_t)(rng_below(&s->rng, 255) + 1);
    for (unsigned w = 0; w < 8; w++)
        u->val[w] = rng_next(&s->rng);
    eng_t *e = &s->eng[u->writer];
    u->tag = e->next_tag;
    e->next_tag = (e->next_tag + 1) % 4096;
    cr_assert_eq(e->by_tag[u->tag], 0);
    e->by_tag[u->tag] = (int)(u - s->u) + 1;
    unsigned rep[NR];
    lu_map_replicas(&s->map, u->line, NR, rep);
    for (unsigned r = 0; r < NR; r++) {
        msg_t m = {.opcode = OP_REPL, .src = (uint8_t)u->writer, .dst = (uint8_t)rep[r], .core = (uint8_t)u->core,
                   .tag = (uint16_t)u->tag, .addr = u->line, .mask = u->mask};
        for (unsigned w = 0; w < 8; w++)
            if (u->mask >> w & 1)
                m.data[w] = u->val[w];
        eng_send(e, &m);
    }
}

static void lu_obs(void *obj, uint64_t cycle, unsigned kind, const msg_t *m, uint64_t addr)
{
    lu_ctx_t *c = obj;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 4096;
        c->v = realloc(c->v, c->cap * sizeof *c->v);
        cr_assert_not_null(c->v);
    }
    obs_t *o = &c->v[c->n++];
    memset(o, 0, sizeof *o);
    o->cycle = cycle, o->kind = kind, o->addr = addr;
    if (m)
        o->m = *m;
}

static void sys_init(tsys_t *s, const setup_t *su)
{
    memset(s, 0, sizeof *s);
    s->su = *su;
    kernel_init(&s->k);
    lu_map_init(&s->map, NCN, (1u << NCN) - 1);
    cr_assert_eq(stats_init(&s->st), 0);
    rng_init_named(&s->rng, su->seed, "test_lu_node.workload");
    const fabric_model_ops_t *ops = fabric_model_find(NCN, NMN);
    cr_assert_not_null(ops);
    fabric_params_t fp = {.freq_hz = GHZ, .link_latency_ps = 36000, .link_jitter_ps = su->jitter_ps,
                          .rx_credits = 4, .skip_idle = su->skip, .seed = su->seed, .reset_cycles = 4,
                          .heartbeat_cycles = 256, .silence_cycles = 4096, .accept_cycles = 65536};
    s->f = fabric_create(&s->k, ops, &fp, &s->st);
    cr_assert_not_null(s->f);
    char err[512];
    for (unsigned j = 0; j < NMN; j++) {
        char name[16];
        snprintf(name, sizeof name, "mn%u", j);
        mn_node_params_t mp = {.mn = j, .num_mn = NMN, .mn_bytes = MN_BYTES, .interleave_bytes = 4096,
                               .freq_hz = GHZ, .dram_latency_ps = 45000, .name = name, .seed = su->seed + j,
                               .skip_idle = su->skip};
        s->mn[j] = mn_node_create(&s->k, s->f, NCN + j, &dir_ops_sys, &mp, &s->st, err);
        cr_assert_not_null(s->mn[j], "%s", err);
        s->store[j] = lu_store_create(s->mn[j], j, lu_map_lus_of_mn(j, NCN, NMN), false);
        cr_assert_not_null(s->store[j]);
    }
    for (unsigned c = 0; c < NCN; c++) {
        char name[32];
        snprintf(name, sizeof name, "cn%u.port", c);
        s->port[c] = cn_port_create(s->f, c, 4, name, &s->st);
        cr_assert_not_null(s->port[c]);
        s->eng[c] = (eng_t){.s = s, .cn = c};
        cn_port_attach(s->port[c], CN_PORT_REPL, eng_ack, eng_credit, &s->eng[c]);
        snprintf(name, sizeof name, "cn%u.lu", c);
        lu_node_params_t lp = {.cn = c, .num_cn = NCN, .freq_hz = 500000000ull, .sram_bytes = 4096,
                               .dram_log_bytes = su->dram_log_bytes ? su->dram_log_bytes : 18ull << 20,
                               .high_watermark = su->hwm > 0 ? su->hwm : 0.9, .dump_period_ps = su->dump_period_ps,
                               .zlib_level = 9, .dram_latency_ps = 45000, .addr_lim = LINES,
                               .mn = lu_map_mn(c, NMN), .name = name, .seed = su->seed + 100 + c,
                               .skip_idle = su->skip};
        s->lu[c] = lu_node_create(&s->k, s->port[c], &lu_ops_default, &lp, &s->st, err);
        cr_assert_not_null(s->lu[c], "%s", err);
        s->luc[c] = (lu_ctx_t){.s = s, .cn = c};
        lu_node_observe(s->lu[c], lu_obs, &s->luc[c]);
    }
    /* Lines spread over every LU's buckets and both MNs. */
    for (unsigned i = 0; i < su->lines; i++)
        s->line[i] = (uint64_t)i * (LINES / su->lines) + (i % 5) * 64 + (i % 7);
    s->u = calloc(su->updates, sizeof *s->u);
    kernel_run(&s->k, 2 * PS_PER_US);
}

static void sys_free(tsys_t *s)
{
    for (unsigned c = 0; c < NCN; c++) {
        lu_node_free(s->lu[c]);
        cn_port_free(s->port[c]);
        free(s->luc[c].v);
    }
    for (unsigned j = 0; j < NMN; j++) {
        lu_store_free(s->store[j]);
        mn_node_free(s->mn[j]);
    }
    fabric_free(s->f);
    kernel_free(&s->k);
    stats_free(&s->st);
    free(s->u);
}

static bool quiet(tsys_t *s)
{
    if (!fabric_quiet(s->f))
        return false;
    for (unsigned c = 0; c < NCN; c++)
        if (!lu_node_idle(s->lu[c]) || s->eng[c].nout || cn_port_queued(s->port[c]))
            return false;
    for (unsigned j = 0; j < NMN; j++)
        if (!mn_node_idle(s->mn[j]))
            return false;
    return true;
}

/* Runs until everything started has committed and the system is quiet. */
static void run_quiet(tsys_t *s, uint64_t limit_ps)
{
    uint64_t end = s->k.now + limit_ps;
    while (s->k.now < end) {
        kernel_run(&s->k, s->k.now + 500 * PS_PER_NS);
        if (s->committed == s->started && quiet(s))
            return;
    }
    for (unsigned c = 0; c < NCN; c++)
        lu_node_dump(s->lu[c], stderr);
    for (unsigned j = 0; j < NMN; j++)
        mn_node_dump(s->mn[j], stderr);
    cr_assert_fail("seed %llu: not quiet after %llu ns: %u of %zu stores committed", (unsigned long long)s->su.seed,
                   (unsigned long long)(limit_ps / PS_PER_NS), s->committed, s->started);
}

static void run_workload(tsys_t *s)
{
    for (unsigned i = 0; i < 8; i++)
        kernel_after(&s->k, i * 10 * PS_PER_NS, start_one, s, 0);
    uint64_t limit = (uint64_t)s->su.updates * 4 * PS_PER_US + 200 * PS_PER_US;
    while (s->started < s->su.updates || s->committed < s->started) {
        run_quiet(s, limit);
        if (s->started < s->su.updates)
            start_one(s, 0);
    }
}

static unsigned line_ix(const tsys_t *s, uint64_t line)
{
    for (unsigned i = 0; i < s->su.lines; i++)
        if (s->line[i] == line)
            return i;
    cr_assert_fail("seed %llu: a record of line 0x%llx, which no store wrote", (unsigned long long)s->su.seed,
                   (unsigned long long)line);
    return 0;
}

/* Every replica's DRAM log: per word, every committed version in order, once, with its value. */
static void check_logs(tsys_t *s)
{
    for (unsigned c = 0; c < NCN; c++) {
        const lu_drv_t *d = lu_node_drv(s->lu[c]);
        static unsigned seen[MAXL][8];
        memset(seen, 0, sizeof seen);
        for (size_t i = 0; i < lu_drv_log_writes(d); i++) {
            const lu_rec_t *r = lu_drv_log_write(d, i);
            unsigned li = line_ix(s, r->line);
            unsigned rep[NR];
            lu_map_replicas(&s->map, r->line, NR, rep);
            cr_assert(rep[0] == c || rep[1] == c || rep[2] == c, "seed %llu: LU %u logged line 0x%llx, not a replica",
                      (unsigned long long)s->su.seed, c, (unsigned long long)r->line);
            /* The next version of this word that wrote it. */
            unsigned want = seen[li][r->word] + 1;
            for (; want <= s->version[li]; want++) {
                size_t k;
                for (k = 0; k < s->nu; k++)
                    if (s->u[k].line == r->line && s->u[k].version == want)
                        break;
                if (s->u[k].mask >> r->word & 1)
                    break;
            }
            cr_assert(r->written, "seed %llu", (unsigned long long)s->su.seed);
            cr_assert_eq(r->ts, want & 127, "seed %llu: LU %u line 0x%llx word %u: record %zu has version %u, "
                         "the next committed one is %u", (unsigned long long)s->su.seed, c,
                         (unsigned long long)r->line, r->word, i, r->ts, want & 127);
            size_t k;
            for (k = 0; k < s->nu; k++)
                if (s->u[k].line == r->line && s->u[k].version == want)
                    break;
            cr_assert_eq(r->value, s->u[k].val[r->word], "seed %llu: LU %u line 0x%llx word %u version %u: value",
                         (unsigned long long)s->su.seed, c, (unsigned long long)r->line, r->word, want);
            cr_assert_eq(r->cn, s->u[k].writer);
            seen[li][r->word] = want;
        }
        /* Every committed version of every word it replicates is there. */
        for (unsigned li = 0; li < s->su.lines; li++) {
            unsigned rep[NR];
            lu_map_replicas(&s->map, s->line[li], NR, rep);
            if (rep[0] != c && rep[1] != c && rep[2] != c)
                continue;
            for (unsigned w = 0; w < 8; w++)
                cr_assert_eq(seen[li][w], s->last_ver[li][w], "seed %llu: LU %u line 0x%llx word %u: last logged "
                             "version %u, last committed %u", (unsigned long long)s->su.seed, c,
                             (unsigned long long)s->line[li], w, seen[li][w], s->last_ver[li][w]);
        }
    }
}

/* A final dump of every LU, then: no store error; LU c's stored records are its whole log's, in
 * order; the store of each replica of a line gives each written word's last committed version. */
static void check_dumps(tsys_t *s)
{
    for (unsigned c = 0; c < NCN; c++)
        lu_node_dump_start(s->lu[c]);
    run_quiet(s, 2000 * PS_PER_US);
    for (unsigned j = 0; j < NMN; j++) {
        mn_log_t *l = lu_store_log(s->store[j]);
        for (size_t e = 0; e < mn_log_nerrors(l); e++)
            cr_log_error("MN %u: %s: %s", j, mn_log_err_name(mn_log_error(l, e)->kind), mn_log_error(l, e)->what);
        cr_assert_eq(mn_log_nerrors(l), 0, "seed %llu: MN %u's store listed errors", (unsigned long long)s->su.seed, j);
        cr_assert_gt(mn_log_stats(l)->dumps, 0);
    }
    for (unsigned c = 0; c < NCN; c++) {
        const lu_drv_t *d = lu_node_drv(s->lu[c]);
        mn_log_t *l = lu_store_log(s->store[lu_map_mn(c, NMN)]);
        size_t k = 0;
        for (size_t i = 0; i < lu_drv_log_writes(d); i++) {
            const lu_rec_t *r = lu_drv_log_write(d, i);
            cr_assert_lt(k, mn_log_nrecs(l, c), "seed %llu: LU %u: the MN has %zu records, the log more",
                         (unsigned long long)s->su.seed, c, mn_log_nrecs(l, c));
            const lu_rec_t *m = &mn_log_recs(l, c)[k++];
            cr_assert(m->line == r->line && m->word == r->word && m->ts == r->ts && m->value == r->value,
                      "seed %llu: LU %u: stored record %zu differs from log record %zu", (unsigned long long)s->su.seed,
                      c, k - 1, i);
        }
        cr_assert_eq(k, mn_log_nrecs(l, c), "seed %llu: LU %u", (unsigned long long)s->su.seed, c);
    }
    for (unsigned li = 0; li < s->su.lines; li++) {
        unsigned rep[NR];
        lu_map_replicas(&s->map, s->line[li], NR, rep);
        for (unsigned r = 0; r < NR; r++) {
            mn_log_found_t f;
            uint8_t all = 0xff;
            mn_log_search(lu_store_log(s->store[lu_map_mn(rep[r], NMN)]), &s->line[li], &all, 1, &f);
            for (unsigned w = 0; w < 8; w++) {
                bool written = s->last_ver[li][w] != 0;
                cr_assert_eq(f.mask >> w & 1, written, "seed %llu: line 0x%llx word %u, MN %u",
                             (unsigned long long)s->su.seed, (unsigned long long)s->line[li], w,
                             lu_map_mn(rep[r], NMN));
                if (!written)
                    continue;
                cr_assert_eq(f.value[w], s->last_val[li][w],
                             "seed %llu: line 0x%llx word %u: MN %u's latest value (replica %u)",
                             (unsigned long long)s->su.seed, (unsigned long long)s->line[li], w,
                             lu_map_mn(rep[r], NMN), rep[r]);
                cr_assert_eq(f.ts[w], s->last_ver[li][w] & 127, "seed %llu", (unsigned long long)s->su.seed);
            }
        }
    }
}

static unsigned env_uint(const char *name, unsigned dflt)
{
    const char *v = getenv(name);
    return v && *v ? (unsigned)strtoul(v, NULL, 0) : dflt;
}

Test(lu_node, replicas_log_every_committed_word_in_per_word_order)
{
    /* GIVEN four CNs' LUs on the fabric, stores to 24 lines from every CN, Nr = 3 */
    setup_t su = {.skip = true, .seed = tb_seed(11), .updates = env_uint("LU_NODE_UPDATES", 300), .lines = 24};
    tsys_t *s = calloc(1, sizeof *s);
    sys_init(s, &su);
    /* WHEN every store is replicated, acknowledged by all three replicas, then validated */
    run_workload(s);
    s->nu = s->started;
    /* THEN each replica logged every committed version of its words, in order, once */
    cr_assert_eq(s->committed, su.updates);
    cr_assert_eq(s->acks, su.updates * NR);
    check_logs(s);
    sys_free(s);
    free(s);
}

Test(lu_node, dumps_reach_the_mn_stores_and_search_finds_the_latest)
{
    /* GIVEN a dump period of 4 us during the run (about 15 us) */
    setup_t su = {.skip = true, .seed = tb_seed(12), .updates = env_uint("LU_NODE_UPDATES", 300), .lines = 24,
                  .dump_period_ps = 4 * PS_PER_US};
    tsys_t *s = calloc(1, sizeof *s);
    sys_init(s, &su);
    /* WHEN the stores run through several dumps, and a last one follows */
    run_workload(s);
    s->nu = s->started;
    check_logs(s);
    for (unsigned j = 0; j < NMN; j++)
        cr_assert_gt(mn_log_stats(lu_store_log(s->store[j]))->dumps, 0, "seed %llu: no dump during the run (%llu ns)",
                     (unsigned long long)su.seed, (unsigned long long)(s->k.now / PS_PER_NS));
    /* THEN the stores hold each LU's buckets, and their search finds every word's last version */
    check_dumps(s);
    sys_free(s);
    free(s);
}

Test(lu_node, early_flush_at_the_high_watermark_dumps_every_lu)
{
    /* GIVEN DRAM logs of 256 records with the watermark at half, no dump period */
    setup_t su = {.skip = true, .seed = tb_seed(13), .updates = env_uint("LU_NODE_UPDATES", 300), .lines = 24,
                  .dram_log_bytes = 4096, .hwm = 0.5};
    tsys_t *s = calloc(1, sizeof *s);
    sys_init(s, &su);
    /* WHEN the stores fill the logs past the watermark */
    run_workload(s);
    s->nu = s->started;
    /* THEN the LUs dumped early, all together, and nothing was lost */
    check_logs(s);
    uint64_t dumps = 0;
    for (unsigned j = 0; j < NMN; j++)
        dumps += mn_log_stats(lu_store_log(s->store[j]))->dumps;
    cr_assert_geq(dumps, 2 * NCN, "seed %llu: %llu dumps", (unsigned long long)su.seed, (unsigned long long)dumps);
    check_dumps(s);
    sys_free(s);
    free(s);
}

static void same_obs(const tsys_t *a, const tsys_t *b)
{
    for (unsigned c = 0; c < NCN; c++) {
        const lu_ctx_t *x = &a->luc[c], *y = &b->luc[c];
        size_t n = x->n < y->n ? x->n : y->n;
        for (size_t i = 0; i < n; i++) {
            const obs_t *p = &x->v[i], *q = &y->v[i];
            cr_assert(p->cycle == q->cycle && p->kind == q->kind && p->addr == q->addr &&
                          memcmp(&p->m, &q->m, sizeof p->m) == 0,
                      "seed %llu: LU %u event %zu: cycle %llu kind %u %s (skipping) vs cycle %llu kind %u %s",
                      (unsigned long long)a->su.seed, c, i, (unsigned long long)p->cycle, p->kind,
                      msg_name(p->m.opcode) ? msg_name(p->m.opcode) : "-", (unsigned long long)q->cycle, q->kind,
                      msg_name(q->m.opcode) ? msg_name(q->m.opcode) : "-");
        }
        cr_assert_eq(x->n, y->n, "seed %llu: LU %u: %zu events with skipping, %zu without",
                     (unsigned long long)a->su.seed, c, x->n, y->n);
    }
}

Test(lu_node, skipping_idle_cycles_changes_nothing)
{
    /* GIVEN the same workload with and without idle skipping (a dump period in it) */
    setup_t su = {.skip = true, .seed = tb_seed(14), .updates = env_uint("LU_NODE_UPDATES", 300) / 3, .lines = 12,
                  .dump_period_ps = 3 * PS_PER_US};
    tsys_t *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    sys_init(a, &su);
    su.skip = false;
    sys_init(b, &su);
    /* WHEN both run */
    run_workload(a);
    run_workload(b);
    /* THEN every LU saw and did the same at the same cycles, and skipping skipped */
    same_obs(a, b);
    uint64_t skipped = *stats_find_counter(&a->st, "cn0.lu.cycles_skipped");
    cr_assert_gt(skipped, 0);
    cr_assert_eq(*stats_find_counter(&b->st, "cn0.lu.cycles_skipped"), 0);
    sys_free(a);
    sys_free(b);
    free(a);
    free(b);
}

Test(lu_node, a_failed_lu_logs_and_answers_nothing)
{
    /* GIVEN CN 1's LU failed */
    setup_t su = {.skip = true, .seed = tb_seed(15), .updates = 1, .lines = 24};
    tsys_t *s = calloc(1, sizeof *s);
    sys_init(s, &su);
    lu_node_set_alive(s->lu[1], false);
    kernel_run(&s->k, s->k.now + PS_PER_US);
    /* WHEN CN 0 sends a REPL to it */
    msg_t m = {.opcode = OP_REPL, .src = 0, .dst = 1, .core = 0, .tag = 7, .addr = 5, .mask = 1, .data = {42}};
    s->eng[0].by_tag[7] = 1;
    eng_send(&s->eng[0], &m);
    kernel_run(&s->k, s->k.now + 10 * PS_PER_US);
    /* THEN no REPL_ACK comes back, nothing is logged, the message is counted lost */
    cr_assert_eq(s->acks, 0);
    cr_assert_eq(lu_drv_log_writes(lu_node_drv(s->lu[1])), 0);
    cr_assert_eq(*stats_find_counter(&s->st, "cn1.lu.rx_lost"), 1);
    cr_assert(lu_node_idle(s->lu[1]));
    sys_free(s);
    free(s);
}

Test(lu_node, replica_map_covers_each_line_once_with_its_owner)
{
    /* GIVEN 16 CNs, Nr 3; all alive, then 6, 7 and 13 failed */
    const unsigned ncn = 16;
    const uint32_t lives[2] = {0xffffu, 0xffffu & ~(1u << 6 | 1u << 7 | 1u << 13)};
    for (unsigned v = 0; v < 2; v++) {
        lu_map_t m;
        lu_map_init(&m, ncn, lives[v]);
        unsigned n = lu_map_live(&m);
        cr_assert_eq(n, (unsigned)__builtin_popcount(lives[v]));
        /* THEN the live CNs' buckets tile the 64 buckets, fairly; a failed CN owns none */
        uint64_t all = 0;
        for (unsigned c = 0; c < ncn; c++) {
            uint64_t own = lu_map_own(&m, c);
            cr_assert_eq(own & all, 0, "CN %u owns a bucket twice", c);
            all |= own;
            unsigned k = (unsigned)__builtin_popcountll(own);
            if (lives[v] >> c & 1u)
                cr_assert(k == 64 / n || k == 64 / n + 1, "CN %u owns %u of 64 buckets, %u live", c, k, n);
            else
                cr_assert_eq(k, 0);
        }
        cr_assert_eq(all, ~0ull);
        unsigned per_cn[16] = {0};
        for (uint64_t l = 0; l < 100003; l++) {
            unsigned rep[3], o = lu_map_owner(&m, l);
            /* AND each line's owner owns its bucket and is its first replica; the others are live,
             * distinct, the next live CNs after it */
            cr_assert(lu_map_own(&m, o) >> lu_map_bucket(l) & 1u);
            cr_assert_eq(lu_map_replicas(&m, l, 3, rep), 3);
            cr_assert_eq(rep[0], o);
            for (unsigned i = 0; i < 3; i++) {
                cr_assert(lives[v] >> rep[i] & 1u);
                per_cn[rep[i]]++;
            }
            cr_assert(rep[1] != rep[0] && rep[2] != rep[0] && rep[1] != rep[2]);
            for (unsigned c = (rep[0] + 1) % ncn; c != rep[1]; c = (c + 1) % ncn)
                cr_assert(!(lives[v] >> c & 1u), "a live CN skipped between replicas");
        }
        /* AND consecutive lines spread over the live CNs: no CN replicates over twice its share */
        for (unsigned c = 0; c < ncn; c++)
            cr_assert_leq(per_cn[c], 2 * 3 * 100003 / n, "CN %u replicates %u lines", c, per_cn[c]);
    }
    /* AND the bucket is the XOR fold of 6-bit chunks (the RTL's line_bucket) */
    cr_assert_eq(lu_map_bucket(0), 0);
    cr_assert_eq(lu_map_bucket(5), 5);
    cr_assert_eq(lu_map_bucket(64 + 5), 4);
    cr_assert_eq(lu_map_bucket(1ull << 41), 1u << 5);
    cr_assert_eq(lu_map_bucket(63ull << 36 | 63), 0);
    unsigned total = 0;
    for (unsigned j = 0; j < 4; j++)
        total += lu_map_lus_of_mn(j, ncn, 4);
    cr_assert_eq(total, ncn);
    cr_assert_eq(lu_map_lus_of_mn(3, 2, 4), 0);
}

Test(lu_node, a_failed_cns_buckets_go_to_its_successor_which_holds_their_records)
{
    /* GIVEN 8 CNs, all alive, Nr 3 */
    const unsigned ncn = 8;
    lu_map_t m, before;
    lu_map_init(&m, ncn, 0xffu);
    before = m;
    /* WHEN CN 5 fails, then CN 6 (its successor) */
    lu_map_fail(&m, 5);
    /* THEN 5 owns nothing; its buckets went to 6, the second member of their old sets; no other
     * bucket moved */
    cr_assert_eq(lu_map_own(&m, 5), 0);
    cr_assert_eq(lu_map_live(&m), 7);
    for (unsigned b = 0; b < LU_MAP_BUCKETS; b++)
        cr_assert_eq(m.owner[b], before.owner[b] == 5 ? 6 : before.owner[b], "bucket %u", b);
    /* AND every line's new set is its old set without 5, plus the next live CN after it: every old
     * live member is still in, so the records since the last dump are all still replicated */
    for (uint64_t l = 0; l < 4096; l++) {
        unsigned o[3], n[3];
        lu_map_replicas(&before, l, 3, o);
        cr_assert_eq(lu_map_replicas(&m, l, 3, n), 3);
        for (unsigned i = 0; i < 3; i++) {
            bool in = o[i] == 5;
            for (unsigned j = 0; j < 3; j++)
                in = in || n[j] == o[i];
            cr_assert(in, "line %llu: live replica %u left its set", (unsigned long long)l, o[i]);
            cr_assert_neq(n[i], 5);
        }
    }
    lu_map_fail(&m, 6);
    for (unsigned b = 0; b < LU_MAP_BUCKETS; b++)
        if (before.owner[b] == 5 || before.owner[b] == 6)
            cr_assert_eq(m.owner[b], 7, "bucket %u", b);
    /* AND failing a CN twice, or one out of range, changes nothing */
    lu_map_t again = m;
    lu_map_fail(&m, 6);
    lu_map_fail(&m, 40);
    cr_assert_eq(memcmp(&again, &m, sizeof m), 0);
}

/* The CN's software floods MGREQ (MSI to MN 0, which its store passes on as not its own) on
 * every place the port gives it back. */
typedef struct flood {
    tsys_t *s;
    unsigned sent;
    bool on, in_send;
} flood_t;

static void flood_fill(flood_t *fl)
{
    if (fl->in_send)
        return;
    fl->in_send = true;
    while (fl->on && cn_port_credits(fl->s->port[0], CN_PORT_SW, CLS_MGREQ)) {
        msg_t m = {.opcode = OP_MSI, .src = 0, .dst = MSG_MN_BASE, .subject = 1};
        cn_port_send(fl->s->port[0], CN_PORT_SW, &m);
        fl->sent++;
    }
    fl->in_send = false;
}

static void flood_credit(void *obj, msg_class_t c)
{
    (void)c;
    flood_fill(obj);
}

Test(lu_node, a_flooding_user_does_not_starve_the_lu_on_a_shared_class)
{
    /* GIVEN CN 0's software keeping its MGREQ queue full, for 20 us */
    setup_t su = {.skip = true, .seed = tb_seed(16), .updates = 1, .lines = 24};
    tsys_t *s = calloc(1, sizeof *s);
    sys_init(s, &su);
    flood_t fl = {.s = s, .on = true};
    cn_port_attach(s->port[0], CN_PORT_SW, NULL, flood_credit, &fl);
    flood_fill(&fl);
    /* WHEN every LU dumps (CN 0's DUMP_REQ is an MGREQ too) */
    for (unsigned c = 0; c < NCN; c++)
        lu_node_dump_start(s->lu[c]);
    kernel_run(&s->k, s->k.now + 20 * PS_PER_US);
    /* THEN the dumps completed while the flood went on, and the flood was never starved either */
    uint64_t dumps = 0;
    for (unsigned j = 0; j < NMN; j++)
        dumps += mn_log_stats(lu_store_log(s->store[j]))->dumps;
    cr_assert_eq(dumps, NCN, "seed %llu: %llu of %u dumps stored under the flood (%u MSIs sent)",
                 (unsigned long long)su.seed, (unsigned long long)dumps, NCN, fl.sent);
    cr_assert_gt(fl.sent, 1000, "%u", fl.sent);
    cr_assert_gt(lu_store_others(s->store[0]), 1000);
    fl.on = false;
    run_quiet(s, 100 * PS_PER_US);
    sys_free(s);
    free(s);
}
