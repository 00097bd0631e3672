/* The message definition, C and RTL read from one file (rtl/include/messages.toml):
 * - every message type packed in C and unpacked by the RTL's msg_t, field by field, and back, with
 *   the class of every opcode decoded as C does by both forms of msg_pkg's msg_class (the table the
 *   Verilated models use, the case Yosys reads);
 * - every message type sent through the Verilated fabric_top (the CXL switch) from one port to
 *   another and compared bit for bit, with the RTL's class decode (the class of the credit the
 *   input port returned) equal to C's msg_class;
 * - docs/messages.md is what the generator writes today. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "csr_defs.h"
#include "gen/msg_rand.h"
#include "msg_defs.h"
#include "sb/stream_run.h"
#include "tb_seed.h"
#include "vw_fabric_top_c2m2.h"
#include "vw_msg_fields_tb.h"
#include "vw_msg_fields_tb_case.h"

_Static_assert(MSG_NUM_HDR_FIELDS == 9, "a header field was added: extend tb/hdl/msg_fields_tb.sv and this test");

/* A well-formed message of type op: used fields and data random, or all ones. */
static void make_msg(rng_t *r, msg_op_t op, bool all_ones, msg_t *m)
{
    msg_fill_random(r, op, m);
    if (!all_ones)
        return;
    uint32_t used = msg_fields_used(op);
    for (unsigned i = 0; i < MSG_NUM_HDR_FIELDS; i++)
        if (used & (1u << i))
            msg_field_set(m, 1u << i, ~0ull);
    if (msg_data_kind(op) == MSG_DATA_LINE)
        m->mask = 0xff;
    for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
        m->data[w] = msg_data_kind(op) != MSG_DATA_NONE && (m->mask >> w & 1u) ? ~0ull : 0;
}

static uint64_t words_get(const uint32_t *w, unsigned lsb, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)(w[(lsb + i) / 32] >> ((lsb + i) % 32) & 1u) << i;
    return v;
}

Test(msg, every_type_is_well_formed_and_named)
{
    rng_t r;
    rng_init(&r, 1);
    for (unsigned op = 0; op < MSG_NUM_MSGS; op++) {
        msg_t m;
        make_msg(&r, (msg_op_t)op, false, &m);
        cr_assert_null(msg_check(&m), "%s: %s", msg_name(m.opcode), msg_check(&m));
        cr_assert_not_null(msg_name((msg_op_t)op));
        cr_assert_lt(msg_class((msg_op_t)op), MSG_NUM_CLASSES);
        unsigned words = msg_data_kind(m.opcode) == MSG_DATA_NONE ? 0 : (unsigned)__builtin_popcount(m.mask);
        cr_assert_eq(msg_bytes(&m), MSG_HEADER_BYTES + 8 * words, "%s", msg_name(m.opcode));
    }
    cr_assert_null(msg_name((msg_op_t)MSG_NUM_MSGS));
    msg_t bad = {.opcode = OP_VAL, .src = 1, .mask = 1};
    cr_assert_not_null(msg_check(&bad), "VAL uses no mask: msg_check must refuse it");
    msg_t bad2 = {.opcode = OP_REPL, .mask = 1, .data = {0, 5}};
    cr_assert_not_null(msg_check(&bad2), "a data word outside the mask must be refused");
}

Test(msg, c_pack_unpack_round_trip)
{
    const uint64_t seed = tb_seed(11);
    rng_t r;
    rng_init_named(&r, seed, "msg.roundtrip");
    for (unsigned it = 0; it < 2000; it++) {
        msg_t a, b;
        make_msg(&r, (msg_op_t)(it % MSG_NUM_MSGS), it < MSG_NUM_MSGS, &a);
        uint32_t flit[MSG_FLIT_WORDS];
        msg_pack(&a, flit);
        msg_unpack(flit, &b);
        cr_assert(msg_equal(&a, &b), "seed=%llu it=%u %s differs after pack+unpack", (unsigned long long)seed, it,
                  msg_name(a.opcode));
        cr_assert_eq(words_get(flit, MSG_FIELD_RSVD_LSB, MSG_FIELD_RSVD_W), 0, "reserved bits must stay zero");
    }
}

