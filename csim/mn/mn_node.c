#include "mn/mn_node.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "drv/dir_defs.h"

/* The controller's edges run in a phase of their own after the model phase (kernel.h orders a
 * time's events by phase, then by scheduling order; phases 0 and 1 are named there). Deliveries,
 * credits and DRAM completions are model events: an edge at t sees all of those at t whichever way
 * it was scheduled, which is what makes skipping invisible. */
#define MN_PHASE_EDGE 2u

struct mn_node {
    kernel_t *k;
    fabric_t *f;
    unsigned port;
    mn_node_params_t p;
    char name[48];
    char dram_name[64];
    clock_domain_t clk;
    dir_drv_t *d;
    dir_drv_cfg_t cfg;
    uint64_t next_cycle; /* cycle of the pending edge event, or UINT64_MAX asleep */
    uint64_t min_cycle;  /* the first cycle a new edge may have: after the one clocked last or now */
    msg_t *q;            /* the adapter's buffers, in arrival order (ring) */
    size_t qhead, qn, qcap;
    uint32_t qcls_n[MSG_NUM_CLASSES]; /* the messages of each class among them */
    uint32_t qcls;                    /* bit c: qcls_n[c] is not 0 */
    size_t nviol_seen;
    size_t nmg_seen;     /* management answers passed on */
    void (*mg_fn)(void *obj, const dir_mg_rsp_t *r);
    void *mg_obj;
    void (*sw_fn)(void *obj, const msg_t *m);
    void *sw_obj;
    mn_observe_fn obs;
    void *obs_obj;
    uint64_t *cycles_clocked, *cycles_skipped, *rx_msgs, *tx_msgs, *sw_msgs, *violations, *rx_held, *tx_starved;
    bool starved_after;  /* after the last clocked edge some class had no credit */
    bool held_after;     /* after the last clocked edge messages were held, none with a credit */
};

static void edge_event(void *obj, uint64_t cycle);

static void die(const mn_node_t *n, const char *what)
{
    fprintf(stderr, "mn_node %s: %s\n", n->name, what);
    abort();
}

/* Schedules the edge of cycle (at the earliest the one after the last clocked, or after the one
 * being clocked: the software may send from inside an edge; and now_cycle, the first at or after
 * now, which the caller knows) unless an earlier one is pending. */
static void wake(mn_node_t *n, uint64_t cycle, uint64_t now_cycle)
{
    if (cycle < n->min_cycle)
        cycle = n->min_cycle;
    if (cycle < dir_drv_cycle(n->d))
        cycle = dir_drv_cycle(n->d);
    if (cycle < now_cycle)
        cycle = now_cycle;
    if (cycle >= n->next_cycle)
        return;
    n->next_cycle = cycle;
    kernel_at_phase(n->k, clock_edge(&n->clk, cycle), MN_PHASE_EDGE, edge_event, n, cycle);
}

static void wake_now(void *obj)
{
    mn_node_t *n = obj;
    const uint64_t now_cycle = clock_cycle_at_or_after(&n->clk, n->k->now);
    wake(n, now_cycle, now_cycle);
}

/* The fabric delivered m: the adapter holds it until the controller has a credit of its class. */
static void deliver(void *obj, unsigned port, const msg_t *m)
{
    (void)port;
    mn_node_t *n = obj;
    if (n->qn == n->qcap) {
        size_t cap = n->qcap ? 2 * n->qcap : 64;
        msg_t *q = malloc(cap * sizeof *q);
        if (!q)
            die(n, "out of memory");
        for (size_t i = 0; i < n->qn; i++)
            q[i] = n->q[(n->qhead + i) % n->qcap];
        free(n->q);
        n->q = q, n->qhead = 0, n->qcap = cap;
    }
    n->q[(n->qhead + n->qn++) % n->qcap] = *m;
    n->qcls_n[msg_class(m->opcode)]++;
    n->qcls |= 1u << msg_class(m->opcode);
    wake_now(n);
}

