/* The recovery handler of a memory node (see mn_recov.h). */
#include "sw/mn_recov.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv/dir_drv.h"

#define NODES 64u /* node ids are 6 bits */

typedef enum rv_phase {
    RV_IDLE,
    RV_FAIL,    /* FAIL given */
    RV_WALK,    /* WALK given: collecting the Owned list */
    RV_LU,      /* FETCH_LATEST_VERS out to the LUs */
    RV_MN,      /* ... to the log stores */
    RV_SEARCH,  /* the stores' search time */
    RV_RECOVER, /* RECOVERs given */
    RV_RESUME,  /* RESUME given */
} rv_phase_e;

static const char *const rv_names[] = {"idle", "FAIL", "the walk", "the LUs' answers", "the log stores' answers",
                                       "the log stores' search", "the RECOVERs", "RESUME"};

typedef struct owned {
    uint64_t line;
    uint8_t found;    /* words found so far */
    uint8_t from_lu;  /* of those, from an LU */
    uint16_t epoch[MSG_WORDS_PER_LINE]; /* a store's answer: the dump epoch a word came from */
    bool has_buf;     /* an LU found a word of the line in its buffer ... */
    uint8_t buf_ts;   /* ... and this is the latest TS of those (the line's version after the RECOVER) */
    uint8_t ts[MSG_WORDS_PER_LINE];
    uint64_t v[MSG_WORDS_PER_LINE];
} owned_t;

struct mn_recov {
    kernel_t *k;
    mn_node_t *n;
    mn_recov_params_t p;
    char name[64];
    mn_recov_hooks_t h;
    rv_phase_e ph;
    unsigned queue[MSG_MAX_CN]; /* INIT_RECOVs waiting: (subject, requester) */
    unsigned qsrc[MSG_MAX_CN];
    unsigned qn;
    unsigned cm;                /* the running recovery's requester (the newest CM that asked) */
    uint32_t fail_given;        /* CNs given to the directory as failed (FAIL) */
    uint32_t recovered;         /* CNs whose recovery here is complete */
    unsigned fail_dones;        /* DONEs due for FAILs given during the walk (for a CN failing meanwhile) */
    unsigned due[NODES];        /* per node: FETCH_LATEST_VERS requests of its list not answered yet
                                 * (an LU or store whose list is answered, or whose CN failed: 0) */
    owned_t *o;
    size_t on, ocap;
    unsigned pending;           /* lists (LU / store) not answered yet, or RECOVER answers due */
    mn_recov_report_t r;
    uint64_t *n_rec, *n_owned, *n_wlu, *n_wmn, *n_busy, *n_ans;
};

static int cmp_line(const void *a, const void *b)
{
    const owned_t *x = a, *y = b;
    return x->line < y->line ? -1 : x->line > y->line;
}

static owned_t *find(mn_recov_t *r, uint64_t line)
{
    owned_t key = {.line = line};
    return bsearch(&key, r->o, r->on, sizeof *r->o, cmp_line);
}

static void mg(mn_recov_t *r, dir_mg_op_e op, unsigned cn, const owned_t *o)
{
    dir_mg_cmd_t c = {.op = op, .cn = cn};
    if (o) {
        c.line = o->line;
        c.wmask = o->found;
        memcpy(c.data, o->v, sizeof c.data);
        c.set_ts = o->has_buf;
        c.ts = o->buf_ts;
    }
    mn_node_mg_send(r->n, &c);
}

static void sw_send(mn_recov_t *r, msg_op_t op, unsigned dst, uint16_t tag, uint8_t flags, uint64_t line, uint8_t mask)
{
    msg_t m = {.opcode = op,
               .src = (uint8_t)(MSG_MN_BASE + r->p.mn),
               .dst = (uint8_t)dst,
               .subject = (uint8_t)r->r.failed,
               .tag = tag,
               .flags = flags,
               .addr = line,
               .mask = mask};
    mn_node_sw_send(r->n, &m);
}

