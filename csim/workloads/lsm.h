/* The log-structured merge trees on partly coherent memory (the Prism blog's SC-LSM and Prism):
 * one engine, lsm.c, and two workloads, sc_lsm.c and prism.c, that configure it. Keys,
 * operations, node versions and the check: index.h.
 *
 * Tiers, newest first:
 *   memtable  in the Small Coherent Region (SCR), coherent in hardware: buckets of 7 slots (a key
 *             and its value) behind a lock word, a key's bucket by a hash of it. SC-LSM's is its
 *             write buffer, two halves: puts go to the active one; when a bucket of it is full the
 *             compactor makes the other one active and writes the full one out as L0 SSTables.
 *             Prism's is a cache of proven-hot keys: a key enters it on its second write (found in
 *             the BUL) and leaves it, its value written back to the BUL, when its bucket needs room
 *             (the bucket's next slot by a clock hand).
 *   BUL       (Prism only) the bounded updatable layer: nodes of 16 keys in the Large Non-coherent
 *             Region (LNR), sorted, updated in place under their versions in the SCR (index.h), as
 *             many as the versions the budget holds; node p holds the keys of the p-th of that many
 *             equal slices of the key space. A put of a key in neither tier inserts it into its
 *             node; a full node asks the compactor to write its range (16 nodes) out as an L0
 *             SSTable and waits.
 *   SSTables  in the LNR, immutable: a table of up to lsm_table_keys keys and their values in one
 *             extent (a header line: id and count; a fence index, the first key of each block of 64
 *             entries; the entries, key and value side by side as a data block holds them: a search
 *             is one over the fences, then one within a block). L0 holds tables whose key
 *             ranges overlap, newest first; L1, L2, ... each a sorted run of tables with disjoint
 *             ranges. Setup loads every key into the lowest level whose capacity holds it (L1
 *             lsm_l1_tables tables, each level below lsm_level_ratio times more).
 *   manifest  in the SCR: the live tables (id, level, extent, count, least and greatest key),
 *             behind a sequence number (a seqlock over two slots, below).
 * A table's id grows with every table written, so a CN that meets an id it has not seen in an
 * extent flushes the whole extent once (each CN's table of the last id it saw per extent, in its
 * local memory) and reads it through its caches from then on: the blog's "flush once on first
 * sight".
 *
 * Reads. get: the memtable (SC-LSM: the active half, then the other), then the BUL, then a
 * snapshot of the manifest (announced, below) and the tables: L0 newest first, then in each level
 * the table whose range holds the key, a search in each (`tables_probed`). scan: under one
 * manifest snapshot, the next keys from each source (each BUL node from the key's on under its
 * version, each overlapping L0 table, each level's tables from the key's on), merged (newest
 * source wins), then each key's memtable slot, then the snapshot and every BUL version read are
 * checked again: changed, the scan starts over.
 * Writes. A put locks its key's memtable bucket. SC-LSM: update or insert in the active half (the
 * bucket locked after the half's number was read is checked to be still the active one; two puts of
 * a key that straddle a switch of halves overlap in time, and the active half's is the newer for
 * readers and for the flushes alike). Prism: the bucket lock serializes the puts of a key; a key in
 * the memtable is updated in place; else the
 * BUL node is locked: a key there is updated and, since that is its second write, promoted into the
 * memtable (a victim evicted to its own BUL node first when the bucket is full); a key elsewhere is
 * inserted into the node.
 * Compaction: one background thread (tid 0 when there are two threads or more; with one thread the
 * client does it inline when it must wait) writes the flushes asked for, then merges L0 into L1 once
 * L0 holds lsm_l0_tables tables, and a level over its capacity into the next, one table at a time.
 * Outputs go to free extents, every line written back, then the manifest changes (its other slot
 * written, then the sequence). Readers announce the manifest sequence they read under (an SCR line per thread, 0 when
 * idle) before checking it again, so an extent a change removed is freed only once every thread's
 * announcement is idle or at least that change's (workload.share_skip_flush = compactor: at once,
 * a mutation its check must catch). The compactor's free list of extents is its private
 * bookkeeping, kept in host memory at no simulated cost.
 * The manifest is a sequence word and two slots: the current one is the sequence's (sequence / 2
 * mod 2); a change is written whole into the other slot, then published by one store of the
 * sequence, so readers never wait and a compactor lost mid-change leaves the last manifest whole.
 * A CN failure (not in the blog): a bucket lock a lost thread holds is taken over (a bucket is
 * whole at every step of a put); a BUL node as index.h says (inserts keep a redo record). The
 * compactor is thread 0 while it lives, else the least live client not done (a done bit each in
 * the SCR; waits count live clients only), which does the work between its operations and while it
 * waits. A new compactor (the SCR names the current one) rebuilds its bookkeeping from the current
 * slot: its tables and next id; every extent the slot does not list retired at the current
 * sequence, so a lost compactor's unpublished outputs are undone and freed once no live reader
 * reads under an older manifest; SC-LSM drains the inactive half again. A lost thread's
 * announcement counts as idle. */
#ifndef LSM_H
#define LSM_H

#include "workloads/index.h"

/** The engine's workloads: Prism (BUL, memtable a hot-key cache) or SC-LSM (memtable a write buffer). */
int lsm_setup(wl_env_t *e, void **state, char *err, const char *name, bool prism);
void lsm_thread(wl_thread_t *t, void *state);
int lsm_check(wl_env_t *e, void *state, char *err);
void lsm_free(void *state);

#endif
