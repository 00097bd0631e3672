/* The one runner of the long sweeps (scripts/runner.py): a finished task is kept while its key is the
 * same and its result counts, everything else runs again; and its Slurm engine, on a real single-node
 * Slurm this test starts (scripts/slurm_local.sh) and stops, gives a small failure campaign
 * (scripts/faults.py) the same summary as the local engine, keeps it on a second call, and reports a
 * task whose array element died without a result. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#ifndef TB_BIN_DIR
#define TB_BIN_DIR "build/bin"
#endif

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/runnertestXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* Runs a shell command line; its exit status, and its stdout and stderr together in out. */
static int sh(const char *cmd, char *out, size_t n)
{
    char line[2048];
    snprintf(line, sizeof line, "(%s) 2>&1", cmd);
    FILE *p = popen(line, "r");
    cr_assert_not_null(p);
    size_t r = fread(out, 1, n - 1, p);
    out[r] = '\0';
    int w = pclose(p);
    return WIFEXITED(w) ? WEXITSTATUS(w) : -1;
}

static void put(const char *name, const char *text)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    fputs(text, f);
    fclose(f);
}

/* A Python script that drives runner.run over four tasks, each appending a line to DIR/ran.NAME when
 * it runs: "a" passes, "b" exits 3, "c" passes but its output file is then removed, "d" passes. Its
 * argument says what to do before the call; it prints each task's (status, state, kept) and how
 * many times each has run in all. */
static const char *const drive =
    "import os, sys\n"
    "sys.path.insert(0, 'scripts')\n"
    "import runner\n"
    "d, what = sys.argv[1], sys.argv[2]\n"
    "def t(n, rc, key=None):\n"
    "    return runner.Task(n, ['sh', '-c', f'echo x >> {d}/ran.{n}; echo out > {d}/out.{n}; exit {rc}'], key,\n"
    "                       outputs=[f'{d}/out.{n}'])\n"
    "tasks = [t('a', 0), t('b', 3), t('c', 0), t('d', 0, 'key two\\n' if what == 'newkey' else None)]\n"
    "if what == 'rmout': os.unlink(f'{d}/out.c')\n"
    "if what == 'rmdone': os.unlink(f'{d}/w/a.done')\n"
    "res = runner.run(tasks, f'{d}/w', 'local', 2, 'test', 'runs', keep_failed=what == 'keepfailed', each=True)\n"
    "for n in 'abcd':\n"
    "    print(n, *res[n], len(open(f'{d}/ran.{n}').read().split()))\n";

/* The runner's lines for tasks a to d after a call: "a 0 ok False 1" (status, state, kept, runs so far). */
static void call(const char *what, char *out, size_t n)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "python3 %s/drive.py %s %s | grep -v '^test:'", dir, dir, what);
    cr_assert_eq(sh(cmd, out, n), 0, "%s: %s", cmd, out);
}

Test(runner, keeps_a_finished_result_while_its_key_is_the_same, .init = make_dir, .fini = remove_dir)
{
    char out[4096];
    put("drive.py", drive);
    call("first", out, sizeof out);
    cr_assert_str_eq(out, "a 0 ok False 1\nb 3 FAILED False 1\nc 0 ok False 1\nd 0 ok False 1\n");
    /* the passes are kept; the failure runs again */
    call("again", out, sizeof out);
    cr_assert_str_eq(out, "a 0 ok True 1\nb 3 FAILED False 2\nc 0 ok True 1\nd 0 ok True 1\n");
    /* a sweep whose failures are results (a failure campaign) keeps it too */
    call("keepfailed", out, sizeof out);
    cr_assert_str_eq(out, "a 0 ok True 1\nb 3 FAILED True 2\nc 0 ok True 1\nd 0 ok True 1\n");
    /* a missing output, a missing .done (an interrupted task) and another key each run their task again */
    call("rmout", out, sizeof out);
    cr_assert_str_eq(out, "a 0 ok True 1\nb 3 FAILED False 3\nc 0 ok False 2\nd 0 ok True 1\n");
    call("rmdone", out, sizeof out);
    cr_assert_str_eq(out, "a 0 ok False 2\nb 3 FAILED False 4\nc 0 ok True 2\nd 0 ok True 1\n");
    call("newkey", out, sizeof out);
    cr_assert_str_eq(out, "a 0 ok True 2\nb 3 FAILED False 5\nc 0 ok True 2\nd 0 ok False 2\n");
    /* the .done file holds the key and the status, written whole */
    char p[128], done[512] = "";
    snprintf(p, sizeof p, "%s/w/b.done", dir);
    FILE *f = fopen(p, "r");
    cr_assert_not_null(f);
    done[fread(done, 1, sizeof done - 1, f)] = '\0';
    fclose(f);
    cr_assert(strstr(done, "sh -c 'echo x >>") == done && strstr(done, "'\nstatus 3\n"), "%s", done);
}

static char slurm[96];

static void stop_slurm(void)
{
    char cmd[256], out[4096];
    snprintf(cmd, sizeof cmd, "bash scripts/slurm_local.sh stop %s", slurm);
    cr_assert_eq(sh(cmd, out, sizeof out), 0, "%s", out);
    remove_dir();
}

