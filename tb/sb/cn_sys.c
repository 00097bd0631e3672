#include "cn_sys.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ref/dir_ctrl_ref.h"
#include "base/addr.h"
#include "base/kernel.h"
#include "base/rng.h"
#include "cn/cn_mem.h"

#define W ADDR_WORDS_PER_LINE

enum { A_LOAD, A_STORE, A_RMW, A_FLUSH, A_PREFETCH };
enum { R_SCR, R_LNR, R_LOCAL };

typedef struct sys sys_t;

/* One CN's end of the link. */
typedef struct clink {
    sys_t *s;
    unsigned cn;
    unsigned crd[MSG_NUM_CLASSES];
    uint64_t delivered[MSG_NUM_CLASSES], released[MSG_NUM_CLASSES];
} clink_t;

typedef struct flight {
    sys_t *s;
    msg_t m;
    uint64_t seq;
    unsigned dst; /* home index, or CN */
} flight_t;

typedef struct home {
    sys_t *s;
    unsigned idx;
    dir_ctrl_ref_t *r;
    flight_t **in; /* arrived, not taken yet (arrival order) */
    size_t nin, capin;
    bool ticking;
    uint64_t cycle;
} home_t;

typedef struct agent {
    sys_t *s;
    unsigned cn, core;
    rng_t rng;
    unsigned nloads;
    bool sb_busy; /* a store, atomic or flush outstanding */
    uint64_t seq;
} agent_t;

/* An access in flight. */
typedef struct pend {
    agent_t *a;
    int kind, region;
    unsigned li, w; /* line index (in its region), word */
    uint64_t addr;
    uint8_t mask;
    uint64_t val[W];
    mem_rmw_e rop;
    uint64_t ra, rb;
    bool wt, wrote;
    bool final; /* one of the final LNR flushes, not an agent's */
    uint64_t old_exp, new_val;
    uint64_t t_issue;
} pend_t;

/* The values written to an LNR word, and by which CN. */
typedef struct vset {
    uint64_t *v;
    unsigned *cn;
    size_t n, cap;
} vset_t;

struct sys {
    struct made *made; /* sys_alloc's, not yet released */
    cn_sys_cfg_t cfg;
    uint64_t seed;
    char ctx[256];
    cn_sys_result_t *res;
    kernel_t k;
    stats_t st;
    clock_domain_t fab;
    rng_t rng_link;
    unsigned ncn, nhomes;
    cn_mem_t **cn;
    clink_t *cl;
    home_t *homes;
    agent_t *ag;
    uint64_t *scr, *lnr, *loc; /* line byte addresses */
    uint64_t *sh_scr;          /* nscr * W: last committed value */
    uint64_t *ver_scr;         /* nscr: commits so far (the line's true version, unwrapped) */
    uint64_t *sh_loc;          /* ncn * nlocal * W */
    vset_t *ws_lnr;            /* nlnr * W: values written */
    uint64_t *own_lnr;         /* (nlnr * W) * ncn: each CN's last value written to the word */
    uint64_t flseq;
    uint64_t *last_due, *last_seq; /* per (src, dst, class) */
    uint64_t outstanding, last_progress;
    bool stopping, failed;
};

/* Flights and accesses in flight are made by sys_alloc and given back by sys_release; a run that
 * stops with some of them queued in the kernel (a failure) frees the rest at its end. */
typedef struct made {
    struct made *prev, *next;
    max_align_t payload[];
} made_t;

static void *sys_alloc(sys_t *s, size_t bytes)
{
    made_t *m = calloc(1, sizeof *m + bytes);
    if (!m)
        abort();
    m->next = s->made;
    if (s->made)
        s->made->prev = m;
    s->made = m;
    return m->payload;
}

static void sys_release(sys_t *s, void *payload)
{
    made_t *m = (made_t *)((char *)payload - offsetof(made_t, payload));
    if (m->prev)
        m->prev->next = m->next;
    else
        s->made = m->next;
    if (m->next)
        m->next->prev = m->prev;
    free(m);
}

/* ---------------------------------------------------------------------------------------------
 * Configuration */

cn_sys_cfg_t cn_sys_default_cfg(void)
{
    return (cn_sys_cfg_t){
        .name = "default",
        .ncn = 3,
        .cores = 2,
        .mn_shift = 0,
        .gran_shift = 0,
        .lines_per_mn = 256,
        .scr_lo = 0,
        .scr_hi = 192,
        .nscr = 12,
        .nhot = 3,
        .nlnr = 4,
        .nlocal = 6,
        .hot_share = 0.6,
        .p_lnr = 0.1,
        .p_local = 0.1,
        .lnr_word_writeback = true, /* the stricter check; whole lines have runs of their own */
        /* 4 L1 lines (2 sets), 8 L2 lines, 16 L3 lines (4 sets of 4): evictions at every level */
        .l1 = {.size_bytes = 256, .ways = 2, .latency_cycles = 5},
        .l2 = {.size_bytes = 512, .ways = 2, .latency_cycles = 13},
        .l3 = {.size_bytes = 1024, .ways = 4, .latency_cycles = 36},
        .core_freq_hz = 2400000000ull,
        .fabric_freq_hz = 1000000000ull,
        .local_latency_ps = 45000,
        .lat_min_ps = 5000,
        .lat_max_ps = 60000,
        .class_fifo = false,
        .credits = 2,
        .dir_txn = 8,
        .dir_crd = 2,
        .dir_mem_latency = 20,
        .p_store = 0.3,
        .p_rmw = 0.08,
        .p_flush = 0.04,
        .p_prefetch = 0.08,
        .p_wt = 0.2,
        .max_loads = 2,
        .max_words = 3,
        .think_ps = 40000,
        .ops = 4000,
        .stall_ps = 200 * PS_PER_US,
    };
}

/* ---------------------------------------------------------------------------------------------
 * Failure */

