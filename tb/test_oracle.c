/* Tests of csim/sys/oracle: the oracle of committed stores (docs/architecture.md section 11e).
 * - ok / lost / phantom classification of a word's coherent value, initial values, words first
 *   seen at a commit (initial 0), a value committed twice;
 * - the report lines: address, what it holds, what it should hold, when and by whom, address
 *   order, max_lines, the "more" line, no output with a NULL file;
 * - many words (hundreds of thousands of stores) against a shadow memory, seeded;
 * - lookups and iteration; time going back for a word is an internal error (abort).
 * Randomized tests print their seed; rerun one with TB_SEED=<seed> and --filter. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "sys/oracle.h"
#include "tb_seed.h"

/* A memory the tests peek: a small array of words at addresses 8 * i. */
typedef struct arr {
    uint64_t *v;
    size_t n;
} arr_t;

static uint64_t arr_peek(void *obj, uint64_t addr)
{
    arr_t *a = obj;
    cr_assert_lt(addr / 8, a->n, "peek of 0x%llx beyond the test memory", (unsigned long long)addr);
    return a->v[addr / 8];
}

/* Case c: memory set to m (a->n words); oracle_check must count want[] = {ok, undurable, lost,
 * phantom}. */
static void check_case(const oracle_t *o, arr_t *a, const uint64_t *m, const uint64_t want[4], size_t c)
{
    memcpy(a->v, m, a->n * sizeof *m);
    oracle_report_t r;
    oracle_check(o, arr_peek, a, NULL, 0, &r);
    cr_assert(r.ok == want[0] && r.undurable == want[1] && r.lost == want[2] && r.phantom == want[3],
              "case %zu: ok %llu undurable %llu lost %llu phantom %llu", c, (unsigned long long)r.ok,
              (unsigned long long)r.undurable, (unsigned long long)r.lost, (unsigned long long)r.phantom);
}

Test(oracle, classifies_ok_lost_and_phantom)
{
    /* GIVEN five words: initial values, then commits (word 4 never initialized: initial 0) */
    oracle_t *o = oracle_create();
    uint64_t mem[5] = {0};
    arr_t a = {mem, 5};
    for (unsigned i = 0; i < 4; i++)
        oracle_init(o, 8 * i, 100 + i);
    oracle_commit(o, 0, 1, 10, 0, 0);
    oracle_commit(o, 0, 2, 20, 1, 2);
    oracle_commit(o, 0, 3, 30, 2, 3); /* word 0: 100 -> 1 -> 2 -> 3 */
    oracle_commit(o, 8, 7, 15, 0, 1); /* word 1: 101 -> 7 */
    oracle_commit(o, 32, 9, 40, 3, 0); /* word 4: (0) -> 9 */
    /* WHEN memory holds the last values (words 2 and 3 never stored) */
    uint64_t last[5] = {3, 7, 102, 103, 9};
    memcpy(mem, last, sizeof mem);
    oracle_report_t r;
    oracle_check(o, arr_peek, &a, NULL, 0, &r);
    /* THEN all ok */
    cr_assert_eq(r.words, 5);
    cr_assert_eq(r.stores, 5);
    cr_assert_eq(r.ok, 5);
    cr_assert_eq(r.lost + r.phantom, 0);

    /* WHEN a word holds an earlier committed value, or its initial value: lost */
    struct {
        unsigned word;
        uint64_t v;
        int lost; /* 1 lost, 0 phantom */
    } cases[] = {
        {0, 1, 1},   {0, 2, 1},   {0, 100, 1}, /* earlier stores and the initial value */
        {1, 101, 1}, {4, 0, 1},                /* initial values (word 4's implicit 0) */
        {0, 4, 0},   {0, 7, 0},                /* never committed to word 0 (7 was, to word 1) */
        {2, 0, 0},   {3, 102, 0},              /* a never-stored word holding something else */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(mem, last, sizeof mem);
        mem[cases[c].word] = cases[c].v;
        oracle_check(o, arr_peek, &a, NULL, 0, &r);
        /* THEN exactly that word is lost or phantom */
        cr_assert_eq(r.ok, 4, "case %zu", c);
        cr_assert_eq(r.lost, (uint64_t)cases[c].lost, "case %zu: word %u holding %llu", c, cases[c].word,
                     (unsigned long long)cases[c].v);
        cr_assert_eq(r.phantom, (uint64_t)!cases[c].lost, "case %zu: word %u holding %llu", c, cases[c].word,
                     (unsigned long long)cases[c].v);
    }
    oracle_free(o);
}

