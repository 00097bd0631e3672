#include "gen/traffic.h"

#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "gen/msg_rand.h"

/* A message waiting to be sent or waiting to come back. */
typedef struct pending {
    msg_t m;
    uint64_t t_sent; /* ps; 0 while not sent */
} pending_t;

/* A FIFO of pending messages (a ring of cap entries, a power of two). */
typedef struct pqueue {
    pending_t *v;
    unsigned head, n, cap;
} pqueue_t;

typedef struct tport {
    struct traffic *t;
    unsigned port, node;
    rng_t rng;
    uint64_t generated, sent, received;
    bool failed;
    pqueue_t to_send[MSG_NUM_CLASSES]; /* generated, not yet sent */
    uint32_t to_send_cls;              /* bit c: to_send[c] is not empty */
    pqueue_t *expect;                  /* [source port][class]: sent to this port, not yet here */
    unsigned rr;                       /* class to look at first when sending */
    uint64_t tag;
} tport_t;

struct traffic {
    kernel_t *k;
    fabric_t *f;
    traffic_params_t p;
    unsigned nports, ncn;
    tport_t *port;
    uint64_t period_ps;
    uint64_t sent, received, errors;
    unsigned ports_sent;  /* ports that sent their count, or failed */
    uint64_t outstanding; /* messages between live nodes on their way */
    traffic_msi_t msi[TRAFFIC_MAX_MSI];
    unsigned nmsi;
    uint64_t *st_msis;
    uint64_t failed_mask, told_mask; /* CNs failed; CNs some node got an MSI about */
    void (*done)(void *);
    void *done_obj;
    uint64_t *st_sent, *st_received, *st_errors, *st_reordered;
    stats_hist_t *latency;
    msg_op_t ops[MSG_NUM_MSGS];
    unsigned nops;
};

static void pq_push(pqueue_t *q, const pending_t *e)
{
    if (q->n == q->cap) {
        unsigned cap = q->cap ? 2 * q->cap : 8;
        pending_t *v = malloc(cap * sizeof *v);
        if (!v)
            abort();
        for (unsigned i = 0; i < q->n; i++)
            v[i] = q->v[(q->head + i) & (q->cap - 1)];
        free(q->v);
        q->v = v;
        q->head = 0;
        q->cap = cap;
    }
    q->v[(q->head + q->n) & (q->cap - 1)] = *e;
    q->n++;
}

static pending_t *pq_at(pqueue_t *q, unsigned i) { return &q->v[(q->head + i) & (q->cap - 1)]; }

static pending_t pq_remove(pqueue_t *q, unsigned i)
{
    pending_t e = *pq_at(q, i);
    for (unsigned j = i; j > 0; j--)
        *pq_at(q, j) = *pq_at(q, j - 1);
    q->head = (q->head + 1) & (q->cap - 1);
    q->n--;
    return e;
}

/* A random well-formed message of a random enabled type from this port's node, to the node of a
 * random port (*dst_port; with a shift, always port + shift), tagged with the port's sequence
 * number. */
static void random_msg(traffic_t *t, tport_t *tp, msg_t *m, unsigned *dst_port)
{
    msg_fill_random(&tp->rng, t->ops[rng_below(&tp->rng, t->nops)], m);
    uint32_t used = msg_fields_used(m->opcode);
    *dst_port = t->p.shift ? (tp->port + t->p.shift) % t->nports : (unsigned)rng_below(&tp->rng, t->nports);
    m->src = (uint8_t)tp->node;
    m->dst = (uint8_t)fabric_port_node(t->f, *dst_port);
    if (used & MSG_F_TAG)
        m->tag = (uint16_t)(tp->tag++ & ((1u << MSG_TAG_W) - 1));
}

/* The port of node id n. */
static unsigned node_port(const traffic_t *t, unsigned n) { return n < MSG_MN_BASE ? n : t->ncn + (n - MSG_MN_BASE); }

