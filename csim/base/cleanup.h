/* Things that must be finished however a run ends: a normal exit, a fatal error, an assertion
 * (RTL or C) or a signal. Open waveform traces register here, so that an aborted run still leaves
 * a readable FST file. */
#ifndef CLEANUP_H
#define CLEANUP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*cleanup_fn)(void *arg);

/** Registers fn(arg) to run once at exit, on abort() and on SIGINT/SIGTERM/SIGSEGV/SIGBUS. */
void cleanup_register(cleanup_fn fn, void *arg);
/** Removes a registration made with the same fn and arg (no-op when absent). */
void cleanup_unregister(cleanup_fn fn, void *arg);
/** Runs and removes every registration, newest first. */
void cleanup_run_all(void);
/** Sets the start of the line printed on stderr when the run dies of a signal (for example the
 *  seed); the line goes on with the signal's name. */
void cleanup_set_note(const char *note);

#ifdef __cplusplus
}
#endif

#endif
