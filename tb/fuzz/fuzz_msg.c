/* libFuzzer harness of the message decoder generated from rtl/include/messages.toml by
 * scripts/gen_msg.py (build/gen/msg_defs.c): msg_unpack, the check of a decoded message
 * (msg_check), and the encoder msg_pack.
 *
 * The input's first MSG_FLIT_WORDS x 4 bytes are a flit as a link carries it (little-endian 32-bit
 * words, zero-padded when the input is shorter); the bytes after them, when there are any, are a
 * message to encode: its opcode (1 byte), which header fields are stored without truncation (2
 * bytes, bit i for the i-th of hdr_fields), the nine header fields (8 bytes each, little-endian)
 * and the eight data words (8 bytes each); zeros past the input's end.
 *
 * Invariants checked on every input:
 *  - decoding: every field of the decoded message fits its width; encoding it again gives the
 *    flit back, but for its reserved bits, which the encoder clears; a message msg_check accepts
 *    has a name, a class, and a size on the link between the header and the header plus a line;
 *  - encoding: any field values, truncated to their widths by msg_pack, decode to the truncated
 *    values (decode(encode(m)) == m for a message whose fields fit, which msg_check accepts); a
 *    message with a field wider than its field (stored in the struct as it is, not through
 *    msg_field_set, which truncates) is refused by msg_check. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_check.h"
#include "msg_defs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FLIT_BYTES (MSG_FLIT_WORDS * 4u)

static uint64_t mask_of(unsigned w) { return w >= 64u ? ~0ull : (1ull << w) - 1u; }

/* The header fields, each with its width and its value in m. */
static const uint32_t hdr_fields[] = {MSG_F_SRC, MSG_F_DST,  MSG_F_CORE, MSG_F_SUBJECT, MSG_F_TAG,
                                      MSG_F_FLAGS, MSG_F_ADDR, MSG_F_MASK, MSG_F_TS};
#define NUM_HDR (sizeof hdr_fields / sizeof hdr_fields[0])
_Static_assert(NUM_HDR == MSG_NUM_HDR_FIELDS, "every header field is checked");

/* Reads n little-endian bytes at *p (zeros past the end), advancing *p. */
static uint64_t take(const uint8_t **p, const uint8_t *end, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++, (*p)++)
        v |= (uint64_t)(*p < end ? **p : 0) << (8 * i);
    return v;
}

static void decode(const uint8_t *data, size_t size)
{
    uint32_t flit[MSG_FLIT_WORDS], again[MSG_FLIT_WORDS];
    const uint8_t *p = data, *end = data + (size < FLIT_BYTES ? size : FLIT_BYTES);
    for (unsigned i = 0; i < MSG_FLIT_WORDS; i++)
        flit[i] = (uint32_t)take(&p, end, 4);
    msg_t m;
    msg_unpack(flit, &m);
    FUZZ_CHECK((unsigned)m.opcode < (1u << MSG_OPCODE_W), "opcode %u", (unsigned)m.opcode);
    for (unsigned i = 0; i < NUM_HDR; i++)
        FUZZ_CHECK((msg_field_get(&m, hdr_fields[i]) & ~mask_of(msg_field_width(hdr_fields[i]))) == 0,
                   "header field %#x is wider than its %u bits", hdr_fields[i], msg_field_width(hdr_fields[i]));
    /* Encoding again: the same flit, reserved bits cleared. */
    msg_pack(&m, again);
    for (unsigned b = 0; b < MSG_FLIT_W; b++) {
        unsigned w = b / 32, s = b % 32;
        unsigned in = flit[w] >> s & 1u, out = again[w] >> s & 1u;
        bool rsvd = b >= MSG_FIELD_RSVD_LSB && b < MSG_FIELD_RSVD_LSB + MSG_FIELD_RSVD_W;
        FUZZ_CHECK(out == (rsvd ? 0u : in), "bit %u of the flit: %u decoded and encoded again as %u", b, in, out);
    }
    msg_t m2;
    msg_unpack(again, &m2);
    FUZZ_CHECK(msg_equal(&m, &m2), "a decoded message encoded and decoded again differs");
    const char *why = msg_check(&m);
    if (why == NULL) {
        FUZZ_CHECK(msg_name(m.opcode) != NULL, "accepted opcode %u has no name", (unsigned)m.opcode);
        FUZZ_CHECK((unsigned)msg_class(m.opcode) < MSG_NUM_CLASSES && msg_class_name(msg_class(m.opcode)) != NULL,
                   "accepted %s has no class", msg_name(m.opcode));
        unsigned bytes = msg_bytes(&m);
        FUZZ_CHECK(bytes >= MSG_HEADER_BYTES && bytes <= MSG_HEADER_BYTES + MSG_LINE_BYTES, "%s of %u bytes",
                   msg_name(m.opcode), bytes);
        for (unsigned i = 0; i < NUM_HDR; i++)
            FUZZ_CHECK((msg_fields_used(m.opcode) & hdr_fields[i]) || msg_field_get(&m, hdr_fields[i]) == 0,
                       "%s accepted with an unused field %#x set", msg_name(m.opcode), hdr_fields[i]);
    } else {
        FUZZ_CHECK(fuzz_one_line(why), "msg_check's reason '%s'", why);
    }
}

