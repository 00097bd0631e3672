/* The RTL as a whole: every block is accepted by Yosys 0.23 (read, hierarchy, proc), so that
 * `make synth` cannot be broken by a change the Verilator-based tests do not see; every Verilated
 * top elaborates from its own file list (scripts/gen_flist.py), which holds what it instantiates
 * and nothing else; a Verilated model's archive that a killed build left half written is made
 * again by the next make. */
#include <criterion/criterion.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Writes text into a file `name` of a fresh temporary folder, runs `python3 scripts/synth_block.py
 * ARGS --out FOLDER/out` (args: a format whose one %s is the folder) with its stderr in err,
 * removes the folder and returns the exit status (-1: it did not exit). path gets the file's path,
 * as the script's messages name it. */
static int synth_in_tmp(const char *name, const char *text, const char *args, char *path, size_t npath, char *err,
                        size_t nerr)
{
    char dir[] = "/tmp/synth_block_XXXXXX";
    cr_assert(mkdtemp(dir), "mkdtemp");
    char a[1000], cmd[2000], errf[600];
    snprintf(path, npath, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
    snprintf(a, sizeof a, args, dir);
    snprintf(errf, sizeof errf, "%s/stderr", dir);
    snprintf(cmd, sizeof cmd, "python3 scripts/synth_block.py %s --out %s/out > /dev/null 2> %s", a, dir, errf);
    int rc = system(cmd);
    f = fopen(errf, "r");
    cr_assert(f);
    size_t n = fread(err, 1, nerr - 1, f);
    fclose(f);
    err[n] = '\0';
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

Test(rtl, every_block_is_accepted_by_yosys, .timeout = 300)
{
    /* One Yosys run over every file: each module at its parameters and at every parameter set it is
     * instantiated with, each elaborated once (synth_block.py --check-all). */
    cr_assert_eq(system("python3 scripts/synth_block.py --check-all > /dev/null"), 0,
                 "Yosys does not accept the RTL (build/synth/check/all/check.log)");
}

/* The check can fail: a module instantiating one that does not exist, and one driving a wire twice,
 * each beside a real block (credit_cnt, which needs no other), are refused with exit status 1 and
 * Yosys' reason; the same module without the fault is accepted. */
Test(rtl, yosys_check_refuses_an_unknown_module_and_a_wire_driven_twice, .timeout = 120)
{
    static const struct {
        const char *rtl, *why; /* why: Yosys' reason (NULL: accepted) */
    } bad[] = {
        {"module bad(input logic a, output logic y); nosuch u_n (.a(a), .y(y)); endmodule\n",
         "Module `\\nosuch' referenced in module `\\bad'"},
        {"module bad(input logic a, input logic b, output logic y); assign y = a; assign y = b; endmodule\n",
         "problems in 'check -assert'"},
        {"module bad(input logic a, input logic b, output logic y); assign y = a ^ b; endmodule\n", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[600], got[4000];
        const int rc = synth_in_tmp("bad.sv", bad[i].rtl, "--check-all --rtl rtl/common/credit_cnt.sv %s/bad.sv",
                                    path, sizeof path, got, sizeof got);
        const int want = bad[i].why ? 1 : 0;
        cr_assert_eq(rc, want, "case %zu: exit status %d, want %d", i, rc, want);
        if (bad[i].why) {
            cr_assert(strstr(got, "synth check: all: check failed: "), "case %zu: %s", i, got);
            cr_assert(strstr(got, bad[i].why), "case %zu: no \"%s\" in: %s", i, bad[i].why, got);
        }
    }
}

/* ------------------------------------------------------------------------------------------------
 * File lists. A model is Verilated from its top's list alone and rebuilt only when a file of it
 * changes: a list that misses a file fails lint here, one that holds another block's files rebuilds
 * models for nothing. The lists are generated afresh into a temporary directory. */

static int list_holds(const char *flist, const char *what)
{
    FILE *f = fopen(flist, "r");
    cr_assert(f, "%s missing", flist);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, what) != NULL;
    fclose(f);
    return n;
}

