#include "base/cleanup.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CLEANUP_MAX 64

/* Process-wide by nature: signal handlers and atexit have no context pointer. */
static struct {
    cleanup_fn fn;
    void *arg;
} regs[CLEANUP_MAX];
static int nregs;
static int installed;
static char note[256];

/* Writes s to stderr from a signal handler (write(2) only). */
static void say(const char *s)
{
    ssize_t r = write(STDERR_FILENO, s, strlen(s));
    (void)r;
}

static void on_signal(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGABRT, "SIGABRT"}, {SIGINT, "SIGINT"}, {SIGTERM, "SIGTERM"},
                 {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},  {SIGFPE, "SIGFPE"}};
    const char *name = "a signal";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            name = names[i].name;
    say(note[0] ? note : "run died");
    say(": killed by ");
    say(name);
    say("\n");
    cleanup_run_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install(void)
{
    if (installed)
        return;
    installed = 1;
    atexit(cleanup_run_all);
    const int sigs[] = {SIGABRT, SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGFPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], on_signal);
}

void cleanup_register(cleanup_fn fn, void *arg)
{
    install();
    if (nregs == CLEANUP_MAX) {
        fprintf(stderr, "cleanup: more than %d registrations\n", CLEANUP_MAX);
        abort();
    }
    regs[nregs].fn = fn;
    regs[nregs].arg = arg;
    nregs++;
}

void cleanup_unregister(cleanup_fn fn, void *arg)
{
    for (int i = nregs - 1; i >= 0; i--) {
        if (regs[i].fn == fn && regs[i].arg == arg) {
            memmove(&regs[i], &regs[i + 1], (size_t)(nregs - i - 1) * sizeof regs[0]);
            nregs--;
            return;
        }
    }
}

void cleanup_run_all(void)
{
    while (nregs > 0) {
        nregs--;
        regs[nregs].fn(regs[nregs].arg);
    }
}

void cleanup_set_note(const char *s)
{
    install();
    snprintf(note, sizeof note, "%s", s);
}
