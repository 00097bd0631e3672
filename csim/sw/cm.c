/* The recovery software of a compute node (see cm.h). */
#include "sw/cm.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "csr_defs.h"

typedef enum cm_phase {
    PH_IDLE,
    PH_CSR,   /* reading Viral_Status and the fences */
    PH_INT,   /* INTERRUPTs out, waiting for their answers */
    PH_INIT,  /* INIT_RECOVs out */
    PH_END,   /* RECOV_ENDs out */
} cm_phase_e;

static const char *const phase_names[] = {"idle", "reading the switch's registers", "INTERRUPT_RESPs",
                                          "INIT_RECOV_RESPs", "RECOV_END_RESPs"};

struct cm {
    kernel_t *k;
    cn_port_t *port;
    fabric_t *f;
    cm_params_t p;
    char name[64];
    cm_hooks_t h;
    bool failed;
    /* messages waiting for a place in the port's queue */
    msg_t *q;
    size_t qhead, qn, qcap;
    /* the CM's recovery */
    cm_phase_e ph;
    bool recheck;      /* an MSI came while a recovery ran */
    uint32_t viral, fenced;
    uint8_t due_cn[MSG_MAX_CN]; /* answers still due from each live CN (INTERRUPT_RESP, RECOV_END_RESP) */
    uint8_t due_mn[MSG_MAX_MN]; /* INIT_RECOV_RESPs still due from each MN */
    uint16_t run;      /* this CM's runs, mod 2^TAG_W: the RECOV_ENDs' tag, echoed by their answers */
    cm_recovery_t r;
    uint64_t *n_int, *n_rec, *n_msi;
};

static void pump(cm_t *c)
{
    while (c->qn && !c->failed) {
        const msg_t *m = &c->q[c->qhead];
        if (!cn_port_credits(c->port, CN_PORT_SW, msg_class(m->opcode)))
            return;
        msg_t out = *m;
        c->qhead = (c->qhead + 1) % c->qcap;
        c->qn--;
        cn_port_send(c->port, CN_PORT_SW, &out);
    }
}

static void send_tag(cm_t *c, msg_op_t op, unsigned dst, unsigned subject, uint16_t tag)
{
    if (c->qn == c->qcap) {
        size_t ncap = c->qcap ? 2 * c->qcap : 64;
        msg_t *nq = malloc(ncap * sizeof *nq);
        if (!nq)
            abort();
        for (size_t i = 0; i < c->qn; i++)
            nq[i] = c->q[(c->qhead + i) % c->qcap];
        free(c->q);
        c->q = nq, c->qcap = ncap, c->qhead = 0;
    }
    c->q[(c->qhead + c->qn++) % c->qcap] =
        (msg_t){.opcode = op, .src = (uint8_t)c->p.cn, .dst = (uint8_t)dst, .subject = (uint8_t)subject, .tag = tag};
    pump(c);
}

static void send(cm_t *c, msg_op_t op, unsigned dst, unsigned subject) { send_tag(c, op, dst, subject, 0); }

static void on_credit(void *obj, msg_class_t cls)
{
    (void)cls;
    pump(obj);
}

static uint32_t all_cns(const cm_t *c) { return c->p.num_cn >= 32 ? ~0u : (1u << c->p.num_cn) - 1; }

/* Answers per live CN and message: its cores' and, with LUs, its LU's. */
static unsigned per_cn(const cm_t *c) { return c->p.lu ? 2u : 1u; }

/* Answers still due in the running phase. */
static unsigned due(const cm_t *c)
{
    unsigned n = 0;
    for (unsigned i = 0; i < c->p.num_cn; i++)
        n += c->due_cn[i];
    for (unsigned m = 0; m < c->p.num_mn; m++)
        n += c->due_mn[m];
    return n;
}