static void dump_all(sys_t *s, FILE *f)
{
    fprintf(f, "\n  at %llu ps: %llu accesses outstanding, the last completion at %llu ps\n",
            (unsigned long long)s->k.now, (unsigned long long)s->outstanding, (unsigned long long)s->last_progress);
    for (unsigned i = 0; i < s->ncn; i++) {
        cn_mem_dump(s->cn[i], f);
        fprintf(f, "    credits:");
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            if (c == CLS_REQ || c == CLS_RWD || c == CLS_BIRSP)
                fprintf(f, " %s %u", msg_class_name((msg_class_t)c), s->cl[i].crd[c]);
        fprintf(f, "\n");
    }
    for (unsigned h = 0; h < s->nhomes; h++) {
        fprintf(f, "  home %u: %zu messages arrived and not taken\n", h, s->homes[h].nin);
        dir_ctrl_ref_dump(s->homes[h].r, f);
        size_t n;
        const dir_ref_viol_t *v = dir_ctrl_ref_violations(s->homes[h].r, &n);
        for (size_t i = 0; i < n && i < 8; i++)
            fprintf(f, "    violation %s: %s from node %u tag %u line 0x%llx flags %u\n", dir_viol_name(v[i].kind),
                    msg_name(v[i].msg.opcode) ? msg_name(v[i].msg.opcode) : "?", v[i].msg.src, v[i].msg.tag,
                    (unsigned long long)v[i].msg.addr, v[i].msg.flags);
    }
}

static void fail(sys_t *s, bool dump, const char *fmt, ...)
{
    if (s->failed)
        return;
    s->failed = true;
    cn_sys_result_t *r = s->res;
    r->ok = false;
    int n = snprintf(r->msg, sizeof r->msg, "%s: at %llu ps: ", s->ctx, (unsigned long long)s->k.now);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof r->msg)
        n += vsnprintf(r->msg + n, sizeof r->msg - (size_t)n, fmt, ap);
    va_end(ap);
    if (dump && n > 0 && (size_t)n < sizeof r->msg) {
        FILE *f = fmemopen(r->msg + n, sizeof r->msg - (size_t)n, "w");
        if (f) {
            dump_all(s, f);
            fclose(f);
        }
    }
    kernel_stop(&s->k);
}

/* ---------------------------------------------------------------------------------------------
 * The link */

static uint64_t link_delay(sys_t *s) { return rng_range(&s->rng_link, s->cfg.lat_min_ps, s->cfg.lat_max_ps); }

static flight_t *flight_new(sys_t *s, const msg_t *m, unsigned dst)
{
    flight_t *f = sys_alloc(s, sizeof *f);
    *f = (flight_t){.s = s, .m = *m, .seq = s->flseq++, .dst = dst};
    return f;
}

/* Due time of a message leaving now, per-class order kept when asked. */
static uint64_t due_of(sys_t *s, const msg_t *m)
{
    uint64_t due = s->k.now + link_delay(s);
    if (s->cfg.class_fifo) {
        uint64_t *ld = &s->last_due[((size_t)(m->src & 63) * 64 + (m->dst & 63)) * MSG_NUM_CLASSES + msg_class(m->opcode)];
        if (due < *ld)
            due = *ld;
        *ld = due;
    }
    return due;
}

static void note_order(sys_t *s, const flight_t *f)
{
    uint64_t *ls = &s->last_seq[((size_t)(f->m.src & 63) * 64 + (f->m.dst & 63)) * MSG_NUM_CLASSES +
                                msg_class(f->m.opcode)];
    if (f->seq + 1 < *ls)
        s->res->reordered++;
    if (f->seq + 1 > *ls)
        *ls = f->seq + 1;
}

static void home_tick(void *obj, uint64_t arg);

static void home_wake(home_t *h)
{
    if (h->ticking)
        return;
    h->ticking = true;
    uint64_t cyc = clock_cycle_at_or_after(&h->s->fab, h->s->k.now + 1);
    kernel_at(&h->s->k, clock_edge(&h->s->fab, cyc), home_tick, h, 0);
}

static void arrive_home(void *obj, uint64_t arg)
{
    flight_t *f = obj;
    (void)arg;
    home_t *h = &f->s->homes[f->dst];
    if (h->nin == h->capin) {
        h->capin = h->capin ? 2 * h->capin : 16;
        h->in = realloc(h->in, h->capin * sizeof *h->in);
        if (!h->in)
            abort();
    }
    h->in[h->nin++] = f;
    home_wake(h);
}

static void credit_back(void *obj, uint64_t cls)
{
    clink_t *l = obj;
    l->crd[cls]++;
    if (l->crd[cls] > l->s->cfg.credits)
        fail(l->s, false, "CN %u holds %u credits of class %s, more than it was given", l->cn, l->crd[cls],
             msg_class_name((msg_class_t)cls));
    cn_mem_credit(l->s->cn[l->cn], (msg_class_t)cls);
}

/* One home cycle: take the oldest arrived message its FIFOs have room for, then one step. */
static void home_tick(void *obj, uint64_t arg)
{
    (void)arg;
    home_t *h = obj;
    sys_t *s = h->s;
    for (size_t i = 0; i < h->nin; i++) {
        flight_t *f = h->in[i];
        if (!dir_ctrl_ref_can_recv(h->r, &f->m))
            continue;
        memmove(&h->in[i], &h->in[i + 1], (h->nin - i - 1) * sizeof *h->in);
        h->nin--;
        note_order(s, f);
        dir_ctrl_ref_recv(h->r, &f->m);
        kernel_after(&s->k, s->cfg.lat_min_ps, credit_back, &s->cl[f->m.src], msg_class(f->m.opcode));
        sys_release(s, f);
        break;
    }
    dir_ctrl_ref_tick(h->r);
    size_t nv;
    dir_ctrl_ref_violations(h->r, &nv);
    if (nv) {
        fail(s, true, "home %u counted a violation", h->idx);
        return;
    }
    if (h->nin || !dir_ctrl_ref_idle(h->r)) {
        kernel_at(&s->k, clock_edge(&s->fab, clock_cycle_at_or_after(&s->fab, s->k.now + 1)), home_tick, h, 0);
    } else {
        h->ticking = false;
    }
}

