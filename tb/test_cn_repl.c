/* Tests of csim/cn/cn_repl: the CN's replication engine, on a real fabric (c4m2) with a Logging
 * Unit on every CN's port (csim/cn/lu_node) and the MN nodes on the MN ports.
 *
 * A seeded sequence of store-buffer entries from every core of every CN, on a few lines spread over
 * every LU's range: each entry is replicated (cn_repl_send), and when it is acknowledged it
 * "commits" with its line's next version and is validated (cn_repl_val). One entry per line is in
 * flight at a time, so the test knows every line's true version. At the end every replica LU's DRAM
 * log must hold, per word, every committed value once, in version order; no other LU may hold the
 * line; the message counts are Nr per entry each way. Replay: TB_SEED=<seed>. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/kernel.h"
#include "base/rng.h"
#include "base/stats.h"
#include "cn/cn_port.h"
#include "cn/cn_repl.h"
#include "cn/lu_map.h"
#include "cn/lu_node.h"
#include "csr_defs.h"
#include "drv/lu_drv.h"
#include "drv/fabric.h"
#include "mn/mn_node.h"
#include "sb/lu_models.h"
#include "tb_seed.h"

#define NCN 4u
#define NMN 2u
#define CORES 2u
#define NLINES 12u
#define LINES (NMN * (1u << 20) / 64u)

typedef struct entry {
    unsigned cn, core, li;
    uint8_t mask;
    uint64_t val[8];
    uint32_t h;
} entry_t;

typedef struct rsys {
    uint64_t seed;
    kernel_t k;
    stats_t st;
    rng_t rng;
    fabric_t *f;
    mn_node_t *mn[NMN];
    cn_port_t *port[NCN];
    lu_node_t *lu[NCN];
    cn_repl_t *repl[NCN];
    entry_t *e;
    unsigned n, started, committed;
    lu_map_t map; /* every CN alive */
    uint64_t line[NLINES];
    bool busy[NLINES];
    unsigned version[NLINES];
    /* per line and word: the committed values in version order */
    uint64_t *hist[NLINES][8];
    unsigned nhist[NLINES][8];
} rsys_t;

static void start_one(void *obj, uint64_t arg);

static bool on_acked(void *obj, uint64_t tag, bool acked)
{
    if (!acked)
        return false; /* (it commits at once: a taken-back acknowledgement changes nothing) */
    rsys_t *s = obj;
    entry_t *e = &s->e[tag];
    unsigned v = ++s->version[e->li];
    for (unsigned w = 0; w < 8; w++)
        if (e->mask >> w & 1u)
            s->hist[e->li][w][s->nhist[e->li][w]++] = e->val[w];
    cn_repl_val(s->repl[e->cn], e->h, v);
    s->committed++;
    s->busy[e->li] = false;
    kernel_after(&s->k, rng_below(&s->rng, 100) * 1000, start_one, s, 0);
    return true;
}

static void start_one(void *obj, uint64_t arg)
{
    (void)arg;
    rsys_t *s = obj;
    if (s->started == s->n)
        return;
    unsigned li = (unsigned)rng_below(&s->rng, NLINES), k;
    for (k = 0; k < NLINES && s->busy[li]; k++)
        li = (li + 1) % NLINES;
    if (k == NLINES)
        return;
    s->busy[li] = true;
    entry_t *e = &s->e[s->started];
    *e = (entry_t){.cn = (unsigned)rng_below(&s->rng, NCN), .core = (unsigned)rng_below(&s->rng, CORES), .li = li,
                   .mask = (uint8_t)(rng_below(&s->rng, 255) + 1)};
    for (unsigned w = 0; w < 8; w++)
        e->val[w] = rng_next(&s->rng);
    e->h = cn_repl_send(s->repl[e->cn], e->core, s->line[li], e->mask, e->val, false, on_acked, s, s->started);
    s->started++;
}

