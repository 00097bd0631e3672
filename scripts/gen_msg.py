#!/usr/bin/env python3
"""Generate the RTL package, the C pack/unpack code and the message table from messages.toml.

Usage: gen_msg.py DEF.toml OUTDIR DOC.md

Writes OUTDIR/msg_pkg.sv, OUTDIR/msg_defs.h, OUTDIR/msg_defs.c and DOC.md. A malformed definition
stops with one message naming the file and the entry, exit status 2. Files are written only when
their content changes, so that make does not rebuild what did not change.
"""
import os
import sys
import tomllib

from genutil import die, write_if_changed

WORD = 32  # the flit travels as 32-bit words (Verilator's wide-signal word)


class Def:
    def __init__(self, path):
        self.path = path
        try:
            with open(path, "rb") as f:
                raw = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            die(path, f"cannot read message definition: {e}")
        for key in ("params", "field", "class", "msg"):
            if key not in raw:
                die(path, f"missing [{key}] section")
        self.params = {}
        self.param_doc = {}
        for name, ent in raw["params"].items():
            if not isinstance(ent, dict) or not isinstance(ent.get("value"), int) or ent["value"] <= 0:
                die(path, f"params.{name}: needs a positive integer `value`")
            self.params[name] = ent["value"]
            self.param_doc[name] = ent.get("doc", "")
        for need in ("OPCODE_W", "CLASS_W", "WORDS_PER_LINE", "WORD_W", "NODE_ID_W", "MN_BASE",
                     "MAX_CN", "MAX_MN", "HEADER_BYTES", "LINE_BYTES"):
            if need not in self.params:
                die(path, f"params.{need}: missing")
        p = self.params
        if p["MAX_CN"] > p["MN_BASE"] or p["MN_BASE"] + p["MAX_MN"] > (1 << p["NODE_ID_W"]):
            die(path, "params: MAX_CN, MN_BASE and MAX_MN do not fit in NODE_ID_W bits")
        if p["WORDS_PER_LINE"] * p["WORD_W"] != 8 * p["LINE_BYTES"]:
            die(path, "params: WORDS_PER_LINE * WORD_W must equal 8 * LINE_BYTES")

        self.fields = []
        for i, f in enumerate(raw["field"]):
            name, width = f.get("name"), f.get("width")
            if not name or not width:
                die(path, f"field #{i + 1}: needs `name` and `width`")
            self.fields.append({"name": name, "width_expr": width, "width": self.eval_width(width, name),
                                "doc": f.get("doc", "")})
        names = [f["name"] for f in self.fields]
        for need in ("opcode", "src", "dst", "mask", "data"):
            if need not in names:
                die(path, f"field `{need}`: missing")
        if len(set(names)) != len(names):
            die(path, "field: duplicate names")
        for f in self.fields:
            if f["name"] != "data" and f["width"] > 64:
                die(path, f"field `{f['name']}`: header fields are at most 64 bits")
        hdr_w = sum(f["width"] for f in self.fields)
        self.rsvd_w = (-hdr_w) % WORD
        if self.rsvd_w:
            self.fields.insert(0, {"name": "rsvd", "width_expr": str(self.rsvd_w), "width": self.rsvd_w,
                                   "doc": "reserved, always zero (pads the flit to whole 32-bit words)"})
        self.flit_w = hdr_w + self.rsvd_w
        # Least-significant bit of each field: the last field sits at bit 0.
        lsb = 0
        for f in reversed(self.fields):
            f["lsb"] = lsb
            lsb += f["width"]

        self.classes = []
        for i, c in enumerate(raw["class"]):
            if not c.get("name"):
                die(path, f"class #{i + 1}: needs `name`")
            self.classes.append({"name": c["name"], "id": i, "doc": c.get("doc", ""), "sink": c.get("sink", "")})
        if len(self.classes) > (1 << p["CLASS_W"]):
            die(path, "class: more classes than CLASS_W bits can number")
        cls_by_name = {c["name"]: c for c in self.classes}

        self.msgs = []
        hdr_fields = {f["name"] for f in self.fields} - {"opcode", "data", "rsvd"}
        for i, m in enumerate(raw["msg"]):
            name = m.get("name")
            where = f"msg `{name}`" if name else f"msg #{i + 1}"
            if not name or m.get("class") not in cls_by_name:
                die(path, f"{where}: needs `name` and a `class` from the class list")
            used = m.get("fields", [])
            for u in used:
                if u not in hdr_fields:
                    die(path, f"{where}: unknown field `{u}`")
            data = m.get("data", "none")
            if data not in ("none", "line", "words"):
                die(path, f"{where}: data must be none, line or words")
            if data != "none" and "mask" not in used:
                die(path, f"{where}: a message with data must use `mask`")
            self.msgs.append({"name": name, "opcode": i, "cls": cls_by_name[m["class"]], "fields": used,
                              "data": data, "doc": m.get("doc", "")})
        if len(self.msgs) > (1 << p["OPCODE_W"]):
            die(path, "msg: more messages than OPCODE_W bits can number")
        if len({m["name"] for m in self.msgs}) != len(self.msgs):
            die(path, "msg: duplicate names")

        # Flags: bits of the flags field, per message.
        self.flags = []
        msg_by_name = {m["name"]: m for m in self.msgs}
        taken = {}  # (message, bit) -> flag
        for i, f in enumerate(raw.get("flag", [])):
            name = f.get("name")
            where = f"flag `{name}`" if name else f"flag #{i + 1}"
            bit, msgs = f.get("bit"), f.get("msgs")
            if not name or not isinstance(bit, int) or not isinstance(msgs, list) or not msgs:
                die(path, f"{where}: needs `name`, `bit` and a list `msgs`")
            if not 0 <= bit < self.field("flags")["width"]:
                die(path, f"{where}: bit {bit} is outside the flags field")
            for mn in msgs:
                if mn not in msg_by_name:
                    die(path, f"{where}: unknown message `{mn}`")
                if "flags" not in msg_by_name[mn]["fields"]:
                    die(path, f"{where}: message `{mn}` does not use the flags field")
                if (mn, bit) in taken:
                    die(path, f"{where}: bit {bit} of `{mn}` is also flag `{taken[(mn, bit)]}`")
                taken[(mn, bit)] = name
            self.flags.append({"name": name, "bit": bit, "msgs": msgs, "doc": f.get("doc", "")})
        if len({f["name"] for f in self.flags}) != len(self.flags):
            die(path, "flag: duplicate names")

    def eval_width(self, expr, who):
        total = 1
        for part in expr.split("*"):
            part = part.strip()
            if part.isdigit():
                total *= int(part)
            elif part in self.params:
                total *= self.params[part]
            else:
                die(self.path, f"field `{who}`: width `{expr}` names no parameter")
        return total

    def field(self, name):
        return next(f for f in self.fields if f["name"] == name)