/* The campaign's summary file, whole. */
static void summary(const char *sub, char *buf, size_t n)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s/summary.json", dir, sub);
    FILE *f = fopen(p, "r");
    cr_assert_not_null(f, "%s", p);
    buf[fread(buf, 1, n - 1, f)] = '\0';
    fclose(f);
}

Test(runner, slurm_runs_a_campaign_as_the_local_engine_does, .init = make_dir, .fini = stop_slurm, .timeout = 600)
{
    static char out[1 << 16], a[1 << 14], b[1 << 14];
    char cmd[1024];
    snprintf(slurm, sizeof slurm, "%s/slurm", dir);
    snprintf(cmd, sizeof cmd, "bash scripts/slurm_local.sh start %s", slurm);
    cr_assert_eq(sh(cmd, out, sizeof out), 0, "%s: %s", cmd, out);
    const char *camp = "RUNNER_POLL_S=0.3 python3 scripts/faults.py --runs 3 --seed 5 --shapes c4m2 --jobs 2 "
                       "--bin " TB_BIN_DIR;
    snprintf(cmd, sizeof cmd, "SLURM_CONF=%s/slurm.conf %s --engine slurm --out %s/s", slurm, camp, dir);
    cr_assert_eq(sh(cmd, out, sizeof out), 0, "%s: %s", cmd, out);
    cr_assert_not_null(strstr(out, "] Slurm job "), "%s", out);
    cr_assert_not_null(strstr(out, "make faults: PASS"), "%s", out);
    snprintf(cmd, sizeof cmd, "%s --engine local --out %s/l", camp, dir);
    cr_assert_eq(sh(cmd, out, sizeof out), 0, "%s: %s", cmd, out);
    summary("s", a, sizeof a);
    summary("l", b, sizeof b);
    cr_assert(strstr(a, "\"failures_injected\": 3"), "%s", a);
    cr_assert_str_eq(a, b, "the Slurm engine's summary differs from the local one's");
    /* a second call keeps every run and submits nothing */
    snprintf(cmd, sizeof cmd, "SLURM_CONF=%s/slurm.conf %s --engine slurm --out %s/s", slurm, camp, dir);
    cr_assert_eq(sh(cmd, out, sizeof out), 0, "%s: %s", cmd, out);
    cr_assert_null(strstr(out, "Slurm job"), "%s", out);
    cr_assert_not_null(strstr(out, "runs [3/3] done: kept 3, ok 3;"), "%s", out);
    summary("s", b, sizeof b);
    cr_assert_str_eq(a, b);
    /* an element that dies (here the task kills it) leaves its task without a result: a failure that
     * names the element's Slurm output; the other task of the array has its result */
    put("lost.py", "import os, sys\nsys.path.insert(0, 'scripts')\nimport runner\n"
                   "ts = [runner.Task('ok', ['true']), runner.Task('lost', ['sh', '-c', 'kill -9 $PPID'])]\n"
                   "res = runner.run(ts, sys.argv[1], 'slurm', 2, 'test', 'runs')\n"
                   "print(res['ok'][1], res['lost'][1])\n"
                   "print(open(sys.argv[1] + '/lost.err').read())\n");
    snprintf(cmd, sizeof cmd, "SLURM_CONF=%s/slurm.conf RUNNER_POLL_S=0.3 python3 %s/lost.py %s/x", slurm, dir, dir);
    cr_assert_eq(sh(cmd, out, sizeof out), 0, "%s: %s", cmd, out);
    cr_assert_not_null(strstr(out, "ok FAILED\n"), "%s", out);
    cr_assert_not_null(strstr(out, "ended without this task's result (see "), "%s", out);
}

/* A campaign whose failure-free sizing run fails (here every one: a simulator that stalls) reports
 * each of its runs failed, unrun, with that run's replay and what it said, and exits 1; nothing
 * else stops it. */
Test(runner, a_failed_sizing_run_fails_its_campaign_runs, .init = make_dir, .fini = remove_dir, .timeout = 120)
{
    static char out[1 << 14];
    char cmd[512];
    put("diktamo_sim_c4m2", "#!/bin/sh\necho 'diktamo_sim: seed 1: no instruction for 100 ps at 5 ps; waiting:' >&2\n"
                            "echo '  core 0 waits' >&2\nexit 1\n");
    snprintf(cmd, sizeof cmd, "chmod +x %s/diktamo_sim_c4m2 && python3 scripts/faults.py --runs 2 --shapes c4m2 "
             "--jobs 2 --bin %s --out %s/c", dir, dir, dir);
    cr_assert_eq(sh(cmd, out, sizeof out), 1, "%s: %s", cmd, out);
    cr_assert_not_null(strstr(out, "FAILED 00000-bodytrack-wt-c4m2-"), "%s", out);
    cr_assert_not_null(strstr(out, "FAILED 00001-fluidanimate-"), "%s", out);
    cr_assert_not_null(strstr(out, "its failure-free run failed (diktamo_sim: seed 1: no instruction for 100 ps"),
                       "%s", out);
    cr_assert_not_null(strstr(out, "make faults: FAIL: 2 of 2 runs"), "%s", out);
}