Test(oracle, a_commit_in_doubt_may_be_missing_and_nothing_else)
{
    /* GIVEN word 0: 100 -> 1 (CN 0) -> 2 (CN 1 core 1); word 8: 101 -> 5 -> 6 -> 7 (CN 1 core 1,
     *       three commits); word 16: 102 -> 3 (CN 1 core 1) -> 4 (CN 2) */
    oracle_t *o = oracle_create();
    uint64_t mem[3];
    arr_t a = {mem, 3};
    for (unsigned i = 0; i < 3; i++)
        oracle_init(o, 8 * i, 100 + i);
    oracle_commit(o, 0, 1, 10, 0, 0);
    oracle_commit(o, 0, 2, 20, 1, 1);
    oracle_commit(o, 8, 5, 11, 1, 1);
    oracle_commit(o, 8, 6, 12, 1, 1);
    oracle_commit(o, 8, 7, 13, 1, 1);
    oracle_commit(o, 16, 3, 14, 1, 1);
    oracle_commit(o, 16, 4, 15, 2, 0);
    /* WHEN CN 1 core 1's last commit to word 0 is in doubt, two to word 8, and one to word 16 */
    oracle_doubt(o, 0, 1, 1);
    oracle_doubt(o, 8, 1, 1);
    oracle_doubt(o, 8, 1, 1);
    oracle_doubt(o, 16, 1, 1); /* superseded by CN 2's commit: no doubt */
    oracle_doubt(o, 0, 1, 0);  /* another core's: no doubt */
    struct {
        uint64_t m[3];
        uint64_t want[4]; /* ok, undurable, lost, phantom */
    } cases[] = {
        {{2, 7, 4}, {3, 0, 0, 0}},   /* every last value */
        {{1, 6, 4}, {1, 2, 0, 0}},   /* the values before the doubted commits */
        {{1, 5, 4}, {1, 2, 0, 0}},   /* two in doubt on word 8: any earlier value of it */
        {{100, 7, 4}, {2, 0, 1, 0}}, /* word 0: before the doubted commit's predecessor: lost */
        {{2, 7, 3}, {2, 0, 1, 0}},   /* word 16: its last commit was another CN's: lost */
        {{9, 7, 4}, {2, 0, 0, 1}},   /* never committed: phantom, doubt or not */
    };
    /* THEN a doubted commit may be missing, with only the value it replaced in its place */
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        check_case(o, &a, cases[c].m, cases[c].want, c);
    /* WHEN word 0 is committed again THEN its doubt is over */
    oracle_commit(o, 0, 11, 30, 3, 0);
    uint64_t m2[3] = {2, 7, 4};
    memcpy(mem, m2, sizeof mem);
    oracle_report_t r;
    oracle_check(o, arr_peek, &a, NULL, 0, &r);
    cr_assert_eq(r.lost, 1);
    oracle_free(o);
}