static void rsys_init(rsys_t *s, unsigned n, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->seed = seed;
    s->n = n;
    kernel_init(&s->k);
    cr_assert_eq(stats_init(&s->st), 0);
    rng_init_named(&s->rng, seed, "test_cn_repl");
    const fabric_model_ops_t *ops = fabric_model_find(NCN, NMN);
    cr_assert_not_null(ops);
    fabric_params_t fp = {.freq_hz = 1000000000ull, .link_latency_ps = 36000, .link_jitter_ps = 20000,
                          .rx_credits = 4, .skip_idle = true, .seed = seed, .reset_cycles = 4,
                          .heartbeat_cycles = 256, .silence_cycles = 4096, .accept_cycles = 65536};
    s->f = fabric_create(&s->k, ops, &fp, &s->st);
    cr_assert_not_null(s->f);
    char err[512];
    lu_map_init(&s->map, NCN, (1u << NCN) - 1);
    for (unsigned j = 0; j < NMN; j++) {
        char name[16];
        snprintf(name, sizeof name, "mn%u", j);
        mn_node_params_t mp = {.mn = j, .num_mn = NMN, .mn_bytes = 1u << 20, .interleave_bytes = 4096,
                               .freq_hz = 1000000000ull, .dram_latency_ps = 45000, .name = name, .seed = seed + j,
                               .skip_idle = true};
        s->mn[j] = mn_node_create(&s->k, s->f, NCN + j, &dir_ops_sys, &mp, &s->st, err);
        cr_assert_not_null(s->mn[j], "%s", err);
    }
    for (unsigned c = 0; c < NCN; c++) {
        char name[32];
        snprintf(name, sizeof name, "cn%u.port", c);
        s->port[c] = cn_port_create(s->f, c, 4, name, &s->st);
        cr_assert_not_null(s->port[c]);
        snprintf(name, sizeof name, "cn%u.lu", c);
        lu_node_params_t lp = {.cn = c, .num_cn = NCN, .freq_hz = 500000000ull, .sram_bytes = 4096,
                               .dram_log_bytes = 18ull << 20, .high_watermark = 0.9, .dump_period_ps = 0,
                               .zlib_level = 9, .dram_latency_ps = 45000, .addr_lim = LINES,
                               .mn = lu_map_mn(c, NMN), .name = name, .seed = seed + 100 + c, .skip_idle = true};
        s->lu[c] = lu_node_create(&s->k, s->port[c], &lu_ops_default, &lp, &s->st, err);
        cr_assert_not_null(s->lu[c], "%s", err);
        snprintf(name, sizeof name, "cn%u.repl", c);
        cn_repl_params_t rp = {.cn = c, .num_cn = NCN, .cores = CORES, .nr = 3, .map = &s->map,
                               .early_sets = 2, .early_words = 10, .name = name};
        s->repl[c] = cn_repl_create(&s->k, s->port[c], &rp, &s->st, err);
        cr_assert_not_null(s->repl[c], "%s", err);
    }
    for (unsigned i = 0; i < NLINES; i++) {
        s->line[i] = (uint64_t)i * (LINES / NLINES) + (i % 3) * 64 + i;
        for (unsigned w = 0; w < 8; w++)
            s->hist[i][w] = calloc(n, sizeof(uint64_t));
    }
    s->e = calloc(n, sizeof *s->e);
    kernel_run(&s->k, 2 * PS_PER_US);
}

static void rsys_free(rsys_t *s)
{
    for (unsigned c = 0; c < NCN; c++) {
        cn_repl_free(s->repl[c]);
        lu_node_free(s->lu[c]);
        cn_port_free(s->port[c]);
    }
    for (unsigned j = 0; j < NMN; j++)
        mn_node_free(s->mn[j]);
    fabric_free(s->f);
    for (unsigned i = 0; i < NLINES; i++)
        for (unsigned w = 0; w < 8; w++)
            free(s->hist[i][w]);
    free(s->e);
    kernel_free(&s->k);
    stats_free(&s->st);
}

static bool rsys_quiet(rsys_t *s)
{
    if (!fabric_quiet(s->f))
        return false;
    for (unsigned c = 0; c < NCN; c++)
        if (!cn_repl_idle(s->repl[c]) || !lu_node_idle(s->lu[c]) || cn_port_queued(s->port[c]))
            return false;
    return true;
}

