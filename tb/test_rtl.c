/* The RTL as a whole: every block is accepted by Yosys 0.23 (read, hierarchy, proc), so that
 * `make synth` cannot be broken by a change the Verilator-based tests do not see. */
#include <criterion/criterion.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(rtl, every_block_is_accepted_by_yosys, .timeout = 300)
{
    glob_t g;
    cr_assert_eq(glob("rtl/*.sv", 0, NULL, &g), 0, "no RTL found (run from the repository root)");
    cr_assert_eq(glob("rtl/*/*.sv", GLOB_APPEND, NULL, &g), 0);
    cr_assert_geq(g.gl_pathc, 8, "every block of rtl/ should be found");
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char path[512], cmd[1024];
        snprintf(path, sizeof path, "%s", g.gl_pathv[i]);
        char *name = basename(path);
        name[strlen(name) - 3] = '\0'; /* drop .sv: the module is named after its file */
        snprintf(cmd, sizeof cmd, "python3 scripts/synth_block.py --check %s > /dev/null", name);
        cr_assert_eq(system(cmd), 0, "%s: Yosys does not accept it (build/synth/check/%s/check.log)", g.gl_pathv[i],
                     name);
    }
    globfree(&g);
}
