/* The replication engine of one compute node (see cn_repl.h). */
#include "cn/cn_repl.h"

#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cn/lu_map.h"

#define TAGS_PER_CORE 1024u /* > the largest store queue (core.sq_size <= 1024) + 1: never exhausted */
#define MAX_NR MSG_MAX_CN
#define QCAP 64u            /* first capacity of a class's send queue (it grows) */

_Static_assert(TAGS_PER_CORE <= (1u << MSG_TAG_W), "a tag must fit the message's tag field");

typedef struct ent {
    bool busy, acked;
    bool head; /* its store is its core's store-buffer head (rif_head), or it was sent there */
    uint8_t words; /* words of its REPL set */
    uint8_t mask;  /* its REPL (kept to send it again to a replacement replica) */
    uint64_t w[MSG_WORDS_PER_LINE];
    unsigned acks, nrep;
    uint32_t acked_by; /* the replicas whose REPL_ACK came */
    bool valed;        /* committed: its VALs are on their way out of the CN */
    uint8_t vals_unsent; /* VALs not yet forwarded to the fabric by the port */
    uint32_t val_out;  /* the replicas whose VAL left */
    uint32_t late;     /* replicas whose REPL went out after the entry was acknowledged (each replaces
                          a failed one): their VAL waits for their REPL_ACK (it must not overtake
                          the REPL, on another class), and the store's commit does not */
    uint8_t ts;        /* the VALs' TS (for a late replica's VAL) */
    uint32_t early_to; /* the replicas whose share of early sets counts it (until its VAL leaves) */
    uint32_t held;     /* replacements of failed replicas whose REPL waits for the head: the CN's share
                          of their buffer was in use (cn_repl_lost) */
    uint8_t rep[MAX_NR];
    uint64_t gline;
    repl_acked_fn fn;
    void *obj;
    uint64_t utag;
    uint64_t t_sent;
} ent_t;

typedef struct mq {
    msg_t *v;
    size_t head, n, cap;
} mq_t;

struct cn_repl {
    kernel_t *k;
    cn_port_t *port;
    cn_repl_params_t p;
    char name[64];
    ent_t *ent;          /* cores x TAGS_PER_CORE */
    unsigned *next_tag;  /* per core */
    unsigned outstanding;
    mq_t q[MSG_NUM_CLASSES];
    mq_t inport;         /* the DKRSP messages (VALs, answers) handed to the port and not yet forwarded,
                            oldest first */
    bool flushing;
    unsigned *early_sets, *early_words; /* per LU: this CN's early REPL sets (and their words) not yet validated */
    repl_if_t rif;
    uint64_t *repl_msgs, *repl_bytes, *repl_acks, *val_msgs, *val_bytes, *refused, *queries, *queries_pending;
    uint64_t *held; /* REPLs to replacements held for the head */
    uint64_t *early_sets_max, *early_words_max; /* the most of early_sets / early_words toward one LU */
    stats_hist_t *rtt;
};

/* An early set of `words` words toward LU `lu` goes out (+1) or is validated or lost (-1). */
static void early_count(cn_repl_t *r, unsigned lu, unsigned words, int dir)
{
    r->early_sets[lu] += (unsigned)dir;
    r->early_words[lu] += (unsigned)dir * words;
    if (*r->early_sets_max < r->early_sets[lu])
        *r->early_sets_max = r->early_sets[lu];
    if (*r->early_words_max < r->early_words[lu])
        *r->early_words_max = r->early_words[lu];
}

static msg_t mq_pop(mq_t *q)
{
    msg_t m = q->v[q->head];
    q->head = (q->head + 1) % q->cap;
    q->n--;
    return m;
}

static void mq_push(mq_t *q, const msg_t *m)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : QCAP;
        msg_t *v = malloc(cap * sizeof *v);
        if (!v)
            abort();
        for (size_t i = 0; i < q->n; i++)
            v[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = v, q->cap = cap, q->head = 0;
    }
    q->v[(q->head + q->n++) % q->cap] = *m;
}

/* Sends what the port takes, oldest first per class. The port's credit callback may run inside
 * cn_port_send (the message left at once): the outer call goes on, the inner one returns. */
