/* diktamo_bench's command line (bench_opts.h). */
#include "base/bench_opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USAGE "usage: diktamo_bench [--out DIR] [--only PATTERN]... [--scale X] [--repeat N] [--no-profile]"

int bench_opts_parse(int argc, char **argv, bench_opts_t *o, char *err, size_t errlen)
{
    *o = (bench_opts_t){.out = "build/bench", .scale = 1.0, .repeat = 1, .profile = true};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--no-profile")) {
            o->profile = false;
            continue;
        }
        bool takes = !strcmp(a, "--out") || !strcmp(a, "--only") || !strcmp(a, "--scale") || !strcmp(a, "--repeat");
        if (!takes) {
            snprintf(err, errlen, "diktamo_bench: unknown argument: %s (" USAGE ")", a);
            return 2;
        }
        if (i + 1 >= argc) {
            snprintf(err, errlen, "diktamo_bench: %s needs a value (" USAGE ")", a);
            return 2;
        }
        const char *v = argv[++i];
        char *end;
        if (!strcmp(a, "--out")) {
            o->out = v;
        } else if (!strcmp(a, "--only")) {
            if (o->n_only == BENCH_MAX_ONLY) {
                snprintf(err, errlen, "diktamo_bench: --only %s: at most %d patterns", v, BENCH_MAX_ONLY);
                return 2;
            }
            o->only[o->n_only++] = v;
        } else if (!strcmp(a, "--scale")) {
            errno = 0;
            o->scale = strtod(v, &end);
            if (!*v || *end || errno || !(o->scale > 0 && o->scale <= 1000)) {
                snprintf(err, errlen, "diktamo_bench: --scale %s: a number in (0, 1000]", v);
                return 2;
            }
        } else {
            errno = 0;
            unsigned long n = strtoul(v, &end, 10);
            if (!*v || *end || errno || *v == '-' || n < 1 || n > BENCH_MAX_REPEAT) {
                snprintf(err, errlen, "diktamo_bench: --repeat %s: a whole number from 1 to %d", v, BENCH_MAX_REPEAT);
                return 2;
            }
            o->repeat = (unsigned)n;
        }
    }
    return 0;
}

bool bench_opts_selected(const bench_opts_t *o, const char *row)
{
    if (o->n_only == 0)
        return true;
    for (unsigned i = 0; i < o->n_only; i++)
        if (strstr(row, o->only[i]))
            return true;
    return false;
}
