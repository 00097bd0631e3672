/* The CSR maps and the directory's encodings, C and RTL read from one file (rtl/include/csrs.toml),
 * and the message flags (rtl/include/messages.toml):
 * - every constant of the generated csr_pkg (addresses, fields, named values), shown by the
 *   Verilated harness tb/hdl/csr_defs_tb.sv, equals csr_defs.h's constant of the same meaning;
 * - msg_pkg's flags equal msg_defs.h's;
 * - a few values the drivers and the RTL's own checks rely on;
 * - docs/csrs.md is what the generator writes today;
 * - the generator refuses a malformed definition with one line `file:line: key: what`, status 2. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "csr_defs.h"
#include "drv/dir_defs.h"
#include "msg_defs.h"
#include "vw_csr_defs_tb.h"

static const unsigned c_values[CSR_ALL_N] = CSR_ALL_VALUES;
static const char *const c_names[CSR_ALL_N] = CSR_ALL_NAMES;

Test(csr, rtl_package_matches_c_header_constant_by_constant)
{
    vw_csr_defs_tb *m = vw_csr_defs_tb_create(1000, 1);
    vw_csr_defs_tb_in in = {.rst_ni = 1};
    vw_csr_defs_tb_out out;
    vw_csr_defs_tb_set(m, &in);
    vw_csr_defs_tb_get(m, &out);
    _Static_assert(sizeof out.all_o == CSR_ALL_N * sizeof(uint32_t), "one 32-bit word per constant");
    for (unsigned i = 0; i < CSR_ALL_N; i++)
        cr_assert_eq(out.all_o[i], c_values[i], "%s: RTL 0x%x, C 0x%x", c_names[i], out.all_o[i], c_values[i]);
    const unsigned flags[4] = {MSG_FLAG_LAST, MSG_FLAG_END, MSG_FLAG_BUF, MSG_FLAG_WR_IN_FLIGHT};
    const unsigned bits[4] = {MSG_FLAG_LAST_BIT, MSG_FLAG_END_BIT, MSG_FLAG_BUF_BIT, MSG_FLAG_WR_IN_FLIGHT_BIT};
    const char *const names[4] = {"LAST", "END", "BUF", "WR_IN_FLIGHT"};
    for (unsigned i = 0; i < 4; i++) {
        cr_assert_eq(out.flags_o >> (i * MSG_FLAGS_W) & ((1u << MSG_FLAGS_W) - 1u), flags[i], "flag %s", names[i]);
        cr_assert_eq(out.flag_bits_o >> (i * 8) & 0xffu, bits[i], "flag %s's bit", names[i]);
        cr_assert_eq(flags[i], 1u << bits[i], "flag %s", names[i]);
    }
    vw_csr_defs_tb_free(m);
}

/* Values the C side and the RTL's elaboration checks assume of the map (each RTL block stops
 * elaboration if its own assumption breaks; these say which one, from C). */
Test(csr, the_map_keeps_what_its_users_assume)
{
    cr_assert_eq(SW_CSR_ROUTE(5), 5u, "ROUTE[n] at address n (cxl_switch decodes the node from the address)");
    cr_assert_eq(SW_CSR_ROUTE_NODE_N, 1u << MSG_NODE_ID_W, "a route per node id");
    cr_assert_eq(SW_CSR_PERF(1, 2, 3) - SW_CSR_PERF_BASE, (1u << 6) | (2u << 2) | 3u, "sw_perf's address bits");
    cr_assert_geq(SW_CSR_PERF_CLS_N, MSG_NUM_CLASSES);
    cr_assert_eq(SW_CSR_DETECT_TIME_CN_N, MSG_MAX_CN);
    cr_assert_eq(SW_ROUTE_VALID | 7u, 0x80000007u);
    cr_assert_eq(SW_CM_NOW(0x40000300u), 3u);
    cr_assert_eq(LU_CSR_REPLS, 0u, "logging_unit reads counters 0 .. LOG_FULL at their number");
    cr_assert_eq(LU_CSR_LOG_FULL, 11u);
    cr_assert_eq(DIR_CSR_TR(DIR_TR_LNR_Wr), (unsigned)DIR_TR_LNR_Wr, "row r's counter at address r");
    cr_assert_eq(DIR_CSR_TR_TR_N, (unsigned)DIR_TR_NUM);
    cr_assert_eq(DIR_CSR_VIOL_I_N, DIR_VIOL_NUM - 1u, "a counter per violation kind");
    /* dir_ctrl's event e is read at address e below EV_WLINE, at e + 2 from it. */
    cr_assert_eq(DIR_CSR_SNOOPS, (unsigned)DIR_EV_SNP);
    cr_assert_eq(DIR_CSR_VIOL(0), (unsigned)DIR_EV_VIOL);
    cr_assert_eq(DIR_CSR_MEM_WRITES, (unsigned)DIR_EV_MWR);
    cr_assert_eq(DIR_CSR_WALK_LINES, DIR_EV_WLINE + 2u);
    cr_assert_eq(DIR_CSR_VOIDED, DIR_EV_VOID + 2u);
    cr_assert_eq(DIR_CSR_FAILED, DIR_EV_NUM + 2u);
    cr_assert_str_eq(dir_tr_name(DIR_TR_S_Upg), "S_Upg");
    cr_assert_str_eq(dir_viol_name(DIR_VIOL_NOT_OWNER), "NOT_OWNER");
}

