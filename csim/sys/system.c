/* The whole simulated cluster (see system.h). */
#include "sys/system.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/addr.h"
#include "base/rng.h"
#include "cn/cn_mem.h"
#include "cn/cn_port.h"
#include "cn/cn_repl.h"
#include "cn/core.h"
#include "cn/lu_map.h"
#include "cn/lu_node.h"
#include "mn/lu_store.h"
#include "mn/mn_node.h"
#include "sw/cm.h"
#include "sw/mn_recov.h"
#include "sys/repl_check.h"

typedef struct sys_cn {
    system_t *s;
    unsigned idx; /* CN index = its fabric port */
    cn_port_t *port;
    cn_mem_t *mem;
    lu_node_t *lu;    /* DIKTAMO: its Logging Unit and replication engine */
    cn_repl_t *repl;
    cm_t *cm;         /* its recovery software (the CM when the switch's MSI comes to it) */
    core_t **core;
    uint64_t local_next; /* bump allocator of local memory (offset from ADDR_LOCAL_BASE) */
    bool failed;         /* fail-stop (system_fail_cn) */
    uint64_t t_failed;
    const uint64_t *hits[3], *misses[3]; /* the CN's L1 (all cores), L2 (all cores), L3 counters */
    double *hit_rate[3];                 /* filled at the end of a run */
} sys_cn_t;

/* The end-of-run checks peek every word they know, most of them next to the one before: while they
 * run nothing moves (system_check), so a remote line is looked up once (in every CN's hierarchy,
 * then its MN) and its words kept while the checks stay in it. */
typedef struct line_peek {
    bool on;   /* during system_check */
    bool valid;
    uint64_t key;
    uint64_t v[ADDR_WORDS_PER_LINE];
} line_peek_t;

struct system {
    kernel_t *k;
    const sim_config_t *cfg;
    stats_t *st;
    fabric_t *f;
    unsigned ncn, nmn, cores;
    mn_node_t **mn;
    lu_store_t **store; /* DIKTAMO: each MN's log store */
    mn_recov_t **rec;   /* each MN's recovery handler */
    lu_zlib_pool_t *zpool; /* sim.zlib_threads: the LUs' dumps compressed ahead */
    uint64_t live_threads;       /* the threads' membership (wl_thread_t.live) */
    unsigned fail_cn;            /* the configured failure: its CN ... */
    uint64_t fail_after;         /* ... after this many committed words (0: not by count) */
    uint32_t unrecoverable;      /* the CNs whose concurrent failure could not be recovered */
    uint32_t rec_seen, rec_done; /* failed CNs a recovery run has had (detection counted), and those
                                    whose run ended with every LU's dump (recovery.count) */
    /* failures after recoveries (system_fail_after_recovery), in order; the next one to arm */
    struct {
        unsigned cn;
        uint64_t delay_ps;
    } after[SYSTEM_MAX_AFTER];
    unsigned nafter, after_next;
    /* recoveries: the MNs' reports of the one running, and the totals */
    mn_recov_report_t *mrep;
    unsigned mrep_n;
    uint64_t *c_recoveries, *c_rec_runs, *c_rec_cut, *c_rec_joined, *c_rec_unrec, *c_rec_owned, *c_rec_words_lu, *c_rec_words_mn, *c_threads_lost;
    uint64_t *c_fail_shared, *c_fail_dirty, *c_fail_excl; /* Fig. 15: the failed CNs' L3s at the crash */
    double *g_rec[9];
    sys_cn_t *cn;
    line_peek_t peek;   /* system_peek's line, during system_check */
    bool dk;            /* a DIKTAMO protocol: LUs, stores and replication engines */
    lu_map_t map;       /* the replica map */
    oracle_t *oracle;
    repl_check_t *rcheck; /* DIKTAMO: the replicas' logs against the commits (system_check_logs) */
    uint64_t gran_lines;         /* interleave granularity in lines */
    uint64_t scr_lo, scr_hi;     /* the coherent region (global line addresses) */
    uint64_t remote_next;        /* bump allocator of coherent remote memory (bytes) */
    uint64_t lnr_next, lnr_limit; /* bump allocator of the non-coherent region (bytes) */

    const workload_t *wl;
    void *wl_state;
    wl_env_t env;
    unsigned nthreads;
    unsigned *thread_cn;
    wl_thread_t *threads;
    bool loaded, started, quiet;
    unsigned finished, lost;     /* threads that returned; threads lost with a failed CN */
    uint64_t start_ps, end_ps;
    uint64_t *commits;           /* counter: committed remote store words */
    uint64_t *c_failures, *c_late_commits;
    /* statistics filled at the end of a run and by a check (registered once, at creation) */
    double *g_exec_ns, *g_ipc;
    uint64_t *c_instr, *c_threads;
    uint64_t *c_or_words, *c_or_stores, *c_or_ok, *c_or_lost, *c_or_phantom, *c_or_undurable;
    double *g_split[4];          /* mean remote-store latency split (ns), Fig. 16 */
    /* DIKTAMO totals (filled at the end of a run) */
    uint64_t *c_repl_sets, *c_repl_msgs, *c_repl_bytes, *c_repl_acks, *c_val_msgs, *c_val_bytes;
    uint64_t *c_log_max_bytes, *c_dump_in, *c_dump_out;
    double *g_at_head, *g_dump_gbps, *g_compress;
    uint64_t **c_lu_csr;         /* per CN, lu_csrs[] of its LU, read at the check */
};

/* The LU counters a check reads (name, CSR, whether a correct system keeps it at 0). */
static const struct {
    const char *name;
    unsigned csr;
    bool error;
    const char *doc;
} lu_csrs[] = {
    {"repls", LU_CSR_REPLS, false, "REPLs the LU took"},
    {"words", LU_CSR_WORDS, false, "words it wrote into its buffer"},
    {"vals", LU_CSR_VALS, false, "VALs it matched"},
    {"drained", LU_CSR_DRAINED, false, "words it moved to its DRAM log"},
    {"stall_cycles", LU_CSR_STALLS, false, "cycles a REPL waited for a slot or entries (full buffer)"},
    {"log_full_cycles", LU_CSR_LOG_FULL, false, "cycles a validated word waited for room in the DRAM log"},
    {"queries", LU_CSR_QUERIES, false,
     "REPL_QUERYs it sent (a REPL waited for room while a validated word waited behind an unvalidated REPL)"},
    {"query_hits", LU_CSR_QUERY_HITS, false, "answers that let the REPL asked about follow the validated words"},
    {"err_val_no_repl", LU_CSR_ERR_VAL_NO_REPL, true, "VALs without their REPL (must be 0)"},
    {"err_zero_mask", LU_CSR_ERR_ZERO_MASK, true, "REPLs without a word (must be 0)"},
    {"err_addr_range", LU_CSR_ERR_ADDR_RANGE, true, "REPLs beyond remote memory (must be 0)"},
    {"err_bad_msg", LU_CSR_ERR_BAD_MSG, true, "messages of a class or opcode it does not take (must be 0)"},
    {"err_dup_repl", LU_CSR_ERR_DUP_REPL, true, "a second REPL with an outstanding tag (must be 0)"},
    {"ts_clash", LU_CSR_TS_CLASH, true, "two validated updates of a word with one TS (must be 0)"},
};
#define N_LU_CSRS (sizeof lu_csrs / sizeof lu_csrs[0])

/* The Fig. 16 components: the cores' histograms (cycles) and the gauges (ns). */
static const char *const split_hist[4] = {"remote_st.dispatch_to_rob_head", "remote_st.rob_head_to_sb_head",
                                          "remote_st.sb_head_to_coh_end", "remote_st.replication"};


/* ---------------------------------------------------------------------------------------------
 * Recovery (DIKTAMO §V): the CNs' software (csim/sw/cm), the MNs' handlers (csim/sw/mn_recov) */

enum { RG_DETECT, RG_BEGIN, RG_CM_MN, RG_DIR, RG_MN_LU, RG_LU, RG_MERGE, RG_END, RG_TOTAL };

/* The system's statistics, in the order they are registered; the DIKTAMO ones only under a DIKTAMO
 * protocol. The Fig. 16 components (g_split) are the means of the cores' split_hist histograms. */