static pqueue_t *expect_q(traffic_t *t, unsigned dst_port, unsigned src_port, msg_class_t c)
{
    return &t->port[dst_port].expect[src_port * MSG_NUM_CLASSES + c];
}

static void try_send(traffic_t *t, tport_t *tp)
{
    /* The classes with messages to send and a credit, from rr on: bit j of rot is class (rr + j) mod
     * the count (a class without a credit sends nothing). */
    const uint32_t all = (1u << MSG_NUM_CLASSES) - 1u;
    const uint32_t can = tp->to_send_cls & fabric_credit_mask(t->f, tp->port);
    uint32_t rot = tp->rr ? (can >> tp->rr | can << (MSG_NUM_CLASSES - tp->rr)) & all : can;
    for (; rot; rot &= rot - 1) {
        unsigned c = tp->rr + (unsigned)__builtin_ctz(rot);
        if (c >= MSG_NUM_CLASSES)
            c -= MSG_NUM_CLASSES;
        while (tp->to_send[c].n && fabric_credits(t->f, tp->port, (msg_class_t)c)) {
            pending_t e = pq_remove(&tp->to_send[c], 0);
            e.t_sent = t->k->now;
            fabric_send(t->f, tp->port, &e.m);
            unsigned dst = node_port(t, e.m.dst);
            pq_push(expect_q(t, dst, tp->port, (msg_class_t)c), &e);
            t->outstanding += !t->port[dst].failed;
            tp->sent++;
            t->sent++;
            (*t->st_sent)++;
            if (tp->sent == t->p.count)
                t->ports_sent++;
        }
        if (!tp->to_send[c].n)
            tp->to_send_cls &= ~(1u << c);
    }
    tp->rr = tp->rr + 1 == MSG_NUM_CLASSES ? 0 : tp->rr + 1;
}

static void generate_event(void *obj, uint64_t arg)
{
    (void)arg;
    tport_t *tp = obj;
    traffic_t *t = tp->t;
    if (tp->failed)
        return;
    pending_t e = {0};
    unsigned dst_port;
    random_msg(t, tp, &e.m, &dst_port);
    pq_push(&tp->to_send[msg_class(e.m.opcode)], &e);
    tp->to_send_cls |= 1u << msg_class(e.m.opcode);
    tp->generated++;
    try_send(t, tp);
    if (tp->generated < t->p.count)
        kernel_after(t->k, (1 + rng_geometric(&tp->rng, t->p.load)) * t->period_ps, generate_event, tp, 0);
}

static void release_event(void *obj, uint64_t arg)
{
    traffic_t *t = obj;
    unsigned port = (unsigned)(arg >> 8);
    if (!fabric_node_failed(t->f, port))
        fabric_release(t->f, port, (msg_class_t)(arg & 0xff));
}

/* The node on port is done with a delivered message of class c: now, or after a random hold. */
static void consume(traffic_t *t, unsigned port, msg_class_t c)
{
    if (!t->p.hold_ps) {
        fabric_release(t->f, port, c);
        return;
    }
    uint64_t d = rng_below(&t->port[port].rng, t->p.hold_ps + 1);
    kernel_after(t->k, d, release_event, t, (uint64_t)port << 8 | c);
}

static void describe(FILE *out, const msg_t *m)
{
    fprintf(out, "%s src=%u dst=%u core=%u tag=%u addr=0x%llx mask=0x%02x ts=%u", msg_name(m->opcode) ? msg_name(m->opcode) : "?",
            m->src, m->dst, m->core, m->tag, (unsigned long long)m->addr, m->mask, m->ts);
}

