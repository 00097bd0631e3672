/* libFuzzer harness of the --fail option's parser (csim/base/cli.c: cli_parse_fail, which
 * cli_parse calls for each --fail CN@TIME, and the time parser behind it, cli_parse_time, which
 * --trace-start and --trace-stop use too): the input is one argument (a NUL ends it, as it ends a
 * command-line argument).
 *
 * Invariants checked on every input:
 *  - an accepted value names a CN below MSG_MAX_CN, and its time is the time after the '@';
 *  - a refused one is refused for a reason cli_fail_what has a line for;
 *  - a time cli_parse_time accepts, written back in picoseconds, is accepted again as the same
 *    number of picoseconds;
 *  - a whole number with a unit ("9152ps", "3us") that the parser accepts is read exactly, and
 *    every time it accepts is below CLI_TIME_LIMIT_PS. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "fuzz_check.h"
#include "msg_defs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A time accepted once reads back from its picoseconds as the same time. */
static void time_round_trip(const char *s, uint64_t ps)
{
    char back[32];
    uint64_t again = 0;
    snprintf(back, sizeof back, "%" PRIu64 "ps", ps);
    FUZZ_CHECK(ps < CLI_TIME_LIMIT_PS, "'%s' gave %" PRIu64 " ps, beyond the limit", s, ps);
    FUZZ_CHECK(cli_parse_time(back, &again) == 0, "'%s' gave %" PRIu64 " ps, but '%s' is refused", s, ps, back);
    FUZZ_CHECK(again == ps, "'%s' gave %" PRIu64 " ps, '%s' gives %" PRIu64, s, ps, back, again);
}

/* The exact picoseconds of s when it is digits and a unit, as 0 when it is "0"; false when it is
 * not of that form or does not fit in 64 bits. */
static bool exact_ps(const char *s, uint64_t *ps)
{
    static const struct {
        const char *unit;
        uint64_t scale;
    } units[] = {{"ps", 1}, {"ns", 1000}, {"us", 1000000}, {"ms", 1000000000}, {"s", 1000000000000}};
    uint64_t n = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++)
        if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, (uint64_t)(*p - '0'), &n))
            return false;
    if (p == s)
        return false;
    if (!*p && n == 0)
        return *ps = 0, true;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(p, units[i].unit))
            return !__builtin_mul_overflow(n, units[i].scale, ps);
    return false;
}

/* A whole number of a unit, accepted, is read exactly. */
static void exact(const char *s, uint64_t ps)
{
    uint64_t want;
    if (exact_ps(s, &want))
        FUZZ_CHECK(ps == want, "'%s' read as %" PRIu64 " ps", s, ps);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *v = malloc(size + 1);
    FUZZ_CHECK(v != NULL, "out of memory");
    memcpy(v, data, size);
    v[size] = '\0';

    unsigned cn = MSG_MAX_CN;
    uint64_t ps = 0;
    bool after = false;
    int bad = cli_parse_fail(v, &cn, &ps, &after);
    if (bad == 0) {
        FUZZ_CHECK(cn < MSG_MAX_CN, "'%s' accepted with CN %u", v, cn);
        const char *at = strchr(v, '@');
        FUZZ_CHECK(at != NULL, "'%s' accepted without '@'", v);
        FUZZ_CHECK(after == (at[1] == '+'), "'%s': after %d", v, after);
        const char *t_s = at + 1 + after;
        uint64_t t = 0;
        FUZZ_CHECK(cli_parse_time(t_s, &t) == 0 && t == ps, "'%s': the time after '@' parses otherwise", v);
        time_round_trip(t_s, ps);
        exact(t_s, ps);
    } else {
        FUZZ_CHECK(bad == CLI_FAIL_BAD_CN || bad == CLI_FAIL_BAD_TIME, "'%s': result %d", v, bad);
        FUZZ_CHECK(fuzz_one_line(cli_fail_what(bad)), "no line for result %d", bad);
    }
    /* The whole argument as a time (--trace-start, --trace-stop). */
    uint64_t t = 0;
    if (cli_parse_time(v, &t) == 0) {
        time_round_trip(v, t);
        exact(v, t);
    }
    free(v);
    return 0;
}
