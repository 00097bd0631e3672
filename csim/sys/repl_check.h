/* The replicas' logs checked against the commits, as the run goes (DIKTAMO §IV: every remote store
 * is logged by each of its Nr replicas before it commits, and each replica's DRAM log takes the
 * words validated, in per-word commit order). The system hands it every commit to a remote word
 * that the LUs log (repl_check_commit) and every record a replica's DRAM log takes
 * (repl_check_log); at the end, repl_check_end reports what did not match: a record of a word no
 * store committed to, or of a line the LU does not replicate, one not marked validated, one whose
 * value is not that of the word's next commit for that LU, one after all the word's commits, and a
 * replica that did not log every commit.
 *
 * Memory: a word's commits are kept only until each of its replicas has logged them (then they
 * are dropped), so a long run keeps about the commits in flight, not every commit; the records are
 * not kept at all. A CN's failure changes the replica sets (the oracle then judges the recovery):
 * repl_check_stop ends the check and drops what it kept. */
#ifndef REPL_CHECK_H
#define REPL_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "drv/lu_drv.h"

/** Most replicas of a word (lu.nr: one per CN at most). */
#define REPL_CHECK_MAX_NR MSG_MAX_CN
/** Fault lines kept for repl_check_end to print (every fault is counted). */
#define REPL_CHECK_LINES 64u

/** The replicas of line `line`: their CN ids into out (at most REPL_CHECK_MAX_NR); returns their
 *  number. */
typedef unsigned (*repl_check_replicas_fn)(void *obj, uint64_t line, unsigned *out);

typedef struct repl_check repl_check_t;

/** Words of nr replicas at most (1 .. REPL_CHECK_MAX_NR), at addresses of words of ADDR_WORD_BYTES
 *  in lines of ADDR_LINE_BYTES (csim/addr.h); NULL when out of memory or nr is out of range. */
repl_check_t *repl_check_create(unsigned nr, repl_check_replicas_fn replicas, void *obj);
void repl_check_free(repl_check_t *c);
/** A commit of `value` to the remote word at `addr`, which its replicas log. */
void repl_check_commit(repl_check_t *c, uint64_t addr, uint64_t value);
/** A record LU `lu`'s DRAM log took. */
void repl_check_log(repl_check_t *c, unsigned lu, const lu_rec_t *r);
/** The replica sets changed: nothing more is checked, what was kept is dropped. */
void repl_check_stop(repl_check_t *c);
/** The end of the run: prints up to max_lines of the faults to f (NULL: none), in the order found,
 *  the replicas that missed commits last; returns their number and sets *checked to the commits
 *  checked (0 after repl_check_stop). */
size_t repl_check_end(repl_check_t *c, FILE *f, size_t max_lines, uint64_t *checked);
/** Commits kept now (not yet logged by every replica of their word). */
size_t repl_check_kept(const repl_check_t *c);

#endif