static const stats_def_t system_stats[] = {
    STATS_COUNTER_DEF(system_t, commits, "system.committed_remote_words", "remote store words committed (oracle records)"),
    STATS_COUNTER_DEF(system_t, c_failures, "system.failures", "CNs that failed (fail-stop)"),
    STATS_COUNTER_DEF(system_t, c_late_commits, "system.commits_after_failure", "commits by a CN after it failed (a correct fail-stop makes none)"),
    STATS_GAUGE_DEF(system_t, g_exec_ns, "system.exec_time_ns", "simulated time from the threads' start to the last one's end"),
    STATS_COUNTER_DEF(system_t, c_instr, "system.instructions", "instructions the threads executed"),
    STATS_COUNTER_DEF(system_t, c_threads, "system.threads", "simulated threads"),
    STATS_GAUGE_DEF(system_t, g_ipc, "system.ipc_per_thread", "instructions per core cycle, averaged over the threads"),
    STATS_COUNTER_DEF(system_t, c_or_words, "oracle.words", "remote words the oracle checked"),
    STATS_COUNTER_DEF(system_t, c_or_stores, "oracle.stores", "committed remote store words it recorded"),
    STATS_COUNTER_DEF(system_t, c_or_ok, "oracle.ok", "words holding their last committed store"),
    STATS_COUNTER_DEF(system_t, c_or_lost, "oracle.lost", "words holding an older value: a committed store was lost"),
    STATS_COUNTER_DEF(system_t, c_or_phantom, "oracle.phantom", "words holding a value never committed to them"),
    STATS_COUNTER_DEF(system_t, c_or_undurable, "oracle.undurable",
      "words holding the value before a failed CN's last commit to them, which was not durable (its VALs never left "
      "the CN)"),
    STATS_GAUGE_DEF(system_t, g_split[0], "system.remote_st_ns.rob", "mean remote-store time from dispatch to the ROB head (Fig. 16 ROB->ROBHead)"),
    STATS_GAUGE_DEF(system_t, g_split[1], "system.remote_st_ns.rob_head_to_sb_head", "mean time from retirement to the SB head (ROBHead->SBHead)"),
    STATS_GAUGE_DEF(system_t, g_split[2], "system.remote_st_ns.sb_head_to_coh_end",
      "mean time from the SB head to write permission (SBHead->CohEnd)"),
    STATS_GAUGE_DEF(system_t, g_split[3], "system.remote_st_ns.replication", "mean time from write permission to the commit (Replication Time)"),
    STATS_GAUGE_DEF(system_t, g_rec[RG_DETECT], "recovery.detect_ns",
      "failure to the MSI at the CM (the switch's detection), summed over recoveries"),
    STATS_GAUGE_DEF(system_t, g_rec[RG_BEGIN], "recovery.rec_begin_ns", "RecBegin: MSI to the last InterruptResp (Table III), summed over recoveries"),
    STATS_GAUGE_DEF(system_t, g_rec[RG_CM_MN], "recovery.cm_mn_ns", "CM<->MN: InitRecov to the last InitRecovResp, less the slowest MN's steps below"),
    STATS_GAUGE_DEF(system_t, g_rec[RG_DIR], "recovery.trav_dir_ns", "TravDir: the slowest MN's directory walk"),
    STATS_GAUGE_DEF(system_t, g_rec[RG_MN_LU], "recovery.mn_lu_ns", "MN<->LU: FetchLatestVers to the LUs' last answer, less TravLU"),
    STATS_GAUGE_DEF(system_t, g_rec[RG_LU], "recovery.trav_lu_ns", "TravLU: the longest LU log search (the LUs' TRAV_CYCLES)"),
    STATS_GAUGE_DEF(system_t, g_rec[RG_MERGE], "recovery.mn_merge_ns", "MNMerge: the log stores' answers and search, and the RECOVER writes"),
    STATS_GAUGE_DEF(system_t, g_rec[RG_END], "recovery.rec_end_ns", "RecEnd: RecovEnd to the last RecovEndResp (an LU's comes once its log is dumped)"),
    STATS_GAUGE_DEF(system_t, g_rec[RG_TOTAL], "recovery.total_ns", "MSI to the last RecovEndResp, summed over recoveries"),
    STATS_COUNTER_DEF(system_t, c_recoveries, "recovery.count", "failed CNs recovered (RecovEnd answered by every live CN, and LU once its dump is stored)"),
    STATS_COUNTER_DEF(system_t, c_rec_runs, "recovery.runs", "recovery runs of a CM (one recovers every CN failed by its end: usually one)"),
    STATS_COUNTER_DEF(system_t, c_rec_joined, "recovery.joined", "CNs that failed during a recovery run and were recovered in it"),
    STATS_COUNTER_DEF(system_t, c_rec_cut, "recovery.cut_short",
                      "recovery runs cut short by a CN failing during their RecEnd (the LUs' dumps): the next run takes their CNs again"),
    STATS_COUNTER_DEF(system_t, c_rec_unrec, "recovery.unrecoverable",
                      "failed CNs the CM found unrecoverable: lu.nr or more failed before a recovery ended (by design)"),
    STATS_COUNTER_DEF(system_t, c_rec_owned, "recovery.lines_owned", "lines the failed CNs owned (the MNs' Owned lists, Fig. 15)"),
    STATS_COUNTER_DEF(system_t, c_rec_words_lu, "recovery.words_from_lus", "words recovered from LU logs"),
    STATS_COUNTER_DEF(system_t, c_rec_words_mn, "recovery.words_from_mns", "words recovered from the MNs' log stores"),
    STATS_COUNTER_DEF(system_t, c_threads_lost, "system.threads_lost", "threads lost with a failed CN"),
    STATS_COUNTER_DEF(system_t, c_fail_shared, "recovery.crash_lines_shared", "coherent lines the failed CNs' L3s held shared at the crash (Fig. 15)"),
    STATS_COUNTER_DEF(system_t, c_fail_dirty, "recovery.crash_lines_dirty", "lines they held owned with a word newer than memory (Fig. 15 Dirty)"),
    STATS_COUNTER_DEF(system_t, c_fail_excl, "recovery.crash_lines_exclusive",
      "lines they held owned and clean (Fig. 15 Exclusive, without those evicted silently: the directory's Owned "
      "count less Dirty includes them)"),
};
static const stats_def_t system_dk_stats[] = {
    STATS_COUNTER_DEF(system_t, c_repl_sets, "system.repl.sets", "REPL sets sent (one per replicated store-buffer entry)"),
    STATS_GAUGE_DEF(system_t, g_at_head, "system.repl.sets_at_head_frac", "fraction of the REPL sets sent at the store buffer's head (Fig. 11)"),
    STATS_COUNTER_DEF(system_t, c_repl_msgs, "system.repl.repl_msgs", "REPL messages (Nr per set)"),
    STATS_COUNTER_DEF(system_t, c_repl_bytes, "system.repl.repl_bytes", "bytes of the REPLs on the links"),
    STATS_COUNTER_DEF(system_t, c_repl_acks, "system.repl.repl_acks", "REPL_ACK messages"),
    STATS_COUNTER_DEF(system_t, c_val_msgs, "system.repl.val_msgs", "VAL messages"),
    STATS_COUNTER_DEF(system_t, c_val_bytes, "system.repl.val_bytes", "bytes of the VALs on the links"),
    STATS_COUNTER_DEF(system_t, c_log_max_bytes, "system.lu.max_log_bytes", "largest uncompressed DRAM log of any LU between dumps (Fig. 13)"),
    STATS_COUNTER_DEF(system_t, c_dump_in, "system.lu.dump_in_bytes", "log bytes the LUs' dumps compressed"),
    STATS_COUNTER_DEF(system_t, c_dump_out, "system.lu.dump_out_bytes", "compressed bytes the dumps sent to the MNs"),
    STATS_GAUGE_DEF(system_t, g_dump_gbps, "system.lu.dump_gbps", "compressed dump bytes per second of execution, all LUs (GB/s, Fig. 14)"),
    STATS_GAUGE_DEF(system_t, g_compress, "system.lu.compression", "dump_in_bytes / dump_out_bytes"),
};

/* The configuration without CN f, from the first INTERRUPT of its recovery on: its buckets go to
 * their next live replica (lu_map_fail), new replica sets skip it, and its MN's store synchronizes
 * one LU less. */
static void map_without(system_t *s, unsigned f)
{
    if (!s->dk || !(s->map.live >> f & 1u))
        return;
    lu_map_fail(&s->map, f);
    lu_store_drop_lu(s->store[lu_map_mn(f, s->nmn)], f);
}

/* A CN's software took an INTERRUPT (pause) or a RECOV_END: its cores stop or go on; on the
 * INTERRUPT its replication engine replaces the failed replica in what it has outstanding (a store
 * waiting for the failed LU's REPL_ACK would otherwise never commit, and the directory's walk would
 * wait for it when it pins a line). */
