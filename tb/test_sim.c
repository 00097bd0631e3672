/* The simulator programs as a user runs them: bad input ends with one line and exit status 2 and
 * writes nothing; a seed replays a run exactly; an aborted run still leaves a readable trace. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TB_BIN_DIR
#define TB_BIN_DIR "build/bin"
#endif
#define CFG TB_BIN_DIR "/diktamo_cfg"
#define SIM TB_BIN_DIR "/diktamo_sim_c4m2_test"
#define SIM_FAST TB_BIN_DIR "/diktamo_sim_c4m2" /* the fast flavour: no assertions, no tracing */

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/simtestXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

typedef struct result {
    int exited, status, signal;
    char out[8192], err[8192];
} result_t;

static void slurp(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t r = fread(buf, 1, n - 1, f);
    buf[r] = '\0';
    fclose(f);
}

/* Runs cmd (a shell command line) with stdout and stderr captured. */
static void run(const char *cmd, result_t *r)
{
    char line[4096];
    snprintf(line, sizeof line, "%s >%s/out 2>%s/err", cmd, dir, dir);
    int w = system(line);
    memset(r, 0, sizeof *r);
    /* system() runs sh -c; a child killed by a signal shows as 128 + signal from the shell. */
    r->exited = WIFEXITED(w);
    r->status = WIFEXITED(w) ? WEXITSTATUS(w) : -1;
    r->signal = WIFSIGNALED(w) ? WTERMSIG(w) : (r->status > 128 ? r->status - 128 : 0);
    char p[128];
    snprintf(p, sizeof p, "%s/out", dir);
    slurp(p, r->out, sizeof r->out);
    snprintf(p, sizeof p, "%s/err", dir);
    slurp(p, r->err, sizeof r->err);
}

/* The sum over CNs 0 .. 3 of the statistic key (dotted, below "cnN") in the stats file name of dir. */
static long cn_sum(const char *name, const char *key)
{
    char cmd[512];
    result_t r;
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json, sys\nd = json.load(open(sys.argv[1]))\ndef at(x, k):\n"
             "    for p in k.split(\".\"):\n        x = x[p]\n    return x\n"
             "print(sum(at(d[\"cn%%u\" %% c], sys.argv[2]) for c in range(4)))' %s/%s %s",
             dir, name, key);
    run(cmd, &r);
    cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
    return atol(r.out);
}

static unsigned lines(const char *s)
{
    unsigned n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void write_file(const char *name, const char *text)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static bool exists(const char *name)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat st;
    return stat(p, &st) == 0;
}

/* Each case: arguments, a text the one error line must contain. */
static const struct {
    const char *file; /* contents of bad.ini, or NULL */
    const char *args;
    const char *want;
} bad_cases[] = {
    {NULL, "--config /nonexistent/x.ini", "/nonexistent/x.ini: cannot open"},
    {"[system]\nnum_cn = 4\n[fabric]\nnope = 1\n", "--config DIR/bad.ini", "bad.ini:4: fabric.nope: unknown key"},
    {"[sytem]\nnum_cn = 4\n", "--config DIR/bad.ini", "bad.ini:1:"},
    {"[system]\nnum_cn = four\n", "--config DIR/bad.ini", "bad.ini:2: system.num_cn:"},
    {"[system]\nnum_cn = 33\n", "--config DIR/bad.ini", "bad.ini:2: system.num_cn:"},
    {"[fabric]\nfreq = 2.4 GHzz\n", "--config DIR/bad.ini", "bad.ini:2: fabric.freq:"},
    {NULL, "--config sim_configs/small.ini --set lu.nr=9 --set core.protocol=proactive", "lu.nr"},
    {NULL, "--config sim_configs/small.ini --set fabric.freq", "fabric.freq"},
    {NULL, "--config sim_configs/small.ini --set nodot=1", "nodot"},
    {NULL, "--config sim_configs/small.ini --bogus", "unknown argument: --bogus"},
    {NULL, "--config sim_configs/small.ini --seed", "option needs a value: --seed"},
    {NULL, "--config sim_configs/small.ini --trace-start 5 --trace x.fst", "not a time with a unit"},
    {NULL, "--config sim_configs/small.ini --fail 2", "--fail wants CN@TIME"},
    {NULL, "--config sim_configs/small.ini --fail x@1us", "--fail wants CN@TIME"},
    {NULL, "--config sim_configs/small.ini --fail 1@soon", "--fail: not a time"},
    {NULL, "--config sim_configs/small.ini --fail 40@1us", "--fail wants CN@TIME"},
    {NULL, "--config sim_configs/small.ini --fail 1@++1us", "--fail: not a time"},
    {NULL, "--config sim_configs/small.ini --fail 1@-1us", "--fail: not a time"},
    {NULL, "--config sim_configs/small.ini --set workload.name=lu_cb", "workload.name"},
    {NULL, "--config sim_configs/small.ini --set core.protocol=wbx", "core.protocol"},
    {NULL, "--config sim_configs/small.ini --set workload.threads=9", "workload.threads: 9 threads need as many cores"},
    {NULL, "--config sim_configs/small.ini --set fail.cn=5 --set fail.at=2us", "fail.cn"},
    {NULL, "--config sim_configs/small.ini --set fail.at=2us --set fail.after_commits=10", "one moment"},
    {NULL, "--config sim_configs/small.ini --set fail.random=yes", "needs its bound"},
    {NULL, "--config sim_configs/small.ini --set fail.at=2us --set fabric.silence_limit=0 --set fabric.accept_limit=0",
     "must be detected"},
    {NULL, "--config sim_configs/small.ini --set core.sync=ideal --set fail.after_commits=100",
     "core.sync = ideal (--set core.sync=ideal), fail.after_commits"},
    {NULL, "--config sim_configs/small.ini --set core.sync=perfect", "core.sync"},
    {"[core]\nsync = ideal\n[fail]\nat = 3 us\n", "--config DIR/bad.ini", "bad.ini:2: core.sync"},
    {"[fail]\nat = soon\n", "--config DIR/bad.ini", "bad.ini:2: fail.at:"},
    {"[recovery]\nrec_search = 2 s\n", "--config DIR/bad.ini", "bad.ini:2: recovery.rec_search:"},
};

/* Bad input only the simulator sees (the workload's setup, options of a run). */
static const struct {
    const char *args, *want;
} bad_run_cases[] = {
    {"--config sim_configs/small.ini --set workload.name=ycsb --set mem.mn_size=4KiB",
     "workload.name: ycsb:"},
    {"--config sim_configs/small.ini --fail 9@1us", "--fail 9@...: sim_configs/small.ini: system.num_cn = "},
    {"--config sim_configs/small.ini --set core.sync=ideal --fail 1@1us", "core.sync = ideal leaves lock and"},
    {"--config sim_configs/small.ini --fail 2@+1us --fail 1@1us",
     "--fail 2@+...: a failure after a recovery needs a failure before it"},
    {"--config sim_configs/small.ini --traffic --fail 1@1us --fail 2@+1us",
     "--fail 2@+...: a failure after a recovery needs a workload run"},
    {"--config sim_configs/small.ini --set core.protocol=proactive --set lu.sram_bytes=8KiB",
     "lu.sram_bytes: 8192, but the linked logging_unit model has 256 entries"},
};

Test(sim, bad_input_to_a_run_is_one_line_and_exit_2, .init = make_dir, .fini = remove_dir)
{
    for (size_t i = 0; i < sizeof bad_run_cases / sizeof bad_run_cases[0]; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, SIM " %s --quiet --stats %s/stats.json", bad_run_cases[i].args, dir);
        result_t r;
        run(cmd, &r);
        cr_assert(r.exited && r.status == 2, "%s: exit %d, want 2; stderr: %s", cmd, r.status, r.err);
        cr_assert_eq(lines(r.err), 1, "%s: want one line on stderr, got: %s", cmd, r.err);
        cr_assert_not_null(strstr(r.err, bad_run_cases[i].want), "%s: message '%s' lacks '%s'", cmd, r.err,
                           bad_run_cases[i].want);
        cr_assert(!exists("stats.json"), "%s: bad input must write nothing", cmd);
    }
}

/* The simulator built with AddressSanitizer and UndefinedBehaviorSanitizer (make asan-sim, SAN=1;
 * make test-asan runs the whole suite so) on a few short runs that reach every part: a DIKTAMO
 * protocol with its LUs, a CN failure and its recovery, the host software on partly coherent
 * memory, the fabric's traffic generator. Any finding ends the run (halt_on_error) with a report. */