Test(oracle, an_lnr_word_a_failed_cn_never_wrote_back_may_hold_any_earlier_value)
{
    /* GIVEN word 0: 100 -> 1 -> 2 -> 3 (CN 1, cores 0 and 1); word 8: 101 -> 5 (CN 1) -> 6 (CN 2) */
    oracle_t *o = oracle_create();
    uint64_t mem[2];
    arr_t a = {mem, 2};
    oracle_init(o, 0, 100);
    oracle_init(o, 8, 101);
    oracle_commit(o, 0, 1, 10, 1, 0);
    oracle_commit(o, 0, 2, 11, 1, 1);
    oracle_commit(o, 0, 3, 12, 1, 0);
    oracle_commit(o, 8, 5, 13, 1, 0);
    oracle_commit(o, 8, 6, 14, 2, 0);
    /* WHEN CN 1 fails with both words unwritten back in its caches */
    oracle_doubt_unwritten(o, 0, 1);
    oracle_doubt_unwritten(o, 8, 1); /* its last commit is CN 2's: no doubt */
    struct {
        uint64_t m[2];
        uint64_t want[4]; /* ok, undurable, lost, phantom */
    } cases[] = {
        {{3, 6}, {2, 0, 0, 0}},   /* the last values */
        {{1, 6}, {1, 1, 0, 0}},   /* word 0: any earlier value, whichever core stored it */
        {{100, 6}, {1, 1, 0, 0}}, /* its initial value too */
        {{2, 5}, {0, 1, 1, 0}},   /* word 8: CN 2's value was not CN 1's to lose */
        {{7, 6}, {1, 0, 0, 1}},   /* never committed: phantom */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        check_case(o, &a, cases[c].m, cases[c].want, c);
    oracle_free(o);
}

Test(oracle, a_value_committed_again_is_the_last_one)
{
    /* GIVEN a lock word: 0 -> 1 -> 0 -> 1 -> 0 */
    oracle_t *o = oracle_create();
    uint64_t mem[1] = {0};
    arr_t a = {mem, 1};
    for (unsigned i = 0; i < 4; i++)
        oracle_commit(o, 0, (i & 1) ? 0 : 1, 10 * i, 0, 0);
    oracle_report_t r;
    /* WHEN it holds 0, then 1 */
    oracle_check(o, arr_peek, &a, NULL, 0, &r);
    cr_assert_eq(r.ok, 1);
    mem[0] = 1;
    oracle_check(o, arr_peek, &a, NULL, 0, &r);
    /* THEN 0 is ok and 1 is lost (committed, but not last) */
    cr_assert_eq(r.lost, 1);
    /* and commits at the same time are in order, not an error */
    oracle_commit(o, 0, 5, 30, 1, 1);
    oracle_commit(o, 0, 6, 30, 1, 1);
    mem[0] = 6;
    oracle_check(o, arr_peek, &a, NULL, 0, &r);
    cr_assert_eq(r.ok, 1);
    oracle_free(o);
}

/* The text oracle_check prints for the memory mem (at most max_lines lines). */
static char *report_text(const oracle_t *o, arr_t *a, size_t max_lines, oracle_report_t *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    oracle_check(o, arr_peek, a, f, max_lines, r);
    fclose(f);
    return buf;
}

Test(oracle, report_lines_name_the_word_the_values_and_the_last_store)
{
    /* GIVEN words 0x40.. with known last stores, and a memory where three are wrong */
    oracle_t *o = oracle_create();
    uint64_t mem[16] = {0};
    arr_t a = {mem, 16};
    oracle_init(o, 0x78, 0x55);                 /* word 15, never stored */
    oracle_commit(o, 0x48, 0xaa, 1000, 3, 1);   /* word 9 */
    oracle_commit(o, 0x48, 0xbb, 2500, 5, 2);
    oracle_commit(o, 0x40, 0x11, 700, 1, 0);    /* word 8 */
    oracle_commit(o, 0x50, 0x22, 800, 2, 3);    /* word 10 */
    mem[8] = 0x11;
    mem[9] = 0xaa;  /* lost: the earlier store */
    mem[10] = 0x99; /* phantom */
    mem[15] = 0x56; /* phantom: a never-stored word */
    /* WHEN checked with room for every line */
    oracle_report_t r;
    char *txt = report_text(o, &a, 10, &r);
    /* THEN one line per mismatch, in address order, with every fact */
    cr_assert_eq(r.ok, 1);
    cr_assert_eq(r.lost, 1);
    cr_assert_eq(r.phantom, 2);
    const char *want =
        "oracle: word 0x48 lost (holds an earlier store): holds 0xaa, should hold 0xbb (the last of 2 stores, "
        "committed at 2500 ps by cn 5 core 2)\n"
        "oracle: word 0x50 phantom: holds 0x99, should hold 0x22 (the last of 1 stores, committed at 800 ps by cn 2 "
        "core 3)\n"
        "oracle: word 0x78 phantom: holds 0x56, should hold 0x55 (its initial value, never stored)\n";
    cr_assert_str_eq(txt, want);
    free(txt);
    /* WHEN only two lines are allowed: the lowest addresses, then a count of the rest */
    txt = report_text(o, &a, 2, &r);
    cr_assert(strstr(txt, "word 0x48") && strstr(txt, "word 0x50") && !strstr(txt, "word 0x78"), "%s", txt);
    cr_assert(strstr(txt, "oracle: ... and 1 more mismatched words\n"), "%s", txt);
    free(txt);
    /* WHEN a word holds its initial value after stores: the line says so */
    mem[9] = 0;
    txt = report_text(o, &a, 1, &r);
    cr_assert(strstr(txt, "word 0x48 lost (holds its initial value): holds 0x0, should hold 0xbb"), "%s", txt);
    free(txt);
    /* WHEN no file: counts only */
    oracle_check(o, arr_peek, &a, NULL, 5, &r);
    cr_assert_eq(r.lost + r.phantom, 3);
    oracle_free(o);
}

Test(oracle, many_words_against_a_shadow_memory)
{
    /* GIVEN 100 000 words, 600 000 commits in time order (small value ranges, so values repeat),
     * the shadow memory holding each word's last value */
    const uint64_t seed = tb_seed(7);
    const size_t nw = 100000, ns = 600000;
    rng_t rng;
    rng_init_named(&rng, seed, "oracle.many");
    oracle_t *o = oracle_create();
    uint64_t *mem = calloc(nw, sizeof *mem), *init = calloc(nw, sizeof *init), *earlier = calloc(nw, sizeof *earlier);
    uint8_t *stored = calloc(nw, 1);
    arr_t a = {mem, nw};
    for (size_t i = 0; i < nw; i += 3) {
        init[i] = mem[i] = rng_below(&rng, 4);
        oracle_init(o, 8 * i, init[i]);
    }
    for (size_t s = 0; s < ns; s++) {
        size_t w = (size_t)rng_below(&rng, nw);
        uint64_t v = rng_below(&rng, 50);
        oracle_commit(o, 8 * w, v, s, (unsigned)rng_below(&rng, 16), (unsigned)rng_below(&rng, 4));
        if (stored[w] && mem[w] != v)
            earlier[w] = mem[w] + 1; /* + 1: 0 means none */
        mem[w] = v;
        stored[w] = 1;
    }
    oracle_report_t r;
    oracle_check(o, arr_peek, &a, NULL, 0, &r);
    size_t recorded = 0;
    for (size_t i = 0; i < nw; i++)
        recorded += stored[i] || i % 3 == 0;
    cr_assert_eq(r.words, recorded, "seed %llu", (unsigned long long)seed);
    cr_assert_eq(r.stores, ns, "seed %llu", (unsigned long long)seed);
    cr_assert_eq(r.ok, recorded, "seed %llu: %llu lost %llu phantom", (unsigned long long)seed,
                 (unsigned long long)r.lost, (unsigned long long)r.phantom);
    /* WHEN some recorded words are corrupted: to their initial value or an earlier committed value
     * other than the last (lost), or to a value never used anywhere (phantom) */
    size_t want_lost = 0, want_phantom = 0;
    for (size_t i = 0; i < nw; i++) {
        if (!(stored[i] || i % 3 == 0) || rng_below(&rng, 10))
            continue;
        unsigned how = (unsigned)rng_below(&rng, 3);
        if (how == 0 && stored[i] && mem[i] != init[i]) {
            mem[i] = init[i];
            want_lost++;
        } else if (how == 1 && earlier[i] && earlier[i] - 1 != mem[i]) {
            mem[i] = earlier[i] - 1;
            want_lost++;
        } else {
            mem[i] = 1000 + i;
            want_phantom++;
        }
    }
    oracle_check(o, arr_peek, &a, NULL, 0, &r);
    /* THEN the counts are exact */
    cr_assert(r.lost == want_lost && r.phantom == want_phantom, "seed %llu: %llu lost, %llu phantom; want %zu, %zu",
              (unsigned long long)seed, (unsigned long long)r.lost, (unsigned long long)r.phantom, want_lost,
              want_phantom);
    cr_assert_eq(r.ok + r.lost + r.phantom, recorded, "seed %llu", (unsigned long long)seed);
    free(mem), free(init), free(stored), free(earlier);
    oracle_free(o);
}

Test(oracle, lookup_and_iteration)
{
    /* GIVEN two words */
    oracle_t *o = oracle_create();
    oracle_init(o, 0x100, 4);
    oracle_commit(o, 0x200, 8, 50, 6, 3);
    oracle_commit(o, 0x100, 5, 60, 7, 2);
    /* THEN lookup and iteration tell what each should hold */
    oracle_word_t w;
    cr_assert(oracle_lookup(o, 0x100, &w));
    cr_assert(w.addr == 0x100 && w.init == 4 && w.last == 5 && w.stores == 1 && w.last_t_ps == 60 &&
              w.last_cn == 7 && w.last_core == 2);
    cr_assert(!oracle_lookup(o, 0x108, &w));
    cr_assert_eq(oracle_num_words(o), 2);
    oracle_word_at(o, 1, &w);
    cr_assert(w.addr == 0x200 && w.init == 0 && w.last == 8 && w.stores == 1);
    oracle_free(o);
}

Test(oracle, a_word_never_stored_keeps_its_initial_value_and_a_doubt_changes_nothing)
{
    /* GIVEN a word set up to 4 and never stored, whose CN's last commit is called in doubt */
    oracle_t *o = oracle_create();
    uint64_t mem[2] = {4, 0};
    arr_t a = {mem, 2};
    oracle_init(o, 0, 4);
    oracle_doubt(o, 0, 0, 0);
    oracle_word_t w;
    cr_assert(oracle_lookup(o, 0, &w));
    cr_assert(w.init == 4 && w.last == 4 && w.stores == 0 && w.last_t_ps == 0);
    /* THEN it must hold 4: ok when it does, phantom otherwise (no earlier value to accept) */
    oracle_report_t r;
    oracle_check(o, arr_peek, &a, NULL, 0, &r);
    cr_assert(r.words == 1 && r.ok == 1 && r.stores == 0);
    mem[0] = 0;
    oracle_check(o, arr_peek, &a, NULL, 0, &r);
    cr_assert(r.phantom == 1 && r.lost == 0 && r.undurable == 0 && r.ok == 0);
    /* AND its first commit starts from its initial value: 4 is then an earlier value (lost) */
    oracle_commit(o, 0, 9, 10, 1, 1);
    mem[0] = 4;
    oracle_check(o, arr_peek, &a, NULL, 0, &r);
    cr_assert(r.lost == 1 && r.phantom == 0);
    oracle_free(o);
}

Test(oracle, commit_time_going_back_for_a_word_aborts, .signal = SIGABRT)
{
    /* GIVEN a word committed at 100 ps WHEN a commit at 99 ps comes THEN an internal error */
    oracle_t *o = oracle_create();
    oracle_commit(o, 0x40, 1, 100, 0, 0);
    oracle_commit(o, 0x48, 1, 50, 0, 0); /* another word: fine */
    oracle_commit(o, 0x40, 2, 99, 0, 0);
    oracle_free(o);
}

/* Words set up in runs of consecutive words and alone (each in a block of its own), a fifth stored:
 * every one is found, iterated once (blocks by first record, a block's words by address), and a
 * check of memory holding each word's last value finds them all ok. Enough words that the block
 * map grows several times. */
static uint64_t many_addr(unsigned k)
{
    /* runs of 96 words (a block and a half), then a lone word 1 MiB further */
    return k % 97 == 96 ? 0x40000000ull + (uint64_t)k * 0x100000 : 0x1000ull + 8ull * k;
}

static uint64_t many_peek(void *obj, uint64_t addr)
{
    (void)obj;
    return addr * 3 + (addr % 5 == 0);
}

Test(oracle, many_words_in_runs_and_alone_are_all_found_and_iterated_once)
{
    enum { N = 200000 };
    oracle_t *o = oracle_create();
    for (unsigned k = 0; k < N; k++)
        oracle_init(o, many_addr(k), many_addr(k) * 3);
    for (unsigned k = 0; k < N; k++)
        if (many_addr(k) % 5 == 0)
            oracle_commit(o, many_addr(k), many_addr(k) * 3 + 1, 100, 0, 0);
    cr_assert_eq(oracle_num_words(o), N);
    uint64_t sum = 0, want = 0, prev_block = UINT64_MAX;
    for (unsigned k = 0; k < N; k++)
        want += many_addr(k);
    for (size_t i = 0; i < N; i++) {
        oracle_word_t w;
        oracle_word_at(o, i, &w);
        sum += w.addr;
        if (w.addr >> 9 == prev_block >> 9)
            cr_assert_gt(w.addr, prev_block, "word %zu: 0x%llx after 0x%llx in its block", i,
                         (unsigned long long)w.addr, (unsigned long long)prev_block);
        prev_block = w.addr;
    }
    cr_assert_eq(sum, want, "iteration visits each word once");
    for (unsigned k = 0; k < N; k += 7) {
        oracle_word_t w;
        cr_assert(oracle_lookup(o, many_addr(k), &w));
        cr_assert_eq(w.init, many_addr(k) * 3);
        cr_assert_eq(w.stores, (uint64_t)(many_addr(k) % 5 == 0));
        cr_assert(!oracle_lookup(o, many_addr(k) + 0x8000000000ull, &w));
    }
    oracle_report_t r;
    oracle_check(o, many_peek, NULL, NULL, 0, &r);
    cr_assert_eq(r.words, N);
    cr_assert_eq(r.ok, N, "%llu ok, %llu lost, %llu phantom", (unsigned long long)r.ok,
                 (unsigned long long)r.lost, (unsigned long long)r.phantom);
    oracle_free(o);
}