static void flush(cn_repl_t *r)
{
    if (r->flushing)
        return;
    r->flushing = true;
    for (unsigned c = 0; c < MSG_NUM_CLASSES; c++) {
        mq_t *q = &r->q[c];
        while (q->n && cn_port_credits(r->port, CN_PORT_REPL, (msg_class_t)c)) {
            msg_t m = mq_pop(q);
            if (c == CLS_DKRSP)
                mq_push(&r->inport, &m); /* before the send: the port may forward it, and say so, from inside */
            cn_port_send(r->port, CN_PORT_REPL, &m);
        }
    }
    r->flushing = false;
}

static void send(cn_repl_t *r, const msg_t *m)
{
    mq_push(&r->q[msg_class(m->opcode)], m);
    flush(r);
}

/* The port forwarded one of this engine's messages of class c to the fabric. A VAL's entry is done
 * once all its VALs left: only then is its commit durable (docs/architecture.md 11g). (The other
 * DKRSP messages, answers to REPL_QUERYs, leave the same queue in order: nothing to do for them.) */
static void on_credit(void *obj, msg_class_t c)
{
    cn_repl_t *r = obj;
    if (c == CLS_DKRSP && r->inport.n && r->inport.v[r->inport.head].opcode != OP_VAL)
        (void)mq_pop(&r->inport);
    else if (c == CLS_DKRSP && r->inport.n) {
        msg_t m = mq_pop(&r->inport);
        ent_t *e = &r->ent[m.core * TAGS_PER_CORE + m.tag];
        assert(e->busy && e->valed && e->vals_unsent);
        e->val_out |= 1u << m.dst;
        if (--e->vals_unsent == 0) {
            e->busy = false;
            r->outstanding--;
        }
    }
    flush(r);
}

/* LU q->src asks whether the store of our REPL (core, tag, line) has committed (it holds the REPL
 * unvalidated, a validated word waits behind it and a REPL waits for room: docs/architecture.md
 * section 11b). Answered at once: PENDING when the entry is outstanding and has not committed (its
 * VALs not sent). The answer leaves in the DKRSP queue behind any VAL already in it; an LU has one
 * query outstanding, so answers need one place per LU. A store that commits later takes a version
 * above every update that LU had validated when it asked (those committed before their VALs reached
 * it, before the query left). */
static void answer_query(cn_repl_t *r, const msg_t *q)
{
    bool pending = false;
    if (q->core < r->p.cores && q->tag < TAGS_PER_CORE) {
        const ent_t *e = &r->ent[q->core * TAGS_PER_CORE + q->tag];
        pending = e->busy && !e->valed && e->gline == q->addr;
    }
    msg_t a = {.opcode = OP_REPL_QUERY_RESP, .src = (uint8_t)r->p.cn, .dst = q->src, .core = q->core,
               .tag = q->tag, .addr = q->addr, .flags = pending ? (uint8_t)MSG_FLAG_PENDING : 0};
    (*r->queries)++;
    *r->queries_pending += pending;
    send(r, &a);
}

/* The VAL of entry h (committed: e->ts) to replica dst. */
static void send_val(cn_repl_t *r, uint32_t h, unsigned dst)
{
    ent_t *e = &r->ent[h];
    msg_t m = {.opcode = OP_VAL, .src = (uint8_t)r->p.cn, .dst = (uint8_t)dst, .core = (uint8_t)(h / TAGS_PER_CORE),
               .tag = (uint16_t)(h % TAGS_PER_CORE), .addr = e->gline, .ts = e->ts};
    if (e->early_to >> dst & 1u) {
        e->early_to &= ~(1u << dst);
        early_count(r, dst, e->words, -1);
    }
    (*r->val_msgs)++;
    *r->val_bytes += msg_bytes(&m);
    send(r, &m);
}