static void hook_pause(void *obj, unsigned cn, bool pause, unsigned failed)
{
    system_t *s = obj;
    if (pause && s->dk && failed < s->ncn) {
        map_without(s, failed);
        cn_repl_lost(s->cn[cn].repl, failed);
    }
    for (unsigned i = 0; i < s->cores; i++)
        (pause ? core_pause : core_resume)(s->cn[cn].core[i]);
}

/* Every MN has recovered from CN f's failure: its threads leave the membership (the survivors'
 * barriers and locks stop waiting for them). */
static void hook_reconfigure(void *obj, unsigned f)
{
    system_t *s = obj;
    for (unsigned i = 0; i < s->nthreads; i++)
        if (s->thread_cn[i] == f)
            s->live_threads &= ~(1ull << i);
    map_without(s, f);
}

static void hook_cm_done(void *obj, const cm_recovery_t *r)
{
    system_t *s = obj;
    const mn_recov_report_t *slow = NULL;
    for (unsigned i = 0; i < s->mrep_n; i++)
        if ((r->failed_set >> s->mrep[i].failed & 1u) &&
            (!slow || s->mrep[i].t_resp - s->mrep[i].t_init > slow->t_resp - slow->t_init))
            slow = &s->mrep[i];
    const double ns = (double)PS_PER_NS;
    uint64_t mn_steps = 0;
    if (slow) {
        *s->g_rec[RG_DIR] += (double)(slow->t_walked - slow->t_walk) / ns;
        *s->g_rec[RG_MN_LU] += (double)(slow->t_lu_done - slow->t_walked) / ns; /* less TravLU at the end */
        *s->g_rec[RG_MERGE] += (double)(slow->t_recovered - slow->t_lu_done) / ns;
        mn_steps = slow->t_recovered - slow->t_walk;
    }
    for (unsigned i = 0; i < s->mrep_n; i++)
        if (r->failed_set >> s->mrep[i].failed & 1u) {
            *s->c_rec_owned += s->mrep[i].owned;
            *s->c_rec_words_lu += s->mrep[i].words_lu;
            *s->c_rec_words_mn += s->mrep[i].words_mn;
        }
    s->mrep_n = 0;
    /* A run cut short by a failure during its RecEnd (r->reprotected false) is run again with the
     * next one: its CNs' detection counts once, their recovery once it ends whole. */
    const uint32_t fresh = r->failed_set & ~s->rec_seen;
    if (fresh) {
        const sys_cn_t *n = &s->cn[__builtin_ctz(fresh)];
        *s->g_rec[RG_DETECT] += n->t_failed && r->t_msi > n->t_failed ? (double)(r->t_msi - n->t_failed) / ns : 0.0;
    }
    s->rec_seen |= r->failed_set;
    *s->g_rec[RG_BEGIN] += (double)(r->t_int_done - r->t_msi) / ns;
    *s->g_rec[RG_CM_MN] += (double)(r->t_init_done - r->t_int_done - mn_steps) / ns;
    *s->g_rec[RG_END] += (double)(r->t_end_done - r->t_init_done) / ns;
    *s->g_rec[RG_TOTAL] += (double)(r->t_end_done - r->t_msi) / ns;
    if (r->reprotected) {
        *s->c_recoveries += (unsigned)__builtin_popcount(r->failed_set & ~s->rec_done);
        s->rec_done |= r->failed_set;
    }
    (*s->c_rec_runs)++;
    *s->c_rec_cut += !r->reprotected;
    *s->c_rec_joined += r->joined;
    /* every failure so far recovered: the next failure after a recovery is armed */
    if (s->after_next < s->nafter &&
        *s->c_recoveries + (unsigned)__builtin_popcount(s->unrecoverable) >= *s->c_failures) {
        system_fail_at(s, s->after[s->after_next].cn, s->k->now + s->after[s->after_next].delay_ps);
        s->after_next++;
    }
}

static void hook_unrecoverable(void *obj, uint32_t failed)
{
    system_t *s = obj;
    s->unrecoverable |= failed; /* reported by system_check; the oracle counts what was lost */
    *s->c_rec_unrec = (unsigned)__builtin_popcount(s->unrecoverable);
}

static void hook_mn_done(void *obj, const mn_recov_report_t *r)
{
    system_t *s = obj;
    s->mrep = realloc(s->mrep, (s->mrep_n + 1) * sizeof *s->mrep);
    if (!s->mrep)
        abort();
    s->mrep[s->mrep_n++] = *r;
}

/* The live LUs that may hold records of a line: its replica set less the failed CNs (the set still
 * counts the CN being recovered: its replacement joins only afterwards, with no records). */
static unsigned hook_lus(void *obj, uint64_t line, unsigned *out)
{
    system_t *s = obj;
    if (!s->dk)
        return 0;
    unsigned rep[MSG_MAX_CN], nr = lu_map_replicas(&s->map, line, (unsigned)s->cfg->lu.nr, rep), n = 0;
    for (unsigned k = 0; k < nr; k++)
        if (!s->cn[rep[k]].failed)
            out[n++] = rep[k];
    return n;
}

/* The MNs whose stores may hold dumps of a line: every one (each replica, present or past, dumped
 * its whole log to its own MN's store). */
static unsigned hook_stores(void *obj, uint64_t line, unsigned *out)
{
    system_t *s = obj;
    (void)line;
    if (!s->dk)
        return 0;
    for (unsigned m = 0; m < s->nmn; m++)
        out[m] = m;
    return s->nmn;
}

static uint32_t hook_failed(void *obj)
{
    system_t *s = obj;
    uint32_t m = 0;
    for (unsigned c = 0; c < s->ncn; c++)
        if (s->cn[c].failed)
            m |= 1u << c;
    return m;
}

static uint64_t hook_store_records(void *obj, unsigned mn)
{
    system_t *s = obj;
    return s->dk ? mn_log_stats(lu_store_log(s->store[mn]))->records : 0;
}

/* ---------------------------------------------------------------------------------------------
 * Links between the CNs' port adapters and the fabric */

/* The CN's port (csim/cn/cn_port) is shared by the memory hierarchy, the Logging Unit and the
 * replication engine; the hierarchy keeps its cn_link_t view of it. */
static void mem_deliver(void *obj, const msg_t *m) { cn_mem_deliver(obj, m); }
static void mem_credit(void *obj, msg_class_t c) { cn_mem_credit(obj, c); }

/* The replicas of a line, for the log check. */
static unsigned replicas_of(void *obj, uint64_t line, unsigned *out)
{
    system_t *s = obj;
    return lu_map_replicas(&s->map, line, (unsigned)s->cfg->lu.nr, out);
}

/* A record a CN's LU logged, for the log check. */
static void on_log(void *obj, const lu_rec_t *r)
{
    sys_cn_t *n = obj;
    repl_check_log(n->s->rcheck, n->idx, r);
}

static void on_commit(void *obj, unsigned cn, unsigned core, uint64_t addr, uint64_t value, uint64_t t_ps,
                      bool unreplicated)
{
    system_t *s = obj;
    if (addr_is_local(addr))
        return;
    if (s->cn[cn].failed)
        (*s->c_late_commits)++; /* a failed CN's core committed: fail-stop broken */
    oracle_commit(s->oracle, addr, value, t_ps, cn, core);
    (*s->commits)++;
    if (s->fail_after && *s->commits == s->fail_after)
        system_fail_at(s, s->fail_cn, s->k->now); /* not from inside the core */
    if (s->dk && !unreplicated) /* an ideal synchronization write or an LNR word: no LU logs it */
        repl_check_commit(s->rcheck, addr, value);
}

/* ---------------------------------------------------------------------------------------------
 * Address map */

static unsigned home_mn(const system_t *s, uint64_t gline) { return (unsigned)((gline / s->gran_lines) % s->nmn); }

uint64_t system_peek(system_t *s, unsigned cn, uint64_t addr)
{
    if (addr_is_local(addr))
        return cn_mem_local_peek(s->cn[cn].mem, addr);
    line_peek_t *lp = &s->peek;
    const uint64_t key = addr_line(addr);
    if (lp->on && lp->valid && lp->key == key)
        return lp->v[addr_word(addr)];
    /* Each word from the first CN whose hierarchy holds it, else from its MN. */
    uint64_t words[ADDR_WORDS_PER_LINE];
    uint8_t have = 0;
    for (unsigned i = 0; i < s->ncn && have != 0xff; i++) {
        uint64_t v[ADDR_WORDS_PER_LINE];
        uint8_t m = cn_mem_peek_line(s->cn[i].mem, key, v) & (uint8_t)~have;
        for (unsigned w = 0; w < ADDR_WORDS_PER_LINE; w++)
            if (m >> w & 1)
                words[w] = v[w];
        have |= m;
        if (!lp->on && have >> addr_word(addr) & 1)
            return words[addr_word(addr)]; /* the run goes on: this word only */
    }
    if (have != 0xff) {
        uint64_t line[ADDR_WORDS_PER_LINE];
        mn_node_peek(s->mn[home_mn(s, addr_gline(addr))], addr_gline(addr), line);
        for (unsigned w = 0; w < ADDR_WORDS_PER_LINE; w++)
            if (!(have >> w & 1))
                words[w] = line[w];
    }
    if (lp->on) {
        memcpy(lp->v, words, sizeof words);
        lp->key = key;
        lp->valid = true;
    }
    return words[addr_word(addr)];
}