Test(sim, the_simulator_under_asan_and_ubsan_finds_nothing, .init = make_dir, .fini = remove_dir, .timeout = 300)
{
    static const char *const runs[] = {
        "--config sim_configs/small.ini --set core.protocol=proactive",
        "--config sim_configs/run.ini --set workload.name=canneal --set core.protocol=parallel --fail 2@15us",
        "--config sim_configs/pc.ini --set workload.name=megalon",
        "--config sim_configs/small.ini --traffic",
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "
                 "build/asan/bin/diktamo_sim_c4m2_test %s --quiet --stats %s/asan%zu.json",
                 runs[i], dir, i);
        result_t r;
        run(cmd, &r);
        cr_assert_eq(r.status, 0, "%s: exit %d: %.3000s", cmd, r.status, r.err);
        cr_assert_null(strstr(r.err, "Sanitizer"), "%s: %.3000s", cmd, r.err);
        cr_assert_null(strstr(r.err, "runtime error"), "%s: %.3000s", cmd, r.err);
    }
}

/* Files in dir whose name holds a temporary's mark (outfile's "<path>.tmp.<pid>"), counted. */
static int temporaries(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "find %s -name '*.tmp.*' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    cr_assert_not_null(p);
    cr_assert_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

/* Every output is opened before the run starts: a path that cannot be written (a folder under a
 * file, a folder itself) stops it with one line naming the option, the path and the reason, exit 2,
 * nothing started. An INI file with bytes that are not text is bad input too. A finished run leaves
 * its statistics and their .ini and no temporary; a run killed by a signal says so and leaves
 * neither. */
Test(sim, outputs_are_checked_before_the_run_and_written_whole, .init = make_dir, .fini = remove_dir,
     .timeout = 120)
{
    write_file("f", "a file, not a folder\n");
    const struct {
        const char *args, *want;
    } bad[] = {
        {"--stats DIR/f/x.json", "diktamo_sim: --stats DIR/f/x.json: cannot write: Not a directory"},
        {"--stats DIR", "diktamo_sim: --stats DIR: cannot write: Is a directory"},
        {"--trace DIR/f/t.fst", "diktamo_sim: --trace DIR/f/t.fst: cannot write: Not a directory"},
        {"--config DIR/nul.ini", "nul.ini:2: syntax: byte 0x00 at column 11 is not text"},
    };
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "printf '[system]\\nnum_cn = 4\\0\\0\\n' > %s/nul.ini", dir);
    cr_assert_eq(system(cmd), 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[512], want[512];
        const char *a = bad[i].args, *d = strstr(a, "DIR"), *w = bad[i].want, *e = strstr(w, "DIR");
        snprintf(args, sizeof args, "%.*s%s%s", (int)(d - a), a, dir, d + 3);
        if (e)
            snprintf(want, sizeof want, "%.*s%s%s", (int)(e - w), w, dir, e + 3);
        else
            snprintf(want, sizeof want, "%s", w);
        snprintf(cmd, sizeof cmd, SIM " --config sim_configs/small.ini %s", args);
        result_t r;
        run(cmd, &r);
        cr_assert(r.exited && r.status == 2, "%s: exit %d, want 2; stderr: %s", cmd, r.status, r.err);
        cr_assert_eq(lines(r.err), 1, "%s: want one line on stderr, got: %s", cmd, r.err);
        cr_assert_not_null(strstr(r.err, want), "%s: message '%s' lacks '%s'", cmd, r.err, want);
        cr_assert_null(strstr(r.out, "diktamo_sim: config"), "%s: the run started: %s", cmd, r.out);
    }
    cr_assert_eq(temporaries(), 0, "a refused run left a temporary");

    result_t r;
    snprintf(cmd, sizeof cmd, SIM " --config sim_configs/small.ini --quiet --stats %s/ok/x.json", dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
    cr_assert(exists("ok/x.json") && exists("ok/x.json.ini"), "%s: no statistics", cmd);
    cr_assert_eq(temporaries(), 0, "%s left a temporary", cmd);

    snprintf(cmd, sizeof cmd,
             "timeout -s TERM 1 " SIM " --config sim_configs/run.ini --set workload.name=ycsb "
             "--set workload.ycsb_ops=5000000 --quiet --stats %s/k/x.json",
             dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 124, "%s: exit %d, want 124 (timed out); stderr: %s", cmd, r.status, r.err);
    cr_assert_not_null(strstr(r.err, "diktamo_sim: run died; seed 1 (replay: same arguments with --seed 1): "
                                     "killed by SIGTERM\n"),
                       "%s: %s", cmd, r.err);
    cr_assert(!exists("k/x.json") && !exists("k/x.json.ini"), "%s: a killed run left statistics", cmd);
    cr_assert_eq(temporaries(), 0, "%s left a temporary", cmd);
}

static void check_bad(const char *prog)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        if (bad_cases[i].file)
            write_file("bad.ini", bad_cases[i].file);
        char args[512], cmd[1024];
        const char *a = bad_cases[i].args;
        const char *d = strstr(a, "DIR");
        if (d)
            snprintf(args, sizeof args, "%.*s%s%s", (int)(d - a), a, dir, d + 3);
        else
            snprintf(args, sizeof args, "%s", a);
        snprintf(cmd, sizeof cmd, "%s %s --stats %s/stats.json", prog, args, dir);
        result_t r;
        run(cmd, &r);
        cr_assert(r.exited && r.status == 2, "%s %s: exit %d, want 2; stderr: %s", prog, args, r.status, r.err);
        cr_assert_eq(lines(r.err), 1, "%s %s: want one line on stderr, got: %s", prog, args, r.err);
        cr_assert_not_null(strstr(r.err, bad_cases[i].want), "%s %s: message '%s' lacks '%s'", prog, args, r.err,
                           bad_cases[i].want);
        cr_assert(!exists("stats.json"), "%s %s: bad input must write nothing", prog, args);
    }
}

Test(sim, bad_input_to_diktamo_cfg_is_one_line_and_exit_2, .init = make_dir, .fini = remove_dir)
{
    check_bad(CFG);
}

Test(sim, bad_input_to_diktamo_sim_is_one_line_and_exit_2, .init = make_dir, .fini = remove_dir)
{
    check_bad(SIM);
    check_bad(SIM_FAST);
}

Test(sim, a_binary_refuses_a_configuration_of_another_shape, .init = make_dir, .fini = remove_dir)
{
    result_t r;
    run(SIM " --config sim_configs/paper.ini", &r);
    cr_assert_eq(r.status, 2, "stderr: %s", r.err);
    cr_assert_not_null(strstr(r.err, "run_sim.sh"), "%s", r.err);
    run(CFG " --config sim_configs/paper.ini --shape", &r);
    cr_assert_eq(r.status, 0);
    cr_assert_str_eq(r.out, "c16m16\n");
}

Test(sim, a_failed_cn_is_reported_with_its_msi, .init = make_dir, .fini = remove_dir)
{
    result_t r;
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             SIM " --traffic --config sim_configs/small.ini --set fabric.heartbeat=50 --set fabric.silence_limit=200 "
                 "--set traffic.load=0.2 --fail 2@1us --seed 3 --stats %s/f.json",
             dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert_not_null(strstr(r.out, "CN 2 failed at 1.000 us"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "MSI: CN 2 failed, told to CN 0 (the CM)"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, " 0 wrong"), "live traffic is all right: %s", r.out);
    snprintf(cmd, sizeof cmd, SIM " --traffic --config sim_configs/small.ini --fail 4@1us --stats %s/g.json", dir);
    run(cmd, &r);
    cr_assert(r.exited && r.status == 2, "CN 4 of a 4-CN system: exit %d; %s", r.status, r.err);
    cr_assert_eq(lines(r.err), 1, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "system.num_cn = 4"), "%s", r.err);
    cr_assert(!exists("g.json"), "bad input writes nothing");
}

/* --fail CN@+TIME: back-to-back failures, each TIME after the recovery of every failure before it
 * has ended, whatever the recoveries take: three in a row are three recovery runs, none joined to
 * another, all recovered with Nr 3 (the oracle finds nothing lost). */
Test(sim, a_failure_after_a_recovery_comes_after_its_end, .init = make_dir, .fini = remove_dir, .timeout = 300)
{
    result_t r;
    char cmd[512], p[128];
    snprintf(cmd, sizeof cmd, SIM_FAST " --config sim_configs/run.ini --set workload.name=ycsb --set lu.nr=3 "
             "--set core.protocol=proactive --fail 1@3us --fail 2@+1us --fail 3@+0ns --stats %s/b.json", dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 0, "%s\nstderr: %.2000s", cmd, r.err);
    cr_assert_not_null(strstr(r.out, "CN 2 fails 1.000 us after the recoveries before it (--fail)"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "3 CN failure(s), 3 recovered"), "%s", r.out);
    static char json[1 << 18];
    snprintf(p, sizeof p, "%s/b.json", dir);
    slurp(p, json, sizeof json);
    char *rec = strstr(json, "\"recovery\": {"), *end = rec ? strchr(rec, '}') : NULL;
    cr_assert(rec && end, "no recovery statistics");
    *end = '\0'; /* a flat object: its keys only */
    cr_assert_not_null(strstr(rec, "\"runs\": 3,"), "three recovery runs: %s", rec);
    cr_assert_not_null(strstr(rec, "\"joined\": 0,"), "none joined another: %s", rec);
    cr_assert_not_null(strstr(rec, "\"unrecoverable\": 0,"), "%s", rec);
    *end = '}';
    cr_assert_not_null(strstr(json, "\"lost\": 0"), "%.200s", strstr(json, "\"oracle\""));
}