/* C packs, the RTL's msg_t unpacks: every field equal; the RTL repacks: every bit equal. */
/* The field harness with msg_pkg's class decode in each of its two forms: the table the Verilated
 * models use, and the case Yosys reads (MSG_CLASS_CASE). */
STREAM_OPS(FIELDS, vw_msg_fields_tb);
STREAM_OPS(FIELDS_CASE, vw_msg_fields_tb_case);
_Static_assert(sizeof(vw_msg_fields_tb_in) == sizeof(vw_msg_fields_tb_case_in) &&
                   sizeof(vw_msg_fields_tb_out) == sizeof(vw_msg_fields_tb_case_out),
               "msg_fields_tb and msg_fields_tb_case differ in their ports");

static void fields_match(const stream_ops_t *ops, const char *form)
{
    const uint64_t seed = tb_seed(12);
    rng_t r;
    rng_init_named(&r, seed, "msg.fields");
    void *m = ops->create(1000, seed);
    vw_msg_fields_tb_in in = {.rst_ni = 1};
    vw_msg_fields_tb_out out;
    for (unsigned it = 0; it < 3 * MSG_NUM_MSGS; it++) {
        msg_t a;
        make_msg(&r, (msg_op_t)(it % MSG_NUM_MSGS), it < MSG_NUM_MSGS, &a);
        msg_pack(&a, in.flit_i);
        ops->set(m, &in);
        ops->get(m, &out);
        const char *n = msg_name(a.opcode);
        cr_assert_eq(out.rsvd_o, 0, "seed=%llu %s rsvd", (unsigned long long)seed, n);
        cr_assert_eq(out.opcode_o, a.opcode, "seed=%llu %s opcode", (unsigned long long)seed, n);
        cr_assert_eq(out.src_o, a.src, "seed=%llu %s src", (unsigned long long)seed, n);
        cr_assert_eq(out.dst_o, a.dst, "seed=%llu %s dst", (unsigned long long)seed, n);
        cr_assert_eq(out.core_o, a.core, "seed=%llu %s core", (unsigned long long)seed, n);
        cr_assert_eq(out.subject_o, a.subject, "seed=%llu %s subject", (unsigned long long)seed, n);
        cr_assert_eq(out.tag_o, a.tag, "seed=%llu %s tag", (unsigned long long)seed, n);
        cr_assert_eq(out.flags_o, a.flags, "seed=%llu %s flags", (unsigned long long)seed, n);
        cr_assert_eq(words_get(out.addr_o, 0, MSG_LINE_ADDR_W), a.addr, "seed=%llu %s addr", (unsigned long long)seed, n);
        cr_assert_eq(out.mask_o, a.mask, "seed=%llu %s mask", (unsigned long long)seed, n);
        cr_assert_eq(out.ts_o, a.ts, "seed=%llu %s ts", (unsigned long long)seed, n);
        for (unsigned w = 0; w < MSG_WORDS_PER_LINE; w++)
            cr_assert_eq(words_get(out.data_o, w * MSG_WORD_W, MSG_WORD_W), a.data[w], "seed=%llu %s data word %u",
                         (unsigned long long)seed, n, w);
        cr_assert_eq(out.class_o, msg_class(a.opcode), "%s (%s form): RTL class %u, C class %u", n, form,
                     out.class_o, msg_class(a.opcode));
        cr_assert_eq(out.has_data_o, msg_data_kind(a.opcode) != MSG_DATA_NONE, "%s has_data", n);
        cr_assert_eq(out.op_valid_o, 1, "%s op_valid", n);
        cr_assert(!memcmp(out.repacked_o, in.flit_i, sizeof in.flit_i), "seed=%llu %s: RTL repack differs",
                  (unsigned long long)seed, n);
    }
    /* Undefined opcodes (every one the field can hold) are recognized as such by the RTL, and their
     * class is C's (the first class): the RTL decodes the class of any opcode, a malformed message
     * included. */
    for (unsigned op = MSG_NUM_MSGS; op < 1u << MSG_OPCODE_W; op++) {
        msg_t undef = {.opcode = (msg_op_t)op};
        msg_pack(&undef, in.flit_i);
        ops->set(m, &in);
        ops->get(m, &out);
        cr_assert_eq(out.opcode_o, op);
        cr_assert_eq(out.op_valid_o, 0, "opcode %u is not defined", op);
        cr_assert_eq(out.class_o, msg_class((msg_op_t)op), "opcode %u (%s form): RTL class %u, C class %u", op,
                     form, out.class_o, msg_class((msg_op_t)op));
        cr_assert_eq(out.has_data_o, 0, "opcode %u has no data", op);
    }
    ops->free(m);
}

