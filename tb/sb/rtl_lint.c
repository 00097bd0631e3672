#include "rtl_lint.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void rtl_lint(const char *top, const char *args, rtl_lint_result_t *r)
{
    memset(r, 0, sizeof *r);
    if (access("rtl/lint.vlt", R_OK) != 0) {
        snprintf(r->out, sizeof r->out, "rtl/lint.vlt not found: run the tests from the repository root");
        return;
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "verilator --lint-only -Wall -Irtl/include rtl/lint.vlt build/gen/msg_pkg.sv build/gen/csr_pkg.sv rtl/*.sv rtl/*/*.sv "
             "--top-module %s %s 2>&1",
             top,
             args);
    FILE *p = popen(cmd, "r");
    if (!p) {
        snprintf(r->out, sizeof r->out, "cannot run: %s", cmd);
        return;
    }
    size_t n = 0, k;
    char buf[1024];
    while ((k = fread(buf, 1, sizeof buf, p)) > 0) {
        size_t room = sizeof r->out - 1 - n;
        memcpy(r->out + n, buf, k < room ? k : room);
        n += k < room ? k : room;
    }
    r->out[n] = '\0';
    int st = pclose(p);
    /* Exit status 127 is the shell saying verilator is missing. */
    r->ran = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) != 127;
    r->passed = r->ran && WEXITSTATUS(st) == 0;
}
