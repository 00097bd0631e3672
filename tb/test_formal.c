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