/* A recovery whose LUs search long logs retires no instruction for milliseconds (TravLU 1.6 ms
 * here: small.ini dumps every 100 us, and the LUs answer a batch of requests per pass over their
 * logs); the stall detector counts the answers the MNs' handlers take as progress, so such a run is
 * not stopped as a deadlock (it was, with a stall timeout shorter than the search). */
Test(sim, a_long_log_search_in_a_recovery_is_not_a_stall, .init = make_dir, .fini = remove_dir, .timeout = 300)
{
    result_t r;
    char cmd[512];
    snprintf(cmd, sizeof cmd, SIM_FAST " --config sim_configs/small.ini --set workload.name=ycsb "
             "--set workload.ycsb_ops=512 --set core.protocol=baseline --set sim.stall_timeout=100us --fail 1@60us "
             "--stats %s/s.json", dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 0, "%s\nstderr: %.2000s", cmd, r.err);
    cr_assert_not_null(strstr(r.out, "1 CN failure(s), 1 recovered"), "%s", r.out);
    const char *t = strstr(r.out, "TravLU ");
    cr_assert(t && atol(t + 7) > 100000, "the search took less than the stall timeout: %s", r.out);
}

/* Two failures one after the other with Nr 2, the second 1 us after the first one's recovery had
 * ended: 46 words committed by CN 2 before the first failure were lost, nothing reported. Their
 * copy in CN 1's LU went with CN 1, the replica map gave CN 1's buckets to CN 2, which held the only
 * other copy, and CN 2 failed before its next dump had reached its MN's log store. Now a recovery
 * ends only once every live LU has dumped its log (an LU answers RECOV_END after its dump), so such
 * a store has its copy in an MN log store again: nothing is lost, with three failures in a row too.
 * A failure during those dumps counts with the failure being recovered (Nr 2: unrecoverable, said
 * so, exit 1). */
Test(sim, a_failure_after_a_recovery_finds_every_store_with_its_copies_again, .init = make_dir, .fini = remove_dir,
     .timeout = 300)
{
    static const struct {
        const char *args;
        int status;
        const char *want, *cut;
    } runs[] = {
        {"--set lu.nr=2 --fail 1@3us --fail 2@+1us", 0, "2 CN failure(s), 2 recovered", "\"cut_short\": 0,"},
        {"--set lu.nr=2 --fail 1@3us --fail 2@+1us --fail 3@+0ns", 0, "3 CN failure(s), 3 recovered",
         "\"cut_short\": 0,"},
        {"--set lu.nr=2 --fail 1@3us --fail 2@54us", 1,
         "unrecoverable: 2 CNs (mask 0x6) failed before a recovery ended", "\"cut_short\": 1,"},
        /* (Nr 3: the same cut, two failures before a recovery ended, recovered) */
        {"--set lu.nr=3 --fail 1@3us --fail 2@62us", 0, "2 CN failure(s), 2 recovered", "\"cut_short\": 1,"},
    };
    for (unsigned i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        result_t r;
        char cmd[512], p[128];
        snprintf(cmd, sizeof cmd, SIM " --config sim_configs/run.ini --set workload.name=ycsb "
                 "--set core.protocol=proactive %s --stats %s/b%u.json", runs[i].args, dir, i);
        run(cmd, &r);
        cr_assert_eq(r.status, runs[i].status, "%s\nstdout: %.2000s\nstderr: %.2000s", cmd, r.out, r.err);
        cr_assert(strstr(r.out, runs[i].want) || strstr(r.err, runs[i].want), "%s: no \"%s\" in\n%.3000s\n%.2000s",
                  cmd, runs[i].want, r.out, r.err);
        static char json[1 << 18];
        snprintf(p, sizeof p, "%s/b%u.json", dir, i);
        slurp(p, json, sizeof json);
        char *rec = strstr(json, "\"recovery\": {"), *end = rec ? strchr(rec, '}') : NULL;
        cr_assert(rec && end, "%s: no recovery statistics", cmd);
        *end = '\0';
        cr_assert_not_null(strstr(rec, runs[i].cut), "%s: %s", cmd, rec);
        *end = '}';
        if (!runs[i].status)
            cr_assert_not_null(strstr(json, "\"lost\": 0"), "%s: %.200s", cmd, strstr(json, "\"oracle\""));
    }
}

/* Runs of make faults (RUNS=200 SEED=7, runs 060 and 130: bodytrack, one CN failing early, another
 * after the first recovery) whose check found bands of the gradient map unwritten: each phase's end
 * redid the lost threads' shares once, and work the survivors had been given was lost again with the
 * second CN. Now a phase's end reads every share's done mark between two barriers and redoes what
 * is missing until none is (csim/workloads/bodytrack.c). */
Test(sim, bodytrack_s_work_lost_with_a_second_cn_is_redone, .init = make_dir, .fini = remove_dir, .timeout = 300)
{
    static const char *const runs[] = {
        "--seed 1481908851 --set core.protocol=baseline --fail 0@9152ns --fail 2@184686ns",
        "--seed 2081368687 --set core.protocol=proactive --fail 1@4790ns --fail 2@172758ns",
    };
    for (unsigned i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        result_t r;
        char cmd[512];
        snprintf(cmd, sizeof cmd, SIM " --config sim_configs/run.ini --quiet --set workload.name=bodytrack "
                 "--set lu.nr=2 %s", runs[i]);
        run(cmd, &r);
        /* exit 0: both failures recovered, the check and the oracle passed */
        cr_assert_eq(r.status, 0, "%s\nstderr: %.2000s", cmd, r.err);
    }
}

/* small.ini's fluidanimate under DIKTAMO-proactive, with the default lu.head_reserve = per_core,
 * stalled 15 286 instructions in: the LUs of CNs 0 and 1 were full of early REPL sets and of
 * validated words waiting behind younger early sets of their own cores (VALs of older stores that
 * might have been overtaken), whose stores waited behind store-buffer heads that those full buffers
 * refused. The CN's share counts an early set only until its VAL, so the held words ate the room
 * kept for heads. Now an LU with a REPL waiting for room asks the holders' CNs whether their stores
 * have committed (REPL_QUERY), and an uncommitted one holds nothing back (docs/architecture.md
 * section 11b). The run finishes, its check and oracle pass, and the LUs did ask. */
Test(sim, proactive_fluidanimate_on_small_ini_does_not_deadlock, .init = make_dir, .fini = remove_dir,
     .timeout = 120)
{
    result_t r;
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             SIM " --config sim_configs/small.ini --set workload.name=fluidanimate --set core.protocol=proactive "
                 "--stats %s/f.json",
             dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 0, "%s\nstderr: %.3000s", cmd, r.err);
    cr_assert_not_null(strstr(r.out, " 0 lost, 0 phantom"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "in commit order: yes"), "%s", r.out);
    cr_assert_gt(cn_sum("f.json", "lu.csr.queries"), 0, "the LUs never asked");
}

/* Runs of make faults with Nr 1 (e.g. RUNS=10000 SEED=1) that stalled instead of ending
 * unrecoverable: the failed CN's LU was the only replica of its lines, and every early REPL set the
 * survivors had sent it went to its lines' new replica at once, beyond the survivors' shares of that
 * buffer; it filled with early sets whose stores waited behind heads it refused. Now a replacement's
 * REPL beyond the share waits for its store's head (cnN.repl.held_for_head). With Nr 1 the run ends
 * unrecoverable (exit 1, the CM's message); with Nr 2 the same failure is recovered, nothing lost. */
