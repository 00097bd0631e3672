#include "drv/fabric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/hostprof.h"
#include "base/offload.h"
#include "csr_defs.h"

_Static_assert(FABRIC_MAX_CREDITS == CONFIG_MAX_LINK_CREDITS, "fabric.link_credits's range in the configuration");

/* A message on its way from a node into the RTL. */
typedef struct inflight {
    uint64_t arrive; /* ps */
    uint64_t seq;    /* send order, breaks ties */
    uint32_t flit[MSG_FLIT_WORDS];
} inflight_t;

/* What one edge hands the nodes at one time, a link latency later (plus a delivery's jitter): its
 * messages and credits, in the order of their sequence numbers, run by one kernel event
 * (kernel_train_next) as they would have run as events of their own. */
typedef struct train_item {
    uint64_t seq;
    uint16_t port;
    int16_t cls;  /* a credit of this class, or -1: a message, ... */
    uint16_t msg; /* ... m[msg] */
} train_item_t;

typedef struct train {
    struct fabric *f;
    train_item_t *item;
    msg_t *m;            /* the messages, in their items' order */
    unsigned n, nm;      /* items, messages */
    unsigned item_cap, m_cap;
    struct train *next_free, *next_all;
} train_t;

/* Credits on their way from a node to the RTL: arrival times, in order (fixed latency). */
typedef struct crd_line {
    uint64_t *t;
    unsigned head, n, cap;
} crd_line_t;

/* A queued CSR access. */
typedef struct csr_req {
    bool write;
    unsigned addr;
    uint32_t wdata;
    fabric_csr_fn done;
    void *obj;
} csr_req_t;

typedef struct fport {
    fabric_deliver_fn deliver;
    fabric_credit_fn credit;
    void *obj;
    unsigned node;
    unsigned credits[MSG_NUM_CLASSES]; /* the node's credits for the RTL's input buffers */
    uint32_t no_credit;                /* classes whose credits are 0 (bit per class) */
    uint64_t link_free_at;             /* node -> RTL link busy until (ps) */
    inflight_t *inq;                   /* node -> RTL messages in flight, sorted by (arrive, seq): */
    unsigned inq_head, inq_n, inq_cap; /* a ring of inq_cap (a power of two) from inq_head */
    crd_line_t crd[MSG_NUM_CLASSES];   /* node -> RTL credits in flight */
    uint16_t crd_cls;                  /* bit c: crd[c] is not empty */
    uint64_t due;                      /* earliest arrival of a message or credit, or UINT64_MAX */
    unsigned rx_crd_in_flight;         /* RTL -> node credits in flight */
    unsigned deliveries_in_flight;
    uint64_t *rx_msgs[MSG_NUM_CLASSES], *rx_bytes[MSG_NUM_CLASSES];
    uint64_t *tx_msgs[MSG_NUM_CLASSES], *tx_bytes[MSG_NUM_CLASSES];
    uint64_t *credit_waits;
    bool failed;                       /* the node failed (fail-stop) */
    uint64_t last_in;                  /* last cycle the link presented anything to the RTL */
    uint64_t *lost;                    /* messages delivered after the node failed */
} fport_t;

struct fabric {
    kernel_t *k;
    const fabric_model_ops_t *ops;
    void *model;
    fabric_params_t p;
    clock_domain_t clk;
    unsigned nports;
    fport_t port[FABRIC_MAX_PORTS];
    rng_t jitter_rng;
    uint64_t send_seq;
    uint64_t next_cycle;   /* cycle of the pending edge event, or UINT64_MAX when asleep */
    uint64_t hb_low;       /* no port's next heartbeat (next_heartbeat) comes before this cycle: an
                            * edge before it looks for none (exact after a look, a lower bound
                            * after: a port's next heartbeat only moves later) */
    uint64_t last_cycle;   /* last cycle clocked */
    uint64_t due_ports;    /* bit p: port p has a message or credit on its way in (its due is not
                            * UINT64_MAX): the ports an edge looks at, heartbeats aside */
    bool rtl_idle;
    fabric_in_t in;
    fabric_out_t out;
    train_t *trains, *free_trains; /* every train (next_all); the free ones (next_free) */
    fabric_observe_fn observe;
    void *observe_obj;
    uint64_t *cycles_ticked;
    uint64_t *cycles_skipped;
    uint64_t *heartbeats;
    csr_req_t *csrq;       /* CSR accesses waiting, FIFO */
    unsigned csr_head, csr_n, csr_cap;
    /* The edge being evaluated (edge_event), on the kernel's worker thread if it has one (offload.h):
     * its outputs are handled by edge_finish before the next edge. */
    offload_t off;
    uint64_t edge_cycle, edge_now;
    bool next_in_taken;    /* edge_next_in holds next_input_time as the edge's inputs left it (a
                            * deferred edge: the nodes' sends until its next edge come before its finish) */
    uint64_t edge_next_in;
    uint64_t *wakes;       /* wake requests while the edge is pending, applied in order after it */
    unsigned nwakes, wakes_cap;
};

