/* The workload tests' assertions on functional runs (see wl_check.h). */
#include "wl_check.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "sys/oracle.h"
#include "workloads/workloads.h"

/* A run's description in failure messages. */
#define DESC_MAX 640
/* Lines of a corruption pass logged. */
#define LOGGED 5u

static const workload_t *workload_of(const wl_check_t *r)
{
    return r->w ? r->w : wl_check_find(r->name);
}

static unsigned cns_of(const wl_check_t *r)
{
    return r->num_cn ? r->num_cn : WL_CHECK_CNS;
}

static uint64_t base_of(const wl_check_t *r)
{
    return r->base ? r->base : r->seed;
}

/* "<workload>, seed S (replay: TB_SEED=B --filter '<suite>/<test>'), T threads on C CNs[, label][, CN
 * N failing after A calls]" into d. */
static void describe(const wl_check_t *r, char *d, size_t len)
{
    const struct criterion_test *t = criterion_current_test;
    size_t n = (size_t)snprintf(d, len, "%s, seed %llu (replay: TB_SEED=%llu --filter '%s/%s'), %u threads on %u CNs",
                                workload_of(r)->name, (unsigned long long)r->seed, (unsigned long long)base_of(r),
                                t ? t->category : "?", t ? t->name : "?", r->nthreads, cns_of(r));
    if (r->label && n < len)
        n += (size_t)snprintf(d + n, len - n, ", %s", r->label);
    if (r->fail && n < len)
        n += (size_t)snprintf(d + n, len - n, ", CN %u failing after %llu calls", r->fail_cn,
                              (unsigned long long)r->fail_after);
    if (r->fail2 && n < len)
        snprintf(d + n, len - n, ", CN %u after %llu", r->fail2_cn, (unsigned long long)r->fail2_after);
}

/* One line beginning "<name>: ". */
static bool names(const char *err, const char *name)
{
    const size_t n = strlen(name);
    return strncmp(err, name, n) == 0 && err[n] == ':' && err[n + 1] == ' ' && !strchr(err, '\n');
}

unsigned wl_check_seeds(void)
{
    const char *s = getenv("TB_WL_SEEDS");
    unsigned n = s ? (unsigned)strtoul(s, NULL, 0) : 0;
    return n ? n : 3;
}

const workload_t *wl_check_find(const char *name)
{
    const workload_t *w = workload_find(name);
    cr_assert_not_null(w, "no workload %s", name);
    return w;
}

uint64_t wl_check_stat(wl_func_t *f, const char *name)
{
    const uint64_t *p = wl_func_counter(f, name);
    cr_assert_not_null(p, "no statistic workload.%s", name);
    return *p;
}

uint64_t wl_check_fail_after(uint64_t seed, uint64_t lo, uint64_t span)
{
    rng_t r;
    rng_init_named(&r, seed, "test.fail");
    return lo + rng_below(&r, span);
}

/* ------------------------------------------------------------------------------------------------
 * Clean runs */

/* The oracle against memory: nothing lost or phantom, every other word as it should be (in doubt
 * only when a failed CN took LNR lines with it), and every remote word in memory known to it. */
static void oracle_agrees(const wl_check_t *r, wl_func_t *f, const char *desc)
{
    oracle_report_t o;
    wl_func_oracle_check(f, stderr, 5, &o);
    const bool doubt = (r->fail || r->fail2) && r->cfg->mem.scr_size_bytes;
    cr_assert(o.lost == 0 && o.phantom == 0 && (o.undurable == 0 || doubt) && o.ok + o.undurable == o.words,
              "%s: oracle: %llu lost, %llu phantom, %llu in doubt, %llu right of %llu words", desc,
              (unsigned long long)o.lost, (unsigned long long)o.phantom, (unsigned long long)o.undurable,
              (unsigned long long)o.ok, (unsigned long long)o.words);
    uint64_t first = 0, unrec = wl_func_unrecorded(f, &first);
    cr_assert_eq(unrec, 0, "%s: %llu remote words unknown to the oracle, first 0x%llx", desc,
                 (unsigned long long)unrec, (unsigned long long)first);
}

static const struct {
    unsigned bit;
    const char *what;
    size_t at;
} nonzero_stats[] = {
    {WL_NZ_LOADS, "remote loads", offsetof(wl_func_stats_t, loads)},
    {WL_NZ_STORES, "remote stores", offsetof(wl_func_stats_t, stores)},
    {WL_NZ_RMWS, "remote rmws", offsetof(wl_func_stats_t, rmws)},
    {WL_NZ_LOCAL_LOADS, "local loads", offsetof(wl_func_stats_t, local_loads)},
    {WL_NZ_LOCAL_STORES, "local stores", offsetof(wl_func_stats_t, local_stores)},
    {WL_NZ_LOCAL_BYTES, "local memory allocated", offsetof(wl_func_stats_t, local_bytes)},
    {WL_NZ_INSTRUCTIONS, "instructions", offsetof(wl_func_stats_t, instructions)},
    {WL_NZ_SWITCHES, "switch between threads", offsetof(wl_func_stats_t, switches)},
};

