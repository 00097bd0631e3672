/* The oracle of committed stores (docs/architecture.md section 11e, "The oracle"): the judge of
 * correctness in every test.
 *
 * It records, for every remote word, its initial value (set at setup) and the committed stores to
 * it in commit order: the last one in full (value, commit time, CN, core), the earlier ones by
 * value (all a check needs to tell lost from phantom). At a quiescent point oracle_check compares
 * the coherent value of every recorded word with the last committed store:
 *   ok       the word holds its last committed value (its initial value when never stored);
 *   lost     it holds an earlier committed value of that word, or its initial value: a committed
 *            store vanished;
 *   phantom  it holds a value never committed to that word (nor its initial value).
 *
 * Cost: words are kept in blocks of 64 consecutive words, about 12.6 B per word of a block with
 * any word recorded (a workload's data is set up in runs of consecutive words, so blocks are
 * nearly full), 56 more per word ever stored, and 12 B per commit that replaced a value other than
 * the word's initial value or its previous replaced value (an append-only history); a commit is
 * O(1), a check O(words) plus a walk of the history of each word that does not hold its last
 * value. YCSB's 1.6 M records of 1 KB (205 M words set up) take about 2.6 GB. Addresses are
 * 8-byte aligned remote byte addresses (csim/base/addr.h); a word first seen at a commit, without
 * oracle_init, has initial value 0 (memory is zeroed when allocated). */
#ifndef ORACLE_H
#define ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct oracle oracle_t;

/** An empty oracle; NULL when out of memory. */
oracle_t *oracle_create(void);
void oracle_free(oracle_t *o);

/** Sets the initial value of the word at addr (setup: a value the memory holds before any store,
 *  not a store). Overrides an earlier initial value; must come before any commit to the word. */
void oracle_init(oracle_t *o, uint64_t addr, uint64_t v);
/** Records a committed store of v to the word at addr at time t_ps by core `core` of CN cn.
 *  Commits to one word come in time order (asserted: t_ps never goes back for a word). */
void oracle_commit(oracle_t *o, uint64_t addr, uint64_t v, uint64_t t_ps, unsigned cn, unsigned core);

/** The last commit to addr, by core `core` of CN cn, is in doubt: its CN failed before the commit
 *  was durable (DIKTAMO: before any of its VALs left the CN for a live replica, so no log can ever
 *  validate it; docs/architecture.md 11g). The check then also accepts the value the doubted
 *  commit replaced; when several commits of the word are in doubt (one call each), any earlier
 *  value of the word. Nothing happens when the word's last commit is another core's (the doubted
 *  one was superseded: its value was seen). A commit after the call ends the doubt. */
void oracle_doubt(oracle_t *o, uint64_t addr, unsigned cn, unsigned core);
/** Every commit to addr by CN cn since memory last had the word is in doubt: a word of the Large
 *  Non-coherent Region that the CN stored and had not written back when it failed (lost with its
 *  caches: no other CN could have read it). When the word's last commit is cn's, the check accepts
 *  any earlier value of the word. */
void oracle_doubt_unwritten(oracle_t *o, uint64_t addr, unsigned cn);

/** The coherent value of the word at addr now (what a core would read). */
typedef uint64_t (*oracle_peek_fn)(void *obj, uint64_t addr);

typedef struct oracle_report {
    uint64_t words;   /* words recorded (initialized or stored) */
    uint64_t stores;  /* committed stores recorded */
    uint64_t ok, lost, phantom;
    uint64_t undurable; /* words holding the value before their last commit(s), which were in doubt
                           (oracle_doubt): allowed, not lost */
} oracle_report_t;

/** Checks every recorded word against peek(obj, addr) and fills *r. Prints up to max_lines
 *  mismatches to f (f may be NULL), in address order, one line each:
 *    oracle: word 0x... phantom|lost (holds ...): holds 0x..., should hold 0x... (the last of N
 *    stores, committed at T ps by cn C core K)   -- or: (its initial value, never stored)
 *  then, when some were left out, one line saying how many. */
void oracle_check(const oracle_t *o, oracle_peek_fn peek, void *obj, FILE *f, size_t max_lines,
                  oracle_report_t *r);

/** What one recorded word should hold and how it got there. */
typedef struct oracle_word {
    uint64_t addr;
    uint64_t init;      /* initial value */
    uint64_t last;      /* last committed value, or init when never stored */
    uint64_t stores;    /* committed stores to the word */
    uint64_t last_t_ps; /* commit time of the last store (0 when never stored) */
    unsigned last_cn, last_core;
} oracle_word_t;

/** Number of recorded words. */
size_t oracle_num_words(const oracle_t *o);
/** The i-th recorded word (i < oracle_num_words): the blocks of 64 words in the order their first
 *  word was recorded, a block's words in address order. */
void oracle_word_at(const oracle_t *o, size_t i, oracle_word_t *w);
/** The recorded word at addr: true and *w filled, or false when the oracle never saw it. */
bool oracle_lookup(const oracle_t *o, uint64_t addr, oracle_word_t *w);

#endif