/* FAIL c to the directory. */
static void give_fail(mn_recov_t *r, unsigned c)
{
    r->fail_given |= 1u << c;
    mg(r, DIR_MG_FAIL, c, NULL);
}

static void start(mn_recov_t *r)
{
    unsigned f = r->queue[0], src = r->qsrc[0];
    r->qn--;
    memmove(r->queue, r->queue + 1, r->qn * sizeof *r->queue);
    memmove(r->qsrc, r->qsrc + 1, r->qn * sizeof *r->qsrc);
    r->cm = src;
    r->r = (mn_recov_report_t){.mn = r->p.mn, .failed = f, .t_init = r->k->now};
    r->on = 0;
    memset(r->due, 0, sizeof r->due);
    r->ph = RV_FAIL;
    /* Every CN known to have failed is marked in the directory before the walk (a second CN that
     * failed meanwhile would otherwise hold the walk up with a transaction waiting for it). */
    uint32_t failed = (r->h.failed ? r->h.failed(r->h.obj) : 0) | 1u << f;
    for (unsigned i = 0; i < r->qn; i++)
        failed |= 1u << r->queue[i];
    r->pending = 0;
    for (unsigned c = 0; c < MSG_MAX_CN; c++)
        if (failed >> c & 1u) {
            r->pending++;
            give_fail(r, c); /* f's FAIL also starts the directory's recovery mode (until RESUME) */
        }
}

static void recover_all(mn_recov_t *r)
{
    r->r.t_mn_done = r->k->now;
    r->ph = RV_RECOVER;
    r->pending = (unsigned)r->on;
    for (size_t i = 0; i < r->on; i++) {
        owned_t *o = &r->o[i];
        for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
            if (o->found >> w & 1u) {
                if (o->from_lu >> w & 1u)
                    r->r.words_lu++;
                else
                    r->r.words_mn++;
            }
        mg(r, DIR_MG_RECOVER, 0, o);
    }
    if (!r->on) {
        r->r.t_recovered = r->k->now;
        r->ph = RV_RESUME;
        mg(r, DIR_MG_RESUME, 0, NULL);
    }
}

static void ev_searched(void *obj, uint64_t arg)
{
    (void)arg;
    recover_all(obj);
}

/* One FETCH_LATEST_VERS of node dst's list: its tag is its place in that list, so that the last
 * one (LAST) tells the receiver how many the list holds even when the fabric delivers them out of
 * order; the list is answered when every request has had its END. */
static void flv_send(mn_recov_t *r, unsigned dst, bool last, uint64_t line, uint8_t mask)
{
    sw_send(r, OP_FETCH_LATEST_VERS, dst, (uint16_t)(r->due[dst] & ((1u << MSG_TAG_W) - 1)), last ? MSG_FLAG_LAST : 0,
            line, mask);
    r->due[dst]++;
}

/* The LUs have answered: ask the stores for what they did not have. */
static void ask_stores(mn_recov_t *r)
{
    r->r.t_lu_done = r->k->now;
    r->ph = RV_MN;
    /* one list per store MN: the lines with words missing */
    unsigned nst = 0;
    size_t last[NODES] = {0}; /* index + 1 of the last line asked of each MN */
    uint64_t recs = 0;
    for (size_t i = 0; i < r->on; i++) {
        owned_t *o = &r->o[i];
        if (o->found == 0xff || !r->h.stores)
            continue;
        r->r.lines_lu_miss++;
        unsigned ms[MSG_MAX_MN], n = r->h.stores(r->h.obj, o->line, ms);
        for (unsigned k = 0; k < n; k++) {
            if (!last[ms[k]]) {
                nst++;
                if (r->h.store_records) {
                    uint64_t sr = r->h.store_records(r->h.obj, ms[k]);
                    recs = sr > recs ? sr : recs;
                }
            }
            last[ms[k]] = i + 1;
        }
    }
    /* second pass: send, LAST on each store's last line; a word's rank is its store's place */
    for (size_t i = 0; i < r->on; i++) {
        owned_t *o = &r->o[i];
        if (o->found == 0xff || !r->h.stores)
            continue;
        unsigned ms[MSG_MAX_MN], n = r->h.stores(r->h.obj, o->line, ms);
        for (unsigned k = 0; k < n; k++) {
            flv_send(r, MSG_MN_BASE + ms[k], last[ms[k]] == i + 1, o->line, (uint8_t)~o->found);
            r->r.flv_mn++;
        }
    }
    r->r.store_records = recs;
    r->pending = nst;
    if (!nst)
        recover_all(r);
}