/* Stores v in field f of m as the struct's member holds it, without truncating it to the field. */
static void set_raw(msg_t *m, uint32_t f, uint64_t v)
{
    switch (f) {
    case MSG_F_SRC: m->src = (uint8_t)v; break;
    case MSG_F_DST: m->dst = (uint8_t)v; break;
    case MSG_F_CORE: m->core = (uint8_t)v; break;
    case MSG_F_SUBJECT: m->subject = (uint8_t)v; break;
    case MSG_F_TAG: m->tag = (uint16_t)v; break;
    case MSG_F_FLAGS: m->flags = (uint8_t)v; break;
    case MSG_F_ADDR: m->addr = v; break;
    case MSG_F_MASK: m->mask = (uint8_t)v; break;
    case MSG_F_TS: m->ts = (uint8_t)v; break;
    default: FUZZ_CHECK(0, "unknown field %#x", f);
    }
}

static void encode(const uint8_t *p, const uint8_t *end)
{
    msg_t m, back;
    memset(&m, 0, sizeof m);
    uint64_t raw_op = take(&p, end, 1);
    m.opcode = (msg_op_t)raw_op;
    /* Which fields are stored as they are (bit i: hdr_fields[i]); the others through msg_field_set. */
    uint64_t as_is = take(&p, end, 2);
    uint64_t raw[NUM_HDR];
    bool wide = false; /* a field holds more than its width */
    for (unsigned i = 0; i < NUM_HDR; i++) {
        raw[i] = take(&p, end, 8);
        uint64_t fits = raw[i] & mask_of(msg_field_width(hdr_fields[i]));
        if (as_is >> i & 1u) {
            set_raw(&m, hdr_fields[i], raw[i]);
            wide |= msg_field_get(&m, hdr_fields[i]) != fits;
        } else {
            msg_field_set(&m, hdr_fields[i], raw[i]);
            FUZZ_CHECK(msg_field_get(&m, hdr_fields[i]) == fits,
                       "msg_field_set of field %#x does not truncate to its width", hdr_fields[i]);
        }
    }
    for (unsigned i = 0; i < MSG_WORDS_PER_LINE; i++)
        m.data[i] = take(&p, end, 8);
    uint32_t flit[MSG_FLIT_WORDS];
    msg_pack(&m, flit);
    msg_unpack(flit, &back);
    FUZZ_CHECK((uint64_t)back.opcode == (raw_op & mask_of(MSG_OPCODE_W)), "opcode %u decoded as %u",
               (unsigned)raw_op, (unsigned)back.opcode);
    for (unsigned i = 0; i < NUM_HDR; i++)
        FUZZ_CHECK(msg_field_get(&back, hdr_fields[i]) == (raw[i] & mask_of(msg_field_width(hdr_fields[i]))),
                   "field %#x: %#llx encoded and decoded as %#llx", hdr_fields[i], (unsigned long long)raw[i],
                   (unsigned long long)msg_field_get(&back, hdr_fields[i]));
    if ((unsigned)m.opcode < (1u << MSG_OPCODE_W) && !wide)
        FUZZ_CHECK(msg_equal(&m, &back), "decode(encode(m)) != m for %s", msg_name(m.opcode) ? msg_name(m.opcode) : "?");
    if (wide)
        FUZZ_CHECK(msg_check(&m) != NULL, "msg_check accepts a %s with a field wider than its field",
                   msg_name(m.opcode) ? msg_name(m.opcode) : "message");
    if (msg_check(&m) == NULL)
        FUZZ_CHECK(msg_check(&back) == NULL && msg_equal(&m, &back), "a well-formed %s does not survive the link",
                   msg_name(m.opcode));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode(data, size);
    if (size > FLIT_BYTES)
        encode(data + FLIT_BYTES, data + size);
    return 0;
}