/* ---------------------------------------------------------------------------------------------
 * The workload's environment */

/* MN DRAM reads zero where never written, and nothing was allocated here before. */
static uint64_t env_alloc_cxl(wl_env_t *e, uint64_t bytes)
{
    system_t *s = e->obj;
    return wl_alloc_lines(&s->remote_next, s->scr_hi * ADDR_LINE_BYTES, bytes);
}

/* The LNR's offsets are its addresses (lnr_next starts at its base). */
static uint64_t env_alloc_lnr(wl_env_t *e, uint64_t bytes)
{
    system_t *s = e->obj;
    return wl_alloc_lines(&s->lnr_next, s->lnr_limit, bytes);
}

static uint64_t env_alloc_local(wl_env_t *e, unsigned cn, uint64_t bytes)
{
    system_t *s = e->obj;
    uint64_t a = wl_alloc_lines(&s->cn[cn].local_next, s->cfg->mem.local_size_bytes, bytes);
    return a == WL_ALLOC_FAIL ? a : ADDR_LOCAL_BASE + a;
}

void system_mem_poke(system_t *s, uint64_t addr, uint64_t v)
{
    uint64_t line[ADDR_WORDS_PER_LINE] = {0};
    line[addr_word(addr)] = v;
    mn_node_poke(s->mn[home_mn(s, addr_gline(addr))], addr_gline(addr), (uint8_t)(1u << addr_word(addr)), line);
}

static void env_poke(wl_env_t *e, unsigned cn, uint64_t addr, uint64_t v)
{
    system_t *s = e->obj;
    if (addr_is_local(addr)) {
        cn_mem_local_poke(s->cn[cn].mem, addr, v);
        return;
    }
    system_mem_poke(s, addr, v);
    oracle_init(s->oracle, addr, v);
}

static uint64_t env_peek(wl_env_t *e, unsigned cn, uint64_t addr) { return system_peek(e->obj, cn, addr); }

static uint64_t *env_counter(wl_env_t *e, const char *name, const char *doc, char *err)
{
    system_t *s = e->obj;
    uint64_t *p = stats_counter_in(s->st, "workload", name, doc);
    if (!p)
        snprintf(err, WL_ERR_MAX, "statistic workload.%s: %s", name, stats_error(s->st));
    return p;
}

static const wl_env_ops_t env_ops = {
    .alloc_cxl = env_alloc_cxl, .alloc_local = env_alloc_local, .poke = env_poke, .peek = env_peek,
    .alloc_lnr = env_alloc_lnr, .counter = env_counter,
};

/* ---------------------------------------------------------------------------------------------
 * Creation */

/* The system's own statistics (system_stats; system_dk_stats and a copy of each LU's CSR counters
 * under a DIKTAMO protocol). */
static bool create_stats(system_t *s, char *err)
{
    stats_t *st = s->st;
    bool ok = stats_register(st, NULL, system_stats, STATS_DEFS_N(system_stats), s) == 0;
    if (ok && s->dk) {
        ok = stats_register(st, NULL, system_dk_stats, STATS_DEFS_N(system_dk_stats), s) == 0;
        s->c_lu_csr = calloc(s->ncn * N_LU_CSRS, sizeof *s->c_lu_csr);
        for (unsigned c = 0; ok && c < s->ncn; c++)
            for (unsigned i = 0; ok && i < N_LU_CSRS; i++) {
                char name[64];
                snprintf(name, sizeof name, "cn%u.lu.csr.%s", c, lu_csrs[i].name);
                s->c_lu_csr[c * N_LU_CSRS + i] = stats_counter(st, name, lu_csrs[i].doc);
                ok = s->c_lu_csr[c * N_LU_CSRS + i] != NULL;
            }
    }
    if (!ok)
        snprintf(err, SYSTEM_ERR_MAX, "statistics: %s", stats_error(st));
    return ok;
}

/* The MNs: each one's directory node, under DIKTAMO its LUs' dump store, and its recovery handler. */
static bool create_mns(system_t *s, const dir_model_ops_t *dops, bool skip_idle, char *err)
{
    kernel_t *k = s->k;
    const sim_config_t *cfg = s->cfg;
    stats_t *st = s->st;

    s->mn = calloc(s->nmn, sizeof *s->mn);
    for (unsigned m = 0; m < s->nmn; m++) {
        char name[32];
        snprintf(name, sizeof name, "mn%u", m);
        mn_node_params_t mp = {
            .mn = m,
            .num_mn = s->nmn,
            .mn_bytes = cfg->mem.mn_size_bytes,
            .interleave_bytes = cfg->mem.interleave_bytes,
            .scr_lo = s->scr_lo,
            .scr_hi = s->scr_hi,
            .freq_hz = cfg->fabric.freq_hz,
            .dram_latency_ps = cfg->mem.dram_latency_ps,
            .name = name,
            .seed = cfg->sim.seed,
            .skip_idle = skip_idle,
        };
        s->mn[m] = mn_node_create(k, s->f, s->ncn + m, dops, &mp, st, err);
        if (!s->mn[m])
            return false;
    }
    lu_map_init(&s->map, s->ncn, s->ncn == 32 ? ~0u : (1u << s->ncn) - 1);
    if (s->dk) {
        s->store = calloc(s->nmn, sizeof *s->store);
        for (unsigned m = 0; m < s->nmn; m++) {
            s->store[m] = lu_store_create(s->mn[m], m, lu_map_lus_of_mn(m, s->ncn, s->nmn), true);
            if (!s->store[m]) {
                snprintf(err, SYSTEM_ERR_MAX, "mn%u's log store: its node id or LUs per epoch are out of range", m);
                return false;
            }
        }
    }
    s->rec = calloc(s->nmn, sizeof *s->rec);
    const mn_recov_hooks_t rh = {.obj = s,
                                 .lus = hook_lus,
                                 .stores = hook_stores,
                                 .store_records = hook_store_records,
                                 .failed = hook_failed,
                                 .done = hook_mn_done};
    for (unsigned m = 0; m < s->nmn; m++) {
        char name[32];
        snprintf(name, sizeof name, "mn%u.recov", m);
        mn_recov_params_t rp = {.mn = m, .rec_search_ps = cfg->recovery.rec_search_ps, .name = name};
        s->rec[m] = mn_recov_create(k, s->mn[m], s->dk ? s->store[m] : NULL, &rp, &rh, st);
        if (!s->rec[m]) {
            snprintf(err, SYSTEM_ERR_MAX, "mn%u's recovery handler: %s", m, stats_error(st));
            return false;
        }
    }
    return true;
}

/* CN c: its port, memory system, under DIKTAMO its LU and replication engine, its recovery software,
 * its caches' hit rates and its cores, in that order. */