static void skip_to(mn_node_t *n, uint64_t cycle);

/* A credit toward the switch port came back: one more send credit for the controller. A sleeping
 * controller (idle or stalled: nothing to send) is not woken for it: the edges skipped up to the
 * credit's count as they were, and those after it with the credit (tx_starved). */
static void credit(void *obj, unsigned port, msg_class_t c)
{
    (void)port;
    mn_node_t *n = obj;
    if (dir_drv_asleep(n->d)) {
        const uint64_t at = clock_cycle_at_or_after(&n->clk, n->k->now);
        if (at > dir_drv_cycle(n->d))
            skip_to(n, at);
        dir_drv_tx_credit(n->d, c);
        n->starved_after = fabric_starved(n->f, n->port);
        return;
    }
    dir_drv_tx_credit(n->d, c);
    wake_now(n);
}

static void on_tx(void *ctx, const msg_t *m, uint64_t cycle)
{
    mn_node_t *n = ctx;
    (*n->tx_msgs)++;
    if (n->obs)
        n->obs(n->obs_obj, cycle, MN_OBS_TX, m, 0);
    if (fabric_credits(n->f, n->port, msg_class(m->opcode)) == 0)
        die(n, "the controller sent without a credit of the fabric (the credits are out of step)");
    fabric_send(n->f, n->port, m);
}

static void on_sw(void *ctx, const msg_t *m, uint64_t cycle)
{
    mn_node_t *n = ctx;
    (*n->sw_msgs)++;
    if (n->obs)
        n->obs(n->obs_obj, cycle, MN_OBS_SW, m, 0);
    if (n->sw_fn)
        n->sw_fn(n->sw_obj, m);
}

static void on_mem(void *ctx, bool write, bool dir, uint32_t addr, uint64_t cycle)
{
    mn_node_t *n = ctx;
    if (n->obs)
        n->obs(n->obs_obj, cycle, write ? MN_OBS_MEM_WR : MN_OBS_MEM_RD, NULL,
               dir ? (uint64_t)n->cfg.lines + addr : addr);
}

/* The classes held that have a controller credit. */
static uint32_t held_avail(const mn_node_t *n)
{
    uint32_t avail = 0;
    for (uint32_t held = n->qcls; held; held &= held - 1) {
        const unsigned c = (unsigned)__builtin_ctz(held);
        if (dir_drv_credits(n->d, (msg_class_t)c))
            avail |= 1u << c;
    }
    return avail;
}

/* The adapter presents its oldest message whose class the controller holds a credit for (messages
 * of one class keep their order: a class without a credit blocks only itself). */
static void present(mn_node_t *n, uint64_t cycle)
{
    /* With no held class's credit every message held waits (the common case while the controller
     * is the bottleneck: no look at each message). */
    const uint32_t avail = held_avail(n);
    if (!avail) {
        if (n->qn)
            (*n->rx_held)++;
        return;
    }
    uint32_t blocked = 0;
    for (size_t i = 0; i < n->qn; i++) {
        size_t at = (n->qhead + i) % n->qcap;
        msg_class_t c = msg_class(n->q[at].opcode);
        if (!(avail >> c & 1)) { /* its later messages too: the class keeps its order */
            blocked |= 1u << c;
            continue;
        }
        msg_t m = n->q[at];
        /* Close the gap: later messages move up one place (the oldest leaves by the head). */
        if (i == 0)
            n->qhead = (n->qhead + 1) % n->qcap;
        else
            for (size_t j = i; j + 1 < n->qn; j++)
                n->q[(n->qhead + j) % n->qcap] = n->q[(n->qhead + j + 1) % n->qcap];
        n->qn--;
        if (!--n->qcls_n[c])
            n->qcls &= ~(1u << c);
        if (blocked)
            (*n->rx_held)++;
        dir_drv_send_at(n->d, &m, cycle);
        fabric_release(n->f, n->port, c);
        (*n->rx_msgs)++;
        if (n->obs)
            n->obs(n->obs_obj, cycle, MN_OBS_RX, &m, 0);
        return; /* one a cycle: the controller's link takes one */
    }
    if (blocked)
        (*n->rx_held)++;
}

