/* Coroutines (see coro.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "cn/coro.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Under AddressSanitizer every switch tells it which stack runs next (its fiber interface), or it
 * takes a coroutine's frames for overflows of the resumer's stack. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/asan_interface.h>
#define SAN_START(fake, bottom, size) __sanitizer_start_switch_fiber((fake), (bottom), (size))
#define SAN_FINISH(fake, bottom, size) __sanitizer_finish_switch_fiber((fake), (bottom), (size))
/* A coroutine dropped before its end leaves its frames' red zones in the shadow memory; a later
 * mapping at the same place would inherit them. */
#define SAN_FORGET(bottom, size) __asan_unpoison_memory_region((bottom), (size))
#else
#define SAN_FORGET(bottom, size) ((void)0)
#define SAN_START(fake, bottom, size) ((void)0)
#define SAN_FINISH(fake, bottom, size) ((void)0)
#endif

#if defined(__x86_64__)
#define CORO_ASM 1
#else
#define CORO_ASM 0
#include <ucontext.h>
#endif

struct coro {
    coro_fn fn;
    void *arg;
    bool done;
    void *map;       /* guard page + stack */
    size_t map_bytes;
    /* AddressSanitizer's view (SAN_*): the coroutine's stack, the resumer's, and each side's fake
     * stack while the other runs. */
    const void *stack_bottom, *caller_bottom;
    size_t stack_size, caller_size;
    void *fake, *caller_fake;
#if CORO_ASM
    void *sp;        /* the coroutine's saved stack pointer while it is not running */
    void *caller_sp; /* the resumer's, while it runs */
#else
    ucontext_t ctx, caller;
#endif
};

#if CORO_ASM
/* coro_switch(save, to): pushes the callee-saved registers, stores the stack pointer in *save,
 * loads `to` as the stack pointer, pops the registers saved there and returns on that stack.
 * A new coroutine's stack is laid out (coro_create) as if it had switched away just before
 * coro_boot, with rbx = the coroutine. */
void coro_switch(void **save, void *to);
void coro_boot(void);
__asm__(".text\n"
        ".globl coro_switch\n"
        ".type coro_switch,@function\n"
        "coro_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size coro_switch,.-coro_switch\n"
        ".globl coro_boot\n"
        ".type coro_boot,@function\n"
        "coro_boot:\n"
        "  movq %rbx, %rdi\n"
        "  andq $-16, %rsp\n"
        "  call coro_main\n"
        "  ud2\n"
        ".size coro_boot,.-coro_boot\n");

/* Called only from coro_boot's assembly: `used`, so that link-time optimization, which sees no
 * call to it, keeps it. */
void coro_main(coro_t *c) __attribute__((used));
void coro_main(coro_t *c)
{
    SAN_FINISH(NULL, &c->caller_bottom, &c->caller_size);
    c->fn(c->arg);
    c->done = true;
    SAN_START(NULL, c->caller_bottom, c->caller_size); /* NULL: this stack is done with */
    coro_switch(&c->sp, c->caller_sp); /* never resumed again */
    abort();
}
#else
static void coro_main_uc(unsigned hi, unsigned lo)
{
    coro_t *c = (coro_t *)(((uintptr_t)hi << 32) | (uintptr_t)lo);
    SAN_FINISH(NULL, &c->caller_bottom, &c->caller_size);
    c->fn(c->arg);
    c->done = true;
    SAN_START(NULL, c->caller_bottom, c->caller_size);
    swapcontext(&c->ctx, &c->caller);
    abort();
}
#endif

coro_t *coro_create(coro_fn fn, void *arg, size_t stack_bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t stack = (stack_bytes + page - 1) / page * page;
    coro_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->map_bytes = stack + page;
    c->map = mmap(NULL, c->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (c->map == MAP_FAILED) {
        free(c);
        return NULL;
    }
    mprotect(c->map, page, PROT_NONE); /* guard page: the stack grows down into it */
    c->fn = fn;
    c->arg = arg;
    c->stack_bottom = (char *)c->map + page;
    c->stack_size = stack;
    uintptr_t top = ((uintptr_t)c->map + c->map_bytes) & ~(uintptr_t)15;
#if CORO_ASM
    uint64_t *sp = (uint64_t *)top;
    *--sp = 0;                      /* padding */
    *--sp = (uint64_t)(uintptr_t)coro_boot; /* coro_switch's ret goes here */
    *--sp = 0;                      /* rbp */
    *--sp = (uint64_t)(uintptr_t)c; /* rbx: coro_boot passes it to coro_main */
    for (int i = 0; i < 4; i++)
        *--sp = 0;                  /* r12 .. r15 */
    c->sp = sp;
#else
    getcontext(&c->ctx);
    c->ctx.uc_stack.ss_sp = (char *)c->map + page;
    c->ctx.uc_stack.ss_size = stack;
    c->ctx.uc_link = NULL;
    makecontext(&c->ctx, (void (*)(void))coro_main_uc, 2, (unsigned)((uintptr_t)c >> 32),
                (unsigned)(uintptr_t)c);
#endif
    return c;
}

void coro_resume(coro_t *c)
{
    assert(!c->done);
    SAN_START(&c->caller_fake, c->stack_bottom, c->stack_size);
#if CORO_ASM
    coro_switch(&c->caller_sp, c->sp);
#else
    swapcontext(&c->caller, &c->ctx);
#endif
    SAN_FINISH(c->caller_fake, NULL, NULL);
}

void coro_yield(coro_t *c)
{
    SAN_START(&c->fake, c->caller_bottom, c->caller_size);
#if CORO_ASM
    coro_switch(&c->sp, c->caller_sp);
#else
    swapcontext(&c->ctx, &c->caller);
#endif
    SAN_FINISH(c->fake, &c->caller_bottom, &c->caller_size);
}

bool coro_done(const coro_t *c) { return c->done; }

void coro_free(coro_t *c)
{
    if (!c)
        return;
    SAN_FORGET(c->stack_bottom, c->stack_size);
    munmap(c->map, c->map_bytes);
    free(c);
}
