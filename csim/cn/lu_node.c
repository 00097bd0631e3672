#include "cn/lu_node.h"

#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Edges after the fabric's edges and the model events of their time, as csim/mn/mn_node's. */
#define LU_PHASE_EDGE 2u

struct lu_node {
    kernel_t *k;
    cn_port_t *port;
    lu_node_params_t p;
    char name[48];
    char dram_name[64];
    clock_domain_t clk;
    lu_drv_t *d;
    bool alive, frozen;
    uint64_t next_cycle; /* cycle of the pending edge event, or UINT64_MAX asleep */
    uint64_t min_cycle;  /* the first cycle a new edge may have */
    msg_t *q;            /* held for the LU, in arrival order (ring) */
    size_t qhead, qn, qcap;
    size_t nlog_seen;
    lu_observe_fn obs;
    void *obs_obj;
    uint64_t *cycles_clocked, *cycles_skipped, *rx_msgs, *tx_msgs, *rx_lost, *dump_starts;
};

static void edge_event(void *obj, uint64_t cycle);

static void die(const lu_node_t *n, const char *what)
{
    fprintf(stderr, "lu_node %s: %s\n", n->name, what);
    abort();
}

/* Schedules the edge of cycle (at the earliest the one after the last clocked, and now_cycle: the
 * first at or after now, which the caller knows) unless an earlier one is pending. */
static void wake(lu_node_t *n, uint64_t cycle, uint64_t now_cycle)
{
    if (n->frozen)
        return;
    if (cycle < n->min_cycle)
        cycle = n->min_cycle;
    if (cycle < lu_drv_cycle(n->d))
        cycle = lu_drv_cycle(n->d);
    if (cycle < now_cycle)
        cycle = now_cycle;
    if (cycle >= n->next_cycle)
        return;
    n->next_cycle = cycle;
    kernel_at_phase(n->k, clock_edge(&n->clk, cycle), LU_PHASE_EDGE, edge_event, n, cycle);
}

static void wake_now(void *obj)
{
    lu_node_t *n = obj;
    const uint64_t now_cycle = clock_cycle_at_or_after(&n->clk, n->k->now);
    wake(n, now_cycle, now_cycle);
}

static void deliver(void *obj, const msg_t *m)
{
    lu_node_t *n = obj;
    if (!n->alive) {
        (*n->rx_lost)++;
        cn_port_release(n->port, msg_class(m->opcode));
        return;
    }
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
    wake_now(n);
}

/* A place in the port's LU queue of class c came back: one more send credit for the LU. */
static void credit(void *obj, msg_class_t c)
{
    lu_node_t *n = obj;
    lu_drv_tx_credit(n->d, c);
    wake_now(n);
}

static void on_tx(void *ctx, const msg_t *m, uint64_t cycle)
{
    lu_node_t *n = ctx;
    (*n->tx_msgs)++;
    if (n->obs)
        n->obs(n->obs_obj, cycle, 1, m, 0);
    if (cn_port_credits(n->port, CN_PORT_LU, msg_class(m->opcode)) == 0)
        die(n, "the LU sent without a place in the port (the credits are out of step)");
    cn_port_send(n->port, CN_PORT_LU, m);
}

/* Up to LU_RX_LANES of the held messages, the oldest first, each with a credit of its class; a
 * class without one keeps its order by holding back its later messages. */
static void present(lu_node_t *n, uint64_t cycle)
{
    uint32_t blocked = 0;
    unsigned lanes = 0;
    for (size_t i = 0; i < n->qn && lanes < LU_RX_LANES;) {
        size_t at = (n->qhead + i) % n->qcap;
        msg_class_t c = msg_class(n->q[at].opcode);
        if (blocked >> c & 1u || lu_drv_credits(n->d, c) == 0) {
            blocked |= 1u << c;
            i++;
            continue;
        }
        msg_t m = n->q[at];
        for (size_t j = i; j + 1 < n->qn; j++)
            n->q[(n->qhead + j) % n->qcap] = n->q[(n->qhead + j + 1) % n->qcap];
        n->qn--;
        lu_drv_send_at(n->d, &m, cycle);
        cn_port_release(n->port, c);
        (*n->rx_msgs)++;
        lanes++;
        if (n->obs)
            n->obs(n->obs_obj, cycle, 0, &m, 0);
    }
}