static uint64_t counter(rsys_t *s, unsigned cn, const char *leaf)
{
    char name[64];
    snprintf(name, sizeof name, "cn%u.repl.%s", cn, leaf);
    const uint64_t *v = stats_find_counter(&s->st, name);
    cr_assert_not_null(v, "%s", name);
    return *v;
}

Test(cn_repl, replicas_log_every_committed_word_in_version_order, .timeout = 120)
{
    /* GIVEN 4 CNs of 2 cores with an LU each, Nr = 3, 20 ns of link jitter */
    uint64_t seed = tb_seed(0x4e11);
    rsys_t s;
    rsys_init(&s, 300, seed);
    /* WHEN 300 entries are replicated, acknowledged, committed and validated, 6 lines at a time */
    for (unsigned i = 0; i < 6; i++)
        start_one(&s, 0);
    uint64_t limit = s.k.now + 10 * PS_PER_MS;
    while (s.k.now < limit && !(s.committed == s.n && rsys_quiet(&s))) {
        kernel_run(&s.k, s.k.now + PS_PER_US);
        if (s.started < s.n)
            start_one(&s, 0);
    }
    if (s.committed < s.n || !rsys_quiet(&s)) {
        for (unsigned c = 0; c < NCN; c++)
            cn_repl_dump(s.repl[c], stderr);
        cr_assert_fail("seed %" PRIu64 ": %u of %u committed, not quiet (replay: TB_SEED=%" PRIu64 ")", seed,
                       s.committed, s.n, seed);
    }
    /* THEN each replica's DRAM log holds every committed value of each word once, in order, with
     * the version as its TS; non-replicas hold nothing of the line */
    for (unsigned c = 0; c < NCN; c++) {
        const lu_drv_t *d = lu_node_drv(s.lu[c]);
        unsigned seen[NLINES][8] = {{0}};
        for (size_t i = 0; i < lu_drv_log_writes(d); i++) {
            const lu_rec_t *r = lu_drv_log_write(d, i);
            unsigned li = 0;
            while (li < NLINES && s.line[li] != r->line)
                li++;
            cr_assert_lt(li, NLINES, "seed %" PRIu64 ": LU %u logged line 0x%" PRIx64 ", which nobody wrote", seed,
                         c, r->line);
            unsigned rep[3];
            cn_repl_replicas(s.repl[0], s.line[li], rep);
            cr_assert(rep[0] == c || rep[1] == c || rep[2] == c, "seed %" PRIu64 ": LU %u is no replica of line %u",
                      seed, c, li);
            unsigned k = seen[li][r->word]++;
            cr_assert_lt(k, s.nhist[li][r->word], "seed %" PRIu64 ": LU %u logged line %u word %u too often", seed, c,
                         li, r->word);
            cr_assert_eq(r->value, s.hist[li][r->word][k],
                         "seed %" PRIu64 ": LU %u line %u word %u: record %u out of commit order", seed, c, li,
                         r->word, k);
        }
        for (unsigned li = 0; li < NLINES; li++) {
            unsigned rep[3];
            cn_repl_replicas(s.repl[0], s.line[li], rep);
            bool is_rep = rep[0] == c || rep[1] == c || rep[2] == c;
            for (unsigned w = 0; w < 8; w++)
                cr_assert_eq(seen[li][w], is_rep ? s.nhist[li][w] : 0,
                             "seed %" PRIu64 ": LU %u line %u word %u: %u of %u committed values logged", seed, c, li,
                             w, seen[li][w], s.nhist[li][w]);
        }
    }
    /* AND Nr REPLs, REPL_ACKs and VALs per entry */
    uint64_t repl = 0, acks = 0, vals = 0;
    for (unsigned c = 0; c < NCN; c++) {
        repl += counter(&s, c, "repl_msgs");
        acks += counter(&s, c, "repl_acks");
        vals += counter(&s, c, "val_msgs");
    }
    cr_assert(repl == 3 * s.n && acks == 3 * s.n && vals == 3 * s.n,
              "%" PRIu64 " REPLs, %" PRIu64 " REPL_ACKs, %" PRIu64 " VALs for %u entries", repl, acks, vals, s.n);
    rsys_free(&s);
}

