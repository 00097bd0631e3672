#include "tb_child.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

void tb_run_child(void (*body)(void *arg), void *arg, int *status, char *out, size_t out_len)
{
    int fd[2];
    cr_assert_eq(pipe(fd), 0, "pipe");
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork");
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        close(fd[1]);
        setvbuf(stdout, NULL, _IONBF, 0);
        body(arg);
        printf("no assertion fired\n");
        _exit(0);
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t k;
    while (n + 1 < out_len && (k = read(fd[0], out + n, out_len - 1 - n)) > 0)
        n += (size_t)k;
    out[n] = '\0';
    close(fd[0]);
    cr_assert_eq(waitpid(pid, status, 0), pid, "waitpid");
}
