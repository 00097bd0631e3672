/* The MN's log store: a C model of the software in a memory node that keeps the compressed logs the
 * Logging Units dump to it and answers FetchLatestVers from them (DIKTAMO §IV-E, §V-C). It is
 * software and memory, not hardware: it has no clock; the caller hands it every message addressed
 * to the MN's log store (mn_log_rx) and sends what it queues (mn_log_tx_peek / _pop) when the link
 * allows.
 *
 * Dumps and their two synchronizations (the MN controller's side; rtl/lu/lu_dump.sv is the LU's):
 *   - DUMP_REQ (tag = epoch) from each LU of the epoch; once lus_per_epoch different LUs have asked,
 *     DUMP_GO (same tag) to each of them: the first synchronization;
 *   - then each LU's DUMP_DATA chunks, kept per source LU: the chunk numbered k (tag = k mod
 *     2^TAG_W, addr = k) of whole 64-byte lines, in order; the LAST chunk ends the LU's dump;
 *   - once every LU that got DUMP_GO has ended its dump, DUMP_DONE (same tag) to each: the second
 *     synchronization, after which the LUs clear their logs; the epoch advances (mod 2^TAG_W).
 * Decompression happens once, when a dump's LAST chunk arrives, before the dump counts as stored:
 * the MN must know a dump is readable before its DUMP_DONE lets the LU clear its log. The model
 * keeps both the compressed bytes, as they arrived (what the MN's memory holds: bytes_compressed),
 * and the records they inflate to (the model's search index: bytes_decompressed = 16 per record).
 *
 * Errors in what arrives are counted and listed with the offending message (mn_log_error), never
 * asserted: a message for another node, a malformed message (msg_check), a DUMP_REQ of a wrong epoch,
 * twice from one LU, or beyond the epoch's lus_per_epoch; a chunk from a LU with no dump under way
 * (before its DUMP_GO, after its LAST), a chunk out of order or not a whole line (the LU's dump is
 * then broken: later chunks up to its LAST are dropped unchecked, the dump is discarded); a dump
 * that does not inflate to whole records (discarded), non-zero bytes after the zlib stream (the
 * dump is kept: the stream itself passed its Adler-32 check), a record without the written marker
 * (kept, never returned by a search). The protocol has no retransmission: a LU whose dump was
 * broken or discarded still ends its dump at its LAST chunk and gets its DUMP_DONE, so a run never
 * hangs on it; the caller decides from the error list what that means.
 *
 * Search (FetchLatestVers): every LU of a line's replica set dumps its whole log (docs/architecture.md
 * 11f), so a store may hold a word's versions from several LUs. Per source LU, its dumps are in
 * epoch order and its records in log order, so its last record of a word is its latest version.
 * Between sources, the later epoch wins, and within one epoch the later TS (7-bit serial
 * arithmetic: two replicas' latest versions of one epoch lie within 63 of each other). Epochs
 * compare in TAG_W-bit serial arithmetic (mn_log_epoch_after): every LU dumps in every epoch, so
 * the stores' epochs advance together and their answers compare across MNs too.
 * FETCH_LATEST_VERS requests are collected until a source's list is complete: a request's tag is
 * its place in its source's list, and the one with LAST (flags bit 0) gives the list's length, so
 * a list is complete when that many of its requests have come, in whatever order the fabric
 * delivered them. Then one pass over every stored record answers every request collected (of any
 * source) in the Logging Unit's format (rtl/lu/lu_search.sv)
 * but for the tag: per request, in arrival order, one FETCH_LATEST_VERS_RESP per group of found
 * words sharing an epoch and a TS (groups in the order of their lowest word; mask = those words,
 * ts = their TS, tag = their epoch, data = their values, other words 0), flags bit 1 (END) on the
 * request's last and bit 0 (LAST) too when the request had LAST; a request with nothing found gets
 * one response with mask 0 and the request's tag.
 * Search time is counted as records scanned: one pass reads every stored record once, whatever the
 * list's length (records_scanned += records stored, searches += 1). A compact store (cfg.compact: the
 * system's) keeps, of the records, only the search's input, each source's last version of each word,
 * and answers from that; a long run's store then costs its words, not its records. A recovery study turns that
 * into time at the handler's rate per record; a handler that decompressed at search time would
 * also inflate bytes_compressed per pass. The dump under way is not searched. */
#ifndef MN_LOG_H
#define MN_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/idmap.h"
#include "drv/lu_drv.h" /* lu_rec_t: the LU's DRAM log record, the unit of a dump */
#include "msg_defs.h"

/** Node ids: sources are indexed by id. */
#define MN_LOG_NODES (1u << MSG_NODE_ID_W)
/** The most chunks a dump may have (4 GiB of a log: far beyond any LU's DRAM log). */
#define MN_LOG_MAX_CHUNKS (1ull << 26)
/** Bytes of one record in a dump's stream (lu_log.sv's 128-bit record). */
#define MN_LOG_REC_BYTES 16u