static void edge_event(void *obj, uint64_t cycle)
{
    lu_node_t *n = obj;
    if (cycle != n->next_cycle || n->frozen)
        return; /* superseded by an earlier wake */
    n->next_cycle = UINT64_MAX;
    n->min_cycle = cycle + 1;
    *n->cycles_skipped += cycle - lu_drv_cycle(n->d);
    lu_drv_skip_to(n->d, cycle);
    if (n->alive)
        present(n, cycle);
    lu_drv_step(n->d);
    (*n->cycles_clocked)++;
    for (size_t nl = lu_drv_log_writes(n->d); n->nlog_seen < nl; n->nlog_seen++)
        if (n->obs)
            n->obs(n->obs_obj, cycle, 2, NULL, n->nlog_seen);
    if (!n->alive) {
        n->frozen = true; /* alive_i low reached the LU: it changes nothing from now on */
        return;
    }
    if (!n->p.skip_idle || n->qn) {
        wake(n, cycle + 1, cycle); /* (now is this edge's time) */
        return;
    }
    uint64_t next = lu_drv_next_cycle(n->d);
    if (next != UINT64_MAX)
        wake(n, next, cycle);
}

static void dump_tick(void *obj, uint64_t k)
{
    lu_node_t *n = obj;
    if (n->frozen || !n->alive)
        return;
    lu_node_dump_start(n);
    kernel_at(n->k, (k + 1) * n->p.dump_period_ps, dump_tick, n, k + 1);
}

__attribute__((format(printf, 2, 3))) static lu_node_t *fail(char *err, const char *fmt, ...)
{
    if (err) {
        int l = snprintf(err, LU_NODE_ERR_MAX, "lu_node: ");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + l, LU_NODE_ERR_MAX - (size_t)l, fmt, ap);
        va_end(ap);
    }
    return NULL;
}

lu_node_t *lu_node_create(kernel_t *k, cn_port_t *port, const lu_model_ops_t *ops, const lu_node_params_t *p,
                          stats_t *st, char *err)
{
    if (!k || !port || !ops || !p || !st)
        return fail(err, "needs a kernel, a port, a model, parameters and statistics");
    if (!p->name || !*p->name || strlen(p->name) >= 48)
        return fail(err, "needs a name (statistics prefix) of 1 to 47 characters");
    if (p->num_cn == 0 || p->num_cn > MSG_MAX_CN || p->cn >= p->num_cn)
        return fail(err, "CN %u of %u: out of range", p->cn, p->num_cn);
    if (p->mn >= MSG_MAX_MN)
        return fail(err, "MN %u: out of range", p->mn);
    if (p->freq_hz == 0 || p->dram_latency_ps == 0)
        return fail(err, "needs a clock and a DRAM latency");
    /* Only the linked model's buffer exists: the SRAM size is a Verilog parameter (Entries). */
    if (p->sram_bytes && p->sram_bytes != (uint64_t)ops->entries * 16)
        return fail(err, "lu.sram_bytes %llu: the linked logging_unit model (%s) has %u entries of 16 bytes (%u bytes)",
                    (unsigned long long)p->sram_bytes, ops->name, ops->entries, ops->entries * 16);
    uint64_t cap = p->dram_log_bytes / 16;
    if (cap == 0 || cap > UINT32_MAX)
        return fail(err, "lu.dram_log_bytes %llu: 1 to 2^32 - 1 records of 16 bytes",
                    (unsigned long long)p->dram_log_bytes);
    if (!(p->high_watermark > 0.0 && p->high_watermark <= 1.0))
        return fail(err, "lu.high_watermark %g: in (0, 1]", p->high_watermark);
    if (p->zlib_level < 0 || p->zlib_level > 9)
        return fail(err, "lu.zlib_level %d: 0 .. 9", p->zlib_level);

    lu_node_t *n = calloc(1, sizeof *n);
    if (!n)
        abort();
    n->k = k;
    n->port = port;
    n->p = *p;
    snprintf(n->name, sizeof n->name, "%s", p->name);
    n->p.name = n->name;
    n->clk = clock_domain("lu", p->freq_hz);
    n->next_cycle = UINT64_MAX;
    n->alive = true;

    char name[96];
#define CNT(field, suffix, doc)                                                 \
    do {                                                                        \
        snprintf(name, sizeof name, "%s.%s", n->name, suffix);                  \
        n->field = stats_counter(st, name, doc);                                \
        if (!n->field) {                                                        \
            if (err)                                                            \
                snprintf(err, LU_NODE_ERR_MAX, "lu_node: %s", stats_error(st)); \
            free(n);                                                            \
            return NULL;                                                        \
        }                                                                       \
    } while (0)
    CNT(cycles_clocked, "cycles_clocked", "LU cycles the Logging Unit was clocked");
    CNT(cycles_skipped, "cycles_skipped", "idle LU cycles the Logging Unit was not clocked");
    CNT(rx_msgs, "rx_msgs", "messages presented to the Logging Unit");
    CNT(tx_msgs, "tx_msgs", "messages the Logging Unit sent");
    CNT(rx_lost, "rx_lost", "messages that arrived after the Logging Unit failed (lost)");
    CNT(dump_starts, "dump_starts", "dumps started by the dump period (or by hand)");
#undef CNT

    lu_drv_cfg_t c = lu_drv_cfg_default();
    c.node_id = p->cn;
    c.addr_lim = p->addr_lim;
    c.log_cap = (uint32_t)cap;
    c.hwm = (uint32_t)(p->high_watermark * (double)cap);
    if (c.hwm == 0)
        c.hwm = 1;
    c.period_ps = clock_period_ps(&n->clk);
    c.mem_latency_ps = p->dram_latency_ps;
    c.mn_id = MSG_MN_BASE + p->mn;
    c.num_cn = p->num_cn;
    c.zlib_level = p->zlib_level;
    c.zpool = p->zpool;
    c.keep_log = !p->drop_log;
    snprintf(n->dram_name, sizeof n->dram_name, "%s.dram", n->name);
    lu_drv_sys_t sys = {.k = k, .st = st, .dram_name = n->dram_name, .wake = wake_now, .obj = n};
    n->d = lu_drv_create_sys(ops, &c, p->seed, on_tx, n, &sys);
    /* The LU's send credits: places in the port's LU queues, no more than its counters hold. */
    for (unsigned cl = 0; cl < MSG_NUM_CLASSES; cl++) {
        unsigned give = cn_port_credits(port, CN_PORT_LU, (msg_class_t)cl);
        if (give > ops->crd_per_cls)
            give = ops->crd_per_cls;
        for (unsigned i = 0; i < give; i++)
            lu_drv_tx_credit(n->d, (msg_class_t)cl);
    }
    cn_port_attach(port, CN_PORT_LU, deliver, credit, n);
    if (p->dump_period_ps) {
        uint64_t kk = k->now / p->dump_period_ps + 1;
        kernel_at(k, kk * p->dump_period_ps, dump_tick, n, kk);
    }
    /* The LU returns its receive credits after reset: it has work from its first edge. */
    wake_now(n);
    return n;
}

