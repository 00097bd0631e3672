#include "gen/dir_scn.h"

#include <stdio.h>
#include <string.h>

typedef struct run {
    dir_drv_t *d;
    dir_scn_t *s;
    bool used[DIR_SCN_MAX_MSGS]; /* directory messages the scenario has already waited for */
    uint64_t link_free;          /* the first cycle no message sent so far is presented at */
} run_t;

static void add(dir_scn_t *s, bool to_dir, uint64_t cycle, const msg_t *m)
{
    if (s->nmsg < DIR_SCN_MAX_MSGS)
        s->msg[s->nmsg++] = (dir_scn_msg_t){.to_dir = to_dir, .cycle = cycle, .m = *m};
}

static void on_tx(void *ctx, const msg_t *m, uint64_t cycle)
{
    run_t *r = ctx;
    add(r->s, false, cycle, m);
}

/* A CN sends m now: it is presented next cycle, or after the messages sent before it (the link
 * presents one per cycle, in the order of their cycles), at the cycle recorded. */
static int send(run_t *r, msg_op_t op, unsigned src, unsigned tag)
{
    msg_t m = {.opcode = op, .src = (uint8_t)src, .dst = (uint8_t)MSG_MN_BASE, .tag = (uint16_t)tag,
               .addr = DIR_SCN_LINE};
    for (int i = 0; i < 100 && dir_drv_credits(r->d, msg_class(op)) == 0; i++)
        dir_drv_step(r->d);
    if (dir_drv_credits(r->d, msg_class(op)) == 0) {
        snprintf(r->s->err, sizeof r->s->err, "CN %u has no %s credit to send %s", src,
                 msg_class_name(msg_class(op)), msg_name(op));
        return -1;
    }
    uint64_t now = dir_drv_cycle(r->d), at = now + 1 > r->link_free ? now + 1 : r->link_free;
    r->link_free = at + 1;
    add(r->s, true, at, &m);
    dir_drv_send(r->d, &m, at - now);
    return 0;
}

/* Index of a directory message op to dst not waited for yet, or -1. */
static int find(run_t *r, msg_op_t op, unsigned dst)
{
    for (size_t i = 0; i < r->s->nmsg; i++) {
        const dir_scn_msg_t *x = &r->s->msg[i];
        if (!x->to_dir && !r->used[i] && x->m.opcode == op && x->m.dst == dst)
            return (int)i;
    }
    return -1;
}

/* Steps until the directory sends op to dst; the message, or NULL with s->err set. */
static const msg_t *wait_for(run_t *r, msg_op_t op, unsigned dst)
{
    for (int i = 0; i < 2000; i++) {
        int k = find(r, op, dst);
        if (k >= 0) {
            r->used[k] = true;
            return &r->s->msg[k].m;
        }
        dir_drv_step(r->d);
    }
    snprintf(r->s->err, sizeof r->s->err, "no %s to CN %u after 2000 cycles (cycle %llu)", msg_name(op), dst,
             (unsigned long long)dir_drv_cycle(r->d));
    return NULL;
}

static int settle(run_t *r)
{
    for (int i = 0; i < 2000 && !dir_drv_idle(r->d); i++)
        dir_drv_step(r->d);
    if (!dir_drv_idle(r->d)) {
        snprintf(r->s->err, sizeof r->s->err, "the directory is not idle after 2000 cycles");
        return -1;
    }
    return 0;
}