/** What can be wrong with a message the MN log store receives. */
typedef enum mn_log_err_kind {
    MN_LOG_E_DST,       /* addressed to another node */
    MN_LOG_E_MALFORMED, /* msg_check refuses it */
    MN_LOG_E_EPOCH,     /* DUMP_REQ with a tag other than the current epoch */
    MN_LOG_E_REQ_TWICE, /* DUMP_REQ from a LU that already asked in this epoch */
    MN_LOG_E_REQ_EXTRA, /* DUMP_REQ after the epoch's lus_per_epoch LUs have asked */
    MN_LOG_E_NO_DUMP,   /* DUMP_DATA from a LU with no dump under way */
    MN_LOG_E_ORDER,     /* DUMP_DATA whose tag is not its addr's (mod 2^TAG_W), a chunk that came already,
                           or one beyond its dump's LAST or MN_LOG_MAX_CHUNKS */
    MN_LOG_E_PARTIAL,   /* DUMP_DATA that is not a whole 64-byte line (mask not all ones) */
    MN_LOG_E_INFLATE,   /* a dump that does not inflate into whole records */
    MN_LOG_E_PADDING,   /* non-zero bytes after a dump's zlib stream */
    MN_LOG_E_RECORD,    /* a record without the written marker */
    MN_LOG_E_KINDS
} mn_log_err_kind_t;

/** One error: its kind, the message that showed it, what is wrong. */
typedef struct mn_log_err {
    mn_log_err_kind_t kind;
    msg_t msg;
    char what[160];
} mn_log_err_t;

/** What mn_log_rx did with a message. */
typedef enum mn_log_rx_e {
    MN_LOG_RX_OK,       /* taken */
    MN_LOG_RX_ERR,      /* taken, and one error (or more) listed */
    MN_LOG_RX_NOT_MINE, /* not a message of the log store (left to the caller, not counted) */
} mn_log_rx_e;

typedef struct mn_log_cfg {
    unsigned node_id;       /* this MN's node id (MSG_MN_BASE + j): dst of what it takes, src of what it sends */
    unsigned lus_per_epoch; /* LUs that dump in every epoch (a replica group: Nr), 0 .. MN_LOG_NODES (0: a
                               store no LU dumps to, an MN beyond the CNs' count: it only answers searches) */
    bool compact;           /* keep of a stored dump only what a search reads: each source LU's last
                               version of each word (mn_log_recs and a dump's bytes stay empty; the
                               counters, errors, answers and scan counts are the same) */
} mn_log_cfg_t;

/** One stored dump. */
typedef struct mn_log_dump {
    unsigned src;   /* the LU that sent it */
    uint16_t epoch; /* its DUMP_REQ's tag */
    uint8_t *bytes; /* the compressed bytes as they arrived: chunks × 64 (NULL when compact) */
    size_t chunks;
    size_t stream_bytes; /* of which the zlib stream (the rest is the last chunk's padding) */
    size_t first, nrecs; /* its records: mn_log_recs(src)[first .. first + nrecs - 1] (compact: not kept) */
} mn_log_dump_t;

typedef struct mn_log_stats {
    uint64_t epochs;             /* synchronizations completed (DUMP_DONE rounds) */
    uint64_t dumps;              /* dumps stored */
    uint64_t dumps_discarded;    /* dumps ended but not stored (broken, or did not inflate) */
    uint64_t chunks;             /* chunks of stored dumps */
    uint64_t bytes_compressed;   /* 64 × chunks of stored dumps: what the MN keeps */
    uint64_t bytes_stream;       /* their zlib streams' bytes (without the padding) */
    uint64_t bytes_decompressed; /* 16 × records stored */
    uint64_t records;            /* records stored */
    uint64_t fetch_reqs;         /* FETCH_LATEST_VERS answered */
    uint64_t fetch_resps;        /* FETCH_LATEST_VERS_RESP queued */
    uint64_t searches;           /* passes over the stored records */
    uint64_t records_scanned;    /* records read by all passes */
    uint64_t from_dropped;       /* DUMP_REQ and DUMP_DATA of a failed LU, still in flight at its failure:
                                    ignored */
    uint64_t errors;             /* errors listed */
    uint64_t err[MN_LOG_E_KINDS];
} mn_log_stats_t;

/** Per source LU. */
typedef struct mn_log_src {
    bool asked, go, ended; /* this epoch: DUMP_REQ seen, DUMP_GO queued, LAST chunk seen */
    bool broken;           /* the dump under way had a bad chunk: dropped once it has ended */
    bool dropped;          /* the LU failed (mn_log_drop_lu): what still comes from it is ignored */
    uint8_t *bytes;        /* the dump under way: chunk i at bytes + 64 i, in whatever order they came */
    size_t n, cap, chunks; /* n: 64 x (the highest chunk seen + 1); chunks: the chunks that came */
    size_t total;          /* its LAST chunk's addr + 1, 0 before LAST came */
    uint8_t *got;          /* bit i: chunk i came */
    lu_rec_t *recs; /* every stored record of this LU, dumps in order */
    size_t nrecs, caprecs;
} mn_log_src_t;