static void walked(mn_recov_t *r)
{
    r->r.t_walked = r->k->now;
    if (r->on) /* qsort wants an array, even of none */
        qsort(r->o, r->on, sizeof *r->o, cmp_line);
    r->r.owned = r->on;
    r->ph = RV_LU;
    unsigned nlu = 0;
    size_t last[MSG_MAX_CN] = {0};
    bool asked[MSG_MAX_CN] = {false};
    for (size_t i = 0; i < r->on && r->h.lus; i++) {
        unsigned l[MSG_MAX_CN], n = r->h.lus(r->h.obj, r->o[i].line, l);
        for (unsigned k = 0; k < n; k++) {
            if (!asked[l[k]])
                asked[l[k]] = true, nlu++;
            last[l[k]] = i + 1;
        }
    }
    for (size_t i = 0; i < r->on && r->h.lus; i++) {
        unsigned l[MSG_MAX_CN], n = r->h.lus(r->h.obj, r->o[i].line, l);
        for (unsigned k = 0; k < n; k++) {
            flv_send(r, l[k], last[l[k]] == i + 1, r->o[i].line, 0xff);
            r->r.flv_lu++;
        }
    }
    r->pending = nlu;
    if (!nlu)
        ask_stores(r);
}

static void on_mg(void *obj, const dir_mg_rsp_t *m)
{
    mn_recov_t *r = obj;
    switch (m->kind) {
    case DIR_MR_DONE:
        if (r->fail_dones && r->ph != RV_FAIL) { /* a FAIL given during the walk (answers in order) */
            r->fail_dones--;
            break;
        }
        if (r->ph == RV_FAIL) {
            if (--r->pending)
                break;
            r->ph = RV_WALK;
            r->r.t_walk = r->k->now;
            mg(r, DIR_MG_WALK, 0, NULL);
        } else if (r->ph == RV_RESUME) {
            r->r.t_resp = r->k->now;
            msg_t a = {.opcode = OP_INIT_RECOV_RESP,
                       .src = (uint8_t)(MSG_MN_BASE + r->p.mn),
                       .dst = (uint8_t)r->cm,
                       .subject = (uint8_t)r->r.failed};
            mn_node_sw_send(r->n, &a);
            (*r->n_rec)++;
            r->recovered |= 1u << r->r.failed;
            *r->n_owned += r->r.owned;
            *r->n_wlu += r->r.words_lu;
            *r->n_wmn += r->r.words_mn;
            r->ph = RV_IDLE;
            if (r->h.done)
                r->h.done(r->h.obj, &r->r);
            if (r->qn)
                start(r);
        }
        break;
    case DIR_MR_OWNED:
        if (r->on == r->ocap) {
            r->ocap = r->ocap ? 2 * r->ocap : 256;
            r->o = realloc(r->o, r->ocap * sizeof *r->o);
            if (!r->o)
                abort();
        }
        r->o[r->on++] = (owned_t){.line = m->line};
        break;
    case DIR_MR_WALKED:
        r->r.travdir_cycles = m->count;
        walked(r);
        break;
    case DIR_MR_RECOVERED:
    case DIR_MR_NOT_OWNED:
    case DIR_MR_REFUSED:
        if (m->kind == DIR_MR_RECOVERED)
            r->r.recovered++;
        else
            r->r.not_owned++;
        if (r->ph == RV_RECOVER && --r->pending == 0) {
            r->r.t_recovered = r->k->now;
            r->ph = RV_RESUME;
            mg(r, DIR_MG_RESUME, 0, NULL);
        }
        break;
    case DIR_MR_BUSY: {
        /* The table was full of transactions that the RECOVERs queued behind this one release:
         * this one goes to the back of the queue. */
        const owned_t *o = find(r, m->line);
        if (r->ph != RV_RECOVER || !o) {
            fprintf(stderr, "%s: BUSY for line 0x%llx, not a RECOVER of this recovery\n", r->name,
                    (unsigned long long)m->line);
            abort();
        }
        (*r->n_busy)++;
        mg(r, DIR_MG_RECOVER, 0, o);
        break;
    }
    }
}

