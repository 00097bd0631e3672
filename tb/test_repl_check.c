/* Tests of the replicas' log check (csim/sys/repl_check): logs that hold every commit of their words,
 * in order, pass and count the commits; each kind of fault is found and reported with the word and
 * the LU (a record of a word never committed, of a line the LU does not replicate, not validated,
 * with another value, after all the commits (one too many), a replica that missed a commit); a
 * stop (a failure) ends the check; and a long run keeps only the commits not yet logged by all. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/addr.h"
#include "base/rng.h"
#include "sys/repl_check.h"
#include "tb_seed.h"

#define NR 3u

/* Line l's replicas: CNs l % 8, (l + 1) % 8 and (l + 2) % 8. */
static unsigned replicas(void *obj, uint64_t line, unsigned *out)
{
    (void)obj;
    for (unsigned k = 0; k < NR; k++)
        out[k] = (unsigned)((line + k) % 8);
    return NR;
}

static uint64_t word_addr(uint64_t line, unsigned word) { return line * ADDR_LINE_BYTES + word * ADDR_WORD_BYTES; }

static lu_rec_t rec(uint64_t line, unsigned word, uint64_t value)
{
    return (lu_rec_t){.value = value, .line = line, .word = word, .written = true};
}

/* Every replica of line `line` logs value v of word `word`. */
static void log_all(repl_check_t *c, uint64_t line, unsigned word, uint64_t v)
{
    lu_rec_t r = rec(line, word, v);
    for (unsigned k = 0; k < NR; k++)
        repl_check_log(c, (unsigned)((line + k) % 8), &r);
}

/* The faults' text, as repl_check_end prints it. */
static size_t end_text(repl_check_t *c, char *buf, size_t cap, uint64_t *checked)
{
    FILE *f = fmemopen(buf, cap, "w");
    cr_assert_not_null(f);
    size_t n = repl_check_end(c, f, 20, checked);
    fclose(f);
    return n;
}

Test(repl_check, logs_with_every_commit_in_order_pass)
{
    repl_check_t *c = repl_check_create(NR, replicas, NULL);
    cr_assert_not_null(c);
    for (unsigned i = 0; i < 100; i++) {
        repl_check_commit(c, word_addr(10 + i % 4, i % 8), i);
        if (i % 2)
            repl_check_commit(c, word_addr(20, 3), 1000 + i);
    }
    for (unsigned i = 0; i < 100; i++) {
        log_all(c, 10 + i % 4, i % 8, i);
        if (i % 2)
            log_all(c, 20, 3, 1000 + i);
    }
    char buf[4096] = "";
    uint64_t checked;
    cr_assert_eq(end_text(c, buf, sizeof buf, &checked), 0, "%s", buf);
    cr_assert_eq(checked, 150);
    cr_assert_eq(buf[0], '\0');
    repl_check_free(c);
}

Test(repl_check, each_kind_of_fault_is_found_and_named)
{
    static const struct {
        const char *what, *text;
    } kinds[] = {
        {"a word never committed", "LU 1 logged 0x3c0 = 0x7, a word no store committed to\n"},
        {"a line not replicated", "LU 7 logged 0x280, a word of a line it does not replicate\n"},
        {"not validated", "LU 3: a record of 0x280 is not marked validated\n"},
        {"another value", "LU 3: 0x280's record 0 is 0x6, commit 0 wrote 0x5\n"},
        {"after all commits",
         "LU 2 logged 0x280 = 0x5 after all its 1 commits\nreplica LU 2 logged 2 of the 1 commits to 0x280\n"},
        {"a commit missed", "replica LU 4 logged 0 of the 1 commits to 0x280\n"},
    };
    for (unsigned k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        repl_check_t *c = repl_check_create(NR, replicas, NULL);
        repl_check_commit(c, word_addr(10, 0), 5); /* line 10: replicas 2, 3, 4 */
        lu_rec_t good = rec(10, 0, 5), r = good;
        unsigned lus[NR] = {2, 3, 4};
        switch (k) {
        case 0:
            r = rec(15, 0, 7);
            repl_check_log(c, 1, &r);
            break;
        case 1:
            repl_check_log(c, 7, &r);
            break;
        case 2:
            r.written = false;
            lus[1] = 99; /* replica 3 logs the faulty record instead */
            repl_check_log(c, 3, &r);
            break;
        case 3:
            r.value = 6;
            lus[1] = 99;
            repl_check_log(c, 3, &r);
            break;
        case 4:
            repl_check_log(c, 2, &r); /* a second record of the one commit */
            break;
        case 5:
            lus[2] = 99; /* replica 4 never logs it */
            break;
        }
        for (unsigned i = 0; i < NR; i++)
            if (lus[i] != 99)
                repl_check_log(c, lus[i], &good);
        char buf[4096] = "";
        uint64_t checked;
        size_t n = end_text(c, buf, sizeof buf, &checked);
        size_t lines = 0;
        for (const char *q = kinds[k].text; *q; q++)
            lines += *q == '\n';
        cr_assert_eq(n, lines, "%s: %zu faults: %s", kinds[k].what, n, buf);
        cr_assert_eq(checked, 1);
        cr_assert_str_eq(buf, kinds[k].text, "%s", kinds[k].what);
        repl_check_free(c);
    }
}

