/* diktamo_bench's command line (csim/base/bench_opts): its defaults, every option, and each refusal with
 * its one line naming the argument (the program exits 2 with it). */
#include <criterion/criterion.h>
#include <string.h>

#include "base/bench_opts.h"

static int parse(bench_opts_t *o, char *err, const char *const *args)
{
    char *argv[64] = {"diktamo_bench"};
    int argc = 1;
    for (; args[argc - 1]; argc++)
        argv[argc] = (char *)args[argc - 1];
    err[0] = '\0';
    return bench_opts_parse(argc, argv, o, err, 256);
}

Test(bench_opts, defaults_and_every_option)
{
    bench_opts_t o;
    char err[256];
    cr_assert_eq(parse(&o, err, (const char *const[]){NULL}), 0, "%s", err);
    cr_assert_str_eq(o.out, "build/bench");
    cr_assert_eq(o.n_only, 0);
    cr_assert_eq(o.scale, 1.0);
    cr_assert_eq(o.repeat, 1);
    cr_assert(o.profile);
    cr_assert(bench_opts_selected(&o, "system paper ocean_cp"), "no --only: every row runs");

    const char *const a[] = {"--out", "/tmp/b", "--only", "paper", "--only", "busy", "--scale", "0.5",
                             "--repeat", "5", "--no-profile", NULL};
    cr_assert_eq(parse(&o, err, a), 0, "%s", err);
    cr_assert_not(o.profile);
    cr_assert_str_eq(o.out, "/tmp/b");
    cr_assert_eq(o.n_only, 2);
    cr_assert_eq(o.scale, 0.5);
    cr_assert_eq(o.repeat, 5);
    cr_assert(bench_opts_selected(&o, "system paper-size ycsb"));
    cr_assert(bench_opts_selected(&o, "fabric fabric_top_c16m16_fast busy"));
    cr_assert_not(bench_opts_selected(&o, "system small ocean_cp"));
    cr_assert_not(bench_opts_selected(&o, "kernel chains16"));
}

Test(bench_opts, bad_arguments_are_refused_with_the_argument_named)
{
    const struct {
        const char *args[4];
        const char *says;
    } bad[] = {
        {{"--fast", NULL}, "unknown argument: --fast"},
        {{"--repeat", NULL}, "--repeat needs a value"},
        {{"--repeat", "0", NULL}, "--repeat 0: a whole number from 1 to 100"},
        {{"--repeat", "101", NULL}, "--repeat 101"},
        {{"--repeat", "3x", NULL}, "--repeat 3x"},
        {{"--repeat", "-2", NULL}, "--repeat -2"},
        {{"--repeat", "", NULL}, "--repeat : a whole number"},
        {{"--scale", "0", NULL}, "--scale 0: a number in (0, 1000]"},
        {{"--scale", "1001", NULL}, "--scale 1001"},
        {{"--scale", "nan", NULL}, "--scale nan"},
        {{"--out", NULL}, "--out needs a value"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bench_opts_t o;
        char err[256];
        cr_assert_eq(parse(&o, err, bad[i].args), 2, "case %u (%s) accepted", i, bad[i].says);
        cr_assert(strstr(err, bad[i].says), "case %u: \"%s\" does not say \"%s\"", i, err, bad[i].says);
        cr_assert(!strchr(err, '\n'), "case %u: one line", i);
    }
    /* More than BENCH_MAX_ONLY patterns: refused, not dropped. */
    const char *many[2 * BENCH_MAX_ONLY + 3];
    for (unsigned i = 0; i <= BENCH_MAX_ONLY; i++) {
        many[2 * i] = "--only";
        many[2 * i + 1] = "x";
    }
    many[2 * BENCH_MAX_ONLY + 2] = NULL;
    bench_opts_t o;
    char err[256];
    cr_assert_eq(parse(&o, err, many), 2);
    cr_assert(strstr(err, "at most 16 patterns"), "%s", err);
}