HEADER_NOTE = "Generated by scripts/gen_msg.py from rtl/include/messages.toml. Do not edit."


def gen_sv(d):
    p = d.params
    o = [f"// {HEADER_NOTE}", "", "`default_nettype none", "", "package msg_pkg;", ""]
    for name, val in p.items():
        o.append(f"  /// {d.param_doc[name]}")
        o.append(f"  localparam int unsigned {name} = {val};")
    o += ["  /// bits of a flit (one message)", f"  localparam int unsigned FLIT_W = {d.flit_w};",
          "  /// number of message classes (virtual channels)",
          f"  localparam int unsigned NUM_CLASSES = {len(d.classes)};",
          "  /// number of message types", f"  localparam int unsigned NUM_MSGS = {len(d.msgs)};", ""]
    # Yosys 0.23 cannot resolve enum constants inside package functions: plain typedefs + localparams.
    o += ["  /// a message class (virtual channel) number", "  typedef logic [CLASS_W-1:0] class_t;"]
    o += [f"  localparam class_t CLS_{c['name']} = {p['CLASS_W']}'d{c['id']};" for c in d.classes]
    o += ["", "  /// a message type", "  typedef logic [OPCODE_W-1:0] opcode_t;"]
    o += [f"  localparam opcode_t OP_{m['name']} = {p['OPCODE_W']}'d{m['opcode']};" for m in d.msgs]
    o.append("")
    o.append("  // Flags: bits of the flags field (FLAG_*: the bit set; FLAG_*_BIT: its number).")
    for f in d.flags:
        o.append(f"  /// {', '.join(f['msgs'])}: {f['doc']}")
        o.append(f"  localparam int unsigned FLAG_{f['name']}_BIT = {f['bit']};")
        o.append(f"  localparam logic [FLAGS_W-1:0] FLAG_{f['name']} = {p['FLAGS_W']}'d{1 << f['bit']};")
    o.append("")
    o.append("  // Position of each field in the flit (for code that needs one field of a whole flit).")
    for f in d.fields:
        o.append(f"  localparam int unsigned FIELD_{f['name'].upper()}_LSB = {f['lsb']};")
        o.append(f"  localparam int unsigned FIELD_{f['name'].upper()}_W = {f['width']};")
    o.append("")
    o.append("  typedef struct packed {")
    for f in d.fields:
        if f["name"] == "opcode":
            o.append(f"    opcode_t opcode;  // bits {f['lsb'] + f['width'] - 1}:{f['lsb']}")
        else:
            o.append(f"    logic [{f['width']}-1:0] {f['name']};  // bits {f['lsb'] + f['width'] - 1}:{f['lsb']}")
    o += ["  } msg_t;", ""]
    # Two forms of one table: a case for synthesis (Yosys), a constant array for Verilator, where the
    # case compiles to a tree of bit tests evaluated at every use and the array to one load.
    # MSG_CLASS_CASE gives Verilator the case too (the msg_fields_tb_case model: tb/test_msg.c tests
    # both forms).
    default_cls = "CLS_" + d.classes[0]["name"]
    by_code = [default_cls] * (1 << p["OPCODE_W"])
    for m in d.msgs:
        by_code[m["opcode"]] = "CLS_" + m["cls"]["name"]
    o += ["  /// Virtual channel of a message type (undefined opcodes: " + default_cls + ").",
          "`ifdef VERILATOR", "`ifndef MSG_CLASS_CASE", "`define MSG_PKG_CLASS_TABLE", "`endif", "`endif",
          "`ifdef MSG_PKG_CLASS_TABLE",
          f"  localparam class_t CLASS_OF_OP [{1 << p['OPCODE_W']}] = '{{"]
    for k in range(0, len(by_code), 8):
        o.append("    " + ", ".join(by_code[k:k + 8]) + ("," if k + 8 < len(by_code) else ""))
    o += ["  };", "  function automatic class_t msg_class(opcode_t op);", "    msg_class = CLASS_OF_OP[op];",
          "  endfunction", "`else", "  function automatic class_t msg_class(opcode_t op);", "    case (op)"]
    for m in d.msgs:
        o.append(f"      OP_{m['name']}: msg_class = CLS_{m['cls']['name']};")
    o += ["      default: msg_class = " + default_cls + ";", "    endcase", "  endfunction", "`endif", ""]
    o += ["  /// 1 when the message type carries data words.", "  function automatic logic msg_has_data(opcode_t op);",
          "    case (op)"]
    for m in d.msgs:
        if m["data"] != "none":
            o.append(f"      OP_{m['name']}: msg_has_data = 1'b1;")
    o += ["      default: msg_has_data = 1'b0;", "    endcase", "  endfunction", ""]
    o += ["  /// 1 when the opcode names a defined message type.", "  function automatic logic msg_op_valid(opcode_t op);",
          f"    msg_op_valid = op < {p['OPCODE_W']}'d{len(d.msgs)};", "  endfunction", ""]
    o += ["  /// Bytes a message costs on a link: HEADER_BYTES plus its meaningful data words (msg_bytes in C).",
          "  function automatic logic [7:0] msg_bytes(opcode_t op, logic [FIELD_MASK_W-1:0] mask);",
          "    msg_bytes = 8'(HEADER_BYTES);",
          "    if (msg_has_data(op)) msg_bytes = msg_bytes + 8'($countones(mask) * (WORD_W / 8));",
          "  endfunction", ""]
    o += ["endpackage", "", "`default_nettype wire", ""]
    return "\n".join(o)