static bool create_cn(system_t *s, unsigned c, const lu_model_ops_t *lops, bool skip_idle, unsigned early_sets,
                      unsigned early_words, char *err)
{
    kernel_t *k = s->k;
    const sim_config_t *cfg = s->cfg;
    stats_t *st = s->st;
    sys_cn_t *n = &s->cn[c];
    n->s = s;
    n->idx = c;
    char name[32];
    snprintf(name, sizeof name, "cn%u", c);
    cn_mem_params_t mp = {
        .cn = c,
        .cores = s->cores,
        .l1 = cfg->l1,
        .l2 = cfg->l2,
        .l3 = cfg->l3,
        .core_freq_hz = cfg->core.freq_hz,
        .local_latency_ps = cfg->mem.local_latency_ps,
        .local_bytes = cfg->mem.local_size_bytes,
        .num_mn = s->nmn,
        .interleave_bytes = cfg->mem.interleave_bytes,
        .scr_lo = s->scr_lo,
        .scr_hi = s->scr_hi,
        .lnr_word_writeback = cfg->mem.lnr_writeback == CFG_LNR_WB_WORD,
        .name = name,
        .seed = cfg->sim.seed,
    };
    char pname[48];
    snprintf(pname, sizeof pname, "cn%u.port", c);
    n->port = cn_port_create(s->f, c, (unsigned)config_link_credits(cfg), pname, st);
    if (!n->port) {
        snprintf(err, SYSTEM_ERR_MAX, "cn%u's port: %s", c, stats_error(st));
        return false;
    }
    cn_link_t link = cn_port_mem_link(n->port);
    n->mem = cn_mem_create(k, &mp, &link, st, err);
    if (!n->mem)
        return false;
    cn_port_attach(n->port, CN_PORT_MEM, mem_deliver, mem_credit, n->mem);
    if (s->dk) {
        char lname[48];
        snprintf(lname, sizeof lname, "cn%u.lu", c);
        lu_node_params_t lp = {
            .cn = c,
            .num_cn = s->ncn,
            .freq_hz = cfg->lu.freq_hz,
            .sram_bytes = cfg->lu.sram_bytes,
            .dram_log_bytes = cfg->lu.dram_log_bytes,
            .high_watermark = cfg->lu.high_watermark,
            .dump_period_ps = cfg->lu.dump_period_ps,
            .zlib_level = (int)cfg->lu.zlib_level,
            .zpool = s->zpool,
            .drop_log = true, /* checked as they come (repl_check) */
            .dram_latency_ps = cfg->mem.local_latency_ps, /* the log is in the CN's own DRAM */
            .addr_lim = s->lnr_limit / ADDR_LINE_BYTES, /* every line of the MNs */
            .mn = lu_map_mn(c, s->nmn),
            .name = lname,
            .seed = cfg->sim.seed,
            .skip_idle = skip_idle,
        };
        n->lu = lu_node_create(k, n->port, lops, &lp, st, err);
        if (!n->lu)
            return false;
        lu_node_on_log(n->lu, on_log, n);
        snprintf(lname, sizeof lname, "cn%u.repl", c);
        cn_repl_params_t rp = {
            .cn = c,
            .num_cn = s->ncn,
            .cores = s->cores,
            .nr = (unsigned)cfg->lu.nr,
            .map = &s->map,
            .early_sets = early_sets,
            .early_words = early_words,
            .name = lname,
        };
        n->repl = cn_repl_create(k, n->port, &rp, st, err);
        if (!n->repl)
            return false;
    }
    {
        char sname[48];
        snprintf(sname, sizeof sname, "cn%u.sw", c);
        cm_params_t cp = {.cn = c, .num_cn = s->ncn, .num_mn = s->nmn, .lu = s->dk,
                          .nr = s->dk ? (unsigned)cfg->lu.nr : 0, .name = sname};
        cm_hooks_t ch = {.obj = s, .pause = hook_pause, .reconfigure = hook_reconfigure, .done = hook_cm_done,
                         .unrecoverable = hook_unrecoverable};
        n->cm = cm_create(k, n->port, s->f, &cp, &ch, st);
        if (!n->cm) {
            snprintf(err, SYSTEM_ERR_MAX, "cn%u's software: %s", c, stats_error(st));
            return false;
        }
    }
    for (unsigned l = 0; l < 3; l++) {
        char hn[64];
        snprintf(hn, sizeof hn, "cn%u.l%u.hits", c, l + 1);
        n->hits[l] = stats_find_counter(st, hn);
        snprintf(hn, sizeof hn, "cn%u.l%u.misses", c, l + 1);
        n->misses[l] = stats_find_counter(st, hn);
        snprintf(hn, sizeof hn, "cn%u.l%u.hit_rate", c, l + 1);
        n->hit_rate[l] = stats_gauge(st, hn, "hits / (hits + misses) of this level, all its cores");
        if (!n->hits[l] || !n->misses[l] || !n->hit_rate[l]) {
            snprintf(err, SYSTEM_ERR_MAX, "statistics: %s: %s", hn, stats_error(st));
            return false;
        }
    }
    n->core = calloc(s->cores, sizeof *n->core);
    for (unsigned i = 0; i < s->cores; i++) {
        char cname[48];
        snprintf(cname, sizeof cname, "cn%u.core%u", c, i);
        core_params_t cp = {
            .cn = c,
            .id = i,
            .freq_hz = cfg->core.freq_hz,
            .rob = (unsigned)cfg->core.rob_size,
            .lq = (unsigned)cfg->core.lq_size,
            .sq = (unsigned)cfg->core.sq_size,
            .width = (unsigned)cfg->core.width,
            .protocol = cfg->core.protocol,
            .coalesce = cfg->core.coalesce,
            .sync_ideal = cfg->core.sync == CFG_SYNC_IDEAL,
            .lnr_lo = cfg->mem.scr_size_bytes ? s->scr_hi : 0,
            .local_bytes = cfg->mem.local_size_bytes,
            .remote_bytes = cfg->system.num_mn * cfg->mem.mn_size_bytes,
            .repl = n->repl ? cn_repl_if(n->repl) : NULL,
            .name = cname,
        };
        n->core[i] = core_create(k, &cp, cn_mem_if(n->mem), st, err);
        if (!n->core[i])
            return false;
        core_on_commit(n->core[i], on_commit, s);
    }
    return true;
}

system_t *system_create(kernel_t *k, const sim_config_t *cfg, const fabric_model_ops_t *fops,
                        const dir_model_ops_t *dops, const lu_model_ops_t *lops, bool skip_idle, stats_t *st,
                        char *err)
{
    system_t *s = calloc(1, sizeof *s);
    s->dk = cfg->core.protocol >= CFG_PROTO_BASELINE;
    if (s->dk && !lops) {
        snprintf(err, SYSTEM_ERR_MAX, "protocol %s needs a Logging Unit model", config_protocol_name(cfg->core.protocol));
        free(s);
        return NULL;
    }
    s->k = k;
    s->cfg = cfg;
    s->st = st;
    s->ncn = (unsigned)cfg->system.num_cn;
    s->nmn = (unsigned)cfg->system.num_mn;
    s->cores = (unsigned)cfg->system.cores_per_cn;
    s->gran_lines = cfg->mem.interleave_bytes / ADDR_LINE_BYTES;
    const uint64_t total_lines = s->nmn * (cfg->mem.mn_size_bytes / ADDR_LINE_BYTES);
    s->scr_lo = 0;
    s->scr_hi = cfg->mem.scr_size_bytes ? cfg->mem.scr_size_bytes / ADDR_LINE_BYTES : total_lines;
    s->lnr_next = s->scr_hi * ADDR_LINE_BYTES; /* the LNR: every line above the SCR */
    s->lnr_limit = total_lines * ADDR_LINE_BYTES;
    s->oracle = oracle_create();
    if (!create_stats(s, err))
        goto fail;

    fabric_params_t fp = {
        .freq_hz = cfg->fabric.freq_hz,
        .link_latency_ps = cfg->fabric.link_latency_ps,
        .link_jitter_ps = cfg->fabric.link_jitter_ps,
        .rx_credits = (unsigned)config_link_credits(cfg),
        .skip_idle = skip_idle,
        .seed = cfg->sim.seed,
        .reset_cycles = 4,
        .heartbeat_cycles = (uint32_t)cfg->fabric.heartbeat_cycles,
        .silence_cycles = (uint32_t)cfg->fabric.silence_cycles,
        .accept_cycles = (uint32_t)cfg->fabric.accept_cycles,
    };
    if (kernel_set_threads(k, (unsigned)cfg->sim.threads)) {
        snprintf(err, SYSTEM_ERR_MAX, "cannot start a second host thread: %s", strerror(errno));
        goto fail;
    }
    if (s->dk && !(s->rcheck = repl_check_create((unsigned)cfg->lu.nr, replicas_of, s))) {
        snprintf(err, SYSTEM_ERR_MAX, "the replicas' log check: out of memory");
        goto fail;
    }
    if (s->dk && cfg->sim.zlib_threads && !(s->zpool = lu_zlib_pool_create((unsigned)cfg->sim.zlib_threads))) {
        snprintf(err, SYSTEM_ERR_MAX, "cannot start %u compression threads: %s", (unsigned)cfg->sim.zlib_threads,
                 strerror(errno));
        goto fail;
    }
    s->f = fabric_create(k, fops, &fp, st);
    if (!s->f) {
        snprintf(err, SYSTEM_ERR_MAX, "the fabric cannot be built (see above)");
        goto fail;
    }

    if (!create_mns(s, dops, skip_idle, err))
        goto fail;
    /* Early REPL sets (proactive): each CN's share of every LU's buffer beyond one full set per
     * core of the system (csim/cn/cn_repl.h), or, with lu.head_reserve = none, no bound but the
     * store buffers'. */
    const unsigned all_cores = s->ncn * s->cores;
    unsigned early_sets = 0, early_words = 0;
    if (lops && cfg->lu.head_reserve == CFG_RESERVE_NONE) {
        early_sets = early_words = UINT_MAX;
    } else if (lops) {
        early_sets = lops->slots > all_cores ? (lops->slots - all_cores) / s->ncn : 0;
        early_words = lops->entries > 8 * all_cores ? (lops->entries - 8 * all_cores) / s->ncn : 0;
    }

    s->cn = calloc(s->ncn, sizeof *s->cn);
    for (unsigned c = 0; c < s->ncn; c++)
        if (!create_cn(s, c, lops, skip_idle, early_sets, early_words, err))
            goto fail;
    s->env = (wl_env_t){.ops = &env_ops, .obj = s, .cfg = cfg, .num_cn = s->ncn, .seed = cfg->sim.seed,
                        .live = &s->live_threads};
    return s;
fail:
    system_free(s);
    return NULL;
}