static void arrive_cn(void *obj, uint64_t arg)
{
    flight_t *f = obj;
    (void)arg;
    sys_t *s = f->s;
    note_order(s, f);
    s->cl[f->dst].delivered[msg_class(f->m.opcode)]++;
    msg_t m = f->m;
    sys_release(s, f);
    cn_mem_deliver(s->cn[m.dst], &m);
}

static void on_home_send(void *arg, const msg_t *m)
{
    home_t *h = arg;
    sys_t *s = h->s;
    const char *why = msg_check(m);
    if (why) {
        fail(s, false, "home %u sent a malformed %s: %s", h->idx, msg_name(m->opcode), why);
        return;
    }
    if (m->dst >= s->ncn) {
        fail(s, false, "home %u sent %s to node %u, not a CN", h->idx, msg_name(m->opcode), m->dst);
        return;
    }
    flight_t *f = flight_new(s, m, m->dst);
    kernel_at(&s->k, due_of(s, m), arrive_cn, f, 0);
}

static unsigned cl_credits(void *obj, msg_class_t c) { return ((clink_t *)obj)->crd[c]; }

static void cl_send(void *obj, const msg_t *m)
{
    clink_t *l = obj;
    sys_t *s = l->s;
    msg_class_t c = msg_class(m->opcode);
    if (!l->crd[c]) {
        fail(s, false, "CN %u sent %s without a %s credit", l->cn, msg_name(m->opcode), msg_class_name(c));
        return;
    }
    l->crd[c]--;
    const char *why = msg_check(m);
    if (why || m->src != l->cn || m->dst < MSG_MN_BASE || m->dst >= MSG_MN_BASE + s->nhomes) {
        fail(s, false, "CN %u sent a bad %s (to node %u): %s", l->cn, msg_name(m->opcode), m->dst,
             why ? why : "source or destination");
        return;
    }
    flight_t *f = flight_new(s, m, m->dst - MSG_MN_BASE);
    kernel_at(&s->k, due_of(s, m), arrive_home, f, 0);
}

static void cl_release(void *obj, msg_class_t c) { ((clink_t *)obj)->released[c]++; }

/* ---------------------------------------------------------------------------------------------
 * Shadows and checks */

static uint64_t *shadow(sys_t *s, const pend_t *p)
{
    if (p->region == R_SCR)
        return &s->sh_scr[(size_t)p->li * W];
    return &s->sh_loc[((size_t)p->a->cn * s->cfg.nlocal + p->li) * W];
}

static bool vset_has(const vset_t *v, uint64_t x)
{
    if (x == 0)
        return true;
    for (size_t i = 0; i < v->n; i++)
        if (v->v[i] == x)
            return true;
    return false;
}

/* May CN cn read x from LNR word i? Without coherence it may read any other CN's value, but of its
 * own only the last it wrote (its writes reach memory in order, and only its dirty words), and
 * zero only before it wrote the word. With whole-line write-backs another CN's stale copy of the
 * word may undo its store: then any value ever written to the word, or zero. */
static bool lnr_readable(const sys_t *s, size_t i, unsigned cn, uint64_t x)
{
    uint64_t own = s->own_lnr[i * s->ncn + cn];
    if (x == own)
        return true;
    if (x == 0)
        return !s->cfg.lnr_word_writeback;
    const vset_t *v = &s->ws_lnr[i];
    for (size_t k = 0; k < v->n; k++) /* atomics may write one value from several CNs */
        if (v->v[k] == x && (v->cn[k] != cn || !s->cfg.lnr_word_writeback))
            return true;
    return false;
}

static void lnr_wrote(sys_t *s, size_t i, unsigned cn, uint64_t x)
{
    vset_t *v = &s->ws_lnr[i];
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 16;
        v->v = realloc(v->v, v->cap * sizeof *v->v);
        v->cn = realloc(v->cn, v->cap * sizeof *v->cn);
        if (!v->v || !v->cn)
            abort();
    }
    v->cn[v->n] = cn;
    v->v[v->n++] = x;
    s->own_lnr[i * s->ncn + cn] = x;
}

static const char *rname(int r) { return r == R_SCR ? "coherent" : r == R_LNR ? "LNR" : "local"; }

/* Single writer at a commit: nobody else holds the line readable. */
static void check_swmr(sys_t *s, const pend_t *p)
{
    const agent_t *a = p->a;
    uint64_t key = addr_line(p->addr);
    cn_mem_probe_t pr;
    cn_mem_probe(s->cn[a->cn], key, &pr);
    int want = p->region == R_SCR ? CN_L3_OWN : p->region == R_LNR ? CN_L3_NC : CN_L3_LOCAL;
    if ((int)pr.l3 != want || pr.l1[a->core] != CN_PV_X || pr.l2[a->core] != CN_PV_X)
        fail(s, true, "CN %u core %u commits a write to %s line 0x%llx holding it L3 %d, L1 %u, L2 %u", a->cn,
             a->core, rname(p->region), (unsigned long long)key, pr.l3, pr.l1[a->core], pr.l2[a->core]);
    for (unsigned i = 0; i < s->cfg.cores; i++)
        if (i != a->core && (pr.l1[i] || pr.l2[i]))
            fail(s, true, "single writer violated: CN %u core %u writes line 0x%llx while core %u holds it", a->cn,
                 a->core, (unsigned long long)key, i);
    if (p->region != R_SCR)
        return;
    for (unsigned c = 0; c < s->ncn; c++) {
        if (c == a->cn)
            continue;
        cn_mem_probe(s->cn[c], key, &pr);
        if (pr.l3 == CN_L3_S || pr.l3 == CN_L3_OWN)
            fail(s, true, "single writer violated: CN %u writes line 0x%llx while CN %u holds it (%s)", a->cn,
                 (unsigned long long)key, c, pr.l3 == CN_L3_S ? "S" : "owned");
    }
}

