/* What the data-sharing workloads on partly coherent memory have in common (hcmeta.c): objects
 * in the Large Non-coherent Region (LNR), how an object is written, read and flushed, the keys
 * operations draw, each thread's log of its operations in its CN's local memory, and the check of
 * a run against that history.
 *
 * An object of workload.share_object_size bytes (whole lines) sits at a fixed LNR address. Its
 * first line starts with a header: word 0 key + 1, word 1 its state in one word (so that no
 * write-back ever tears it): the version (the writes of a key, puts, inserts and deletes, are
 * numbered 1, 2, 3, ...; 0 is setup's), its writer (tid + 1 << SHARE_WRITER_SHIFT; 0: setup) and
 * SHARE_GONE once deleted. Every other word is payload: word i of (key, version, writer) is a hash
 * of the four, so a read that mixes two versions (a torn read) shows.
 * Operations: get, and three writes: put (the object's new value), insert (the same: a put that
 * makes a deleted key present again; on a present key it replaces it) and delete (a tombstone: the
 * key reads as deleted until a put or an insert). workload.share_read_pct of them are gets,
 * share_insert_pct inserts, share_delete_pct deletes, the rest puts.
 *
 * Correctness, checked at the end against the logs: every get returned a version that was the
 * key's latest committed write at some instant during the get (its write began before the get
 * ended, and the next write of the key did not end before the get began), deleted exactly when
 * that write was a delete, and whole (no torn read); the writes of a key were serialized (versions
 * 1 .. n, each once); and memory holds every key's last write. A write ends once its commit is
 * visible (the workload fences it), so its log's end bounds its commit. With threads lost with a
 * failed CN (their logs were in its memory), the check covers the live threads' logs: a key's
 * versions only grow, a get may return a version no log holds only when a lost thread wrote it, and
 * memory holds the last logged write of a key or a later one by a lost thread, whole. */
#ifndef SHARE_H
#define SHARE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/config.h"
#include "base/rng.h"
#include "workloads/workloads.h"

#define SHARE_HDR_WORDS 2u
#define SHARE_GONE (1ull << 62) /* in an object's state and in a result: the key is deleted */
#define SHARE_WRITER_SHIFT 48u  /* a result: version | writer (tid + 1) << 48 | SHARE_GONE */
#define SHARE_VER_MASK ((1ull << SHARE_WRITER_SHIFT) - 1)
#define SHARE_WRITER_MASK (0x3fffull << SHARE_WRITER_SHIFT)
/** A state's (or a result's) version and writer (tid + 1; 0: setup). */
static inline uint64_t share_ver(uint64_t st) { return st & SHARE_VER_MASK; }
static inline uint64_t share_writer(uint64_t st) { return (st & SHARE_WRITER_MASK) >> SHARE_WRITER_SHIFT; }

typedef enum share_op { SHARE_GET, SHARE_PUT, SHARE_INSERT, SHARE_DELETE } share_op_e;
#define SHARE_BATCH 256u /* loads per wl_ld_batch when an object is read */

/* The counters every sharing workload keeps ("<name>.<counter>" in the run's statistics). */
enum {
    SHARE_GETS,    /* gets done */
    SHARE_PUTS,    /* puts done */
    SHARE_INSERTS, /* inserts done */
    SHARE_DELETES, /* deletes done */
    SHARE_RETRIES, /* validations that failed and were tried again */
    SHARE_FLUSHES, /* object lines flushed (stale copies dropped and new objects written back) */
    SHARE_TORN,    /* gets that validated yet read a torn object (must be 0) */
    SHARE_WARM_PS, /* the measured window's start: the latest end of a thread's first tenth of its ops */
    SHARE_END_PS,  /* the window's end: the latest end of a thread's operations */
    SHARE_WIN_OPS, /* operations after each thread's first tenth (throughput: these over the window) */
    SHARE_NCOUNT
};

typedef struct share {
    const char *name; /* the workload's, for messages and counters */
    uint64_t nobj, obj_bytes, obj_words, ops, read_pct, insert_pct, delete_pct;
    bool zipf;
    rng_zipf_t keys;
    cfg_skip_flush_e skip;
    uint64_t pause_instrs; /* workload.share_read_pause, as core instructions */
    unsigned nthreads, num_cn;
    const unsigned *thread_cn;
    unsigned nown;    /* the CNs that run threads (each an owner of hcmeta's index, a replica of megalon's) */
    unsigned *own_cn; /* the i-th of them */
    unsigned *own_of; /* CN c's index among them (UINT_MAX: runs no thread) */
    uint64_t objects; /* LNR: object k at objects + k * obj_bytes */
    uint64_t *seen;   /* per CN (local): a word per key, the workload's own use (validated records) */
    uint64_t *log;    /* per thread (local): 4 words an operation, then the count done */
    uint64_t *stat[SHARE_NCOUNT];
} share_t;

