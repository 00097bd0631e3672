/* Command line of the simulator programs (diktamo_sim, diktamo_cfg): options, the configuration
 * they select, and the one way bad input ends (one line, exit status 2). */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "base/config.h"

#define CLI_MAX_SETS 64
#define CLI_MAX_FAILS 32

typedef struct cli_opts {
    const char *config;            /* --config FILE (default sim_configs/paper.ini) */
    const char *sets[CLI_MAX_SETS]; /* --set section.key=value, in order */
    unsigned nsets;
    const char *seed;              /* --seed N: same as --set sim.seed=N, applied last */
    const char *trace;             /* --trace FILE.fst */
    uint64_t trace_start_ps;       /* --trace-start TIME */
    uint64_t trace_stop_ps;        /* --trace-stop TIME (default: end of run) */
    const char *stats;             /* --stats FILE.json */
    bool no_skip;                  /* --no-skip: clock the fabric every cycle */
    bool quiet;                    /* --quiet: no summary on stdout */
    bool traffic;                  /* --traffic: the synthetic traffic generator instead of the workload */
    bool shape;                    /* diktamo_cfg --shape */
    bool doc;                      /* diktamo_cfg --doc */
    bool dump;                     /* diktamo_cfg --dump */
    const char *abort_at;          /* --abort-at TIME: abort() there (tests the abort path) */
    uint64_t abort_at_ps;          /* --abort-at parsed (by the program that takes it) */
    unsigned fail_cn[CLI_MAX_FAILS]; /* --fail CN@TIME: CN fails (fail-stop) at TIME */
    uint64_t fail_ps[CLI_MAX_FAILS];
    bool fail_after[CLI_MAX_FAILS];  /* --fail CN@+TIME: TIME after the recovery of every failure before it */
    unsigned nfails;
} cli_opts_t;

/** Parses argv. On bad usage prints one line naming the argument and exits 2. */
void cli_parse(int argc, char **argv, cli_opts_t *o, const char *prog, const char *usage);
/** Loads o->config, applies the --set list and --seed, validates. On any error prints the one
 *  message (file:line: key: what) and exits 2. */
void cli_load_config(const cli_opts_t *o, sim_config_t *c);
/* Times on the command line are below 2^53 ps (about 2.5 hours of simulated time; sim.end_time is
 * at most 1000 s): every whole number of picoseconds below it is read exactly. */
#define CLI_TIME_LIMIT_PS (1ull << 53)
/** Parses a time with a unit (ps, ns, us, ms, s; bare 0 allowed), rounded to the nearest picosecond
 *  (half up), below CLI_TIME_LIMIT_PS. 0 on success. */
int cli_parse_time(const char *s, uint64_t *ps);

/** What is wrong with a --fail value (cli_parse_fail). */
enum { CLI_FAIL_BAD_CN = 1, CLI_FAIL_BAD_TIME = 2 };
/** Parses a --fail value CN@TIME or CN@+TIME (CN below MSG_MAX_CN, TIME as cli_parse_time and
 *  starting with a digit) into *cn, *ps and *after (the '+': TIME after the recoveries of the
 *  failures before it). Returns 0, or CLI_FAIL_BAD_CN / CLI_FAIL_BAD_TIME leaving *cn and *after
 *  untouched: cli_parse then prints cli_fail_what's line and exits 2. */
int cli_parse_fail(const char *v, unsigned *cn, uint64_t *ps, bool *after);
/** The usage line of a cli_parse_fail result. */
const char *cli_fail_what(int bad);

#endif