Test(msg, rtl_struct_matches_c_layout_field_by_field) { fields_match(&FIELDS, "table"); }

Test(msg, rtl_class_case_form_matches_c) { fields_match(&FIELDS_CASE, "case"); }

/* ---- through the Verilated fabric_top (2 CN + 2 MN ports, switched) ---- */

#define NPORTS 4u

typedef struct loop {
    vw_fabric_top_c2m2 *m;
    vw_fabric_top_c2m2_in in;
    vw_fabric_top_c2m2_out out;
    uint64_t cycle;
    unsigned credits[NPORTS][MSG_NUM_CLASSES]; /* ingress credits returned by the RTL */
    unsigned crd_seen[NPORTS][MSG_NUM_CLASSES];
} loop_t;

static unsigned bit(const uint32_t *v, unsigned i) { return v[i / 32] >> (i % 32) & 1u; }

static void loop_tick(loop_t *l)
{
    vw_fabric_top_c2m2_set(l->m, &l->in);
    vw_fabric_top_c2m2_tick(l->m, l->cycle++);
    vw_fabric_top_c2m2_get(l->m, &l->out);
    for (unsigned p = 0; p < NPORTS; p++)
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            if (bit(l->out.rx_crd_o, p * MSG_NUM_CLASSES + c)) {
                l->credits[p][c]++;
                l->crd_seen[p][c]++;
            }
}

static unsigned port_node(unsigned p) { return p < 2 ? p : MSG_MN_BASE + p - 2; }

static void loop_init(loop_t *l, uint64_t seed)
{
    memset(l, 0, sizeof *l);
    l->m = vw_fabric_top_c2m2_create(1000, seed);
    l->cycle = vw_fabric_top_c2m2_reset(l->m, 0, 3);
    l->in.rst_ni = 1;
    /* Route every node to its port, make the inputs advertise 4 credits per class, then start the
     * ports. */
    for (unsigned p = 0; p <= NPORTS + 1; p++) {
        l->in.csr_valid_i = 1;
        l->in.csr_write_i = 1;
        l->in.csr_addr_i = p < NPORTS ? SW_CSR_ROUTE(port_node(p)) : p == NPORTS ? SW_CSR_CRD_ADV : SW_CSR_CTRL;
        l->in.csr_wdata_i = p < NPORTS ? SW_ROUTE_VALID | p : p == NPORTS ? 4u : SW_CTRL_ENABLE;
        loop_tick(l);
        cr_assert(l->out.csr_rvalid_o && !l->out.csr_err_o, "initialization CSR write %u accepted", p);
    }
    l->in.csr_valid_i = 0;
    /* Grant the RTL one egress credit per class per port (our receive buffer). */
    for (unsigned i = 0; i < NPORTS * MSG_NUM_CLASSES; i++)
        l->in.tx_crd_i[i / 32] |= 1u << (i % 32);
    loop_tick(l);
    memset(l->in.tx_crd_i, 0, sizeof l->in.tx_crd_i);
    for (unsigned i = 0; i < 8; i++)
        loop_tick(l);
}

