/* libFuzzer harness of the --set parser (csim/base/config.c: config_set, then config_validate):
 * the input is a list of assignments `section.key=value`, one per line (a NUL ends one too, as it
 * ends a command-line argument), applied in order over the defaults as the programs apply their
 * --set options; then the cross-key checks.
 *
 * Invariants checked on every assignment:
 *  - a refused one leaves the configuration untouched and reports one line `--set ARGUMENT: ...`;
 *  - an accepted one sets a value that, formatted as the dump writes it (config_value_str), is
 *    accepted again by --set and gives the same value (format and parse agree);
 *  - config_validate's message, when it refuses the result, is one line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Applies one assignment to c and checks the invariants above. */
static void one(sim_config_t *c, const char *a)
{
    static sim_config_t before, again;
    config_err_t err = {{0}};
    before = *c;
    if (config_set(c, a, &err)) {
        char head[CONFIG_ERR_MAX + 16];
        snprintf(head, sizeof head, "--set %s: ", a);
        FUZZ_CHECK(fuzz_one_line(err.msg), "message '%s'", err.msg);
        FUZZ_CHECK(strncmp(err.msg, head, strlen(head) < sizeof err.msg - 1 ? strlen(head) : sizeof err.msg - 1) == 0,
                   "message '%s' does not start with '%s'", err.msg, head);
        FUZZ_CHECK(memcmp(c, &before, sizeof *c) == 0, "a refused --set changed the configuration: %s", err.msg);
        return;
    }
    /* Which key it set: the one whose origin is this --set. */
    int k = -1;
    for (size_t i = 0; i < config_num_keys(); i++)
        if (c->origin[i].src == CONFIG_SRC_SET && c->origin[i].line == c->num_sets)
            k = (int)i;
    FUZZ_CHECK(k >= 0, "an accepted --set %s recorded no origin", a);
    char name[64], val[192], again_arg[288];
    config_key_name((size_t)k, name, sizeof name);
    FUZZ_CHECK(config_value_str(c, name, val, sizeof val) == 0, "no value for %s", name);
    snprintf(again_arg, sizeof again_arg, "%s=%s", name, val);
    again = *c;
    int rc = config_set(&again, again_arg, &err);
    FUZZ_CHECK(rc == 0, "--set %s accepted, but its value as written, --set %s, is refused: %s", a, again_arg, err.msg);
    FUZZ_CHECK(config_diff(c, &again) < 0, "--set %s reads back from '%s' as another value", a, again_arg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sim_config_t c;
    config_defaults(&c);
    char *buf = malloc(size + 1);
    FUZZ_CHECK(buf != NULL, "out of memory");
    memcpy(buf, data, size);
    buf[size] = '\0';
    for (char *p = buf; p <= buf + size;) {
        char *end = p;
        while (end < buf + size && *end != '\n' && *end != '\0')
            end++;
        *end = '\0';
        one(&c, p);
        p = end + 1;
    }
    config_err_t err = {{0}};
    if (config_validate(&c, &err))
        FUZZ_CHECK(fuzz_one_line(err.msg), "message '%s'", err.msg);
    free(buf);
    return 0;
}