/* Sequence numbers an edge reserves for the events it schedules: a delivery per port, a credit per
 * class per port, and its own next edges. */
#define EDGE_SEQS (FABRIC_MAX_PORTS * (MSG_NUM_CLASSES + 1) + 4)

static void edge_event(void *obj, uint64_t cycle);
static void edge_eval(void *obj);
static void edge_finish(void *obj);
static void after_finish(void *obj);

const fabric_model_ops_t *fabric_model_find(unsigned num_cn, unsigned num_mn)
{
    for (const fabric_model_ops_t *const *m = fabric_models; *m; m++)
        if ((*m)->num_cn == num_cn && (*m)->num_mn == num_mn && !(*m)->synth_form)
            return *m;
    return NULL;
}

const fabric_model_ops_t *fabric_model_named(const char *name)
{
    for (const fabric_model_ops_t *const *m = fabric_models; *m; m++)
        if (!strcmp((*m)->name, name))
            return *m;
    return NULL;
}

static void die(const char *what)
{
    fprintf(stderr, "fabric: %s\n", what);
    abort();
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p)
        die("out of memory");
    return p;
}

/* Schedules the edge of cycle c unless an earlier one is pending. */
static void wake(fabric_t *f, uint64_t cycle)
{
    if (f->off.pending) { /* after the edge's own wakes, as it would have come */
        if (f->nwakes == f->wakes_cap) {
            f->wakes_cap = f->wakes_cap ? 2 * f->wakes_cap : 64;
            f->wakes = xrealloc(f->wakes, f->wakes_cap * sizeof *f->wakes);
        }
        f->wakes[f->nwakes++] = cycle;
        return;
    }
    if (cycle <= f->last_cycle)
        cycle = f->last_cycle + 1;
    if (cycle >= f->next_cycle)
        return;
    f->next_cycle = cycle;
    kernel_at_phase(f->k, clock_edge(&f->clk, cycle), KERNEL_PHASE_EDGE, edge_event, f, cycle);
}

static void wake_at(fabric_t *f, uint64_t t) { wake(f, clock_cycle_at_or_after(&f->clk, t)); }

static void crd_push(crd_line_t *l, uint64_t t)
{
    if (l->n == l->cap) {
        unsigned cap = l->cap ? 2 * l->cap : 8;
        uint64_t *nt = xrealloc(NULL, cap * sizeof *nt);
        for (unsigned i = 0; i < l->n; i++)
            nt[i] = l->t[(l->head + i) % l->cap];
        free(l->t);
        l->t = nt;
        l->head = 0;
        l->cap = cap;
    }
    l->t[(l->head + l->n) % l->cap] = t;
    l->n++;
}

static void init_done(void *obj, uint32_t rdata, bool err)
{
    (void)obj;
    (void)rdata;
    if (err)
        die("the switch refused an initialization CSR write");
}

