/* Tests of csim/base/cli: the parsers of the simulator programs' options that stand on their own
 * (the --fail value, times with a unit). The programs' whole command line, its messages and exit
 * status 2 are tested by running them (tb/test_sim.c). */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "base/cli.h"
#include "msg_defs.h"

Test(cli, fail_value_cn_at_time)
{
    static const struct {
        const char *v;
        int bad;
        unsigned cn;
        uint64_t ps;
        bool after;
    } cases[] = {
        {"2@3us", 0, 2, 3000000, false},
        {"0@0", 0, 0, 0, false},
        {"31@1.5ms", 0, 31, 1500000000ull, false},
        {"1@9152ps", 0, 1, 9152, false},
        {"7@2s", 0, 7, 2000000000000ull, false},
        {"2@+1us", 0, 2, 1000000, true}, /* after the recoveries of the failures before it */
        {"3@+0ns", 0, 3, 0, true},
        {"2", CLI_FAIL_BAD_CN, 0, 0, false},
        {"@1us", CLI_FAIL_BAD_CN, 0, 0, false},
        {"x@1us", CLI_FAIL_BAD_CN, 0, 0, false},
        {"1x@1us", CLI_FAIL_BAD_CN, 0, 0, false},
        {"32@1us", CLI_FAIL_BAD_CN, 0, 0, false}, /* MSG_MAX_CN: the message format's limit */
        {"1@soon", CLI_FAIL_BAD_TIME, 0, 0, false},
        {"1@", CLI_FAIL_BAD_TIME, 0, 0, false},
        {"1@+", CLI_FAIL_BAD_TIME, 0, 0, false},
        {"1@5", CLI_FAIL_BAD_TIME, 0, 0, false}, /* a time needs its unit, but for 0 */
        {"1@-1us", CLI_FAIL_BAD_TIME, 0, 0, false},
        {"1@++1us", CLI_FAIL_BAD_TIME, 0, 0, false},
        {"1@+-1us", CLI_FAIL_BAD_TIME, 0, 0, false},
        {"1@ 1us", CLI_FAIL_BAD_TIME, 0, 0, false},
        {"1@1us@2us", CLI_FAIL_BAD_TIME, 0, 0, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned cn = 99;
        uint64_t ps = 0;
        bool after = false;
        int bad = cli_parse_fail(cases[i].v, &cn, &ps, &after);
        cr_assert_eq(bad, cases[i].bad, "--fail %s: %d, expected %d", cases[i].v, bad, cases[i].bad);
        if (!bad) {
            cr_assert_eq(cn, cases[i].cn, "--fail %s: CN %u", cases[i].v, cn);
            cr_assert_eq(ps, cases[i].ps, "--fail %s: %" PRIu64 " ps", cases[i].v, ps);
            cr_assert_eq(after, cases[i].after, "--fail %s: after %d", cases[i].v, after);
        } else {
            cr_assert_eq(cn, 99, "--fail %s: a refused value set the CN", cases[i].v);
        }
    }
    _Static_assert(MSG_MAX_CN == 32, "the cases above name CN 31 and 32");
}

Test(cli, fail_messages_are_the_programs_lines)
{
    /* The lines cli_parse prints for a bad --fail (tb/test_sim.c checks them from the program). */
    cr_assert_str_eq(cli_fail_what(CLI_FAIL_BAD_CN),
                     "--fail wants CN@TIME or CN@+TIME with CN a compute node number (e.g. 2@3us)");
    cr_assert_str_eq(cli_fail_what(CLI_FAIL_BAD_TIME),
                     "--fail: not a time with a unit (ps, ns, us, ms, s) after '@' or '@+'");
}

Test(cli, times_are_exact_below_the_limit)
{
    /* GIVEN times near CLI_TIME_LIMIT_PS (2^53 ps) WHEN parsed THEN a whole number of a unit is read
     * exactly or refused. make fuzz (tb/fuzz/fuzz_fail.c) found the first: a double read it as
     * 10000000000000100352 ps. */
    static const struct {
        const char *s;
        int bad;
        uint64_t ps;
    } cases[] = {
        {"10000000000000100ns", -1, 0},              /* 1e16 ps: beyond the limit */
        {"9007199254740992ps", -1, 0},               /* 2^53 */
        {"9007199254740993ps", -1, 0},               /* 2^53 + 1, which a double rounds to 2^53 */
        {"9007199254740991ps", 0, 9007199254740991}, /* 2^53 - 1 */
        {"4503599627370497ps", 0, 4503599627370497}, /* 2^52 + 1: t + 0.5 rounded it to 2^52 + 2 */
        {"9007s", 0, 9007000000000000},
        {"1000s", 0, 1000000000000000},
        {"1.5ps", 0, 2}, /* rounded half up */
        {"1.1ns", 0, 1100},
        {"0", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t ps = 7;
        int rc = cli_parse_time(cases[i].s, &ps);
        cr_assert_eq(rc, cases[i].bad, "%s: %d", cases[i].s, rc);
        if (!rc)
            cr_assert_eq(ps, cases[i].ps, "%s read as %" PRIu64 " ps, expected %" PRIu64, cases[i].s, ps, cases[i].ps);
    }
    unsigned cn;
    uint64_t ps;
    bool after;
    cr_assert_eq(cli_parse_fail("1@10000000000000100ns", &cn, &ps, &after), CLI_FAIL_BAD_TIME);
}