Test(rtl, every_verilated_top_elaborates_from_its_own_file_list, .timeout = 120)
{
    char dir[] = "/tmp/flist_XXXXXX";
    cr_assert(mkdtemp(dir), "mkdtemp");
    char cmd[2048], path[600];
    snprintf(cmd, sizeof cmd,
             "python3 scripts/gen_flist.py %s/flist.mk %s rtl/*.sv rtl/*/*.sv tb/hdl/*.sv && test -s %s/flist.mk", dir, dir,
             dir);
    cr_assert_eq(system(cmd), 0, "gen_flist.py failed");
    /* The system's three blocks keep to their own folders and rtl/common (the directory shares the
     * Logging Unit's link blocks, rtl/common's link_tx and crd_ret, not its log engine). */
    static const struct {
        const char *top, *must, *must_not[2];
    } blocks[] = {
        {"fabric_top", "rtl/switch/cxl_switch.sv", {"rtl/lu/", "rtl/dir/"}},
        {"logging_unit", "rtl/lu/lu_log.sv", {"rtl/switch/", "rtl/dir/"}},
        {"dir_ctrl", "rtl/dir/dir_cache.sv", {"rtl/switch/", "rtl/lu/lu_log.sv"}},
    };
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.f", dir, blocks[i].top);
        cr_assert_eq(list_holds(path, blocks[i].must), 1, "%s: %s should be in it once", path, blocks[i].must);
        for (int k = 0; k < 2; k++)
            cr_assert_eq(list_holds(path, blocks[i].must_not[k]), 0, "%s: holds files of %s", path, blocks[i].must_not[k]);
    }
    /* Each Verilated top (the three blocks and every test harness) lints clean from its list alone. */
    glob_t g;
    cr_assert_eq(glob("tb/hdl/*.sv", 0, NULL, &g), 0, "no test harness found (run from the repository root)");
    const char *tops[64];
    size_t nt = 0;
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        tops[nt++] = blocks[i].top;
    char names[64][128];
    for (size_t i = 0; i < g.gl_pathc && nt < 64; i++) {
        snprintf(path, sizeof path, "%s", g.gl_pathv[i]);
        snprintf(names[nt], sizeof names[nt], "%s", basename(path));
        names[nt][strlen(names[nt]) - 3] = '\0';
        tops[nt] = names[nt];
        nt++;
    }
    globfree(&g);
    for (size_t i = 0; i < nt; i++) {
        snprintf(cmd, sizeof cmd,
                 "verilator --lint-only -Wall --assert -Irtl/include rtl/lint.vlt build/gen/msg_pkg.sv build/gen/csr_pkg.sv -f %s/%s.f "
                 "--top-module %s > %s/%s.log 2>&1",
                 dir, tops[i], tops[i], dir, tops[i]);
        cr_assert_eq(system(cmd), 0, "%s does not elaborate from its file list %s/%s.f (%s/%s.log)", tops[i], dir,
                     tops[i], dir, tops[i]);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* ------------------------------------------------------------------------------------------------
 * scripts/synth_block.py refuses a wrong constraints file with `file:line: key: what is wrong` on
 * stderr and exit status 2 (before any synthesis runs), for every kind of wrong line. Each case
 * writes a params or flow file for the `fifo` block into a fresh constraints directory and runs the
 * Yosys check on it. */

typedef struct synth_case {
    const char *file;  /* fifo.params or fifo.flow */
    const char *text;  /* its contents */
    const char *want;  /* expected on stderr after "<dir>/<file>:" */
} synth_case_t;

static void synth_refuses(const synth_case_t *c)
{
    char path[600], got[1000], want[1000];
    const int rc = synth_in_tmp(c->file, c->text, "--check fifo --constraints %s", path, sizeof path, got, sizeof got);
    cr_assert_eq(rc, 2, "%s `%s`: exit status %d, want 2", c->file, c->text, rc);
    snprintf(want, sizeof want, "%s:%s", path, c->want);
    cr_assert(strncmp(got, want, strlen(want)) == 0, "%s `%s`:\n  got:  %s  want: %s", c->file, c->text, got, want);
    cr_assert_eq(strchr(got, '\n'), got + strlen(got) - 1, "one line of message, got:\n%s", got);
}

Test(rtl, synth_block_refuses_wrong_constraints_files_with_file_line_and_key, .timeout = 120)
{
    static const synth_case_t cases[] = {
        {"fifo.params", "Depth 4\n", "1: Depth: expected `Name=Value`"},
        {"fifo.params", "# a comment\nDepth=4\nDepth=8\n", "3: Depth: given twice (first on line 2)"},
        {"fifo.params", "Depth=4\nDepht=8\n", "2: Depht: fifo has no such parameter"},
        {"fifo.flow", "kep = skid_buf\n", "1: kep: unknown key"},
        {"fifo.flow", "keep =\n", "1: keep: expected"},
        {"fifo.flow", "keep = nosuch\n", "1: keep: nosuch: no such module"},
        {"fifo.flow", "\nkeep = fifo\n", "2: keep: fifo: the block itself"},
        {"fifo.flow", "keep = ram_1r1w\n", "1: keep: ram_1r1w: a storage wrapper"},
        {"fifo.flow", "keep = skid_buf\nkeep = rr_arb\n", "2: keep: given twice (first on line 1)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        synth_refuses(&cases[i]);
}

/* Yosys 0.23's `stat -json` is not JSON when a module under the top is itself hierarchical (it
 * prints the hierarchy's counts unquoted between "modules" and "design"); synth_block.py reads it
 * anyway. A three-level design, run through the real Yosys, with the counts checked. */
Test(rtl, synth_block_reads_the_stat_json_of_a_nested_hierarchy, .timeout = 60)
{
    char dir[] = "/tmp/synth_stat_XXXXXX";
    cr_assert(mkdtemp(dir), "mkdtemp");
    char path[600], cmd[2400];
    snprintf(path, sizeof path, "%s/nest.v", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs("module leaf(input a, output y); assign y = ~a; endmodule\n"
          "module mid(input a, output y); wire w; leaf u0(.a(a), .y(w)); leaf u1(.a(w), .y(y)); endmodule\n"
          "module top(input a, output y); mid m(.a(a), .y(y)); endmodule\n",
          f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "cd %s && yosys -q -p 'read_verilog nest.v; hierarchy -top top; proc; tee -q -o stat.json stat -json' "
             "> /dev/null",
             dir);
    cr_assert_eq(system(cmd), 0, "yosys failed on %s", path);
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import sys; sys.path.insert(0, 'scripts'); import synth_block as s; "
             "d = s.yosys_json('%s/stat.json'); m = d['modules']; "
             "print(d['design']['num_cells'], m['\\\\\\\\mid']['num_cells_by_type']['leaf'], len(m))\" > %s/out",
             dir, dir);
    cr_assert_eq(system(cmd), 0, "synth_block.yosys_json could not read %s/stat.json", dir);
    snprintf(path, sizeof path, "%s/out", dir);
    f = fopen(path, "r");
    cr_assert(f);
    int cells = -1, leaves = -1, mods = -1;
    cr_assert_eq(fscanf(f, "%d %d %d", &cells, &leaves, &mods), 3);
    fclose(f);
    cr_assert_eq(cells, 2, "two inverters in the whole design, got %d", cells);
    cr_assert_eq(leaves, 2, "mid holds two leaves, got %d", leaves);
    cr_assert_eq(mods, 3, "three modules, got %d", mods);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* A build killed while Verilator's makefile wrote a model's archive leaves a file newer than its
 * inputs but without the model's V<model>__ALL.ok (Makefile, vmodel): the next make archives it
 * again. Here in a build tree of its own (the small fifo_tb harness), with the archive replaced by
 * its first 100 bytes, as a kill during `ar` leaves it. */
/* The suite runs under make: an inner make must not join its jobserver. */
#define INNER_MAKE "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s"

/* A build tree of its own (dir, a mkdtemp template) and the small fifo_tb harness's archive in it. */
static void fifo_tb_tree(char *dir, char *a, size_t na)
{
    cr_assert(mkdtemp(dir), "mkdtemp");
    snprintf(a, na, "%s/vl/fifo_tb/Vfifo_tb__ALL.a", dir);
}

Test(rtl, a_model_archive_left_half_written_is_made_again, .timeout = 300)
{
    char dir[] = "/tmp/vl_archive_XXXXXX", cmd[1024], a[256];
    fifo_tb_tree(dir, a, sizeof a);
    const char *make = INNER_MAKE;
    snprintf(cmd, sizeof cmd, "%s B=%s %s > %s/make1.log 2>&1 && ar t %s > /dev/null", make, dir, a, dir, a);
    cr_assert_eq(system(cmd), 0, "the first build of %s failed (%s/make1.log)", a, dir);
    snprintf(cmd, sizeof cmd, "head -c 100 %s > %s/part && cp %s/part %s && rm -f %s/vl/fifo_tb/Vfifo_tb__ALL.ok && "
             "! ar t %s > /dev/null 2>&1", a, dir, dir, a, dir, a);
    cr_assert_eq(system(cmd), 0, "could not leave a half-written archive");
    snprintf(cmd, sizeof cmd, "%s B=%s %s > %s/make2.log 2>&1 && ar t %s | grep -q Vfifo_tb__ALL.o", make, dir, a, dir,
             a);
    cr_assert_eq(system(cmd), 0, "the next make left %s unreadable (%s/make2.log)", a, dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* A flavour's C++ options may be several words (VL_CXX_OPT_<flavour>, Makefile): they reach the
 * model's own makefile as one value (split, the second was taken for an option of make's) and are
 * kept in its options file. */
Test(rtl, a_model_builds_with_several_cxx_options, .timeout = 300)
{
    char dir[] = "/tmp/vl_cxxopt_XXXXXX", cmd[1024], a[256];
    fifo_tb_tree(dir, a, sizeof a);
    snprintf(cmd, sizeof cmd, INNER_MAKE " B=%s VL_CXX_OPT_test='-O1 -fno-inline' %s > %s/make.log 2>&1 && ar t %s | "
             "grep -q Vfifo_tb__ALL.o && grep -q 'c++ -O1 -fno-inline' %s/vl/fifo_tb/options", dir, a, dir, a, dir);
    cr_assert_eq(system(cmd), 0, "the build of %s with two C++ options failed (%s/make.log)", a, dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