fabric_t *fabric_create(kernel_t *k, const fabric_model_ops_t *ops, const fabric_params_t *p, stats_t *st)
{
    if (!ops || p->freq_hz == 0 || p->link_latency_ps == 0 || p->rx_credits == 0) {
        fprintf(stderr, "fabric: needs a model, a clock, a non-zero link latency and receive credits\n");
        return NULL;
    }
    if (p->rx_credits > FABRIC_MAX_CREDITS || p->in_credits > FABRIC_MAX_CREDITS) {
        fprintf(stderr, "fabric: at most %u credits per class (the switch's buffers), not %u and %u\n",
                FABRIC_MAX_CREDITS, p->rx_credits, p->in_credits);
        return NULL;
    }
    if (p->silence_cycles >= 1u << 31 || p->accept_cycles >= 1u << 31 ||
        (p->silence_cycles && (p->heartbeat_cycles == 0 || p->heartbeat_cycles >= p->silence_cycles))) {
        fprintf(stderr, "fabric: the failure limits must be below 2^31 and a silence limit needs a shorter "
                        "heartbeat\n");
        return NULL;
    }
    fabric_t *f = calloc(1, sizeof *f);
    if (!f)
        die("out of memory");
    f->off = (offload_t){.k = k, .eval = edge_eval, .finish = edge_finish, .after = after_finish, .obj = f,
                         .nseq = EDGE_SEQS};
    f->k = k;
    f->ops = ops;
    f->p = *p;
    f->clk = clock_domain("fabric", p->freq_hz);
    f->nports = ops->num_cn + ops->num_mn;
    rng_init_named(&f->jitter_rng, p->seed, "fabric.link_jitter");
    f->model = ops->create(clock_period_ps(&f->clk), p->seed);
    f->cycles_ticked = stats_counter(st, "fabric.cycles_clocked", "fabric cycles the RTL was clocked");
    f->cycles_skipped = stats_counter(st, "fabric.cycles_skipped", "idle fabric cycles skipped by the kernel");
    char name[96];
    for (unsigned pi = 0; pi < f->nports; pi++) {
        fport_t *fp = &f->port[pi];
        fp->node = pi < ops->num_cn ? pi : MSG_MN_BASE + (pi - ops->num_cn);
        fp->no_credit = (1u << MSG_NUM_CLASSES) - 1u; /* until the switch's inputs advertise theirs */
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++) {
            const char *cn = msg_class_name((msg_class_t)c);
            snprintf(name, sizeof name, "fabric.port%u.%s.in_msgs", pi, cn);
            fp->rx_msgs[c] = stats_counter(st, name, "messages a node sent into this port");
            snprintf(name, sizeof name, "fabric.port%u.%s.in_bytes", pi, cn);
            fp->rx_bytes[c] = stats_counter(st, name, "bytes (msg_bytes) a node sent into this port");
            snprintf(name, sizeof name, "fabric.port%u.%s.out_msgs", pi, cn);
            fp->tx_msgs[c] = stats_counter(st, name, "messages this port delivered to its node");
            snprintf(name, sizeof name, "fabric.port%u.%s.out_bytes", pi, cn);
            fp->tx_bytes[c] = stats_counter(st, name, "bytes (msg_bytes) this port delivered to its node");
            /* The node grants its receive buffers to the RTL at time 0; they go in at one per cycle. */
            for (unsigned i = 0; i < p->rx_credits; i++)
                crd_push(&fp->crd[c], clock_edge(&f->clk, p->reset_cycles));
            if (p->rx_credits)
                fp->crd_cls |= (uint16_t)(1u << c);
        }
        fp->due = p->rx_credits ? clock_edge(&f->clk, p->reset_cycles) : UINT64_MAX;
        if (p->rx_credits)
            f->due_ports |= 1ull << pi;
        snprintf(name, sizeof name, "fabric.port%u.credit_waits", pi);
        fp->credit_waits = stats_counter(st, name, "sends refused for want of a credit (fabric_credits == 0)");
        snprintf(name, sizeof name, "fabric.port%u.lost", pi);
        fp->lost = stats_counter(st, name, "messages delivered to the port's node after it failed (lost)");
    }
    f->heartbeats = stats_counter(st, "fabric.heartbeats", "link-layer heartbeats of live CNs into the switch");
    const unsigned in_credits = p->in_credits ? p->in_credits : p->rx_credits;
    uint64_t *crd_rx = stats_counter(st, "fabric.credits.node_rx",
                                     "credits per class each node grants its switch port (receive buffers)");
    uint64_t *crd_in = stats_counter(st, "fabric.credits.switch_in",
                                     "credits per class each switch input advertises to its node (CRD_ADV)");
    if (crd_rx && crd_in) {
        *crd_rx = p->rx_credits;
        *crd_in = in_credits;
    }
    f->last_cycle = ops->reset(f->model, 0, p->reset_cycles) - 1;
    f->next_cycle = UINT64_MAX;
    for (unsigned pi = 0; pi < f->nports; pi++)
        f->port[pi].last_in = f->last_cycle;
    f->hb_low = 0;
    /* The fabric manager's initialization: routes, the credits the inputs advertise, failure
     * detection, then the ports start. */
    for (unsigned pi = 0; pi < f->nports; pi++)
        fabric_csr(f, true, SW_CSR_ROUTE(f->port[pi].node), SW_ROUTE_VALID | pi, init_done, f);
    fabric_csr(f, true, SW_CSR_CRD_ADV, in_credits, init_done, f);
    fabric_csr(f, true, SW_CSR_SILENCE_LIMIT, p->silence_cycles, init_done, f);
    fabric_csr(f, true, SW_CSR_ACCEPT_LIMIT, p->accept_cycles, init_done, f);
    fabric_csr(f, true, SW_CSR_CTRL, SW_CTRL_ENABLE, init_done, f);
    return f;
}