static void progress(sys_t *s, pend_t *p)
{
    s->outstanding--;
    s->last_progress = s->k.now;
    s->res->ops_done++;
    if (s->res->ops_done >= s->cfg.ops)
        s->stopping = true;
    sys_release(s, p);
}

static void on_load(void *obj, uint64_t tag, uint64_t v)
{
    (void)tag;
    pend_t *p = obj;
    sys_t *s = p->a->s;
    p->a->nloads--;
    if (p->region == R_LNR) {
        if (!lnr_readable(s, (size_t)p->li * W + p->w, p->a->cn, v))
            fail(s, true, "CN %u core %u loads 0x%llx from LNR word 0x%llx: neither another CN's value nor its own last",
                 p->a->cn, p->a->core, (unsigned long long)v, (unsigned long long)p->addr);
    } else {
        uint64_t want = shadow(s, p)[p->w];
        if (v != want)
            fail(s, true,
                 "CN %u core %u loads 0x%llx from %s word 0x%llx (issued at %llu ps); the last committed store wrote "
                 "0x%llx",
                 p->a->cn, p->a->core, (unsigned long long)v, rname(p->region), (unsigned long long)p->addr,
                 (unsigned long long)p->t_issue, (unsigned long long)want);
    }
    progress(s, p);
}

static void on_committed(void *obj, uint64_t tag, uint64_t v, unsigned version)
{
    (void)tag;
    pend_t *p = obj;
    sys_t *s = p->a->s;
    check_swmr(s, p);
    /* Versions (section 11b): commits to a line are totally ordered (single writer), each gets the
     * previous one's version plus one, whichever core or CN made it; LNR and local lines report 0. */
    unsigned want = 0;
    if (p->region == R_SCR)
        want = (unsigned)(++s->ver_scr[p->li] & ((1u << MSG_TS_W) - 1));
    if (version != want)
        fail(s, true, "CN %u core %u commits to %s line 0x%llx with version %u, want %u (%llu commits to the line)",
             p->a->cn, p->a->core, rname(p->region), (unsigned long long)addr_line(p->addr), version, want,
             p->region == R_SCR ? (unsigned long long)s->ver_scr[p->li] : 0ull);
    s->res->commits_checked++;
    if (p->kind == A_RMW) {
        p->wrote = true;
        p->new_val = v;
        if (p->region == R_LNR) {
            p->old_exp = s->own_lnr[((size_t)p->li * W + p->w) * s->ncn + p->a->cn];
            lnr_wrote(s, (size_t)p->li * W + p->w, p->a->cn, v);
        } else {
            p->old_exp = shadow(s, p)[p->w];
            shadow(s, p)[p->w] = v;
        }
        return;
    }
    for (unsigned w = 0; w < W; w++)
        if (p->mask >> w & 1) {
            if (p->region == R_LNR)
                lnr_wrote(s, (size_t)p->li * W + w, p->a->cn, p->val[w]);
            else
                shadow(s, p)[w] = p->val[w];
        }
    p->wrote = true;
}

static void on_store_done(void *obj, uint64_t tag, uint64_t v)
{
    (void)tag, (void)v;
    pend_t *p = obj;
    sys_t *s = p->a->s;
    if (!p->wrote)
        fail(s, false, "CN %u core %u: a store completed without committing", p->a->cn, p->a->core);
    p->a->sb_busy = false;
    progress(s, p);
}

static void on_rmw_done(void *obj, uint64_t tag, uint64_t old)
{
    (void)tag;
    pend_t *p = obj;
    sys_t *s = p->a->s;
    agent_t *a = p->a;
    const char *opn = p->rop == MEM_RMW_CAS ? "CAS" : p->rop == MEM_RMW_FADD ? "FADD" : "SWAP";
    uint64_t want_new = p->rop == MEM_RMW_CAS ? p->rb : p->rop == MEM_RMW_FADD ? old + p->ra : p->ra;
    bool should_write = p->rop != MEM_RMW_CAS || old == p->ra;
    if (p->wrote != should_write)
        fail(s, false, "CN %u core %u: %s of word 0x%llx with old value 0x%llx (a 0x%llx) %s", a->cn, a->core, opn,
             (unsigned long long)p->addr, (unsigned long long)old, (unsigned long long)p->ra,
             p->wrote ? "wrote" : "did not write");
    else if (p->wrote && p->new_val != want_new)
        fail(s, false, "CN %u core %u: %s of word 0x%llx: old 0x%llx, wrote 0x%llx", a->cn, a->core, opn,
             (unsigned long long)p->addr, (unsigned long long)old, (unsigned long long)p->new_val);
    else if (p->region != R_LNR) {
        uint64_t want_old = p->wrote ? p->old_exp : shadow(s, p)[p->w];
        if (old != want_old)
            fail(s, true, "CN %u core %u: %s of %s word 0x%llx returned old 0x%llx; the word held 0x%llx", a->cn,
                 a->core, opn, rname(p->region), (unsigned long long)p->addr, (unsigned long long)old,
                 (unsigned long long)want_old);
    } else {
        size_t i = (size_t)p->li * W + p->w;
        /* its own write is now the CN's last: judge the old word against the one before */
        uint64_t *own = &s->own_lnr[i * s->ncn + a->cn], keep = *own;
        if (p->wrote)
            *own = p->old_exp;
        bool ok = lnr_readable(s, i, a->cn, old) || (p->wrote && old == p->old_exp);
        *own = keep;
        if (!ok)
            fail(s, true, "CN %u core %u: %s of LNR word 0x%llx returned 0x%llx: neither another CN's value nor its own last",
                 a->cn, a->core, opn, (unsigned long long)p->addr, (unsigned long long)old);
    }
    a->sb_busy = false;
    progress(s, p);
}

