/* Output files written whole or not at all. A program opens each file it will write before its
 * work starts (outfile_open: the folders made, a temporary file beside the target created, so a
 * path that cannot be written stops it at once), writes into the temporary and renames it over
 * the target at the end (outfile_commit). A run that dies first (an error exit, abort, a signal)
 * leaves no partial file: the temporary is removed by the cleanup registry (base/cleanup.h), and
 * the target keeps what it held before. */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define OUTFILE_PATH_MAX 4096

typedef struct outfile {
    char path[OUTFILE_PATH_MAX];
    char tmp[OUTFILE_PATH_MAX + 32];
    FILE *f; /* the temporary, open for writing; NULL once committed or discarded */
} outfile_t;

/** Makes path's folders (mkdir -p of its dirname) and opens a temporary beside it (path.tmp.PID).
 *  0, or -1 with the reason in err (n bytes: "No such file or directory", ...), nothing left. */
int outfile_open(outfile_t *o, const char *path, char *err, size_t n);
/** Flushes and closes the temporary and renames it to the path. 0, or -1 with the reason in err
 *  (the temporary removed, the target untouched). */
int outfile_commit(outfile_t *o, char *err, size_t n);
/** Removes the temporary: nothing is written (a no-op after a commit). */
void outfile_discard(outfile_t *o);
/** The whole file at once: path's temporary filled by wr(obj, f) (0 when all went well), then
 *  committed. 0, or -1 with the reason in err (nothing written). */
int outfile_write(const char *path, int (*wr)(const void *obj, FILE *f), const void *obj, char *err, size_t n);
/** Checks that each file dir/names[i] can be written (outfile_check_path) before a program's work:
 *  0, or -1 after one line on stderr, "prog: --out dir: cannot write dir/name: reason". */
int outfile_check_dir(const char *prog, const char *dir, const char *const *names, size_t count);
/** mkdir -p of path's dirname. 0, or -1 with errno set. */
int outfile_make_dirs(const char *path);
/** Whether a file can be created or written at path (its folders made; an existing file is left as
 *  it is, a new one removed again). 0, or -1 with the reason in err. For outputs that a library
 *  writes in place (waveform traces). */
int outfile_check_path(const char *path, char *err, size_t n);

#endif