void fabric_free(fabric_t *f)
{
    if (!f)
        return;
    offload_join(&f->off);
    free(f->wakes);
    f->ops->free(f->model);
    for (unsigned pi = 0; pi < f->nports; pi++) {
        free(f->port[pi].inq);
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            free(f->port[pi].crd[c].t);
    }
    free(f->csrq);
    /* Every train, the free ones and those still in the kernel's queue (which dies with the fabric's
     * run). */
    for (train_t *tr = f->trains, *n; tr; tr = n) {
        n = tr->next_all;
        free(tr->item);
        free(tr->m);
        free(tr);
    }
    free(f);
}

unsigned fabric_num_ports(const fabric_t *f) { return f->nports; }

unsigned fabric_port_node(const fabric_t *f, unsigned p) { return f->port[p].node; }

void fabric_attach(fabric_t *f, unsigned p, fabric_deliver_fn deliver, fabric_credit_fn credit, void *obj)
{
    f->port[p].deliver = deliver;
    f->port[p].credit = credit;
    f->port[p].obj = obj;
}

unsigned fabric_credits(const fabric_t *f, unsigned p, msg_class_t c) { return f->port[p].credits[c]; }

bool fabric_starved(const fabric_t *f, unsigned p) { return f->port[p].no_credit != 0; }

uint32_t fabric_credit_mask(const fabric_t *f, unsigned p)
{
    return ~f->port[p].no_credit & ((1u << MSG_NUM_CLASSES) - 1u);
}

static uint64_t jitter(fabric_t *f)
{
    return f->p.link_jitter_ps ? rng_below(&f->jitter_rng, f->p.link_jitter_ps + 1) : 0;
}

void fabric_csr(fabric_t *f, bool write, unsigned addr, uint32_t wdata, fabric_csr_fn done, void *obj)
{
    offload_join(&f->off); /* the edge's next wake looks at the CSR queue */
    if (f->csr_n == f->csr_cap) {
        unsigned cap = f->csr_cap ? 2 * f->csr_cap : 64;
        csr_req_t *q = xrealloc(NULL, cap * sizeof *q);
        for (unsigned i = 0; i < f->csr_n; i++)
            q[i] = f->csrq[(f->csr_head + i) % f->csr_cap];
        free(f->csrq);
        f->csrq = q;
        f->csr_head = 0;
        f->csr_cap = cap;
    }
    f->csrq[(f->csr_head + f->csr_n++) % f->csr_cap] =
        (csr_req_t){.write = write, .addr = addr, .wdata = wdata, .done = done, .obj = obj};
    wake(f, clock_cycle_at_or_after(&f->clk, f->k->now));
}

void fabric_fail_node(fabric_t *f, unsigned p)
{
    if (p >= f->ops->num_cn)
        die("only compute nodes fail");
    f->port[p].failed = true;
}