Test(msg, rtl_returns_its_credits_after_reset)
{
    loop_t l;
    loop_init(&l, 3);
    for (unsigned p = 0; p < NPORTS; p++)
        for (unsigned c = 0; c < MSG_NUM_CLASSES; c++)
            cr_assert_eq(l.credits[p][c], 4, "port %u class %s: %u credits after ENABLE, expected CRD_ADV = 4", p,
                         msg_class_name((msg_class_t)c), l.credits[p][c]);
    cr_assert_eq(l.out.idle_o, 1, "fabric idle after its credits went out");
    vw_fabric_top_c2m2_free(l.m);
}

Test(msg, every_type_crosses_the_rtl_switch_bit_for_bit)
{
    const uint64_t seed = tb_seed(13);
    rng_t r;
    rng_init_named(&r, seed, "msg.switch");
    loop_t l;
    loop_init(&l, seed);
    for (unsigned it = 0; it < 4 * MSG_NUM_MSGS; it++) {
        const unsigned p = it % NPORTS, q = (it / NPORTS + p + 1) % NPORTS; /* from port p to port q */
        msg_t a, b;
        make_msg(&r, (msg_op_t)(it % MSG_NUM_MSGS), it < MSG_NUM_MSGS, &a);
        a.dst = (uint8_t)port_node(q);
        const msg_class_t c = msg_class(a.opcode);
        cr_assert_gt(l.credits[p][c], 0, "no ingress credit");
        l.credits[p][c]--;
        memset(l.crd_seen, 0, sizeof l.crd_seen);
        uint32_t flit[MSG_FLIT_WORDS];
        msg_pack(&a, flit);
        memcpy(&l.in.rx_msg_i[p * MSG_FLIT_WORDS], flit, sizeof flit);
        l.in.rx_valid_i = 1u << p;
        loop_tick(&l);
        l.in.rx_valid_i = 0;
        unsigned waited = 0;
        while (!bit(&l.out.tx_valid_o, q)) {
            cr_assert_lt(waited++, 20, "seed=%llu %s did not reach port %u", (unsigned long long)seed,
                         msg_name(a.opcode), q);
            loop_tick(&l);
        }
        cr_assert_eq(l.out.tx_valid_o, 1u << q, "only port %u may send", q);
        cr_assert(!memcmp(&l.out.tx_msg_o[q * MSG_FLIT_WORDS], flit, sizeof flit),
                  "seed=%llu %s changed in the RTL switch", (unsigned long long)seed, msg_name(a.opcode));
        msg_unpack(&l.out.tx_msg_o[q * MSG_FLIT_WORDS], &b);
        cr_assert(msg_equal(&a, &b), "seed=%llu %s differs after unpack", (unsigned long long)seed,
                  msg_name(a.opcode));
        /* Give the egress credit back, and see which class the input port returned a credit of. */
        l.in.tx_crd_i[(q * MSG_NUM_CLASSES + c) / 32] |= 1u << ((q * MSG_NUM_CLASSES + c) % 32);
        loop_tick(&l);
        memset(l.in.tx_crd_i, 0, sizeof l.in.tx_crd_i);
        loop_tick(&l);
        for (unsigned cc = 0; cc < MSG_NUM_CLASSES; cc++)
            cr_assert_eq(l.crd_seen[p][cc], cc == c, "%s: RTL returned a credit of class %s, C's class is %s",
                         msg_name(a.opcode), msg_class_name((msg_class_t)cc), msg_class_name(c));
    }
    cr_assert_eq(l.out.idle_o, 1);
    vw_fabric_top_c2m2_free(l.m);
}

Test(msg, docs_table_matches_the_definition)
{
    char dir[] = "/tmp/msgdocXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[512];
    snprintf(cmd, sizeof cmd, "python3 scripts/gen_msg.py rtl/include/messages.toml %s %s/messages.md && cmp -s %s/messages.md docs/messages.md",
             dir, dir, dir);
    int rc = system(cmd);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(rc, 0, "docs/messages.md is stale: run make build/gen/msg_defs.h and commit docs/messages.md");
}
