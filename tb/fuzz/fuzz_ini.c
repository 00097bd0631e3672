/* libFuzzer harness of the INI configuration parser (csim/base/config.c: config_load_stream, then
 * config_validate): the input is the text of a configuration file.
 *
 * Invariants checked on every input:
 *  - a failed load leaves the configuration untouched (all-or-nothing) and reports one line that
 *    starts with the file's name;
 *  - a load that succeeded dumps (config_write_ini) to a text that loads back, over the defaults,
 *    to identical values: every value the parser accepts can be written and read again;
 *  - the same text loaded again on top, as a second file, is accepted and changes no value (a key
 *    may appear once per file, and a later file overrides an earlier one);
 *  - config_validate's message, when it refuses the configuration, is one line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sim_config_t c, before, again; /* static: 50 KB each, not on libFuzzer's stack */
    config_err_t err = {{0}};
    config_defaults(&c);
    before = c;
    FILE *f = fmemopen((void *)(uintptr_t)data, size, "r");
    FUZZ_CHECK(f != NULL, "fmemopen failed");
    int rc = config_load_stream(&c, f, "fuzz.ini", &err);
    fclose(f);
    if (rc) {
        FUZZ_CHECK(fuzz_one_line(err.msg), "message '%s'", err.msg);
        FUZZ_CHECK(strncmp(err.msg, "fuzz.ini:", 9) == 0, "message '%s'", err.msg);
        FUZZ_CHECK(memcmp(&c, &before, sizeof c) == 0, "a failed load changed the configuration: %s", err.msg);
        return 0;
    }
    if (config_validate(&c, &err))
        FUZZ_CHECK(fuzz_one_line(err.msg), "message '%s'", err.msg);

    /* The same text again, as a second file. */
    again = c;
    f = fmemopen((void *)(uintptr_t)data, size, "r");
    FUZZ_CHECK(f != NULL, "fmemopen failed");
    rc = config_load_stream(&again, f, "second.ini", &err);
    fclose(f);
    FUZZ_CHECK(rc == 0, "accepted as the first file, refused as the second: %s", err.msg);
    FUZZ_CHECK(config_diff(&c, &again) < 0, "loaded twice, a value changed");

    /* The effective configuration, written and read back. */
    char *text = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&text, &len);
    FUZZ_CHECK(w != NULL, "open_memstream failed");
    FUZZ_CHECK(config_write_ini(&c, w) == 0, "config_write_ini failed");
    fclose(w);
    config_defaults(&again);
    FILE *r = fmemopen(text, len, "r");
    FUZZ_CHECK(r != NULL, "fmemopen failed");
    rc = config_load_stream(&again, r, "dump.ini", &err);
    fclose(r);
    FUZZ_CHECK(rc == 0, "the dump of an accepted configuration does not load: %s\n%s", err.msg, text);
    int k = config_diff(&c, &again);
    char name[64] = "", v1[128] = "", v2[128] = "";
    if (k >= 0) {
        config_key_name((size_t)k, name, sizeof name);
        config_value_str(&c, name, v1, sizeof v1);
        config_value_str(&again, name, v2, sizeof v2);
    }
    FUZZ_CHECK(k < 0, "%s = %s read back from its dump as %s", name, v1, v2);
    free(text);
    return 0;
}