bool fabric_node_failed(const fabric_t *f, unsigned p) { return f->port[p].failed; }

void fabric_send(fabric_t *f, unsigned p, const msg_t *m)
{
    fport_t *fp = &f->port[p];
    msg_class_t c = msg_class(m->opcode);
    if (fp->failed)
        die("a failed node sends");
    if (fp->credits[c] == 0) {
        (*fp->credit_waits)++;
        die("fabric_send without a credit (check fabric_credits first)");
    }
    const char *bad = msg_check(m);
    if (bad) {
        fprintf(stderr, "fabric: port %u sends a malformed %s: %s\n", p, msg_name(m->opcode) ? msg_name(m->opcode) : "?",
                bad);
        abort();
    }
    if (--fp->credits[c] == 0)
        fp->no_credit |= 1u << c;
    uint64_t depart = f->k->now > fp->link_free_at ? f->k->now : fp->link_free_at;
    fp->link_free_at = depart + clock_period_ps(&f->clk);
    inflight_t e = {.arrive = depart + f->p.link_latency_ps + jitter(f), .seq = f->send_seq++};
    msg_pack(m, e.flit);
    if (fp->inq_n == fp->inq_cap) {
        unsigned cap = fp->inq_cap ? 2 * fp->inq_cap : 16;
        inflight_t *q = xrealloc(NULL, cap * sizeof *q);
        for (unsigned i = 0; i < fp->inq_n; i++)
            q[i] = fp->inq[(fp->inq_head + i) & (fp->inq_cap - 1)];
        free(fp->inq);
        fp->inq = q;
        fp->inq_head = 0;
        fp->inq_cap = cap;
    }
    /* Sorted insertion from the tail: without jitter every message goes at the tail. */
    const unsigned mask = fp->inq_cap - 1;
    unsigned i = fp->inq_n++;
    while (i > 0) {
        const inflight_t *prev = &fp->inq[(fp->inq_head + i - 1) & mask];
        if (prev->arrive < e.arrive || (prev->arrive == e.arrive && prev->seq < e.seq))
            break;
        fp->inq[(fp->inq_head + i) & mask] = *prev;
        i--;
    }
    fp->inq[(fp->inq_head + i) & mask] = e;
    if (e.arrive < fp->due)
        fp->due = e.arrive;
    f->due_ports |= 1ull << p;
    (*fp->rx_msgs[c])++;
    *fp->rx_bytes[c] += msg_bytes(m);
    wake_at(f, e.arrive);
}

void fabric_release(fabric_t *f, unsigned p, msg_class_t c)
{
    if (f->port[p].failed)
        return; /* a dead node returns nothing */
    uint64_t t = f->k->now + f->p.link_latency_ps;
    crd_push(&f->port[p].crd[c], t);
    f->port[p].crd_cls |= (uint16_t)(1u << c);
    if (t < f->port[p].due)
        f->port[p].due = t;
    f->due_ports |= 1ull << p;
    wake_at(f, t);
}

static train_t *train_new(fabric_t *f)
{
    train_t *tr = f->free_trains;
    if (tr) {
        f->free_trains = tr->next_free;
    } else {
        tr = xrealloc(NULL, sizeof *tr);
        *tr = (train_t){.f = f, .next_all = f->trains};
        f->trains = tr;
    }
    tr->n = tr->nm = 0;
    return tr;
}

/* Adds an item with the next sequence number; a message's goes to *train_msg(tr) first. */
static void train_add(train_t *tr, kernel_t *k, unsigned port, int cls)
{
    if (tr->n == tr->item_cap) {
        tr->item_cap = tr->item_cap ? 2 * tr->item_cap : 8;
        tr->item = xrealloc(tr->item, tr->item_cap * sizeof *tr->item);
    }
    tr->item[tr->n++] = (train_item_t){.seq = kernel_reserve(k, 1), .port = (uint16_t)port, .cls = (int16_t)cls,
                                       .msg = (uint16_t)(cls < 0 ? tr->nm++ : 0)};
}