static void on_deliver(void *obj, const msg_t *m)
{
    cn_repl_t *r = obj;
    cn_port_release(r->port, msg_class(m->opcode));
    if (m->opcode == OP_REPL_QUERY) {
        answer_query(r, m);
        return;
    }
    /* The port routes only REPL_ACKs and REPL_QUERYs of DKRSP here (cn_port_route). */
    assert(m->opcode == OP_REPL_ACK);
    if (m->core >= r->p.cores || m->tag >= TAGS_PER_CORE)
        abort(); /* no REPL of ours had that core or tag: the LU broke the protocol */
    ent_t *e = &r->ent[m->core * TAGS_PER_CORE + m->tag];
    bool replica = false;
    for (unsigned i = 0; i < e->nrep; i++)
        replica = replica || e->rep[i] == m->src;
    if (e->busy && !replica)
        return; /* a replica that failed and was replaced answered before it failed */
    if (e->busy && (e->late >> m->src & 1u) && e->gline == m->addr) {
        /* a late replica: the store may have committed already, its VAL waited for this */
        (*r->repl_acks)++;
        e->acked_by |= 1u << m->src;
        e->late &= ~(1u << m->src);
        if (e->valed)
            send_val(r, m->core * TAGS_PER_CORE + m->tag, m->src);
        return;
    }
    if (!e->busy || e->acked || e->gline != m->addr || (e->acked_by >> m->src & 1u))
        abort(); /* an acknowledgement of nothing outstanding */
    (*r->repl_acks)++;
    e->acked_by |= 1u << m->src;
    if (++e->acks < e->nrep)
        return;
    e->acked = true;
    stats_hist_add(r->rtt, (r->k->now - e->t_sent) / PS_PER_NS);
    (void)e->fn(e->obj, e->utag, true);
}

static int reg(cn_repl_t *r, stats_t *st, uint64_t **dst, const char *leaf, const char *doc, char *err)
{
    char name[160];
    snprintf(name, sizeof name, "%s.%s", r->p.name, leaf);
    *dst = stats_counter(st, name, doc);
    if (!*dst) {
        snprintf(err, CN_REPL_ERR_MAX, "%s: statistics: %s", r->p.name, stats_error(st));
        return -1;
    }
    return 0;
}

static uint32_t rif_send(void *obj, unsigned core, uint64_t gline, uint8_t mask, const uint64_t *words, bool early,
                         repl_acked_fn acked, void *aobj, uint64_t tag);
static void rif_val(void *obj, uint32_t h, unsigned version);
static void rif_head(void *obj, uint32_t h);

cn_repl_t *cn_repl_create(kernel_t *k, cn_port_t *port, const cn_repl_params_t *p, stats_t *st, char *err)
{
    if (p->num_cn < 1 || p->cn >= p->num_cn || p->nr < 1 || p->nr > p->num_cn || p->nr > MAX_NR || !p->map ||
        p->map->num_cn != p->num_cn || p->cores < 1 || p->cores > (1u << MSG_CORE_ID_W)) {
        snprintf(err, CN_REPL_ERR_MAX,
                 "cn_repl: impossible parameters (CN %u of %u, %u cores, Nr %u, %s replica map): Nr must be "
                 "1 .. num_cn, cores 1 .. %u, the map of num_cn CNs",
                 p->cn, p->num_cn, p->cores, p->nr, p->map ? "a" : "no", 1u << MSG_CORE_ID_W);
        return NULL;
    }
    cn_repl_t *r = calloc(1, sizeof *r);
    r->k = k;
    r->port = port;
    r->p = *p;
    snprintf(r->name, sizeof r->name, "%s", p->name);
    r->p.name = r->name;
    r->ent = calloc((size_t)p->cores * TAGS_PER_CORE, sizeof *r->ent);
    r->next_tag = calloc(p->cores, sizeof *r->next_tag);
    r->early_sets = calloc(p->num_cn, sizeof *r->early_sets);
    r->early_words = calloc(p->num_cn, sizeof *r->early_words);
    if (!r->ent || !r->next_tag || !r->early_sets || !r->early_words || reg(r, st, &r->repl_msgs, "repl_msgs", "REPL messages sent", err) ||
        reg(r, st, &r->repl_bytes, "repl_bytes", "bytes of the REPLs on the link", err) ||
        reg(r, st, &r->repl_acks, "repl_acks", "REPL_ACKs received", err) ||
        reg(r, st, &r->val_msgs, "val_msgs", "VAL messages sent", err) ||
        reg(r, st, &r->val_bytes, "val_bytes", "bytes of the VALs on the link", err) ||
        reg(r, st, &r->refused, "early_refused", "early REPL sets refused (the CN's share of a replica in use)",
            err) ||
        reg(r, st, &r->early_sets_max, "early_sets_max",
            "the most early REPL sets this CN had not yet validated toward one replica at a time", err) ||
        reg(r, st, &r->early_words_max, "early_words_max", "the words of those sets, at most at a time", err) ||
        reg(r, st, &r->queries, "queries", "REPL_QUERYs of LUs answered (has a REPL's store committed?)", err) ||
        reg(r, st, &r->queries_pending, "queries_pending",
            "of those, answered PENDING (not committed: the LU's validated words need not wait for it)", err) ||
        reg(r, st, &r->held, "held_for_head",
            "REPLs to a failed replica's replacement held until their store reached its head (the CN's share of "
            "early sets in that replica in use)", err)) {
        cn_repl_free(r);
        return NULL;
    }
    char name[160];
    snprintf(name, sizeof name, "%s.repl_rtt_ns", p->name);
    r->rtt = stats_hist(st, name, "first REPL sent to last REPL_ACK in (ns)", (stats_buckets_t){.kind = STATS_LOG2});
    if (!r->rtt) {
        snprintf(err, CN_REPL_ERR_MAX, "%s: statistics: %s", p->name, stats_error(st));
        cn_repl_free(r);
        return NULL;
    }
    r->rif = (repl_if_t){.obj = r, .send = rif_send, .val = rif_val, .head = rif_head};
    cn_port_attach(port, CN_PORT_REPL, on_deliver, on_credit, r);
    return r;
}