/* The controller to cycle, the edges before it skipped. They had the credits and the held messages
 * the last clocked one left (a credit's arrival wakes the node, and so does a message the
 * controller could take): they count as they would have clocked, so tx_starved and rx_held do not
 * depend on skipping. */
static void skip_to(mn_node_t *n, uint64_t cycle)
{
    const uint64_t skipped = cycle - dir_drv_cycle(n->d);
    *n->cycles_skipped += skipped;
    if (n->starved_after)
        *n->tx_starved += skipped;
    if (n->held_after)
        *n->rx_held += skipped;
    dir_drv_skip_to(n->d, cycle);
}

static void edge_event(void *obj, uint64_t cycle)
{
    mn_node_t *n = obj;
    if (cycle != n->next_cycle)
        return; /* superseded by an earlier wake */
    n->next_cycle = UINT64_MAX;
    n->min_cycle = cycle + 1;
    skip_to(n, cycle);
    present(n, cycle);
    if (fabric_starved(n->f, n->port))
        (*n->tx_starved)++;
    dir_drv_step(n->d);
    n->starved_after = fabric_starved(n->f, n->port);
    (*n->cycles_clocked)++;
    size_t nv = dir_drv_viols(n->d);
    for (; n->nviol_seen < nv; n->nviol_seen++) {
        const dir_viol_rec_t *v = dir_drv_viol(n->d, n->nviol_seen);
        (*n->violations)++;
        if (n->obs)
            n->obs(n->obs_obj, v->cycle, MN_OBS_VIOL, &v->m, v->kind);
    }
    for (; n->nmg_seen < dir_drv_mg_rsps(n->d); n->nmg_seen++)
        if (n->mg_fn)
            n->mg_fn(n->mg_obj, dir_drv_mg_rsp(n->d, n->nmg_seen));
    /* Messages held without a credit of their class wait for the controller to return one, which
     * only an edge its own wake asks for can do (a stalled controller, its receive FIFOs full of
     * requests waiting for the table, returns none): until then each edge would only count them. */
    const bool can_present = n->qn && held_avail(n);
    n->held_after = n->qn && !can_present;
    if (!n->p.skip_idle || can_present) {
        wake(n, cycle + 1, cycle); /* (now is this edge's time) */
        return;
    }
    uint64_t next = dir_drv_next_cycle(n->d);
    if (next != UINT64_MAX)
        wake(n, next, cycle);
}

static unsigned log2u(uint64_t v)
{
    unsigned s = 0;
    while ((1ull << s) < v)
        s++;
    return s;
}

static bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

__attribute__((format(printf, 2, 3))) static mn_node_t *fail(char *err, const char *fmt, ...)
{
    if (err) {
        int l = snprintf(err, MN_NODE_ERR_MAX, "mn_node: ");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + l, MN_NODE_ERR_MAX - (size_t)l, fmt, ap);
        va_end(ap);
    }
    return NULL;
}