/* Room for the train's next message. */
static msg_t *train_msg(train_t *tr)
{
    if (tr->nm == tr->m_cap) {
        tr->m_cap = tr->m_cap ? 2 * tr->m_cap : 4;
        tr->m = xrealloc(tr->m, tr->m_cap * sizeof *tr->m);
    }
    return &tr->m[tr->nm];
}

/* Runs the train from item i. */
static void train_event(void *obj, uint64_t arg)
{
    train_t *tr = obj;
    fabric_t *f = tr->f;
    for (unsigned i = (unsigned)arg;;) {
        const train_item_t *it = &tr->item[i];
        fport_t *fp = &f->port[it->port];
        if (it->cls < 0) {
            const msg_t *m = &tr->m[it->msg];
            fp->deliveries_in_flight--;
            if (fp->failed) {
                (*fp->lost)++;
            } else {
                if (!fp->deliver)
                    die("a message reached a port with no node attached");
                fp->deliver(fp->obj, it->port, m);
            }
        } else {
            fp->credits[it->cls]++;
            fp->no_credit &= ~(1u << it->cls);
            fp->rx_crd_in_flight--;
            if (fp->credit && !fp->failed)
                fp->credit(fp->obj, it->port, (msg_class_t)it->cls);
        }
        if (++i == tr->n) {
            tr->next_free = f->free_trains;
            f->free_trains = tr;
            return;
        }
        if (!kernel_train_next(f->k, tr->item[i].seq, train_event, tr, i))
            return;
    }
}

/* Cycle of port p's next heartbeat, or UINT64_MAX: live CNs only, when heartbeats are on. */
static uint64_t next_heartbeat(const fabric_t *f, unsigned p)
{
    const fport_t *fp = &f->port[p];
    if (!f->p.heartbeat_cycles || p >= f->ops->num_cn || fp->failed)
        return UINT64_MAX;
    return fp->last_in + f->p.heartbeat_cycles;
}

/* Earliest time a message or credit is due at the RTL, or UINT64_MAX. */
static uint64_t next_link_time(const fabric_t *f)
{
    uint64_t t = UINT64_MAX;
    for (uint64_t ports = f->due_ports; ports; ports &= ports - 1) {
        const uint64_t due = f->port[__builtin_ctzll(ports)].due;
        if (due < t)
            t = due;
    }
    return t;
}

/* Earliest time any input is due at the RTL (heartbeats included), or UINT64_MAX. A pending edge
 * takes it when its inputs are read (edge_event): the sends and node failures of its time come
 * after it. */
static uint64_t next_input_time(const fabric_t *f)
{
    uint64_t t = next_link_time(f), hb = UINT64_MAX;
    for (unsigned pi = 0; pi < f->nports; pi++) {
        uint64_t c = next_heartbeat(f, pi);
        if (c < hb)
            hb = c;
    }
    if (hb != UINT64_MAX && clock_edge(&f->clk, hb) < t) /* edges are in cycle order */
        t = clock_edge(&f->clk, hb);
    return t;
}

