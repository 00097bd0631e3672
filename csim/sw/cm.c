/* The recovery software of a compute node (see cm.h). */
#include "sw/cm.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cxl_switch_csr.h"

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
    unsigned waiting;  /* answers still due in this phase */
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

static void send(cm_t *c, msg_op_t op, unsigned dst, unsigned subject)
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
        (msg_t){.opcode = op, .src = (uint8_t)c->p.cn, .dst = (uint8_t)dst, .subject = (uint8_t)subject};
    pump(c);
}

static void on_credit(void *obj, msg_class_t cls)
{
    (void)cls;
    pump(obj);
}

static uint32_t all_cns(const cm_t *c) { return c->p.num_cn >= 32 ? ~0u : (1u << c->p.num_cn) - 1; }

/* Answers per live CN: its cores' and, with LUs, its LU's. */
static unsigned per_cn(const cm_t *c) { return c->p.lu ? 2u : 1u; }

static void broadcast_cns(cm_t *c, msg_op_t op)
{
    for (unsigned n = 0; n < c->p.num_cn; n++)
        if (c->r.live >> n & 1u)
            send(c, op, n, c->r.failed);
    c->waiting = per_cn(c) * (unsigned)__builtin_popcount(c->r.live);
}

static void csr_fenced(void *obj, uint32_t v, bool err);

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
    if (c->p.nr && (unsigned)__builtin_popcount(c->viral) >= c->p.nr && c->h.unrecoverable)
        c->h.unrecoverable(c->h.obj, c->viral); /* reported; what the logs still hold is recovered */
    c->r.failed = (unsigned)__builtin_ctz(c->viral);
    c->r.live = all_cns(c) & ~c->fenced & ~c->viral;
    c->r.t_int_sent = c->k->now;
    (*c->n_rec)++;
    c->ph = PH_INT;
    broadcast_cns(c, OP_INTERRUPT);
}

static void csr_cleared(void *obj, uint32_t v, bool err)
{
    (void)v, (void)err;
    cm_t *c = obj;
    if (c->failed)
        return;
    if (c->h.done)
        c->h.done(c->h.obj, &c->r);
    next_recovery(c, c->k->now); /* another CN may have failed meanwhile */
}

/* One expected answer of the running phase came. */
static void answered(cm_t *c)
{
    if (c->waiting == 0 || --c->waiting)
        return;
    switch (c->ph) {
    case PH_INT:
        c->r.t_int_done = c->k->now;
        c->ph = PH_INIT;
        for (unsigned m = 0; m < c->p.num_mn; m++)
            send(c, OP_INIT_RECOV, MSG_MN_BASE + m, c->r.failed);
        c->waiting = c->p.num_mn;
        break;
    case PH_INIT:
        c->r.t_init_done = c->k->now;
        if (c->h.reconfigure)
            c->h.reconfigure(c->h.obj, c->r.failed);
        c->ph = PH_END;
        broadcast_cns(c, OP_RECOV_END);
        break;
    case PH_END:
        c->r.t_end_done = c->k->now;
        c->ph = PH_CSR;
        fabric_csr(c->f, true, SW_CSR_VIRAL, 1u << c->r.failed, csr_cleared, c);
        break;
    default:
        break;
    }
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
    send(c, pause ? OP_INTERRUPT_RESP : OP_RECOV_END_RESP, m->src, m->subject);
}

static void on_msg(void *obj, const msg_t *m)
{
    cm_t *c = obj;
    msg_class_t cls = msg_class(m->opcode);
    if (!c->failed) {
        switch (m->opcode) {
        case OP_MSI:
            (*c->n_msi)++;
            if (c->ph == PH_IDLE)
                next_recovery(c, c->k->now);
            else
                c->recheck = true;
            break;
        case OP_INTERRUPT_RESP:
            if (c->ph == PH_INT && m->subject == c->r.failed)
                answered(c);
            break;
        case OP_INIT_RECOV_RESP:
            if (c->ph == PH_INIT && m->subject == c->r.failed)
                answered(c);
            break;
        case OP_RECOV_END_RESP:
            if (c->ph == PH_END && m->subject == c->r.failed)
                answered(c);
            break;
        default:
            break;
        }
    }
    cn_port_release(c->port, cls);
}

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
    c->n_int = stats_counter_in(st, p->name, "interrupts", "recovery INTERRUPTs this CN's cores took");
    c->n_rec = stats_counter_in(st, p->name, "recoveries", "recoveries this CN ran as Configuration Manager");
    c->n_msi = stats_counter_in(st, p->name, "msis", "MSIs the switch sent to this CN");
    if (!c->n_int || !c->n_rec || !c->n_msi) {
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
    if (c->ph != PH_IDLE)
        fprintf(f, " (CN %u failed; %u answers due)", c->r.failed, c->waiting);
    fprintf(f, "; %zu messages queued\n", c->qn);
}
