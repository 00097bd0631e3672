/* Tests of csim/base/progress: the progress line's refresh rate, its silence off a terminal, the
 * cheapness of progress_update, and the erasing of the line at the end. A fake wall clock makes
 * them deterministic. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "base/progress.h"

typedef struct fake_clock {
    uint64_t now_ns;
    uint64_t step_ns; /* added at every read */
    uint64_t reads;
} fake_clock_t;

static uint64_t fake_now(void *arg)
{
    fake_clock_t *c = arg;
    c->reads++;
    c->now_ns += c->step_ns;
    return c->now_ns;
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

Test(progress, silent_when_the_stream_is_not_a_terminal)
{
    /* GIVEN a regular file (not a tty) and the automatic mode */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    progress_t p;
    fake_clock_t clk = {.step_ns = 100000000}; /* 0.1 s per read: would redraw often */
    progress_init_stream(&p, f, PROGRESS_AUTO, "events");
    progress_set_clock(&p, fake_now, &clk);
    /* WHEN updated many times over many wall seconds */
    for (uint64_t i = 0; i < 1000; i++)
        progress_update(&p, i * 1000, (double)i);
    progress_finish(&p);
    fclose(f);
    /* THEN nothing is written and the clock is not even read */
    cr_assert_eq(len, 0, "wrote: %s", buf);
    cr_assert_eq(clk.reads, 1, "only progress_set_clock reads it");
    free(buf);
}

Test(progress, silent_when_disabled)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    progress_t p;
    fake_clock_t clk = {.step_ns = 100000000};
    progress_init_stream(&p, f, PROGRESS_OFF, NULL);
    progress_set_clock(&p, fake_now, &clk);
    for (uint64_t i = 0; i < 1000; i++)
        progress_update(&p, i, 0);
    progress_finish(&p);
    fclose(f);
    cr_assert_eq(len, 0);
    free(buf);
}

Test(progress, redraws_at_most_every_half_second)
{
    /* GIVEN a forced line and a clock advancing 20 ms per read (the stride then stays 1) */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    progress_t p;
    fake_clock_t clk = {.step_ns = 20000000};
    progress_init_stream(&p, f, PROGRESS_ON, NULL);
    progress_set_clock(&p, fake_now, &clk);
    /* WHEN updated until 10 s of (fake) wall time have passed */
    uint64_t sim = 0;
    while (clk.now_ns < 10000000000ull)
        progress_update(&p, sim += 1000, 0);
    fflush(f);
    /* THEN about 20 redraws, never more */
    size_t draws = count(buf, "\r");
    cr_assert(draws >= 18 && draws <= 20, "%zu redraws in 10 s", draws);
    cr_assert_eq(p.draws, draws);
    progress_finish(&p);
    fclose(f);
    free(buf);
}

Test(progress, reads_the_clock_rarely)
{
    /* GIVEN a clock that advances 1 us per read (a fast simulation loop) */
    progress_t p;
    fake_clock_t clk = {.step_ns = 1000};
    FILE *f = fopen("/dev/null", "w");
    cr_assert_not_null(f);
    progress_init_stream(&p, f, PROGRESS_ON, NULL);
    progress_set_clock(&p, fake_now, &clk);
    /* WHEN updated a million times */
    for (uint64_t i = 0; i < 1000000; i++)
        progress_update(&p, i, 0);
    /* THEN the stride grew and the clock was read only a few dozen times */
    cr_assert_lt(clk.reads, 100, "%llu clock reads", (unsigned long long)clk.reads);
    cr_assert_gt(p.stride, 1000);
    progress_finish(&p);
    fclose(f);
}

Test(progress, stride_shrinks_when_updates_are_slow)
{
    /* GIVEN updates that are each 1 s of wall time apart */
    progress_t p;
    fake_clock_t clk = {.step_ns = 1000};
    FILE *f = fopen("/dev/null", "w");
    progress_init_stream(&p, f, PROGRESS_ON, NULL);
    progress_set_clock(&p, fake_now, &clk);
    for (uint64_t i = 0; i < 100000; i++)
        progress_update(&p, i, 0);
    cr_assert_gt(p.stride, 64);
    clk.step_ns = 1000000000;
    /* WHEN a few hundred more updates come THEN the stride falls back to 1 */
    for (uint64_t i = 0; i < 400000 && p.stride > 1; i++)
        progress_update(&p, i, 0);
    cr_assert_eq(p.stride, 1);
    progress_finish(&p);
    fclose(f);
}

Test(progress, line_content_and_final_erase)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    progress_t p;
    fake_clock_t clk = {.step_ns = 600000000}; /* 0.6 s per read: every check redraws */
    progress_init_stream(&p, f, PROGRESS_ON, "events");
    progress_set_target(&p, 100000000); /* 100 us */
    progress_set_clock(&p, fake_now, &clk);
    progress_update(&p, 25000000, 3000.0); /* 25 us, 3000 events, 0.6 s after the start */
    fflush(f);
    cr_assert_str_eq(buf, "\rsim 25 us (25%)  wall 0.6 s  rate 41.7 k sim-ns/s  5 k events/s  "
                          "ETA 2 s\033[K");
    progress_finish(&p);
    fclose(f);
    size_t n = strlen(buf);
    cr_assert(n > 4 && strcmp(buf + n - 4, "\r\033[K") == 0, "the line is not erased");
    free(buf);
}

Test(progress, finish_without_a_line_writes_nothing)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    progress_t p;
    fake_clock_t clk = {.step_ns = 1000};
    progress_init_stream(&p, f, PROGRESS_ON, NULL);
    progress_set_clock(&p, fake_now, &clk);
    progress_update(&p, 1, 0); /* well under 0.5 s: no line */
    progress_finish(&p);
    fclose(f);
    cr_assert_eq(len, 0, "wrote: %s", buf);
    free(buf);
}