void system_free(system_t *s)
{
    if (!s)
        return;
    if (s->wl && s->wl->free && s->wl_state)
        s->wl->free(s->wl_state);
    if (s->cn)
        for (unsigned c = 0; c < s->ncn; c++) {
            if (s->cn[c].core)
                for (unsigned i = 0; i < s->cores; i++)
                    core_free(s->cn[c].core[i]);
            free(s->cn[c].core);
            cn_repl_free(s->cn[c].repl);
            cm_free(s->cn[c].cm);
            lu_node_free(s->cn[c].lu);
            cn_mem_free(s->cn[c].mem);
            cn_port_free(s->cn[c].port);
        }
    free(s->cn);
    lu_zlib_pool_free(s->zpool); /* after the LUs' engines */
    if (s->store)
        for (unsigned m = 0; m < s->nmn; m++)
            lu_store_free(s->store[m]);
    free(s->store);
    if (s->rec)
        for (unsigned m = 0; m < s->nmn; m++)
            mn_recov_free(s->rec[m]);
    free(s->rec);
    free(s->mrep);
    repl_check_free(s->rcheck);
    free(s->c_lu_csr);
    if (s->mn)
        for (unsigned m = 0; m < s->nmn; m++)
            mn_node_free(s->mn[m]);
    free(s->mn);
    fabric_free(s->f);
    oracle_free(s->oracle);
    free(s->threads);
    free(s->thread_cn);
    free(s);
}

/* ---------------------------------------------------------------------------------------------
 * Loading and running a workload */

int system_load(system_t *s, const workload_t *w, unsigned nthreads, void *arg, char *err)
{
    const unsigned all = s->ncn * s->cores;
    if (!nthreads)
        nthreads = s->cfg->workload.threads ? (unsigned)s->cfg->workload.threads : all;
    if (nthreads > all) {
        snprintf(err, SYSTEM_ERR_MAX, "%u threads need as many cores, but the system has %u (%u CNs x %u cores)",
                 nthreads, all, s->ncn, s->cores);
        return -1;
    }
    if (s->loaded) {
        snprintf(err, SYSTEM_ERR_MAX, "a workload is already loaded");
        return -1;
    }
    s->nthreads = nthreads;
    s->live_threads = nthreads >= 64 ? ~0ull : (1ull << nthreads) - 1;
    s->thread_cn = calloc(nthreads, sizeof *s->thread_cn);
    s->threads = calloc(nthreads, sizeof *s->threads);
    /* Round-robin over the CNs: thread i on CN i mod num_cn, core i / num_cn. */
    for (unsigned i = 0; i < nthreads; i++)
        s->thread_cn[i] = i % s->ncn;
    s->env.nthreads = nthreads;
    s->env.thread_cn = s->thread_cn;
    char werr[WL_ERR_MAX] = "";
    s->wl_state = arg;
    if (w->setup(&s->env, &s->wl_state, werr)) {
        snprintf(err, SYSTEM_ERR_MAX, "%s", werr);
        return -1;
    }
    s->wl = w;
    s->loaded = true;
    return 0;
}

static void quiet_poll(void *obj, uint64_t arg)
{
    (void)arg;
    system_t *s = obj;
    /* Every failure's recovery has run (or the failure was found unrecoverable): a CN that failed
     * just before the last live thread ended is not detected yet, and the fabric is quiet until
     * the switch misses its heartbeats. */
    bool quiet = fabric_quiet(s->f) &&
                 (!s->dk || *s->c_recoveries + (unsigned)__builtin_popcount(s->unrecoverable) >= *s->c_failures);
    for (unsigned c = 0; quiet && c < s->ncn; c++)
        quiet = s->cn[c].failed ||
                (cn_mem_idle(s->cn[c].mem) &&
                 (!s->dk || (lu_node_idle(s->cn[c].lu) && cn_repl_idle(s->cn[c].repl))) && !cn_port_queued(s->cn[c].port) &&
                 cm_idle(s->cn[c].cm));
    for (unsigned m = 0; quiet && m < s->nmn; m++)
        quiet = mn_node_idle(s->mn[m]) && mn_recov_idle(s->rec[m]);
    if (quiet) {
        s->quiet = true;
        kernel_stop(s->k);
        return;
    }
    kernel_after(s->k, 64 * fabric_period_ps(s->f), quiet_poll, s, 0);
}

static void thread_exit(void *obj)
{
    system_t *s = obj;
    if (++s->finished + s->lost == s->nthreads) {
        s->end_ps = s->k->now;
        quiet_poll(s, 0);
    }
}

static uint64_t counter_of(const system_t *s, const char *fmt, unsigned a, unsigned b)
{
    char name[96];
    snprintf(name, sizeof name, fmt, a, b);
    const uint64_t *v = stats_find_counter(s->st, name);
    return v ? *v : 0;
}

/* Useful work: instructions, the MNs' DRAM accesses (a recovery's directory walk retires no
 * instruction for a long while, but reads its MN's DRAM all along), and the answers the MNs'
 * recovery handlers take (the LUs' search of long logs takes milliseconds, answering a batch at a
 * time: small.ini's 100 us dump period leaves tens of thousands of records); a deadlock does none. */
static uint64_t progress_measure(void *obj)
{
    system_t *s = obj;
    uint64_t n = system_instructions(s);
    for (unsigned m = 0; m < s->nmn; m++)
        n += counter_of(s, "mn%u.dram.reads", m, 0) + counter_of(s, "mn%u.dram.writes", m, 0) +
             counter_of(s, "mn%u.recov.answers", m, 0);
    return n;
}

/* A commit of the failing CN that is not durable yet: its VALs never left it (cn_repl_unsent), its
 * write-through has no CMP yet (cn_mem_wt_pending), or it is an LNR word not written back
 * (cn_mem_lnr_unwritten): in doubt. */
typedef struct doubt_ctx {
    oracle_t *oracle;
    unsigned cn;
} doubt_ctx_t;

static void doubt_lnr(void *obj, uint64_t gline, uint8_t mask)
{
    const doubt_ctx_t *d = obj;
    for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
        if (mask >> w & 1u)
            oracle_doubt_unwritten(d->oracle, gline * ADDR_LINE_BYTES + (uint64_t)w * ADDR_WORD_BYTES, d->cn);
}

static void doubt_entry(void *obj, unsigned core, uint64_t gline, uint8_t mask)
{
    const doubt_ctx_t *d = obj;
    for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
        if (mask >> w & 1u)
            oracle_doubt(d->oracle, gline * ADDR_LINE_BYTES + (uint64_t)w * ADDR_WORD_BYTES, d->cn, core);
}

void system_fail_cn(system_t *s, unsigned cn)
{
    sys_cn_t *n = &s->cn[cn];
    if (n->failed)
        return;
    n->failed = true;
    n->t_failed = s->k->now;
    (*s->c_failures)++;
    if (s->rcheck)
        repl_check_stop(s->rcheck); /* the replica sets change */
    doubt_ctx_t d = {s->oracle, cn};
    if (n->repl)
        cn_repl_unsent(n->repl, doubt_entry, &d);
    cn_mem_wt_pending(n->mem, doubt_entry, &d);
    cn_mem_lnr_unwritten(n->mem, doubt_lnr, &d); /* lost with its caches, seen by no other CN */
    cn_mem_census_t cen;
    cn_mem_census(n->mem, &cen);
    *s->c_fail_shared += cen.shared;
    *s->c_fail_dirty += cen.dirty;
    *s->c_fail_excl += cen.exclusive;
    fabric_fail_node(s->f, cn);
    cm_fail(n->cm);
    cn_mem_fail(n->mem);
    for (unsigned i = 0; i < s->cores; i++) {
        if (s->started && i * s->ncn + cn < s->nthreads && !core_idle(n->core[i])) {
            s->lost++; /* its thread is still running: lost with the CN */
            (*s->c_threads_lost)++;
        }
        core_fail(n->core[i]);
    }
    if (n->lu)
        lu_node_set_alive(n->lu, false);
    if (s->started && s->finished + s->lost == s->nthreads && !s->end_ps) {
        s->end_ps = s->k->now;
        quiet_poll(s, 0);
    }
}

