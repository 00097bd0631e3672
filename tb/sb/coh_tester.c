#include "coh_tester.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../ref/dir_ctrl_ref.h" /* the address map of section 11c (dir_addr_mn) */

#define W MSG_WORDS_PER_LINE
#define NEVER UINT64_MAX
#define VER_MASK ((1u << MSG_TS_W) - 1)

/* Cache states of a line in an agent, and the request it has outstanding for it. */
enum { CS_I, CS_S, CS_E, CS_M };
enum { P_NONE, P_RDS, P_RDOWN, P_UPG, P_CLEAN_EV, P_DIRTY_EV, P_WT };
/* Operations. */
enum { K_LOAD, K_STORE, K_WT, K_EVICT, K_LNR_RD, K_LNR_WR };

static const char *const cs_name[] = {"I", "S", "E", "M"};
static const char *const p_name[] = {"-", "RD_SHARED", "RD_OWN", "RD_UPGRADE", "CLEAN_EVICT", "DIRTY_EVICT", "WT_WR"};
static const char *const k_name[] = {"load", "store", "write-through store", "evict", "LNR read", "LNR write"};

/* One cache entry. pend: the request outstanding for the line. While it waits for the answer to a
 * read or upgrade, a snoop may overtake that answer: void_g (the CN answered BIRSP_I: the answer is
 * void when it comes), keep_s (the CN answered BIRSP_S: it installs the answer as S and gets no
 * ownership from it), or a deferred snoop (def), answered once the answer is in. */
typedef struct cline {
    bool used;
    uint64_t addr;
    unsigned li;
    int st;
    bool dirty;
    uint64_t data[W];
    uint64_t ver; /* the line's version as this CN holds it (unwrapped; meaningful in S, E, M) */
    int pend;
    bool void_g, keep_s, has_def;
    msg_t def;
    int op; /* the operation bound to the line (-1: none) */
} cline_t;

typedef struct op {
    bool used;
    int kind;
    uint64_t addr;
    unsigned li;
    int cl;       /* cache entry (-1 for LNR operations) */
    uint8_t mask; /* words written (stores, LNR writes) */
    uint64_t val[W];
    size_t hidx[W]; /* LNR write: its entries in the words' histories */
    uint16_t tag;
    uint8_t core; /* the requesting core: every answer must echo it */
    bool waiting; /* a request is outstanding */
    uint64_t t_start, t_sent;
    unsigned retries;
} op_t;

struct coh_agent {
    unsigned cn;
    rng_t rng;
    bool defer;
    cline_t *c;
    op_t *o;
    unsigned nops;
    uint16_t next_tag;
    uint64_t seq;
    /* per line used: this CN answered WR_IN_FLIGHT for a write-through and has sent no request
     * for the line since; the home may then keep the CN's stale-write bit (the write-through may
     * have been done already, its CMP on its way: section 11c) until the CN's next request. */
    uint8_t *wt_wif;
};

struct coh_flight {
    uint64_t due, seq;
    bool to_home, dead;
    unsigned dst; /* home index or CN */
    msg_t m;
};

typedef struct lnr_wr {
    uint64_t val, t_issue, t_done;
} lnr_wr_t;

struct coh_lnr_hist {
    lnr_wr_t *w;
    size_t n, cap;
};

/* ---------------------------------------------------------------------------------------------
 * Configurations */

coh_cfg_t coh_cfg_default(void)
{
    return (coh_cfg_t){
        .name = "default", .ncn = 4, .mn_shift = 0, .gran_shift = 0, .lines_per_mn = 256, .scr_lo = 0,
        .scr_hi = 256, .nlines = 16, .nhot = 4, .hot_share = 0.6, .nlnr = 0, .p_lnr = 0.0, .cache_lines = 6,
        .max_out = 3, .p_issue = 0.3, .p_store = 0.35, .p_evict = 0.12, .p_wt = 0.2, .max_words = 3,
        .lat_min = 2, .lat_max = 30, .snoop_policy = COH_SNOOP_AT_ONCE, .p_keep_s = 0.5, .ops = 4000,
        .stall_limit = 20000, .max_cycles = 0, .txn_entries = 16, .dc_sets = 256, .dc_ways = 4,
        .mem_latency = 20, .crd_per_cls = 4, .mutate = 0,
    };
}

const char *const coh_presets[] = {
    "one_mn",        "four_mns",       "interleave_chunks", "lnr",       "small_table", "slow_memory",
    "deferred_snoops", "mixed_snoops", "tiny_dir_cache",    "hot_line",  "no_jitter",   "many_cns",
    NULL,
};

bool coh_cfg_preset(const char *name, coh_cfg_t *c)
{
    *c = coh_cfg_default();
    if (!strcmp(name, "one_mn")) {
        /* the default: one home, 4 CNs, 16 lines of which 4 hot */
    } else if (!strcmp(name, "four_mns")) {
        /* four homes, lines interleaved one by one */
        c->ncn = 8, c->mn_shift = 2, c->lines_per_mn = 64, c->scr_hi = 256, c->nlines = 32, c->nhot = 6;
        c->ops = 6000;
    } else if (!strcmp(name, "interleave_chunks")) {
        /* two homes, chunks of 8 lines */
        c->ncn = 6, c->mn_shift = 1, c->gran_shift = 3, c->lines_per_mn = 128, c->scr_hi = 256;
        c->nlines = 24, c->nhot = 4;
    } else if (!strcmp(name, "lnr")) {
        /* an SCR of 96 lines inside 256: LNR reads and writes beside coherent traffic */
        c->mn_shift = 1, c->gran_shift = 2, c->lines_per_mn = 128, c->scr_lo = 64, c->scr_hi = 160;
        c->nlnr = 8, c->p_lnr = 0.25;
    } else if (!strcmp(name, "small_table")) {
        /* two transaction entries and one credit per class: the input back-pressures */
        c->ncn = 8, c->txn_entries = 2, c->crd_per_cls = 1, c->nlines = 8, c->nhot = 2, c->p_issue = 0.6;
        c->max_out = 4;
    } else if (!strcmp(name, "slow_memory")) {
        /* memory far slower than the links: snoop answers overtake memory data */
        c->ncn = 6, c->mem_latency = 200, c->lat_min = 1, c->lat_max = 10, c->ops = 3000;
    } else if (!strcmp(name, "deferred_snoops")) {
        c->ncn = 6, c->snoop_policy = COH_SNOOP_DEFER;
    } else if (!strcmp(name, "mixed_snoops")) {
        c->ncn = 8, c->mn_shift = 1, c->lines_per_mn = 128, c->snoop_policy = COH_SNOOP_MIXED;
    } else if (!strcmp(name, "tiny_dir_cache")) {
        /* a directory cache of one set of two ways: entries go to DRAM and come back */
        c->dc_sets = 1, c->dc_ways = 2, c->nlines = 24, c->nhot = 3;
    } else if (!strcmp(name, "hot_line")) {
        /* sixteen CNs on one hot line */
        c->ncn = 16, c->nlines = 4, c->nhot = 1, c->hot_share = 0.9, c->cache_lines = 3, c->ops = 5000;
    } else if (!strcmp(name, "no_jitter")) {
        /* every message takes the same time: only the classes' own paths reorder */
        c->lat_min = c->lat_max = 12;
    } else if (!strcmp(name, "many_cns")) {
        /* 32 CNs (every bit of the directory's vectors), four homes */
        c->ncn = 32, c->mn_shift = 2, c->lines_per_mn = 64, c->nlines = 32, c->nhot = 4, c->ops = 8000;
        c->p_issue = 0.1;
    } else {
        return false;
    }
    c->name = name;
    return true;
}

