/* coh_regress: the random coherence tester (tb/sb/coh_tester) on the reference directory
 * controller (tb/ref/dir_ctrl_ref) over many seeds and every preset configuration; `make regress`
 * runs it. Each failing run prints its seed, what failed first, and the commands that replay it.
 * Built with -DCOH_REGRESS_RTL it is coh_regress_rtl: the same on the Verilated directory
 * controller (tb/sb/coh_home_rtl; no --mutate, the mutations are the reference model's).
 *
 *   coh_regress [--preset NAME|all] [--seeds N] [--first S] [--seed S] [--mutate BITS]
 *               [--snoop-policy at-once|defer|mixed] [--verbose]
 *
 * --seeds N runs seeds S .. S+N-1 (S from --first, default 1) of each preset; --seed S runs one.
 * Exit status 0 when every run passed, 1 when one failed, 2 on a usage error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sb/coh_home_ref.h"
#include "../sb/coh_tester.h"

#ifdef COH_REGRESS_RTL
#include "../sb/coh_home_rtl.h"
#define PROG "coh_regress_rtl"
#define HOME_MAKE coh_home_rtl_make
#define SUITE "dir_ctrl"
#else
#define PROG "coh_regress"
#define HOME_MAKE coh_home_ref_make
#define SUITE "dir_ctrl_ref"
#endif

static void usage(const char *why)
{
    fprintf(stderr, PROG ": %s\nusage: " PROG " [--preset NAME|all] [--seeds N] [--first S] [--seed S] "
                    "[--mutate BITS] [--snoop-policy at-once|defer|mixed] [--verbose]\npresets:", why);
    for (const char *const *p = coh_presets; *p; p++)
        fprintf(stderr, " %s", *p);
    fprintf(stderr, "\n");
    exit(2);
}

static uint64_t num(const char *opt, const char *s)
{
    char *end;
    unsigned long long v = s ? strtoull(s, &end, 0) : 0;
    if (!s || !*s || *end) {
        char why[128];
        snprintf(why, sizeof why, "%s needs a number", opt);
        usage(why);
    }
    return v;
}

int main(int argc, char **argv)
{
    const char *preset = "all";
    uint64_t first = 1, nseeds = 100;
    unsigned mutate = 0;
    int verbose = 0, policy = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--preset") && i + 1 < argc)
            preset = argv[++i];
        else if (!strcmp(argv[i], "--seeds"))
            nseeds = num("--seeds", i + 1 < argc ? argv[++i] : NULL);
        else if (!strcmp(argv[i], "--first"))
            first = num("--first", i + 1 < argc ? argv[++i] : NULL);
        else if (!strcmp(argv[i], "--seed"))
            first = num("--seed", i + 1 < argc ? argv[++i] : NULL), nseeds = 1;
        else if (!strcmp(argv[i], "--mutate"))
            mutate = (unsigned)num("--mutate", i + 1 < argc ? argv[++i] : NULL);
        else if (!strcmp(argv[i], "--snoop-policy") && i + 1 < argc) {
            const char *v = argv[++i];
            policy = !strcmp(v, "at-once") ? COH_SNOOP_AT_ONCE : !strcmp(v, "defer") ? COH_SNOOP_DEFER
                     : !strcmp(v, "mixed") ? COH_SNOOP_MIXED : -2;
            if (policy == -2)
                usage("--snoop-policy takes at-once, defer or mixed");
        } else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else
            usage("unknown argument");
    }
    coh_cfg_t probe;
    if (strcmp(preset, "all") && !coh_cfg_preset(preset, &probe))
        usage("no such preset");
#ifdef COH_REGRESS_RTL
    if (mutate)
        usage("--mutate is for the reference model (coh_regress)");
#endif

    unsigned runs = 0, fails = 0;
    uint64_t ops = 0, cycles = 0;
    for (const char *const *p = coh_presets; *p; p++) {
        if (strcmp(preset, "all") && strcmp(preset, *p))
            continue;
        for (uint64_t s = first; s < first + nseeds; s++) {
            coh_cfg_t c;
            coh_cfg_preset(*p, &c);
            c.mutate = mutate;
            if (policy >= 0)
                c.snoop_policy = policy;
            char replay[256], mut[64] = "";
            int n = 0;
            if (mutate)
                n = snprintf(mut, sizeof mut, " --mutate %u", mutate);
            if (policy >= 0)
                snprintf(mut + n, sizeof mut - (size_t)n, " --snoop-policy %s",
                         policy == COH_SNOOP_AT_ONCE ? "at-once" : policy == COH_SNOOP_DEFER ? "defer" : "mixed");
            if (n || policy >= 0) /* the test suite cannot replay a mutation or a policy override */
                snprintf(replay, sizeof replay, "build/bin/" PROG " --preset %s --seed %" PRIu64 "%s", *p, s, mut);
            else
                snprintf(replay, sizeof replay,
                         "build/bin/" PROG " --preset %s --seed %" PRIu64 ", or TB_SEED=%" PRIu64
                         " build/bin/run_tests --filter '" SUITE "/random_%s'",
                         *p, s, s, *p);
            coh_tester_t t;
            coh_tester_init(&t, &c, s, HOME_MAKE, NULL, replay);
            bool ok = coh_tester_run(&t);
            runs++;
            ops += t.st.ops_done;
            cycles += t.st.cycles;
            if (!ok) {
                fails++;
                printf(PROG ": FAIL %s seed %" PRIu64 "\n  %s\n", *p, s, t.msg);
            } else if (verbose) {
                printf(PROG ": pass %s seed %" PRIu64 ": %" PRIu64 " ops in %" PRIu64 " cycles; %" PRIu64
                       " snoops, %" PRIu64 " WR_IN_FLIGHT, %" PRIu64 " void grants, %" PRIu64
                       " deferred, %" PRIu64 " kept S, %" PRIu64 " reordered; longest op %" PRIu64 "\n",
                       *p, s, t.st.ops_done, t.st.cycles, t.st.snoops, t.st.wif_answers, t.st.voids, t.st.deferred,
                       t.st.keep_s, t.st.reordered, t.st.max_op_age);
            }
            coh_tester_free(&t);
        }
    }
    printf(PROG ": %u runs, %u failed (%" PRIu64 " operations, %" PRIu64 " cycles)\n", runs, fails, ops, cycles);
    return fails ? 1 : 0;
}