/* A FETCH_LATEST_VERS_RESP from an LU (src a CN) or a store (src an MN). */
static void on_flv(mn_recov_t *r, const msg_t *m)
{
    owned_t *o = find(r, m->addr);
    const bool lu = m->src < MSG_MN_BASE;
    if (o && m->mask && lu && (m->flags & MSG_FLAG_BUF)) {
        /* The line's version for the next owner: the latest still in an LU's buffer, where the LUs
         * compare versions (buffered versions of a line lie within 64 of each other). When every
         * version has drained, the directory's own will do: no buffered word compares with it. */
        if (!o->has_buf || mn_log_ts_after(m->ts, o->buf_ts))
            o->buf_ts = m->ts;
        o->has_buf = true;
    }
    if (o && m->mask) {
        for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++) {
            if (!(m->mask >> w & 1u))
                continue;
            bool have = o->found >> w & 1u;
            /* LUs' answers by TS; a store's (words no LU had) by dump epoch, then TS (mn_log.h) */
            bool take = !have || (lu ? mn_log_ts_after(m->ts, o->ts[w])
                                     : mn_log_newer(m->tag, m->ts, o->epoch[w], o->ts[w]));
            if (take) {
                o->epoch[w] = m->tag;
                o->found |= (uint8_t)(1u << w);
                if (lu)
                    o->from_lu |= (uint8_t)(1u << w);
                o->ts[w] = m->ts;
                o->v[w] = m->data[w];
            }
        }
    }
    /* A list is answered when each of its requests has had its END (the fabric may deliver a
     * request's LAST answer before the others); an LU no longer waited for (its CN failed
     * meanwhile) has nothing due. */
    if (!(m->flags & MSG_FLAG_END) || !r->pending || m->src >= NODES || !r->due[m->src] || --r->due[m->src])
        return;
    if (--r->pending)
        return;
    if (r->ph == RV_LU)
        ask_stores(r);
    else if (r->ph == RV_MN) {
        r->ph = RV_SEARCH;
        kernel_after(r->k, r->r.store_records * r->p.rec_search_ps, ev_searched, r, 0);
    }
}

/* INIT_RECOV (subject f) from CM src. A CM that fails leaves its run to the next one, which asks
 * again for what it finds in Viral_Status: a recovery already complete is answered at once, one
 * running or queued answers the newest CM. A CN that fails while another's recovery runs here is
 * recovered next; meanwhile the directory is told at once while the walk may still wait for its
 * transactions, and the LU of that CN is no longer waited for. */
