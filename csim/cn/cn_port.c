#include "cn/cn_port.h"

#include <stdlib.h>
#include <string.h>

/* A (user, class) send queue: a ring of depth places. */
typedef struct sendq {
    msg_t *v;
    unsigned head, n;
} sendq_t;

typedef struct user {
    cn_port_deliver_fn deliver;
    cn_port_credit_fn credit;
    void *obj;
    uint64_t *rx, *tx;
} user_t;

struct cn_port {
    fabric_t *f;
    unsigned port, depth;
    user_t u[CN_PORT_USERS];
    sendq_t q[CN_PORT_USERS][MSG_NUM_CLASSES];
    unsigned rr[MSG_NUM_CLASSES];   /* the user served next in a class, round-robin */
    uint8_t waiting[MSG_NUM_CLASSES]; /* bit u: q[u][c] is not empty */
    unsigned queued;
    bool draining; /* a user's credit callback may send: forward from the outer call only */
    uint64_t *rx_dropped, *tx_waits;
    cn_port_deliver_fn tap; /* sees every INTERRUPT and RECOV_END (cn_port_on_cores) */
    void *tap_obj;
};

_Static_assert(CN_PORT_USERS <= 8, "a class's waiting users are a byte's bits");

static const char *const user_names[CN_PORT_USERS] = {"mem", "lu", "repl", "sw"};

const char *cn_port_user_name(cn_port_user_e u) { return u < CN_PORT_USERS ? user_names[u] : "none"; }

static bool mem_class(msg_class_t c) { return c == CLS_REQ || c == CLS_RWD || c == CLS_BIRSP; }

bool cn_port_sends(cn_port_user_e u, msg_class_t c)
{
    switch (u) {
    case CN_PORT_MEM:
        return mem_class(c);
    case CN_PORT_LU:
        return c == CLS_DKRSP || c == CLS_MGREQ || c == CLS_MGRSP || c == CLS_DUMP;
    case CN_PORT_REPL:
        return c == CLS_DKREQ || c == CLS_DKRSP;
    case CN_PORT_SW:
        return c == CLS_MGREQ || c == CLS_MGRSP;
    default:
        return false;
    }
}

void cn_port_on_cores(cn_port_t *p, cn_port_deliver_fn fn, void *obj)
{
    p->tap = fn;
    p->tap_obj = obj;
}

cn_port_user_e cn_port_route(const msg_t *m)
{
    switch (msg_class(m->opcode)) {
    case CLS_NDR:
    case CLS_DRS:
    case CLS_BISNP:
        return CN_PORT_MEM;
    case CLS_DKREQ:
        return m->opcode == OP_REPL ? CN_PORT_LU : CN_PORT_USERS;
    case CLS_DKRSP:
        switch (m->opcode) {
        case OP_VAL:
        case OP_REPL_QUERY_RESP:
            return CN_PORT_LU;
        case OP_REPL_ACK:
        case OP_REPL_QUERY:
            return CN_PORT_REPL;
        default:
            return CN_PORT_USERS;
        }
    case CLS_MGREQ:
        switch (m->opcode) {
        case OP_EARLY_FLUSH:
        case OP_INTERRUPT:
        case OP_FETCH_LATEST_VERS:
        case OP_RECOV_END:
            return CN_PORT_LU;
        default:
            return CN_PORT_SW;
        }
    case CLS_MGRSP:
        return m->opcode == OP_DUMP_GO || m->opcode == OP_DUMP_DONE ? CN_PORT_LU : CN_PORT_SW;
    default:
        return CN_PORT_USERS; /* REQ, RWD, BIRSP, DUMP: no CN takes them */
    }
}

/* Forwards queued messages of class c while the fabric has credits, round-robin over the users
 * with one waiting. A user's credit callback runs after its message left, and may queue another:
 * the loop picks it up in its turn. */
static void drain(cn_port_t *p, msg_class_t c)
{
    if (p->draining)
        return;
    p->draining = true;
    for (;;) {
        if (fabric_node_failed(p->f, p->port) || fabric_credits(p->f, p->port, c) == 0)
            break;
        /* The first user with a message from rr on: bit j of rot is user (rr + j) mod the count. */
        const unsigned w = p->waiting[c], r = p->rr[c];
        if (!w)
            break;
        const unsigned rot = r ? (w >> r | w << (CN_PORT_USERS - r)) & ((1u << CN_PORT_USERS) - 1) : w;
        unsigned u = r + (unsigned)__builtin_ctz(rot);
        if (u >= CN_PORT_USERS)
            u -= CN_PORT_USERS;
        sendq_t *q = &p->q[u][c];
        msg_t m = q->v[q->head];
        q->head = q->head + 1 == p->depth ? 0 : q->head + 1;
        if (--q->n == 0)
            p->waiting[c] &= (uint8_t)~(1u << u);
        p->queued--;
        p->rr[c] = u + 1 == CN_PORT_USERS ? 0 : u + 1;
        fabric_send(p->f, p->port, &m);
        if (p->u[u].credit)
            p->u[u].credit(p->u[u].obj, c);
    }
    p->draining = false;
}

static void port_deliver(void *obj, unsigned port, const msg_t *m)
{
    (void)port;
    cn_port_t *p = obj;
    cn_port_user_e u = cn_port_route(m);
    const bool cores = m->opcode == OP_INTERRUPT || m->opcode == OP_RECOV_END;
    if (cores && p->tap)
        p->tap(p->tap_obj, m);
    if (cores && p->tap && !p->u[u].deliver) {
        fabric_release(p->f, p->port, msg_class(m->opcode)); /* no LU: the cores were its users */
        return;
    }
    if (u == CN_PORT_USERS || !p->u[u].deliver) {
        (*p->rx_dropped)++;
        fabric_release(p->f, p->port, msg_class(m->opcode));
        return;
    }
    (*p->u[u].rx)++;
    p->u[u].deliver(p->u[u].obj, m);
}

