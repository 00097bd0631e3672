#include "stream_run.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/rng.h"

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p)
        abort();
    return p;
}

static void lane_init(stream_lane_t *l, const stream_run_t *r, const stream_port_t *p)
{
    char name[64];
    l->port = p;
    snprintf(name, sizeof name, "%s.%s.src", r->block, p->name);
    stream_src_init(&l->src, r->seed, name, p->width, r->idle);
    snprintf(name, sizeof name, "%s.%s.sink", r->block, p->name);
    stream_sink_init(&l->sink, r->seed, name, p->width, r->stall);
    stream_sb_init(&l->sb, p->width);
    snprintf(l->ctx, sizeof l->ctx, "seed=%llu idle=%.2f stall=%.2f set=%s", (unsigned long long)r->seed, r->idle,
             r->stall, p->name);
}

/* The run's own checks of one lane in one cycle, then the handshakes. */
static void lane_observe(stream_lane_t *l, const void *out, uint64_t cyc)
{
    const stream_port_t *p = l->port;
    char why[256];
    bool in_ready = vw_get_u(out, p->in_ready), out_valid = vw_get_u(out, p->out_valid);
    bits_t out_data = vw_get(out, p->out_data);
    cr_assert(stream_sink_observe(&l->sink, out_valid, out_data, why, sizeof why), "%s cycle=%llu: %s", l->ctx,
              (unsigned long long)cyc, why);
    if (out_valid && l->sink.ready)
        cr_assert(stream_sb_pop(&l->sb, out_data, why, sizeof why), "%s cycle=%llu: %s", l->ctx,
                  (unsigned long long)cyc, why);
    if (l->src.valid && in_ready)
        stream_sb_push(&l->sb, l->src.data);
    stream_src_taken(&l->src, l->src.valid && in_ready);
}

/* End-to-end checks after the drain. */
static void lane_finish(const stream_lane_t *l, const stream_run_t *r)
{
    cr_assert(!l->src.valid, "%s: source still holds a beat after the drain", l->ctx);
    cr_assert_eq(stream_sb_pending(&l->sb), 0, "%s: %zu beats sent and never received", l->ctx,
                 stream_sb_pending(&l->sb));
    cr_assert_eq(l->sink.received, l->src.sent, "%s: sent %llu, received %llu", l->ctx,
                 (unsigned long long)l->src.sent, (unsigned long long)l->sink.received);
    if (r->idle < 1.0)
        cr_assert_gt(l->src.sent, r->cycles / 20, "%s: only %llu beats in %u cycles", l->ctx,
                     (unsigned long long)l->src.sent, r->cycles);
}

void stream_run(const stream_run_t *r)
{
    const stream_ops_t *ops = r->ops;
    char note[128];
    snprintf(note, sizeof note, "%s run: seed=%llu idle=%.2f stall=%.2f", r->block, (unsigned long long)r->seed,
             r->idle, r->stall);
    cleanup_set_note(note); /* printed if an RTL assertion aborts the run */
    void *m = ops->create(r->period_ps, r->seed);
    stream_lane_t *lanes = xcalloc(r->nlanes, sizeof *lanes);
    void *in = xcalloc(1, ops->in_size), *in_p = xcalloc(1, ops->in_size);
    void *out = xcalloc(1, ops->out_size), *out_p = xcalloc(1, ops->out_size);
    rng_t perturb;
    char name[64];
    snprintf(name, sizeof name, "%s.perturb", r->block);
    rng_init_named(&perturb, r->seed, name);
    for (size_t s = 0; s < r->nlanes; s++)
        lane_init(&lanes[s], r, r->ports[s]);
    uint64_t cyc = ops->reset(m, 0, 2);

    for (unsigned c = 0; c < r->cycles + r->drain; c++, cyc++) {
        memset(in, 0, ops->in_size);
        vw_put_u(in, ops->rst_n, 1);
        for (size_t s = 0; s < r->nlanes; s++) {
            stream_lane_t *l = &lanes[s];
            if (c == r->cycles) { /* drain */
                if (r->delivered)
                    r->delivered[s] = l->sink.received;
                l->src.idle = 1.0;
                l->sink.stall = 0.0;
            }
            stream_src_drive(&l->src);
            stream_sink_drive(&l->sink);
            vw_put_u(in, l->port->in_valid, l->src.valid);
            vw_put(in, l->port->in_data, l->src.data);
            vw_put_u(in, l->port->out_ready, l->sink.ready);
        }
        /* Every output must be a function of the state: other inputs, same outputs. */
        memcpy(in_p, in, ops->in_size);
        for (size_t s = 0; s < r->nlanes; s++) {
            const stream_lane_t *l = &lanes[s];
            vw_put_u(in_p, l->port->in_valid, !l->src.valid);
            vw_put_u(in_p, l->port->out_ready, !l->sink.ready);
            vw_put(in_p, l->port->in_data, bits_random(&perturb, l->port->width));
        }
        cr_assert(stream_outputs_same(ops, m, in_p, in, out_p, out),
                  "seed=%llu cycle=%llu: an output changed with the inputs in the same cycle (combinational path)",
                  (unsigned long long)r->seed, (unsigned long long)cyc);

        for (size_t s = 0; s < r->nlanes; s++) {
            r->on_cycle(r->user, s, &lanes[s], out, cyc, c >= r->cycles);
            lane_observe(&lanes[s], out, cyc);
        }
        ops->tick(m, cyc);
    }

    for (size_t s = 0; s < r->nlanes; s++) {
        lane_finish(&lanes[s], r);
        stream_sb_free(&lanes[s].sb);
    }
    free(out_p);
    free(out);
    free(in_p);
    free(in);
    free(lanes);
    ops->free(m);
}

bool stream_outputs_same(const stream_ops_t *ops, void *m, const void *in_p, const void *in, void *out_p,
                         void *out)
{
    memset(out_p, 0, ops->out_size);
    memset(out, 0, ops->out_size);
    ops->set(m, in_p);
    ops->get(m, out_p);
    ops->set(m, in);
    ops->get(m, out);
    return memcmp(out, out_p, ops->out_size) == 0;
}

void stream_step(const stream_ops_t *ops, void *m, uint64_t *cyc, const stream_port_t *p, bool in_valid,
                 uint64_t data, bool out_ready, bool rst_n, void *before)
{
    void *in = xcalloc(1, ops->in_size);
    vw_put_u(in, ops->rst_n, rst_n);
    vw_put_u(in, p->in_valid, in_valid);
    vw_put_u(in, p->in_data, data);
    vw_put_u(in, p->out_ready, out_ready);
    ops->set(m, in);
    ops->get(m, before);
    ops->tick(m, (*cyc)++);
    free(in);
}
