/* Reference model of the directory controller (rtl/dir/dir_ctrl.sv; docs/architecture.md section
 * 11c) at the level of messages: what one MN's home answers, snoops, writes to memory, refuses and
 * counts, one controller cycle at a time.
 *
 * It implements section 11c as written: the address map (interleave, MN index, local line, range),
 * the Small Coherent Region and the Large Non-coherent Region, directory entries I / S(sharer
 * vector) / EM(owner) with the stale-write vector, the transaction table (TxnEntries; per line one
 * active transaction, the others waiting in arrival order; a full table holds the input), the
 * directory cache (DcSets x DcWays, per-set round-robin victim, write-back) in front of the
 * directory area of MN DRAM, MN DRAM as an array of 64-byte lines behind an in-order port with a
 * fixed read latency, BISNP to every awaited CN and BIRSP matching, every row of the state x event
 * table (DIR_TR_*, one counter each), stale writes (flags bit 2 WR_IN_FLIGHT on a BIRSP), and
 * violations per kind, recorded with the offending message, dropped and never answered.
 *
 * Timing is the model's own, not the RTL's cycle by cycle: per cycle the send port emits one
 * message, the memory port issues one request, and the engine takes one event in the priority of
 * section 11c (a memory response, then a BIRSP, then a new RWD or REQ, these two in turn). A
 * transaction's own steps (directory lookup, decision, response, end, the next of its line) happen
 * inside the event that enables them. Tests compare messages, states, memory and counters, never
 * cycles. */
#ifndef DIR_CTRL_REF_H
#define DIR_CTRL_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "drv/dir_defs.h"
#include "msg_defs.h"

/** Deliberate bugs, to show that the tests can fail (cfg.mutate; never set in a normal run).
 *  DIR_REF_MUTATE, defined at compile time, is or-ed into every instance's mask. */
enum {
    DIR_MUT_SKIP_ONE_SHARER = 1u << 0, /* S_RdOwn / S_Upg leave the highest other sharer valid */
    DIR_MUT_STALE_FORWARD = 1u << 1,   /* EM_RdS / EM_RdOwn ignore the owner's data: forward memory */
    DIR_MUT_APPLY_STALE_WR = 1u << 2,  /* a stale DIRTY_EVICT / WT_WR writes its data to memory */
    DIR_MUT_NO_STALE_BIT = 1u << 3,    /* WR_IN_FLIGHT ignored: a stale write becomes a violation */
    DIR_MUT_UPG_NO_WAIT = 1u << 4,     /* S_Upg grants CMP_E without waiting for the answers */
    DIR_MUT_LIFO_WAIT = 1u << 5,       /* a new request of a busy line goes first, not last */
    DIR_MUT_KEEP_OLD_OWNER = 1u << 6,  /* EM_RdS: an owner that answered I stays a sharer */
    DIR_MUT_KEEP_STALE_BIT = 1u << 7,  /* a served request leaves its CN's stale-write bit set */
    DIR_MUT_WR_NO_VERSION = 1u << 8,   /* EM_DirtyEvict / EM_WtWr keep the old version, not the write's */
    DIR_MUT_SNOOP_NO_VERSION = 1u << 9, /* an owner's snoop answer with data leaves the version as it was */
};

typedef struct dir_ctrl_ref dir_ctrl_ref_t;

/** Called for every message the controller sends (one per cycle at most). */
typedef void (*dir_ref_send_fn)(void *arg, const msg_t *m);

typedef struct dir_ctrl_ref_cfg {
    unsigned node_id;           /* this MN's node id (MSG_MN_BASE + mn_idx) */
    unsigned mn_idx;            /* cfg_mn_idx_i */
    unsigned mn_shift;          /* cfg_mn_shift_i: 2^mn_shift MNs */
    unsigned gran_shift;        /* cfg_gran_shift_i: interleave chunks of 2^gran_shift lines */
    uint64_t lines;             /* cfg_lines_i: local lines of memory */
    uint64_t scr_lo, scr_hi;    /* cfg_scr_lo_i, cfg_scr_hi_i: the SCR, global line addresses */
    unsigned txn_entries;       /* TxnEntries (default 16) */
    unsigned dc_sets, dc_ways;  /* DcSets x DcWays (default 256 x 4) */
    unsigned mem_latency;       /* cycles from a memory read's issue to its data (default 45) */
    unsigned crd_per_cls;       /* receive FIFO entries per class (credits); 0: unbounded */
    dir_ref_send_fn send;
    void *send_arg;
    dir_ref_send_fn sw_rx; /* messages for the MN's software (MGREQ, MGRSP, DUMP); may be NULL */
    void *sw_arg;
    unsigned mutate; /* DIR_MUT_* bits */
} dir_ctrl_ref_cfg_t;

