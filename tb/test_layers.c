/* csim/'s layers (docs/architecture.md section 1): scripts/check_layers.py, which make lint runs,
 * passes the tree as it is and names every include that points up or sideways, a bare include of a
 * layer's header, a header that does not exist, a private header (NAME_priv.h) included outside its
 * NAME*.c, a file at csim's top level and an unknown folder. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/layerstestXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* Writes text to dir/rel, making its folder. */
static void put(const char *rel, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    for (char *q = p + strlen(dir) + 1; (q = strchr(q, '/')) != NULL; q++) { /* its folders, outermost first */
        *q = '\0';
        mkdir(p, 0755);
        *q = '/';
    }
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    fputs(text, f);
    fclose(f);
}

/* Runs the check on root; its exit status, and its standard output in out. */
static int check(const char *root, char *out, size_t n)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "python3 scripts/check_layers.py %s 2>&1", root);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t r = fread(out, 1, n - 1, p);
    out[r] = '\0';
    int w = pclose(p);
    return WIFEXITED(w) ? WEXITSTATUS(w) : -1;
}

/* A tree whose every include points down: base/ at the bottom, cn/ and mn/ above it. */
static void good_tree(void)
{
    put("csim/base/kernel.h", "#include <stdint.h>\n#include \"msg_defs.h\"\n");
    put("csim/base/kernel.c", "#include \"base/kernel.h\"\n");
    put("csim/cn/core.h", "#include \"base/kernel.h\"\n#include \"vw_fabric_top_c4m2.h\"\n");
    put("csim/cn/core.c", "#include \"cn/core.h\"\n");
    put("csim/mn/mn_node.h", "#include \"base/kernel.h\"\n");
}

Test(layers, the_tree_as_it_is_follows_its_layers)
{
    char out[4096];
    cr_assert_eq(check("csim", out, sizeof out), 0, "%s", out);
}

Test(layers, includes_that_point_down_pass, .init = make_dir, .fini = remove_dir)
{
    good_tree();
    char root[128], out[4096];
    snprintf(root, sizeof root, "%s/csim", dir);
    cr_assert_eq(check(root, out, sizeof out), 0, "%s", out);
    cr_assert_str_empty(out);
}

Test(layers, an_include_up_or_sideways_is_named_with_file_and_line, .init = make_dir, .fini = remove_dir)
{
    good_tree();
    put("csim/base/config.c", "#include <stdio.h>\n\n#include \"cn/core.h\"\n");
    put("csim/cn/cn_repl.c", "#include \"mn/mn_node.h\"\n");
    char root[128], out[4096];
    snprintf(root, sizeof root, "%s/csim", dir);
    cr_assert_eq(check(root, out, sizeof out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "csim/base/config.c:3: #include \"cn/core.h\": base/ (rank 0) may not include "
                                   "cn/ (rank 3): only lower layers\n"),
                       "%s", out);
    cr_assert_not_null(strstr(out, "csim/cn/cn_repl.c:1: #include \"mn/mn_node.h\": cn/ (rank 3) may not include "
                                   "mn/ (rank 3): only lower layers\n"),
                       "%s", out);
    cr_assert_not_null(strstr(out, "check_layers: 2 include(s) against the layers\n"), "%s", out);
}

Test(layers, bare_missing_and_unknown_are_refused, .init = make_dir, .fini = remove_dir)
{
    good_tree();
    put("csim/cn/cache.c", "#include \"kernel.h\"\n#include \"base/nothing.h\"\n#include \"tb/x.h\"\n");
    put("csim/cn/cn_mem_priv.h", "\n");
    put("csim/cn/cn_mem_port.c", "#include \"cn/cn_mem_priv.h\"\n");
    put("csim/cn/core.c", "#include \"cn/core.h\"\n#include \"cn/cn_mem_priv.h\"\n");
    put("csim/stray.c", "int x;\n");
    put("csim/extra/a.h", "\n");
    char root[128], out[4096];
    snprintf(root, sizeof root, "%s/csim", dir);
    cr_assert_eq(check(root, out, sizeof out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "cache.c:1: #include \"kernel.h\": name its folder (\"<layer>/kernel.h\")\n"), "%s",
                       out);
    cr_assert_not_null(strstr(out, "cache.c:2: #include \"base/nothing.h\": no such header\n"), "%s", out);
    cr_assert_not_null(strstr(out, "cache.c:3: #include \"tb/x.h\": tb/ is not a layer of csim/\n"), "%s", out);
    cr_assert_not_null(strstr(out, "core.c:2: #include \"cn/cn_mem_priv.h\": a private header, for cn_mem*.c of cn/ "
                                   "only\n"),
                       "%s", out);
    cr_assert_null(strstr(out, "cn_mem_port.c"), "%s", out);
    cr_assert_not_null(strstr(out, "csim/stray.c: a file at csim's top level"), "%s", out);
    cr_assert_not_null(strstr(out, "csim/extra: folder not in scripts/check_layers.py's LAYERS"), "%s", out);
}

Test(layers, bad_usage_is_status_2, .init = make_dir, .fini = remove_dir)
{
    char root[128], out[4096];
    snprintf(root, sizeof root, "%s/none", dir);
    cr_assert_eq(check(root, out, sizeof out), 2, "%s", out);
    cr_assert_not_null(strstr(out, "none: not a directory\n"), "%s", out);
    cr_assert_eq(check("csim csim", out, sizeof out), 2, "%s", out);
    cr_assert_not_null(strstr(out, "usage: check_layers.py [CSIM_DIR]\n"), "%s", out);
}
