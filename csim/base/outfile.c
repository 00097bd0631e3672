#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"

static void on_cleanup(void *arg) { outfile_discard(arg); }

int outfile_make_dirs(const char *path)
{
    char buf[OUTFILE_PATH_MAX];
    if ((size_t)snprintf(buf, sizeof buf, "%s", path) >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    char *dir = dirname(buf);
    char part[OUTFILE_PATH_MAX];
    for (char *p = dir; *p; p++) {
        if (p[1] != '/' && p[1] != '\0')
            continue;
        size_t n = (size_t)(p - dir) + 1;
        memcpy(part, dir, n);
        part[n] = '\0';
        if (mkdir(part, 0777) && errno != EEXIST)
            return -1;
        struct stat st;
        if (stat(part, &st) || !S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return -1;
        }
    }
    return 0;
}

/* Opens file (path itself or a temporary beside it) for writing, created with extra open flags,
 * once path is known not to be a folder and its folders are made. The descriptor, or -1 with the
 * reason in err. *existed (unless NULL): whether path was there before. */
static int open_beside(const char *path, const char *file, int flags, bool *existed, char *err, size_t n)
{
    struct stat st;
    const bool there = stat(path, &st) == 0;
    if (existed)
        *existed = there;
    if (there && S_ISDIR(st.st_mode)) {
        snprintf(err, n, "%s", strerror(EISDIR));
        return -1;
    }
    int fd = -1;
    if (outfile_make_dirs(path) == 0)
        fd = open(file, O_WRONLY | O_CREAT | flags, 0666);
    if (fd < 0)
        snprintf(err, n, "%s", strerror(errno));
    return fd;
}

int outfile_open(outfile_t *o, const char *path, char *err, size_t n)
{
    memset(o, 0, sizeof *o);
    if ((size_t)snprintf(o->path, sizeof o->path, "%s", path) >= sizeof o->path) {
        snprintf(err, n, "%s", strerror(ENAMETOOLONG));
        return -1;
    }
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
    const int fd = open_beside(path, o->tmp, O_TRUNC, NULL, err, n);
    if (fd < 0)
        return -1;
    if (!(o->f = fdopen(fd, "w"))) {
        snprintf(err, n, "%s", strerror(errno));
        close(fd);
        unlink(o->tmp);
        return -1;
    }
    cleanup_register(on_cleanup, o);
    return 0;
}

int outfile_commit(outfile_t *o, char *err, size_t n)
{
    if (!o->f) {
        snprintf(err, n, "not open");
        return -1;
    }
    FILE *f = o->f;
    o->f = NULL;
    cleanup_unregister(on_cleanup, o);
    int bad = ferror(f) || fflush(f);
    int e = errno;
    if (fclose(f) && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && rename(o->tmp, o->path)) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        snprintf(err, n, "%s", strerror(e ? e : EIO));
        unlink(o->tmp);
        return -1;
    }
    return 0;
}

void outfile_discard(outfile_t *o)
{
    if (!o->f)
        return;
    cleanup_unregister(on_cleanup, o);
    fclose(o->f);
    o->f = NULL;
    unlink(o->tmp);
}

int outfile_check_path(const char *path, char *err, size_t n)
{
    bool existed;
    const int fd = open_beside(path, path, 0, &existed, err, n);
    if (fd < 0)
        return -1;
    close(fd);
    if (!existed)
        unlink(path);
    return 0;
}

int outfile_write(const char *path, int (*wr)(const void *obj, FILE *f), const void *obj, char *err, size_t n)
{
    outfile_t o;
    if (outfile_open(&o, path, err, n))
        return -1;
    if (wr(obj, o.f)) {
        snprintf(err, n, "write error");
        outfile_discard(&o);
        return -1;
    }
    return outfile_commit(&o, err, n);
}

int outfile_check_dir(const char *prog, const char *dir, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        char p[OUTFILE_PATH_MAX], why[256];
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, names[i]) >= sizeof p) {
            fprintf(stderr, "%s: --out %s: path too long\n", prog, dir);
            return -1;
        }
        if (outfile_check_path(p, why, sizeof why)) {
            fprintf(stderr, "%s: --out %s: cannot write %s: %s\n", prog, dir, p, why);
            return -1;
        }
    }
    return 0;
}