Test(cn_repl, impossible_parameters_are_refused)
{
    rsys_t s;
    rsys_init(&s, 1, 1);
    char err[CN_REPL_ERR_MAX] = "";
    cn_repl_params_t p = {.cn = 0, .num_cn = NCN, .cores = CORES, .nr = NCN + 1, .map = &s.map, .name = "x"};
    cr_assert_null(cn_repl_create(&s.k, s.port[0], &p, &s.st, err));
    cr_assert(strstr(err, "Nr must be 1 .. num_cn"), "%s", err);
    p.nr = 0;
    cr_assert_null(cn_repl_create(&s.k, s.port[0], &p, &s.st, err));
    p.nr = 2, p.cores = 0;
    cr_assert_null(cn_repl_create(&s.k, s.port[0], &p, &s.st, err));
    p.cores = CORES, p.map = NULL;
    cr_assert_null(cn_repl_create(&s.k, s.port[0], &p, &s.st, err));
    cr_assert(strstr(err, "no replica map"), "%s", err);
    rsys_free(&s);
}

static bool count_acked(void *obj, uint64_t tag, bool acked)
{
    unsigned *n = obj;
    (void)tag;
    if (acked)
        (*n)++;
    return false;
}

Test(cn_repl, early_sets_stay_within_their_share_of_each_replica, .timeout = 60)
{
    /* GIVEN CN 0 may have 2 early sets and 10 early words outstanding toward each replica LU */
    rsys_t s;
    rsys_init(&s, 1, tb_seed(0x4e12));
    cn_repl_t *r = s.repl[0];
    uint64_t w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    unsigned acked = 0;
    /* WHEN two early sets of 4 words of one line go, THEN both are sent */
    uint32_t h1 = cn_repl_send(r, 0, s.line[0], 0x0f, w, true, count_acked, &acked, 1);
    uint32_t h2 = cn_repl_send(r, 1, s.line[0], 0xf0, w, true, count_acked, &acked, 2);
    cr_assert(h1 != REPL_REFUSED && h2 != REPL_REFUSED);
    /* AND a third early set (a third set) is refused, nothing sent; a head set is not */
    cr_assert_eq(cn_repl_send(r, 0, s.line[0], 0x01, w, true, count_acked, &acked, 3), REPL_REFUSED);
    uint32_t h3 = cn_repl_send(r, 0, s.line[0], 0x01, w, false, count_acked, &acked, 3);
    cr_assert_neq(h3, REPL_REFUSED);
    while (acked < 3)
        kernel_run(&s.k, s.k.now + PS_PER_US);
    /* WHEN the first is validated, THEN one set of up to 6 words fits again, not one of 8 */
    cn_repl_val(r, h1, 1);
    cr_assert_eq(cn_repl_send(r, 0, s.line[0], 0xff, w, true, count_acked, &acked, 4), REPL_REFUSED);
    uint32_t h4 = cn_repl_send(r, 0, s.line[0], 0x3f, w, true, count_acked, &acked, 4);
    cr_assert_neq(h4, REPL_REFUSED);
    cr_assert_eq(*stats_find_counter(&s.st, "cn0.repl.early_refused"), 2);
    while (acked < 4)
        kernel_run(&s.k, s.k.now + PS_PER_US);
    cn_repl_val(r, h2, 2);
    cn_repl_val(r, h3, 3);
    cn_repl_val(r, h4, 4);
    rsys_free(&s);
}

static bool note_acked(void *obj, uint64_t tag, bool acked)
{
    if (acked)
        *(uint64_t *)obj |= 1ull << tag;
    return false;
}

typedef struct unsent {
    unsigned n, core;
    uint64_t line;
    uint8_t mask;
} unsent_t;

static void note_unsent(void *obj, unsigned core, uint64_t gline, uint8_t mask)
{
    unsent_t *u = obj;
    u->n++, u->core = core, u->line = gline, u->mask = mask;
}