static void on_flush_done(void *obj, uint64_t tag, uint64_t v)
{
    (void)tag, (void)v;
    pend_t *p = obj;
    if (!p->final)
        p->a->sb_busy = false;
    progress(p->a->s, p);
}

/* ---------------------------------------------------------------------------------------------
 * Agents */

static uint64_t unique(agent_t *a) { return (uint64_t)(a->cn + 1) << 56 | (uint64_t)(a->core + 1) << 48 | ++a->seq; }

static void agent_attempt(void *obj, uint64_t arg)
{
    (void)arg;
    agent_t *a = obj;
    sys_t *s = a->s;
    const cn_sys_cfg_t *cf = &s->cfg;
    if (s->stopping || s->failed)
        return;
    kernel_after(&s->k, 1 + rng_below(&a->rng, cf->think_ps), agent_attempt, a, 0);

    double x = rng_unit(&a->rng);
    int kind = x < cf->p_store                                              ? A_STORE
               : x < cf->p_store + cf->p_rmw                                ? A_RMW
               : x < cf->p_store + cf->p_rmw + cf->p_flush                  ? A_FLUSH
               : x < cf->p_store + cf->p_rmw + cf->p_flush + cf->p_prefetch ? A_PREFETCH
                                                                            : A_LOAD;
    if (kind == A_LOAD ? a->nloads >= cf->max_loads : kind != A_PREFETCH && a->sb_busy)
        return;
    double y = rng_unit(&a->rng);
    int region = cf->nlnr && y < cf->p_lnr ? R_LNR : cf->nlocal && y < cf->p_lnr + cf->p_local ? R_LOCAL : R_SCR;
    unsigned li;
    uint64_t line;
    if (region == R_SCR) {
        li = cf->nhot && rng_chance(&a->rng, cf->hot_share) ? (unsigned)rng_below(&a->rng, cf->nhot)
                                                             : (unsigned)rng_below(&a->rng, cf->nscr);
        line = s->scr[li];
    } else if (region == R_LNR) {
        li = (unsigned)rng_below(&a->rng, cf->nlnr);
        line = s->lnr[li];
    } else {
        li = (unsigned)rng_below(&a->rng, cf->nlocal);
        line = s->loc[li];
    }
    unsigned w = (unsigned)rng_below(&a->rng, W);
    pend_t *p = sys_alloc(s, sizeof *p);
    *p = (pend_t){.a = a, .kind = kind, .region = region, .li = li, .w = w, .addr = line + 8 * w,
                  .t_issue = s->k.now};
    const mem_if_t *mi = cn_mem_if(s->cn[a->cn]);
    bool remote = region != R_LOCAL;
    switch (kind) {
    case A_LOAD:
        a->nloads++;
        s->outstanding++;
        s->res->loads++;
        mi->load(mi->obj, a->core, p->addr, on_load, p, 0);
        return;
    case A_PREFETCH:
        s->res->prefetches++;
        mi->prefetch_x(mi->obj, a->core, p->addr);
        sys_release(s, p);
        return;
    case A_FLUSH:
        a->sb_busy = true;
        s->outstanding++;
        s->res->flushes++;
        mi->flush(mi->obj, a->core, p->addr, on_flush_done, p, 0);
        return;
    case A_STORE: {
        unsigned nw = 1 + (unsigned)rng_below(&a->rng, cf->max_words);
        for (unsigned k = 0; k < nw; k++)
            p->mask |= (uint8_t)(1u << rng_below(&a->rng, W));
        for (unsigned k = 0; k < W; k++)
            if (p->mask >> k & 1)
                p->val[k] = unique(a);
        p->wt = remote && rng_chance(&a->rng, cf->p_wt);
        a->sb_busy = true;
        s->outstanding++;
        s->res->stores++;
        s->res->wts += p->wt;
        mi->store(mi->obj, a->core, line, p->mask, p->val, p->wt, on_committed, on_store_done, p, 0);
        return;
    }
    default: {
        p->rop = (mem_rmw_e)rng_below(&a->rng, 3);
        if (p->rop == MEM_RMW_CAS) {
            p->ra = region != R_LNR && rng_chance(&a->rng, 0.6) ? shadow(s, p)[w] : 0;
            p->rb = unique(a);
        } else if (p->rop == MEM_RMW_FADD) {
            p->ra = 1 + rng_below(&a->rng, 15);
        } else {
            p->ra = unique(a);
        }
        p->wt = remote && rng_chance(&a->rng, cf->p_wt);
        a->sb_busy = true;
        s->outstanding++;
        s->res->rmws++;
        s->res->wts += p->wt;
        mi->rmw(mi->obj, a->core, p->addr, p->rop, p->ra, p->rb, p->wt, on_committed, on_rmw_done, p, 0);
    }
    }
}

/* Stops the run when nothing completes for stall_ps. */
static void watchdog(void *obj, uint64_t arg)
{
    (void)arg;
    sys_t *s = obj;
    if (s->failed || (s->stopping && !s->outstanding))
        return;
    if (s->k.now - s->last_progress > s->cfg.stall_ps) {
        fail(s, true, "no access completed for %llu ps", (unsigned long long)(s->k.now - s->last_progress));
        return;
    }
    kernel_after(&s->k, s->cfg.stall_ps / 4, watchdog, s, 0);
}

/* ---------------------------------------------------------------------------------------------
 * Quiescence */

static bool quiet(sys_t *s, const char **why)
{
    for (unsigned i = 0; i < s->ncn; i++)
        if (!cn_mem_idle(s->cn[i])) {
            *why = "a CN is not idle";
            return false;
        }
    for (unsigned h = 0; h < s->nhomes; h++)
        if (s->homes[h].nin || !dir_ctrl_ref_idle(s->homes[h].r)) {
            *why = "a home is not idle";
            return false;
        }
    if (s->outstanding) {
        *why = "accesses are outstanding";
        return false;
    }
    return true;
}

