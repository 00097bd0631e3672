/* What the workload tests (tb/test_workloads.c, tb/test_wl_*.c) assert of runs on the functional
 * runner (wl_func.h), in one place: a run that must pass its check and the oracle, the same over
 * thread counts and seeds, a CN failure mid-run, random corrupted words and words the test sets
 * that the check must catch, runs that must fail (setup refusals, mutations), and the remote-write
 * profile within a band.
 *
 * A run is described by a wl_check_t; fields left 0 take the defaults said there. Every failed
 * assertion says the workload, the seed and how to replay the run (TB_SEED=<base> --filter
 * '<suite>/<test>': the Criterion test running), the threads and CNs, the caller's label and the CN
 * failure, if any. Randomized tests take their seeds from tb_seed(default) (tb_seed.h) and hand
 * them over in wl_check_t.seed. */
#ifndef WL_CHECK_H
#define WL_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "wl_func.h"

/* The CNs of a run whose wl_check_t.num_cn is 0. */
#define WL_CHECK_CNS 4u

/* Statistics (wl_func_stats_t) a clean run must show nonzero: the bits of wl_check_t.nonzero. */
enum {
    WL_NZ_LOADS = 1u << 0,        /* remote loads */
    WL_NZ_STORES = 1u << 1,       /* remote stores */
    WL_NZ_RMWS = 1u << 2,         /* remote rmws */
    WL_NZ_LOCAL_LOADS = 1u << 3,  /* local loads */
    WL_NZ_LOCAL_STORES = 1u << 4, /* local stores */
    WL_NZ_LOCAL_BYTES = 1u << 5,  /* local memory allocated */
    WL_NZ_INSTRUCTIONS = 1u << 6, /* compute()'s instructions */
    WL_NZ_SWITCHES = 1u << 7,     /* threads interleaved (with 2 threads or more) */
    /* Shared data on CXL memory, private data in local memory, computation counted, threads
     * interleaved: what every application's run shows. */
    WL_NZ_USUAL = WL_NZ_LOADS | WL_NZ_STORES | WL_NZ_LOCAL_STORES | WL_NZ_LOCAL_BYTES | WL_NZ_INSTRUCTIONS |
                  WL_NZ_SWITCHES,
};

typedef struct wl_check wl_check_t;

/** A run: the workload, its configuration, threads, CNs and seed, a CN failure if any, and what a
 *  clean run must show beyond its check and the oracle. */
struct wl_check {
    const char *name;        /* the workload, found by name (asserted registered) ... */
    const workload_t *w;     /* ... or, when not NULL, this one (a test's own workload) */
    const sim_config_t *cfg; /* sizes and memories */
    unsigned nthreads;
    unsigned num_cn;         /* 0: WL_CHECK_CNS */
    uint64_t seed;           /* the run's seed (a sweep's first) */
    uint64_t base;           /* the TB_SEED that replays the run, printed; 0: seed */
    const char *label;       /* what else sets the run apart (sizes), printed with failures; may be NULL */
    bool fail;               /* CN fail_cn fails after fail_after calls (wl_func_fail_cn) */
    unsigned fail_cn;
    uint64_t fail_after;
    bool fail2;              /* and CN fail2_cn after fail2_after calls (another CN) */
    unsigned fail2_cn;
    uint64_t fail2_after;
    unsigned nonzero;        /* WL_NZ_* statistics a clean run must show nonzero */
    /* The test's own assertions on the finished clean run f (r: this run, with its seed and
     * threads; r->arg for sums over runs); NULL: none. */
    void (*also)(const wl_check_t *r, wl_func_t *f);
    void *arg;
};

/** A band [lo, hi] a measured value must lie strictly inside. */
typedef struct wl_check_band {
    double lo, hi;
} wl_check_band_t;

/** The band measured +- rel (a fraction of it: 0.25 for 25 %). */
static inline wl_check_band_t wl_check_around(double measured, double rel)
{
    return (wl_check_band_t){measured * (1 - rel), measured * (1 + rel)};
}