Test(cn_repl, a_failed_replica_is_replaced_and_unsent_vals_are_found, .timeout = 60)
{
    /* GIVEN 4 CNs with an LU each, Nr = 3, and a line whose replicas include CN 2 but not CN 0 */
    rsys_t s;
    rsys_init(&s, 1, tb_seed(0x10a7));
    uint64_t line = 0;
    unsigned rep[3];
    for (;; line++) {
        cn_repl_replicas(s.repl[0], line, rep);
        if ((rep[0] == 2 || rep[1] == 2 || rep[2] == 2) && rep[0] != 0 && rep[1] != 0 && rep[2] != 0)
            break;
    }
    /* WHEN CN 2's LU fails and CN 0 replicates two words of the line */
    lu_node_set_alive(s.lu[2], false);
    uint64_t acked = 0, w[8] = {11, 22};
    uint32_t h = cn_repl_send(s.repl[0], 1, line, 0x03, w, false, note_acked, &acked, 0);
    kernel_run(&s.k, s.k.now + 5 * PS_PER_US);
    /* THEN it waits for the failed LU's REPL_ACK */
    cr_assert_eq(acked, 0, "acknowledged without the failed replica");
    /* WHEN the map drops CN 2 and the engine hears of it */
    lu_map_fail(&s.map, 2);
    cn_repl_lost(s.repl[0], 2);
    kernel_run(&s.k, s.k.now + 5 * PS_PER_US);
    /* THEN the REPL went to the line's new member (CN 0 itself: the only live CN outside the old
     * set), whose REPL_ACK completed the entry */
    cr_assert_eq(acked, 1, "not acknowledged after the replacement");
    cr_assert_eq(counter(&s, 0, "repl_msgs"), 4);
    unsigned nrep[3];
    cn_repl_replicas(s.repl[0], line, nrep);
    cr_assert(nrep[0] == 0 || nrep[1] == 0 || nrep[2] == 0);
    /* WHEN the entry commits while CN 0's link is down (its port cannot forward the VALs) */
    fabric_fail_node(s.f, 0);
    cn_repl_val(s.repl[0], h, 1);
    /* THEN the engine reports it unsent: its commit was not durable */
    unsent_t u = {0};
    cn_repl_unsent(s.repl[0], note_unsent, &u);
    cr_assert(u.n == 1 && u.core == 1 && u.line == line && u.mask == 0x03, "%u unsent, core %u line 0x%llx mask 0x%x",
              u.n, u.core, (unsigned long long)u.line, u.mask);
    rsys_free(&s);
}

/* A stand-in for an LU on CN 1's port (its user CN_PORT_LU): sends REPL_QUERYs, keeps the answers. */
typedef struct probe {
    msg_t got[4];
    unsigned n;
} probe_t;

static void probe_deliver(void *obj, const msg_t *m)
{
    probe_t *p = obj;
    cr_assert_lt(p->n, 4u);
    p->got[p->n++] = *m;
}

/* The tag of an engine's handle (cn_repl.c: core * 1024 + tag). */
#define HANDLE_TAG(h) ((h) % 1024u)