static unsigned home_idx(const sys_t *s, uint64_t key)
{
    return dir_addr_mn(addr_gline(key), s->cfg.mn_shift, s->cfg.gran_shift);
}

static void final_checks(sys_t *s)
{
    const cn_sys_cfg_t *cf = &s->cfg;
    for (unsigned li = 0; li < cf->nscr && !s->failed; li++) {
        uint64_t key = s->scr[li];
        dir_ctrl_ref_t *r = s->homes[home_idx(s, key)].r;
        uint64_t mem[W];
        dir_ctrl_ref_mem_peek(r, addr_gline(key), mem);
        uint32_t owners = 0, sharers = 0;
        cn_mem_probe_t pr;
        for (unsigned c = 0; c < s->ncn; c++) {
            cn_mem_probe(s->cn[c], key, &pr);
            if (pr.l3 == CN_L3_OWN)
                owners |= 1u << c;
            else if (pr.l3 == CN_L3_S)
                sharers |= 1u << c;
            if (pr.l3 == CN_L3_S)
                for (unsigned w = 0; w < W; w++)
                    if (pr.data[w] != s->sh_scr[li * W + w])
                        fail(s, false, "at the end CN %u holds line 0x%llx in S with word %u = 0x%llx, the last store wrote 0x%llx",
                             c, (unsigned long long)key, w, (unsigned long long)pr.data[w],
                             (unsigned long long)s->sh_scr[li * W + w]);
        }
        if ((owners & (owners - 1)) || (owners && sharers))
            fail(s, false, "at the end line 0x%llx has owners 0x%x and sharers 0x%x", (unsigned long long)key, owners,
                 sharers);
        for (unsigned w = 0; w < W && !s->failed; w++) {
            uint64_t v = mem[w], x;
            int who = -1;
            for (unsigned c = 0; c < s->ncn; c++)
                if (cn_mem_peek(s->cn[c], key + 8 * w, &x)) {
                    if (who >= 0)
                        fail(s, false, "at the end CNs %d and %u both claim the newest copy of word 0x%llx", who, c,
                             (unsigned long long)(key + 8 * w));
                    who = (int)c;
                    v = x;
                }
            if (v != s->sh_scr[li * W + w])
                fail(s, false,
                     "at the end coherent word 0x%llx is 0x%llx (%s%d), the last committed store wrote 0x%llx",
                     (unsigned long long)(key + 8 * w), (unsigned long long)v, who >= 0 ? "from CN " : "memory, ", who,
                     (unsigned long long)s->sh_scr[li * W + w]);
        }
        /* Versions: the owner's is the line's; the directory's too when no CN holds it dirty. */
        unsigned tv = (unsigned)(s->ver_scr[li] & ((1u << MSG_TS_W) - 1));
        bool dirty_owned = false;
        for (unsigned c = 0; c < s->ncn; c++) {
            cn_mem_probe(s->cn[c], key, &pr);
            if (pr.l3 == CN_L3_OWN && pr.ver != tv)
                fail(s, false, "at the end CN %u owns line 0x%llx with version %u, the line's is %u", c,
                     (unsigned long long)key, pr.ver, tv);
            dirty_owned |= pr.l3 == CN_L3_OWN && pr.dmask;
        }
        dir_entry_t e;
        if (dir_ctrl_ref_peek_entry(r, addr_gline(key), &e) && !dirty_owned && e.ver != tv)
            fail(s, false, "at the end the directory of line 0x%llx holds version %u, the line's is %u (no CN holds it "
                           "dirty)",
                 (unsigned long long)key, e.ver, tv);
        if (dir_ctrl_ref_peek_entry(r, addr_gline(key), &e)) {
            unsigned want = owners ? DIR_EM : sharers ? DIR_S : DIR_I;
            if (e.state != want || e.vec != (owners | sharers))
                fail(s, false, "at the end the directory of line 0x%llx says state %u vec 0x%x; the CNs hold owners 0x%x "
                               "sharers 0x%x",
                     (unsigned long long)key, e.state, e.vec, owners, sharers);
        }
    }
    for (unsigned c = 0; c < s->ncn && !s->failed; c++)
        for (unsigned li = 0; li < cf->nlocal; li++)
            for (unsigned w = 0; w < W; w++) {
                uint64_t v = cn_mem_local_peek(s->cn[c], s->loc[li] + 8 * w);
                uint64_t want = s->sh_loc[((size_t)c * cf->nlocal + li) * W + w];
                if (v != want)
                    fail(s, false, "at the end CN %u's local word 0x%llx is 0x%llx, its last store wrote 0x%llx", c,
                         (unsigned long long)(s->loc[li] + 8 * w), (unsigned long long)v, (unsigned long long)want);
            }
    for (unsigned li = 0; li < cf->nlnr && !s->failed; li++) {
        uint64_t mem[W];
        dir_ctrl_ref_mem_peek(s->homes[home_idx(s, s->lnr[li])].r, addr_gline(s->lnr[li]), mem);
        for (unsigned w = 0; w < W; w++)
            if (!vset_has(&s->ws_lnr[(size_t)li * W + w], mem[w]))
                fail(s, false, "at the end LNR word 0x%llx in memory is 0x%llx, which no store wrote",
                     (unsigned long long)(s->lnr[li] + 8 * w), (unsigned long long)mem[w]);
    }
    for (unsigned h = 0; h < s->nhomes && !s->failed; h++) {
        size_t n;
        dir_ctrl_ref_violations(s->homes[h].r, &n);
        if (n)
            fail(s, true, "home %u counted %zu violations", h, n);
    }
    for (unsigned c = 0; c < s->ncn && !s->failed; c++) {
        for (unsigned k = 0; k < MSG_NUM_CLASSES; k++) {
            if (s->cl[c].delivered[k] != s->cl[c].released[k])
                fail(s, false, "CN %u released %llu %s messages of %llu delivered", c,
                     (unsigned long long)s->cl[c].released[k], msg_class_name((msg_class_t)k),
                     (unsigned long long)s->cl[c].delivered[k]);
            if (s->cl[c].crd[k] != cf->credits)
                fail(s, false, "CN %u holds %u %s credits at the end, not %u", c, s->cl[c].crd[k],
                     msg_class_name((msg_class_t)k), cf->credits);
        }
        char name[96];
        const char *bad[] = {"snoop.unexpected", "port.rx_unexpected"};
        for (unsigned i = 0; i < 2; i++) {
            snprintf(name, sizeof name, "cn%u.mem.%s", c, bad[i]);
            const uint64_t *v = stats_find_counter(&s->st, name);
            if (v && *v)
                fail(s, false, "CN %u counted %llu %s", c, (unsigned long long)*v, bad[i]);
        }
    }
}