Test(csr, docs_table_matches_the_definition)
{
    char dir[] = "/tmp/csrdocXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[512];
    snprintf(cmd, sizeof cmd, "python3 scripts/gen_csr.py rtl/include/csrs.toml %s %s/csrs.md && cmp -s %s/csrs.md docs/csrs.md",
             dir, dir, dir);
    int rc = system(cmd);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(rc, 0, "docs/csrs.md is stale: run make build/gen/csr_defs.h and commit docs/csrs.md");
}

/* ---- the generator's refusals ---- */

/* A small well-formed definition, %s replaced by the case's lines (at line 8). */
static const char base_def[] = "[blk]\n"                               /* 1 */
                               "prefix = \"BK\"\n"                     /* 2 */
                               "addr_w = 8\n"                          /* 3 */
                               "doc = \"a block\"\n"                   /* 4 */
                               "[[blk.reg]]\n"                         /* 5 */
                               "name = \"A\"\naddr = 0x10\n"           /* 6, 7 */
                               "%s";                                   /* 8 .. */

typedef struct gen_case {
    const char *text; /* appended at line 8 */
    const char *want; /* the message after `file:` */
} gen_case_t;

static void gen_refuses(const gen_case_t *c)
{
    char dir[] = "/tmp/gen_csr_XXXXXX";
    cr_assert(mkdtemp(dir), "mkdtemp");
    char path[600], errf[600], cmd[2000], got[1000], want[1000];
    snprintf(path, sizeof path, "%s/bad.toml", dir);
    snprintf(errf, sizeof errf, "%s/stderr", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, base_def, c->text);
    fclose(f);
    snprintf(cmd, sizeof cmd, "python3 scripts/gen_csr.py %s %s/out %s/out.md > /dev/null 2> %s", path, dir, dir, errf);
    const int rc = system(cmd);
    f = fopen(errf, "r");
    cr_assert(f);
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = '\0';
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "`%s`: exit status %d, want 2", c->text,
              WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
    snprintf(want, sizeof want, "%s:%s", path, c->want);
    cr_assert(strncmp(got, want, strlen(want)) == 0, "`%s`:\n  got:  %s  want: %s", c->text, got, want);
    cr_assert_eq(strchr(got, '\n'), got + strlen(got) - 1, "one line of message, got:\n%s", got);
}

Test(csr, generator_refuses_bad_definitions_with_file_line_and_key, .timeout = 60)
{
    static const gen_case_t cases[] = {
        {"access = \"R\"\ndoc = \"x\"\nbad toml here\n", "10: toml: "},
        {"access = \"R\"\ndoc = \"x\"\n[[blk.reg]]\nname = \"B\"\naddr = 0x10\naccess = \"R\"\ndoc = \"y\"\n",
         "12: blk.B.addr: address 0x10 is also A's"},
        {"access = \"R\"\ndoc = \"x\"\n[[blk.reg]]\nname = \"B\"\naddr = 0x0E\naccess = \"R\"\ndoc = \"y\"\n"
         "index = [{ name = \"i\", count = 4, stride = 1 }]\n",
         "12: blk.B.addr: address 0x10 is also A's"},
        {"access = \"R\"\ndoc = \"x\"\nfields = [\n  { name = \"F\", lsb = 0, width = 4, doc = \"f\" },\n"
         "  { name = \"G\", lsb = 3, width = 2, doc = \"g\" },\n]\n",
         "12: blk.A.fields.G: bit 3 is also field F's"},
        {"access = \"R\"\ndoc = \"x\"\nfields = [{ name = \"F\", lsb = 30, width = 4, doc = \"f\" }]\n",
         "10: blk.A.fields.F.lsb: bits 30 + 4 do not fit the 32-bit register"},
        {"access = \"RX\"\ndoc = \"x\"\n", "8: blk.A.access: 'RX': expected one of R, W, RW, RW1C"},
        {"access = \"R\"\ndoc = \"x\"\nadress = 3\n", "10: blk.A.adress: unknown key"},
        {"access = \"R\"\ndoc = \"x\"\n[[blk.reg]]\nname = \"A\"\naddr = 0x11\naccess = \"R\"\ndoc = \"y\"\n",
         "12: blk.A.addr: name BK_CSR_A is defined twice"},
        {"access = \"R\"\ndoc = \"x\"\n[[blk.enum]]\nname = \"e\"\nsv_prefix = \"E_\"\nc_prefix = \"BK_E_\"\nwidth = 1\n"
         "values = [{ name = \"X\" }, { name = \"Y\" }, { name = \"Z\" }]\n",
         "15: blk.e.values.Z.value: 2 does not fit 1 bits"},
        {"doc = \"x\"\n", "5: blk.A.access: missing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        gen_refuses(&cases[i]);
}