void lu_node_free(lu_node_t *n)
{
    if (!n)
        return;
    lu_drv_free(n->d);
    free(n->q);
    free(n);
}

void lu_node_set_alive(lu_node_t *n, bool alive)
{
    if (n->frozen || alive == n->alive)
        return;
    n->alive = alive;
    lu_drv_set_alive(n->d, alive);
    /* What waits for the LU is lost with it; the port's buffers go back (a dead CN's fabric port
     * ignores the release). */
    for (; n->qn; n->qn--, n->qhead = (n->qhead + 1) % n->qcap) {
        (*n->rx_lost)++;
        cn_port_release(n->port, msg_class(n->q[n->qhead].opcode));
    }
    wake_now(n); /* one edge carries alive_i low to the LU */
}

bool lu_node_alive(const lu_node_t *n) { return n->alive; }

void lu_node_dump_start(lu_node_t *n)
{
    if (!n->alive)
        return;
    (*n->dump_starts)++;
    lu_drv_dump_start(n->d);
    wake_now(n);
}

bool lu_node_idle(const lu_node_t *n)
{
    if (n->frozen)
        return true;
    return n->qn == 0 && lu_drv_next_cycle(n->d) == UINT64_MAX && lu_drv_idle(n->d);
}

const lu_drv_t *lu_node_drv(const lu_node_t *n) { return n->d; }

uint32_t lu_node_csr(lu_node_t *n, unsigned addr, bool *err) { return lu_drv_csr(n->d, addr, err); }

void lu_node_on_log(lu_node_t *n, void (*fn)(void *obj, const lu_rec_t *r), void *obj) { lu_drv_on_log(n->d, fn, obj); }

void lu_node_observe(lu_node_t *n, lu_observe_fn fn, void *obj)
{
    n->obs = fn;
    n->obs_obj = obj;
}

void lu_node_dump(const lu_node_t *n, FILE *f)
{
    const lu_out_t *o = lu_drv_out(n->d);
    fprintf(f, "LU of CN %u (%s) at %llu ps: %s, next edge cycle %llu, ", n->p.cn, n->name,
            (unsigned long long)n->k->now, n->frozen ? "failed" : "alive", (unsigned long long)lu_drv_cycle(n->d));
    if (n->next_cycle != UINT64_MAX)
        fprintf(f, "edge scheduled at cycle %llu", (unsigned long long)n->next_cycle);
    else
        fprintf(f, "asleep");
    fprintf(f, "; %llu cycles clocked, %llu skipped; idle_o %u, early_flush_o %u, %zu log records written\n",
            (unsigned long long)*n->cycles_clocked, (unsigned long long)*n->cycles_skipped, o->idle_o,
            o->early_flush_o, lu_drv_log_writes(n->d));
    fprintf(f, "  held for the LU: %zu; credits toward the LU:", n->qn);
    for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
        if (lu_drv_credits(n->d, (msg_class_t)c))
            fprintf(f, " %s %u", msg_class_name((msg_class_t)c), lu_drv_credits(n->d, (msg_class_t)c));
    fprintf(f, "\n");
    cn_port_dump(n->port, f);
}