void cn_repl_free(cn_repl_t *r)
{
    if (!r)
        return;
    for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
        free(r->q[c].v);
    free(r->inport.v);
    free(r->ent);
    free(r->next_tag);
    free(r->early_sets);
    free(r->early_words);
    free(r);
}

unsigned cn_repl_replicas(const cn_repl_t *r, uint64_t gline, unsigned *out)
{
    return lu_map_replicas(r->p.map, gline, r->p.nr, out);
}

uint32_t cn_repl_send(cn_repl_t *r, unsigned core, uint64_t gline, uint8_t mask, const uint64_t *words, bool early,
                      repl_acked_fn acked, void *obj, uint64_t tag)
{
    assert(core < r->p.cores && mask);
    unsigned rep[MAX_NR], nrep = cn_repl_replicas(r, gline, rep);
    unsigned nw = (unsigned)__builtin_popcount(mask);
    if (early)
        for (unsigned i = 0; i < nrep; i++)
            if (r->early_sets[rep[i]] + 1 > r->p.early_sets || r->early_words[rep[i]] + nw > r->p.early_words) {
                (*r->refused)++;
                return REPL_REFUSED;
            }
    unsigned t = r->next_tag[core];
    ent_t *e = NULL;
    for (unsigned i = 0; i < TAGS_PER_CORE; i++, t = (t + 1) % TAGS_PER_CORE)
        if (!r->ent[core * TAGS_PER_CORE + t].busy) {
            e = &r->ent[core * TAGS_PER_CORE + t];
            break;
        }
    if (!e)
        abort(); /* more entries outstanding than any store queue holds */
    r->next_tag[core] = (t + 1) % TAGS_PER_CORE;
    *e = (ent_t){.busy = true, .head = !early, .words = (uint8_t)nw, .mask = mask, .gline = gline, .fn = acked,
                 .obj = obj, .utag = tag, .t_sent = r->k->now};
    e->nrep = nrep;
    msg_t m = {.opcode = OP_REPL, .src = (uint8_t)r->p.cn, .core = (uint8_t)core, .tag = (uint16_t)t,
               .addr = gline, .mask = mask};
    for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
        if (mask >> w & 1u)
            m.data[w] = e->w[w] = words[w];
    for (unsigned i = 0; i < e->nrep; i++) {
        e->rep[i] = (uint8_t)rep[i];
        if (early) {
            e->early_to |= 1u << rep[i];
            early_count(r, rep[i], nw, +1);
        }
        m.dst = (uint8_t)rep[i];
        (*r->repl_msgs)++;
        *r->repl_bytes += msg_bytes(&m);
        send(r, &m);
    }
    r->outstanding++;
    return core * TAGS_PER_CORE + t;
}