def c_type(width):
    for bits, t in ((8, "uint8_t"), (16, "uint16_t"), (32, "uint32_t"), (64, "uint64_t")):
        if width <= bits:
            return t
    raise AssertionError(width)


def gen_h(d):
    p = d.params
    nwords = d.flit_w // WORD
    o = [f"/* {HEADER_NOTE} */", "#ifndef MSG_DEFS_H", "#define MSG_DEFS_H", "", "#include <stdbool.h>",
         "#include <stddef.h>", "#include <stdint.h>", ""]
    for name, val in p.items():
        o.append(f"#define MSG_{name} {val}u /* {d.param_doc[name]} */")
    o += [f"#define MSG_FLIT_W {d.flit_w}u /* bits of a flit */",
          f"#define MSG_FLIT_WORDS {nwords}u /* 32-bit words of a flit */",
          f"#define MSG_NUM_CLASSES {len(d.classes)}u", f"#define MSG_NUM_MSGS {len(d.msgs)}u", ""]
    for f in d.fields:
        o.append(f"#define MSG_FIELD_{f['name'].upper()}_LSB {f['lsb']}u")
        o.append(f"#define MSG_FIELD_{f['name'].upper()}_W {f['width']}u")
    o += ["", "/* Flags: bits of the flags field (MSG_FLAG_*: the bit set; MSG_FLAG_*_BIT: its number). */"]
    for f in d.flags:
        o.append(f"#define MSG_FLAG_{f['name']}_BIT {f['bit']}u /* {', '.join(f['msgs'])}: {f['doc']} */")
        o.append(f"#define MSG_FLAG_{f['name']} (1u << MSG_FLAG_{f['name']}_BIT)")
    o += ["", "/** Message classes: one virtual channel each. */", "typedef enum msg_class {"]
    o += [f"    CLS_{c['name']} = {c['id']}, /* {c['doc']} */" for c in d.classes]
    o += ["} msg_class_t;", "", "/** Message types. */", "typedef enum msg_op {"]
    o += [f"    OP_{m['name']} = {m['opcode']}," for m in d.msgs]
    o += ["} msg_op_t;", "", "/** Header fields a message type may use (bit per field). */", "enum msg_field {"]
    hdr = [f for f in d.fields if f["name"] not in ("opcode", "data", "rsvd")]
    for i, f in enumerate(hdr):
        o.append(f"    MSG_F_{f['name'].upper()} = 1u << {i},")
    o += ["};", "", "/** Data a message type carries. */",
          "typedef enum msg_data_kind { MSG_DATA_NONE, MSG_DATA_LINE, MSG_DATA_WORDS } msg_data_kind_t;", "",
          "/** One message, unpacked. Fields a type does not use are zero. */", "typedef struct msg {"]
    o.append("    msg_op_t opcode;")
    for f in hdr:
        o.append(f"    {c_type(f['width'])} {f['name']}; /* {f['width']} bits: {f['doc']} */")
    o.append(f"    uint64_t data[MSG_WORDS_PER_LINE]; /* {d.field('data')['doc']} */")
    o += ["} msg_t;", "",
          "/** Packs m into flit[MSG_FLIT_WORDS] (word 0 holds bits 31:0). Fields are truncated to width. */",
          "void msg_pack(const msg_t *m, uint32_t *flit);",
          "/** Unpacks flit[MSG_FLIT_WORDS] into m. */", "void msg_unpack(const uint32_t *flit, msg_t *m);",
          "/** Class of each message type (msg_class's table). */",
          "extern const uint8_t msg_class_of[MSG_NUM_MSGS];",
          "/** Virtual channel of a message type (inline: the nodes ask it for every message and credit). */",
          "static inline msg_class_t msg_class(msg_op_t op)", "{",
          "    return (unsigned)op < MSG_NUM_MSGS ? (msg_class_t)msg_class_of[op] : CLS_" + d.classes[0]["name"] + ";",
          "}",
          "/** Name of a message type (\"REPL\"), or NULL for an undefined opcode. */",
          "const char *msg_name(msg_op_t op);", "/** Name of a class (\"REQ\"), or NULL. */",
          "const char *msg_class_name(msg_class_t c);",
          "/** Header fields used by a message type (MSG_F_* bits). */", "uint32_t msg_fields_used(msg_op_t op);",
          "/** Data a message type carries. */", "msg_data_kind_t msg_data_kind(msg_op_t op);",
          "/** Bytes the message costs on a link: MSG_HEADER_BYTES plus its meaningful data words. */",
          "unsigned msg_bytes(const msg_t *m);",
          "/** Width in bits of header field f (one MSG_F_* bit). */", "unsigned msg_field_width(uint32_t f);",
          "/** Value of header field f (one MSG_F_* bit) of m. */", "uint64_t msg_field_get(const msg_t *m, uint32_t f);",
          "/** Sets header field f (one MSG_F_* bit) of m, truncated to the field's width. */",
          "void msg_field_set(msg_t *m, uint32_t f, uint64_t v);",
          "/** NULL when m is well formed: a defined opcode, every value within its field, unused fields and",
          "    words outside the mask zero, mask all ones for line data. Otherwise a static description. */",
          "const char *msg_check(const msg_t *m);",
          "/** True when a and b hold the same opcode, fields and data (padding bytes ignored). */",
          "bool msg_equal(const msg_t *a, const msg_t *b);",
          f"#define MSG_NUM_HDR_FIELDS {len(hdr)}u", "", "#endif", ""]
    return "\n".join(o)