/* op (subject; a RECOV_END tagged with the run) to every live CN, each owing per_cn answers more. */
static void to_live(cm_t *c, msg_op_t op, unsigned subject)
{
    for (unsigned n = 0; n < c->p.num_cn; n++)
        if (c->r.live >> n & 1u) {
            send_tag(c, op, n, subject, op == OP_RECOV_END ? c->run : 0);
            c->due_cn[n] = (uint8_t)(c->due_cn[n] + per_cn(c));
        }
}

/* INIT_RECOV (subject) to every MN, each owing one answer more. */
static void to_mns(cm_t *c, unsigned subject)
{
    for (unsigned m = 0; m < c->p.num_mn; m++) {
        send(c, OP_INIT_RECOV, MSG_MN_BASE + m, subject);
        c->due_mn[m]++;
    }
}

/* Nr failed CNs or more, none recovered yet (DIKTAMO): a committed store may have lost all its
 * replicas. Reported once per set; what the logs still hold is recovered. */
static void check_recoverable(cm_t *c)
{
    if (c->p.nr && (unsigned)__builtin_popcount(c->r.failed_set) >= c->p.nr && c->h.unrecoverable)
        c->h.unrecoverable(c->h.obj, c->r.failed_set);
}

static void csr_fenced(void *obj, uint32_t v, bool err);
static void csr_viral_late(void *obj, uint32_t v, bool err);
static void phase_step(cm_t *c);
static void abandon_end(cm_t *c);

static void csr_viral(void *obj, uint32_t v, bool err)
{
    cm_t *c = obj;
    if (c->failed)
        return;
    c->viral = err ? 0 : v & all_cns(c);
    fabric_csr(c->f, false, SW_CSR_FENCED, 0, csr_fenced, c);
}

/* Starts the next recovery the switch's registers call for, or goes idle. */
static void next_recovery(cm_t *c, uint64_t t_begin)
{
    c->recheck = false;
    c->ph = PH_CSR;
    c->r = (cm_recovery_t){.cm = c->p.cn, .t_msi = t_begin};
    memset(c->due_cn, 0, sizeof c->due_cn);
    memset(c->due_mn, 0, sizeof c->due_mn);
    fabric_csr(c->f, false, SW_CSR_VIRAL, 0, csr_viral, c);
}

static void csr_fenced(void *obj, uint32_t v, bool err)
{
    cm_t *c = obj;
    if (c->failed)
        return;
    c->fenced = err ? 0 : v;
    if (!c->viral) {
        c->ph = PH_IDLE;
        if (c->recheck)
            next_recovery(c, c->k->now);
        return;
    }
    /* every CN whose Viral_Status is set is recovered in this one run (a CM that failed during its
     * recovery leaves its own failure and the one it was recovering) */
    c->r.failed_set = c->viral;
    c->r.failed = (unsigned)__builtin_ctz(c->viral);
    c->r.live = all_cns(c) & ~c->fenced & ~c->viral;
    check_recoverable(c);
    c->run = (uint16_t)((c->run + 1u) & ((1u << MSG_TAG_W) - 1u));
    c->r.t_int_sent = c->k->now;
    (*c->n_rec)++;
    c->ph = PH_INT;
    for (unsigned f = 0; f < c->p.num_cn; f++)
        if (c->r.failed_set >> f & 1u)
            to_live(c, OP_INTERRUPT, f);
    if (c->recheck) /* an MSI came while the registers were read: they may not have shown it */
        fabric_csr(c->f, false, SW_CSR_VIRAL, 0, csr_viral_late, c);
}

/* CN g failed while this recovery runs (before its RECOV_ENDs): it joins the recovery. The live
 * CNs are interrupted for it too (their LUs purge its REPLs, their stores stop waiting for its
 * acknowledgements), and the MNs, once asked, recover it as well (their walk waits for no
 * transaction of it); nothing more is awaited from it. */
static void join_failure(cm_t *c, unsigned g)
{
    c->r.failed_set |= 1u << g;
    c->r.live &= ~(1u << g);
    c->due_cn[g] = 0;
    c->r.joined++;
    check_recoverable(c);
    to_live(c, OP_INTERRUPT, g);
    if (c->ph == PH_INIT)
        to_mns(c, g);
}

