/* Coroutines: one per simulated thread (execution-driven workloads, csim/cn/wl_api.h). A
 * coroutine runs fn(arg) on its own stack; coro_yield() inside it returns to whoever called
 * coro_resume(), and the next coro_resume() continues after the yield. No threads, no signals:
 * on x86-64 a switch saves and restores the six callee-saved registers and the stack pointer
 * (a few nanoseconds); elsewhere it falls back to ucontext (swapcontext, which also saves the
 * signal mask: a system call per switch). The floating-point control words are not switched: no
 * coroutine may change the rounding mode. */
#ifndef CN_CORO_H
#define CN_CORO_H

#include <stdbool.h>
#include <stddef.h>

typedef struct coro coro_t;
typedef void (*coro_fn)(void *arg);

/** A coroutine that will run fn(arg) on a stack of stack_bytes (rounded up to pages, plus a
 *  guard page below it: an overflow faults instead of corrupting memory). NULL when out of
 *  memory. It starts at the first coro_resume(). */
coro_t *coro_create(coro_fn fn, void *arg, size_t stack_bytes);
/** Runs c until it yields or fn returns. Not from inside c itself. c must not be done. */
void coro_resume(coro_t *c);
/** Inside c: returns to the coro_resume() that is running it. */
void coro_yield(coro_t *c);
/** True once fn has returned. */
bool coro_done(const coro_t *c);
/** Frees c (done or not: a coroutine that never finishes is simply dropped). */
void coro_free(coro_t *c);

#endif