const char *coh_cfg_check(const coh_cfg_t *c)
{
    uint64_t total = c->lines_per_mn << c->mn_shift;
    if (c->ncn < 1 || c->ncn > MSG_MAX_CN)
        return "ncn must be in 1 .. 32";
    if (c->mn_shift > 5)
        return "at most 32 homes (mn_shift <= 5)";
    if (c->lines_per_mn == 0 || c->lines_per_mn % (1ull << c->gran_shift))
        return "lines_per_mn must be a non-zero multiple of 2^gran_shift";
    if (c->scr_lo > c->scr_hi || c->scr_hi > total)
        return "the SCR must lie inside the homes' memory";
    if (c->nlines < 1 || c->nlines > c->scr_hi - c->scr_lo || c->nhot > c->nlines)
        return "nlines must be in 1 .. SCR lines and nhot at most nlines";
    if (c->nlnr > total - (c->scr_hi - c->scr_lo))
        return "nlnr larger than the LNR";
    if (c->nlnr == 0 && c->p_lnr > 0)
        return "p_lnr needs LNR lines";
    if (c->cache_lines < 1 || c->max_out < 1 || c->max_words < 1 || c->max_words > W)
        return "cache_lines and max_out at least 1, max_words in 1 .. 8";
    if (c->lat_min < 1 || c->lat_max < c->lat_min)
        return "link delays: 1 <= lat_min <= lat_max";
    if (c->ops == 0 || c->stall_limit == 0)
        return "ops and stall_limit must be positive";
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Failure */

static void fail(coh_tester_t *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    t->failed = true;
    int n = snprintf(t->msg, sizeof t->msg, "%s: cycle %llu: ", t->ctx, (unsigned long long)t->cycle);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof t->msg)
        vsnprintf(t->msg + n, sizeof t->msg - (size_t)n, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------------------------------------
 * Lines: address -> index, homes */

static size_t h_slot(const coh_tester_t *t, uint64_t a)
{
    size_t i = (size_t)((a * 0x9e3779b97f4a7c15ull) >> 32) & (t->hcap - 1);
    while (t->hkey[2 * i] && t->hkey[2 * i] != a + 1)
        i = (i + 1) & (t->hcap - 1);
    return i;
}
static bool line_index(const coh_tester_t *t, uint64_t a, unsigned *li)
{
    size_t i = h_slot(t, a);
    if (!t->hkey[2 * i])
        return false;
    *li = (unsigned)t->hkey[2 * i + 1];
    return true;
}
static unsigned home_of(const coh_tester_t *t, uint64_t a) { return dir_addr_mn(a, t->cfg.mn_shift, t->cfg.gran_shift); }
static bool is_lnr(const coh_tester_t *t, unsigned li) { return li >= t->cfg.nlines; }

/* ---------------------------------------------------------------------------------------------
 * The link */

static void link_push(coh_tester_t *t, const msg_t *m, bool to_home, unsigned dst)
{
    if (t->nfl == t->capfl) {
        t->capfl = t->capfl ? 2 * t->capfl : 256;
        t->fl = realloc(t->fl, t->capfl * sizeof *t->fl);
        if (!t->fl)
            abort();
    }
    coh_flight_t *f = &t->fl[t->nfl++];
    f->due = t->cycle + rng_range(&t->rng_link, t->cfg.lat_min, t->cfg.lat_max);
    f->seq = t->flseq++;
    f->to_home = to_home;
    f->dead = false;
    f->dst = dst;
    f->m = *m;
    t->st.msgs++;
}

/* ---------------------------------------------------------------------------------------------
 * Agents: cache entries and operations */

static cline_t *cl_find(coh_tester_t *t, coh_agent_t *a, uint64_t addr)
{
    for (unsigned i = 0; i < t->cfg.cache_lines; i++)
        if (a->c[i].used && a->c[i].addr == addr)
            return &a->c[i];
    return NULL;
}

static void cl_release_if_free(cline_t *c)
{
    if (c->st == CS_I && c->pend == P_NONE && c->op < 0 && !c->has_def)
        c->used = false;
}

static uint16_t new_tag(coh_tester_t *t, coh_agent_t *a)
{
    for (;;) {
        uint16_t tag = a->next_tag;
        a->next_tag = (uint16_t)((a->next_tag + 1) & ((1u << MSG_TAG_W) - 1));
        bool used = false;
        for (unsigned k = 0; k < t->cfg.max_out && !used; k++)
            used = a->o[k].used && a->o[k].waiting && a->o[k].tag == tag;
        if (!used)
            return tag;
    }
}

/* A message from agent a toward the home of m->addr. */
static void agent_send(coh_tester_t *t, coh_agent_t *a, msg_t *m)
{
    unsigned h = home_of(t, m->addr);
    m->src = (uint8_t)a->cn;
    m->dst = (uint8_t)(MSG_MN_BASE + h);
    const char *why = msg_check(m);
    if (why)
        fail(t, "tester bug: CN %u would send a malformed %s: %s", a->cn, msg_name(m->opcode), why);
    link_push(t, m, true, h);
}

static void send_req(coh_tester_t *t, coh_agent_t *a, op_t *o, msg_op_t opc, const uint64_t *data, uint8_t mask,
                     uint64_t ver)
{
    o->tag = new_tag(t, a);
    o->core = (uint8_t)rng_below(&a->rng, 1u << MSG_CORE_ID_W);
    o->waiting = true;
    if (o->cl >= 0)
        a->wt_wif[o->li] = 0;
    o->t_sent = t->cycle;
    msg_t m = {.opcode = opc, .core = o->core, .tag = o->tag, .addr = o->addr};
    if (opc == OP_DIRTY_EVICT || (opc == OP_WT_WR && o->cl >= 0))
        m.ts = (uint8_t)(ver & VER_MASK);
    if (data) {
        m.mask = mask;
        for (unsigned w = 0; w < W; w++)
            if (mask >> w & 1)
                m.data[w] = data[w];
    }
    agent_send(t, a, &m);
}

static void op_done(coh_tester_t *t, coh_agent_t *a, op_t *o)
{
    uint64_t age = t->cycle - o->t_start;
    if (age > t->st.max_op_age)
        t->st.max_op_age = age;
    t->st.ops_done++;
    t->last_progress = t->cycle;
    if (o->cl >= 0) {
        cline_t *c = &a->c[o->cl];
        c->op = -1;
        cl_release_if_free(c);
    }
    o->used = false;
    a->nops--;
}

/* Checks that every word of the cached line equals the shadow (what the CN reads). */
static void check_line(coh_tester_t *t, coh_agent_t *a, const cline_t *c, const char *what)
{
    const uint64_t *sh = &t->shadow[(size_t)c->li * W];
    for (unsigned w = 0; w < W; w++)
        if (c->data[w] != sh[w]) {
            fail(t, "CN %u %s line 0x%llx: word %u is 0x%llx, the last completed write wrote 0x%llx", a->cn, what,
                 (unsigned long long)c->addr, w, (unsigned long long)c->data[w], (unsigned long long)sh[w]);
            return;
        }
}

/* A grant's version must be the line's true version (mod 2^MSG_TS_W): the home has it from the
 * last writer's write-back or snoop answer, or kept it since. */
static void check_grant_ver(coh_tester_t *t, coh_agent_t *a, const cline_t *c, const msg_t *m)
{
    uint64_t v = t->sver[c->li];
    if (m->ts != (v & VER_MASK))
        fail(t, "%s to CN %u for line 0x%llx carries version %u, the line's true version is %llu (%llu mod %u)",
             msg_name(m->opcode), a->cn, (unsigned long long)c->addr, m->ts, (unsigned long long)v,
             (unsigned long long)(v & VER_MASK), VER_MASK + 1);
}

static void install(coh_tester_t *t, coh_agent_t *a, cline_t *c, const msg_t *m, int st, const char *how)
{
    const uint64_t *data = m->data;
    check_grant_ver(t, a, c, m);
    c->ver = t->sver[c->li];
    memcpy(c->data, data, sizeof c->data);
    c->st = st;
    c->dirty = false;
    check_line(t, a, c, how);
}

/* A store performed: the CN holds the line in E or M and writes its cache. Single writer: no
 * other CN may hold the line readable at this moment. */
static void do_write(coh_tester_t *t, coh_agent_t *a, cline_t *c, const op_t *o)
{
    for (unsigned b = 0; b < t->cfg.ncn; b++) {
        if (b == a->cn)
            continue;
        cline_t *x = cl_find(t, &t->ag[b], c->addr);
        if (x && x->st != CS_I) {
            fail(t, "single writer violated: CN %u writes line 0x%llx while CN %u holds it in %s", a->cn,
                 (unsigned long long)c->addr, b, cs_name[x->st]);
            return;
        }
    }
    /* The writer must hold the line's true version: the commit gets the next one. */
    if (c->ver != t->sver[c->li]) {
        fail(t, "CN %u writes line 0x%llx holding version %llu, the line's true version is %llu", a->cn,
             (unsigned long long)c->addr, (unsigned long long)c->ver, (unsigned long long)t->sver[c->li]);
        return;
    }
    c->ver = ++t->sver[c->li];
    uint64_t *sh = &t->shadow[(size_t)c->li * W];
    for (unsigned w = 0; w < W; w++)
        if (o->mask >> w & 1)
            c->data[w] = sh[w] = o->val[w];
    c->st = CS_M;
    c->dirty = true;
}

/* Moves operation o on: completes it from the cache, or sends the request it needs. */
static void op_step(coh_tester_t *t, coh_agent_t *a, op_t *o)
{
    cline_t *c = &a->c[o->cl];
    switch (o->kind) {
    case K_LOAD:
        if (c->st != CS_I) {
            check_line(t, a, c, "loads from");
            op_done(t, a, o);
        } else {
            c->pend = P_RDS;
            send_req(t, a, o, OP_RD_SHARED, NULL, 0, 0);
        }
        return;
    case K_STORE:
    case K_WT:
        if (c->st == CS_E || c->st == CS_M) {
            do_write(t, a, c, o);
            if (o->kind == K_WT) {
                c->pend = P_WT;
                send_req(t, a, o, OP_WT_WR, o->val, o->mask, c->ver);
            } else {
                op_done(t, a, o);
            }
        } else if (c->st == CS_S) { /* never RD_OWN from S (section 11c, the CN's side) */
            c->pend = P_UPG;
            send_req(t, a, o, OP_RD_UPGRADE, NULL, 0, 0);
        } else {
            c->pend = P_RDOWN;
            send_req(t, a, o, OP_RD_OWN, NULL, 0, 0);
        }
        return;
    case K_EVICT:
        if (c->st == CS_I) {
            op_done(t, a, o);
        } else if (c->dirty) {
            c->pend = P_DIRTY_EV;
            c->st = CS_I; /* the line leaves; its data stays for a snoop that crosses the eviction */
            send_req(t, a, o, OP_DIRTY_EVICT, c->data, 0xff, c->ver);
            t->st.dirty_evicts++;
        } else {
            c->pend = P_CLEAN_EV;
            c->st = CS_I;
            send_req(t, a, o, OP_CLEAN_EVICT, NULL, 0, 0);
        }
        return;
    }
}

/* A snoop. Answers from the cache (section 11c, the CN's side of the contract), or holds it while
 * the answer to the CN's own request for the line is on its way (deferring agents, allow_defer). */
static void snoop(coh_tester_t *t, coh_agent_t *a, const msg_t *m, bool allow_defer)
{
    bool inv = m->opcode == OP_BISNP_INV;
    const char *sn = msg_name(m->opcode);
    if (allow_defer)
        t->st.snoops++;
    cline_t *c = cl_find(t, a, m->addr);
    if (!c || (c->st == CS_I && c->pend == P_NONE)) {
        fail(t, "%s from node %u reaches CN %u for line 0x%llx, which it neither holds nor waits for", sn, m->src,
             a->cn, (unsigned long long)m->addr);
        return;
    }
    msg_t r = {.tag = m->tag, .addr = m->addr};
    bool keep = !inv && rng_chance(&a->rng, t->cfg.p_keep_s);
    switch (c->pend) {
    case P_CLEAN_EV: /* the eviction crossed the snoop: answer as the line's holder, leaving */
    case P_DIRTY_EV:
        if (c->void_g) { /* void_g here: already answered; the home no longer counts this CN */
            fail(t, "%s reaches CN %u for line 0x%llx a second time while its eviction is in flight", sn, a->cn,
                 (unsigned long long)m->addr);
            return;
        }
        c->void_g = true;
        r.opcode = c->pend == P_CLEAN_EV ? OP_BIRSP_I : OP_BIRSP_I_DATA;
        r.flags = MSG_FLAG_WR_IN_FLIGHT;
        break;
    case P_WT:
        if (c->st == CS_E || c->st == CS_M) {
            r.opcode = keep ? OP_BIRSP_S_DATA : OP_BIRSP_I_DATA;
            c->st = keep ? CS_S : CS_I;
            c->dirty = false;
        } else if (c->st == CS_S && inv) {
            r.opcode = OP_BIRSP_I; /* its data went with an earlier answer */
            c->st = CS_I;
        } else {
            fail(t, "%s reaches CN %u for line 0x%llx in %s with its write-through in flight", sn, a->cn,
                 (unsigned long long)m->addr, cs_name[c->st]);
            return;
        }
        r.flags = MSG_FLAG_WR_IN_FLIGHT;
        a->wt_wif[c->li] = 1;
        break;
    case P_RDS:
    case P_RDOWN:
    case P_UPG:
        if (c->st == CS_S && inv) {
            /* Upgrading: the snoop may be about the S copy (a transaction ahead of the upgrade),
             * so it is answered at once. If it was about the upgrade already granted, the CMP_E
             * that comes is void (the CN holds no data). */
            r.opcode = OP_BIRSP_I;
            c->st = CS_I;
            c->keep_s = false;
            break;
        }
        /* The answer to the CN's request is on its way (the home snoops only CNs it granted). */
        if (c->void_g || (c->keep_s && !inv) || c->has_def) {
            fail(t, "%s reaches CN %u for line 0x%llx again while the answer to its %s is still on its way", sn, a->cn,
                 (unsigned long long)m->addr, p_name[c->pend]);
            return;
        }
        if (a->defer && allow_defer) {
            c->has_def = true;
            c->def = *m;
            t->st.deferred++;
            return;
        }
        if (keep && !c->keep_s) {
            r.opcode = OP_BIRSP_S;
            c->keep_s = true;
        } else {
            r.opcode = OP_BIRSP_I;
            c->void_g = true;
            c->keep_s = false;
            if (c->st == CS_S)
                c->st = CS_I;
        }
        break;
    default: /* no request outstanding: a stable state */
        if (c->st == CS_S) {
            if (!inv) {
                fail(t, "BISNP_DATA reaches CN %u for line 0x%llx, which it holds in S", a->cn,
                     (unsigned long long)m->addr);
                return;
            }
            r.opcode = OP_BIRSP_I;
            c->st = CS_I;
        } else if (c->st == CS_E) {
            r.opcode = keep ? OP_BIRSP_S : OP_BIRSP_I;
            c->st = keep ? CS_S : CS_I;
        } else {
            r.opcode = keep ? OP_BIRSP_S_DATA : OP_BIRSP_I_DATA;
            c->st = keep ? CS_S : CS_I;
            c->dirty = false;
        }
        break;
    }
    if (r.opcode == OP_BIRSP_I_DATA || r.opcode == OP_BIRSP_S_DATA) {
        r.mask = 0xff;
        memcpy(r.data, c->data, sizeof r.data);
        r.ts = (uint8_t)(c->ver & VER_MASK);
        t->st.data_answers++;
    }
    if (r.flags & MSG_FLAG_WR_IN_FLIGHT)
        t->st.wif_answers++;
    if (r.opcode == OP_BIRSP_S || r.opcode == OP_BIRSP_S_DATA)
        t->st.keep_s++;
    r.src = (uint8_t)a->cn;
    r.dst = m->src;
    const char *why = msg_check(&r);
    if (why)
        fail(t, "tester bug: CN %u would send a malformed %s: %s", a->cn, msg_name(r.opcode), why);
    link_push(t, &r, true, home_of(t, r.addr));
    cl_release_if_free(c);
}

/* Regular register: may a read of LNR word h, sent at rs and answered at re, return v? */
static bool lnr_allowed(const coh_lnr_hist_t *h, uint64_t v, uint64_t rs, uint64_t re)
{
    /* w is superseded when another write began after w completed and completed before rs. */
    uint64_t last_done_issue = 0; /* the latest issue time among writes completed before rs */
    bool any_done = false;
    for (size_t i = 0; i < h->n; i++)
        if (h->w[i].t_done < rs) {
            any_done = true;
            if (h->w[i].t_issue > last_done_issue)
                last_done_issue = h->w[i].t_issue;
        }
    if (v == 0)
        return !any_done;
    for (size_t i = 0; i < h->n; i++) {
        const lnr_wr_t *w = &h->w[i];
        if (w->val != v)
            continue;
        if (w->t_issue > re)
            return false;
        /* superseded: some write completed before rs began after w completed */
        return !(any_done && w->t_done != NEVER && w->t_done < last_done_issue);
    }
    return false;
}

/* An answer from a home to one of agent a's requests (or a snoop). */
static void agent_rx(coh_tester_t *t, coh_agent_t *a, const msg_t *m)
{
    unsigned li;
    if (!line_index(t, m->addr, &li)) {
        fail(t, "%s from node %u to CN %u names line 0x%llx, which no agent uses", msg_name(m->opcode), m->src, a->cn,
             (unsigned long long)m->addr);
        return;
    }
    if (m->opcode == OP_BISNP_INV || m->opcode == OP_BISNP_DATA) {
        snoop(t, a, m, true);
        return;
    }
    op_t *o = NULL;
    for (unsigned k = 0; k < t->cfg.max_out && !o; k++)
        if (a->o[k].used && a->o[k].waiting && a->o[k].tag == m->tag)
            o = &a->o[k];
    if (!o || o->addr != m->addr || m->core != o->core || m->src != MSG_MN_BASE + home_of(t, m->addr)) {
        fail(t, "%s from node %u to CN %u (tag %u, line 0x%llx) answers no outstanding request", msg_name(m->opcode),
             m->src, a->cn, m->tag, (unsigned long long)m->addr);
        return;
    }
    o->waiting = false;

    if (o->kind == K_LNR_RD || o->kind == K_LNR_WR) {
        msg_op_t want = o->kind == K_LNR_RD ? OP_DATA_NC : OP_CMP;
        if (m->opcode != want) {
            fail(t, "%s answers CN %u's %s of line 0x%llx", msg_name(m->opcode), a->cn, k_name[o->kind],
                 (unsigned long long)o->addr);
            return;
        }
        coh_lnr_hist_t *h = &t->lnr[(size_t)(o->li - t->cfg.nlines) * W];
        for (unsigned w = 0; w < W; w++) {
            if (o->kind == K_LNR_WR) {
                if (o->mask >> w & 1)
                    h[w].w[o->hidx[w]].t_done = t->cycle;
            } else if (!lnr_allowed(&h[w], m->data[w], o->t_sent, t->cycle)) {
                fail(t, "CN %u's LNR read of line 0x%llx (sent at %llu) returned 0x%llx for word %u: no write "
                        "allows that value",
                     a->cn, (unsigned long long)o->addr, (unsigned long long)o->t_sent,
                     (unsigned long long)m->data[w], w);
                return;
            }
        }
        op_done(t, a, o);
        return;
    }

    cline_t *c = &a->c[o->cl];
    int pend = c->pend;
    bool v = c->void_g, ks = c->keep_s;
    c->pend = P_NONE;
    c->void_g = c->keep_s = false;
    bool ok = true, finished = false, voided = false;
    switch (pend) {
    case P_RDS:
        ok = m->opcode == OP_DATA_S || m->opcode == OP_DATA_E;
        if (ok && v)
            voided = true;
        else if (ok)
            install(t, a, c, m, ks || m->opcode == OP_DATA_S ? CS_S : CS_E, "installs (read)");
        break;
    case P_RDOWN:
        ok = m->opcode == OP_DATA_E;
        if (ok && v)
            voided = true;
        else if (ok)
            install(t, a, c, m, ks ? CS_S : CS_E, "installs (read for ownership)");
        break;
    case P_UPG:
        if (m->opcode == OP_CMP_E) {
            if (c->st == CS_S && !v && !ks) {
                check_line(t, a, c, "upgrades");
                check_grant_ver(t, a, c, m);
                if (c->ver != t->sver[c->li])
                    fail(t, "CN %u upgrades line 0x%llx holding version %llu in S, the line's true version is %llu",
                         a->cn, (unsigned long long)c->addr, (unsigned long long)c->ver,
                         (unsigned long long)t->sver[c->li]);
                c->st = CS_E;
            } else {
                if (c->st == CS_I && c->has_def) {
                    fail(t, "CMP_E reaches CN %u for line 0x%llx after it lost its S copy, with a snoop held",
                         a->cn, (unsigned long long)c->addr);
                    return;
                }
                voided = true; /* granted, then snooped away (or S kept): no ownership */
            }
        } else if (m->opcode == OP_DATA_E) {
            if (c->st == CS_S) {
                fail(t, "DATA_E answers CN %u's upgrade of line 0x%llx although it still holds S (not snooped)",
                     a->cn, (unsigned long long)c->addr);
                return;
            }
            if (v)
                voided = true;
            else
                install(t, a, c, m, ks ? CS_S : CS_E, "installs (upgrade after losing S)");
        } else {
            ok = false;
        }
        break;
    case P_CLEAN_EV:
    case P_DIRTY_EV:
    case P_WT:
        ok = m->opcode == OP_CMP;
        finished = true;
        break;
    default:
        ok = false;
    }
    if (!ok) {
        fail(t, "%s answers CN %u's %s of line 0x%llx", msg_name(m->opcode), a->cn, p_name[pend],
             (unsigned long long)o->addr);
        return;
    }
    if (voided) {
        t->st.voids++;
        t->st.retries++;
        o->retries++;
    }
    if (finished) {
        /* An eviction's data is gone with its CMP. */
        op_done(t, a, o);
    } else {
        op_step(t, a, o);
    }
    if (c->has_def) {
        c->has_def = false;
        msg_t d = c->def;
        snoop(t, a, &d, false);
    }
    cl_release_if_free(c);
}

/* Maybe starts a random operation. */
static void agent_issue(coh_tester_t *t, coh_agent_t *a)
{
    const coh_cfg_t *cf = &t->cfg;
    if (a->nops >= cf->max_out || !rng_chance(&a->rng, cf->p_issue))
        return;
    int oi = -1;
    for (unsigned k = 0; k < cf->max_out && oi < 0; k++)
        if (!a->o[k].used)
            oi = (int)k;
    op_t *o = &a->o[oi];
    memset(o, 0, sizeof *o);
    o->t_start = t->cycle;

    if (cf->nlnr && rng_chance(&a->rng, cf->p_lnr)) {
        unsigned li = cf->nlines + (unsigned)rng_below(&a->rng, cf->nlnr);
        for (unsigned k = 0; k < cf->max_out; k++)
            if (a->o[k].used && a->o[k].li == li && a->o[k].addr == t->addr[li])
                return; /* one request per (CN, line) */
        o->used = true;
        a->nops++;
        o->li = li;
        o->addr = t->addr[li];
        o->cl = -1;
        if (rng_chance(&a->rng, 0.5)) {
            o->kind = K_LNR_RD;
            t->st.lnr_rds++;
            send_req(t, a, o, OP_LNR_RD, NULL, 0, 0);
        } else {
            o->kind = K_LNR_WR;
            t->st.lnr_wrs++;
            unsigned nw = 1 + (unsigned)rng_below(&a->rng, cf->max_words);
            for (unsigned k = 0; k < nw; k++)
                o->mask |= (uint8_t)(1u << rng_below(&a->rng, W));
            coh_lnr_hist_t *h = &t->lnr[(size_t)(li - cf->nlines) * W];
            for (unsigned w = 0; w < W; w++)
                if (o->mask >> w & 1) {
                    o->val[w] = (uint64_t)(a->cn + 1) << 48 | ++a->seq;
                    coh_lnr_hist_t *x = &h[w];
                    if (x->n == x->cap) {
                        x->cap = x->cap ? 2 * x->cap : 16;
                        x->w = realloc(x->w, x->cap * sizeof *x->w);
                        if (!x->w)
                            abort();
                    }
                    o->hidx[w] = x->n;
                    x->w[x->n++] = (lnr_wr_t){.val = o->val[w], .t_issue = t->cycle, .t_done = NEVER};
                }
            send_req(t, a, o, OP_LNR_WR, o->val, o->mask, 0);
        }
        return;
    }

    unsigned li = cf->nhot && rng_chance(&a->rng, cf->hot_share) ? (unsigned)rng_below(&a->rng, cf->nhot)
                                                                  : (unsigned)rng_below(&a->rng, cf->nlines);
    uint64_t addr = t->addr[li];
    double x = rng_unit(&a->rng);
    int kind = x < cf->p_evict ? K_EVICT : x < cf->p_evict + cf->p_store ? K_STORE : K_LOAD;
    if (kind == K_STORE && rng_chance(&a->rng, cf->p_wt))
        kind = K_WT;
    cline_t *c = cl_find(t, a, addr);
    if (c && c->op >= 0)
        return; /* one request per (CN, line) */
    if (kind == K_EVICT && (!c || c->st == CS_I))
        return;
    if (!c) {
        for (unsigned k = 0; k < cf->cache_lines && !c; k++)
            if (!a->c[k].used)
                c = &a->c[k];
        if (!c) {
            /* Full: evict a random line that nothing waits on instead. */
            unsigned cand[64], n = 0;
            for (unsigned k = 0; k < cf->cache_lines && n < 64; k++)
                if (a->c[k].op < 0 && a->c[k].pend == P_NONE && a->c[k].st != CS_I && !a->c[k].has_def)
                    cand[n++] = k;
            if (!n)
                return;
            c = &a->c[cand[rng_below(&a->rng, n)]];
            kind = K_EVICT;
            li = c->li;
            addr = c->addr;
        } else {
            memset(c, 0, sizeof *c);
            c->used = true;
            c->addr = addr;
            c->li = li;
            c->st = CS_I;
            c->op = -1;
        }
    }
    o->used = true;
    a->nops++;
    o->kind = kind;
    o->li = li;
    o->addr = addr;
    o->cl = (int)(c - a->c);
    c->op = oi;
    switch (kind) {
    case K_LOAD:
        t->st.loads++;
        t->st.load_hits += c->st != CS_I;
        break;
    case K_STORE:
    case K_WT: {
        t->st.stores++;
        t->st.wts += kind == K_WT;
        t->st.store_hits += c->st == CS_E || c->st == CS_M;
        unsigned nw = 1 + (unsigned)rng_below(&a->rng, cf->max_words);
        for (unsigned k = 0; k < nw; k++)
            o->mask |= (uint8_t)(1u << rng_below(&a->rng, W));
        for (unsigned w = 0; w < W; w++)
            if (o->mask >> w & 1)
                o->val[w] = (uint64_t)(a->cn + 1) << 48 | ++a->seq;
        break;
    }
    default:
        t->st.evicts++;
    }
    op_step(t, a, o);
}

/* ---------------------------------------------------------------------------------------------
 * Set-up */

void coh_tester_init(coh_tester_t *t, const coh_cfg_t *cfg, uint64_t seed, coh_home_make_fn make, void *arg,
                     const char *replay)
{
    memset(t, 0, sizeof *t);
    t->cfg = *cfg;
    t->seed = seed;
    snprintf(t->ctx, sizeof t->ctx, "%s seed=%llu (replay: %s)", cfg->name ? cfg->name : "coh", (unsigned long long)seed,
             replay ? replay : "same cfg and seed");
    const char *bad = coh_cfg_check(cfg);
    if (bad) {
        fail(t, "bad configuration: %s", bad);
        return;
    }
    rng_init_named(&t->rng_link, seed, "coh.link");
    rng_t rl;
    rng_init_named(&rl, seed, "coh.lines");

    /* Lines: nlines distinct SCR lines, then nlnr distinct LNR lines, all inside the homes. */
    unsigned n = cfg->nlines + cfg->nlnr;
    t->addr = calloc(n, sizeof *t->addr);
    t->shadow = calloc((size_t)cfg->nlines * W, sizeof *t->shadow);
    t->sver = calloc(cfg->nlines, sizeof *t->sver);
    t->lnr = calloc((size_t)(cfg->nlnr ? cfg->nlnr : 1) * W, sizeof *t->lnr);
    for (t->hcap = 16; t->hcap < 4 * (size_t)n; t->hcap *= 2)
        ;
    t->hkey = calloc(2 * t->hcap, sizeof *t->hkey);
    t->pair_last = calloc(64 * 64, sizeof *t->pair_last);
    if (!t->addr || !t->shadow || !t->sver || !t->lnr || !t->hkey || !t->pair_last)
        abort();
    uint64_t total = cfg->lines_per_mn << cfg->mn_shift;
    for (unsigned i = 0; i < n; i++) {
        for (;;) {
            uint64_t a = i < cfg->nlines ? rng_range(&rl, cfg->scr_lo, cfg->scr_hi - 1) : rng_below(&rl, total);
            if (i >= cfg->nlines && a >= cfg->scr_lo && a < cfg->scr_hi)
                continue;
            size_t s = h_slot(t, a);
            if (t->hkey[2 * s])
                continue;
            t->hkey[2 * s] = a + 1;
            t->hkey[2 * s + 1] = i;
            t->addr[i] = a;
            break;
        }
    }

    t->ag = calloc(cfg->ncn, sizeof *t->ag);
    if (!t->ag)
        abort();
    for (unsigned i = 0; i < cfg->ncn; i++) {
        coh_agent_t *a = &t->ag[i];
        char name[32];
        snprintf(name, sizeof name, "coh.agent%u", i);
        rng_init_named(&a->rng, seed, name);
        a->cn = i;
        a->defer = cfg->snoop_policy == COH_SNOOP_DEFER || (cfg->snoop_policy == COH_SNOOP_MIXED && (i & 1));
        a->c = calloc(cfg->cache_lines, sizeof *a->c);
        a->o = calloc(cfg->max_out, sizeof *a->o);
        a->wt_wif = calloc(n, 1);
        if (!a->c || !a->o || !a->wt_wif)
            abort();
        for (unsigned k = 0; k < cfg->cache_lines; k++)
            a->c[k].op = -1;
    }

    t->nhomes = 1u << cfg->mn_shift;
    t->homes = calloc(t->nhomes, sizeof *t->homes);
    if (!t->homes)
        abort();
    for (unsigned h = 0; h < t->nhomes; h++)
        if (!make(arg, cfg, h, &t->homes[h])) {
            fail(t, "home %u could not be made", h);
            return;
        }
}

void coh_tester_free(coh_tester_t *t)
{
    if (t->homes)
        for (unsigned h = 0; h < t->nhomes; h++)
            if (t->homes[h].ops)
                t->homes[h].ops->free(t->homes[h].h);
    free(t->homes);
    if (t->ag)
        for (unsigned i = 0; i < t->cfg.ncn; i++) {
            free(t->ag[i].c);
            free(t->ag[i].o);
            free(t->ag[i].wt_wif);
        }
    free(t->ag);
    if (t->lnr)
        for (size_t i = 0; i < (size_t)t->cfg.nlnr * W; i++)
            free(t->lnr[i].w);
    free(t->lnr);
    free(t->addr);
    free(t->shadow);
    free(t->sver);
    free(t->hkey);
    free(t->fl);
    free(t->pair_last);
    memset(t, 0, sizeof *t);
}

/* ---------------------------------------------------------------------------------------------
 * Running */

static int flight_cmp(const void *x, const void *y)
{
    const coh_flight_t *a = *(const coh_flight_t *const *)x, *b = *(const coh_flight_t *const *)y;
    if (a->due != b->due)
        return a->due < b->due ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Delivers every message due, oldest first; a home takes one per cycle, when it has a credit. */
static void link_deliver(coh_tester_t *t)
{
    size_t nd = 0;
    for (size_t i = 0; i < t->nfl; i++)
        nd += t->fl[i].due <= t->cycle;
    if (!nd)
        return;
    coh_flight_t **due = malloc(nd * sizeof *due);
    uint64_t *seqs = malloc(nd * sizeof *seqs);
    if (!due || !seqs)
        abort();
    nd = 0;
    for (size_t i = 0; i < t->nfl; i++)
        if (t->fl[i].due <= t->cycle)
            due[nd++] = &t->fl[i];
    qsort(due, nd, sizeof *due, flight_cmp);
    for (size_t k = 0; k < nd; k++)
        seqs[k] = due[k]->seq;
    bool taken[32] = {false};
    for (size_t k = 0; k < nd && !t->failed; k++) {
        /* Handlers may add flights (the array may move): find this one by its sequence number. */
        coh_flight_t *f = NULL;
        for (size_t i = 0; i < t->nfl && !f; i++)
            if (t->fl[i].seq == seqs[k])
                f = &t->fl[i];
        if (f->to_home) {
            coh_home_t *h = &t->homes[f->dst];
            if (taken[f->dst] || !h->ops->can_recv(h->h, &f->m))
                continue;
            taken[f->dst] = true;
        }
        f->dead = true;
        msg_t m = f->m;
        bool to_home = f->to_home;
        unsigned dst = f->dst;
        uint64_t *last = &t->pair_last[(m.src & 63) * 64 + (m.dst & 63)];
        if (seqs[k] + 1 < *last)
            t->st.reordered++;
        if (seqs[k] + 1 > *last)
            *last = seqs[k] + 1;
        if (to_home)
            t->homes[dst].ops->recv(t->homes[dst].h, &m);
        else
            agent_rx(t, &t->ag[dst], &m);
    }
    free(due);
    free(seqs);
    size_t j = 0;
    for (size_t i = 0; i < t->nfl; i++)
        if (!t->fl[i].dead)
            t->fl[j++] = t->fl[i];
    t->nfl = j;
}

static void dump_state(coh_tester_t *t, FILE *f)
{
    fprintf(f, "\n  %llu operations done, the last at cycle %llu; %zu messages on the link\n",
            (unsigned long long)t->st.ops_done, (unsigned long long)t->last_progress, t->nfl);
    for (unsigned i = 0; i < t->cfg.ncn; i++) {
        coh_agent_t *a = &t->ag[i];
        for (unsigned k = 0; k < t->cfg.max_out; k++) {
            const op_t *o = &a->o[k];
            if (!o->used)
                continue;
            fprintf(f, "  CN %u: %s of line 0x%llx since cycle %llu (%u retries)", i, k_name[o->kind],
                    (unsigned long long)o->addr, (unsigned long long)o->t_start, o->retries);
            if (o->waiting)
                fprintf(f, ", waits for the answer to tag %u sent at %llu", o->tag, (unsigned long long)o->t_sent);
            if (o->cl >= 0) {
                const cline_t *c = &a->c[o->cl];
                bool ev = c->pend == P_CLEAN_EV || c->pend == P_DIRTY_EV;
                fprintf(f, "; line %s, request %s%s%s%s", cs_name[c->st], p_name[c->pend],
                        c->void_g ? (ev ? ", a snoop answered meanwhile" : ", its answer void") : "",
                        c->keep_s ? ", keeps S" : "", c->has_def ? ", holds a snoop" : "");
            }
            fprintf(f, "\n");
        }
    }
    for (size_t i = 0; i < t->nfl && i < 16; i++)
        fprintf(f, "  link: %s %u -> %u line 0x%llx due %llu\n", msg_name(t->fl[i].m.opcode), t->fl[i].m.src,
                t->fl[i].m.dst, (unsigned long long)t->fl[i].m.addr, (unsigned long long)t->fl[i].due);
    for (unsigned h = 0; h < t->nhomes; h++)
        if (t->homes[h].ops->dump)
            t->homes[h].ops->dump(t->homes[h].h, f);
}

static void fail_with_dump(coh_tester_t *t, const char *what)
{
    fail(t, "%s", what);
    size_t n = strlen(t->msg);
    FILE *f = fmemopen(t->msg + n, sizeof t->msg - n, "w");
    if (f) {
        dump_state(t, f);
        fclose(f);
    }
}

static bool quiet(coh_tester_t *t)
{
    if (t->nfl)
        return false;
    for (unsigned i = 0; i < t->cfg.ncn; i++)
        if (t->ag[i].nops)
            return false;
    for (unsigned h = 0; h < t->nhomes; h++)
        if (!t->homes[h].ops->idle(t->homes[h].h))
            return false;
    return true;
}

/* At quiescence: who holds each line, what it holds, memory, the directory, LNR words. */
static void final_checks(coh_tester_t *t)
{
    for (unsigned li = 0; li < t->cfg.nlines + t->cfg.nlnr && !t->failed; li++) {
        uint64_t addr = t->addr[li];
        coh_home_t *h = &t->homes[home_of(t, addr)];
        uint64_t mem[W];
        if (!h->ops->peek_line(h->h, addr, mem)) {
            fail(t, "home %u cannot show line 0x%llx", home_of(t, addr), (unsigned long long)addr);
            return;
        }
        if (is_lnr(t, li)) {
            coh_lnr_hist_t *hist = &t->lnr[(size_t)(li - t->cfg.nlines) * W];
            for (unsigned w = 0; w < W; w++)
                if (!lnr_allowed(&hist[w], mem[w], t->cycle + 1, t->cycle + 1)) {
                    fail(t, "at the end LNR line 0x%llx word %u holds 0x%llx, not the last write's value",
                         (unsigned long long)addr, w, (unsigned long long)mem[w]);
                    return;
                }
            continue;
        }
        uint32_t sharers = 0, owners = 0, may_stale = 0;
        bool dirty = false;
        for (unsigned i = 0; i < t->cfg.ncn; i++) {
            if (t->ag[i].wt_wif[li])
                may_stale |= 1u << i;
            cline_t *c = cl_find(t, &t->ag[i], addr);
            if (!c || c->st == CS_I)
                continue;
            if (c->st == CS_S)
                sharers |= 1u << i;
            else
                owners |= 1u << i;
            dirty |= c->dirty;
            check_line(t, &t->ag[i], c, "holds at the end");
            if (c->ver != t->sver[li]) {
                fail(t, "at the end CN %u holds line 0x%llx with version %llu, the line's true version is %llu", i,
                     (unsigned long long)addr, (unsigned long long)c->ver, (unsigned long long)t->sver[li]);
                return;
            }
        }
        if (owners & (owners - 1) || (owners && sharers)) {
            fail(t, "at the end line 0x%llx has owners 0x%x and sharers 0x%x", (unsigned long long)addr, owners,
                 sharers);
            return;
        }
        const uint64_t *sh = &t->shadow[(size_t)li * W];
        if (!dirty)
            for (unsigned w = 0; w < W; w++)
                if (mem[w] != sh[w]) {
                    fail(t, "at the end memory of line 0x%llx word %u is 0x%llx, the last write wrote 0x%llx (no CN "
                            "holds it dirty)",
                         (unsigned long long)addr, w, (unsigned long long)mem[w], (unsigned long long)sh[w]);
                    return;
                }
        unsigned state, ver;
        uint32_t vec, stale;
        if (h->ops->peek_dir && h->ops->peek_dir(h->h, addr, &state, &vec, &stale, &ver)) {
            /* The home's version is the line's unless a CN holds newer writes (M). */
            if (!dirty && ver != (t->sver[li] & VER_MASK)) {
                fail(t, "at the end the directory of line 0x%llx holds version %u, the line's true version is %llu "
                        "(%llu mod %u) and no CN holds it dirty",
                     (unsigned long long)addr, ver, (unsigned long long)t->sver[li],
                     (unsigned long long)(t->sver[li] & VER_MASK), VER_MASK + 1);
                return;
            }
            unsigned want = owners ? DIR_EM : sharers ? DIR_S : DIR_I;
            uint32_t wvec = owners | sharers;
            if (state != want || vec != wvec || (stale & ~may_stale)) {
                fail(t, "at the end the directory of line 0x%llx says %s vec 0x%x stale 0x%x; the caches hold "
                        "owners 0x%x sharers 0x%x (stale bits allowed 0x%x)",
                     (unsigned long long)addr, state == DIR_I ? "I" : state == DIR_S ? "S" : "EM", vec, stale, owners,
                     sharers, may_stale);
                return;
            }
        }
    }
    for (unsigned h = 0; h < t->nhomes && !t->failed; h++)
        if (t->homes[h].ops->violations) {
            uint64_t v = t->homes[h].ops->violations(t->homes[h].h);
            if (v)
                fail_with_dump(t, "the home counted violations from agents that obey the contract");
        }
}

bool coh_tester_run(coh_tester_t *t)
{
    if (t->failed)
        return false;
    const coh_cfg_t *cf = &t->cfg;
    for (;;) {
        t->cycle++;
        link_deliver(t);
        for (unsigned h = 0; h < t->nhomes && !t->failed; h++) {
            coh_home_t *hm = &t->homes[h];
            hm->ops->tick(hm->h);
            msg_t m;
            while (hm->ops->pop(hm->h, &m)) {
                const char *why = msg_check(&m);
                if (why) {
                    fail(t, "home %u sent a malformed %s: %s", h, msg_name(m.opcode) ? msg_name(m.opcode) : "?", why);
                    break;
                }
                if (m.dst >= cf->ncn || m.src != MSG_MN_BASE + h) {
                    fail(t, "home %u sent %s from node %u to node %u", h, msg_name(m.opcode), m.src, m.dst);
                    break;
                }
                link_push(t, &m, false, m.dst);
            }
        }
        if (!t->stopping)
            for (unsigned i = 0; i < cf->ncn && !t->failed; i++)
                agent_issue(t, &t->ag[i]);
        if (t->failed)
            break;
        for (unsigned h = 0; h < t->nhomes && !t->failed; h++)
            if (t->homes[h].ops->violations && t->homes[h].ops->violations(t->homes[h].h))
                fail_with_dump(t, "the home counted a violation from agents that obey the contract");
        if (t->failed)
            break;
        if (t->st.ops_done >= cf->ops)
            t->stopping = true;
        if (t->stopping && quiet(t))
            break;
        if (t->cycle - t->last_progress > cf->stall_limit) {
            fail_with_dump(t, "no operation completed for stall_limit cycles (deadlock or livelock)");
            break;
        }
        bool starved = false;
        for (unsigned i = 0; i < cf->ncn && !starved; i++)
            for (unsigned k = 0; k < cf->max_out && !starved; k++)
                starved = t->ag[i].o[k].used && t->cycle - t->ag[i].o[k].t_start > cf->stall_limit;
        if (starved) {
            fail_with_dump(t, "an operation waited more than stall_limit cycles (starvation)");
            break;
        }
        if (cf->max_cycles && t->cycle >= cf->max_cycles) {
            fail_with_dump(t, "max_cycles reached");
            break;
        }
    }
    if (!t->failed)
        final_checks(t);
    t->st.cycles = t->cycle;
    return !t->failed;
}