static void edge_event(void *obj, uint64_t cycle)
{
    fabric_t *f = obj;
    if (cycle != f->next_cycle)
        return; /* superseded by an earlier wake */
    f->next_cycle = UINT64_MAX;
    const uint64_t now = f->k->now;

    /* Inputs due at this edge: at most one message per port, one credit per class per port, a
     * heartbeat on a live CN's otherwise quiet link, and the next CSR access. */
    f->in.now = (uint32_t)cycle;
    f->in.rx_valid = 0;
    f->in.rx_hb = 0;
    for (uint64_t ports = f->in.tx_crd_any; ports; ports &= ports - 1)
        f->in.tx_crd[__builtin_ctzll(ports)] = 0; /* the last edge's; the others are 0 */
    f->in.tx_crd_any = 0;
    f->in.csr_valid = f->csr_n > 0;
    if (f->in.csr_valid) {
        const csr_req_t *q = &f->csrq[f->csr_head];
        f->in.csr_write = q->write;
        f->in.csr_addr = q->addr;
        f->in.csr_wdata = q->wdata;
    }
    /* The ports with something on its way in, or every port when a heartbeat may be due (only a
     * port with an input changes its last_in, so hb_low stays a lower bound meanwhile). */
    const bool hb_look = cycle >= f->hb_low;
    uint64_t hb_next = UINT64_MAX;
    const uint64_t all = f->nports == 64 ? UINT64_MAX : (1ull << f->nports) - 1;
    for (uint64_t ports = hb_look ? all : f->due_ports; ports; ports &= ports - 1) {
        const unsigned pi = (unsigned)__builtin_ctzll(ports);
        fport_t *fp = &f->port[pi];
        uint16_t crd = 0;
        bool any = false;
        if (fp->due <= now) {
            if (fp->inq_n && fp->inq[fp->inq_head].arrive <= now) {
                memcpy(f->in.rx_msg[pi], fp->inq[fp->inq_head].flit, sizeof fp->inq[0].flit);
                f->in.rx_valid |= 1ull << pi;
                fp->inq_head = (fp->inq_head + 1) & (fp->inq_cap - 1);
                fp->inq_n--;
                any = true;
            }
            uint64_t due = fp->inq_n ? fp->inq[fp->inq_head].arrive : UINT64_MAX;
            for (unsigned cls = fp->crd_cls; cls; cls &= cls - 1) {
                const unsigned c = (unsigned)__builtin_ctz(cls);
                crd_line_t *l = &fp->crd[c];
                if (l->t[l->head] <= now) {
                    crd |= (uint16_t)(1u << c);
                    l->head = l->head + 1 == l->cap ? 0 : l->head + 1;
                    if (--l->n == 0) {
                        fp->crd_cls &= (uint16_t)~(1u << c);
                        continue;
                    }
                }
                if (l->t[l->head] < due)
                    due = l->t[l->head];
            }
            fp->due = due;
            if (due == UINT64_MAX)
                f->due_ports &= ~(1ull << pi);
            any = any || crd;
        }
        f->in.tx_crd[pi] = crd;
        f->in.tx_crd_any |= (uint64_t)(crd != 0) << pi;
        if (hb_look && !any && cycle >= next_heartbeat(f, pi)) {
            f->in.rx_hb |= 1ull << pi;
            (*f->heartbeats)++;
            any = true;
        }
        if (any)
            fp->last_in = cycle;
        if (hb_look) {
            uint64_t hb = next_heartbeat(f, pi);
            if (hb < hb_next)
                hb_next = hb;
        }
    }
    if (hb_look)
        f->hb_low = hb_next;

    *f->cycles_skipped += cycle - f->last_cycle - 1;
    f->last_cycle = cycle;
    (*f->cycles_ticked)++;
    f->edge_cycle = cycle;
    f->edge_now = now;
    /* On the worker while the other events of this time run, unless the outputs are wanted at once:
     * a CSR access's answer goes to software, an observer sees the outputs in order, and link jitter
     * draws from the random stream the nodes' sends draw from. */
    const bool at_once = f->in.csr_valid || f->observe || f->p.link_jitter_ps;
    f->next_in_taken = offload_defers(&f->off, at_once) && f->p.skip_idle;
    if (f->next_in_taken)
        f->edge_next_in = next_input_time(f);
    /* Nothing before the next edge reads the outputs, and they schedule nothing before a link
     * latency from now: the events until then (the cores' between two fabric edges, most of all) run
     * beside the evaluation. */
    uint64_t horizon = clock_edge(&f->clk, cycle + 1);
    if (now + f->p.link_latency_ps < horizon)
        horizon = now + f->p.link_latency_ps;
    offload_edge(&f->off, at_once, horizon);
}

/* Evaluates the edge's RTL: the only part that may run on the worker (it touches the model and
 * the fabric's in and out, which nothing else touches while the edge is pending). */
static void edge_eval(void *obj)
{
    fabric_t *f = obj;
    hostprof_zone_e prev = hostprof_enter(HOSTPROF_FABRIC);
    f->ops->cycle(f->model, &f->in, &f->out, f->edge_cycle);
    hostprof_leave(prev);
}

