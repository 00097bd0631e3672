/* Runs a piece of a test in a child process and collects how it ended and what it printed: for
 * tests that expect an RTL assertion (or any abort) to end the run, without ending the test. */
#ifndef TB_CHILD_H
#define TB_CHILD_H

#include <stddef.h>

/** Forks; the child runs body(arg) with stdout and stderr captured, then prints
 *  "no assertion fired" and exits 0. The parent waits for it: *status as from waitpid, out holds
 *  what the child printed (NUL-terminated, at most out_len - 1 bytes). */
void tb_run_child(void (*body)(void *arg), void *arg, int *status, char *out, size_t out_len);

#endif