def chunks(lsb, width):
    """The 32-bit pieces of a field at bit lsb, width bits wide: (word, offset in it, bit of the
    value, mask of the piece), low piece first."""
    out, i = [], 0
    while i < width:
        w, off = (lsb + i) // 32, (lsb + i) % 32
        n = min(32 - off, width - i)
        out.append((w, off, i, hex((1 << n) - 1)))
        i += n
    return out


def gen_c(d):
    p = d.params
    hdr = [f for f in d.fields if f["name"] not in ("opcode", "data", "rsvd")]
    o = [f"/* {HEADER_NOTE} */", '#include "msg_defs.h"', "", "#include <string.h>", "",
         "static uint64_t fmask(unsigned w) { return w >= 64u ? ~0ull : (1ull << w) - 1u; }", "",
         "/* Straight-line: every field's words and shifts are constants. */",
         "void msg_pack(const msg_t *m, uint32_t *flit)", "{", "    memset(flit, 0, MSG_FLIT_WORDS * sizeof *flit);"]
    # Every piece of the flit: (bit position, width, the msg_t member, its C type).
    op, data, word_w = d.field("opcode"), d.field("data"), p["WORD_W"]
    pieces = ([(op["lsb"], op["width"], "m->opcode", "msg_op_t")] +
              [(f["lsb"], f["width"], f"m->{f['name']}", c_type(f["width"])) for f in hdr] +
              [(data["lsb"] + i * word_w, word_w, f"m->data[{i}]", "uint64_t") for i in range(p["WORDS_PER_LINE"])])
    for lsb, width, v, _ in pieces:
        o += [f"    flit[{w}] |= (uint32_t)((uint64_t){v} >> {i} & {mask}u) << {off};"
              for w, off, i, mask in chunks(lsb, width)]
    o += ["}", "", "void msg_unpack(const uint32_t *flit, msg_t *m)", "{", "    memset(m, 0, sizeof *m);"]
    for lsb, width, v, t in pieces:
        parts = [f"(uint64_t)(flit[{w}] >> {off} & {mask}u) << {i}" for w, off, i, mask in chunks(lsb, width)]
        o.append(f"    {v} = ({t})({' | '.join(parts)});")
    o += ["}", ""]
    # Per-opcode tables.
    o.append("static const struct { const char *name; uint32_t fields; msg_data_kind_t data; } "
             "msg_table[MSG_NUM_MSGS] = {")
    for m in d.msgs:
        fl = " | ".join(f"MSG_F_{u.upper()}" for u in m["fields"]) or "0"
        o.append(f'    [OP_{m["name"]}] = {{"{m["name"]}", {fl}, MSG_DATA_{m["data"].upper()}}},')
    o += ["};", "", "const uint8_t msg_class_of[MSG_NUM_MSGS] = {"]
    o += [f'    [OP_{m["name"]}] = CLS_{m["cls"]["name"]},' for m in d.msgs]
    o += ["};", "", "static const char *const class_names[MSG_NUM_CLASSES] = {"]
    o += [f'    "{c["name"]}",' for c in d.classes]
    o += ["};", "",
          "const char *msg_name(msg_op_t op) { return (unsigned)op < MSG_NUM_MSGS ? msg_table[op].name : NULL; }",
          "const char *msg_class_name(msg_class_t c) { return (unsigned)c < MSG_NUM_CLASSES ? class_names[c] : NULL; }",
          "uint32_t msg_fields_used(msg_op_t op) { return (unsigned)op < MSG_NUM_MSGS ? msg_table[op].fields : 0; }",
          "msg_data_kind_t msg_data_kind(msg_op_t op) { return (unsigned)op < MSG_NUM_MSGS ? msg_table[op].data : MSG_DATA_NONE; }",
          "", "unsigned msg_bytes(const msg_t *m)", "{",
          "    if (msg_data_kind(m->opcode) == MSG_DATA_NONE)", "        return MSG_HEADER_BYTES;",
          "    return MSG_HEADER_BYTES + (unsigned)__builtin_popcount(m->mask) * (MSG_WORD_W / 8u);", "}", "",
          "unsigned msg_field_width(uint32_t f)", "{", "    switch (f) {"]
    for f in hdr:
        o.append(f"    case MSG_F_{f['name'].upper()}: return MSG_FIELD_{f['name'].upper()}_W;")
    o += ["    default: return 0;", "    }", "}", "", "uint64_t msg_field_get(const msg_t *m, uint32_t f)", "{",
          "    switch (f) {"]
    for f in hdr:
        o.append(f"    case MSG_F_{f['name'].upper()}: return m->{f['name']};")
    o += ["    default: return 0;", "    }", "}", "", "void msg_field_set(msg_t *m, uint32_t f, uint64_t v)", "{",
          "    v &= fmask(msg_field_width(f));", "    switch (f) {"]
    for f in hdr:
        o.append(f"    case MSG_F_{f['name'].upper()}: m->{f['name']} = ({c_type(f['width'])})v; break;")
    # msg_equal and msg_check straight-line too: a field at a time, in field order (the first
    # field that fails names the error), each with its own constant mask.
    o += ["    default: break;", "    }", "}", "", "bool msg_equal(const msg_t *a, const msg_t *b)", "{",
          "    return a->opcode == b->opcode &&"]
    o += [f"           a->{f['name']} == b->{f['name']} &&" for f in hdr]
    o += ["           !memcmp(a->data, b->data, sizeof a->data);", "}", "",
          "const char *msg_check(const msg_t *m)", "{",
          "    if ((unsigned)m->opcode >= MSG_NUM_MSGS)", '        return "undefined opcode";',
          "    uint32_t used = msg_fields_used(m->opcode);"]
    for f in hdr:
        u = f["name"].upper()
        o += [f"    if ((uint64_t)m->{f['name']} & ~fmask(MSG_FIELD_{u}_W))",
              '        return "field value wider than its field";',
              f"    if (!(used & MSG_F_{u}) && m->{f['name']})",
              '        return "a field the message does not use is not zero";']
    o += ["    msg_data_kind_t k = msg_data_kind(m->opcode);",
          "    if (k == MSG_DATA_LINE && m->mask != (1u << MSG_WORDS_PER_LINE) - 1u)",
          '        return "line data needs an all-ones mask";',
          "    for (unsigned i = 0; i < MSG_WORDS_PER_LINE; i++)",
          "        if (m->data[i] && (k == MSG_DATA_NONE || !(m->mask >> i & 1u)))",
          '            return "a data word outside the mask is not zero";', "    return NULL;", "}", ""]
    return "\n".join(o)


