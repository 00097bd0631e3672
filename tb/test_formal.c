/* make formal within the test suite: every check of constraints/formal/ (scripts/formal.sh) goes
 * the way it must: the Yosys proofs and the Rumur model of the protocol prove, and each control
 * (*.fail.*: the model's mutations, the proofs without their assumptions) ends in a counterexample;
 * and each check prints its one line. About three minutes on two cores (docs/architecture.md
 * section 11h); the larger configurations run in make regress. */
#include <criterion/criterion.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(formal, every_check_proves_and_every_control_fails, .timeout = 900)
{
    const char *log = "build/formal/make_formal.log";
    cr_assert_eq(system("mkdir -p build/formal && FORMAL_OUT=build/formal bash scripts/formal.sh "
                        "> build/formal/make_formal.log 2>&1"),
                 0, "make formal failed (%s)", log);
    glob_t g;
    cr_assert_eq(glob("constraints/formal/*.ys", 0, NULL, &g), 0, "no checks found (run from the repository root)");
    cr_assert_eq(glob("constraints/formal/*.rumur", GLOB_APPEND, NULL, &g), 0, "no Rumur configurations found");
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char path[512], want[600], line[1024];
        snprintf(path, sizeof path, "%s", g.gl_pathv[i]);
        char *name = basename(path);
        *strrchr(name, '.') = '\0'; /* NAME.ys, NAME.rumur, NAME.fail.* -> NAME, NAME.fail */
        snprintf(want, sizeof want, "formal: %s: ", name);
        FILE *f = fopen(log, "r");
        cr_assert(f, "%s missing", log);
        int found = 0;
        while (fgets(line, sizeof line, f))
            if (strncmp(line, want, strlen(want)) == 0)
                found = 1;
        fclose(f);
        cr_assert(found, "%s: no line for it in %s", g.gl_pathv[i], log);
    }
    globfree(&g);
}

/* formal.sh takes a Yosys control's failure for a counterexample only when Yosys found a trace: a
 * temporal induction that gives up at -maxsteps (a true property that is not inductive within the
 * steps allowed) proved nothing either way. A counter that wraps 9 -> 0 never reaches 14, but the
 * unreachable states 10 .. 13 lead there, so an induction of 3 steps gives up without a trace
 * (refused), while the same property with 14 lowered to 1 fails from reset (accepted). */
static int run_control(const char *dir, const char *prop, const char *outname)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir -p %s && rm -f %s/*.fail.ys", dir, dir);
    if (system(cmd))
        return -1;
    char path[512];
    snprintf(path, sizeof path, "%s/wrap.fail.ys", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "read_verilog -sv -formal <<EOT\n"
               "module wrap(input logic clk_i, input logic rst_ni);\n"
               "  logic [3:0] c_q;\n"
               "  always_ff @(posedge clk_i) if (!rst_ni) c_q <= 0; else c_q <= (c_q == 4'd9) ? 4'd0 : c_q + 4'd1;\n"
               "  always @(posedge clk_i) if (rst_ni) assert (c_q != 4'd%s);\n"
               "endmodule\n"
               "EOT\n"
               "prep -top wrap\n"
               "sat -tempinduct -prove-asserts -set-at 1 rst_ni 0 -seq 1 -maxsteps 3 -verify\n",
            prop);
    fclose(f);
    snprintf(cmd, sizeof cmd, "FORMAL_OUT=%s/out bash scripts/formal.sh --dir %s > %s/%s 2>&1", dir, dir, dir,
             outname);
    return system(cmd);
}

static int file_has(const char *path, const char *text)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, text) != NULL;
    if (f)
        fclose(f);
    return found;
}

Test(formal, a_yosys_control_needs_a_trace, .timeout = 120)
{
    const char *dir = "build/formal/control_selftest";
    cr_assert_neq(run_control(dir, "14", "no_trace.log"), 0, "an induction that gave up passed as a control");
    cr_assert(file_has("build/formal/control_selftest/no_trace.log", "no counterexample: the induction reached"),
              "formal.sh did not say why (build/formal/control_selftest/no_trace.log)");
    cr_assert_eq(run_control(dir, "1", "trace.log"), 0, "a control with a trace from reset was refused");
    cr_assert(file_has("build/formal/control_selftest/trace.log", "counterexample found, as it must"));
}