static void init_recov(mn_recov_t *r, unsigned f, unsigned src)
{
    if (f >= MSG_MAX_CN)
        return;
    if (r->recovered >> f & 1u) {
        msg_t a = {.opcode = OP_INIT_RECOV_RESP,
                   .src = (uint8_t)(MSG_MN_BASE + r->p.mn),
                   .dst = (uint8_t)src,
                   .subject = (uint8_t)f};
        mn_node_sw_send(r->n, &a);
        return;
    }
    if (r->ph != RV_IDLE && r->r.failed == f) {
        r->cm = src;
        return;
    }
    for (unsigned i = 0; i < r->qn; i++)
        if (r->queue[i] == f) {
            r->qsrc[i] = src;
            return;
        }
    if (r->qn < MSG_MAX_CN) {
        r->queue[r->qn] = f;
        r->qsrc[r->qn++] = src;
    }
    if (r->ph == RV_IDLE) {
        start(r);
        return;
    }
    if ((r->ph == RV_FAIL || r->ph == RV_WALK) && !(r->fail_given >> f & 1u)) {
        give_fail(r, f);
        if (r->ph == RV_FAIL)
            r->pending++;
        else
            r->fail_dones++;
    }
    if (r->ph == RV_LU && r->due[f]) {
        r->due[f] = 0;
        if (--r->pending == 0)
            ask_stores(r);
    }
}

static void on_sw(void *obj, const msg_t *m)
{
    mn_recov_t *r = obj;
    switch (m->opcode) {
    case OP_INIT_RECOV:
        init_recov(r, m->subject, m->src);
        break;
    case OP_FETCH_LATEST_VERS_RESP:
        (*r->n_ans)++;
        if (r->ph == RV_LU || r->ph == RV_MN)
            on_flv(r, m);
        break;
    default:
        break;
    }
}

/* The handler's statistics, under its name. */
static const stats_def_t mn_recov_stats[] = {
    STATS_COUNTER_DEF(mn_recov_t, n_rec, "recoveries", "recoveries this MN's handler ran"),
    STATS_COUNTER_DEF(mn_recov_t, n_owned, "owned", "lines a failed CN owned here (Owned lists)"),
    STATS_COUNTER_DEF(mn_recov_t, n_wlu, "words_lu", "words recovered from LU logs"),
    STATS_COUNTER_DEF(mn_recov_t, n_wmn, "words_mn", "words recovered from MN log stores"),
    STATS_COUNTER_DEF(mn_recov_t, n_busy, "busy", "RECOVERs the directory answered BUSY (its table full), sent again"),
    STATS_COUNTER_DEF(mn_recov_t, n_ans, "answers",
                      "FETCH_LATEST_VERS_RESP taken from the LUs and the log stores (progress, for the stall detector)"),
};

mn_recov_t *mn_recov_create(kernel_t *k, mn_node_t *n, lu_store_t *store, const mn_recov_params_t *p,
                            const mn_recov_hooks_t *h, stats_t *st)
{
    mn_recov_t *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    r->k = k, r->n = n, r->p = *p;
    snprintf(r->name, sizeof r->name, "%s", p->name);
    r->p.name = r->name;
    if (h)
        r->h = *h;
    if (stats_register(st, p->name, mn_recov_stats, STATS_DEFS_N(mn_recov_stats), r) != 0) {
        free(r);
        return NULL;
    }
    if (store)
        lu_store_on_other(store, on_sw, r);
    else
        mn_node_on_sw(n, on_sw, r);
    mn_node_on_mg(n, on_mg, r);
    return r;
}

void mn_recov_free(mn_recov_t *r)
{
    if (!r)
        return;
    free(r->o);
    free(r);
}

bool mn_recov_idle(const mn_recov_t *r) { return r->ph == RV_IDLE && r->qn == 0; }

void mn_recov_dump(const mn_recov_t *r, FILE *f)
{
    fprintf(f, "%s: waiting for %s", r->p.name, rv_names[r->ph]);
    if (r->ph != RV_IDLE) {
        fprintf(f, " (CN %u failed; %zu Owned lines; %u answers due", r->r.failed, r->on, r->pending);
        for (unsigned n = 0; n < NODES; n++)
            if (r->due[n])
                fprintf(f, "; node %u owes %u FETCH_LATEST_VERS", n, r->due[n]);
        fprintf(f, ")");
    }
    fprintf(f, "; %u INIT_RECOVs queued\n", r->qn);
}