/* The Viral_Status read for an MSI that came during the recovery. */
static void csr_viral_late(void *obj, uint32_t v, bool err)
{
    cm_t *c = obj;
    if (c->failed || err)
        return;
    /* Every CN whose bit is set and that this run does not recover yet: a live one that failed
     * since, or one the run's first reads missed (detected between its VIRAL and FENCED reads, it
     * was fenced but not viral, so neither live nor recovered). */
    uint32_t fresh = v & all_cns(c) & ~c->r.failed_set;
    if (!fresh || (c->ph != PH_INT && c->ph != PH_INIT && c->ph != PH_END))
        return; /* the recheck at the end finds it */
    if (c->ph == PH_END) {
        /* The MNs are done, but the stores this run's failures left with a copy less are durable
         * again only once every live LU has dumped (their RECOV_END_RESPs): a CN that fails first
         * may have held the last copy. The run stops waiting (an LU whose MN store still expects
         * the new failure's dump would wait for ever) and leaves its CNs' Viral_Status set: the
         * next run recovers the new failure with them, counts them towards Nr, and its RECOV_END
         * has the LUs dump again. */
        abandon_end(c);
        return;
    }
    for (unsigned g = 0; g < c->p.num_cn; g++)
        if (fresh >> g & 1u)
            join_failure(c, g);
    phase_step(c);
}

static void csr_cleared(void *obj, uint32_t v, bool err)
{
    (void)v, (void)err;
    cm_t *c = obj;
    if (c->failed)
        return;
    c->r.reprotected = true;
    if (c->h.done)
        c->h.done(c->h.obj, &c->r);
    next_recovery(c, c->k->now); /* another CN may have failed meanwhile */
}

/* A CN failed while this run waited for its RECOV_END_RESPs: the run ends without clearing its
 * CNs' Viral_Status (see csr_viral_late), and the next one starts. */
static void abandon_end(cm_t *c)
{
    c->r.t_end_done = c->k->now;
    c->r.reprotected = false;
    if (c->h.done)
        c->h.done(c->h.obj, &c->r);
    next_recovery(c, c->k->now);
}

/* The running phase goes on to the next once nothing is due. */
static void phase_step(cm_t *c)
{
    if (due(c))
        return;
    switch (c->ph) {
    case PH_INT:
        c->r.t_int_done = c->k->now;
        c->ph = PH_INIT;
        for (unsigned f = 0; f < c->p.num_cn; f++)
            if (c->r.failed_set >> f & 1u)
                to_mns(c, f);
        break;
    case PH_INIT:
        c->r.t_init_done = c->k->now;
        for (unsigned f = 0; f < c->p.num_cn; f++)
            if ((c->r.failed_set >> f & 1u) && c->h.reconfigure)
                c->h.reconfigure(c->h.obj, f);
        c->ph = PH_END;
        to_live(c, OP_RECOV_END, c->r.failed);
        break;
    case PH_END:
        c->r.t_end_done = c->k->now;
        c->ph = PH_CSR;
        fabric_csr(c->f, true, SW_CSR_VIRAL, c->r.failed_set, csr_cleared, c);
        break;
    default:
        break;
    }
}

/* One expected answer came from CN (or MN) node src. */
static void answered(cm_t *c, unsigned src)
{
    uint8_t *d = src < MSG_MN_BASE ? (src < c->p.num_cn ? &c->due_cn[src] : NULL)
                                   : (src - MSG_MN_BASE < c->p.num_mn ? &c->due_mn[src - MSG_MN_BASE] : NULL);
    if (!d || !*d)
        return; /* not awaited: a failed CN's, or an answer to an earlier CM */
    (*d)--;
    phase_step(c);
}

