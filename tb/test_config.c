/* Tests of csim/base/config: the INI configuration, --set overrides, cross-key checks, the effective
 * config dump and the generated sim_configs/README.md. Run from the repository root. */
#include <criterion/criterion.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/rng.h"
#include "msg_defs.h"
#include "tb_seed.h"

/* ---------------------------------------------------------------------------------------------
 * Helpers: one temporary directory per test (Criterion forks per test). */

typedef struct tmpdir {
    char dir[64];
    char path[128]; /* the INI file inside it */
} tmpdir_t;

static void tmp_open(tmpdir_t *t)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/test_config_XXXXXX");
    cr_assert_not_null(mkdtemp(t->dir), "mkdtemp: %s", strerror(errno));
    snprintf(t->path, sizeof t->path, "%s/t.ini", t->dir);
}

static void tmp_write(const tmpdir_t *t, const char *text)
{
    FILE *f = fopen(t->path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static void tmp_close(tmpdir_t *t)
{
    unlink(t->path);
    rmdir(t->dir);
}

/* Loads text as an INI file over defaults; returns config_load's status. */
static int load_text(const char *text, sim_config_t *c, config_err_t *e, char *path, size_t n)
{
    tmpdir_t t;
    tmp_open(&t);
    tmp_write(&t, text);
    config_defaults(c);
    memset(e, 0, sizeof *e);
    int rc = config_load(c, t.path, e);
    snprintf(path, n, "%s", t.path);
    tmp_close(&t);
    return rc;
}

/* GIVEN an INI text WHEN loaded THEN it fails with "PATH:" + expected_after_path. */
static void expect_load_error(const char *text, const char *expected_after_path)
{
    sim_config_t c, d;
    config_err_t e;
    char path[128], want[CONFIG_ERR_MAX + 128];
    int rc = load_text(text, &c, &e, path, sizeof path);
    cr_assert_neq(rc, 0, "loading\n%s\nsucceeded, expected %s", text, expected_after_path);
    snprintf(want, sizeof want, "%s:%s", path, expected_after_path);
    cr_assert_str_eq(e.msg, want, "loading\n%s", text);
    config_defaults(&d);
    cr_assert_eq(config_diff(&c, &d), -1, "a failed load changed the config");
}

/* GIVEN assignments applied over small.ini WHEN validated THEN the error is exactly expected. */
static void expect_set_error(const char *assignment, const char *expected)
{
    sim_config_t c;
    config_err_t e = {{0}};
    config_defaults(&c);
    cr_assert_neq(config_set(&c, assignment, &e), 0, "--set %s succeeded", assignment);
    cr_assert_str_eq(e.msg, expected);
}

static void expect_validate_error(const char *const *sets, const char *expected)
{
    sim_config_t c;
    config_err_t e = {{0}};
    config_defaults(&c);
    for (size_t i = 0; sets[i]; i++)
        cr_assert_eq(config_set(&c, sets[i], &e), 0, "--set %s: %s", sets[i], e.msg);
    cr_assert_neq(config_validate(&c, &e), 0, "validated, expected: %s", expected);
    cr_assert_str_eq(e.msg, expected);
}

static char *slurp(FILE *f)
{
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    return s;
}

static char *doc_text(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(config_write_doc(f), 0);
    fclose(f);
    return buf;
}

/* ---------------------------------------------------------------------------------------------
 * Defaults and the shipped files */

Test(config, defaults_equal_table_ii)
{
    sim_config_t c;
    config_err_t e;
    config_defaults(&c);
    cr_assert_eq(c.system.num_cn, 16);
    cr_assert_eq(c.system.num_mn, 16);
    cr_assert_eq(c.system.cores_per_cn, 4);
    cr_assert_eq(c.core.freq_hz, 2400000000ull);
    cr_assert_eq(c.core.lq_size, 128);
    cr_assert_eq(c.core.sq_size, 72);
    cr_assert_eq(c.l1.size_bytes, 48 * 1024);
    cr_assert_eq(c.l1.ways, 12);
    cr_assert_eq(c.l1.latency_cycles, 5);
    cr_assert_eq(c.l2.size_bytes, 512 * 1024);
    cr_assert_eq(c.l2.ways, 8);
    cr_assert_eq(c.l2.latency_cycles, 13);
    cr_assert_eq(c.l3.size_bytes, 8 * 1024 * 1024);
    cr_assert_eq(c.l3.ways, 16);
    cr_assert_eq(c.l3.latency_cycles, 36);
    cr_assert_eq(c.mem.dram_latency_ps, 45000);
    cr_assert_eq(c.lu.freq_hz, 500000000ull);
    cr_assert_eq(c.lu.sram_bytes, 4096);
    cr_assert_eq(c.lu.dram_log_bytes, 18 * 1024 * 1024);
    cr_assert_eq(c.lu.dump_period_ps, 2500000000ull);
    cr_assert_eq(c.lu.nr, 3);
    cr_assert_eq(c.lu.zlib_level, 9);
    cr_assert_eq(c.core.protocol, CFG_PROTO_WB);
    cr_assert_eq(c.fabric.freq_hz, 1000000000ull);
    cr_assert(c.core.coalesce && c.sim.progress);
    cr_assert_eq(config_validate(&c, &e), 0, "defaults do not validate: %s", e.msg);
    char o[64];
    for (size_t i = 0; i < config_num_keys(); i++) {
        char name[64];
        config_key_name(i, name, sizeof name);
        cr_assert_eq(config_origin_str(&c, name, o, sizeof o), 0);
        cr_assert_str_eq(o, "<default>", "%s", name);
    }
}

Test(config, paper_ini_sets_every_key_to_table_ii)
{
    sim_config_t c, d;
    config_err_t e;
    config_defaults(&c);
    config_defaults(&d);
    cr_assert_eq(config_load(&c, "sim_configs/paper.ini", &e), 0, "%s", e.msg);
    cr_assert_eq(config_validate(&c, &e), 0, "%s", e.msg);
    cr_assert_eq(config_diff(&c, &d), -1, "paper.ini differs from the Table II defaults");
    for (size_t i = 0; i < config_num_keys(); i++) {
        char name[64], o[CONFIG_PATH_MAX + 64];
        config_key_name(i, name, sizeof name);
        config_origin_str(&c, name, o, sizeof o);
        cr_assert(strncmp(o, "sim_configs/paper.ini:", 22) == 0, "%s is missing from paper.ini (%s)",
                  name, o);
    }
}

Test(config, small_ini_validates_under_every_protocol)
{
    static const char *const protos[] = {"wb", "wt", "baseline", "parallel", "proactive"};
    for (size_t p = 0; p < 5; p++) {
        sim_config_t c;
        config_err_t e;
        char set[64];
        config_defaults(&c);
        cr_assert_eq(config_load(&c, "sim_configs/small.ini", &e), 0, "%s", e.msg);
        cr_assert_eq(c.system.num_cn, 4);
        cr_assert_eq(c.system.num_mn, 2);
        cr_assert_eq(c.system.cores_per_cn, 2);
        snprintf(set, sizeof set, "core.protocol=%s", protos[p]);
        cr_assert_eq(config_set(&c, set, &e), 0, "%s", e.msg);
        cr_assert_eq(c.core.protocol, (cfg_protocol_e)p);
        cr_assert_str_eq(config_protocol_name(c.core.protocol), protos[p]);
        cr_assert_eq(config_validate(&c, &e), 0, "%s: %s", protos[p], e.msg);
    }
}

Test(config, readme_is_config_write_doc_output)
{
    FILE *f = fopen("sim_configs/README.md", "r");
    cr_assert_not_null(f, "sim_configs/README.md: %s (run the tests from the repository root)",
                       strerror(errno));
    char *have = slurp(f);
    fclose(f);
    char *want = doc_text();
    cr_assert_str_eq(have, want,
                     "sim_configs/README.md is stale: regenerate it from config_write_doc()");
    free(have);
    free(want);
}

Test(config, doc_lists_every_key_with_its_default)
{
    char *doc = doc_text();
    sim_config_t c;
    config_defaults(&c);
    for (size_t i = 0; i < config_num_keys(); i++) {
        char name[64], val[64], row[160], head[64];
        config_key_name(i, name, sizeof name);
        config_value_str(&c, name, val, sizeof val);
        char *dot = strchr(name, '.');
        snprintf(head, sizeof head, "### [%.*s]\n", (int)(dot - name), name);
        const char *sec = strstr(doc, head);
        cr_assert_not_null(sec, "no section for %s", name);
        snprintf(row, sizeof row, "| `%s` | ", dot + 1);
        const char *r = strstr(sec, row);
        cr_assert_not_null(r, "no row for %s", name);
        char def[80];
        snprintf(def, sizeof def, "`%s`", val);
        const char *eol = strchr(r, '\n');
        const char *d = strstr(r, def);
        cr_assert(d && d < eol, "row of %s does not show its default %s", name, def);
    }
    free(doc);
}

/* ---------------------------------------------------------------------------------------------
 * Bad input, one case each */

Test(config, missing_file)
{
    sim_config_t c;
    config_err_t e;
    config_defaults(&c);
    cr_assert_neq(config_load(&c, "/nonexistent/dir/x.ini", &e), 0);
    cr_assert_str_eq(e.msg, "/nonexistent/dir/x.ini: cannot open: No such file or directory");
}

Test(config, unreadable_file)
{
    tmpdir_t t;
    tmp_open(&t);
    sim_config_t c;
    config_err_t e;
    char want[160];
    config_defaults(&c);
    int rc = config_load(&c, t.dir, &e); /* a directory opens but cannot be read */
    tmp_close(&t);
    cr_assert_neq(rc, 0);
    snprintf(want, sizeof want, "%s: cannot read: Is a directory", t.dir);
    cr_assert_str_eq(e.msg, want);
}

Test(config, syntax_error_names_the_line)
{
    expect_load_error("[l1]\n; fine\nsize 32 KiB\n",
                      "3: syntax: expected '[section]', 'key = value' or a comment, got "
                      "'size 32 KiB'");
    expect_load_error("[sim]\nseed = 2\n[l1\n", "3: syntax: section header without ']': '[l1'");
    expect_load_error("[l1] size = 3\n", "1: syntax: text after the section header: '[l1] size = 3'");
}

Test(config, overlong_line)
{
    char text[400];
    int n = snprintf(text, sizeof text, "[sim]\nseed = ");
    memset(text + n, '1', 300);
    strcpy(text + n + 300, "\n");
    sim_config_t c;
    config_err_t e;
    char path[128];
    cr_assert_neq(load_text(text, &c, &e, path, sizeof path), 0);
    cr_assert(strstr(e.msg, ":2: syntax: line longer than ") != NULL, "%s", e.msg);
}

/* Bytes that are not text (a NUL, another control character, DEL) stop the load at their line and
 * column; tabs and CRLF line ends are text. */
Test(config, bytes_that_are_not_text_name_the_line)
{
    static const struct {
        const char *bytes;
        size_t n;
        const char *want; /* after "PATH:" */
    } cases[] = {
        {"[system]\nnum_cn = 4\0\0\n", 22, "2: syntax: byte 0x00 at column 11 is not text"},
        {"[system]\nnum_cn = 4 \x01\n", 22, "2: syntax: byte 0x01 at column 12 is not text"},
        {"[sim]\nseed = 2\n\x7f\n", 17, "3: syntax: byte 0x7f at column 1 is not text"},
        {"\0", 1, "1: syntax: byte 0x00 at column 1 is not text"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tmpdir_t t;
        tmp_open(&t);
        FILE *f = fopen(t.path, "w");
        cr_assert_not_null(f);
        cr_assert_eq(fwrite(cases[i].bytes, 1, cases[i].n, f), cases[i].n);
        fclose(f);
        sim_config_t c, d;
        config_err_t e;
        config_defaults(&c);
        memset(&e, 0, sizeof e);
        cr_assert_neq(config_load(&c, t.path, &e), 0, "case %zu loaded", i);
        char want[CONFIG_ERR_MAX + 128];
        snprintf(want, sizeof want, "%s:%s", t.path, cases[i].want);
        cr_assert_str_eq(e.msg, want, "case %zu", i);
        config_defaults(&d);
        cr_assert_eq(config_diff(&c, &d), -1, "case %zu: a failed load changed the config", i);
        tmp_close(&t);
    }
    sim_config_t c;
    config_err_t e;
    char path[128];
    cr_assert_eq(load_text("[system]\r\nnum_cn\t=\t4\r\n", &c, &e, path, sizeof path), 0, "%s", e.msg);
    cr_assert_eq(c.system.num_cn, 4);
}

Test(config, key_outside_any_section)
{
    expect_load_error("; header comment\nnum_cn = 4\n[system]\n",
                      "2: num_cn: key outside any section (put it under a [section] header)");
}

Test(config, unknown_section_even_when_empty)
{
    expect_load_error("[system]\nnum_cn = 4\n[cache]\n",
                      "3: [cache]: unknown section (known: sim, system, core, l1, l2, l3, mem, "
                      "fabric, lu, recovery, fail, traffic, workload)");
}

Test(config, unknown_key_lists_the_known_ones)
{
    expect_load_error("[l1]\nsize = 32 KiB\nassoc = 4\n",
                      "3: l1.assoc: unknown key in [l1] (known: size, ways, latency)");
}

Test(config, duplicate_key_in_one_file)
{
    expect_load_error("[l1]\nsize = 32 KiB\n[l2]\n[l1]\nsize = 64 KiB\n",
                      "5: l1.size: duplicate key (first set at line 2)");
}

Test(config, indented_line_is_a_key_not_a_continuation)
{
    sim_config_t c;
    config_err_t e;
    char path[128];
    cr_assert_eq(load_text("[l1]\n  size = 32 KiB\n    ways = 8 ; inline comment\n# c\n", &c, &e,
                           path, sizeof path),
                 0, "%s", e.msg);
    cr_assert_eq(c.l1.size_bytes, 32 * 1024);
    cr_assert_eq(c.l1.ways, 8);
}

Test(config, malformed_values)
{
    static const struct {
        const char *sec, *key, *value, *why;
    } cases[] = {
        {"system", "num_cn", "four", "expected an unsigned integer, got 'four'"},
        {"system", "num_cn", "-4", "expected an unsigned integer, got '-4'"},
        {"system", "num_cn", "4 # not a comment", "expected an unsigned integer, got '4 # not a comment'"},
        {"system", "num_cn", "", "missing value"},
        {"sim", "seed", "18446744073709551616", "'18446744073709551616' is too large"},
        {"core", "freq", "2.4 GHzz", "unknown unit 'GHzz' in '2.4 GHzz' (expected one of Hz, kHz, MHz, GHz)"},
        {"core", "freq", "2.4", "'2.4' needs a unit (Hz, kHz, MHz, GHz)"},
        {"core", "freq", "2.4000000001 Hz", "'2.4000000001 Hz' is not a whole number of Hz"},
        {"l1", "size", "48 KiB trailing", "unknown unit 'KiB trailing' in '48 KiB trailing' (sizes take B, KiB, MiB, GiB, TiB; SI units such as KB or MB are not accepted, to avoid ambiguity)"},
        {"l1", "size", "48 KB", "unknown unit 'KB' in '48 KB' (sizes take B, KiB, MiB, GiB, TiB; SI units such as KB or MB are not accepted, to avoid ambiguity)"},
        {"l1", "size", "1.3 KiB", "'1.3 KiB' is not a whole number of bytes"},
        {"l1", "size", "1. KiB", "expected digits after '.' in '1. KiB'"},
        {"mem", "dram_latency", "45", "'45' needs a unit (ps, ns, us, ms, s)"},
        {"mem", "dram_latency", "0.5 ps", "'0.5 ps' is not a whole number of picoseconds"},
        {"mem", "dram_latency", "45 NS", "unknown unit 'NS' in '45 NS' (expected one of ps, ns, us, ms, s)"},
        {"lu", "high_watermark", "0.9x", "expected a real number, got '0.9x'"},
        {"lu", "high_watermark", "nan", "'nan' is not a finite number in range"},
        {"lu", "high_watermark", "1e999", "'1e999' is not a finite number in range"},
        {"sim", "progress", "maybe", "expected true/false, yes/no, on/off or 1/0, got 'maybe'"},
        {"core", "protocol", "diktamo", "expected one of wb, wt, baseline, parallel, proactive, got 'diktamo'"},
        {"lu", "head_reserve", "half", "expected one of per_core, none, got 'half'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256], want[512];
        snprintf(text, sizeof text, "[%s]\n%s = %s\n", cases[i].sec, cases[i].key, cases[i].value);
        snprintf(want, sizeof want, "2: %s.%s: %s", cases[i].sec, cases[i].key, cases[i].why);
        expect_load_error(text, want);
    }
}

Test(config, out_of_range_says_which_range)
{
    expect_load_error("[system]\nnum_cn = 33\n", "2: system.num_cn: 33 is out of range 2 .. 32");
    expect_load_error("[system]\nnum_mn = 0\n", "2: system.num_mn: 0 is out of range 2 .. 32");
    expect_load_error("[lu]\nzlib_level = 10\n", "2: lu.zlib_level: 10 is out of range 0 .. 9");
    expect_load_error("[sim]\nthreads = 3\n", "2: sim.threads: 3 is out of range 1 .. 2");
    expect_load_error("[sim]\nthreads = 0\n", "2: sim.threads: 0 is out of range 1 .. 2");
    expect_load_error("[sim]\nzlib_threads = 65\n", "2: sim.zlib_threads: 65 is out of range 0 .. 64");
    expect_load_error("[lu]\nhigh_watermark = 1.5\n",
                      "2: lu.high_watermark: 1.5 is out of range 0.05 .. 1");
    expect_load_error("[core]\nfreq = 50MHz\n",
                      "2: core.freq: 50 MHz is out of range 100 MHz .. 10 GHz");
    expect_load_error("[lu]\ndump_period = 0.5us\n",
                      "2: lu.dump_period: 500 ns is out of range 1 us .. 10 s");
    expect_load_error("[mem]\ninterleave = 96\n", "2: mem.interleave: 96 B is not a power of two");
    expect_load_error("[system]\nnum_mn = 12\n", "2: system.num_mn: 12 is not a power of two");
    expect_load_error("[mem]\nscr_size = 100 B\n",
                      "2: mem.scr_size: 100 B is not a multiple of the 64 B cache line");
}

Test(config, num_cn_and_num_mn_limits_are_the_message_format_limits)
{
    sim_config_t c;
    config_err_t e;
    char set[64];
    config_defaults(&c);
    snprintf(set, sizeof set, "system.num_cn=%u", MSG_MAX_CN);
    cr_assert_eq(config_set(&c, set, &e), 0, "%s", e.msg);
    snprintf(set, sizeof set, "system.num_mn=%u", MSG_MAX_MN);
    cr_assert_eq(config_set(&c, set, &e), 0, "%s", e.msg);
    snprintf(set, sizeof set, "system.num_cn=%u", MSG_MAX_CN + 1);
    cr_assert_neq(config_set(&c, set, &e), 0);
    snprintf(set, sizeof set, "system.num_mn=%u", MSG_MAX_MN + 1);
    cr_assert_neq(config_set(&c, set, &e), 0);
    snprintf(set, sizeof set, "system.cores_per_cn=%u", (1u << MSG_CORE_ID_W) + 1);
    cr_assert_neq(config_set(&c, set, &e), 0);
    cr_assert_neq(config_set(&c, "system.num_cn=1", &e), 0, "the switch has at least 2 CN ports");
    cr_assert_neq(config_set(&c, "system.num_mn=1", &e), 0, "and at least 2 MN ports");
}

Test(config, failed_load_changes_nothing)
{
    /* expect_load_error checks it too; here with good lines before the bad one and a prior
     * successful load whose origins must survive. */
    tmpdir_t t;
    tmp_open(&t);
    sim_config_t c, before;
    config_err_t e;
    config_defaults(&c);
    cr_assert_eq(config_load(&c, "sim_configs/small.ini", &e), 0, "%s", e.msg);
    before = c;
    tmp_write(&t, "[system]\nnum_cn = 8\n[l1]\nways = 7x\n");
    int rc = config_load(&c, t.path, &e);
    tmp_close(&t);
    cr_assert_neq(rc, 0);
    cr_assert_eq(config_diff(&c, &before), -1);
    char o[CONFIG_PATH_MAX + 32];
    config_origin_str(&c, "system.num_cn", o, sizeof o);
    cr_assert_str_eq(o, "sim_configs/small.ini:9");
    cr_assert_eq(c.num_files, before.num_files);
}

Test(config, load_stream_reads_like_a_file)
{
    /* GIVEN small.ini opened by the caller (what the fuzzing harness tb/fuzz/fuzz_ini.c does with
     * text in memory) WHEN loaded as a stream THEN the values are config_load's, and the origins
     * and messages carry the name given. */
    sim_config_t a, b;
    config_err_t e;
    config_defaults(&a);
    config_defaults(&b);
    cr_assert_eq(config_load(&a, "sim_configs/small.ini", &e), 0, "%s", e.msg);
    FILE *f = fopen("sim_configs/small.ini", "r");
    cr_assert_not_null(f);
    cr_assert_eq(config_load_stream(&b, f, "mem.ini", &e), 0, "%s", e.msg);
    fclose(f);
    cr_assert_eq(config_diff(&a, &b), -1);
    char o[CONFIG_PATH_MAX + 32];
    config_origin_str(&b, "system.num_cn", o, sizeof o);
    cr_assert_str_eq(o, "mem.ini:9");

    static const char bad[] = "[l1]\nways = 7x\n";
    f = fmemopen((void *)bad, sizeof bad - 1, "r");
    cr_assert_not_null(f);
    cr_assert_neq(config_load_stream(&b, f, "mem.ini", &e), 0);
    fclose(f);
    cr_assert_str_eq(e.msg, "mem.ini:2: l1.ways: expected an unsigned integer, got '7x'");
    cr_assert_eq(config_diff(&a, &b), -1);
}

/* ---------------------------------------------------------------------------------------------
 * --set */

Test(config, set_overrides_and_records_its_origin)
{
    sim_config_t c;
    config_err_t e;
    char v[64], o[CONFIG_PATH_MAX + 64];
    config_defaults(&c);
    cr_assert_eq(config_load(&c, "sim_configs/paper.ini", &e), 0, "%s", e.msg);
    cr_assert_eq(config_set(&c, "l1.size=32KiB", &e), 0, "%s", e.msg);
    cr_assert_eq(config_set(&c, " l1.ways = 8 ", &e), 0, "%s", e.msg);
    cr_assert_eq(config_set(&c, "core.freq=3GHz", &e), 0, "%s", e.msg);
    cr_assert_eq(config_set(&c, "core.freq=2.5 GHz", &e), 0, "%s", e.msg); /* later wins */
    cr_assert_eq(c.l1.size_bytes, 32768);
    cr_assert_eq(c.l1.ways, 8);
    cr_assert_eq(c.core.freq_hz, 2500000000ull);
    cr_assert_eq(c.num_sets, 4);
    config_value_str(&c, "l1.size", v, sizeof v);
    cr_assert_str_eq(v, "32 KiB");
    config_origin_str(&c, "l1.size", o, sizeof o);
    cr_assert_str_eq(o, "--set l1.size=32 KiB");
    config_origin_str(&c, "core.freq", o, sizeof o);
    cr_assert_str_eq(o, "--set core.freq=2.5 GHz");
    config_origin_str(&c, "l2.size", o, sizeof o);
    cr_assert_str_eq(o, "sim_configs/paper.ini:34");
    cr_assert_eq(config_validate(&c, &e), 0, "%s", e.msg);
}

Test(config, malformed_set)
{
    expect_set_error("l1.size", "--set l1.size: l1.size: expected section.key=value (no '=')");
    expect_set_error("size=32KiB", "--set size=32KiB: size: expected section.key=value (the key "
                                   "needs its section, as in l1.size)");
    expect_set_error(".size=1", "--set .size=1: .size: expected section.key=value (the key needs "
                                "its section, as in l1.size)");
    expect_set_error("cache.size=1", "--set cache.size=1: cache.size: unknown section [cache] "
                                     "(known: sim, system, core, l1, l2, l3, mem, fabric, lu, "
                                     "recovery, fail, traffic, workload)");
    expect_set_error("l1.assoc=4",
                     "--set l1.assoc=4: l1.assoc: unknown key in [l1] (known: size, ways, latency)");
    expect_set_error("system.num_cn=four",
                     "--set system.num_cn=four: system.num_cn: expected an unsigned integer, got "
                     "'four'");
    expect_set_error("system.num_cn=", "--set system.num_cn=: system.num_cn: missing value");
    expect_set_error("lu.nr=0", "--set lu.nr=0: lu.nr: 0 is out of range 1 .. 32");
}

Test(config, failed_set_changes_nothing)
{
    sim_config_t c, d;
    config_err_t e;
    config_defaults(&c);
    config_defaults(&d);
    cr_assert_neq(config_set(&c, "l1.size=3 parsecs", &e), 0);
    cr_assert_eq(config_diff(&c, &d), -1);
    cr_assert_eq(c.num_sets, 0);
}

/* ---------------------------------------------------------------------------------------------
 * Cross-key checks */

Test(config, replication_factor_larger_than_num_cn)
{
    /* GIVEN 4 CNs from a file and proactive replication to 5 from --set */
    sim_config_t c;
    config_err_t e;
    char path[128], want[512];
    cr_assert_eq(load_text("[system]\nnum_cn = 4\n", &c, &e, path, sizeof path), 0, "%s", e.msg);
    cr_assert_eq(config_set(&c, "core.protocol=proactive", &e), 0);
    cr_assert_eq(config_set(&c, "lu.nr=5", &e), 0);
    /* WHEN validated THEN --set lu.nr is blamed, naming num_cn's line */
    cr_assert_neq(config_validate(&c, &e), 0);
    snprintf(want, sizeof want,
             "--set lu.nr=5: lu.nr: 5 replicas need 5 distinct CNs, but system.num_cn = 4 (%s:2); "
             "core.protocol = proactive (--set core.protocol=proactive)",
             path);
    cr_assert_str_eq(e.msg, want);
    /* AND under wb, which does not replicate, the same numbers are fine */
    cr_assert_eq(config_set(&c, "core.protocol=wb", &e), 0);
    cr_assert_eq(config_validate(&c, &e), 0, "%s", e.msg);
}

Test(config, replication_blames_the_explicit_key)
{
    /* GIVEN num_cn = 2 from a file and nr left at its default 3 WHEN validated THEN num_cn's
     * line is blamed (the default is not what the user wrote). */
    sim_config_t c;
    config_err_t e;
    char path[128], want[512];
    cr_assert_eq(load_text("[core]\nprotocol = baseline\n[system]\nnum_cn = 2\n", &c, &e, path,
                           sizeof path),
                 0, "%s", e.msg);
    cr_assert_neq(config_validate(&c, &e), 0);
    snprintf(want, sizeof want,
             "%s:4: system.num_cn: 3 replicas need 3 distinct CNs, but system.num_cn = 2 (%s:4); "
             "core.protocol = baseline (%s:2)",
             path, path, path);
    cr_assert_str_eq(e.msg, want);
}

Test(config, threads_above_the_cores)
{
    /* GIVEN 4 CNs of 2 cores WHEN 9 threads are asked for THEN the thread count is blamed */
    expect_validate_error((const char *const[]){"system.num_cn=4", "system.cores_per_cn=2", "workload.threads=9", NULL},
                          "--set workload.threads=9: workload.threads: 9 threads need as many cores, but "
                          "system.num_cn = 4 (--set system.num_cn=4), system.cores_per_cn = 2 (--set "
                          "system.cores_per_cn=2)");
    /* AND 8 threads fit */
    sim_config_t c;
    config_err_t e;
    config_defaults(&c);
    cr_assert_eq(config_set(&c, "system.num_cn=4", &e), 0);
    cr_assert_eq(config_set(&c, "system.cores_per_cn=2", &e), 0);
    cr_assert_eq(config_set(&c, "workload.threads=8", &e), 0);
    cr_assert_eq(config_validate(&c, &e), 0, "%s", e.msg);
}

Test(config, coherent_region_beyond_remote_memory)
{
    expect_validate_error((const char *const[]){"system.num_mn=2", "mem.mn_size=4MiB", "mem.scr_size=9MiB", NULL},
                          "--set mem.scr_size=9 MiB: mem.scr_size: the coherent region is larger than remote "
                          "memory: mem.scr_size = 9 MiB (--set mem.scr_size=9 MiB), mem.mn_size = 4 MiB (--set "
                          "mem.mn_size=4 MiB), system.num_mn = 2 (--set system.num_mn=2)");
}

Test(config, hcmeta_needs_an_lnr_and_survives_a_failure)
{
    expect_validate_error((const char *const[]){"workload.name=hcmeta", NULL},
                          "--set workload.name=hcmeta: workload.name: hcmeta keeps its objects in the Large "
                          "Non-coherent Region, which mem.scr_size = 0 leaves out (all remote memory coherent): "
                          "workload.name = hcmeta (--set workload.name=hcmeta), mem.scr_size = 0 B (<default>)");
    /* a failure, at a time or after a number of commits, is accepted (its recovery: hcmeta.c) */
    const char *const *fails[] = {(const char *const[]){"fail.at=10us", NULL},
                                  (const char *const[]){"fail.after_commits=500", "fail.random=true", NULL}};
    for (size_t i = 0; i < 2; i++) {
        sim_config_t c;
        config_err_t e;
        config_defaults(&c);
        cr_assert_eq(config_set(&c, "mem.scr_size=1MiB", &e), 0, "%s", e.msg);
        cr_assert_eq(config_set(&c, "workload.name=hcmeta", &e), 0, "%s", e.msg);
        for (const char *const *x = fails[i]; *x; x++)
            cr_assert_eq(config_set(&c, *x, &e), 0, "%s", e.msg);
        cr_assert_eq(config_validate(&c, &e), 0, "%s", e.msg);
    }
}

Test(config, index_operations_are_checked_against_the_workload)
{
    /* an index needs the LNR, has no inserts or deletes, and its gets, read-modify-writes and scans
     * fit in 100 %; hcmeta and megalon have no read-modify-writes or scans; the indexes survive a
     * failure (the configuration takes fail.* with them) */
    expect_validate_error((const char *const[]){"workload.name=sc_btree", NULL},
                          "--set workload.name=sc_btree: workload.name: sc_btree keeps its objects in the Large "
                          "Non-coherent Region, which mem.scr_size = 0 leaves out (all remote memory coherent): "
                          "workload.name = sc_btree (--set workload.name=sc_btree), mem.scr_size = 0 B (<default>)");
    expect_validate_error((const char *const[]){"mem.scr_size=1MiB", "workload.name=sc_btree",
                                                "workload.share_rmw_pct=10", "workload.share_scan_pct=1", NULL},
                          "--set workload.share_rmw_pct=10: workload.share_rmw_pct: the index's gets, "
                          "read-modify-writes and scans exceed 100 %: workload.share_read_pct = 95 (<default>), "
                          "workload.share_rmw_pct = 10 (--set workload.share_rmw_pct=10), workload.share_scan_pct "
                          "= 1 (--set workload.share_scan_pct=1)");
    expect_validate_error((const char *const[]){"mem.scr_size=1MiB", "workload.name=sc_btree",
                                                "workload.share_delete_pct=1", NULL},
                          "--set workload.share_delete_pct=1: workload.share_delete_pct: sc_btree has no such "
                          "operations (its key set is fixed: no inserts or deletes): workload.name = sc_btree (--set "
                          "workload.name=sc_btree), workload.share_delete_pct = 1 (--set "
                          "workload.share_delete_pct=1)");
    expect_validate_error((const char *const[]){"mem.scr_size=1MiB", "workload.name=megalon",
                                                "workload.share_scan_pct=5", NULL},
                          "--set workload.share_scan_pct=5: workload.share_scan_pct: megalon has no such operations "
                          "(no read-modify-writes or scans): workload.name = megalon (--set workload.name=megalon), "
                          "workload.share_scan_pct = 5 (--set workload.share_scan_pct=5)");
    static const char *const survive[] = {"workload.name=sc_btree", "workload.name=sc_art", "workload.name=sc_lsm",
                                          "workload.name=prism"};
    for (unsigned i = 0; i < 4; i++) {
        sim_config_t c;
        config_err_t e;
        config_defaults(&c);
        cr_assert_eq(config_set(&c, "mem.scr_size=1MiB", &e), 0);
        cr_assert_eq(config_set(&c, survive[i], &e), 0);
        cr_assert_eq(config_set(&c, "fail.at=10us", &e), 0);
        cr_assert_eq(config_validate(&c, &e), 0, "%s", e.msg);
    }
    expect_validate_error((const char *const[]){"workload.lsm_table_keys=100", NULL},
                          "--set workload.lsm_table_keys=100: workload.lsm_table_keys: an SSTable's keys fill whole "
                          "lines: workload.lsm_table_keys = 100 (--set workload.lsm_table_keys=100) is not a multiple "
                          "of 8");
    expect_validate_error((const char *const[]){"mem.scr_size=1MiB", "workload.name=prism",
                                                "workload.share_scr_budget=0", NULL},
                          "--set workload.share_scr_budget=0 B: workload.share_scr_budget: prism sizes its memtable "
                          "and manifest by the SCR budget, which is 0: workload.name = prism (--set "
                          "workload.name=prism), workload.share_scr_budget = 0 B (--set workload.share_scr_budget=0 "
                          "B)");
    expect_validate_error((const char *const[]){"mem.scr_size=1MiB", "workload.name=sc_lsm",
                                                "workload.lsm_memtable=64KiB", "workload.lsm_manifest=64KiB", NULL},
                          "--set workload.lsm_memtable=64 KiB: workload.lsm_memtable: the memtable and the manifest "
                          "exceed the SCR budget: workload.lsm_memtable = 64 KiB (--set workload.lsm_memtable=64 "
                          "KiB), workload.lsm_manifest = 64 KiB (--set workload.lsm_manifest=64 KiB), "
                          "workload.share_scr_budget = 100 KiB (<default>)");
    /* and within them, it validates */
    sim_config_t c;
    config_err_t e;
    config_defaults(&c);
    const char *ok[] = {"mem.scr_size=1MiB", "workload.name=sc_btree", "workload.share_read_pct=40",
                        "workload.share_rmw_pct=30", "workload.share_scan_pct=30"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        cr_assert_eq(config_set(&c, ok[i], &e), 0, "%s", e.msg);
    cr_assert_eq(config_validate(&c, &e), 0, "%s", e.msg);
}

Test(config, unknown_workload_name)
{
    sim_config_t c;
    config_err_t e;
    config_defaults(&c);
    cr_assert_neq(config_set(&c, "workload.name=lu_cb", &e), 0);
    cr_assert(strstr(e.msg, "workload.name") && strstr(e.msg, "ocean_cp") && strstr(e.msg, "ycsb"), "%s", e.msg);
    cr_assert_eq(config_set(&c, "workload.name=ycsb", &e), 0, "%s", e.msg);
    cr_assert_eq(c.workload.name, CFG_WL_YCSB);
    cr_assert_str_eq(config_workload_name(c.workload.name), "ycsb");
}

Test(config, cache_geometry)
{
    expect_validate_error((const char *const[]){"l1.size=40KiB", NULL},
                          "--set l1.size=40 KiB: l1.size: l1.size = 40 KiB (--set l1.size=40 KiB) "
                          "and l1.ways = 12 (<default>): the size is not a whole number of 768 B "
                          "sets (ways x 64 B lines)");
    expect_validate_error((const char *const[]){"l1.ways=16", NULL},
                          "--set l1.ways=16: l1.ways: l1.size = 48 KiB (<default>) and l1.ways = "
                          "16 (--set l1.ways=16) give 48 sets, not a power of two (sets are "
                          "indexed by address bits)");
}

Test(config, cache_hierarchy)
{
    expect_validate_error((const char *const[]){"l1.size=1MiB", "l1.ways=16", NULL},
                          "--set l1.size=1 MiB: l1.size: L1 must be smaller than L2: l2.size = "
                          "512 KiB (<default>)");
    expect_validate_error((const char *const[]){"system.cores_per_cn=16", "l2.size=1MiB", NULL},
                          "--set l2.size=1 MiB: l2.size: the inclusive L3 cannot hold the private "
                          "L2s of all cores: l3.size = 8 MiB (<default>), l2.size = 1 MiB (--set "
                          "l2.size=1 MiB), system.cores_per_cn = 16 (--set "
                          "system.cores_per_cn=16)");
    expect_validate_error((const char *const[]){"l2.latency=5", NULL},
                          "--set l2.latency=5: l2.latency: l2 round-trip latency must exceed l1's "
                          "(a miss looks up the level below first): l1.latency = 5 (<default>), "
                          "l2.latency = 5 (--set l2.latency=5)");
    expect_validate_error((const char *const[]){"l2.latency=40", NULL},
                          "--set l2.latency=40: l2.latency: l3 round-trip latency must exceed l2's "
                          "(a miss looks up the level below first): l2.latency = 40 (--set "
                          "l2.latency=40), l3.latency = 36 (<default>)");
}

Test(config, lu_buffer_and_fabric_timing)
{
    expect_validate_error((const char *const[]){"lu.dram_log_bytes=4KiB", NULL},
                          "--set lu.dram_log_bytes=4 KiB: lu.dram_log_bytes: the SRAM buffer does "
                          "not fit below the DRAM log's watermark: lu.dram_log_bytes = 4 KiB "
                          "(--set lu.dram_log_bytes=4 KiB), lu.high_watermark = 0.9 (<default>)");
    expect_validate_error((const char *const[]){"fabric.freq=500MHz", "fabric.link_latency=1ns",
                                                NULL},
                          "--set fabric.link_latency=1 ns: fabric.link_latency: a link takes at "
                          "least one fabric cycle (2000 ps): fabric.link_latency = 1 ns (--set "
                          "fabric.link_latency=1 ns), fabric.freq = 500 MHz (--set "
                          "fabric.freq=500 MHz)");
    expect_validate_error((const char *const[]){"sim.stall_timeout=189ns", NULL},
                          "--set sim.stall_timeout=189 ns: sim.stall_timeout: must exceed one "
                          "remote round trip, 4 x (link_latency + link_jitter) + dram_latency = "
                          "189 ns");
    expect_validate_error((const char *const[]){"fabric.link_jitter=1us", "sim.stall_timeout=4us",
                                                NULL},
                          "--set sim.stall_timeout=4 us: sim.stall_timeout: must exceed one remote "
                          "round trip, 4 x (link_latency + link_jitter) + dram_latency = 4.189 us");
}

/* fabric.link_credits = 0 (the default) derives the credits from the links' round trip; a value
 * set is kept; derived credits beyond the switch's buffers are an error naming the keys. */
Test(config, link_credits_derive_from_the_round_trip)
{
    sim_config_t c;
    config_err_t e = {{0}};
    config_defaults(&c);
    cr_assert_eq(c.fabric.link_credits, 0u, "derived by default");
    cr_assert_eq(config_link_credits(&c), 74u, "1 GHz, 36 ns: ceil(2 x 36 ns / 1 ns) + 2");
    cr_assert_eq(config_set(&c, "fabric.freq=2.4GHz", &e), 0, "%s", e.msg);
    cr_assert_eq(config_link_credits(&c), 175u, "2.4 GHz (417 ps): ceil(72 000 / 417) + 2");
    cr_assert_eq(config_set(&c, "fabric.freq=1GHz", &e), 0, "%s", e.msg);
    cr_assert_eq(config_set(&c, "fabric.link_jitter=10ns", &e), 0, "%s", e.msg);
    cr_assert_eq(config_link_credits(&c), 94u, "jitter counts: ceil(2 x 46 ns / 1 ns) + 2");
    cr_assert_eq(config_set(&c, "fabric.link_credits=4", &e), 0, "%s", e.msg);
    cr_assert_eq(config_link_credits(&c), 4u, "a value set is kept");
    cr_assert_eq(config_validate(&c, &e), 0, "%s", e.msg);
    expect_validate_error((const char *const[]){"fabric.link_latency=70ns", NULL},
                          "--set fabric.link_latency=70 ns: fabric.link_latency: the links' round trip needs 142 "
                          "credits per class to keep a link busy, more than the switch's 128 input buffer entries "
                          "per class: set fabric.link_credits (at most 128): fabric.link_latency = 70 ns (--set "
                          "fabric.link_latency=70 ns), fabric.link_jitter = 0 ps (<default>), fabric.freq = 1 GHz "
                          "(<default>)");
    expect_validate_error((const char *const[]){"fabric.link_jitter=30ns", NULL},
                          "--set fabric.link_jitter=30 ns: fabric.link_jitter: the links' round trip needs 134 "
                          "credits per class to keep a link busy, more than the switch's 128 input buffer entries "
                          "per class: set fabric.link_credits (at most 128): fabric.link_latency = 36 ns "
                          "(<default>), fabric.link_jitter = 30 ns (--set fabric.link_jitter=30 ns), fabric.freq = "
                          "1 GHz (<default>)");
    config_defaults(&c);
    cr_assert_eq(config_set(&c, "fabric.link_latency=70ns", &e), 0, "%s", e.msg);
    cr_assert_eq(config_set(&c, "fabric.link_credits=128", &e), 0, "%s", e.msg);
    cr_assert_eq(config_validate(&c, &e), 0, "WHEN the credits are set THEN the long link is accepted: %s", e.msg);
    expect_set_error("fabric.link_credits=129",
                     "--set fabric.link_credits=129: fabric.link_credits: 129 is out of range 0 .. 128");
}

Test(config, heartbeat_must_be_shorter_than_the_silence_limit)
{
    expect_validate_error((const char *const[]){"fabric.heartbeat=4096", NULL},
                          "--set fabric.heartbeat=4096: fabric.heartbeat: idle live CNs would be "
                          "declared failed: the heartbeat must be non-zero and shorter than the "
                          "silence limit: fabric.heartbeat = 4096 (--set "
                          "fabric.heartbeat=4096), fabric.silence_limit = 4096 "
                          "(<default>)");
    expect_validate_error((const char *const[]){"fabric.heartbeat=0", NULL},
                          "--set fabric.heartbeat=0: fabric.heartbeat: idle live CNs would be "
                          "declared failed: the heartbeat must be non-zero and shorter than the "
                          "silence limit: fabric.heartbeat = 0 (--set "
                          "fabric.heartbeat=0), fabric.silence_limit = 4096 "
                          "(<default>)");
    sim_config_t c;
    config_err_t e = {{0}};
    config_defaults(&c);
    cr_assert_eq(config_set(&c, "fabric.heartbeat=0", &e), 0);
    cr_assert_eq(config_set(&c, "fabric.silence_limit=0", &e), 0);
    cr_assert_eq(config_validate(&c, &e), 0, "no heartbeat is fine with the silence rule off: %s", e.msg);
}

/* ---------------------------------------------------------------------------------------------
 * Effective config dump, value formats */

Test(config, write_ini_round_trips_and_shows_origins)
{
    tmpdir_t t;
    tmp_open(&t);
    sim_config_t c, r;
    config_err_t e;
    config_defaults(&c);
    cr_assert_eq(config_load(&c, "sim_configs/small.ini", &e), 0, "%s", e.msg);
    static const char *const sets[] = {
        "sim.seed=0xffffffffffffffff", "core.freq=2.4GHz",        "sim.end_time=1234.567ns",
        "mem.scr_size=1.5KiB",         "lu.high_watermark=0.123456789012345", "core.coalesce=no",
        "core.protocol=parallel",      "fabric.link_jitter=7ps",  "traffic.load=1e-3",
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        cr_assert_eq(config_set(&c, sets[i], &e), 0, "%s: %s", sets[i], e.msg);

    FILE *f = fopen(t.path, "w");
    cr_assert_not_null(f);
    cr_assert_eq(config_write_ini(&c, f), 0);
    fclose(f);
    f = fopen(t.path, "r");
    char *text = slurp(f);
    fclose(f);

    config_defaults(&r);
    int rc = config_load(&r, t.path, &e);
    tmp_close(&t);
    cr_assert_eq(rc, 0, "%s\n%s", e.msg, text);
    int d = config_diff(&c, &r);
    char name[64];
    cr_assert_eq(d, -1, "%s differs after the round trip\n%s",
                 d >= 0 ? config_key_name((size_t)d, name, sizeof name) : "", text);
    cr_assert_eq(r.sim.seed, UINT64_MAX);
    cr_assert_eq(r.sim.end_time_ps, 1234567);
    cr_assert_eq(r.mem.scr_size_bytes, 1536);
    cr_assert(strstr(text, "\nnum_cn = 4 ; sim_configs/small.ini:9\n"), "%s", text);
    cr_assert(strstr(text, "\nfreq = 2.4 GHz ; --set core.freq=2.4 GHz\n"), "%s", text);
    cr_assert(strstr(text, "\nlq_size = 128 ; <default>\n"), "%s", text);
    cr_assert(strstr(text, "\nend_time = 1234.567 ns ; --set sim.end_time=1234.567 ns\n"), "%s",
              text);
    free(text);
}

Test(config, random_values_round_trip_through_text)
{
    /* Property: any accepted value, formatted by config_value_str and set again, is unchanged. */
    uint64_t seed = tb_seed(11);
    rng_t g;
    rng_init(&g, seed);
    static const char *const keys[] = {"sim.end_time", "mem.dram_latency", "fabric.link_jitter",
                                       "core.freq", "lu.freq", "mem.scr_size", "sim.seed",
                                       "traffic.load"};
    static const char *const units[] = {"ps", "ps", "ps", "Hz", "Hz", "B", "", ""};
    int accepted = 0;
    for (int i = 0; i < 4000; i++) {
        size_t k = rng_below(&g, 8);
        char set[128], v1[64], v2[64];
        if (strcmp(keys[k], "traffic.load") == 0)
            snprintf(set, sizeof set, "%s=%.17g", keys[k], rng_unit(&g));
        else
            snprintf(set, sizeof set, "%s=%" PRIu64 " %s", keys[k],
                     rng_next(&g) >> rng_below(&g, 64), units[k]);
        sim_config_t c, d;
        config_err_t e;
        config_defaults(&c);
        if (config_set(&c, set, &e) != 0)
            continue; /* out of range or not a line multiple: fine */
        accepted++;
        config_value_str(&c, keys[k], v1, sizeof v1);
        snprintf(set, sizeof set, "%s=%s", keys[k], v1);
        config_defaults(&d);
        cr_assert_eq(config_set(&d, set, &e), 0, "seed %" PRIu64 ": %s: %s", seed, set, e.msg);
        config_value_str(&d, keys[k], v2, sizeof v2);
        cr_assert_eq(config_diff(&c, &d), -1, "seed %" PRIu64 ": %s -> %s", seed, v1, v2);
    }
    cr_assert_gt(accepted, 1000, "seed %" PRIu64 ": only %d values in range", seed, accepted);
}

Test(config, value_formats)
{
    static const struct {
        const char *set, *key, *shown;
    } cases[] = {
        {"l3.size=8388608", "l3.size", "8 MiB"},
        {"l3.size=0.5 GiB", "l3.size", "512 MiB"},
        {"mem.scr_size=1600", "mem.scr_size", "1600 B"},
        {"mem.scr_size=0", "mem.scr_size", "0 B"},
        {"lu.dump_period=2500us", "lu.dump_period", "2.5 ms"},
        {"sim.end_time=0.001s", "sim.end_time", "1 ms"},
        {"fabric.link_jitter=0", "fabric.link_jitter", "0 ps"},
        {"core.freq=2400 MHz", "core.freq", "2.4 GHz"},
        {"core.freq=2.345678GHz", "core.freq", "2345.678 MHz"},
        {"sim.seed=0x10", "sim.seed", "16"},
        {"sim.progress=off", "sim.progress", "false"},
        {"sim.progress=1", "sim.progress", "true"},
        {"lu.high_watermark=0.90", "lu.high_watermark", "0.9"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_config_t c;
        config_err_t e;
        char v[64];
        config_defaults(&c);
        cr_assert_eq(config_set(&c, cases[i].set, &e), 0, "%s: %s", cases[i].set, e.msg);
        cr_assert_eq(config_value_str(&c, cases[i].key, v, sizeof v), 0);
        cr_assert_str_eq(v, cases[i].shown, "%s", cases[i].set);
    }
}

Test(config, period_rounds_to_nearest_picosecond)
{
    cr_assert_eq(config_period_ps(2400000000ull), 417); /* 416.67 */
    cr_assert_eq(config_period_ps(1000000000ull), 1000);
    cr_assert_eq(config_period_ps(500000000ull), 2000);
    cr_assert_eq(config_period_ps(3000000000ull), 333); /* 333.33 */
    cr_assert_eq(config_period_ps(1600000000ull), 625);
    cr_assert_eq(config_period_ps(0), 0);
}

Test(config, key_names_and_indices_agree)
{
    cr_assert_gt(config_num_keys(), 30);
    for (size_t i = 0; i < config_num_keys(); i++) {
        char name[64];
        cr_assert_not_null(config_key_name(i, name, sizeof name));
        cr_assert_eq(config_key_index(name), (int)i, "%s", name);
    }
    char name[8];
    cr_assert_null(config_key_name(config_num_keys(), name, sizeof name));
    cr_assert_eq(config_key_index("l1.nope"), -1);
    cr_assert_eq(config_key_index("nodot"), -1);
}