/** Counters (the CSR list of section 11c; the RTL's are 32 bits and wrap, these do not). */
typedef struct dir_ref_counts {
    uint64_t op_in[MSG_NUM_MSGS]; /* messages taken per opcode (also the dropped ones) */
    uint64_t tr[DIR_TR_NUM];      /* transactions decided per row */
    uint64_t bisnp_sent, birsp_rcvd;
    uint64_t dc_hits, dc_misses, dc_wbs;
    uint64_t stale_wr;
    uint64_t viol[DIR_VIOL_NUM];
    uint64_t table_full_cycles; /* cycles a new REQ or RWD waited for a free entry */
    uint64_t waited;            /* requests that waited behind an older one of their line */
    uint64_t reqs;              /* REQ and RWD messages allocated an entry */
    uint64_t mem_reads, mem_writes;
    uint64_t sw_rx;             /* messages handed to the software port */
    uint64_t max_active;        /* most transactions in the table at once */
} dir_ref_counts_t;

/** A violation: its kind, the offending message and the cycle it was found. */
typedef struct dir_ref_viol {
    dir_viol_e kind;
    msg_t msg;
    uint64_t cycle;
} dir_ref_viol_t;

/** Defaults: one MN of 1024 lines, all of it SCR, 16 entries, 256 x 4 directory cache, 45 cycles,
 *  4 credits per class; send must still be set. */
dir_ctrl_ref_cfg_t dir_ctrl_ref_default_cfg(void);

/** NULL when cfg is usable, else what is wrong. */
const char *dir_ctrl_ref_cfg_check(const dir_ctrl_ref_cfg_t *cfg);

/** Creates a controller (aborts on a bad cfg: check it first). */
dir_ctrl_ref_t *dir_ctrl_ref_init(const dir_ctrl_ref_cfg_t *cfg);
void dir_ctrl_ref_free(dir_ctrl_ref_t *r);

/** True when the receive FIFO of m's class has room (a credit): the link may present m. */
bool dir_ctrl_ref_can_recv(const dir_ctrl_ref_t *r, const msg_t *m);
/** A message arrives from the link (call only when dir_ctrl_ref_can_recv). */
void dir_ctrl_ref_recv(dir_ctrl_ref_t *r, const msg_t *m);
/** One controller cycle: may send one message through cfg.send. */
void dir_ctrl_ref_tick(dir_ctrl_ref_t *r);
/** Nothing received and not taken, no transaction, no memory request, nothing left to send. */
bool dir_ctrl_ref_idle(const dir_ctrl_ref_t *r);
/** Cycles ticked. */
uint64_t dir_ctrl_ref_cycle(const dir_ctrl_ref_t *r);

const dir_ref_counts_t *dir_ctrl_ref_counts(const dir_ctrl_ref_t *r);
/** Transactions in the table now. */
unsigned dir_ctrl_ref_active(const dir_ctrl_ref_t *r);
/** Violations recorded so far (*n of them). */
const dir_ref_viol_t *dir_ctrl_ref_violations(const dir_ctrl_ref_t *r, size_t *n);

/** The entry of global line addr (from the directory cache, else the directory area of DRAM);
 *  false when addr is not an SCR line of this MN. Meaningful when no transaction holds the line. */
bool dir_ctrl_ref_peek_entry(const dir_ctrl_ref_t *r, uint64_t addr, dir_entry_t *e);
/** Sets the entry of global line addr (in DRAM; any cached copy is dropped). Only while idle. */
bool dir_ctrl_ref_poke_entry(dir_ctrl_ref_t *r, uint64_t addr, const dir_entry_t *e);
/** MN DRAM data of global line addr; false when not this MN's line. */
bool dir_ctrl_ref_mem_peek(const dir_ctrl_ref_t *r, uint64_t addr, uint64_t data[MSG_WORDS_PER_LINE]);
bool dir_ctrl_ref_mem_poke(dir_ctrl_ref_t *r, uint64_t addr, const uint64_t data[MSG_WORDS_PER_LINE]);

/** Prints the transaction table, FIFOs and memory port (for deadlock dumps). */
void dir_ctrl_ref_dump(const dir_ctrl_ref_t *r, FILE *f);

#endif