Test(cn_repl, a_query_is_answered_pending_until_the_store_commits, .timeout = 60)
{
    /* GIVEN CN 0 replicates an entry of core 1 to a line whose replicas do not include CN 1, and an
     * LU stand-in on CN 1's port */
    rsys_t s;
    rsys_init(&s, 1, tb_seed(0x9e57));
    uint64_t line = 0;
    unsigned rep[3];
    for (;; line++) {
        cn_repl_replicas(s.repl[0], line, rep);
        if (rep[0] != 1 && rep[1] != 1 && rep[2] != 1)
            break;
    }
    probe_t p = {0};
    cn_port_attach(s.port[1], CN_PORT_LU, probe_deliver, NULL, &p);
    uint64_t acked = 0, w[8] = {5};
    uint32_t h = cn_repl_send(s.repl[0], 1, line, 0x01, w, true, note_acked, &acked, 0);
    kernel_run(&s.k, s.k.now + 5 * PS_PER_US);
    cr_assert_eq(acked, 1);
    msg_t q = {.opcode = OP_REPL_QUERY, .src = 1, .dst = 0, .core = 1, .tag = (uint16_t)HANDLE_TAG(h), .addr = line};
    /* WHEN the stand-in asks about it before it commits */
    cn_port_send(s.port[1], CN_PORT_LU, &q);
    kernel_run(&s.k, s.k.now + 5 * PS_PER_US);
    /* THEN the answer echoes the REPL and says PENDING */
    cr_assert_eq(p.n, 1);
    cr_assert(p.got[0].opcode == OP_REPL_QUERY_RESP && p.got[0].src == 0 && p.got[0].dst == 1 &&
                  p.got[0].core == 1 && p.got[0].tag == q.tag && p.got[0].addr == line &&
                  p.got[0].flags == MSG_FLAG_PENDING,
              "%s flags %u", msg_name(p.got[0].opcode), p.got[0].flags);
    /* WHEN it commits, and the stand-in asks again, and about a line the tag does not hold */
    cn_repl_val(s.repl[0], h, 1);
    cn_port_send(s.port[1], CN_PORT_LU, &q);
    msg_t q2 = q;
    q2.addr = line + 1;
    cn_port_send(s.port[1], CN_PORT_LU, &q2);
    kernel_run(&s.k, s.k.now + 5 * PS_PER_US);
    /* THEN neither answer is PENDING (the first one's VAL left before it) */
    cr_assert_eq(p.n, 3);
    cr_assert(p.got[1].opcode == OP_REPL_QUERY_RESP && p.got[1].flags == 0 && p.got[1].addr == line);
    cr_assert(p.got[2].opcode == OP_REPL_QUERY_RESP && p.got[2].flags == 0 && p.got[2].addr == line + 1);
    cr_assert_eq(counter(&s, 0, "queries"), 3);
    cr_assert_eq(counter(&s, 0, "queries_pending"), 1);
    /* AND the entry is done once its VALs left (the answers in the same queue did not confuse it) */
}

/* A core's side of an entry's acknowledgement: how often it was given, taken back, and whether the
 * core lets it be taken back (its store not yet on its way to commit). */
typedef struct ackst {
    unsigned acked, taken;
    bool can_take;
} ackst_t;

static bool track_acked(void *obj, uint64_t tag, bool acked)
{
    ackst_t *a = obj;
    (void)tag;
    if (acked) {
        a->acked++;
        return true;
    }
    if (!a->can_take)
        return false;
    a->taken++;
    return true;
}

/* CN 0 replicates two words of a line whose Nr = 3 replicas include CN 2 but not CN 0, until all
 * three acknowledged; then CN 2 fails and the engine hears of it (the entry not committed). */
static uint64_t acked_then_replica_fails(rsys_t *s, ackst_t *a, uint32_t *h)
{
    uint64_t line = 0;
    unsigned rep[3];
    for (;; line++) {
        cn_repl_replicas(s->repl[0], line, rep);
        if ((rep[0] == 2 || rep[1] == 2 || rep[2] == 2) && rep[0] != 0 && rep[1] != 0 && rep[2] != 0)
            break;
    }
    uint64_t w[8] = {11, 22};
    *h = cn_repl_send(s->repl[0], 1, line, 0x03, w, false, track_acked, a, 0);
    kernel_run(&s->k, s->k.now + 5 * PS_PER_US);
    cr_assert_eq(a->acked, 1);
    lu_node_set_alive(s->lu[2], false);
    lu_map_fail(&s->map, 2);
    cn_repl_lost(s->repl[0], 2);
    return line;
}

/* The records the LU of CN c logged (validated and drained) of line. */
static unsigned logged(rsys_t *s, unsigned c, uint64_t line)
{
    const lu_drv_t *d = lu_node_drv(s->lu[c]);
    unsigned n = 0;
    for (size_t i = 0; i < lu_drv_log_writes(d); i++)
        n += lu_drv_log_write(d, i)->line == line;
    return n;
}

