#include "traffic.h"

#include <stdlib.h>
#include <string.h>

#include "msg_rand.h"
#include "rng.h"

/* A message waiting to be sent or waiting to come back. */
typedef struct pending {
    msg_t m;
    uint64_t t_sent; /* ps; 0 while not sent */
} pending_t;

/* A FIFO of pending messages (ring buffer). */
typedef struct pqueue {
    pending_t *v;
    unsigned head, n, cap;
} pqueue_t;

typedef struct tport {
    struct traffic *t;
    unsigned port, node;
    rng_t rng;
    uint64_t generated, sent, received;
    pqueue_t to_send[MSG_NUM_CLASSES];  /* generated, not yet sent */
    pqueue_t in_flight[MSG_NUM_CLASSES]; /* sent, not yet back */
    unsigned rr;                        /* class to look at first when sending */
    uint64_t tag;
} tport_t;

struct traffic {
    kernel_t *k;
    fabric_t *f;
    traffic_params_t p;
    unsigned nports;
    tport_t *port;
    uint64_t period_ps;
    uint64_t sent, received, errors;
    unsigned ports_done;
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
            v[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = v;
        q->head = 0;
        q->cap = cap;
    }
    q->v[(q->head + q->n) % q->cap] = *e;
    q->n++;
}

static pending_t *pq_at(pqueue_t *q, unsigned i) { return &q->v[(q->head + i) % q->cap]; }

static pending_t pq_remove(pqueue_t *q, unsigned i)
{
    pending_t e = *pq_at(q, i);
    for (unsigned j = i; j > 0; j--)
        *pq_at(q, j) = *pq_at(q, j - 1);
    q->head = (q->head + 1) % q->cap;
    q->n--;
    return e;
}

/* A random well-formed message of a random enabled type from this port's node, to a random node,
 * tagged with the port's sequence number. */
static void random_msg(traffic_t *t, tport_t *tp, msg_t *m)
{
    msg_fill_random(&tp->rng, t->ops[rng_below(&tp->rng, t->nops)], m);
    uint32_t used = msg_fields_used(m->opcode);
    m->src = (uint8_t)tp->node;
    if (used & MSG_F_DST)
        m->dst = (uint8_t)fabric_port_node(t->f, (unsigned)rng_below(&tp->rng, t->nports));
    if (used & MSG_F_TAG)
        m->tag = (uint16_t)(tp->tag++ & ((1u << MSG_TAG_W) - 1));
}

static void try_send(traffic_t *t, tport_t *tp)
{
    for (unsigned i = 0; i < MSG_NUM_CLASSES; i++) {
        unsigned c = (tp->rr + i) % MSG_NUM_CLASSES;
        while (tp->to_send[c].n && fabric_credits(t->f, tp->port, (msg_class_t)c)) {
            pending_t e = pq_remove(&tp->to_send[c], 0);
            e.t_sent = t->k->now;
            fabric_send(t->f, tp->port, &e.m);
            pq_push(&tp->in_flight[c], &e);
            tp->sent++;
            t->sent++;
            (*t->st_sent)++;
        }
    }
    tp->rr = (tp->rr + 1) % MSG_NUM_CLASSES;
}

static void generate_event(void *obj, uint64_t arg)
{
    (void)arg;
    tport_t *tp = obj;
    traffic_t *t = tp->t;
    pending_t e = {0};
    random_msg(t, tp, &e.m);
    pq_push(&tp->to_send[msg_class(e.m.opcode)], &e);
    tp->generated++;
    try_send(t, tp);
    if (tp->generated < t->p.count)
        kernel_after(t->k, (1 + rng_geometric(&tp->rng, t->p.load)) * t->period_ps, generate_event, tp, 0);
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
    pqueue_t *q = &tp->in_flight[c];
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
            fprintf(stderr, "; oldest in flight of its class: ");
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
        if (tp->received == t->p.count && ++t->ports_done == t->nports && t->done)
            t->done(t->done_obj);
    }
    fabric_release(t->f, port, c);
}

static void credit(void *obj, unsigned port, msg_class_t c)
{
    (void)c;
    traffic_t *t = obj;
    try_send(t, &t->port[port]);
}

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
    t->port = calloc(t->nports, sizeof *t->port);
    if (!t->port)
        abort();
    t->period_ps = fabric_period_ps(f);
    for (unsigned op = 0; op < MSG_NUM_MSGS; op++)
        if (!p->class_mask || (p->class_mask >> msg_class((msg_op_t)op) & 1u))
            t->ops[t->nops++] = (msg_op_t)op;
    t->st_sent = stats_counter(st, "traffic.sent", "messages the generators sent");
    t->st_received = stats_counter(st, "traffic.received", "messages that came back as sent");
    t->st_errors = stats_counter(st, "traffic.errors", "messages that came back changed, out of order or unexpected");
    t->st_reordered = stats_counter(st, "traffic.reordered",
                                    "messages that came back before an older one of their class (link jitter)");
    t->latency = stats_hist(st, "traffic.latency_ns", "round trip from send to delivery (ns)",
                            (stats_buckets_t){.kind = STATS_LINEAR, .lo = 0, .width = 1, .n = 4096});
    char name[64];
    for (unsigned i = 0; i < t->nports; i++) {
        tport_t *tp = &t->port[i];
        tp->t = t;
        tp->port = i;
        tp->node = fabric_port_node(f, i);
        snprintf(name, sizeof name, "traffic.port%u", i);
        rng_init_named(&tp->rng, p->seed, name);
        fabric_attach(f, i, deliver, credit, t);
        if (p->count && t->nops)
            kernel_after(k, rng_geometric(&tp->rng, p->load) * t->period_ps, generate_event, tp, 0);
        else
            t->ports_done++;
    }
    return t;
}

void traffic_free(traffic_t *t)
{
    if (!t)
        return;
    for (unsigned i = 0; i < t->nports; i++)
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++) {
            free(t->port[i].to_send[c].v);
            free(t->port[i].in_flight[c].v);
        }
    free(t->port);
    free(t);
}

uint64_t traffic_sent(const traffic_t *t) { return t->sent; }
uint64_t traffic_received(const traffic_t *t) { return t->received; }
uint64_t traffic_errors(const traffic_t *t) { return t->errors; }
uint64_t traffic_reordered(const traffic_t *t) { return *t->st_reordered; }
bool traffic_done(const traffic_t *t) { return t->ports_done == t->nports; }

void traffic_dump_waiting(const traffic_t *t, FILE *out)
{
    for (unsigned i = 0; i < t->nports; i++) {
        const tport_t *tp = &t->port[i];
        if (tp->received == t->p.count)
            continue;
        fprintf(out, "  port %u: generated %llu, sent %llu, received %llu of %llu;", i,
                (unsigned long long)tp->generated, (unsigned long long)tp->sent, (unsigned long long)tp->received,
                (unsigned long long)t->p.count);
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            if (tp->to_send[c].n || tp->in_flight[c].n)
                fprintf(out, " %s: %u to send (credits %u), %u in flight;", msg_class_name((msg_class_t)c),
                        tp->to_send[c].n, fabric_credits(t->f, i, (msg_class_t)c), tp->in_flight[c].n);
        fputc('\n', out);
    }
}