Test(sim, a_failed_replicas_early_sets_do_not_fill_its_replacement, .init = make_dir, .fini = remove_dir,
     .timeout = 120)
{
    for (unsigned nr = 1; nr <= 2; nr++) {
        result_t r;
        char cmd[640];
        snprintf(cmd, sizeof cmd,
                 SIM " --config sim_configs/run.ini --seed 1 --set workload.name=bodytrack "
                     "--set workload.bodytrack_particles=64 --set core.protocol=proactive --set lu.nr=%u "
                     "--set fail.cn=1 --set fail.after_commits=684 --stats %s/h%u.json",
                 nr, dir, nr);
        run(cmd, &r);
        cr_assert_null(strstr(r.err, "no instruction"), "%s: stalled\nstderr: %.3000s", cmd, r.err);
        if (nr == 1) {
            cr_assert_eq(r.status, 1, "%s\nstderr: %.3000s", cmd, r.err);
            cr_assert_not_null(strstr(r.err, "unrecoverable: 1 CNs (mask 0x2)"), "%s", r.err);
        } else {
            cr_assert_eq(r.status, 0, "%s\nstderr: %.3000s", cmd, r.err);
            cr_assert_not_null(strstr(r.out, " 0 lost, 0 phantom"), "%s", r.out);
        }
        snprintf(cmd, sizeof cmd, "h%u.json", nr);
        cr_assert_gt(cn_sum(cmd, "repl.held_for_head"), 0, "Nr %u: no REPL was held for the head", nr);
    }
}

/* A run of make faults (RUNS=200 SEED=7, run 092) whose recovery stalled: MN 0's directory table was
 * full of transactions held on the failed CN's lines, and the RECOVER at the head of its port
 * needed a transaction of its own; the RECOVERs that release the held ones waited behind it. Now
 * the directory answers BUSY and the MN's handler sends that RECOVER again. */
Test(sim, a_recovery_finding_a_directory_table_full_completes, .init = make_dir, .fini = remove_dir, .timeout = 300)
{
    result_t r;
    char cmd[512];
    static char json[1 << 18];
    snprintf(cmd, sizeof cmd,
             SIM " --config sim_configs/run.ini --quiet --seed 132618470 --set workload.name=ocean_cp --set lu.nr=2 "
                 "--set core.protocol=parallel --set fail.cn=2 --set fail.at=22858ns --stats %s/b.json",
             dir);
    run(cmd, &r);
    /* exit 0: the run ended, and the oracle found every committed store (none lost, none phantom) */
    cr_assert_eq(r.status, 0, "%s\nstderr: %.2000s", cmd, r.err);
    char p[128];
    snprintf(p, sizeof p, "%s/b.json", dir);
    slurp(p, json, sizeof json);
    /* the BUSY answers happened (mnN.recov.busy), so this run still covers them */
    unsigned long long busy = 0;
    for (const char *s = json; (s = strstr(s, "\"busy\": ")); s++)
        busy += strtoull(s + 8, NULL, 10);
    cr_assert_gt(busy, 0, "no RECOVER was answered BUSY: the run no longer fills a directory's table");
}

/* The statistics of a run, minus what depends on the machine (wall time) and on skipping. */
static void stats_without_wall(const char *json, char *out, size_t n)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import json,sys; d=json.load(open('%s')); d['run'].pop('wall_s'); "
             "print(json.dumps(d, sort_keys=True))\" > %s/norm 2>&1",
             json, dir);
    cr_assert_eq(system(cmd), 0, "stats JSON %s is not valid", json);
    char p[128];
    snprintf(p, sizeof p, "%s/norm", dir);
    slurp(p, out, n);
}

Test(sim, a_seed_replays_the_run_exactly, .init = make_dir, .fini = remove_dir)
{
    static char a[1 << 16], b[1 << 16], c[1 << 16];
    char cmd[512], json[128];
    result_t r;
    const char *base = SIM " --traffic --config sim_configs/small.ini --set traffic.messages=300 --set fabric.link_jitter=5ns";
    for (int i = 0; i < 3; i++) {
        snprintf(json, sizeof json, "%s/run%d.json", dir, i);
        snprintf(cmd, sizeof cmd, "%s --seed %d --stats %s", base, i == 2 ? 8 : 7, json);
        run(cmd, &r);
        cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
        cr_assert_not_null(strstr(r.out, "seed 7") ? r.out : strstr(r.out, "seed 8"), "the seed is printed at start");
        stats_without_wall(json, i == 0 ? a : i == 1 ? b : c, sizeof a);
    }
    cr_assert_str_eq(a, b, "seed 7 twice: the statistics must be identical");
    cr_assert_str_neq(a, c, "seeds 7 and 8 should differ");
}

/* Runs binary sim[i] with args and extra[i], for i = 0, 1, and requires the same statistics but the
 * host's side, which differs by design: wall time, kernel events, instructions per wall second, and
 * the cycles each block was clocked and skipped. The first difference is printed. */
static void same_stats(const char *const sim[2], const char *const extra[2], const char *args)
{
    char cmd[1024], json[128], q[1024];
    result_t r;
    static char a[1 << 20], b[1 << 20];
    for (int i = 0; i < 2; i++) {
        snprintf(json, sizeof json, "%s/w%d.json", dir, i);
        snprintf(cmd, sizeof cmd, "%s %s --quiet --stats %s %s", sim[i], args, json, extra[i]);
        run(cmd, &r);
        cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
        snprintf(q, sizeof q,
                 "python3 -c \"import json\n"
                 "def f(d):\n"
                 "  return {k: f(v) for k, v in d.items() if k not in ('wall_s', 'instr_per_s', 'kernel_events', "
                 "'cycles_clocked', 'cycles_skipped')} if isinstance(d, dict) else d\n"
                 "print(json.dumps(f(json.load(open('%s'))), sort_keys=True, indent=0))\" > %s/m%d",
                 json, dir, i);
        cr_assert_eq(system(q), 0);
        snprintf(q, sizeof q, "%s/m%d", dir, i);
        slurp(q, i ? b : a, sizeof a);
    }
    cr_assert_gt(strlen(a), 1000, "the statistics were read");
    if (strcmp(a, b)) {
        snprintf(q, sizeof q, "diff %s/m0 %s/m1 | head -20 >&2", dir, dir);
        cr_assert_eq(system(q), 0);
    }
    cr_assert_str_eq(a, b, "%s: the statistics differ between %s%s and %s%s (the diff is above)", args, sim[0],
                     extra[0], sim[1], extra[1]);
}

static void same_stats_with_and_without_skipping(const char *args)
{
    same_stats((const char *const[]){SIM, SIM}, (const char *const[]){"", " --no-skip"}, args);
}

/* Runs of every kind: workload runs under WB, WT with link jitter, and DIKTAMO-proactive with a
 * CN's failure and its recovery, and a traffic run. */
static const char *const varied_runs[] = {
    "--config sim_configs/small.ini --set core.protocol=wb --set workload.name=ycsb "
    "--set workload.ycsb_records=512 --set workload.ycsb_ops=128 --seed 3",
    "--config sim_configs/small.ini --set core.protocol=wt --set workload.name=ocean_cp "
    "--set fabric.link_jitter=20ns --seed 5",
    "--config sim_configs/small.ini --set core.protocol=proactive --set workload.name=ycsb "
    "--set workload.ycsb_ops=128 --set fail.cn=1 --set fail.after_commits=300 --seed 7",
    "--traffic --config sim_configs/small.ini --set traffic.load=0.3 --seed 4",
};

/* The fast flavour (no assertions, X values zero) simulates the same machine as the test flavour:
 * workload runs under every kind of protocol, with link jitter, and a failure with its recovery. */
Test(sim, the_fast_flavour_gives_the_test_flavours_statistics, .init = make_dir, .fini = remove_dir, .timeout = 300)
{
    const char *const sims[2] = {SIM, SIM_FAST}, *const none[2] = {"", ""};
    for (unsigned i = 0; i < sizeof varied_runs / sizeof varied_runs[0]; i++)
        same_stats(sims, none, varied_runs[i]);
}

Test(sim, the_fast_flavour_refuses_to_trace_in_one_line, .init = make_dir, .fini = remove_dir)
{
    result_t r;
    char cmd[512];
    snprintf(cmd, sizeof cmd, SIM_FAST " --traffic --config sim_configs/small.ini --trace %s/t.fst --stats %s/s.json",
             dir, dir);
    run(cmd, &r);
    cr_assert(r.exited && r.status == 2, "exit %d; %s", r.status, r.err);
    cr_assert_eq(lines(r.err), 1, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "diktamo_sim_c4m2_test"), "%s", r.err);
    cr_assert(!exists("t.fst") && !exists("s.json"), "bad input writes nothing");
}

Test(sim, skipping_idle_cycles_changes_no_result, .init = make_dir, .fini = remove_dir)
{
    same_stats_with_and_without_skipping("--traffic --config sim_configs/small.ini --set traffic.load=0.05 --seed 4");
}

/* Workload runs with every clocked block in them (the switch, the directories, the Logging Units
 * under DIKTAMO-proactive): skipping idle cycles, of the fabric and of each directory and LU on its
 * own, changes no statistic. (Not with link jitter: docs/architecture.md section 13.) */
