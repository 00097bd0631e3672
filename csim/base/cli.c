#include "base/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/kernel.h"
#include "msg_defs.h"

static void usage_error(const char *prog, const char *usage, const char *what, const char *arg)
{
    (void)usage;
    fprintf(stderr, "%s: %s%s%s (%s --help shows the usage)\n", prog, what, arg ? ": " : "", arg ? arg : "", prog);
    exit(2);
}

int cli_parse_time(const char *s, uint64_t *ps)
{
    static const struct {
        const char *unit;
        uint64_t scale;
    } units[] = {{"ps", 1}, {"ns", PS_PER_NS}, {"us", PS_PER_US}, {"ms", PS_PER_MS}, {"s", PS_PER_S}};
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || v < 0)
        return -1;
    if (!*end)
        return v == 0 ? (*ps = 0, 0) : -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (!strcmp(end, units[i].unit)) {
            /* Below 2^53 a double holds every whole number of picoseconds, so a whole number of a
             * unit is read exactly (make fuzz found "10000000000000100ns" read 352 ps off); the
             * fraction is rounded half up without adding 0.5 to t, which rounds 2^52 + 1 to 2^52 + 2. */
            double t = v * (double)units[i].scale;
            if (!(t < (double)CLI_TIME_LIMIT_PS))
                return -1;
            uint64_t r = (uint64_t)t;
            *ps = r + (t - (double)r >= 0.5);
            return 0;
        }
    }
    return -1;
}

int cli_parse_fail(const char *v, unsigned *cn, uint64_t *ps, bool *after)
{
    const char *at = strchr(v, '@');
    char *end;
    unsigned long n = at && at > v ? strtoul(v, &end, 10) : 0;
    if (!at || at == v || end != at || n >= MSG_MAX_CN)
        return CLI_FAIL_BAD_CN;
    const bool plus = at[1] == '+';
    const char *t = at + 1 + plus; /* a digit: no second sign, no space (strtod would take them) */
    if (!(*t >= '0' && *t <= '9') || cli_parse_time(t, ps))
        return CLI_FAIL_BAD_TIME;
    *cn = (unsigned)n;
    *after = plus;
    return 0;
}

const char *cli_fail_what(int bad)
{
    switch (bad) {
    case 0: return "";
    case CLI_FAIL_BAD_CN: return "--fail wants CN@TIME or CN@+TIME with CN a compute node number (e.g. 2@3us)";
    default: return "--fail: not a time with a unit (ps, ns, us, ms, s) after '@' or '@+'";
    }
}

void cli_parse(int argc, char **argv, cli_opts_t *o, const char *prog, const char *usage)
{
    memset(o, 0, sizeof *o);
    o->config = "sim_configs/paper.ini";
    o->trace_stop_ps = UINT64_MAX;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                                                                               \
    do {                                                                                                           \
        if (!v || !strncmp(v, "--", 2))                                                                            \
            usage_error(prog, usage, "option needs a value", a);                                                  \
        i++;                                                                                                       \
    } while (0)
        if (!strcmp(a, "--config")) {
            NEED_VALUE();
            o->config = v;
        } else if (!strcmp(a, "--set")) {
            NEED_VALUE();
            if (o->nsets == CLI_MAX_SETS)
                usage_error(prog, usage, "too many --set options", v);
            o->sets[o->nsets++] = v;
        } else if (!strcmp(a, "--seed")) {
            NEED_VALUE();
            o->seed = v;
        } else if (!strcmp(a, "--trace")) {
            NEED_VALUE();
            o->trace = v;
        } else if (!strcmp(a, "--trace-start") || !strcmp(a, "--trace-stop")) {
            NEED_VALUE();
            if (cli_parse_time(v, !strcmp(a, "--trace-start") ? &o->trace_start_ps : &o->trace_stop_ps))
                usage_error(prog, usage, "not a time with a unit (ps, ns, us, ms, s)", v);
        } else if (!strcmp(a, "--stats")) {
            NEED_VALUE();
            o->stats = v;
        } else if (!strcmp(a, "--fail")) {
            NEED_VALUE();
            unsigned cn;
            uint64_t ps;
            bool after;
            int bad = cli_parse_fail(v, &cn, &ps, &after);
            if (bad == CLI_FAIL_BAD_CN)
                usage_error(prog, usage, cli_fail_what(bad), v);
            if (o->nfails == CLI_MAX_FAILS)
                usage_error(prog, usage, "too many --fail options", v);
            if (bad)
                usage_error(prog, usage, cli_fail_what(bad), v);
            o->fail_cn[o->nfails] = cn;
            o->fail_after[o->nfails] = after;
            o->fail_ps[o->nfails++] = ps;
        } else if (!strcmp(a, "--abort-at")) {
            NEED_VALUE();
            o->abort_at = v;
        } else if (!strcmp(a, "--no-skip")) {
            o->no_skip = true;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = true;
        } else if (!strcmp(a, "--traffic")) {
            o->traffic = true;
        } else if (!strcmp(a, "--shape")) {
            o->shape = true;
        } else if (!strcmp(a, "--doc")) {
            o->doc = true;
        } else if (!strcmp(a, "--dump")) {
            o->dump = true;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: %s %s\n", prog, usage);
            exit(0);
        } else {
            usage_error(prog, usage, "unknown argument", a);
        }
#undef NEED_VALUE
    }
    if (o->trace_stop_ps <= o->trace_start_ps)
        usage_error(prog, usage, "--trace-stop must be later than --trace-start", NULL);
}

void cli_load_config(const cli_opts_t *o, sim_config_t *c)
{
    config_err_t err;
    config_defaults(c);
    if (config_load(c, o->config, &err))
        goto fail;
    for (unsigned i = 0; i < o->nsets; i++)
        if (config_set(c, o->sets[i], &err))
            goto fail;
    if (o->seed) {
        char buf[128];
        snprintf(buf, sizeof buf, "sim.seed=%s", o->seed);
        if (config_set(c, buf, &err))
            goto fail;
    }
    if (config_validate(c, &err))
        goto fail;
    return;
fail:
    fprintf(stderr, "%s\n", err.msg);
    exit(2);
}