mn_node_t *mn_node_create(kernel_t *k, fabric_t *f, unsigned port, const dir_model_ops_t *ops,
                          const mn_node_params_t *p, stats_t *st, char *err)
{
    if (!k || !f || !ops || !p || !st)
        return fail(err, "needs a kernel, a fabric, a model, parameters and statistics");
    if (!p->name || !*p->name || strlen(p->name) >= 48)
        return fail(err, "needs a name (statistics prefix) of 1 to 47 characters");
    if (!pow2(p->num_mn) || p->num_mn > MSG_MAX_MN || p->mn >= p->num_mn)
        return fail(err, "MN %u of %u: the number of MNs must be a power of two up to %u, the index below it",
                    p->mn, p->num_mn, MSG_MAX_MN);
    if (port >= fabric_num_ports(f) || fabric_port_node(f, port) != MSG_MN_BASE + p->mn)
        return fail(err, "port %u is not MN %u's port on this fabric", port, p->mn);
    if (!pow2(p->interleave_bytes) || p->interleave_bytes < MSG_LINE_BYTES)
        return fail(err, "interleave %llu bytes: must be a power of two of at least 64",
                    (unsigned long long)p->interleave_bytes);
    if (p->mn_bytes == 0 || p->mn_bytes % MSG_LINE_BYTES || p->mn_bytes / MSG_LINE_BYTES > UINT32_MAX)
        return fail(err, "memory %llu bytes: must be whole lines, 1 to 2^32 - 1 of them",
                    (unsigned long long)p->mn_bytes);
    if (p->scr_hi && (p->scr_lo > p->scr_hi || p->scr_hi > 1ull << MSG_LINE_ADDR_W))
        return fail(err, "coherent region [0x%llx, 0x%llx): needs scr_lo <= scr_hi <= 2^42",
                    (unsigned long long)p->scr_lo, (unsigned long long)p->scr_hi);
    if (p->freq_hz == 0 || p->dram_latency_ps == 0)
        return fail(err, "needs a clock and a DRAM latency");
    clock_domain_t clk = clock_domain("fabric", p->freq_hz);
    if (clock_period_ps(&clk) != fabric_period_ps(f))
        return fail(err, "clock period %llu ps, the fabric's %llu ps: the directory runs in the fabric's clock",
                    (unsigned long long)clock_period_ps(&clk), (unsigned long long)fabric_period_ps(f));

    mn_node_t *n = calloc(1, sizeof *n);
    if (!n)
        abort();
    n->k = k;
    n->f = f;
    n->port = port;
    n->p = *p;
    snprintf(n->name, sizeof n->name, "%s", p->name);
    n->p.name = n->name;
    n->clk = clk;
    n->next_cycle = UINT64_MAX;

    dir_drv_cfg_t c = dir_drv_cfg_default();
    c.node_id = MSG_MN_BASE + p->mn;
    c.mn_idx = p->mn;
    c.mn_shift = log2u(p->num_mn);
    c.gran_shift = log2u(p->interleave_bytes / MSG_LINE_BYTES);
    c.lines = (uint32_t)(p->mn_bytes / MSG_LINE_BYTES);
    c.scr_lo = p->scr_hi ? p->scr_lo : 0;
    c.scr_hi = p->scr_hi ? p->scr_hi : 1ull << MSG_LINE_ADDR_W;
    c.period_ps = clock_period_ps(&clk);
    c.mem_latency_ps = p->dram_latency_ps;
    n->cfg = c;

    char name[96];
#define CNT(field, suffix, doc)                                                  \
    do {                                                                         \
        snprintf(name, sizeof name, "%s.%s", n->name, suffix);                   \
        n->field = stats_counter(st, name, doc);                                 \
        if (!n->field) {                                                         \
            if (err)                                                             \
                snprintf(err, MN_NODE_ERR_MAX, "mn_node: %s", stats_error(st));  \
            free(n);                                                             \
            return NULL;                                                         \
        }                                                                        \
    } while (0)
    CNT(cycles_clocked, "cycles_clocked", "fabric cycles the directory controller was clocked");
    CNT(cycles_skipped, "cycles_skipped", "idle fabric cycles the directory controller was not clocked");
    CNT(rx_msgs, "rx_msgs", "messages presented to the directory controller");
    CNT(tx_msgs, "tx_msgs", "messages the directory controller sent");
    CNT(sw_msgs, "sw_msgs", "messages passed to the MN's software (MGREQ, MGRSP, DUMP)");
    CNT(violations, "violations", "protocol violations the directory controller reported (a failure)");
    CNT(rx_held, "rx_held", "edges at which the adapter held a message for want of the controller's credit");
    CNT(tx_starved, "tx_starved", "edges at which a class had no credit toward the switch port");
#undef CNT

    snprintf(n->dram_name, sizeof n->dram_name, "%s.dram", n->name);
    dir_drv_sys_t sys = {.k = k, .st = st, .dram_name = n->dram_name, .wake = wake_now, .obj = n};
    n->d = dir_drv_create_sys(ops, &c, p->seed, on_tx, n, &sys);
    dir_drv_on_sw(n->d, on_sw);
    dir_drv_on_mem(n->d, on_mem);
    fabric_attach(f, port, deliver, credit, n);
    /* The controller returns its receive credits after reset: it has work from its first edge. */
    wake_now(n);
    return n;
}