void cn_repl_val(cn_repl_t *r, uint32_t h, unsigned version)
{
    assert(h < r->p.cores * TAGS_PER_CORE);
    ent_t *e = &r->ent[h];
    assert(e->busy && e->acked);
    e->ts = (uint8_t)(version & ((1u << MSG_TS_W) - 1));
    e->valed = true;
    e->vals_unsent = (uint8_t)e->nrep; /* a late replica's too: the entry lives until it is sent */
    if (!e->nrep) {
        e->busy = false;
        r->outstanding--;
        return;
    }
    for (unsigned i = 0; i < e->nrep; i++)
        if (!(e->late >> e->rep[i] & 1u))
            send_val(r, h, e->rep[i]);
}

/* The member the set of entry h's line gained in place of the failed replica f (none: MAX_NR, when
 * fewer CNs than Nr are left). */
static unsigned newcomer(cn_repl_t *r, const ent_t *e, unsigned f)
{
    unsigned rep[MAX_NR], n = cn_repl_replicas(r, e->gline, rep);
    for (unsigned i = 0; i < n; i++) {
        bool in = false;
        for (unsigned j = 0; j < e->nrep; j++)
            in = in || e->rep[j] == rep[i];
        if (!in && rep[i] != f)
            return rep[i];
    }
    return MAX_NR;
}

/* Entry h's REPL set to replica `to`. */
static void send_repl(cn_repl_t *r, uint32_t h, unsigned to)
{
    ent_t *e = &r->ent[h];
    msg_t m = {.opcode = OP_REPL, .src = (uint8_t)r->p.cn, .dst = (uint8_t)to, .core = (uint8_t)(h / TAGS_PER_CORE),
               .tag = (uint16_t)(h % TAGS_PER_CORE), .addr = e->gline, .mask = e->mask};
    for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
        if (e->mask >> w & 1u)
            m.data[w] = e->w[w];
    (*r->repl_msgs)++;
    *r->repl_bytes += msg_bytes(&m);
    send(r, &m);
}

/* Entry h gains replica add in place of a failed one. Still early (its store not at the head, not
 * committed), its REPL is an early set toward add and counts in this CN's share of add's buffer;
 * with the share in use it is held until the store reaches its head (rif_head), where sets are
 * never refused: a failed replica's early sets, all moved onto its replacement at once, would
 * otherwise fill that buffer with early sets beyond the shares and keep the heads out for good. */
static void send_repl_to(cn_repl_t *r, uint32_t h, unsigned add)
{
    ent_t *e = &r->ent[h];
    e->rep[e->nrep++] = (uint8_t)add;
    if (!e->head && !e->valed) {
        if (r->early_sets[add] + 1 > r->p.early_sets || r->early_words[add] + e->words > r->p.early_words) {
            e->held |= 1u << add;
            (*r->held)++;
            return;
        }
        e->early_to |= 1u << add;
        early_count(r, add, e->words, +1);
    }
    send_repl(r, h, add);
}

/* Entry h's store is its core's store-buffer head: the REPLs held for it leave (a head set). */
static void rif_head(void *obj, uint32_t h)
{
    cn_repl_t *r = obj;
    assert(h < r->p.cores * TAGS_PER_CORE);
    ent_t *e = &r->ent[h];
    assert(e->busy && !e->valed);
    e->head = true;
    for (unsigned i = 0; i < e->nrep; i++)
        if (e->held >> e->rep[i] & 1u)
            send_repl(r, h, e->rep[i]);
    e->held = 0;
}

void cn_repl_unsent(const cn_repl_t *r, void (*fn)(void *obj, unsigned core, uint64_t gline, uint8_t mask),
                    void *obj)
{
    for (unsigned h = 0; h < r->p.cores * TAGS_PER_CORE; h++) {
        const ent_t *e = &r->ent[h];
        if (e->busy && e->valed && !(e->val_out & ~(1u << r->p.cn)))
            fn(obj, h / TAGS_PER_CORE, e->gline, e->mask);
    }
}

/* Every entry with f among its replicas gets the member its line's set gained instead (f's REPL_ACK,
 * if it came, no longer counts): a store keeps its Nr copies. An entry still waiting for
 * acknowledgements waits for the newcomer's too. One acknowledged already is taken back from its
 * core (the store waits for the newcomer's REPL_ACK before it commits); if the core has let it go
 * already, or it committed and its VAL to f is what was left (f a newcomer itself), the newcomer's
 * VAL waits for its REPL_ACK instead: a VAL must not overtake its REPL (another class), and a store
 * that commits before its REPL reaches the newcomer could be drained there behind a younger one
 * (the LU takes a REPL that comes after a VAL of its line as younger). Committed entries whose VALs
 * left (the one to f lost) are left alone: their copies in the live replicas are made durable by the
 * LUs' dump that ends the recovery (docs/architecture.md 11g). */