static void deliver(void *obj, unsigned port, const msg_t *m)
{
    traffic_t *t = obj;
    tport_t *tp = &t->port[port];
    msg_class_t c = msg_class(m->opcode);
    unsigned src = node_port(t, m->src);
    if (m->opcode == OP_MSI) {
        if (t->nmsi < TRAFFIC_MAX_MSI)
            t->msi[t->nmsi] = (traffic_msi_t){.t_ps = t->k->now, .port = port, .subject = m->subject};
        t->nmsi++;
        (*t->st_msis)++;
        if (m->subject < 64)
            t->told_mask |= 1ull << m->subject;
        consume(t, port, c);
        if (traffic_done(t) && t->done)
            t->done(t->done_obj);
        return;
    }
    static pqueue_t none;
    pqueue_t *q = src < t->nports ? expect_q(t, port, src, c) : &none;
    unsigned found = q->n;
    for (unsigned i = 0; i < q->n; i++) {
        if (msg_equal(&pq_at(q, i)->m, m)) {
            found = i;
            break;
        }
        if (t->p.ordered)
            break; /* in order: only the oldest may come back */
    }
    if (found == q->n) {
        t->errors++;
        (*t->st_errors)++;
        fprintf(stderr, "traffic: seed %llu: port %u received an unexpected message at %llu ps: ",
                (unsigned long long)t->p.seed, port, (unsigned long long)t->k->now);
        describe(stderr, m);
        if (q->n) {
            fprintf(stderr, "; oldest in flight from its source in its class: ");
            describe(stderr, &pq_at(q, 0)->m);
        }
        fputc('\n', stderr);
    } else {
        if (found > 0)
            (*t->st_reordered)++;
        pending_t e = pq_remove(q, found);
        stats_hist_add(t->latency, (t->k->now - e.t_sent) / PS_PER_NS);
        tp->received++;
        t->received++;
        (*t->st_received)++;
        t->outstanding -= !t->port[src].failed;
        if (traffic_done(t) && t->done)
            t->done(t->done_obj);
    }
    consume(t, port, c);
}

static void credit(void *obj, unsigned port, msg_class_t c)
{
    (void)c;
    traffic_t *t = obj;
    try_send(t, &t->port[port]);
}

/* The generators' statistics, under "traffic". */
static const stats_def_t traffic_stats[] = {
    STATS_COUNTER_DEF(traffic_t, st_sent, "sent", "messages the generators sent"),
    STATS_COUNTER_DEF(traffic_t, st_msis, "msis", "MSIs the switch sent to a CM about a failed CN"),
    STATS_COUNTER_DEF(traffic_t, st_received, "received", "messages that arrived as sent"),
    STATS_COUNTER_DEF(traffic_t, st_errors, "errors", "messages that arrived changed, out of order or unexpected"),
    STATS_COUNTER_DEF(traffic_t, st_reordered, "reordered",
                      "messages that arrived before an older one of their (source, destination, class) (link jitter)"),
};

traffic_t *traffic_create(kernel_t *k, fabric_t *f, const traffic_params_t *p, stats_t *st,
                          void (*done)(void *obj), void *done_obj)
{
    traffic_t *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    t->k = k;
    t->f = f;
    t->p = *p;
    t->done = done;
    t->done_obj = done_obj;
    t->nports = fabric_num_ports(f);
    while (t->ncn < t->nports && fabric_port_node(f, t->ncn) < MSG_MN_BASE)
        t->ncn++;
    t->port = calloc(t->nports, sizeof *t->port);
    if (!t->port)
        abort();
    t->period_ps = fabric_period_ps(f);
    for (unsigned op = 0; op < MSG_NUM_MSGS; op++)
        if (op != OP_MSI && (!p->class_mask || (p->class_mask >> msg_class((msg_op_t)op) & 1u)))
            t->ops[t->nops++] = (msg_op_t)op;
    t->latency = NULL;
    if (stats_register(st, "traffic", traffic_stats, STATS_DEFS_N(traffic_stats), t) == 0)
        t->latency = stats_hist(st, "traffic.latency_ns", "from send to delivery at the destination (ns)",
                                (stats_buckets_t){.kind = STATS_LINEAR, .lo = 0, .width = 1, .n = 4096});
    if (!t->latency) { /* one generator per statistics registry */
        fprintf(stderr, "traffic: statistics: %s\n", stats_error(st));
        abort();
    }
    char name[64];
    for (unsigned i = 0; i < t->nports; i++) {
        tport_t *tp = &t->port[i];
        tp->t = t;
        tp->port = i;
        tp->node = fabric_port_node(f, i);
        tp->expect = calloc((size_t)t->nports * MSG_NUM_CLASSES, sizeof *tp->expect);
        if (!tp->expect)
            abort();
        snprintf(name, sizeof name, "traffic.port%u", i);
        rng_init_named(&tp->rng, p->seed, name);
        fabric_attach(f, i, deliver, credit, t);
        if (p->count && t->nops)
            kernel_after(k, rng_geometric(&tp->rng, p->load) * t->period_ps, generate_event, tp, 0);
        else
            t->ports_sent++;
    }
    return t;
}