typedef struct mn_log {
    mn_log_cfg_t cfg;
    uint16_t epoch;
    unsigned asked; /* LUs that asked in this epoch */
    mn_log_src_t src[MN_LOG_NODES];
    mn_log_dump_t *dumps; /* stored, in the order they were stored */
    size_t ndumps, capdumps;
    msg_t *tx; /* queued to send (ring) */
    size_t tx_head, tx_n, tx_cap;
    msg_t *flv; /* FETCH_LATEST_VERS collected, not answered yet */
    size_t nflv, capflv;
    uint16_t flv_seen[MN_LOG_NODES]; /* per source: requests of its list collected (mod 2^TAG_W) */
    uint16_t flv_len[MN_LOG_NODES];  /* per source: its list's length (LAST's tag + 1), 0 before LAST */
    mn_log_err_t *errs;
    size_t nerrs, caperrs;
    mn_log_stats_t st;
    /* cfg.compact: each word's versions, one per source LU that logged it (the LU's last written
     * record), in a list by source id: word keys (line x 8 + word + 1) map to the first of the
     * word's versions in vers, linked by next. */
    idmap_t vheads;
    struct mn_log_ver {
        uint64_t value;
        uint32_t next; /* UINT32_MAX: the last */
        uint16_t epoch;
        uint8_t src, ts;
    } *vers;
    size_t nvers, capvers;
} mn_log_t;

/** The latest version found of each word of one query (mask: the words found). */
typedef struct mn_log_found {
    uint8_t mask;
    uint8_t ts[MSG_WORDS_PER_LINE];
    uint16_t epoch[MSG_WORDS_PER_LINE]; /* of the dump it was found in */
    uint64_t value[MSG_WORDS_PER_LINE];
} mn_log_found_t;

/** Returns 0, or -1 when cfg is out of range (l is then unusable; mn_log_free is still safe). */
int mn_log_init(mn_log_t *l, const mn_log_cfg_t *cfg);
void mn_log_free(mn_log_t *l);

/** A message addressed to the MN's log store: DUMP_REQ, DUMP_DATA or FETCH_LATEST_VERS. Others are
 *  MN_LOG_RX_NOT_MINE. What it answers is queued (mn_log_tx_*). */
mn_log_rx_e mn_log_rx(mn_log_t *l, const msg_t *m);

/** LU src failed (recovery): it leaves the group the store synchronizes (one LU less per epoch);
 *  its dump under way, if any, is discarded, what it sent before failing and is still in flight is
 *  ignored when it comes (stats from_dropped), and the epoch's synchronizations go on without it
 *  (what its DUMP_GO or DUMP_DONE waited for may be complete now: queued). */
void mn_log_drop_lu(mn_log_t *l, unsigned src);
/** Messages queued to send, the oldest first: DUMP_GO, DUMP_DONE, FETCH_LATEST_VERS_RESP. */
size_t mn_log_tx_pending(const mn_log_t *l);
/** The oldest queued message (false when none); mn_log_tx_pop removes it (it was sent). */
bool mn_log_tx_peek(const mn_log_t *l, msg_t *m);
void mn_log_tx_pop(mn_log_t *l);

/** TS a is after TS b (7-bit serial arithmetic: the LU's versions, within 63 of each other). */
bool mn_log_ts_after(unsigned a, unsigned b);
/** Epoch a is after epoch b (TAG_W-bit serial arithmetic). */
bool mn_log_epoch_after(unsigned a, unsigned b);
/** A version (epoch_a, ts_a) is newer than (epoch_b, ts_b): a later epoch, or the same and a later
 *  TS (the order of versions from several LUs' dumps, above). */
bool mn_log_newer(unsigned epoch_a, unsigned ts_a, unsigned epoch_b, unsigned ts_b);
/** One pass over every stored record (counted as a search): for each of the n queries (line address,
 *  word mask) the latest record of each masked word in found[i]. */
void mn_log_search(mn_log_t *l, const uint64_t *lines, const uint8_t *masks, size_t n, mn_log_found_t *found);
/** The answer to the FETCH_LATEST_VERS list reqs[0 .. n - 1] (one pass, counted): the
 *  FETCH_LATEST_VERS_RESP messages into out (room for MSG_WORDS_PER_LINE per request), in order;
 *  returns their number. Nothing is queued (mn_log_rx queues the answer to a list it collected). */
size_t mn_log_answer(mn_log_t *l, const msg_t *reqs, size_t n, msg_t *out);

/** Stored records of source LU src, dumps in order; their number. */
const lu_rec_t *mn_log_recs(const mn_log_t *l, unsigned src);
size_t mn_log_nrecs(const mn_log_t *l, unsigned src);
/** Stored dumps, in the order they were stored. */
size_t mn_log_ndumps(const mn_log_t *l);
const mn_log_dump_t *mn_log_dump(const mn_log_t *l, size_t i);
const mn_log_stats_t *mn_log_stats(const mn_log_t *l);
/** Errors listed, the oldest first. */
size_t mn_log_nerrors(const mn_log_t *l);
const mn_log_err_t *mn_log_error(const mn_log_t *l, size_t i);
/** "E_ORDER" etc. */
const char *mn_log_err_name(mn_log_err_kind_t k);

#endif
