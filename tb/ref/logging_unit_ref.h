/* Reference model of the Logging Unit (rtl/lu/logging_unit.sv) at the level of messages and DRAM
 * log records: what it logs, validates, refuses and counts, and the order in which the words of
 * one address must reach the DRAM log.
 *
 * Messages enter in the order the link presents them (lu_ref_rx). A REPL becomes one entry per
 * word of its mask; a VAL validates the not-yet-validated REPL of the same requester (CN, core),
 * tag and line and gives it its TS. Because the TS is 7 bits, the model unwraps it per line: the
 * version is the one closest to the largest version seen for the line (within 64), which is exact
 * while no VAL is overtaken by 64 later commits of its line. The records the RTL writes are checked
 * as they come (lu_ref_drained): each must be a validated, not yet drained word, and no validated
 * word of the same address with an older version may still be waiting; at the end every validated
 * word must have been drained (lu_ref_all_drained).
 *
 * Recovery: an INTERRUPT presented to the LU names a failed CN (its subject). From then on until
 * the LU's INTERRUPT_RESP, no REPL_ACK may go to that CN for a REPL presented after the
 * INTERRUPT (lu_ref_ack fails it); at the INTERRUPT_RESP (lu_ref_interrupt_resp) every REPL of
 * that CN not validated is purged: never drained, never found, never holding a word back, and
 * counted (PURGED_SLOTS). The RTL marks the slots in its last quiet cycle before the answer, so a
 * REPL of the subject presented in the two cycles before the INTERRUPT_RESP leaves, or a VAL of
 * the subject presented while the INTERRUPT is handled, may be treated otherwise by the RTL than
 * by the model: the tests send none then. One INTERRUPT at a time is modelled.
 *
 * Queries: the LU has at most one REPL_QUERY outstanding (lu_ref_query checks each one it sends: it
 * names a REPL in the buffer); an answer presented for it (REPL_QUERY_RESP from the CN asked, with
 * the REPL's core, tag and line) ends it, and counts as a hit when PENDING and the REPL is still
 * logged unvalidated (VALs and answers reach the LU's VAL engine in the order presented); any other
 * answer is malformed. An INTERRUPT naming the CN asked forgets the query. When the LU asks is not
 * modelled (it depends on the timing of its buffer); whom it may ask is. */
#ifndef LOGGING_UNIT_REF_H
#define LOGGING_UNIT_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drv/lu_drv.h"
#include "msg_defs.h"

/** What the model says of a presented message. */
typedef enum lu_ref_verdict {
    LU_REF_REPL,       /* logged; a REPL_ACK will follow */
    LU_REF_VAL,        /* validated a REPL */
    LU_REF_ZERO_MASK,  /* malformed: REPL without words */
    LU_REF_ADDR_RANGE, /* malformed: REPL beyond the address limit */
    LU_REF_NO_REPL,    /* malformed: VAL that matches no REPL */
    LU_REF_BAD_MSG,    /* malformed: a class or opcode an LU does not take, or an answer to no query */
    LU_REF_ANSWER,     /* the answer to the outstanding REPL_QUERY */
    LU_REF_OTHER,      /* management traffic (not modelled here) */
} lu_ref_verdict_e;

typedef struct lu_ref_repl {
    unsigned cn, core, tag;
    uint64_t line;
    uint8_t mask, drained;
    uint64_t value[MSG_WORDS_PER_LINE];
    bool valid;
    unsigned ts;
    uint64_t version; /* unwrapped TS */
    bool acked;
    bool no_ack; /* presented after an INTERRUPT for its CN: must not be acknowledged */
    bool purged; /* freed unvalidated by an INTERRUPT for its CN */
} lu_ref_repl_t;

typedef struct lu_ref_counts {
    uint64_t repls, words, vals, drained, err_no_repl, err_zero_mask, err_addr_range, err_bad_msg;
    uint64_t purged; /* REPLs (slots) purged: PURGED_SLOTS */
    uint64_t queries, query_hits; /* REPL_QUERYs sent; PENDING answers that found their REPL unvalidated */
} lu_ref_counts_t;

typedef struct lu_ref {
    uint64_t addr_lim;
    lu_ref_repl_t *r; /* every REPL logged, in arrival order */
    size_t n, cap;
    size_t live_lo;   /* REPLs below this index are fully drained */
    /* per line: largest version seen (hash of lines) */
    uint64_t *hl_line, *hl_ver, *hl_drained; /* hl_drained: per word, the version last drained */
    bool *hl_used;
    size_t hl_cap, hl_n;
    lu_ref_counts_t c;
    bool int_pending;  /* an INTERRUPT was presented, its INTERRUPT_RESP not seen yet */
    unsigned int_cn;   /* its subject */
    bool q_out;        /* a REPL_QUERY is outstanding */
    msg_t q;           /* that query */
    char err[256]; /* set when a VAL arrives for a word of which a newer version already drained */
} lu_ref_t;

void lu_ref_init(lu_ref_t *r, uint64_t addr_lim);
void lu_ref_free(lu_ref_t *r);
/** A message presented to the LU; *idx (if not NULL) is the REPL it logged or validated. */
lu_ref_verdict_e lu_ref_rx(lu_ref_t *r, const msg_t *m, size_t *idx);
/** A REPL_ACK the LU sent: NULL when it acknowledges a logged, not yet acknowledged REPL (which is
 *  marked), else what is wrong. */
const char *lu_ref_ack(lu_ref_t *r, const msg_t *ack, unsigned lu_node);
/** A REPL_QUERY the LU sent: NULL when it is allowed (none outstanding, from the LU, naming a REPL
 *  in the buffer), else what is wrong. */
const char *lu_ref_query(lu_ref_t *r, const msg_t *q, unsigned lu_node);
/** A record the LU wrote to its DRAM log: NULL when allowed (the word is marked drained), else
 *  what is wrong (in why, up to len bytes). */
const char *lu_ref_drained(lu_ref_t *r, const lu_rec_t *rec, char *why, size_t len);
/** The LU sent INTERRUPT_RESP: the REPLs of the INTERRUPT's subject that are not validated are
 *  purged. Returns how many (0 when no INTERRUPT is pending). */
uint64_t lu_ref_interrupt_resp(lu_ref_t *r);
/** Validated words not drained (0 at the end of a run). */
size_t lu_ref_undrained(const lu_ref_t *r);
/** Logged words not validated (and not purged). */
size_t lu_ref_unvalidated(const lu_ref_t *r);
/** REPLs of requester cn not validated (and not purged): the slots an INTERRUPT naming cn purges. */
size_t lu_ref_unvalidated_repls(const lu_ref_t *r, unsigned cn);
/** The latest validated version of word w of line (false when none): its value and TS. Entries
 *  never validated are not looked at. */
bool lu_ref_latest(const lu_ref_t *r, uint64_t line, unsigned w, uint64_t *value, unsigned *ts);
/** As lu_ref_latest; *buf (if not NULL) tells whether that version is still in the SRAM buffer
 *  (validated, not drained: FETCH_LATEST_VERS_RESP's BUF flag) rather than in the DRAM log. */
bool lu_ref_latest_buf(const lu_ref_t *r, uint64_t line, unsigned w, uint64_t *value, unsigned *ts, bool *buf);
/** The unwrapped version of a REPL's VAL (index from lu_ref_rx). */
uint64_t lu_ref_version(const lu_ref_t *r, size_t idx);

#endif
