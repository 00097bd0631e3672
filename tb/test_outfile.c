/* base/outfile: an output is checked before the work, written to a temporary beside its target and
 * renamed at the end; a discarded one, a failed write and a process that dies of a signal leave the
 * target as it was and no temporary. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/outfile.h"

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/outfiletestXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* dir/rel's contents ("" when absent) into buf. */
static const char *contents(const char *rel, char *buf, size_t n)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    buf[0] = '\0';
    FILE *f = fopen(p, "r");
    if (f) {
        size_t r = fread(buf, 1, n - 1, f);
        buf[r] = '\0';
        fclose(f);
    }
    return buf;
}

/* Entries of dir and its folders whose name holds ".tmp.". */
static int temporaries(void)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "find %s -name '*.tmp.*' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    cr_assert_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

static int wr_hello(const void *obj, FILE *f) { return fprintf(f, "%s", (const char *)obj) < 0; }
static int wr_fails(const void *obj, FILE *f)
{
    fprintf(f, "half");
    (void)obj;
    return -1;
}

Test(outfile, commit_renames_a_whole_file_over_the_target, .init = make_dir, .fini = remove_dir)
{
    char p[256], why[128], buf[64];
    snprintf(p, sizeof p, "%s/a/b/out.json", dir);
    outfile_t o;
    cr_assert_eq(outfile_open(&o, p, why, sizeof why), 0, "%s", why);
    fprintf(o.f, "{\"x\": 1}\n");
    cr_assert_str_empty(contents("a/b/out.json", buf, sizeof buf), "the target appears only at the commit");
    cr_assert_eq(temporaries(), 1);
    cr_assert_eq(outfile_commit(&o, why, sizeof why), 0, "%s", why);
    cr_assert_str_eq(contents("a/b/out.json", buf, sizeof buf), "{\"x\": 1}\n");
    cr_assert_eq(temporaries(), 0);
    /* a second write replaces it whole; a discarded one leaves it */
    cr_assert_eq(outfile_write(p, wr_hello, "new\n", why, sizeof why), 0, "%s", why);
    cr_assert_str_eq(contents("a/b/out.json", buf, sizeof buf), "new\n");
    cr_assert_eq(outfile_open(&o, p, why, sizeof why), 0, "%s", why);
    fprintf(o.f, "partial");
    outfile_discard(&o);
    outfile_discard(&o); /* a no-op the second time */
    cr_assert_str_eq(contents("a/b/out.json", buf, sizeof buf), "new\n");
    cr_assert_eq(outfile_write(p, wr_fails, NULL, why, sizeof why), -1);
    cr_assert_str_eq(why, "write error");
    cr_assert_str_eq(contents("a/b/out.json", buf, sizeof buf), "new\n", "a failed write changed the target");
    cr_assert_eq(temporaries(), 0);
}

Test(outfile, paths_that_cannot_be_written_are_refused_with_the_reason, .init = make_dir, .fini = remove_dir)
{
    char p[256], why[128];
    snprintf(p, sizeof p, "%s/f", dir);
    FILE *f = fopen(p, "w");
    fputs("a file\n", f);
    fclose(f);
    outfile_t o;
    snprintf(p, sizeof p, "%s/f/x.json", dir);
    cr_assert_eq(outfile_open(&o, p, why, sizeof why), -1);
    cr_assert_str_eq(why, "Not a directory");
    cr_assert_eq(outfile_check_path(p, why, sizeof why), -1);
    cr_assert_str_eq(why, "Not a directory");
    cr_assert_eq(outfile_open(&o, dir, why, sizeof why), -1);
    cr_assert_str_eq(why, "Is a directory");
    cr_assert_eq(outfile_check_path(dir, why, sizeof why), -1);
    cr_assert_str_eq(why, "Is a directory");
    /* check_path leaves an existing file as it was and creates none */
    snprintf(p, sizeof p, "%s/f", dir);
    cr_assert_eq(outfile_check_path(p, why, sizeof why), 0, "%s", why);
    char buf[32];
    cr_assert_str_eq(contents("f", buf, sizeof buf), "a file\n");
    snprintf(p, sizeof p, "%s/new/t.fst", dir);
    cr_assert_eq(outfile_check_path(p, why, sizeof why), 0, "%s", why);
    struct stat st;
    cr_assert_neq(stat(p, &st), 0, "the check created the file");
    cr_assert_eq(temporaries(), 0);
}

Test(outfile, check_dir_names_the_first_file_it_cannot_write, .init = make_dir, .fini = remove_dir)
{
    char p[256];
    snprintf(p, sizeof p, "%s/out", dir);
    cr_assert_eq(mkdir(p, 0777), 0);
    snprintf(p, sizeof p, "%s/out/b.csv", dir);
    cr_assert_eq(mkdir(p, 0777), 0); /* a folder where a file goes */
    static const char *const names[] = {"a.json", "b.csv"};
    snprintf(p, sizeof p, "%s/out", dir);
    char cmd[512], err[512];
    /* its line goes to stderr: run it in a child whose stderr is a file */
    fflush(stderr);
    snprintf(cmd, sizeof cmd, "%s/err", dir);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(cmd, "w", stderr))
            _exit(2);
        const int r = outfile_check_dir("prog", p, names, 2) == -1 ? 0 : 1;
        fflush(stderr);
        _exit(r);
    }
    int w;
    waitpid(pid, &w, 0);
    cr_assert(WIFEXITED(w) && WEXITSTATUS(w) == 0, "check_dir passed a folder");
    contents("err", err, sizeof err);
    snprintf(cmd, sizeof cmd, "prog: --out %s/out: cannot write %s/out/b.csv: Is a directory\n", dir, dir);
    cr_assert_str_eq(err, cmd);
    cr_assert_eq(outfile_check_dir("prog", p, names, 1), 0);
}

Test(outfile, a_process_killed_by_a_signal_leaves_no_temporary, .init = make_dir, .fini = remove_dir)
{
    char p[256], why[128], buf[64];
    snprintf(p, sizeof p, "%s/killed.json", dir);
    FILE *f = fopen(p, "w");
    fputs("before\n", f);
    fclose(f);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        static outfile_t o;
        if (outfile_open(&o, p, why, sizeof why))
            _exit(3);
        fprintf(o.f, "half of it");
        fflush(o.f);
        cleanup_set_note("test: a run");
        if (write(fds[1], "x", 1) != 1)
            _exit(5);
        pause(); /* until killed */
        _exit(4);
    }
    char c;
    cr_assert_eq(read(fds[0], &c, 1), 1);
    cr_assert_eq(temporaries(), 1, "the child's temporary is there while it runs");
    kill(pid, SIGTERM);
    int w;
    waitpid(pid, &w, 0);
    cr_assert(WIFSIGNALED(w) && WTERMSIG(w) == SIGTERM, "the child must die of its signal");
    cr_assert_eq(temporaries(), 0, "a killed process left its temporary");
    cr_assert_str_eq(contents("killed.json", buf, sizeof buf), "before\n", "the target changed");
}