void mn_node_free(mn_node_t *n)
{
    if (!n)
        return;
    dir_drv_free(n->d);
    free(n->q);
    free(n);
}

static uint32_t local_line(const mn_node_t *n, uint64_t gline)
{
    if (!mn_node_owns(n, gline)) {
        fprintf(stderr, "mn_node %s: line 0x%llx is not this MN's\n", n->name, (unsigned long long)gline);
        abort();
    }
    return (uint32_t)dir_addr_local(gline, n->cfg.mn_shift, n->cfg.gran_shift);
}

bool mn_node_owns(const mn_node_t *n, uint64_t gline)
{
    return gline < 1ull << MSG_LINE_ADDR_W && dir_addr_mn(gline, n->cfg.mn_shift, n->cfg.gran_shift) == n->p.mn &&
           dir_addr_local(gline, n->cfg.mn_shift, n->cfg.gran_shift) < n->cfg.lines;
}

void mn_node_peek(const mn_node_t *n, uint64_t gline, uint64_t words[8])
{
    dir_drv_mem_peek(n->d, local_line(n, gline), words);
}

void mn_node_poke(mn_node_t *n, uint64_t gline, uint8_t mask, const uint64_t words[8])
{
    dir_drv_mem_poke(n->d, local_line(n, gline), mask, words);
}

bool mn_node_idle(const mn_node_t *n) { return n->qn == 0 && dir_drv_next_cycle(n->d) == UINT64_MAX && dir_drv_idle(n->d); }

size_t mn_node_violations(const mn_node_t *n) { return dir_drv_viols(n->d); }

void mn_node_on_sw(mn_node_t *n, void (*fn)(void *obj, const msg_t *m), void *obj)
{
    n->sw_fn = fn;
    n->sw_obj = obj;
}

void mn_node_sw_send(mn_node_t *n, const msg_t *m)
{
    msg_class_t c = msg_class(m->opcode);
    if (c != CLS_MGREQ && c != CLS_MGRSP)
        die(n, "the software sends only MGREQ and MGRSP messages");
    dir_drv_sw_send(n->d, m);
    wake_now(n);
}

void mn_node_mg_send(mn_node_t *n, const dir_mg_cmd_t *c)
{
    dir_drv_mg_send(n->d, c);
    wake_now(n);
}

void mn_node_on_mg(mn_node_t *n, void (*fn)(void *obj, const dir_mg_rsp_t *r), void *obj)
{
    n->mg_fn = fn;
    n->mg_obj = obj;
}

int mn_node_trace_open(mn_node_t *n, const char *path, uint64_t start_ps, uint64_t stop_ps)
{
    return dir_drv_trace_window(n->d, path, start_ps, stop_ps);
}

void mn_node_observe(mn_node_t *n, mn_observe_fn fn, void *obj)
{
    n->obs = fn;
    n->obs_obj = obj;
}

const dir_drv_t *mn_node_drv(const mn_node_t *n) { return n->d; }

