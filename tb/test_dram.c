/* The DRAM model: latency, channel occupancy, data. */
#include <criterion/criterion.h>
#include <string.h>

#include "mem/dram.h"

typedef struct done_log {
    kernel_t *k;
    uint64_t t[16], tag[16], w0[16];
    unsigned n;
} done_log_t;

static void done(void *obj, uint64_t tag, const uint64_t *line)
{
    done_log_t *d = obj;
    d->t[d->n] = d->k->now;
    d->tag[d->n] = tag;
    d->w0[d->n++] = line ? line[0] : ~0ull;
}

Test(dram, read_completes_after_the_latency_with_the_data_written)
{
    kernel_t k;
    kernel_init(&k);
    stats_t st;
    cr_assert_eq(stats_init(&st), 0);
    dram_t *d = dram_create(&k, &(dram_params_t){.name = "mn0.dram", .latency_ps = 45000, .channels = 1}, &st);
    done_log_t log = {.k = &k};
    uint64_t data[MSG_WORDS_PER_LINE] = {0x1111, 0x2222};
    dram_write(d, 0x40, 0x01, data, done, &log, 1);
    dram_read(d, 0x40, done, &log, 2);
    dram_read(d, 0x99, done, &log, 3);
    kernel_run(&k, UINT64_MAX);
    cr_assert_eq(log.n, 3);
    for (unsigned i = 0; i < 3; i++)
        cr_assert_eq(log.t[i], 45000, "access %u: %llu ps, not 45 ns", i, (unsigned long long)log.t[i]);
    cr_assert_eq(log.w0[1], 0x1111, "the read after the write sees it");
    cr_assert_eq(log.w0[2], 0, "a line never written reads as zeros");
    uint64_t line[MSG_WORDS_PER_LINE];
    dram_peek(d, 0x40, line);
    cr_assert_eq(line[1], 0, "word 1 was outside the mask");
    cr_assert_eq(*stats_find_counter(&st, "mn0.dram.reads"), 2);
    cr_assert_eq(*stats_find_counter(&st, "mn0.dram.writes"), 1);
    dram_free(d);
    stats_free(&st);
    kernel_free(&k);
}

Test(dram, a_busy_channel_serializes_accesses)
{
    kernel_t k;
    kernel_init(&k);
    stats_t st;
    cr_assert_eq(stats_init(&st), 0);
    dram_t *d = dram_create(&k, &(dram_params_t){.name = "d", .latency_ps = 45000, .burst_ps = 2000, .channels = 2},
                            &st);
    done_log_t log = {.k = &k};
    dram_read(d, 0, done, &log, 0); /* channel 0 */
    dram_read(d, 2, done, &log, 1); /* channel 0: waits one burst */
    dram_read(d, 1, done, &log, 2); /* channel 1: free */
    dram_read(d, 4, done, &log, 3); /* channel 0: waits two bursts */
    cr_assert_eq(dram_busy(d), 4);
    kernel_run(&k, UINT64_MAX);
    const uint64_t want[4] = {45000, 47000, 45000, 49000};
    for (unsigned i = 0; i < 4; i++) {
        unsigned j = 0;
        while (log.tag[j] != i)
            j++;
        cr_assert_eq(log.t[j], want[i], "access %u completed at %llu", i, (unsigned long long)log.t[j]);
    }
    cr_assert_eq(dram_busy(d), 0);
    dram_free(d);
    stats_free(&st);
    kernel_free(&k);
}

/* The data tests' DRAM (its timing does not matter to them). */
static kernel_t dk;
static stats_t dst;
static dram_t *dd;

static void data_setup(void)
{
    kernel_init(&dk);
    cr_assert_eq(stats_init(&dst), 0);
    dd = dram_create(&dk, &(dram_params_t){.name = "d", .latency_ps = 1, .channels = 1}, &dst);
}

static void data_teardown(void)
{
    dram_free(dd);
    stats_free(&dst);
    kernel_free(&dk);
}

Test(dram, many_lines_keep_their_data, .init = data_setup, .fini = data_teardown)
{
    uint64_t w[MSG_WORDS_PER_LINE];
    for (uint64_t a = 0; a < 50000; a++) {
        for (unsigned i = 0; i < MSG_WORDS_PER_LINE; i++)
            w[i] = a * 8 + i;
        dram_poke(dd, a * 977, 0xff, w);
    }
    for (uint64_t a = 0; a < 50000; a++) {
        dram_peek(dd, a * 977, w);
        for (unsigned i = 0; i < MSG_WORDS_PER_LINE; i++)
            cr_assert_eq(w[i], a * 8 + i, "line %llu word %u", (unsigned long long)a, i);
    }
}

/* Lines written in runs share storage blocks: each keeps its own data, a masked write changes only
 * its words, and the lines never written between and around them read as zeros. */
Test(dram, neighbouring_lines_keep_their_own_data_and_unwritten_ones_read_zero, .init = data_setup,
     .fini = data_teardown)
{
    uint64_t w[MSG_WORDS_PER_LINE];
    for (uint64_t a = 100; a < 20100; a++) {
        if (a % 3 == 0)
            continue; /* never written */
        for (unsigned i = 0; i < MSG_WORDS_PER_LINE; i++)
            w[i] = a << 8 | i;
        dram_poke(dd, a, 0xff, w);
    }
    for (unsigned i = 0; i < MSG_WORDS_PER_LINE; i++)
        w[i] = 0xdead;
    dram_poke(dd, 101, 0x0a, w); /* words 1 and 3 only */
    for (uint64_t a = 0; a < 20200; a++) {
        dram_peek(dd, a, w);
        for (unsigned i = 0; i < MSG_WORDS_PER_LINE; i++) {
            uint64_t want = a < 100 || a >= 20100 || a % 3 == 0 ? 0 : a << 8 | i;
            if (a == 101 && (i == 1 || i == 3))
                want = 0xdead;
            cr_assert_eq(w[i], want, "line %llu word %u: 0x%llx", (unsigned long long)a, i,
                         (unsigned long long)w[i]);
        }
    }
}

Test(dram, impossible_parameters_are_refused)
{
    kernel_t k;
    kernel_init(&k);
    stats_t st;
    cr_assert_eq(stats_init(&st), 0);
    cr_assert_null(dram_create(&k, &(dram_params_t){.name = "d", .latency_ps = 0, .channels = 1}, &st));
    cr_assert_null(dram_create(&k, &(dram_params_t){.name = "d", .latency_ps = 5, .channels = 0}, &st));
    stats_free(&st);
    kernel_free(&k);
}