Test(sim, skipping_idle_cycles_changes_no_statistic_of_a_workload_run, .init = make_dir, .fini = remove_dir,
     .timeout = 120)
{
    same_stats_with_and_without_skipping("--config sim_configs/small.ini --set core.protocol=proactive "
                                         "--set workload.name=ycsb --set workload.ycsb_ops=128 --seed 3");
    same_stats_with_and_without_skipping("--config sim_configs/small.ini --set core.protocol=wb --set workload.name=ycsb "
                                         "--set workload.ycsb_records=512 --set workload.ycsb_ops=128 --seed 3");
}

/* Two host threads (sim.threads = 2: the switch's RTL evaluated on a worker while the other models
 * run, csim/drv/fabric.h) give the statistics of one, on runs of every kind (varied_runs: a failure's
 * recovery makes CSR accesses, link jitter makes every edge finish at once). */
Test(sim, a_second_host_thread_changes_no_statistic, .init = make_dir, .fini = remove_dir, .timeout = 300)
{
    const char *const sims[2] = {SIM, SIM}, *const two[2] = {"", " --set sim.threads=2"};
    for (unsigned i = 0; i < sizeof varied_runs / sizeof varied_runs[0]; i++)
        same_stats(sims, two, varied_runs[i]);
}

/* A CN that fails as the last thread of the live CNs ends (its own threads still running, so the
 * run's end waits on nothing else): the run goes on until the switch has detected the failure and
 * the recovery has run, before the oracle judges. (It used to end at once, the second recovery
 * never ran, and the oracle found that CN's committed stores lost.) */
Test(sim, a_failure_as_the_last_live_thread_ends_is_recovered_before_the_run_ends, .init = make_dir,
     .fini = remove_dir, .timeout = 120)
{
    result_t r;
    run(SIM " --config sim_configs/run.ini --set workload.name=ocean_cp --set core.protocol=proactive "
            "--fail 1@40us --fail 3@96639ns",
        &r);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "execution time 96.639 us"),
                       "the live threads no longer end as CN 3 fails (the test lost its case): %s", r.out);
    cr_assert_not_null(strstr(r.out, "2 CN failure(s), 2 recovered"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "0 lost, 0 phantom"), "%s", r.out);
}

/* Compressing the LUs' dumps ahead on a pool of host threads (sim.zlib_threads, csim/drv/lu_zlib.h) gives
 * the statistics of compressing each record as it comes: runs with many dumps (a short dump period)
 * under DIKTAMO-proactive, one with a failure and its recovery, one with two host threads besides;
 * every dump's records are those announced (run.zlib_missed = 0). */
Test(sim, compressing_dumps_ahead_changes_no_statistic, .init = make_dir, .fini = remove_dir, .timeout = 300)
{
    static const char *const runs[] = {
        "--config sim_configs/small.ini --set core.protocol=proactive --set workload.name=ycsb "
        "--set workload.ycsb_ops=384 --set lu.dump_period=10us --seed 2",
        "--config sim_configs/small.ini --set core.protocol=parallel --set workload.name=ycsb "
        "--set workload.ycsb_records=512 --set workload.ycsb_ops=128 --set lu.dump_period=5us "
        "--set fail.cn=2 --set fail.after_commits=300 --seed 7",
        "--config sim_configs/small.ini --set core.protocol=proactive --set workload.name=ocean_cp "
        "--set lu.dump_period=10us --set sim.threads=2 --seed 4",
    };
    const char *const sims[2] = {SIM, SIM}, *const pool[2] = {"", " --set sim.zlib_threads=2"};
    for (unsigned i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        same_stats(sims, pool, runs[i]);
        char q[512];
        snprintf(q, sizeof q,
                 "python3 -c \"import json, sys\n"
                 "d = json.load(open('%s/w1.json'))\n"
                 "sys.exit(0 if d['run']['zlib_missed'] == 0 and d['system']['lu']['dump_in_bytes'] > 0 else 1)\"",
                 dir);
        cr_assert_eq(system(q), 0, "%s: no dump, or a dump's records were not those announced", runs[i]);
    }
}

/* A tick whose inputs are those of the model's last evaluation runs only its clocked logic
 * (scripts/gen_vwrap.py, clock_eval), the fast flavour's directories and LUs leave the logic of
 * inputs and state that ends their clocked region until something reads them (lazy_tail), and the
 * edge a directory or an LU shows idle with no input (its driver's quiet) is not evaluated at all
 * (tick_idle); DIKTAMO_FULL_EVAL=1 evaluates every edge in full. Both give the same statistics, in
 * the test flavour and in the fast one: workload runs through the switch, the directories and the
 * LUs (a failure and its recovery among them), and a traffic run. (A directory driver that skipped
 * the edges bringing send credits fails it; so does a wrapper that never evaluates the logic it
 * left.) */
Test(sim, evaluating_only_the_clocked_logic_changes_no_statistic, .init = make_dir, .fini = remove_dir,
     .timeout = 300)
{
    const char *const none[2] = {"", ""};
    const char *const sims[2][2] = {{SIM, "DIKTAMO_FULL_EVAL=1 " SIM}, {SIM_FAST, "DIKTAMO_FULL_EVAL=1 " SIM_FAST}};
    for (unsigned f = 0; f < 2; f++) {
        same_stats(sims[f], none, "--config sim_configs/small.ini --set core.protocol=wb --set workload.name=ycsb "
                                  "--set workload.ycsb_records=512 --set workload.ycsb_ops=128 --seed 3");
        same_stats(sims[f], none, "--config sim_configs/small.ini --set core.protocol=proactive "
                                  "--set workload.name=ycsb --set workload.ycsb_ops=128 --set fail.cn=1 "
                                  "--set fail.after_commits=300 --seed 7");
        same_stats(sims[f], none, "--traffic --config sim_configs/small.ini --set traffic.load=0.3 --seed 4");
    }
}

/* The credits returned to a Logging Unit's and a directory's send port reach only their clocked
 * logic (rtl/common/credit_cnt.sv), so the fast flavour's wrappers take them without evaluating the
 * logic of the inputs before the edge (scripts/gen_vwrap.py, clocked_only: 1.4 to 2.9 % of a
 * paper.ini run's host instructions); the inputs whose logic is combinational (a message, a DRAM
 * answer) are not among them. That such inputs change nothing the full evaluation would not, the
 * test above checks (DIKTAMO_FULL_EVAL), and the idle edges' check below. */
Test(sim, returned_credits_reach_only_the_clocked_logic_of_the_lu_and_directory)
{
    const char *const hdr[2][2] = {{"build/gen/vw/vw_logging_unit_fast.h", "VW_LOGGING_UNIT_FAST_CLOCKED_ONLY \""},
                                   {"build/gen/vw/vw_dir_ctrl_fast.h", "VW_DIR_CTRL_FAST_CLOCKED_ONLY \""}};
    for (unsigned i = 0; i < 2; i++) {
        static char text[1 << 16];
        slurp(hdr[i][0], text, sizeof text);
        const char *def = strstr(text, hdr[i][1]);
        cr_assert_not_null(def, "%s: no %s", hdr[i][0], hdr[i][1]);
        char names[512];
        const char *from = def + strlen(hdr[i][1]), *to = strchr(from, '"');
        cr_assert_not_null(to);
        snprintf(names, sizeof names, " %.*s ", (int)(to - from), from);
        cr_assert_not_null(strstr(names, " tx_crd_i "), "%s: the credits returned are not clocked-only:%s", hdr[i][0],
                           names);
        cr_assert_null(strstr(names, " rx_valid_i "), "%s:%s", hdr[i][0], names);
        cr_assert_null(strstr(names, " mem_rsp_valid_i "), "%s:%s", hdr[i][0], names);
    }
}