static void port_credit(void *obj, unsigned port, msg_class_t c)
{
    (void)port;
    cn_port_t *p = obj;
    if (mem_class(c)) {
        if (p->u[CN_PORT_MEM].credit)
            p->u[CN_PORT_MEM].credit(p->u[CN_PORT_MEM].obj, c);
        return;
    }
    drain(p, c);
}

cn_port_t *cn_port_create(fabric_t *f, unsigned port, unsigned depth, const char *name, stats_t *st)
{
    if (!f || !name || !st || depth == 0 || port >= fabric_num_ports(f))
        return NULL;
    cn_port_t *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->f = f;
    p->port = port;
    p->depth = depth;
    for (unsigned u = 0; u < CN_PORT_USERS; u++)
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            if (cn_port_sends((cn_port_user_e)u, (msg_class_t)c) && u != CN_PORT_MEM) {
                p->q[u][c].v = calloc(depth, sizeof(msg_t));
                if (!p->q[u][c].v)
                    abort();
            }
    char n[96];
    for (unsigned u = 0; u < CN_PORT_USERS; u++) {
        snprintf(n, sizeof n, "%s.rx_%s", name, user_names[u]);
        p->u[u].rx = stats_counter(st, n, "messages delivered to this user of the CN's port");
        snprintf(n, sizeof n, "%s.tx_%s", name, user_names[u]);
        p->u[u].tx = stats_counter(st, n, "messages this user of the CN's port sent");
        if (!p->u[u].rx || !p->u[u].tx)
            goto fail;
    }
    snprintf(n, sizeof n, "%s.rx_dropped", name);
    p->rx_dropped = stats_counter(st, n, "messages for no user of the CN's port (released at once)");
    snprintf(n, sizeof n, "%s.tx_waits", name);
    p->tx_waits = stats_counter(st, n, "messages that waited in the port for a fabric credit");
    if (!p->rx_dropped || !p->tx_waits)
        goto fail;
    fabric_attach(f, port, port_deliver, port_credit, p);
    return p;
fail:
    cn_port_free(p);
    return NULL;
}

void cn_port_free(cn_port_t *p)
{
    if (!p)
        return;
    for (unsigned u = 0; u < CN_PORT_USERS; u++)
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            free(p->q[u][c].v);
    free(p);
}

void cn_port_attach(cn_port_t *p, cn_port_user_e u, cn_port_deliver_fn deliver, cn_port_credit_fn credit, void *obj)
{
    p->u[u].deliver = deliver;
    p->u[u].credit = credit;
    p->u[u].obj = obj;
}

unsigned cn_port_credits(const cn_port_t *p, cn_port_user_e u, msg_class_t c)
{
    if (!cn_port_sends(u, c))
        return 0;
    if (u == CN_PORT_MEM)
        return fabric_credits(p->f, p->port, c);
    return p->depth - p->q[u][c].n;
}

void cn_port_send(cn_port_t *p, cn_port_user_e u, const msg_t *m)
{
    msg_class_t c = msg_class(m->opcode);
    if (!cn_port_sends(u, c)) {
        fprintf(stderr, "cn_port %u: the %s user sends %s, a class not its own\n", p->port, cn_port_user_name(u),
                msg_name(m->opcode) ? msg_name(m->opcode) : "?");
        abort();
    }
    (*p->u[u].tx)++;
    if (u == CN_PORT_MEM) {
        fabric_send(p->f, p->port, m);
        return;
    }
    sendq_t *q = &p->q[u][c];
    if (q->n == p->depth) {
        fprintf(stderr, "cn_port %u: the %s user sends %s without a credit\n", p->port, cn_port_user_name(u),
                msg_name(m->opcode));
        abort();
    }
    q->v[(q->head + q->n++) % p->depth] = *m;
    p->waiting[c] |= (uint8_t)(1u << u);
    p->queued++;
    if (fabric_credits(p->f, p->port, c) == 0 || p->draining)
        (*p->tx_waits)++;
    drain(p, c);
}

void cn_port_release(cn_port_t *p, msg_class_t c) { fabric_release(p->f, p->port, c); }

static unsigned mem_credits(void *obj, msg_class_t c) { return cn_port_credits(obj, CN_PORT_MEM, c); }
static void mem_send(void *obj, const msg_t *m) { cn_port_send(obj, CN_PORT_MEM, m); }
static void mem_release(void *obj, msg_class_t c) { cn_port_release(obj, c); }

cn_link_t cn_port_mem_link(cn_port_t *p) { return (cn_link_t){p, mem_credits, mem_send, mem_release}; }

unsigned cn_port_queued(const cn_port_t *p) { return p->queued; }

void cn_port_dump(const cn_port_t *p, FILE *f)
{
    fprintf(f, "  port %u: %u messages queued, %llu dropped on arrival\n", p->port, p->queued,
            (unsigned long long)*p->rx_dropped);
    for (unsigned u = 0; u < CN_PORT_USERS; u++)
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            if (p->q[u][c].n)
                fprintf(f, "    %s %s: %u waiting (fabric credits %u)\n", user_names[u],
                        msg_class_name((msg_class_t)c), p->q[u][c].n, fabric_credits(p->f, p->port, (msg_class_t)c));
}