/* The text names the LU and the word. */
Test(repl_check, a_fault_names_the_lu_and_the_word)
{
    repl_check_t *c = repl_check_create(NR, replicas, NULL);
    repl_check_commit(c, word_addr(10, 1), 5);
    lu_rec_t r = rec(10, 1, 6);
    repl_check_log(c, 3, &r);
    char buf[4096] = "";
    uint64_t checked;
    cr_assert_eq(end_text(c, buf, sizeof buf, &checked), 3, "%s", buf); /* the value, then 2 and 4 missed it */
    cr_assert_not_null(strstr(buf, "LU 3: 0x288's record 0 is 0x6, commit 0 wrote 0x5\n"), "%s", buf);
    cr_assert_not_null(strstr(buf, "replica LU 2 logged 0 of the 1 commits to 0x288\n"), "%s", buf);
    cr_assert_not_null(strstr(buf, "replica LU 4 logged 0 of the 1 commits to 0x288\n"), "%s", buf);
    repl_check_free(c);
}

Test(repl_check, a_stop_ends_the_check)
{
    repl_check_t *c = repl_check_create(NR, replicas, NULL);
    repl_check_commit(c, word_addr(10, 0), 5);
    repl_check_stop(c);
    lu_rec_t r = rec(11, 0, 9);
    repl_check_log(c, 0, &r);
    repl_check_commit(c, word_addr(12, 0), 5);
    uint64_t checked = 7;
    cr_assert_eq(repl_check_end(c, NULL, 0, &checked), 0);
    cr_assert_eq(checked, 0);
    cr_assert_eq(repl_check_kept(c), 0);
    repl_check_free(c);
}

/* 200 000 commits to a few words, logged by each replica some commits after they commit (a
 * replica lags by up to LAG): what is kept stays within a small multiple of what is in flight, and
 * everything checks. */
Test(repl_check, a_long_run_keeps_only_the_commits_in_flight)
{
    const uint64_t seed = tb_seed(3);
    rng_t r;
    rng_init(&r, seed);
    enum { WORDS = 8, COMMITS = 200000, LAG = 64 };
    repl_check_t *c = repl_check_create(NR, replicas, NULL);
    /* A commit's value is its number; each word's replicas log its commits in order. */
    static uint32_t done[WORDS][NR];
    static uint32_t ncommit[WORDS];
    static uint64_t vals[WORDS][COMMITS];
    size_t most = 0;
    for (unsigned i = 0; i < COMMITS; i++) {
        unsigned w = (unsigned)rng_below(&r, WORDS);
        repl_check_commit(c, word_addr(40 + w / 4, w % 4), i);
        vals[w][ncommit[w]++] = i;
        for (unsigned x = 0; x < WORDS; x++)
            for (unsigned k = 0; k < NR; k++)
                while (done[x][k] < ncommit[x] && (ncommit[x] - done[x][k] > LAG || rng_chance(&r, 0.3))) {
                    lu_rec_t rr = rec(40 + x / 4, x % 4, vals[x][done[x][k]++]);
                    repl_check_log(c, (unsigned)((40 + x / 4 + k) % 8), &rr);
                }
        size_t kept = repl_check_kept(c);
        most = kept > most ? kept : most;
    }
    for (unsigned x = 0; x < WORDS; x++)
        for (unsigned k = 0; k < NR; k++)
            while (done[x][k] < ncommit[x]) {
                lu_rec_t rr = rec(40 + x / 4, x % 4, vals[x][done[x][k]++]);
                repl_check_log(c, (unsigned)((40 + x / 4 + k) % 8), &rr);
            }
    char buf[4096] = "";
    uint64_t checked;
    cr_assert_eq(end_text(c, buf, sizeof buf, &checked), 0, "seed=%llu: %s", (unsigned long long)seed, buf);
    cr_assert_eq(checked, COMMITS);
    cr_assert_leq(most, (size_t)WORDS * 4 * LAG, "seed=%llu: %zu commits kept at most, of %d", (unsigned long long)seed,
                  most, COMMITS);
    repl_check_free(c);
}