/* N in a model's "MODEL: DIKTAMO_CHECK_IDLE: N idle edges evaluated" line of err, or -1 without one. */
static long idle_edges_checked(const char *err, const char *model)
{
    char key[96];
    snprintf(key, sizeof key, "%s: DIKTAMO_CHECK_IDLE: ", model);
    const char *p = strstr(err, key);
    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* An edge that a directory's or an LU's driver skips (tick_idle: the block showed idle_o with no
 * input) changes no signal of the block: DIKTAMO_CHECK_IDLE=1 evaluates each such edge in full and
 * compares every design signal of every module instance before and after (scripts/gen_vwrap.py),
 * stopping the run at the first change. Runs under WB and under DIKTAMO-proactive with a failure
 * and its recovery, test flavour and fast one: each checks thousands of edges of both blocks, and
 * its statistics are those of the run without the check. (An LU whose idle_o ignored its log's
 * work, lu_log's idle_o, stops it at a memory request.) */
Test(sim, an_edge_a_block_shows_idle_changes_no_signal, .init = make_dir, .fini = remove_dir, .timeout = 300)
{
    const char *const runs[] = {
        "--config sim_configs/small.ini --set core.protocol=wb --set workload.name=ycsb "
        "--set workload.ycsb_records=512 --set workload.ycsb_ops=128 --seed 3",
        "--config sim_configs/small.ini --set core.protocol=proactive --set workload.name=ycsb "
        "--set workload.ycsb_ops=128 --set fail.cn=1 --set fail.after_commits=300 --seed 7",
    };
    const char *const sims[2][2] = {{SIM, "dir_ctrl"}, {SIM_FAST, "dir_ctrl_fast"}};
    const char *const lus[2] = {"logging_unit", "logging_unit_fast"};
    const char *const none[2] = {"", ""};
    for (unsigned f = 0; f < 2; f++)
        for (unsigned i = 0; i < 2; i++) {
            char cmd[1024];
            result_t r;
            snprintf(cmd, sizeof cmd, "DIKTAMO_CHECK_IDLE=1 %s %s --quiet", sims[f][0], runs[i]);
            run(cmd, &r);
            cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
            long d = idle_edges_checked(r.err, sims[f][1]);
            cr_assert_gt(d, 100, "%s: %ld directory edges checked: %s", cmd, d, r.err);
            if (i == 1) {
                long l = idle_edges_checked(r.err, lus[f]);
                cr_assert_gt(l, 100, "%s: %ld LU edges checked: %s", cmd, l, r.err);
            }
            char check[256];
            snprintf(check, sizeof check, "DIKTAMO_CHECK_IDLE=1 %s", sims[f][0]);
            same_stats((const char *const[]){sims[f][0], check}, none, runs[i]);
        }
}

Test(sim, an_aborted_run_still_leaves_a_readable_trace, .init = make_dir, .fini = remove_dir)
{
    char cmd[512];
    result_t r;
    snprintf(cmd, sizeof cmd, SIM " --traffic --config sim_configs/small.ini --seed 5 --trace %s/w/t.fst --abort-at 300ns", dir);
    run(cmd, &r);
    cr_assert_eq(r.signal, 6, "the run must die of SIGABRT (status %d): %s", r.status, r.err);
    cr_assert_not_null(strstr(r.err, "seed 5"), "the seed is in the failure message: %s", r.err);
    snprintf(cmd, sizeof cmd, "fst2vcd %s/w/t.fst > %s/t.vcd", dir, dir);
    cr_assert_eq(system(cmd), 0, "fst2vcd cannot read the trace of the aborted run");
    static char vcd[1 << 20];
    char p[128];
    snprintf(p, sizeof p, "%s/t.vcd", dir);
    slurp(p, vcd, sizeof vcd);
    cr_assert_not_null(strstr(vcd, "$enddefinitions"));
    cr_assert_not_null(strstr(vcd, "fabric_top"), "scope named after the top module");
    snprintf(cmd, sizeof cmd, "grep '^#' %s/t.vcd | sed 's/#//' | sort -n | tail -1 > %s/last", dir, dir);
    cr_assert_eq(system(cmd), 0);
    char last[64];
    snprintf(p, sizeof p, "%s/last", dir);
    slurp(p, last, sizeof last);
    unsigned long long t = strtoull(last, NULL, 10);
    cr_assert(t > 100000 && t <= 300500, "the trace runs until the abort at 300 ns: last time %llu ps", t);
}

Test(sim, the_trace_window_limits_what_is_dumped, .init = make_dir, .fini = remove_dir)
{
    char cmd[512];
    result_t r;
    snprintf(cmd, sizeof cmd,
             SIM " --traffic --config sim_configs/small.ini --seed 5 --quiet --trace %s/t.fst --trace-start 200ns --trace-stop 400ns",
             dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    snprintf(cmd, sizeof cmd, "fst2vcd %s/t.fst | grep '^#' | sed 's/#//' | sort -n | sed -n '1p;$p' > %s/range", dir,
             dir);
    cr_assert_eq(system(cmd), 0);
    char p[128], range[256];
    snprintf(p, sizeof p, "%s/range", dir);
    slurp(p, range, sizeof range);
    unsigned long long first = 0, last = 0;
    cr_assert_eq(sscanf(range, "%llu %llu", &first, &last), 2, "times: %s", range);
    cr_assert_geq(first, 200000, "first dump at %llu ps", first);
    cr_assert_lt(last, 400000, "last dump at %llu ps", last);
    cr_assert_gt(last, first);
}

/* Each figure drawn under dir/docs/figures (SVG and PNG, not empty) and shown in the document md
 * (named doc). */
static void assert_drawn(const char *md, const char *doc, const char *const *figs, size_t n)
{
    char p[192];
    for (size_t i = 0; i < n; i++) {
        for (unsigned e = 0; e < 2; e++) {
            struct stat st;
            snprintf(p, sizeof p, "%s/docs/figures/%s.%s", dir, figs[i], e ? "png" : "svg");
            cr_assert(stat(p, &st) == 0 && st.st_size > 1000, "%s was not drawn", p);
        }
        snprintf(p, sizeof p, "](figures/%s.svg)", figs[i]);
        cr_assert_not_null(strstr(md, p), "%s does not show %s", doc, figs[i]);
    }
}

/* A blog's scaled experiments (scripts/<prog>.py) on the tiny input: its two figures (SVG and PNG)
 * and results-<prog>.md with the rows named (their values are the model's: not checked here), a
 * progress line naming its run first_run; a second call runs nothing again; bad arguments stop it
 * with one line and exit status 2. */
static void blog_experiments(const char *prog, const char *const *figs, const char *const *rows, size_t nrows,
                             const char *first_run)
{
    char cmd[512], p[192];
    result_t r;
    snprintf(cmd, sizeof cmd, "python3 scripts/%s.py --size tiny --jobs 2 --flavour test --out %s/runs --docs %s/docs",
             prog, dir, dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
    static char md[1 << 15];
    char doc[64];
    snprintf(doc, sizeof doc, "results-%s.md", prog);
    snprintf(p, sizeof p, "%s/docs/%s", dir, doc);
    slurp(p, md, sizeof md);
    assert_drawn(md, doc, figs, 2);
    for (size_t i = 0; i < nrows; i++)
        cr_assert_not_null(strstr(md, rows[i]), "%s has no %s", doc, rows[i]);
    snprintf(p, sizeof p, "] %s: ok (", first_run);
    cr_assert_not_null(strstr(r.out, p), "no progress line for a run:\n%.2000s", r.out);
    run(cmd, &r);
    cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
    cr_assert_null(strstr(r.out, ": ok ("), "a finished run was run again:\n%s", r.out);
    /* bad input: one line, status 2, nothing run */
    snprintf(cmd, sizeof cmd, "python3 scripts/%s.py --size tiny --jobs 0 --out %s/bad", prog, dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 2, "%s: status %d", cmd, r.status);
    snprintf(p, sizeof p, "%s: --jobs 0: at least 1\n", prog);
    cr_assert(strstr(r.err, p) != NULL, "%s", r.err);
    snprintf(cmd, sizeof cmd, "python3 scripts/%s.py --size tiny --config %s/none.ini --out %s/bad", prog, dir, dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 2, "%s: status %d", cmd, r.status);
    snprintf(p, sizeof p, "%s: no configuration file", prog);
    cr_assert(strstr(r.err, p) != NULL, "%s", r.err);
    /* docs that cannot be written: one line naming the path, before any run */
    write_file("f", "a file, not a folder\n");
    snprintf(cmd, sizeof cmd, "python3 scripts/%s.py --size tiny --out %s/bad2 --docs %s/f/docs", prog, dir, dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 2, "%s: status %d", cmd, r.status);
    cr_assert_eq(lines(r.err), 1, "%s", r.err);
    snprintf(p, sizeof p, "%s: %s/f/docs/results-%s.md: cannot write: Not a directory\n", prog, dir, prog);
    cr_assert_str_eq(r.err, p, "%s", cmd);
    cr_assert_null(strstr(r.out, ": ok ("), "%s ran: %s", cmd, r.out);
}

/* make megalon on the tiny input (blog_experiments). */
Test(sim, megalon_draws_its_figures_and_the_ratio_table, .init = make_dir, .fini = remove_dir, .timeout = 600)
{
    static const char *const figs[] = {"megalon_m1", "megalon_m2"};
    static const char *const rows[] = {"| M1: Megalon / HCMeta, read-only, largest size |",
                                       "| M2: Megalon / HCMeta at the largest size |", "| M3: Megalon / HCMeta, small SCR |",
                                       "| M4: a churn's cost, HCMeta / Megalon |", "| M4: Megalon's replicas, % of the data |",
                                       "## M1 (blog Fig. 1(c))", "## M2 (blog Fig. 6(a))", "## M3", "## M4"};
    blog_experiments("megalon", figs, rows, sizeof rows / sizeof rows[0], "m1-hcmeta-120");
}

/* make prism on the tiny input (blog_experiments). */
Test(sim, prism_draws_its_figures_and_the_ratio_table, .init = make_dir, .fini = remove_dir, .timeout = 600)
{
    static const char *const figs[] = {"prism_p1", "prism_p2"};
    static const char *const rows[] = {"| P1 A: Prism / SC-BTree |", "| P1 F: Prism / SC-BTree |",
                                       "| SC-ART unlimited / limited SCR on C |",
                                       "| P2 at 50 % puts: Prism / SC-BTree |",
                                       "| P3 at 5 % puts: SSTables probed per get, SC-LSM / Prism |",
                                       "## P1 (blog Fig. 9)", "## P2 (blog Fig. 8)", "## P3", "## Headline ratios"};
    blog_experiments("prism", figs, rows, sizeof rows / sizeof rows[0], "p1-A-prism");
}

/* make figures FULL=1's runs simulate hundreds of ms (scripts/figures.py, SIZES): their sim.end_time
 * must not stop them first, so the full size sets one of at least 10 s, and paper.ini accepts it. */
Test(sim, figures_full_size_runs_are_not_cut_short_by_the_end_time)
{
    char out[256] = "";
    FILE *p = popen("python3 -c \"import sys; sys.path.insert(0, 'scripts'); import figures; "
                    "print(*[s for s in figures.SIZES['full'] if s.startswith('sim.end_time=')])\"", "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(out, sizeof out, p), "figures.py's full size sets no sim.end_time");
    pclose(p);
    out[strcspn(out, "\n")] = 0;
    unsigned long long s = 0;
    cr_assert_eq(sscanf(out, "sim.end_time=%llus", &s), 1, "%s: not a time in seconds", out);
    cr_assert_geq(s, 10, "%s: shorter than FULL=1's runs", out);
    char cmd[512];
    snprintf(cmd, sizeof cmd, CFG " --config sim_configs/paper.ini --set %s > /dev/null", out);
    cr_assert_eq(system(cmd), 0, "paper.ini refuses %s", out);
}

/* A figures run that may stall (lu.head_reserve = none allows a deadlock) and does is a result, kept
 * like a finished run; any other failure, or a stall of a run that may not stall, fails it
 * (scripts/simruns.py, with stand-in simulators that print diktamo_sim's stall line or another). */
Test(sim, a_stall_is_a_result_only_for_a_run_that_may_stall, .init = make_dir, .fini = remove_dir, .timeout = 60)
{
    write_file("stall.sh", "#!/bin/sh\necho 'diktamo_sim: seed 1: no instruction for 100 ps at 5 ps; waiting:' >&2\n"
                           "echo '{}' > \"$(echo \"$@\" | sed 's/.*--stats //')\"\nexit 1\n");
    write_file("other.sh", "#!/bin/sh\necho 'diktamo_sim: seed 1: the workload did not finish by sim.end_time' >&2\n"
                           "exit 1\n");
    static const struct {
        const char *sim;
        const char *may;
        const char *want; /* the status simulate() returns, then stalled() */
    } cases[] = {{"stall.sh", "True", "0 True"}, {"stall.sh", "False", "1 False"}, {"other.sh", "True", "1 False"}};
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[1024];
        result_t r;
        snprintf(cmd, sizeof cmd,
                 "chmod +x %s/%s && python3 -c 'import sys; sys.path.insert(0, \"scripts\"); import simruns; "
                 "r = simruns.Run(\"x%u\", [], may_stall=%s); r.sim = \"%s/%s\"; "
                 "print(simruns.simulate(\"%s\", \"sim_configs/small.ini\", 1, r)[1], simruns.stalled(\"%s\", \"x%u\"))'",
                 dir, cases[i].sim, i, cases[i].may, dir, cases[i].sim, dir, dir, i);
        run(cmd, &r);
        cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
        cr_assert(strncmp(r.out, cases[i].want, strlen(cases[i].want)) == 0, "%s %s: got %s, want %s", cases[i].sim,
                  cases[i].may, r.out, cases[i].want);
    }
}

/* make figures on the tiny input: every figure (SVG and PNG) and results.md with the table of the
 * paper's headline ratios are produced (their values are the model's: not checked here); bad
 * arguments stop it at once with one line and exit status 2. */
Test(sim, figures_draws_every_figure_and_the_ratio_table, .init = make_dir, .fini = remove_dir, .timeout = 900)
{
    char cmd[512], p[192];
    result_t r;
    /* a line naming the runs under way every 50 ms that none ends (a minute by default) */
    snprintf(cmd, sizeof cmd,
             "FIGURES_PROGRESS_S=0.05 python3 scripts/figures.py --size tiny --jobs 2 --flavour test --out %s/fig "
             "--docs %s/docs --workloads ocean_cp,canneal,ycsb",
             dir, dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
    cr_assert_not_null(strstr(r.out, "] running: "), "no line named the runs under way:\n%.2000s", r.out);
    static const char *const figs[] = {"fig10", "fig11", "fig12", "fig13", "fig14", "fig15", "fig16a", "fig16b",
                                       "fig16c", "fig17", "fig18", "fig19"};
    static char md[1 << 16];
    snprintf(p, sizeof p, "%s/docs/results.md", dir);
    slurp(p, md, sizeof md);
    assert_drawn(md, "results.md", figs, sizeof figs / sizeof figs[0]);
    static const char *const rows[] = {"| WT / WB (mean) |", "| baseline / WB |", "| parallel vs baseline |",
                                       "| proactive / WB |", "| proactive-best / WB |", "| Nr 2 vs Nr 3 |",
                                       "| Nr 4 vs Nr 3 |", "| Nr 2 / WB |", "| proactive speed-up over WT |",
                                       "| 2 -> 4 CNs, WB |", "| 2 -> 4 CNs, proactive |",
                                       "| dump compression (geometric mean) |", "| dump bandwidth, largest (GB/s) |",
                                       "| lines owned at the crash, mean |", "| lines owned at the crash, ycsb |",
                                       "| recovery: Merge the largest step |"};
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++)
        cr_assert_not_null(strstr(md, rows[i]), "results.md has no row %s", rows[i]);
    /* A second call finds every run done and runs none again. */
    run(cmd, &r);
    cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
    cr_assert_null(strstr(r.out, ": ok ("), "a finished run was run again:\n%s", r.out);
    cr_assert_not_null(strstr(r.out, ": kept ("), "%s", r.out);
    /* Nor with host threads of its own for the runs (the same results): every run is kept. */
    char cmd2[640];
    snprintf(cmd2, sizeof cmd2, "%s --host-set sim.zlib_threads=1 --host-set sim.threads=2", cmd);
    run(cmd2, &r);
    cr_assert_eq(r.status, 0, "%s: %s", cmd2, r.err);
    cr_assert_null(strstr(r.out, ": ok ("), "a host-side key made a finished run again:\n%s", r.out);
    cr_assert_not_null(strstr(md, "## Synchronization"), "results.md has no synchronization table");
    cr_assert_not_null(strstr(md, "| proactive | "), "results.md has no synchronization row for proactive");
    /* the tiny runs are shorter than the dump period: runs of their own dump, so compression is measured */
    cr_assert_null(strstr(md, "| dump compression (geometric mean) | — |"), "results.md measured no compression");
    cr_assert_not_null(strstr(md, "run again dumping every eighth of its run"), "results.md names no dump run");
    cr_assert_not_null(strstr(md, "| workload | wb | wt | proactive | proactive, none + ideal sync |"),
                       "results.md has no table of the time in synchronization");
    cr_assert_not_null(strstr(md, "| workload | threads | instructions | remote loads | remote stores | remote rmws | "
                                  "remote-write fraction | instructions per remote access |"),
                       "results.md has no table of the applications' remote accesses");
    cr_assert_not_null(strstr(md, "| canneal | "), "results.md's applications table has no canneal row");
    cr_assert_not_null(strstr(md, "## The Logging Units' room for store-buffer heads"),
                       "results.md has no table of lu.head_reserve");
    cr_assert_not_null(strstr(md, "| workload | per_core | at head | none | at head | none, ideal sync | at head | "
                                  "paper |"),
                       "results.md's lu.head_reserve table does not compare the configuration's per_core with none");
    /* A run made by another build of the simulator is made again, and only it. */
    snprintf(p, sizeof p, "%s/fig/proto-ocean_cp-wb.done", dir);
    static char done[4096];
    slurp(p, done, sizeof done);
    char *h = strstr(done, "simulator sha256 ");
    cr_assert_not_null(h, "%s: %s", p, done);
    memset(h + strlen("simulator sha256 "), '0', 64);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs(done, f);
    fclose(f);
    run(cmd, &r);
    cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
    char *ok = strstr(r.out, ": ok (");
    cr_assert(ok && !strstr(ok + 1, ": ok (") && strstr(r.out, "proto-ocean_cp-wb: ok ("),
              "want only proto-ocean_cp-wb made again:\n%s", r.out);
    static const struct {
        const char *args, *msg;
    } bad[] = {
        {"--scale 4,2", "figures: --scale 4,2: at least two CN counts, increasing\n"},
        {"--scale 4,x", "figures: --scale 4,x: not a list of CN counts\n"},
        {"--jobs 0", "figures: --jobs 0: at least 1\n"},
        {"--workloads ocean,ycsb", "figures: --workloads ocean,ycsb: a comma-separated subset of bodytrack,fluidanimate,"
                                   "streamcluster,canneal,raytrace,barnes,ocean_ncp,ocean_cp,ycsb, each once\n"},
        {"--config /nonexistent.ini", "figures: /nonexistent.ini: no such configuration file\n"},
        {"--host-set core.protocol=wb",
         "figures: --host-set core.protocol=wb: only sim.threads and sim.zlib_threads (the host's side: the same "
         "results)\n"},
        {"--host-set sim.zlib_threads=99", "--set sim.zlib_threads=99: sim.zlib_threads: 99 is out of range 0 .. 64\n"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "python3 scripts/figures.py --size tiny --out %s/bad %s", dir, bad[i].args);
        run(cmd, &r);
        cr_assert_eq(r.status, 2, "%s: status %d", cmd, r.status);
        cr_assert_str_eq(r.err, bad[i].msg, "%s", cmd);
    }
    /* Outputs that cannot be written stop it before any run (a folder under a file). */
    write_file("f", "a file, not a folder\n");
    snprintf(cmd, sizeof cmd, "python3 scripts/figures.py --size tiny --out %s/bad2 --docs %s/f/docs", dir, dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 2, "%s: status %d", cmd, r.status);
    snprintf(p, sizeof p, "figures: %s/f/docs/results.md: cannot write: Not a directory\n", dir);
    cr_assert_str_eq(r.err, p, "%s", cmd);
    snprintf(cmd, sizeof cmd, "python3 scripts/figures.py --size tiny --out %s/f/out", dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 2, "%s: status %d", cmd, r.status);
    snprintf(p, sizeof p, "figures: %s/f/out: cannot write: Not a directory\n", dir);
    cr_assert_str_eq(r.err, p, "%s", cmd);
    snprintf(cmd, sizeof cmd, "python3 scripts/faults.py --runs 1 --out %s/f/x", dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 2, "%s: status %d", cmd, r.status);
    snprintf(p, sizeof p, "faults: %s/f/x/summary.json: cannot write: Not a directory\n", dir);
    cr_assert_str_eq(r.err, p, "%s", cmd);
    /* A configuration the simulator refuses stops it before any run, with the simulator's line. */
    write_file("bad.ini", "[system]\nnum_cn = 3x\n");
    snprintf(cmd, sizeof cmd, "python3 scripts/figures.py --size tiny --out %s/bad --config %s/bad.ini", dir, dir);
    run(cmd, &r);
    cr_assert_eq(r.status, 2, "%s: status %d", cmd, r.status);
    cr_assert_eq(lines(r.err), 1, "%s", r.err);
    cr_assert_not_null(strstr(r.err, "bad.ini:2: system.num_cn"), "%s", r.err);
    snprintf(p, sizeof p, "%s/bad", dir);
    struct stat st;
    cr_assert(stat(p, &st) != 0, "nothing is written on bad input");
}

/* cmd exits 2 with one line on stderr holding msg, and prints nothing holding started (it did not
 * start its work). */
static void refused_in_one_line(const char *cmd, const char *msg, const char *started)
{
    result_t r;
    run(cmd, &r);
    cr_assert_eq(r.status, 2, "%s: status %d (%s)", cmd, r.status, r.err);
    cr_assert_eq(lines(r.err), 1, "%s: %s", cmd, r.err);
    cr_assert_not_null(strstr(r.err, msg), "%s: %s", cmd, r.err);
    cr_assert_eq(strstr(r.out, started), NULL, "%s: it started: %s", cmd, r.out);
}

/* make instr's script (scripts/instr.py) refuses bad arguments and a bad base file with one line and
 * exit status 2, before it builds or counts anything and with nothing written. (Its counts, which
 * take a minute under callgrind, make regress runs twice and requires the same.) */
Test(sim, instr_refuses_bad_input_in_one_line_before_counting, .init = make_dir, .fini = remove_dir, .timeout = 60)
{
    write_file("bad.json", "{\"rows\": {\"fabric x\": {\"units\": 3}}}\n");
    char out[160], base[160], missing[160];
    snprintf(out, sizeof out, "--out %s/o", dir);
    snprintf(base, sizeof base, "--base %s/bad.json", dir);
    snprintf(missing, sizeof missing, "--base %s/none.json", dir);
    const struct {
        const char *args, *msg;
    } bad[] = {
        {"--jobs 0", "instr.py: --jobs 0: a count of 1 or more\n"},
        {"--scale 0", "instr.py: --scale 0: a number above 0\n"},
        {"--scale x", "instr.py: --scale x: a number above 0\n"},
        {"--only nothing", "instr.py: --only nothing: no row's name holds it (rows: fabric fabric_top_c4m2_fast busy,"},
        {"--rows 2", "instr.py: --rows: unknown argument (--only PATTERN, --scale X, --base FILE, --jobs N, --out DIR)\n"},
        {"--jobs", "instr.py: --jobs needs a value\n"},
        {base, "bad.json: not an instr.json (rows of host_instructions)\n"},
        {missing, "none.json: No such file or directory\n"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "python3 scripts/instr.py %s %s", out, bad[i].args);
        refused_in_one_line(cmd, bad[i].msg, "instr");
        char p[200];
        snprintf(p, sizeof p, "%s/o", dir);
        struct stat st;
        cr_assert(stat(p, &st) != 0, "%s: nothing is written on bad input", cmd);
    }
    /* an output it cannot write: one line naming it, before it counts */
    write_file("f", "a file, not a folder\n");
    char cmd[512], msg[512];
    snprintf(cmd, sizeof cmd, "python3 scripts/instr.py --out %s/f/o", dir);
    snprintf(msg, sizeof msg, "instr.py: %s/f/o/instr.json: cannot write: Not a directory\n", dir);
    refused_in_one_line(cmd, msg, "instr");
    /* ab.py (make pgo's and make threads' comparisons) likewise, before it runs anything */
    snprintf(cmd, sizeof cmd,
             "python3 scripts/ab.py --config sim_configs/run.ini --rounds 1 --out %s/f/x.json --label t "
             "--a A /bin/true --b B /bin/true",
             dir);
    snprintf(msg, sizeof msg, "ab.py: --out %s/f/x.json: cannot write: Not a directory\n", dir);
    refused_in_one_line(cmd, msg, "ab");
}

/* make pgo's and make threads' scripts (scripts/pgo.sh, scripts/threads.sh) refuse bad arguments and
 * a bad configuration with one line and exit status 2, before they build or run anything. (Their
 * runs, which check that the PGO simulator's statistics and two host threads' equal the plain one
 * thread's, take minutes: make regress runs them.) */
Test(sim, pgo_and_threads_refuse_bad_input_in_one_line_before_building, .init = make_dir, .fini = remove_dir,
     .timeout = 120)
{
    write_file("bad.ini", "[system]\nnum_cn = 3x\n");
    char bad_ini[160], cmd[512], msg[160];
    snprintf(bad_ini, sizeof bad_ini, "--config %s/bad.ini", dir);
    const struct {
        const char *args, *msg;
    } bad[] = {
        {"--rounds 0", "%s.sh: --rounds 0: a count of 1 or more\n"},
        {"--rounds x", "%s.sh: --rounds x: a count of 1 or more\n"},
        {"--round 2", "%s.sh: --round: unknown argument (--config FILE, --rounds N%s)\n"},
        {"--bench", "%s.sh: --bench: unknown argument (--config FILE, --rounds N%s)\n"},
        {bad_ini, "bad.ini:2: system.num_cn"},
    };
    /* (pgo.sh has a switch of its own, --bench: make bench's build alone) */
    const struct {
        const char *name, *switches;
    } scripts[] = {{"pgo", ", --bench"}, {"threads", ""}};
    for (unsigned s = 0; s < 2; s++)
        for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            if (!strcmp(bad[i].args, "--bench") && !strcmp(scripts[s].name, "pgo"))
                continue;
            char started[32];
            snprintf(cmd, sizeof cmd, "bash scripts/%s.sh %s", scripts[s].name, bad[i].args);
            snprintf(msg, sizeof msg, bad[i].msg, scripts[s].name, scripts[s].switches);
            snprintf(started, sizeof started, "%s: ", scripts[s].name);
            refused_in_one_line(cmd, msg, started);
        }
}