static uint64_t sum_ctr(sys_t *s, const char *suffix)
{
    uint64_t t = 0;
    char name[96];
    for (unsigned c = 0; c < s->ncn; c++) {
        snprintf(name, sizeof name, "cn%u.mem.%s", c, suffix);
        const uint64_t *v = stats_find_counter(&s->st, name);
        if (v)
            t += *v;
    }
    return t;
}

/* ---------------------------------------------------------------------------------------------
 * Run */

static void pick_lines(sys_t *s, rng_t *r, uint64_t *out, unsigned n, uint64_t lo, uint64_t hi, bool outside_scr)
{
    for (unsigned i = 0; i < n; i++)
        for (;;) {
            uint64_t g = rng_range(r, lo, hi - 1);
            if (outside_scr && g >= s->cfg.scr_lo && g < s->cfg.scr_hi)
                continue;
            bool dup = false;
            for (unsigned j = 0; j < i; j++)
                dup |= out[j] == g * ADDR_LINE_BYTES;
            if (dup)
                continue;
            out[i] = g * ADDR_LINE_BYTES;
            break;
        }
}

void cn_sys_run(const cn_sys_cfg_t *cfg, uint64_t seed, const char *replay, cn_sys_result_t *res)
{
    memset(res, 0, sizeof *res);
    res->ok = true;
    sys_t *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->cfg = *cfg;
    s->seed = seed;
    s->res = res;
    snprintf(s->ctx, sizeof s->ctx, "%s seed=%llu (replay: %s)", cfg->name ? cfg->name : "cn_sys",
             (unsigned long long)seed, replay ? replay : "same cfg and seed");
    kernel_init(&s->k);
    stats_init(&s->st);
    s->fab = clock_domain("fabric", cfg->fabric_freq_hz);
    rng_init_named(&s->rng_link, seed, "cn_sys.link");
    s->ncn = cfg->ncn;
    s->nhomes = 1u << cfg->mn_shift;
    uint64_t total = cfg->lines_per_mn << cfg->mn_shift;
    const uint64_t local_bytes = 64 * 1024;

    rng_t rl;
    rng_init_named(&rl, seed, "cn_sys.lines");
    s->scr = calloc(cfg->nscr, sizeof *s->scr);
    s->lnr = calloc(cfg->nlnr + 1, sizeof *s->lnr);
    s->loc = calloc(cfg->nlocal + 1, sizeof *s->loc);
    s->sh_scr = calloc((size_t)cfg->nscr * W, sizeof *s->sh_scr);
    s->ver_scr = calloc(cfg->nscr, sizeof *s->ver_scr);
    s->sh_loc = calloc((size_t)cfg->ncn * (cfg->nlocal + 1) * W, sizeof *s->sh_loc);
    s->ws_lnr = calloc((size_t)(cfg->nlnr + 1) * W, sizeof *s->ws_lnr);
    s->own_lnr = calloc((size_t)(cfg->nlnr + 1) * W * cfg->ncn, sizeof *s->own_lnr);
    s->last_due = calloc((size_t)64 * 64 * MSG_NUM_CLASSES, sizeof *s->last_due);
    s->last_seq = calloc((size_t)64 * 64 * MSG_NUM_CLASSES, sizeof *s->last_seq);
    if (!s->scr || !s->lnr || !s->loc || !s->sh_scr || !s->ver_scr || !s->sh_loc || !s->ws_lnr || !s->own_lnr || !s->last_due || !s->last_seq)
        abort();
    pick_lines(s, &rl, s->scr, cfg->nscr, cfg->scr_lo, cfg->scr_hi, false);
    pick_lines(s, &rl, s->lnr, cfg->nlnr, 0, total, true);
    for (unsigned i = 0; i < cfg->nlocal; i++)
        for (;;) {
            uint64_t a = ADDR_LOCAL_BASE + rng_below(&rl, local_bytes / ADDR_LINE_BYTES) * ADDR_LINE_BYTES;
            bool dup = false;
            for (unsigned j = 0; j < i; j++)
                dup |= s->loc[j] == a;
            if (!dup) {
                s->loc[i] = a;
                break;
            }
        }

    s->homes = calloc(s->nhomes, sizeof *s->homes);
    for (unsigned h = 0; h < s->nhomes; h++) {
        home_t *hm = &s->homes[h];
        hm->s = s;
        hm->idx = h;
        dir_ctrl_ref_cfg_t dc = dir_ctrl_ref_default_cfg();
        dc.node_id = MSG_MN_BASE + h;
        dc.mn_idx = h;
        dc.mn_shift = cfg->mn_shift;
        dc.gran_shift = cfg->gran_shift;
        dc.lines = cfg->lines_per_mn;
        dc.scr_lo = cfg->scr_lo;
        dc.scr_hi = cfg->scr_hi;
        dc.txn_entries = cfg->dir_txn;
        dc.mem_latency = cfg->dir_mem_latency;
        dc.crd_per_cls = cfg->dir_crd;
        dc.send = on_home_send;
        dc.send_arg = hm;
        const char *why = dir_ctrl_ref_cfg_check(&dc);
        if (why) {
            fail(s, false, "bad home configuration: %s", why);
            goto out;
        }
        hm->r = dir_ctrl_ref_init(&dc);
    }
    s->cn = calloc(s->ncn, sizeof *s->cn);
    s->cl = calloc(s->ncn, sizeof *s->cl);
    for (unsigned c = 0; c < s->ncn; c++) {
        clink_t *l = &s->cl[c];
        l->s = s;
        l->cn = c;
        for (unsigned k = 0; k < MSG_NUM_CLASSES; k++)
            l->crd[k] = cfg->credits;
        char name[32], err[256];
        snprintf(name, sizeof name, "cn%u.mem", c);
        cn_mem_params_t p = {.cn = c, .cores = cfg->cores, .l1 = cfg->l1, .l2 = cfg->l2, .l3 = cfg->l3,
                             .core_freq_hz = cfg->core_freq_hz, .local_latency_ps = cfg->local_latency_ps,
                             .local_bytes = local_bytes, .num_mn = s->nhomes,
                             .interleave_bytes = ADDR_LINE_BYTES << cfg->gran_shift, .scr_lo = cfg->scr_lo,
                             .scr_hi = cfg->scr_hi, .lnr_word_writeback = cfg->lnr_word_writeback, .name = name,
                             .seed = seed, .mutate = cfg->mutate};
        cn_link_t link = {.obj = l, .credits = cl_credits, .send = cl_send, .release = cl_release};
        s->cn[c] = cn_mem_create(&s->k, &p, &link, &s->st, err);
        if (!s->cn[c]) {
            fail(s, false, "cn_mem_create: %s", err);
            goto out;
        }
    }
    s->ag = calloc((size_t)s->ncn * cfg->cores, sizeof *s->ag);
    for (unsigned c = 0; c < s->ncn; c++)
        for (unsigned i = 0; i < cfg->cores; i++) {
            agent_t *a = &s->ag[c * cfg->cores + i];
            a->s = s;
            a->cn = c;
            a->core = i;
            char name[48];
            snprintf(name, sizeof name, "cn_sys.agent%u.%u", c, i);
            rng_init_named(&a->rng, seed, name);
            kernel_at(&s->k, 1 + rng_below(&a->rng, cfg->think_ps), agent_attempt, a, 0);
        }
    kernel_after(&s->k, cfg->stall_ps / 4, watchdog, s, 0);

    kernel_run(&s->k, UINT64_MAX);
    const char *why = NULL;
    if (!s->failed && !quiet(s, &why))
        fail(s, true, "the run ended (no event left) but %s", why);
    if (!s->failed) {
        /* Every CN flushes its LNR lines: memory then holds what the CNs wrote. */
        for (unsigned c = 0; c < s->ncn; c++)
            for (unsigned li = 0; li < cfg->nlnr; li++) {
                pend_t *p = sys_alloc(s, sizeof *p);
                *p = (pend_t){.a = &s->ag[c * cfg->cores], .kind = A_FLUSH, .region = R_LNR, .li = li,
                              .addr = s->lnr[li], .final = true};
                s->outstanding++;
                const mem_if_t *mi = cn_mem_if(s->cn[c]);
                mi->flush(mi->obj, 0, s->lnr[li], on_flush_done, p, 0);
            }
        kernel_after(&s->k, cfg->stall_ps / 4, watchdog, s, 0);
        kernel_run(&s->k, UINT64_MAX);
        if (!s->failed && !quiet(s, &why))
            fail(s, true, "the final LNR flushes ended (no event left) but %s", why);
    }
    if (!s->failed)
        final_checks(s);

    res->sim_ps = s->k.now;
    res->held = sum_ctr(s, "snoop.held");
    res->wif = sum_ctr(s, "snoop.wr_in_flight");
    res->upg_lost = sum_ctr(s, "snoop.upgrade_lost");
    res->void_cmp_e = sum_ctr(s, "snoop.void_cmp_e");
    res->ev_clean = sum_ctr(s, "evict.clean");
    res->ev_dirty = sum_ctr(s, "evict.dirty");
    res->ev_lnr = sum_ctr(s, "evict.lnr");
    res->merges = sum_ctr(s, "mshr.merges");
    res->alloc_waits = sum_ctr(s, "l3.alloc_waits");
    res->l3_misses = sum_ctr(s, "l3.misses");
    for (unsigned h = 0; h < s->nhomes; h++)
        if (s->homes[h].r)
            res->stale_wr += dir_ctrl_ref_counts(s->homes[h].r)->stale_wr;

out:
    /* Events still queued (after a failure) point into s: drop them with the kernel first. */
    kernel_free(&s->k);
    for (unsigned c = 0; s->cn && c < s->ncn; c++)
        cn_mem_free(s->cn[c]);
    for (unsigned h = 0; s->homes && h < s->nhomes; h++) {
        if (s->homes[h].r)
            dir_ctrl_ref_free(s->homes[h].r);
        free(s->homes[h].in); /* its flights are sys_alloc's: freed below */
    }
    for (size_t i = 0; i < (size_t)(cfg->nlnr + 1) * W; i++) {
        free(s->ws_lnr[i].v);
        free(s->ws_lnr[i].cn);
    }
    free(s->own_lnr);
    while (s->made)
        sys_release(s, s->made->payload);
    stats_free(&s->st);
    free(s->homes);
    free(s->cn);
    free(s->cl);
    free(s->ag);
    free(s->scr);
    free(s->lnr);
    free(s->loc);
    free(s->sh_scr);
    free(s->ver_scr);
    free(s->sh_loc);
    free(s->ws_lnr);
    free(s->last_due);
    free(s->last_seq);
    free(s);
}