/* The edge's outputs: the CSR answer, deliveries and credits toward the nodes, the next edge. */
static void edge_finish(void *obj)
{
    fabric_t *f = obj;
    const uint64_t cycle = f->edge_cycle, now = f->edge_now;
    f->rtl_idle = f->out.idle;

    if (f->in.csr_valid) {
        if (!f->out.csr_rvalid)
            die("the switch did not answer a CSR access");
        csr_req_t q = f->csrq[f->csr_head];
        f->csr_head = (f->csr_head + 1) % f->csr_cap;
        f->csr_n--;
        if (q.done)
            q.done(q.obj, f->out.csr_rdata, f->out.csr_err);
    }

    /* The ports with a message or a credit, in port order (the order of their sequence numbers): one
     * train a link latency from now, and one of its own for a message jitter delays. */
    train_t *tr = NULL;
    const uint64_t at = now + f->p.link_latency_ps;
    for (uint64_t ports = f->out.tx_valid | f->out.rx_crd_any; ports; ports &= ports - 1) {
        const unsigned pi = (unsigned)__builtin_ctzll(ports);
        fport_t *fp = &f->port[pi];
        if (f->out.tx_valid >> pi & 1u) {
            const uint64_t t = at + jitter(f);
            train_t *d = tr;
            if (t != at)
                d = train_new(f);
            else if (!tr)
                d = tr = train_new(f);
            msg_t *m = train_msg(d);
            msg_unpack(f->out.tx_msg[pi], m);
            msg_class_t c = msg_class(m->opcode);
            (*fp->tx_msgs[c])++;
            *fp->tx_bytes[c] += msg_bytes(m);
            if (f->observe)
                f->observe(f->observe_obj, cycle, 0, pi, c, m);
            fp->deliveries_in_flight++;
            train_add(d, f->k, pi, -1);
            if (d != tr)
                kernel_at_seq(f->k, t, d->item[0].seq, train_event, d, 0);
        }
        uint16_t crd = f->out.rx_crd[pi];
        for (unsigned c = 0; crd; c++, crd >>= 1) {
            if (!(crd & 1u))
                continue;
            if (f->observe)
                f->observe(f->observe_obj, cycle, 1, pi, c, NULL);
            fp->rx_crd_in_flight++;
            if (!tr)
                tr = train_new(f);
            train_add(tr, f->k, pi, (int)c);
        }
    }
    if (tr)
        kernel_at_seq(f->k, at, tr->item[0].seq, train_event, tr, 0);

    if (!f->p.skip_idle || !f->rtl_idle || f->csr_n) {
        wake(f, cycle + 1);
    } else {
        uint64_t t = f->next_in_taken ? f->edge_next_in : next_input_time(f);
        if (t != UINT64_MAX)
            wake_at(f, t);
        if (f->out.timer_valid)
            wake(f, cycle + (f->out.timer_left ? f->out.timer_left : 1));
    }
}

/* After a deferred edge's outputs: the wakes the nodes asked for while it was pending. */
static void after_finish(void *obj)
{
    fabric_t *f = obj;
    for (unsigned i = 0; i < f->nwakes; i++)
        wake(f, f->wakes[i]);
    f->nwakes = 0;
}

int fabric_trace_open(fabric_t *f, const char *path, uint64_t start_ps, uint64_t stop_ps)
{
    offload_join(&f->off);
    return f->ops->trace_open(f->model, path, start_ps, stop_ps);
}

uint64_t fabric_period_ps(const fabric_t *f) { return clock_period_ps(&f->clk); }

uint64_t fabric_cycles(const fabric_t *f)
{
    /* Edges at or before now, clocked or skipped: a function of time alone. */
    return clock_cycle_at_or_after(&f->clk, f->k->now + 1);
}

uint64_t fabric_cycles_ticked(const fabric_t *f) { return *f->cycles_ticked; }

bool fabric_quiet(fabric_t *f)
{
    offload_join(&f->off);
    if (!f->rtl_idle || next_link_time(f) != UINT64_MAX || f->csr_n)
        return false;
    for (unsigned pi = 0; pi < f->nports; pi++)
        if (f->port[pi].deliveries_in_flight || f->port[pi].rx_crd_in_flight)
            return false;
    return true;
}

void fabric_observe(fabric_t *f, fabric_observe_fn fn, void *obj)
{
    f->observe = fn;
    f->observe_obj = obj;
}
