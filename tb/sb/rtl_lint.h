/* Elaboration checks from C tests: runs `verilator --lint-only -Wall` over the RTL (the generated
 * message package and every rtl/ file) with a chosen top and parameter overrides, as `make lint`
 * would, and reports how it went. Run from the repository root (where the test binary is normally
 * started), after a build (build/gen/msg_pkg.sv). */
#ifndef RTL_LINT_H
#define RTL_LINT_H

#include <stdbool.h>
#include <stddef.h>

/** Result of one lint run. */
typedef struct rtl_lint_result {
    bool ran;    /* the command could be started and the sources were found */
    bool passed; /* exit status 0 */
    char out[4096]; /* its output (stdout and stderr), truncated */
} rtl_lint_result_t;

/** Lints the RTL with top-module top and extra arguments args (for example "-GDepth=0"). */
void rtl_lint(const char *top, const char *args, rtl_lint_result_t *r);

#endif