static void ev_fail(void *obj, uint64_t cn) { system_fail_cn(obj, (unsigned)cn); }

void system_fail_at(system_t *s, unsigned cn, uint64_t t_ps) { kernel_at(s->k, t_ps, ev_fail, s, cn); }

int system_fail_after_recovery(system_t *s, unsigned cn, uint64_t delay_ps)
{
    if (s->nafter == SYSTEM_MAX_AFTER)
        return -1;
    s->after[s->nafter].cn = cn;
    s->after[s->nafter++].delay_ps = delay_ps;
    return 0;
}

bool system_cn_failed(const system_t *s, unsigned cn) { return s->cn[cn].failed; }


/* The run's totals over cores, CNs and LUs (the paper's figures read them). */
static void run_totals(system_t *s)
{
    const double ns_per_cycle = (double)PS_PER_S / (double)s->cfg->core.freq_hz / (double)PS_PER_NS;
    for (unsigned i = 0; i < 4; i++) {
        double sum = 0, cnt = 0;
        for (unsigned c = 0; c < s->ncn; c++)
            for (unsigned k = 0; k < s->cores; k++) {
                char name[96];
                snprintf(name, sizeof name, "cn%u.core%u.%s", c, k, split_hist[i]);
                const stats_hist_t *h = stats_find_hist(s->st, name);
                if (h)
                    sum += (double)h->sum, cnt += (double)h->count;
            }
        *s->g_split[i] = cnt > 0 ? sum / cnt * ns_per_cycle : 0.0;
    }
    if (!s->dk)
        return;
    uint64_t sets = 0, head = 0, in = 0, out = 0, lmax = 0;
    *s->c_repl_msgs = *s->c_repl_bytes = *s->c_repl_acks = *s->c_val_msgs = *s->c_val_bytes = 0;
    for (unsigned c = 0; c < s->ncn; c++) {
        for (unsigned k = 0; k < s->cores; k++) {
            sets += counter_of(s, "cn%u.core%u.repl_sets", c, k);
            head += counter_of(s, "cn%u.core%u.repl_sets_at_head", c, k);
        }
        *s->c_repl_msgs += counter_of(s, "cn%u.repl.repl_msgs", c, 0);
        *s->c_repl_bytes += counter_of(s, "cn%u.repl.repl_bytes", c, 0);
        *s->c_repl_acks += counter_of(s, "cn%u.repl.repl_acks", c, 0);
        *s->c_val_msgs += counter_of(s, "cn%u.repl.val_msgs", c, 0);
        *s->c_val_bytes += counter_of(s, "cn%u.repl.val_bytes", c, 0);
        const lu_drv_t *d = lu_node_drv(s->cn[c].lu);
        uint64_t zi, zo;
        lu_drv_zlib_bytes(d, &zi, &zo);
        in += zi, out += zo;
        uint64_t m = (uint64_t)lu_drv_log_max(d) * 16u;
        lmax = m > lmax ? m : lmax;
    }
    /* TravLU: the longest LU search time of the run's recoveries (the LUs' TRAV_CYCLES), taken out
     * of MN<->LU, which measured it with the messages around it. */
    if (*s->c_recoveries) {
        uint32_t trav = 0;
        for (unsigned c = 0; c < s->ncn; c++) {
            bool e = false;
            uint32_t v = s->cn[c].failed ? 0 : lu_node_csr(s->cn[c].lu, LU_CSR_TRAV_CYCLES, &e);
            trav = !e && v > trav ? v : trav;
        }
        double ns = (double)trav * 1e9 / (double)s->cfg->lu.freq_hz;
        *s->g_rec[RG_LU] = ns;
        *s->g_rec[RG_MN_LU] = *s->g_rec[RG_MN_LU] > ns ? *s->g_rec[RG_MN_LU] - ns : 0.0;
    }
    *s->c_repl_sets = sets;
    *s->g_at_head = sets ? (double)head / (double)sets : 0.0;
    *s->c_log_max_bytes = lmax;
    *s->c_dump_in = in;
    *s->c_dump_out = out;
    double secs = (double)(s->end_ps - s->start_ps) / (double)PS_PER_S;
    *s->g_dump_gbps = secs > 0 ? (double)out / secs / 1e9 : 0.0;
    *s->g_compress = out ? (double)in / (double)out : 0.0;
}

const char *system_fault(const system_t *s)
{
    for (unsigned c = 0; c < s->ncn; c++)
        for (unsigned i = 0; i < s->cores; i++)
            if (core_fault(s->cn[c].core[i]))
                return core_fault(s->cn[c].core[i]);
    return NULL;
}

run_end_e system_run(system_t *s, uint64_t end_ps, progress_t *line)
{
    if (!s->started) {
        s->started = true;
        s->start_ps = s->k->now;
        for (unsigned i = 0; i < s->nthreads; i++) {
            unsigned cn = s->thread_cn[i], core = i / s->ncn;
            wl_thread_t *t = &s->threads[i];
            t->tid = i;
            t->nthreads = s->nthreads;
            t->seed = s->cfg->sim.seed * 0x9e3779b97f4a7c15ull + i;
            t->live = &s->live_threads;
            core_run(s->cn[cn].core[core], t, s->wl->thread, s->wl_state, s->start_ps, thread_exit, s);
        }
        /* The configured failure (fail.*): its CN and moment, or drawn from the run's seed. */
        const uint64_t at = s->cfg->fail.at_ps, after = s->cfg->fail.after_commits;
        s->fail_cn = (unsigned)s->cfg->fail.cn;
        s->fail_after = after;
        uint64_t when = at;
        if (s->cfg->fail.random) {
            rng_t g;
            rng_init_named(&g, s->cfg->sim.seed, "fail");
            s->fail_cn = (unsigned)rng_below(&g, s->ncn);
            if (at)
                when = 1 + rng_below(&g, at);
            if (after)
                s->fail_after = 1 + rng_below(&g, after);
        }
        if (when)
            system_fail_at(s, s->fail_cn, s->start_ps + when);
    }
    run_params_t rp = {
        .end_ps = end_ps,
        .stall_timeout_ps = s->cfg->sim.stall_timeout_ps,
        .progress = progress_measure,
        .obj = s,
        .line = line,
    };
    run_end_e e = run_loop(s->k, &rp);
    if (e == RUN_DONE && system_fault(s))
        e = RUN_FAULT;
    else if (e == RUN_DONE && !s->quiet)
        e = RUN_IDLE; /* stopped by someone else (or an unrecoverable failure: system_unrecoverable) */

    if (s->end_ps) {
        *s->g_exec_ns = (double)(s->end_ps - s->start_ps) / (double)PS_PER_NS;
        *s->c_instr = system_instructions(s);
        *s->c_threads = s->nthreads;
        double cycles = (double)(s->end_ps - s->start_ps) * (double)s->cfg->core.freq_hz / (double)PS_PER_S;
        *s->g_ipc = cycles > 0 ? (double)system_instructions(s) / cycles / s->nthreads : 0.0;
        for (unsigned c = 0; c < s->ncn; c++)
            for (unsigned l = 0; l < 3; l++) {
                const sys_cn_t *n = &s->cn[c];
                uint64_t a = *n->hits[l] + *n->misses[l];
                *n->hit_rate[l] = a ? (double)*n->hits[l] / (double)a : 0.0;
            }
        run_totals(s);
    }
    return e;
}

static uint64_t oracle_peek(void *obj, uint64_t addr) { return system_peek(obj, 0, addr); }

/* system_check with the line cache on. */
static int check(system_t *s, FILE *f, size_t max_lines, oracle_report_t *r, char *err);

int system_check(system_t *s, FILE *f, size_t max_lines, oracle_report_t *r, char *err)
{
    s->peek = (line_peek_t){.on = true};
    int rc = check(s, f, max_lines, r, err);
    s->peek.on = false;
    return rc;
}

