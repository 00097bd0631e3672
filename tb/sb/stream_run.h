/* Random valid/ready stream runs over a Verilated harness top that holds several instances (lanes)
 * of one block, each with its own in_valid/in_data/in_ready and out_valid/out_data/out_ready ports.
 * Per lane a random source, a random sink and an in-order scoreboard (stream_sb.h); every cycle a
 * check that no output depends combinationally on an input; at the end a drain (source stopped,
 * sink always ready) and end-to-end checks. What is specific to a block (its reference model, its
 * other ports) stays in its test, in a per-cycle callback.
 *
 * The model is reached through a stream_ops_t: the generated wrappers (build/gen/vw/vw_<top>.h)
 * all have the same API shape, so STREAM_OPS() builds one from a wrapper's name. */
#ifndef STREAM_RUN_H
#define STREAM_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream_sb.h"
#include "vw_bits.h"

/** A generated model's API (vw_<top>_*) behind opaque pointers. */
typedef struct stream_ops {
    size_t in_size, out_size; /* sizeof vw_<top>_in, vw_<top>_out */
    vw_field_t rst_n;         /* rst_ni in the in struct */
    void *(*create)(uint64_t period_ps, uint64_t seed);
    void (*free)(void *m);
    uint64_t (*reset)(void *m, uint64_t cycle, unsigned n);
    void (*set)(void *m, const void *in);
    void (*get)(void *m, void *out);
    void (*tick)(void *m, uint64_t cycle);
} stream_ops_t;

/** Defines `static const stream_ops_t NAME` for the generated wrapper VW (for example vw_fifo_tb),
 *  with the adapters from its typed handle and port structs to void pointers. */
#define STREAM_OPS(NAME, VW)                                                                               \
    static void *NAME##_create(uint64_t period_ps, uint64_t seed) { return VW##_create(period_ps, seed); }   \
    static void NAME##_free(void *m) { VW##_free(m); }                                                     \
    static uint64_t NAME##_reset(void *m, uint64_t cycle, unsigned n) { return VW##_reset(m, cycle, n); }   \
    static void NAME##_set(void *m, const void *in) { VW##_set(m, in); }                                   \
    static void NAME##_get(void *m, void *out) { VW##_get(m, out); }                                       \
    static void NAME##_tick(void *m, uint64_t cycle) { VW##_tick(m, cycle); }                              \
    static const stream_ops_t NAME = {.in_size = sizeof(VW##_in),                                          \
                                      .out_size = sizeof(VW##_out),                                        \
                                      .rst_n = VW_FIELD(VW##_in, rst_ni),                                  \
                                      .create = NAME##_create,                                             \
                                      .free = NAME##_free,                                                 \
                                      .reset = NAME##_reset,                                               \
                                      .set = NAME##_set,                                                   \
                                      .get = NAME##_get,                                                   \
                                      .tick = NAME##_tick}

/** Where one lane's stream ports are. */
typedef struct stream_port {
    const char *name; /* the parameter set's name, in random stream names and failure messages */
    unsigned width;   /* data bits */
    vw_field_t in_valid, in_data, out_ready;  /* in the in struct */
    vw_field_t in_ready, out_valid, out_data; /* in the out struct */
} stream_port_t;

/** Initializer of the stream_port_t of set P (ports P_in_valid_i ... P_out_data_o) of width W, in the
 *  port structs IN and OUT. */
#define STREAM_PORT(IN, OUT, P, W)                                                                       \
    {                                                                                                    \
        #P, W, VW_FIELD(IN, P##_in_valid_i), VW_FIELD(IN, P##_in_data_i), VW_FIELD(IN, P##_out_ready_i),   \
            VW_FIELD(OUT, P##_in_ready_o), VW_FIELD(OUT, P##_out_valid_o), VW_FIELD(OUT, P##_out_data_o)   \
    }

/** Per-lane state of a run, as the per-cycle callback sees it. */
typedef struct stream_lane {
    const stream_port_t *port;
    stream_src_t src;   /* this cycle's valid/data */
    stream_sink_t sink; /* this cycle's ready */
    stream_sb_t sb;
    char ctx[128]; /* seed, idle, stall and set, to start failure messages with */
} stream_lane_t;

/** Called for each lane (in order) every cycle, with the outputs before the edge (a vw_<top>_out),
 *  before the run's own checks of that lane: checks the block's own outputs and steps its reference
 *  model with the lane's src.valid, src.data and sink.ready. `draining` from cycle `cycles` on. */
typedef void stream_cycle_fn(void *user, size_t lane, const stream_lane_t *l, const void *out, uint64_t cyc,
                             bool draining);

/** One run. */
typedef struct stream_run {
    const char *block; /* "fifo": names the random streams ("fifo.<set>.src") and the abort note */
    const stream_ops_t *ops;
    uint64_t period_ps;
    const stream_port_t *const *ports; /* one per lane */
    size_t nlanes;
    uint64_t seed;
    double idle, stall;    /* source idle and sink stall probabilities before the drain */
    unsigned cycles;       /* of random traffic */
    unsigned drain;        /* cycles after them, enough to empty every lane */
    stream_cycle_fn *on_cycle;
    void *user;            /* on_cycle's first argument */
    uint64_t *delivered;   /* when not NULL: [lane] = beats received in the first `cycles` cycles */
} stream_run_t;

/** The source idle x sink back-pressure matrix every stream-like block is tested across, in
 *  percent: expands T(idle, stall) once per pair. */
#define STREAM_MATRIX(T) T(0, 0) T(0, 30) T(0, 90) T(30, 0) T(30, 30) T(30, 90) T(90, 0) T(90, 30) T(90, 90)

/** Creates the model with the run's seed, resets it, runs `cycles` cycles of random traffic and
 *  `drain` cycles of drain, checking every cycle (cr_assert: failure messages carry the seed and the
 *  cycle) and at the end that every beat sent was received; frees the model. */
void stream_run(const stream_run_t *r);

/** Applies in_p and reads the outputs into out_p, then applies in (left applied) and reads them into
 *  out; returns whether both are the same, i.e. no output depends combinationally on an input that
 *  differs between in_p and in. */
bool stream_outputs_same(const stream_ops_t *ops, void *m, const void *in_p, const void *in, void *out_p,
                         void *out);

/** Directed tests: drives lane p's inputs (every other input 0, rst_ni = rst_n) for one cycle of
 *  model m at *cyc (then incremented); *before gets the outputs before the edge. */
void stream_step(const stream_ops_t *ops, void *m, uint64_t *cyc, const stream_port_t *p, bool in_valid,
                 uint64_t data, bool out_ready, bool rst_n, void *before);

#endif