/* INTERRUPT and RECOV_END, for this CN's cores (the LU takes its own copy). */
static void on_cores(void *obj, const msg_t *m)
{
    cm_t *c = obj;
    if (c->failed)
        return;
    bool pause = m->opcode == OP_INTERRUPT;
    if (pause)
        (*c->n_int)++;
    if (c->h.pause)
        c->h.pause(c->h.obj, c->p.cn, pause, m->subject);
    send_tag(c, pause ? OP_INTERRUPT_RESP : OP_RECOV_END_RESP, m->src, m->subject, pause ? 0 : m->tag);
}

static void on_msg(void *obj, const msg_t *m)
{
    cm_t *c = obj;
    msg_class_t cls = msg_class(m->opcode);
    const bool mine = m->subject < MSG_MAX_CN && (c->r.failed_set >> m->subject & 1u);
    if (!c->failed) {
        switch (m->opcode) {
        case OP_MSI:
            (*c->n_msi)++;
            if (c->ph == PH_IDLE) {
                next_recovery(c, c->k->now);
            } else {
                c->recheck = true;
                fabric_csr(c->f, false, SW_CSR_VIRAL, 0, csr_viral_late, c);
            }
            break;
        case OP_INTERRUPT_RESP: /* late ones (a CN that joined) are due while the MNs work too */
            if ((c->ph == PH_INT || c->ph == PH_INIT) && mine && m->src < MSG_MN_BASE)
                answered(c, m->src);
            break;
        case OP_INIT_RECOV_RESP:
            if (c->ph == PH_INIT && mine && m->src >= MSG_MN_BASE)
                answered(c, m->src);
            break;
        case OP_RECOV_END_RESP: /* (one of an earlier run, whose LU dumped late, has another tag) */
            if (c->ph == PH_END && m->subject == c->r.failed && m->tag == c->run && m->src < MSG_MN_BASE)
                answered(c, m->src);
            break;
        default:
            break;
        }
    }
    cn_port_release(c->port, cls);
}

/* The CN's recovery software's statistics, under its name. */
static const stats_def_t cm_stats[] = {
    STATS_COUNTER_DEF(cm_t, n_int, "interrupts", "recovery INTERRUPTs this CN's cores took"),
    STATS_COUNTER_DEF(cm_t, n_rec, "recoveries", "recoveries this CN ran as Configuration Manager"),
    STATS_COUNTER_DEF(cm_t, n_msi, "msis", "MSIs the switch sent to this CN"),
};

cm_t *cm_create(kernel_t *k, cn_port_t *port, fabric_t *f, const cm_params_t *p, const cm_hooks_t *h, stats_t *st)
{
    cm_t *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->k = k, c->port = port, c->f = f, c->p = *p;
    snprintf(c->name, sizeof c->name, "%s", p->name);
    c->p.name = c->name;
    if (h)
        c->h = *h;
    if (stats_register(st, p->name, cm_stats, STATS_DEFS_N(cm_stats), c) != 0) {
        free(c);
        return NULL;
    }
    cn_port_attach(port, CN_PORT_SW, on_msg, on_credit, c);
    cn_port_on_cores(port, on_cores, c);
    return c;
}

void cm_fail(cm_t *c) { c->failed = true; }

void cm_free(cm_t *c)
{
    if (!c)
        return;
    free(c->q);
    free(c);
}

bool cm_idle(const cm_t *c) { return c->failed || (c->ph == PH_IDLE && c->qn == 0); }

void cm_dump(const cm_t *c, FILE *f)
{
    fprintf(f, "%s: %s", c->p.name, phase_names[c->ph]);
    if (c->ph != PH_IDLE) {
        fprintf(f, " (failed CNs 0x%x; answers due:", c->r.failed_set);
        for (unsigned i = 0; i < c->p.num_cn; i++)
            if (c->due_cn[i])
                fprintf(f, " cn%u x%u", i, c->due_cn[i]);
        for (unsigned m = 0; m < c->p.num_mn; m++)
            if (c->due_mn[m])
                fprintf(f, " mn%u x%u", m, c->due_mn[m]);
        fprintf(f, ")");
    }
    fprintf(f, "; %zu messages queued\n", c->qn);
}
