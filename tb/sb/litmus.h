/* Litmus tests of the x86-TSO memory model, shared by tb/test_core.c (cores over a flat memory)
 * and tb/test_system.c (the whole system).
 *
 * A litmus program is written "x=1;r0=y | y=1;r1=x": threads separated by '|', operations by ';':
 *   x=1          store        r0=x        load          F      mfence
 *   r0=swap(x,1) xchg          r0=fadd(x,1) lock xadd
 * '&' instead of ';' joins a load to the load before it: "r0=y&r1=x" is one wl_ld_batch of two
 * independent loads (overlapping on a core; for TSO the same as "r0=y;r1=x").
 * Variables x, y, z, w; registers r0..r7. Outcomes are conditions "r0=0,r1=0,x=1" on registers
 * and final memory.
 *
 * lm_check runs a litmus program through a runner (which executes it n times and reports each
 * outcome) and checks every outcome against an operational x86-TSO model explored exhaustively.
 */
#ifndef TB_SB_LITMUS_H
#define TB_SB_LITMUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"
#include "cn/wl_api.h"

enum { LK_ST, LK_LD, LK_FENCE, LK_SWAP, LK_FADD };
#define LM_THR 4
#define LM_OPS 6
#define LM_VARS 4
#define LM_REGS 8

typedef struct lm_op {
    uint8_t kind, var, val, reg;
    bool batch; /* a load in the batch of the load before it ('&') */
} lm_op_t;

typedef struct litmus {
    unsigned nthr, nvars, nregs;
    unsigned len[LM_THR];
    lm_op_t op[LM_THR][LM_OPS];
} litmus_t;

/* An outcome: registers then final variables. */
typedef struct outcome {
    uint8_t v[LM_REGS + LM_VARS];
} outcome_t;

typedef struct outset {
    outcome_t *o;
    uint64_t *count;
    size_t n, cap;
} outset_t;

/** The thread `t` of a litmus program as run by lm_body: variables at base + stride * var. */
typedef struct lm_thread {
    const litmus_t *L;
    unsigned t;
    uint64_t base;              /* address of variable 0 */
    uint64_t stride;            /* bytes between variables: 64 (own lines) or 8 (one line) */
    uint64_t delay[LM_OPS + 1]; /* compute() before each operation and at the end */
    uint64_t reg[LM_REGS];
} lm_thread_t;

/** Parses src (see above) into *L (asserts on a malformed program). */
void lm_parse(litmus_t *L, const char *src);
/** True when outcome o satisfies cond ("r0=0,r1=0,x=1"). */
bool lm_outcome_matches(const litmus_t *L, const outcome_t *o, const char *cond);
void lm_outcome_str(const litmus_t *L, const outcome_t *o, char *buf, size_t n);
/** Index of o in s, or SIZE_MAX. */
size_t lm_outset_find(const outset_t *s, const outcome_t *o);
/** Adds one occurrence of o. */
void lm_outset_add(outset_t *s, const outcome_t *o);
void lm_outset_free(outset_t *s);
/** Every outcome the operational x86-TSO model allows for L. */
void lm_tso_allowed(const litmus_t *L, outset_t *out);
/** The outcomes x86-TSO allows when thread f fails (fail-stop) in its part having done its first k
 *  operations, for some k in kmin .. kmax, its registers lost (zero in the outcomes: see
 *  lm_outcome_without): the union over those k of L with f's part cut after k operations. Its
 *  stores still buffered at the failure are lost with it, which a smaller k covers: they leave the
 *  buffer in program order. Cut at len[f], the part is whole: f failed after its last store left. */
void lm_tso_allowed_cut(const litmus_t *L, unsigned f, unsigned kmin, unsigned kmax, outset_t *out);
/** o with thread f's registers zero (a failed thread's registers are lost with it). */
void lm_outcome_without(const litmus_t *L, unsigned f, outcome_t *o);
/** Runs thread a->t of a->L: compute(delay[i]) before operation i and at the end. */
void lm_body(wl_thread_t *t, void *arg);

/** A runner: executes L n times, with everything random drawn from r, and fills out[0..n-1].
 *  ctx_line is the context a failure message of the runner should name (name, seed). */
typedef void (*lm_run_fn)(void *ctx, const litmus_t *L, rng_t *r, unsigned n, outcome_t *out, const char *ctx_line);

/** Runs src n times through run: every outcome must be TSO-allowed; each `forbid` condition must
 *  not be allowed by the TSO model (checks the test itself) and is never seen; each `must` is
 *  allowed and seen at least once. seed: the run's seed (printed in failures). Verbose outcome
 *  counts on stderr when the environment variable `verbose_env` is set. */
void lm_check(const char *name, const char *src, const char *const *forbid, const char *const *must, unsigned n,
              lm_run_fn run, void *ctx, uint64_t seed, const char *verbose_env);

#endif