/** TB_WL_SEEDS from the environment (how many seeds a sweep walks, for longer campaigns), else 3. */
unsigned wl_check_seeds(void);

/** The registered workload called name; asserts there is one. */
const workload_t *wl_check_find(const char *name);

/** The workload's own counter called name ("canneal.takeovers", registered through
 *  wl_env_ops_t.counter) of a finished run; asserts it is registered. */
uint64_t wl_check_stat(wl_func_t *f, const char *name);

/** A point within a run at which its CN fails: lo + a number below span drawn from seed's stream
 *  "test.fail" (so each seed of a failure sweep fails at its own, replayable point). */
uint64_t wl_check_fail_after(uint64_t seed, uint64_t lo, uint64_t span);

/** Runs r to its end (create, the CN failure if r->fail, setup, threads, check) and asserts each
 *  step passes; then that the oracle finds no lost or phantom word and every other word as it
 *  should be (words in doubt, oracle_report_t.undurable, only when a CN failed and the
 *  configuration has a Large Non-coherent Region: mem.scr_size), that every remote word in
 *  memory is known to the oracle, that the r->nonzero statistics are nonzero, and r->also.
 *  Returns the runner for the caller's own assertions; the caller frees it. */
wl_func_t *wl_check_run(const wl_check_t *r);

/** wl_check_run of r, freed, with each of the n thread counts threads[] (NULL: 1, 2, 7 and 16; r's
 *  nthreads is ignored) and each of `seeds` seeds r->seed, r->seed + 1, ... (0: wl_check_seeds()),
 *  the seeds in the outer loop; r->also sees each run's threads and seed, the replay base staying
 *  r->base (or r->seed). */
void wl_check_sweep(const wl_check_t *r, unsigned seeds, const unsigned *threads, size_t n);

/** wl_check_run of r, then, one at a time, flips one random bit of a random remote word the run
 *  stored to or setup initialized whose final value is neither 0 nor 1 (lock, flag, barrier and
 *  counter words the checks need not judge), `tries` times; then `written` times among the words
 *  the run stored to only (setup's alone left out; another random stream). Each time it asserts
 *  that the check fails with one line beginning "<workload>: ", that the oracle sees that one word
 *  (phantom, or lost when the flip gave back an earlier value) and every other word as it should
 *  be, and that the check passes again once the word is restored. Logs the first few lines. */
void wl_check_corruption(const wl_check_t *r, unsigned tries, unsigned written);

/** Sets the word at addr of the finished run f of r (CN cn's, for a local address) to v: the check
 *  must fail with one line beginning "<workload>: " and, when want is not NULL, holding want (logged);
 *  once the word is set back to what it held, the check must pass again. */
void wl_check_catches(const wl_check_t *r, wl_func_t *f, unsigned cn, uint64_t addr, uint64_t v, const char *want);

/** The whole run r (wl_func_run: create, setup, threads, check, oracle; r's CN failure, nonzero and
 *  also are not used) must fail, with one line beginning "<workload>: " and, when want is not NULL,
 *  holding want. Logs the line. */
void wl_check_fails(const wl_check_t *r, const char *want);

/** Setup refuses c: wl_check_fails of workload name with c on nthreads threads of WL_CHECK_CNS CNs,
 *  seed 1, saying want. */
void wl_check_refuses(const char *name, const sim_config_t *c, unsigned nthreads, const char *want);

/** wl_check_run of r, then its remote-write profile: the remote-write fraction, (remote stores +
 *  rmws) / (remote loads + stores + rmws), within wfrac, and the instructions per remote access,
 *  (instructions + every load and store, remote and local, and rmw) / (remote loads + stores +
 *  rmws), within ipra. Logs both with the counts. Returns the runner for the caller's own
 *  assertions and logs; the caller frees it. */
wl_func_t *wl_check_profile(const wl_check_t *r, wl_check_band_t wfrac, wl_check_band_t ipra);

#endif