void cn_repl_lost(cn_repl_t *r, unsigned f)
{
    for (unsigned h = 0; h < r->p.cores * TAGS_PER_CORE; h++) {
        ent_t *e = &r->ent[h];
        unsigned k = 0;
        while (e->busy && k < e->nrep && e->rep[k] != f)
            k++;
        if (!e->busy || k == e->nrep)
            continue;
        const bool late = e->late >> f & 1u;
        if (e->valed && !late)
            continue;
        if (e->early_to >> f & 1u) {
            e->early_to &= ~(1u << f);
            early_count(r, f, e->words, -1);
        }
        e->held &= ~(1u << f);
        const bool had = (e->acked_by >> f & 1u) && !late;
        memmove(&e->rep[k], &e->rep[k + 1], e->nrep - k - 1);
        e->nrep--;
        e->late &= ~(1u << f);
        e->acked_by &= ~(1u << f);
        if (had && !e->acked)
            e->acks--;
        const unsigned add = newcomer(r, e, f);
        if (e->valed) { /* f was late: its VAL never left */
            if (add != MAX_NR) {
                send_repl_to(r, h, add);
                e->late |= 1u << add;
            } else if (--e->vals_unsent == 0) {
                e->busy = false;
                r->outstanding--;
            }
            continue;
        }
        if (add == MAX_NR) {
            if (!e->acked && e->acks == e->nrep) {
                e->acked = true;
                stats_hist_add(r->rtt, (r->k->now - e->t_sent) / PS_PER_NS);
                (void)e->fn(e->obj, e->utag, true);
            }
            continue;
        }
        if (e->acked) {
            if (e->fn(e->obj, e->utag, false)) { /* the store waits again */
                e->acked = false;
                e->acks = e->nrep;
                for (unsigned i = 0; i < e->nrep; i++)
                    e->acks -= (e->late >> e->rep[i] & 1u);
            } else {
                e->late |= 1u << add;
            }
        }
        send_repl_to(r, h, add);
    }
}

static uint32_t rif_send(void *obj, unsigned core, uint64_t gline, uint8_t mask, const uint64_t *words, bool early,
                         repl_acked_fn acked, void *aobj, uint64_t tag)
{
    return cn_repl_send(obj, core, gline, mask, words, early, acked, aobj, tag);
}

static void rif_val(void *obj, uint32_t h, unsigned version) { cn_repl_val(obj, h, version); }

const repl_if_t *cn_repl_if(cn_repl_t *r) { return &r->rif; }

bool cn_repl_idle(const cn_repl_t *r)
{
    if (r->outstanding)
        return false;
    for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
        if (r->q[c].n)
            return false;
    return true;
}

void cn_repl_dump(const cn_repl_t *r, FILE *f)
{
    fprintf(f, "%s: %u entries outstanding, queued REPL %zu, VAL %zu\n", r->p.name, r->outstanding,
            r->q[CLS_DKREQ].n, r->q[CLS_DKRSP].n);
    for (unsigned h = 0; h < r->p.cores * TAGS_PER_CORE; h++) {
        const ent_t *e = &r->ent[h];
        if (e->busy) {
            fprintf(f, "  core %u tag %u line 0x%" PRIx64 ": %u of %u REPL_ACKs (replicas", h / TAGS_PER_CORE,
                    h % TAGS_PER_CORE, e->gline, e->acks, e->nrep);
            for (unsigned i = 0; i < e->nrep; i++)
                fprintf(f, " %u%s", e->rep[i],
                        e->acked_by >> e->rep[i] & 1u ? "+" : e->held >> e->rep[i] & 1u ? " (held for the head)" : "");
            fprintf(f, ")%s%s\n", e->late ? " (late replicas waiting for their REPL_ACK)" : "",
                    e->valed ? ", committed, its VALs leaving" : e->acked ? ", waiting for its commit" : "");
        }
    }
}