Test(cn_repl, an_acknowledged_entry_that_loses_a_replica_gets_its_replacement_before_its_commit, .timeout = 60)
{
    /* GIVEN an entry acknowledged by its three replicas, one of which (CN 2) then fails, its core
     * able to take the acknowledgement back (the store has not been let go) */
    rsys_t s;
    rsys_init(&s, 1, tb_seed(0x10a8));
    ackst_t a = {.can_take = true};
    uint32_t h;
    uint64_t line = acked_then_replica_fails(&s, &a, &h);
    /* THEN the acknowledgement is taken back and the REPL goes to the line's new member (CN 0) */
    cr_assert_eq(a.taken, 1);
    cr_assert_eq(counter(&s, 0, "repl_msgs"), 4);
    /* WHEN its REPL_ACK comes THEN the entry is acknowledged again; its commit's VALs reach the
     * three live replicas, each of which logs the two words (Nr copies, where it used to keep
     * Nr - 1) */
    kernel_run(&s.k, s.k.now + 5 * PS_PER_US);
    cr_assert_eq(a.acked, 2);
    cn_repl_val(s.repl[0], h, 1);
    kernel_run(&s.k, s.k.now + 5 * PS_PER_US);
    cr_assert_eq(counter(&s, 0, "val_msgs"), 3);
    unsigned rep[3];
    cn_repl_replicas(s.repl[0], line, rep);
    for (unsigned i = 0; i < 3; i++)
        cr_assert_eq(logged(&s, rep[i], line), 2, "CN %u logged %u records of the line", rep[i],
                     logged(&s, rep[i], line));
    cr_assert(cn_repl_idle(s.repl[0]));
    rsys_free(&s);
}

Test(cn_repl, a_replacement_of_a_store_let_go_gets_its_val_only_after_its_repl_ack, .timeout = 60)
{
    /* GIVEN the same, but the core cannot take the acknowledgement back (its store is on its way
     * to commit) */
    rsys_t s;
    rsys_init(&s, 1, tb_seed(0x10a9));
    ackst_t a = {.can_take = false};
    uint32_t h;
    uint64_t line = acked_then_replica_fails(&s, &a, &h);
    cr_assert_eq(counter(&s, 0, "repl_msgs"), 4, "no REPL to the new member");
    /* WHEN the store commits at once THEN the VALs go to the two old replicas, and the new
     * member's only once its REPL_ACK is in (it must not overtake the REPL) */
    cn_repl_val(s.repl[0], h, 1);
    cr_assert_eq(counter(&s, 0, "val_msgs"), 2);
    kernel_run(&s.k, s.k.now + 5 * PS_PER_US);
    cr_assert_eq(counter(&s, 0, "repl_acks"), 4);
    cr_assert_eq(counter(&s, 0, "val_msgs"), 3);
    cr_assert_eq(a.acked, 1);
    unsigned rep[3];
    cn_repl_replicas(s.repl[0], line, rep);
    for (unsigned i = 0; i < 3; i++) {
        cr_assert_eq(logged(&s, rep[i], line), 2, "CN %u logged %u records of the line", rep[i],
                     logged(&s, rep[i], line));
        bool err;
        cr_assert_eq(lu_node_csr(s.lu[rep[i]], LU_CSR_ERR_VAL_NO_REPL, &err), 0);
    }
    cr_assert(cn_repl_idle(s.repl[0]));
    rsys_free(&s);
}

/* A counter of the engine test a_failed_replicas_early_set... creates in place of CN 0's. */
static uint64_t repl2_counter(rsys_t *s, const char *leaf)
{
    char name[64];
    snprintf(name, sizeof name, "cn0.repl2.%s", leaf);
    const uint64_t *v = stats_find_counter(&s->st, name);
    cr_assert_not_null(v, "%s", name);
    return *v;
}

