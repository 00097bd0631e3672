/* What the range indexes on partly coherent memory have in common (sc_btree.c and the indexes
 * after it): their keys and the YCSB operations the clients draw, the node versions that keep
 * cached copies of Large Non-coherent Region (LNR) nodes current, each thread's log of its
 * operations in its CN's local memory, and the check of a run against that history.
 *
 * Keys and values. workload.share_objects keys, 8 bytes each, drawn at random over 63 bits once in
 * setup (sparse, as the Prism blog's) and kept sorted in host memory: the clients' key generator
 * (YCSB's clients compute a key from its number; here the choice costs the client's instructions,
 * no memory access). A client draws a key's rank (uniform or Zipfian, workload.share_keys) and the
 * operation: get (share_read_pct), read-modify-write (share_rmw_pct: a get, then a put of the same
 * key, as YCSB-F), scan (share_scan_pct: the share_scan_len keys from the drawn one on, in order,
 * with their values) or put (the rest; the key set is fixed, so a put updates a present key, as in
 * YCSB A, B, C and F). Values are one word: setup's are 0, a put's names its writer and its log
 * record ((tid + 1) << IDX_WRITER_SHIFT | record + 1), so that every value read names the put
 * that wrote it.
 *
 * Node versions (the blog's SC-BTree and SC-ART discipline; Prism's BUL): a node lives in the LNR
 * and owns one version word, even while free, odd while a writer holds it. The first
 * workload.share_scr_budget / 8 nodes' versions live in the Small Coherent Region (SCR); the
 * others spill into the LNR (a line of 8 versions each, written under one of IDX_STRIPES locks in
 * the SCR, read past the cache: a flush before every read, the blog's "cache flush on every
 * access"). Each CN keeps seen[node], the version at which its cached copies of the node's lines
 * were last validated. A read of a node: read its version (wait while odd); if it is not this
 * CN's seen one, flush the node's lines; read what the search needs; read the version again:
 * moved, read again; else seen = the version. A write: lock the version (odd), flush the node's
 * lines if this CN's copies are stale (a whole-line write-back must not carry stale words), write,
 * write back the lines written (clflushopt each, fence), store the next even version and fence
 * (the write ends visible).
 *
 * A CN failure (DIKTAMO's recovery; not in the blog). A locked version names its holder (unlocked: a
 * multiple of 2^14; locked: that | (tid + 1) << 1 | 1), a spilled version's stripe lock its holder
 * and node. A survivor finding either held by a thread lost with a failed CN (wl_alive, the
 * runtime's membership after the recovery) takes it over by CAS, makes the node whole and
 * publishes the next version (`takeovers`). Whole: a one-word write (a value) leaves the node old
 * or new; a write of several words (idx_wimage) first records the node's whole new image in the
 * writer's redo record in the SCR, named last, and clears it once the lines are written back: a
 * survivor finding the record naming the node writes the image again. Redo, not undo or copy-on-
 * write: one record per thread, idempotent, and no order of a lost CN's write-backs is assumed
 * (any subset of its dirty lines may have reached memory).
 *
 * Correctness, checked at the end against the logs: every get (and each pair a scan returned)
 * returned the key's setup value or a put of that key that began before the read ended, and no put
 * of the key both began after that put ended and ended before the read began (no stale value: the
 * real-time order of puts is the only order a log shows); a scan returned strictly increasing keys,
 * the share_scan_len (or, at the end of the key set, fewer) keys of the set from the drawn one on,
 * none lost or repeated; memory holds for each key setup's value when it had no put, else the
 * value of a put no other put of the key follows in real time. With threads lost with a failed CN,
 * only the live threads' logs are read (a lost one's went with its CN's memory) and only they must
 * have done their operations; a value read or held that a lost thread's put wrote (its value names
 * it) is accepted, when that put ran being unknown; every other one is checked as above. */
#ifndef INDEX_H
#define INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "base/config.h"
#include "base/rng.h"
#include "workloads/workloads.h"

#define IDX_WRITER_SHIFT 40u
#define IDX_STRIPES 64u   /* SCR locks of the spilled versions' lines */
#define IDX_SCAN_MAX 256u /* workload.share_scan_len's largest */
#define IDX_IMAGE_MAX 64u /* the most words of a node image in a redo record (idx_wimage) */

typedef enum idx_op { IDX_GET, IDX_PUT, IDX_RMW, IDX_SCAN } idx_op_e;

/* The counters every index keeps ("<name>.<counter>" in the run's statistics). */
enum {
    IDX_GETS,      /* gets done (a read-modify-write's get counts here too) */
    IDX_PUTS,      /* puts done (a read-modify-write's put counts here too) */
    IDX_RMWS,      /* read-modify-writes done */
    IDX_SCANS,     /* scans done */
    IDX_NODE_READS, /* node reads validated */
    IDX_RETRIES,   /* node reads whose version moved, read again */
    IDX_FLUSHES,   /* node lines flushed (stale copies dropped, written lines written back) */
    IDX_SPILLED,   /* version reads past the cache (spilled into the LNR) */
    IDX_NODES,     /* the index's nodes (at setup) */
    IDX_SCR_NODES, /* of them, with their version in the SCR */
    IDX_WARM_PS,   /* the measured window's start: the latest end of a thread's first tenth of its ops */
    IDX_END_PS,    /* the window's end: the latest end of a thread's operations */
    IDX_WIN_OPS,   /* operations after each thread's first tenth (throughput: these over the window) */
    IDX_TAKEOVERS, /* locks of threads lost with a failed CN taken over (versions, stripes, the index's own) */
    IDX_REDONE,    /* of the nodes they guarded, those the lost thread's redo record named: written again */
    IDX_NCOUNT
};