/** Reads the workload.share_* keys, allocates the objects (LNR; an error without one), the seen
 *  tables, the logs and the counters, and writes every object's setup version. */
int share_setup(wl_env_t *e, share_t *s, const char *name, char *err);
void share_free(share_t *s);

/** Operations of thread tid (share_ops split evenly). */
uint64_t share_thread_ops(const share_t *s, unsigned tid);
/** The next operation's key and kind (share_read_pct, share_insert_pct, share_delete_pct). */
uint64_t share_next_op(const share_t *s, rng_t *r, share_op_e *op);
static inline uint64_t share_obj(const share_t *s, uint64_t key) { return s->objects + key * s->obj_bytes; }
/** Address of the seen word of key on CN cn. */
static inline uint64_t share_seen(const share_t *s, unsigned cn, uint64_t key) { return s->seen[cn] + 8 * key; }

/** A reader's pause between finding an object and reading it (workload.share_read_pause), spent in
 *  steps of 1000 instructions, so that on the functional runner too others run meanwhile. */
void share_pause(wl_thread_t *t, const share_t *s);
/** Drops key's lines from the thread's CN (clflushopt each, then a fence), unless the reader
 *  mutation skips it; counts them. */
void share_flush_stale(wl_thread_t *t, const share_t *s, uint64_t key);
/** Reads every word of key's object (batched: independent loads). Returns its version, its writer
 *  (<< SHARE_WRITER_SHIFT) and SHARE_GONE when deleted; *torn set when a payload word or the key word
 *  does not match the header's (key, version, writer). */
uint64_t share_read(wl_thread_t *t, const share_t *s, uint64_t key, bool *torn);
/** Writes key's object as version ver by this thread (a tombstone when gone), then writes it back
 *  (clflushopt each line, then a fence) unless the writer mutation skips it. */
void share_write(wl_thread_t *t, const share_t *s, uint64_t key, uint64_t ver, bool gone);
/** Makes key's object whole after a writer was lost with its CN part way (its caller holds the
 *  record the writer held): drops this CN's copies, reads the header memory has, and writes every
 *  word again as that version by that writer, then writes it back. Returns that result. */
uint64_t share_repair(wl_thread_t *t, const share_t *s, uint64_t key);
/** Logs the thread's n-th operation (0-based): op on key, its result (the version read or written,
 *  SHARE_GONE when deleted; for a get, its writer too; a write's writer is this thread), from t0 to
 *  t1 (wl_now), and keeps the measured window (its first tenth of operations warms up). */
void share_log(wl_thread_t *t, const share_t *s, uint64_t n, share_op_e op, uint64_t key, uint64_t res, uint64_t t0,
               uint64_t t1);
/** A thread's operations: share_thread_ops of them, each drawn by share_next_op (the thread's own
 *  stream, named `stream`) after the client's work, done by get or write, logged. `between`, when
 *  not NULL, runs before each operation (hcmeta's owners serve requests there). Then the thread
 *  counts itself done (the check reads the count). */
void share_run(wl_thread_t *t, const share_t *s, const void *w, const char *stream,
               uint64_t (*get)(wl_thread_t *, const void *, uint64_t),
               uint64_t (*write)(wl_thread_t *, const void *, uint64_t, share_op_e),
               void (*between)(wl_thread_t *, const void *));
/** Done words: a bit per thread in (nthreads + 63) / 64 words of the SCR at `done`, which the
 *  workload allocates. A thread that has done its operations sets its bit (share_done_mark) and
 *  may then wait until every live thread has (share_all_done); the check (share_done_check, 0 or
 *  -1 with err filled, `name` its prefix) wants every live thread's bit and none beyond them. */
void share_done_mark(wl_thread_t *t, uint64_t done);
bool share_all_done(wl_thread_t *t, const share_t *s, uint64_t done);
int share_done_check(wl_env_t *e, const share_t *s, uint64_t done, const char *name, char *err);
/** The check above; 0, or -1 with err filled. in_doubt (NULL: none), with threads lost: keys whose
 *  write a lost thread left half done and no survivor has made whole (their memory is not judged). */
int share_check(wl_env_t *e, const share_t *s, bool (*in_doubt)(wl_env_t *e, const void *obj, uint64_t key),
                const void *obj, char *err);

#endif