def gen_md(d):
    p = d.params
    o = [f"<!-- {HEADER_NOTE} The test suite checks that this file matches. -->", "", "# Messages", "",
         "Every message of the system, as defined in `rtl/include/messages.toml`. The RTL reads it as the package",
         "`msg_pkg` and C as `msg_defs.h`, both generated at build time by `scripts/gen_msg.py`.", "",
         "## Parameters", "", "| name | value | meaning |", "|---|---|---|"]
    o += [f"| `{n}` | {v} | {d.param_doc[n]} |" for n, v in p.items()]
    o += ["", f"## Flit layout ({d.flit_w} bits, {d.flit_w // WORD} words of 32 bits)", "",
          "| field | bits | width | meaning |", "|---|---|---|---|"]
    o += [f"| `{f['name']}` | {f['lsb'] + f['width'] - 1}:{f['lsb']} | {f['width_expr']} = {f['width']} | {f['doc']} |"
          for f in d.fields]
    o += ["", "## Flags (bits of the `flags` field)", "",
          "`FLAG_<name>` in `msg_pkg`, `MSG_FLAG_<name>` in C (the bit set; `_BIT`: its number). A bit means",
          "what the flag says on the messages listed, nothing elsewhere (zero).", "",
          "| bit | flag | messages | meaning |", "|---|---|---|---|"]
    o += [f"| {f['bit']} | {f['name']} | {', '.join(f['msgs'])} | {f['doc']} |" for f in sorted(d.flags, key=lambda f: f['bit'])]
    o += ["", "## Classes (virtual channels)", "", "| id | class | carries | why its receiver always drains it |",
          "|---|---|---|---|"]
    o += [f"| {c['id']} | {c['name']} | {c['doc']} | {c['sink']} |" for c in d.classes]
    o += ["", "## Message types", "", "| opcode | message | class | fields | data | meaning |",
          "|---|---|---|---|---|---|"]
    for m in d.msgs:
        o.append(f"| {m['opcode']} | {m['name']} | {m['cls']['name']} | {', '.join(m['fields'])} | {m['data']} | "
                 f"{m['doc']} |")
    o.append("")
    return "\n".join(o)


def main():
    if len(sys.argv) != 4:
        print("usage: gen_msg.py DEF.toml OUTDIR DOC.md", file=sys.stderr)
        sys.exit(2)
    d = Def(sys.argv[1])
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    write_if_changed(os.path.join(out, "msg_pkg.sv"), gen_sv(d))
    write_if_changed(os.path.join(out, "msg_defs.h"), gen_h(d))
    write_if_changed(os.path.join(out, "msg_defs.c"), gen_c(d))
    write_if_changed(sys.argv[3], gen_md(d))


if __name__ == "__main__":
    main()
