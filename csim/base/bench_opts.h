/* Command line of diktamo_bench: which rows run, how long and how often, and where the results go.
 * Kept apart from the program so that its refusals are tested (tb/test_bench_opts.c). */
#ifndef BENCH_OPTS_H
#define BENCH_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#define BENCH_MAX_ONLY 16
#define BENCH_MAX_REPEAT 100

typedef struct bench_opts {
    const char *out;                   /* --out DIR (default build/bench) */
    const char *only[BENCH_MAX_ONLY];  /* --only PATTERN: rows whose name holds one of them */
    unsigned n_only;
    double scale;   /* --scale X: the kernel and fabric rows' work times X, in (0, 1000] */
    unsigned repeat; /* --repeat N: every fabric and system row run N times, its median kept, 1..100 */
    bool profile;    /* where the system rows' host time goes, sampled (--no-profile: not; make instr's
                      * counts: the sampling timer's handler would count, and callgrind stops on a
                      * signal during the cores' coroutine switches) */
} bench_opts_t;

/** Parses argv[1..argc-1] into o (defaults first). 0, or 2 with one line naming the argument and
 *  what is wrong in err (the program prints it and exits 2). */
int bench_opts_parse(int argc, char **argv, bench_opts_t *o, char *err, size_t errlen);
/** True when row (e.g. "system paper ocean") runs: no --only, or its name holds a pattern. */
bool bench_opts_selected(const bench_opts_t *o, const char *row);

#endif