Test(cn_repl, a_failed_replicas_early_set_waits_for_the_head_when_its_replacements_share_is_in_use, .timeout = 60)
{
    /* GIVEN CN 0's engine with Nr = 2 and a share of 1 early set per replica LU, an early set E of
     * a line whose replicas are {a, 2}, and an early set of a line whose replicas are the two other
     * CNs, one of them E's replacement d should CN 2 fail (the share toward d in use) */
    rsys_t s;
    rsys_init(&s, 1, tb_seed(0x4e1d));
    cn_repl_free(s.repl[0]);
    char err[CN_REPL_ERR_MAX];
    cn_repl_params_t rp = {.cn = 0, .num_cn = NCN, .cores = CORES, .nr = 2, .map = &s.map,
                           .early_sets = 1, .early_words = 10, .name = "cn0.repl2"};
    cn_repl_t *r = s.repl[0] = cn_repl_create(&s.k, s.port[0], &rp, &s.st, err);
    cr_assert_not_null(r, "%s", err);
    lu_map_t after = s.map;
    lu_map_fail(&after, 2);
    uint64_t line = 0, own = 0;
    unsigned rep[2], now[2], d = NCN;
    for (; d == NCN; line++) {
        cn_repl_replicas(r, line, rep);
        if (rep[0] != 2 && rep[1] != 2)
            continue;
        lu_map_replicas(&after, line, 2, now);
        d = now[0] != rep[0] && now[0] != rep[1] ? now[0] : now[1];
    }
    line--;
    unsigned o[2];
    for (;; own++) {
        cn_repl_replicas(r, own, o);
        if ((o[0] == d || o[1] == d) && o[0] != rep[0] && o[0] != rep[1] && o[1] != rep[0] && o[1] != rep[1])
            break;
    }
    uint64_t w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    unsigned acked = 0;
    uint32_t ho = cn_repl_send(r, 1, own, 0x01, w, true, count_acked, &acked, 1);
    ackst_t a = {.can_take = true};
    uint32_t he = cn_repl_send(r, 0, line, 0x03, w, true, track_acked, &a, 2);
    cr_assert(ho != REPL_REFUSED && he != REPL_REFUSED);
    kernel_run(&s.k, s.k.now + 5 * PS_PER_US);
    cr_assert(acked == 1 && a.acked == 1);
    const uint64_t sent = repl2_counter(&s, "repl_msgs");
    /* WHEN CN 2 fails */
    lu_node_set_alive(s.lu[2], false);
    lu_map_fail(&s.map, 2);
    cn_repl_lost(r, 2);
    kernel_run(&s.k, s.k.now + 5 * PS_PER_US);
    /* THEN E's acknowledgement is taken back and its REPL to d is held (a second early set toward d
     * would exceed the share): E waits */
    cr_assert_eq(a.taken, 1);
    cr_assert_eq(repl2_counter(&s, "repl_msgs"), sent, "the REPL to the replacement left beyond the share");
    cr_assert_eq(repl2_counter(&s, "held_for_head"), 1);
    cr_assert_leq(repl2_counter(&s, "early_sets_max"), 1);
    cr_assert_eq(a.acked, 1);
    /* WHEN E's store reaches its head THEN the REPL leaves as a head set and is acknowledged */
    const repl_if_t *rif = cn_repl_if(r);
    rif->head(rif->obj, he);
    kernel_run(&s.k, s.k.now + 5 * PS_PER_US);
    cr_assert_eq(repl2_counter(&s, "repl_msgs"), sent + 1);
    cr_assert_eq(a.acked, 2);
    cr_assert_leq(repl2_counter(&s, "early_sets_max"), 1);
    /* AND both commit and are done, and the share is whole again (an early set toward d fits) */
    cn_repl_val(r, ho, 1);
    cn_repl_val(r, he, 1);
    kernel_run(&s.k, s.k.now + 5 * PS_PER_US);
    cr_assert(cn_repl_idle(r));
    uint32_t h3 = cn_repl_send(r, 1, own, 0x01, w, true, count_acked, &acked, 3);
    cr_assert(h3 != REPL_REFUSED, "the share was not given back");
    kernel_run(&s.k, s.k.now + 5 * PS_PER_US);
    cn_repl_val(r, h3, 2);
    rsys_free(&s);
}