static int check(system_t *s, FILE *f, size_t max_lines, oracle_report_t *r, char *err)
{
    oracle_check(s->oracle, oracle_peek, s, f, max_lines, r);
    *s->c_or_words = r->words;
    *s->c_or_stores = r->stores;
    *s->c_or_ok = r->ok;
    *s->c_or_lost = r->lost;
    *s->c_or_phantom = r->phantom;
    *s->c_or_undurable = r->undurable;
    if (s->unrecoverable) {
        snprintf(err, SYSTEM_ERR_MAX, "unrecoverable: %d CNs (mask 0x%x) failed before a recovery ended, and each store "
                 "has lu.nr = %llu replicas (the oracle: %llu words lost)", __builtin_popcount(s->unrecoverable),
                 s->unrecoverable, (unsigned long long)s->cfg->lu.nr, (unsigned long long)r->lost);
        return -1;
    }
    size_t viol = system_violations(s);
    if (viol) {
        for (unsigned m = 0; m < s->nmn && f; m++)
            if (mn_node_violations(s->mn[m]))
                mn_node_dump(s->mn[m], f);
        snprintf(err, SYSTEM_ERR_MAX, "the directories reported %zu protocol violations", viol);
        return -1;
    }
    /* An rmw on an LNR word is atomic only inside its CN: no design may rely on one. */
    for (unsigned c = 0; c < s->ncn; c++) {
        uint64_t n = cn_mem_lnr_rmws(s->cn[c].mem);
        if (n) {
            snprintf(err, SYSTEM_ERR_MAX, "CN %u made %" PRIu64 " read-modify-writes on words of the Large "
                     "Non-coherent Region: atomic only inside one CN, never across CNs (cn%u.lnr_rmws)", c, n, c);
            return -1;
        }
    }
    /* The LUs' own counters: what they saw malformed (a correct system sends nothing of it). */
    for (unsigned c = 0; s->dk && c < s->ncn; c++)
        for (unsigned i = 0; i < N_LU_CSRS; i++) {
            bool e = false;
            uint32_t v = lu_node_csr(s->cn[c].lu, lu_csrs[i].csr, &e);
            *s->c_lu_csr[c * N_LU_CSRS + i] = v;
            if (!e && lu_csrs[i].error && v) {
                snprintf(err, SYSTEM_ERR_MAX, "the LU of CN %u counted %" PRIu32 " %s: %s", c, v, lu_csrs[i].name,
                         lu_csrs[i].doc);
                return -1;
            }
        }
    /* The MN log stores' errors: a dump's message malformed, out of place or too many (a correct
     * system sends none; what a failed LU still had in flight is not one: mn_log_drop_lu). */
    for (unsigned m = 0; s->dk && m < s->nmn; m++) {
        const mn_log_t *l = lu_store_log(s->store[m]);
        if (mn_log_stats(l)->errors) {
            const mn_log_err_t *e = mn_log_error(l, 0);
            snprintf(err, SYSTEM_ERR_MAX, "the log store of MN %u reported %" PRIu64 " errors, the first: %s: %s", m,
                     mn_log_stats(l)->errors, mn_log_err_name(e->kind), e->what);
            return -1;
        }
    }
    if (r->lost || r->phantom) {
        snprintf(err, SYSTEM_ERR_MAX, "oracle: %" PRIu64 " of %" PRIu64 " words wrong (%" PRIu64 " lost, %" PRIu64
                 " phantom)", r->lost + r->phantom, r->words, r->lost, r->phantom);
        return -1;
    }
    if (s->wl && s->wl->check) {
        char werr[WL_ERR_MAX] = "";
        if (s->wl->check(&s->env, s->wl_state, werr)) {
            snprintf(err, SYSTEM_ERR_MAX, "workload %s: %s", s->wl->name, werr);
            return -1;
        }
    }
    return 0;
}

/* Every LU's log history against the commits (system.h). pos[w * ncn + c]: how many
 * of word w's commits LU c has logged so far. */
size_t system_check_logs(system_t *s, FILE *f, size_t max_lines, uint64_t *checked)
{
    *checked = 0;
    if (!s->dk || *s->c_failures)
        return 0; /* replica sets changed with the failure: the oracle judges (system.h) */
    return repl_check_end(s->rcheck, f, max_lines, checked);
}

uint64_t system_exec_ps(const system_t *s) { return s->end_ps ? s->end_ps - s->start_ps : 0; }

uint64_t system_instructions(const system_t *s)
{
    uint64_t n = 0;
    for (unsigned c = 0; c < s->ncn; c++)
        for (unsigned i = 0; i < s->cores; i++)
            n += core_instructions(s->cn[c].core[i]);
    return n;
}

uint64_t system_zlib_missed(const system_t *s)
{
    uint64_t n = 0;
    for (unsigned c = 0; s->dk && c < s->ncn; c++)
        n += lu_drv_zlib_missed(lu_node_drv(s->cn[c].lu));
    return n;
}

unsigned system_threads(const system_t *s) { return s->nthreads; }

fabric_t *system_fabric(system_t *s) { return s->f; }

size_t system_violations(const system_t *s)
{
    size_t n = 0;
    for (unsigned m = 0; m < s->nmn; m++) {
        const dir_drv_t *d = mn_node_drv(s->mn[m]);
        for (size_t i = 0; i < dir_drv_viols(d); i++) {
            const dir_viol_rec_t *v = dir_drv_viol(d, i);
            /* a message a failed CN sent, refused once the handler declared it failed (section 11c):
             * expected, not a violation (it waited in the directory's FIFO, during a recovery) */
            if (v->kind == DIR_VIOL_BAD_MSG && v->m.src < s->ncn && s->cn[v->m.src].failed)
                continue;
            n++;
        }
    }
    return n;
}

void system_dump(const system_t *s, FILE *f)
{
    fprintf(f, "system at %" PRIu64 " ps: %u of %u threads finished\n", s->k->now, s->finished, s->nthreads);
    for (unsigned c = 0; c < s->ncn; c++) {
        if (s->cn[c].failed) {
            fprintf(f, "cn%u failed at %" PRIu64 " ps\n", c, s->cn[c].t_failed);
            continue;
        }
        for (unsigned i = 0; i < s->cores; i++)
            if (!core_idle(s->cn[c].core[i]))
                core_dump(s->cn[c].core[i], f);
        if (!cn_mem_idle(s->cn[c].mem))
            cn_mem_dump(s->cn[c].mem, f);
        if (s->dk && !cn_repl_idle(s->cn[c].repl))
            cn_repl_dump(s->cn[c].repl, f);
        if (s->dk && !lu_node_idle(s->cn[c].lu))
            lu_node_dump(s->cn[c].lu, f);
        if (!cm_idle(s->cn[c].cm))
            cm_dump(s->cn[c].cm, f);
    }
    for (unsigned m = 0; m < s->nmn; m++)
        if (!mn_recov_idle(s->rec[m]))
            mn_recov_dump(s->rec[m], f);
    for (unsigned m = 0; m < s->nmn; m++)
        if (!mn_node_idle(s->mn[m]) || mn_node_violations(s->mn[m]))
            mn_node_dump(s->mn[m], f);
}

unsigned system_failures(const system_t *s) { return (unsigned)*s->c_failures; }

void system_print_recovery(const system_t *s, FILE *f, const char *prefix)
{
    if (!*s->c_failures)
        return;
    fprintf(f, "%s: %u CN failure(s), %llu recovered; %llu threads lost; %llu words recovered from LU logs, %llu "
               "from MN log stores\n",
            prefix, (unsigned)*s->c_failures, (unsigned long long)*s->c_recoveries,
            (unsigned long long)*s->c_threads_lost, (unsigned long long)*s->c_rec_words_lu,
            (unsigned long long)*s->c_rec_words_mn);
    fprintf(f, "%s: lines of the failed CNs (Fig. 15): %llu owned by the directories' count; their L3s held %llu "
               "shared, %llu owned dirty, %llu owned clean (exclusive)\n",
            prefix, (unsigned long long)*s->c_rec_owned, (unsigned long long)*s->c_fail_shared,
            (unsigned long long)*s->c_fail_dirty, (unsigned long long)*s->c_fail_excl);
    if (!*s->c_recoveries)
        return;
    static const char *const short_names[9] = {"detection", "RecBegin", "CM<->MN", "TravDir", "MN<->LU",
                                               "TravLU",    "MNMerge",  "RecEnd",  "total"};
    fprintf(f, "%s: recovery (ns):", prefix);
    for (unsigned i = 0; i < 9; i++)
        fprintf(f, " %s %.0f%s", short_names[i], *s->g_rec[i], i < 8 ? "," : "\n");
}

uint32_t system_unrecoverable(const system_t *s) { return s->unrecoverable; }