typedef struct idx {
    const char *name; /* the workload's, for messages and counters */
    uint64_t nkeys, ops, read_pct, rmw_pct, scan_pct, scan_len;
    bool zipf;
    rng_zipf_t keys_z;
    cfg_skip_flush_e skip;
    unsigned nthreads, num_cn;
    unsigned first_client; /* threads below it are background threads: no operations of their own */
    const unsigned *thread_cn;
    uint64_t *key;      /* host: the keys, sorted (the clients' key generator and the check's) */
    uint64_t rec_words; /* a log record's words: 4, and a scan's pairs when there are scans */
    uint64_t *log;      /* per thread (local): its records, then their count */
    /* node versions (idx_versions) */
    uint64_t nnodes, nscr;  /* nodes; of them, with their version in the SCR (the first nscr) */
    uint64_t ver_scr, ver_lnr, stripes;
    unsigned image_words; /* a node image's words in a redo record (0: no multi-word node writes) */
    uint64_t redo;        /* SCR: each thread's redo record (idx_wimage) */
    uint64_t *seen;     /* per CN (local): a word per node */
    uint64_t *stat[IDX_NCOUNT];
} idx_t;

/** Reads the workload.share_* keys, draws the keys, allocates the logs and the counters. The first
 *  `background` threads are background threads (no operations: share_ops split over the others). */
int idx_setup(wl_env_t *e, idx_t *ix, const char *name, unsigned background, char *err);
/** Allocates the versions of nnodes nodes (SCR within budget bytes, the rest spilled into the LNR;
 *  budget 0: all in the SCR), each CN's seen table and, when image_words (at most IDX_IMAGE_MAX),
 *  each thread's redo record of a node image of that many words in the SCR. */
int idx_versions(wl_env_t *e, idx_t *ix, uint64_t nnodes, uint64_t budget, unsigned image_words, char *err);
void idx_free(idx_t *ix);

/** The rank of key in the sorted key set, or nkeys when it is not one of them. */
uint64_t idx_rank(const idx_t *ix, uint64_t key);

/** Reading node n (its lines at addr, `lines` of them): waits for an unlocked version (taking the
 *  lock over from a thread lost with a failed CN) and drops this CN's copies when they are stale
 *  (unless the reader mutation skips it). Returns the version. */
uint64_t idx_rbegin(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t addr, uint64_t lines);
/** After the node's words were read: true when its version is still v (and records it as this
 *  CN's seen one), false when the read must be done again. */
bool idx_rend(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t v);
/** True when node n's version is still v (a read validated earlier still holds). */
bool idx_rvalid(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t v);
/** Locks node n for writing and makes this CN's copies of its lines current. Returns the version
 *  before the lock (unlocked), for idx_wunlock. */
uint64_t idx_wlock(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t addr, uint64_t lines);
/** Before a write of several words of locked node n (at addr): records the node's whole new image
 *  (nw words, at most the image_words of idx_versions) in this thread's redo record in the SCR, so
 *  that a survivor taking the lock over from this thread, lost with a failed CN, writes it again
 *  (idx_wunlock clears the record once the lines are written back). */
void idx_wimage(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t addr, const uint64_t *img, unsigned nw);
/** Writes back the lines written (dirty[0 .. ndirty), addresses; unless the writer mutation skips
 *  it), then publishes version v + 2 and fences: the write is visible when this returns. */
void idx_wunlock(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t v, const uint64_t *dirty, unsigned ndirty);
/** Unlocks node n unchanged: its version back to v (nothing was written). */
void idx_wabort(wl_thread_t *t, const idx_t *ix, uint64_t n, uint64_t v);

/** The index's own operations, for idx_run: a get returns the key's value; a scan fills up to n
 *  keys and values from key on, in order, and returns how many. */
typedef struct idx_ops {
    uint64_t (*get)(wl_thread_t *t, void *w, uint64_t key);
    void (*put)(wl_thread_t *t, void *w, uint64_t key, uint64_t val);
    unsigned (*scan)(wl_thread_t *t, void *w, uint64_t key, unsigned n, uint64_t *keys, uint64_t *vals);
    /** Between operations (a background duty), or NULL. */
    void (*between)(wl_thread_t *t, void *w);
    /** The value memory holds for key at the end (zero-time peeks), for the check. */
    uint64_t (*final)(wl_env_t *e, void *w, uint64_t key);
} idx_ops_t;

/** Thread t's operations (share_ops split evenly over the client threads), drawn, done and logged. */
void idx_run(wl_thread_t *t, const idx_t *ix, void *w, const idx_ops_t *ops);
/** The check above; 0, or -1 with err filled. */
int idx_check(wl_env_t *e, const idx_t *ix, void *w, const idx_ops_t *ops, char *err);

#endif