void traffic_free(traffic_t *t)
{
    if (!t)
        return;
    for (unsigned i = 0; i < t->nports; i++) {
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            free(t->port[i].to_send[c].v);
        for (unsigned k = 0; k < t->nports * MSG_NUM_CLASSES; k++)
            free(t->port[i].expect[k].v);
        free(t->port[i].expect);
    }
    free(t->port);
    free(t);
}

uint64_t traffic_sent(const traffic_t *t) { return t->sent; }
uint64_t traffic_received(const traffic_t *t) { return t->received; }
uint64_t traffic_errors(const traffic_t *t) { return t->errors; }
uint64_t traffic_reordered(const traffic_t *t) { return *t->st_reordered; }
bool traffic_done(const traffic_t *t)
{
    return t->ports_sent == t->nports && t->outstanding == 0 && (t->failed_mask & ~t->told_mask) == 0;
}

void traffic_node_failed(traffic_t *t, unsigned p)
{
    tport_t *tp = &t->port[p];
    if (tp->failed)
        return;
    if (tp->sent < t->p.count)
        t->ports_sent++;
    /* Nothing is expected for it any more (from live nodes, itself included), nor from it. */
    for (unsigned q = 0; q < t->nports; q++)
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++) {
            if (!t->port[q].failed)
                t->outstanding -= expect_q(t, p, q, (msg_class_t)c)->n;
            if (q != p && !t->port[q].failed)
                t->outstanding -= expect_q(t, q, p, (msg_class_t)c)->n;
        }
    tp->failed = true;
    t->failed_mask |= 1ull << p;
    if (traffic_done(t) && t->done)
        t->done(t->done_obj);
}

const traffic_msi_t *traffic_msis(const traffic_t *t, unsigned *n)
{
    *n = t->nmsi;
    return t->msi;
}

void traffic_dump_waiting(const traffic_t *t, FILE *out)
{
    for (unsigned i = 0; i < t->nports; i++) {
        const tport_t *tp = &t->port[i];
        unsigned waiting = 0;
        for (unsigned k = 0; k < t->nports * MSG_NUM_CLASSES; k++)
            waiting += tp->expect[k].n;
        if (tp->sent == t->p.count && !waiting)
            continue;
        fprintf(out, "  port %u: generated %llu, sent %llu of %llu, received %llu, %u on their way to it;", i,
                (unsigned long long)tp->generated, (unsigned long long)tp->sent, (unsigned long long)t->p.count,
                (unsigned long long)tp->received, waiting);
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            if (tp->to_send[c].n)
                fprintf(out, " %s: %u to send (credits %u);", msg_class_name((msg_class_t)c), tp->to_send[c].n,
                        fabric_credits(t->f, i, (msg_class_t)c));
        for (unsigned k = 0; k < t->nports * MSG_NUM_CLASSES; k++)
            if (tp->expect[k].n)
                fprintf(out, " %u %s from port %u;", tp->expect[k].n,
                        msg_class_name((msg_class_t)(k % MSG_NUM_CLASSES)), k / MSG_NUM_CLASSES);
        fputc('\n', out);
    }
}
