/* What a core asks of its CN's memory hierarchy. The core (csim/cn/core.c) reaches the hierarchy
 * only through this table of functions, so that the real one (csim/cn/cn_mem.h: L1, L2, L3, local
 * directory, local DRAM, CXL port) and the flat memory (csim/cn/flat_mem.c) plug in the same way.
 *
 * Addresses are byte addresses (csim/base/addr.h); words are 8 bytes and aligned. Every access
 * completes through the kernel's event queue, never inside the call: a callback runs at the
 * simulated time the access is performed (never at the time of the call, even for a hit).
 * `core` is the core's index within its CN. */
#ifndef CN_MEM_IF_H
#define CN_MEM_IF_H

#include <stdbool.h>
#include <stdint.h>

/** An access is done: value as the access defines it. */
typedef void (*mem_done_fn)(void *obj, uint64_t tag, uint64_t value);

/** A store or rmw committed (its words are in the core's L1): value as the access defines it;
 *  version = the line's version after this commit, mod 2^MSG_TS_W (docs/architecture.md section
 *  11b): what the VAL of this commit carries. Every commit to a coherent remote line adds one to
 *  the line's version, which travels with the line's ownership; local and LNR lines report 0. */
typedef void (*mem_commit_fn)(void *obj, uint64_t tag, uint64_t value, unsigned version);

/** A gated store holds write permission and would commit now: true commits it at once; false
 *  parks it (see mem_if.store_gated). Runs inside the memory system: it must not call into it. */
typedef bool (*mem_gate_fn)(void *obj, uint64_t tag);
/** A gated rmw has read its word and would write new_word: true writes it at once; false pins the
 *  line (see mem_if.rmw_gated). Runs inside the memory system: it must not call into it. */
typedef bool (*mem_rmw_gate_fn)(void *obj, uint64_t tag, uint64_t new_word);

typedef enum mem_rmw {
    MEM_RMW_CAS = 0,  /* if word == a: word = b; value = old word */
    MEM_RMW_FADD = 1, /* word += a; value = old word */
    MEM_RMW_SWAP = 2, /* word = a; value = old word */
} mem_rmw_e;

typedef struct mem_if {
    void *obj;
    /** Reads the word at addr. The value is the one the core's L1 holds at the moment the load is
     *  performed (after the round trip of the level holding the line, or when a miss is filled),
     *  i.e. what the coherent memory system holds then; done(dobj, tag, value) runs at that
     *  moment. */
    void (*load)(void *obj, unsigned core, uint64_t addr, mem_done_fn done, void *dobj, uint64_t tag);
    /** A load that hits the core's L1 performed at this instant, in the call (no latency, no
     *  event, no statistics): true with the word the L1 holds now, false (nothing done) when the
     *  L1 does not hold addr's line readable now (or another core's rmw holds it). The core uses
     *  it to re-take, in program order, the value of a load that performed before an older one
     *  did (overlapping loads, csim/cn/core.c): its own access already paid the latency. Reads
     *  only: callable from inside a done callback. */
    bool (*load_hit)(void *obj, unsigned core, uint64_t addr, uint64_t *value);
    /** Asks for write permission of addr's line in the core's L1 ahead of a store (a store's
     *  address is known: exclusive prefetch). No answer; may be dropped. */
    void (*prefetch_x)(void *obj, unsigned core, uint64_t addr);
    /** Obtains write permission for addr's line in the core's L1 (as prefetch_x) and runs
     *  done(dobj, tag, 0) when the L1 holds it (after the L1's round trip when it already does).
     *  The permission may be lost again to a snoop or an eviction before a store commits; store()
     *  then obtains it again. (DIKTAMO-baseline replicates after the coherence transaction.) */
    void (*acquire)(void *obj, unsigned core, uint64_t addr, mem_done_fn done, void *dobj, uint64_t tag);
    /** Commits a store-buffer entry: obtains write permission for the line (line = byte address of
     *  the line), then writes the words selected by mask (bit i = word i) into the core's L1 in
     *  one step: the commit point. committed(dobj, tag, 0, version) runs at that moment. With wt (write-
     *  through; remote lines only), the words also go to the MN (WT_WR) and done(dobj, tag, 0)
     *  runs when the MN has them (its CMP); without wt, done runs right after committed. The
     *  caller sends at most one store per core at a time (the head of its store buffer). */
    void (*store)(void *obj, unsigned core, uint64_t line, uint8_t mask, const uint64_t *words, bool wt,
                  mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag);
    /** store() (never write-through) whose commit the caller gates, for the DIKTAMO protocols,
     *  where a store commits only when both its coherence transaction (write permission) and its
     *  replication (every REPL_ACK) are done. When the store holds write permission and would
     *  commit, gate(dobj, tag) runs (that moment is the end of the coherence transaction): true
     *  commits now, as store() would; false parks the store, holding nothing against snoops and
     *  evictions, until the caller's store_go(core). Then it commits at once if the L1 still holds
     *  the line with write permission, or obtains it again first (without asking the gate again).
     *  The caller's one store at a time includes a parked one. */
    void (*store_gated)(void *obj, unsigned core, uint64_t line, uint8_t mask, const uint64_t *words,
                        mem_gate_fn gate, mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag);
    /** Releases core's parked store or pinned rmw (only after its gate returned false, never
     *  inside the gate). */
    void (*store_go)(void *obj, unsigned core);
    /** Atomic read-modify-write of the word at addr, with write permission held from read to
     *  write (the caller has drained its store buffer). If it writes, committed(dobj, tag, new
     *  word, version) runs at the write; done(dobj, tag, old word) when complete (with wt: after the MN's
     *  CMP). */
    void (*rmw)(void *obj, unsigned core, uint64_t addr, mem_rmw_e op, uint64_t a, uint64_t b, bool wt,
                mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag);
    /** rmw() (never write-through) whose write the caller gates, for the DIKTAMO protocols, where
     *  an rmw's write is a store that must be replicated before it commits. With write permission,
     *  the word is read and the new word computed; if the rmw writes, gate(dobj, tag, new word)
     *  runs: true writes (commits) at once, as rmw() would; false *pins* the line in the core's L1
     *  until the caller's store_go(core): the CN holds every snoop to the line, keeps the line in
     *  its caches and makes its other cores' accesses to it wait, so that nothing can come between
     *  the read and the write (x86's cache locking). At store_go the new word is written (the
     *  commit), then the line is released. An rmw that does not write completes as rmw(). */
    void (*rmw_gated)(void *obj, unsigned core, uint64_t addr, mem_rmw_e op, uint64_t a, uint64_t b,
                      mem_rmw_gate_fn gate, mem_commit_fn committed, mem_done_fn done, void *dobj, uint64_t tag);
    /** Writes addr's line back to its memory if any cache of the CN holds it dirty, and drops it
     *  from every cache of the CN (clflush). done(dobj, tag, 0) when memory has it (for a remote
     *  line: the MN's CMP; at once after the lookup when nothing was cached). */
    void (*flush)(void *obj, unsigned core, uint64_t addr, mem_done_fn done, void *dobj, uint64_t tag);
} mem_if_t;

#endif