/* The statistics r->nonzero names are nonzero (switches only with 2 threads or more). */
static void shows_nonzero(const wl_check_t *r, wl_func_t *f, const char *desc)
{
    const wl_func_stats_t *s = wl_func_stats(f);
    for (size_t i = 0; i < sizeof nonzero_stats / sizeof nonzero_stats[0]; i++) {
        const unsigned bit = nonzero_stats[i].bit;
        if (!(r->nonzero & bit) || (bit == WL_NZ_SWITCHES && r->nthreads < 2))
            continue;
        const uint64_t v = *(const uint64_t *)(const void *)((const char *)s + nonzero_stats[i].at);
        cr_assert(v != 0, "%s: no %s (remote loads %llu, stores %llu, rmws %llu; local loads %llu, stores %llu, bytes "
                  "%llu; instructions %llu, switches %llu)", desc, nonzero_stats[i].what, (unsigned long long)s->loads,
                  (unsigned long long)s->stores, (unsigned long long)s->rmws, (unsigned long long)s->local_loads,
                  (unsigned long long)s->local_stores, (unsigned long long)s->local_bytes,
                  (unsigned long long)s->instructions, (unsigned long long)s->switches);
    }
}

wl_func_t *wl_check_run(const wl_check_t *r)
{
    char desc[DESC_MAX], err[WL_ERR_MAX] = "";
    describe(r, desc, sizeof desc);
    wl_func_t *f = wl_func_create(workload_of(r), r->cfg, r->nthreads, cns_of(r), r->seed);
    cr_assert_not_null(f, "%s: no runner (out of memory)", desc);
    if (r->fail)
        wl_func_fail_cn(f, r->fail_cn, r->fail_after);
    if (r->fail2)
        wl_func_fail_cn(f, r->fail2_cn, r->fail2_after);
    cr_assert_eq(wl_func_setup(f, err), 0, "%s: setup: %s", desc, err);
    cr_assert_eq(wl_func_threads(f, err), 0, "%s: threads: %s", desc, err);
    cr_assert_eq(wl_func_check(f, err), 0, "%s: check: %s", desc, err);
    oracle_agrees(r, f, desc);
    shows_nonzero(r, f, desc);
    if (r->also)
        r->also(r, f);
    return f;
}

void wl_check_sweep(const wl_check_t *r, unsigned seeds, const unsigned *threads, size_t n)
{
    static const unsigned usual[] = {1, 2, 7, 16};
    if (!threads) {
        threads = usual;
        n = sizeof usual / sizeof usual[0];
    }
    if (!seeds)
        seeds = wl_check_seeds();
    for (unsigned k = 0; k < seeds; k++)
        for (size_t i = 0; i < n; i++) {
            wl_check_t one = *r;
            one.nthreads = threads[i];
            one.seed = r->seed + k;
            one.base = base_of(r);
            wl_func_free(wl_check_run(&one));
        }
}

/* ------------------------------------------------------------------------------------------------
 * Runs that must fail */

/* Sets the word at addr (CN cn's, for a local address), which holds old, to v: the check must fail
 * with one line beginning "<workload>: " and holding want (NULL: anything); logs the line when log. */
static void corrupt_caught(const wl_check_t *r, wl_func_t *f, unsigned cn, uint64_t addr, uint64_t old, uint64_t v,
                           const char *want, bool log, const char *desc)
{
    char err[WL_ERR_MAX];
    wl_func_corrupt(f, cn, addr, v);
    cr_assert_eq(wl_func_check(f, err), -1, "%s: word 0x%llx of CN %u set from 0x%llx to 0x%llx, check passed", desc,
                 (unsigned long long)addr, cn, (unsigned long long)old, (unsigned long long)v);
    cr_assert(names(err, workload_of(r)->name) && (!want || strstr(err, want)), "%s: word 0x%llx set to 0x%llx: '%s' "
              "is not one line naming the workload and saying '%s'", desc, (unsigned long long)addr,
              (unsigned long long)v, err, want ? want : "");
    if (log)
        cr_log_info("%s", err);
}

/* Sets the word at addr (CN cn's, for a local address) back to old: the check must pass again. */
static void restored_passes(wl_func_t *f, unsigned cn, uint64_t addr, uint64_t old, const char *desc)
{
    char err[WL_ERR_MAX];
    wl_func_corrupt(f, cn, addr, old);
    cr_assert_eq(wl_func_check(f, err), 0, "%s: word 0x%llx restored, still failing: %s", desc,
                 (unsigned long long)addr, err);
}