uint32_t mn_node_csr(mn_node_t *n, unsigned addr, bool *err)
{
    if (dir_drv_next_cycle(n->d) != UINT64_MAX || (n->qn && held_avail(n)))
        die(n, "a CSR read while the controller has work (read between runs of the kernel, the controller "
               "quiet or stalled)");
    /* The read's first edge is the first after now (the kernel has run the events of now, an edge
     * at now included when clocked); an edge pending for it (without skipping) is superseded. */
    const uint64_t pending = n->next_cycle;
    n->next_cycle = UINT64_MAX;
    const uint64_t first = clock_cycle_at_or_after(&n->clk, n->k->now + 1);
    if (first > dir_drv_cycle(n->d))
        skip_to(n, first);
    const uint32_t v = dir_drv_csr(n->d, addr, err);
    dir_drv_step(n->d); /* the edge that clears the answer: the controller as quiet or stalled as before */
    n->min_cycle = dir_drv_cycle(n->d);
    if (pending != UINT64_MAX)
        wake(n, n->min_cycle, clock_cycle_at_or_after(&n->clk, n->k->now));
    return v;
}

static void hdr_print(FILE *f, const msg_t *m)
{
    fprintf(f, "%s src %u dst %u core %u tag %u flags %u line 0x%llx mask 0x%02x",
            msg_name(m->opcode) ? msg_name(m->opcode) : "?", m->src, m->dst, m->core, m->tag, m->flags,
            (unsigned long long)m->addr, m->mask);
}

void mn_node_dump(const mn_node_t *n, FILE *f)
{
    const dir_out_t *o = dir_drv_out(n->d);
    uint64_t next = dir_drv_next_cycle(n->d);
    fprintf(f, "MN %u (%s, node %u, port %u) at %llu ps: next edge cycle %llu, ", n->p.mn, n->name,
            MSG_MN_BASE + n->p.mn, n->port, (unsigned long long)n->k->now, (unsigned long long)dir_drv_cycle(n->d));
    if (n->next_cycle != UINT64_MAX)
        fprintf(f, "edge scheduled at cycle %llu", (unsigned long long)n->next_cycle);
    else
        fprintf(f, "asleep");
    fprintf(f, "; %llu cycles clocked, %llu skipped\n", (unsigned long long)*n->cycles_clocked,
            (unsigned long long)*n->cycles_skipped);
    fprintf(f, "  controller: idle_o %u at its last edge, work at %s%llu, %zu on its link, %llu messages "
               "presented, %llu sent, %llu to software, DRAM stalls %llu\n",
            o->idle_o, next == UINT64_MAX ? "none " : "cycle ", (unsigned long long)(next == UINT64_MAX ? 0 : next),
            dir_drv_in_flight(n->d), (unsigned long long)*n->rx_msgs, (unsigned long long)*n->tx_msgs,
            (unsigned long long)*n->sw_msgs, (unsigned long long)dir_drv_mem_stalls(n->d));
    fprintf(f, "  credits per class (controller's receive port held by the adapter / fabric's toward the switch):");
    for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
        fprintf(f, " %s %u/%u", msg_class_name((msg_class_t)c), dir_drv_credits(n->d, (msg_class_t)c),
                fabric_credits(n->f, n->port, (msg_class_t)c));
    fprintf(f, "\n  adapter holds %zu messages%s\n", n->qn, n->qn ? ":" : "");
    for (size_t i = 0; i < n->qn && i < 16; i++) {
        fprintf(f, "    ");
        hdr_print(f, &n->q[(n->qhead + i) % n->qcap]);
        fprintf(f, "\n");
    }
    size_t nv = dir_drv_viols(n->d);
    fprintf(f, "  violations: %zu\n", nv);
    for (size_t i = 0; i < nv && i < 64; i++) {
        const dir_viol_rec_t *v = dir_drv_viol(n->d, i);
        fprintf(f, "    %s at cycle %llu: ", dir_viol_name((dir_viol_e)v->kind), (unsigned long long)v->cycle);
        hdr_print(f, &v->m);
        fprintf(f, "\n");
    }
    if (nv > 64)
        fprintf(f, "    (%zu more)\n", nv - 64);
}