static int scenario(run_t *r)
{
    dir_scn_t *s = r->s;
    const msg_t *m;
    for (int i = 0; i < 20; i++)
        dir_drv_step(r->d); /* credits granted */

    /* Three readers: CN 1 alone (granted E), CN 2 (CN 1 snooped with BISNP_DATA, keeps S), CN 3. */
    if (send(r, OP_RD_SHARED, 1, 0x11) || !wait_for(r, OP_DATA_E, 1))
        return -1;
    if (send(r, OP_RD_SHARED, 2, 0x12) || !(m = wait_for(r, OP_BISNP_DATA, 1)) ||
        send(r, OP_BIRSP_S, 1, m->tag) || !wait_for(r, OP_DATA_S, 2))
        return -1;
    if (send(r, OP_RD_SHARED, 3, 0x13) || !wait_for(r, OP_DATA_S, 3) || settle(r))
        return -1;
    for (int i = 0; i < 4; i++)
        dir_drv_step(r->d);

    /* CN 4 reads for ownership; each sharer answers its BISNP_INV after its own delay. */
    static const unsigned lat[DIR_SCN_SHARERS] = DIR_SCN_ANSWER_CYCLES;
    uint64_t snooped[DIR_SCN_SHARERS] = {0};
    unsigned tag[DIR_SCN_SHARERS] = {0};
    bool seen[DIR_SCN_SHARERS] = {false}, answered[DIR_SCN_SHARERS] = {false};
    if (send(r, OP_RD_OWN, DIR_SCN_OWNER, 0x14))
        return -1;
    s->from_cycle = s->msg[s->nmsg - 1].cycle - 2;
    int done = -1;
    for (int i = 0; i < 2000 && done < 0; i++) {
        for (unsigned k = 0; k < DIR_SCN_SHARERS; k++) {
            int j = seen[k] ? -1 : find(r, OP_BISNP_INV, k + 1);
            if (j >= 0) {
                r->used[j] = seen[k] = true;
                snooped[k] = s->msg[j].cycle;
                tag[k] = s->msg[j].m.tag;
            }
        }
        /* Each sharer answers when its delay is over (presented the next cycle, or after an answer
         * due at the same time). */
        for (unsigned k = 0; k < DIR_SCN_SHARERS; k++)
            if (seen[k] && !answered[k] && dir_drv_cycle(r->d) + 1 >= snooped[k] + lat[k]) {
                if (send(r, OP_BIRSP_I, k + 1, tag[k]))
                    return -1;
                answered[k] = true;
            }
        dir_drv_step(r->d);
        const dir_out_t *o = dir_drv_out(r->d);
        if (!s->mem_rd_cycle && o->mem_req_valid_o && !o->mem_req_write_o && !o->mem_req_dir_o &&
            o->mem_req_addr_o == DIR_SCN_LINE)
            s->mem_rd_cycle = dir_drv_cycle(r->d) - 1;
        done = find(r, OP_DATA_E, DIR_SCN_OWNER);
    }
    if (done < 0) {
        snprintf(s->err, sizeof s->err, "no DATA_E to CN %u after 2000 cycles (cycle %llu)", DIR_SCN_OWNER,
                 (unsigned long long)dir_drv_cycle(r->d));
        return -1;
    }
    r->used[done] = true;
    s->to_cycle = s->msg[done].cycle + 3;
    if (settle(r))
        return -1;
    for (int i = 0; i < 4; i++)
        dir_drv_step(r->d);

    bool e1, e2, e3;
    s->tr_s_rdown = dir_drv_csr(r->d, DIR_TR_S_RdOwn, &e1);
    s->snoops = dir_drv_csr(r->d, DIR_CSR_SNOOPS, &e2);
    s->birsps = dir_drv_csr(r->d, DIR_CSR_BIRSPS, &e3);
    if (e1 || e2 || e3) {
        snprintf(s->err, sizeof s->err, "a CSR read was refused");
        return -1;
    }
    return 0;
}

int dir_scn_rdx(const dir_model_ops_t *ops, const char *trace_path, dir_scn_t *s)
{
    memset(s, 0, sizeof *s);
    run_t r = {.s = s};
    dir_drv_cfg_t cfg = dir_drv_cfg_default();
    cfg.mem_latency_ps = DIR_SCN_MEM_PS;
    s->period_ps = cfg.period_ps;
    r.d = dir_drv_create(ops, &cfg, 1, on_tx, &r);
    for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
        s->line[w] = 0xd1a0000000000000ull | (uint64_t)DIR_SCN_LINE << 8 | w;
    dir_drv_mem_poke(r.d, DIR_SCN_LINE, 0xff, s->line);
    int rc = 0;
    if (trace_path && dir_drv_trace(r.d, trace_path) != 0) {
        snprintf(s->err, sizeof s->err, "cannot open the trace %s", trace_path);
        rc = -1;
    }
    if (rc == 0)
        rc = scenario(&r);
    s->viols = dir_drv_viols(r.d);
    dir_drv_free(r.d); /* closes the trace */
    if (s->nmsg == DIR_SCN_MAX_MSGS && rc == 0) {
        snprintf(s->err, sizeof s->err, "more than %u messages", DIR_SCN_MAX_MSGS);
        rc = -1;
    }
    /* In cycle order (a CN's message is recorded when sent, for the cycle it is presented); at one
     * cycle the CN's message first. Insertion sort: stable, and the list is nearly sorted. */
    for (size_t i = 1; i < s->nmsg; i++) {
        dir_scn_msg_t x = s->msg[i];
        size_t j = i;
        while (j > 0 && (s->msg[j - 1].cycle > x.cycle ||
                         (s->msg[j - 1].cycle == x.cycle && x.to_dir && !s->msg[j - 1].to_dir))) {
            s->msg[j] = s->msg[j - 1];
            j--;
        }
        s->msg[j] = x;
    }
    for (s->rdx = 0; s->rdx < s->nmsg && !(s->msg[s->rdx].to_dir && s->msg[s->rdx].m.opcode == OP_RD_OWN);)
        s->rdx++;
    return rc;
}