void wl_check_catches(const wl_check_t *r, wl_func_t *f, unsigned cn, uint64_t addr, uint64_t v, const char *want)
{
    char desc[DESC_MAX];
    describe(r, desc, sizeof desc);
    wl_env_t *e = wl_func_env(f);
    const uint64_t old = e->ops->peek(e, cn, addr);
    corrupt_caught(r, f, cn, addr, old, v, want, true, desc);
    restored_passes(f, cn, addr, old, desc);
}

/* One corruption pass of wl_check_corruption over the finished run f: `tries` words, among those
 * the run stored to when `written`. */
static void corrupt_words(const wl_check_t *r, wl_func_t *f, unsigned tries, bool written, const char *desc)
{
    oracle_t *o = wl_func_oracle(f);
    rng_t rng;
    rng_init_named(&rng, r->seed, written ? "test.corrupt_written" : "test.corrupt");
    const size_t n = oracle_num_words(o);
    for (unsigned k = 0; k < tries;) {
        oracle_word_t w;
        oracle_word_at(o, (size_t)rng_below(&rng, n), &w);
        if (w.last <= 1 || (written && w.stores == 0))
            continue;
        k++;
        corrupt_caught(r, f, 0, w.addr, w.last, w.last ^ (1ull << rng_below(&rng, 64)), NULL, k <= LOGGED, desc);
        /* the oracle sees it too: phantom, or lost when the flip gave back an earlier value */
        oracle_report_t rep;
        wl_func_oracle_check(f, NULL, 0, &rep);
        cr_assert(rep.phantom + rep.lost == 1 && rep.ok == rep.words - 1, "%s: word 0x%llx: %llu lost %llu phantom",
                  desc, (unsigned long long)w.addr, (unsigned long long)rep.lost, (unsigned long long)rep.phantom);
        restored_passes(f, 0, w.addr, w.last, desc);
    }
}

void wl_check_corruption(const wl_check_t *r, unsigned tries, unsigned written)
{
    char desc[DESC_MAX];
    describe(r, desc, sizeof desc);
    wl_func_t *f = wl_check_run(r);
    corrupt_words(r, f, tries, false, desc);
    corrupt_words(r, f, written, true, desc);
    wl_func_free(f);
}

void wl_check_fails(const wl_check_t *r, const char *want)
{
    char desc[DESC_MAX], err[WL_ERR_MAX] = "";
    describe(r, desc, sizeof desc);
    const workload_t *w = workload_of(r);
    cr_assert_eq(wl_func_run(w, r->cfg, r->nthreads, cns_of(r), r->seed, err), -1,
                 "%s: the run passed; want it to fail saying '%s'", desc, want ? want : "");
    cr_assert(names(err, w->name) && (!want || strstr(err, want)), "%s: '%s' is not one line beginning '%s: ' "
              "saying '%s'", desc, err, w->name, want ? want : "");
    cr_log_info("%s", err);
}

void wl_check_refuses(const char *name, const sim_config_t *c, unsigned nthreads, const char *want)
{
    wl_check_fails(&(wl_check_t){.name = name, .cfg = c, .nthreads = nthreads, .seed = 1}, want);
}

/* ------------------------------------------------------------------------------------------------
 * The remote-write profile */

wl_func_t *wl_check_profile(const wl_check_t *r, wl_check_band_t wfrac, wl_check_band_t ipra)
{
    char desc[DESC_MAX];
    describe(r, desc, sizeof desc);
    wl_func_t *f = wl_check_run(r);
    const wl_func_stats_t *s = wl_func_stats(f);
    const uint64_t remote = s->loads + s->stores + s->rmws;
    const uint64_t dyn = s->instructions + remote + s->local_loads + s->local_stores;
    const double wf = (double)(s->stores + s->rmws) / (double)remote, ip = (double)dyn / (double)remote;
    cr_log_info("%s, %u threads on %u CNs%s%s: remote-write fraction %.4f, %.2f instructions per remote access (%llu "
                "instructions, %llu remote loads, %llu stores, %llu rmws, %llu local loads, %llu local stores: %llu "
                "dynamic in all)", workload_of(r)->name, r->nthreads, cns_of(r), r->label ? ", " : "",
                r->label ? r->label : "", wf, ip, (unsigned long long)s->instructions, (unsigned long long)s->loads,
                (unsigned long long)s->stores, (unsigned long long)s->rmws, (unsigned long long)s->local_loads,
                (unsigned long long)s->local_stores, (unsigned long long)dyn);
    cr_assert(wf > wfrac.lo && wf < wfrac.hi, "%s: remote-write fraction %.4f, want %.4f to %.4f", desc, wf, wfrac.lo,
              wfrac.hi);
    cr_assert(ip > ipra.lo && ip < ipra.hi, "%s: %.2f instructions per remote access, want %.2f to %.2f", desc, ip,
              ipra.lo, ipra.hi);
    return f;
}
