#!/usr/bin/env python3
"""Generate the thin C wrapper of one Verilated model.

Usage: gen_vwrap.py MODEL VDIR OUTDIR [TOP]

Reads VDIR/VMODEL.h (written by `verilator --prefix VMODEL`), finds its ports and writes
OUTDIR/vw_MODEL.h (C11) and OUTDIR/vw_MODEL.cpp (the only C++ a model needs). Every model gets the
same API shape, so C code drives any of them the same way:

  vw_MODEL *vw_MODEL_create(uint64_t period_ps, uint64_t seed);   clock period for trace times;
                                                                  seed for X randomization
  void      vw_MODEL_free(vw_MODEL *m);
  uint64_t  vw_MODEL_reset(vw_MODEL *m, uint64_t cycle, unsigned n);  n cycles with rst_ni low and
                                                                  every other input zero; returns
                                                                  the next cycle number
  void      vw_MODEL_set(vw_MODEL *m, const vw_MODEL_in *in);    all inputs but the clock, at once
  void      vw_MODEL_get(vw_MODEL *m, vw_MODEL_out *out);        all outputs, at once (evaluating first
                                                                  when inputs were set since the last tick)
  void      vw_MODEL_tick(vw_MODEL *m, uint64_t cycle);           one clock cycle: rising edge at
                                                                  cycle * period, falling at + period/2
  void      vw_MODEL_tick_idle(vw_MODEL *m, uint64_t cycle);      a clock cycle the caller knows changes
                                                                  nothing (below): not evaluated
  int       vw_MODEL_trace_open(vw_MODEL *m, const char *path, uint64_t start_ps, uint64_t stop_ps);
  void      vw_MODEL_trace_close(vw_MODEL *m);

and, per port, direct access to the model's own storage (no copy of the other ports), through a view of
it that a driver takes once (a pointer per port, and the model's flags) and inline functions on that view:

  const vw_MODEL_ports *vw_MODEL_ports_of(vw_MODEL *m);        the view (valid as long as the model)
  void            vw_MODEL_set_NAME(const vw_MODEL_ports *p, uint64_t v);  an input of up to 64 bits
  uint64_t        vw_MODEL_get_NAME(const vw_MODEL_ports *p);  an output of up to 64 bits (after settle)
  uint32_t       *vw_MODEL_words_NAME(const vw_MODEL_ports *p);  an input wider than 64 bits: its words,
                                                                written in place (then touch, before the
                                                                settle or tick)
  const uint32_t *vw_MODEL_words_NAME(const vw_MODEL_ports *p);  an output wider than 64 bits: its words
                                                                (after settle)
  void            vw_MODEL_touch(const vw_MODEL_ports *p);     inputs were written in place: the next
                                                                settle or tick evaluates them (a tick after
                                                                inputs unchanged since the last evaluation
                                                                runs the clocked logic only)
  void            vw_MODEL_settle(vw_MODEL *m);                evaluates when an input changed since the last
                                                                evaluation (what get does before it copies),
                                                                else the logic a tick left (fresh): then the
                                                                outputs' get_NAME and words_NAME read settled
                                                                values

An input that only the model's clocked logic reads (clocked_only below: the credits returned to a Logging Unit's
or a directory's send port) does not make the next get or tick evaluate the logic of the inputs; the header's
VW_MODEL_CLOCKED_ONLY names them. A tick_idle's caller vouches for them as for the rest.

Every port is 32-bit words: uint32_t up to 32 bits, uint32_t[n] above (word 0 = bits 31:0). The clock port must be
called clk_i and the reset rst_ni (house style). A model Verilated without --trace-fst (the fast flavour) gets the
same API; its trace_open says on stderr that the model has no tracing and returns -1.

In the environment, DIKTAMO_FULL_EVAL=1 evaluates every edge in full (the reference the clocked-only
and lazy evaluations are tested against), and DIKTAMO_CHECK_IDLE=1 evaluates each edge tick_idle
would skip and compares every design signal before and after (a change stops the run, naming it).
"""
import os
import re
import sys

import genutil
from genutil import write_if_changed

PORT_RE = re.compile(r"VL_(IN|OUT|INOUT)(8|16|64|W|)\(&(\w+),(\d+),(\d+)(?:,(\d+))?\);")


def die(what):
    genutil.die("gen_vwrap.py", what)


def read_text(path):
    """The file's text, or the generator's one-line error naming it."""
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        die(f"{path}: {e}")


def c_decl(p):
    """Every port is 32-bit words: a uint32_t up to 32 bits, a uint32_t array above (word 0 = bits
    31:0), so C can address any port as (uint32_t *)&field whatever its width."""
    w = p["width"]
    if w > 32:
        return f"uint32_t {p['name']}[{(w + 31) // 32}]"
    return f"uint32_t {p['name']}"


def fast_sources(model, vdir):
    """The fast-path C++ of the model's last Verilation (V<model>_classes.mk's VM_CLASSES_FAST; a
    Verilation leaves the files of earlier ones in place), as (class name, text) pairs in name order."""
    mk = os.path.join(vdir, f"V{model}_classes.mk")
    m = re.search(r"\nVM_CLASSES_FAST \+= \\\n((?:\t\S+ \\\n)+)", read_text(mk))
    if not m:
        die(f"{mk}: no VM_CLASSES_FAST list")
    names = sorted(re.findall(r"\t(\S+) \\", m.group(1)))
    return [(n, read_text(os.path.join(vdir, n + ".cpp"))) for n in names]


def clocked_only(src, ins):
    """The inputs (up to 64 bits, not rst_ni) that only the clocked logic reads: every reference to
    one in the model's logic (its DepSet files) is in a function of the clocked region
    (___nba_sequent) or VL_DEBUG's width check. The logic of the inputs (the ico region, which
    Verilator evaluates again after any input changed) does not read them, so a change of one alone
    leaves it as it was: the edge's clocked logic reads the new value. (Verilated with assertions,
    credit_cnt's checks read its credits combinationally: none there.)"""
    fns = []
    for name, text in src:
        if "__DepSet_" in name:
            fns += re.findall(r"\n(?:VL_INLINE_OPT |VL_ATTR_COLD )?void (\w+)\([^)]*\) \{\n(.*?)\n\}\n", text, re.S)
    logic = "\n".join(text for name, text in src if "__DepSet_" in name)
    found = []
    for p in ins:
        n = p["name"]
        if p["width"] > 64 or n == "rst_ni":
            continue
        ref = re.compile(rf"(?:->|\.){n}\b")
        total = len(ref.findall(logic))
        where = [(f, len(ref.findall(body))) for f, body in fns]
        if total and sum(k for _, k in where) == total and all(
                k == 0 or "___nba_sequent__" in f or f.endswith("___eval_debug_assertions") for f, k in where):
            found.append(n)
    return found


def clock_eval(model, src, inputs, clocks):
    """The body of the Verilated _eval without its input-combinational (ico) loop, as C++ lines, or
    None where the Verilated code is not of the shape this expects (then a tick calls eval()).

    Verilator 5 evaluates the ico region first in every eval(), whatever changed: the logic that
    reads top-level inputs, replicated into the clocked (nba) region where it also reads state. A
    tick whose inputs are those of the last evaluation changes only clk_i, so that loop recomputes
    what it computed then, but for the clocks derived from clk_i (clocks: their edge detectors, as
    __Vtrigrprev__TOP__<signal>): each must be one assignment from inputs, which this evaluation
    makes first, and clk_i must reach nothing else (checked on the Verilated code, src: fast_sources)."""
    root = f"V{model}___024root"
    fast = [text for name, text in src if name.startswith(f"{root}__DepSet_")]
    code = "\n".join(fast)
    every = "\n".join(text for name, text in src if "__DepSet_" in name)
    pre = []
    for c in clocks:
        sig = c[len("__Vtrigrprev__TOP__"):]
        if sig == "clk_i":
            continue
        found = re.findall(rf"\n    vlSelf->{sig} = ([^;]*);\n", code)
        if len(found) != 1 or set(re.findall(r"vlSelf->(\w+)", found[0])) - set(inputs) - {"clk_i"}:
            return None
        pre.append(f"    vlSelf->{sig} = {found[0]};")
    # Where clk_i may appear (in the code of every module of the model): its edge detector, the
    # width check of VL_DEBUG, the derived clocks.
    uses = len(re.findall(r"(?:->|\.)clk_i\b", every))
    known = (len(re.findall(r"__VactTriggered\.at\(\d+U\) = \(\(IData\)\(vlSelf->clk_i\)", code)) +
             len(re.findall(r"\n    vlSelf->__Vtrigrprev__TOP__clk_i = vlSelf->clk_i;\n", code)) +
             len(re.findall(r"\(vlSelf->clk_i & 0x[0-9a-f]+U\)", code)) + sum(p.count("vlSelf->clk_i") for p in pre))
    if uses != known:
        return None
    head = f"void {root}___eval({root}* vlSelf) {{\n"
    for text in fast:
        at = text.find(head)
        if at < 0:
            continue
        end = text.find("\n}\n", at)
        body = text[at + len(head):end]
        # The ico loop: from its counter's reset to the line closing its while (4 spaces in).
        m = re.search(r"\n    vlSelf->__VicoIterCount = 0U;\n    __VicoContinue = 1U;\n"
                      r"    while \(__VicoContinue\) \{\n.*?\n    \}\n", body, re.S)
        if not m or "Vico" in body[m.end():] or body.count("__VicoContinue;") != 1:
            return None
        body = body[:m.start()] + "\n" + "\n".join(pre) + "\n" + body[m.end():]
        body = body.replace("    CData/*0:0*/ __VicoContinue;\n", "")
        body = re.sub(r"#ifdef VL_DEBUG\n.*?#endif\n", "", body, flags=re.S)
        lazy = lazy_tail(model, code)
        if lazy:
            if body.count(f"{root}___eval_nba(vlSelf);") != 1:
                return None
            body = body.replace(f"{root}___eval_nba(vlSelf);", "nba_lazy(vlSelf);")
        called = sorted(set(re.findall(rf"\b({root}___\w+)\(vlSelf\)", body)))
        if "Vico" in body or not called:
            return None
        return (lazy or []) + ([f"void {f}({root}* vlSelf);" for f in called] + [
            "",
            "/* The Verilated _eval without its input-combinational loop (gen_vwrap.py's clock_eval says why):",
            " * only for an edge whose inputs are those of the last evaluation. */",
            f"static void clock_eval({root}* vlSelf)", "{"] + re.sub(r"\n\n+", "\n", body).strip("\n").split("\n") + [
            "    Verilated::endOfThreadMTask(vlSymsp->__Vm_evalMsgQp);",
            "    Verilated::endOfEval(vlSymsp->__Vm_evalMsgQp);", "}", ""])
    return None


def region_body(code, root, region):
    """The lines of root's _eval_<region> after its preamble (its trigger blocks of calls), or None."""
    m = re.search(rf"\nvoid {root}___eval_{region}\({root}\* vlSelf\) \{{\n(.*?)\n\}}\n", code, re.S)
    if not m or "    // Body\n" not in m.group(1):
        return None
    lines = m.group(1).split("    // Body\n", 1)[1].split("\n")
    call = re.compile(r"        \w+\((?:vlSelf|\(&vlSymsp->\w+\))\);")
    block = re.compile(r"    if \(.*Triggered.*\) \{")
    if not all(call.fullmatch(l) or block.fullmatch(l) or l == "    }" for l in lines) or lines[-1] != "    }":
        return None
    return lines


def lazy_tail(model, code):
    """The input-and-state logic at the end of the clocked (nba) region, which Verilator evaluates
    again there after the edge (it also ends the input-combinational region): as C++ lines of an
    nba region without it (nba_lazy) and of that logic alone (comb_restore), or None.

    The ico region evaluates first the logic that reads only inputs, then the logic that reads
    inputs and state; the nba region's last trigger block ends with the latter, as the same calls.
    Its results after an edge are those of the old inputs: an evaluation after new inputs (the ico
    region) computes them again first, so they are left until something reads them (comb_restore:
    a get, a port read, the next edge; the evaluation with new inputs needs nothing). Where the
    regions are not of this shape, nothing is left (None)."""
    root = f"V{model}___024root"
    nba, ico = region_body(code, root, "nba"), region_body(code, root, "ico")
    if not nba or not ico or sum(l.startswith("    if ") for l in ico) != 1:
        return None
    ico_calls = [l.strip() for l in ico if l.startswith("        ")]
    last = max(i for i, l in enumerate(nba) if l.startswith("    if "))
    block = [l.strip() for l in nba[last + 1:-1]]
    n = 0
    while n < min(len(block), len(ico_calls)) and block[-1 - n] == ico_calls[-1 - n]:
        n += 1
    tail, head = ico_calls[len(ico_calls) - n:], ico_calls[:len(ico_calls) - n]
    kept = nba[:len(nba) - 1 - n] + ["    }"]
    kept_calls = [l.strip() for l in kept if l.startswith("        ")]
    # The tail is logic the ico region evaluates in full; its first part (inputs only) is not in
    # the nba region at all, and the rest of the nba region does not evaluate the tail's logic.
    if not n or set(head) & set(kept_calls) or set(tail) & set(kept_calls):
        return None
    decls = []
    for c in kept_calls + tail:
        f = c.split("(")[0]
        d = re.search(rf"\n(?:VL_INLINE_OPT )?void {f}\((\w+)\* vlSelf\)(?:;| \{{)\n", code)
        if not d:
            return None
        decls.append(f"void {f}({d.group(1)}* vlSelf);")
    syms = f"    V{model}__Syms* const __restrict vlSymsp VL_ATTR_UNUSED = vlSelf->vlSymsp;"
    return (sorted(set(decls)) + [
        "",
        "/* The clocked (nba) region without the input-and-state logic that ends it (gen_vwrap.py's",
        " * lazy_tail says why), and that logic alone. */",
        f"static void nba_lazy({root}* vlSelf)", "{", syms] + kept + ["}", "",
        f"static void comb_restore({root}* vlSelf)", "{", syms] + [f"    {c}" for c in tail] + ["}", ""])


# A design signal of a Verilated module class: a port (VL_IN8(name, ...), VL_OUTW(...)), a variable
# (CData/*7:0*/ name;), a wide or unpacked one (VlWide<5>/*...*/ name;, VlUnpacked<...> name;).
SIGNAL_RE = re.compile(r"^\s+(?:VL_(?:IN|OUT)\w*\((\w+),|(?:[CSIQE]Data|VlWide<\d+>)(?:/\*.*?\*/)?\s+(\w+);|"
                       r"VlUnpacked<.*>\s+(\w+);)", re.M)


def state_signals(model, vdir, clocks):
    """(instance, signal) of every design signal of every module instance in the Syms class: what an
    edge its block calls idle must leave as it found (Verilator's own __V* variables left out: edge
    detectors, triggers, delayed-assignment shadows, temporaries; and the root's clocks, named in
    clocks, which hold the level of the model's last evaluation, not state)."""
    syms_h = os.path.join(vdir, f"V{model}__Syms.h")
    sigs = []
    for cls, inst in re.findall(r"^\s+(V\w+)\s+(TOP\w*);", read_text(syms_h), re.M):
        for m in SIGNAL_RE.finditer(read_text(os.path.join(vdir, f"{cls}.h"))):
            name = next(g for g in m.groups() if g)
            if not name.startswith("__V") and not (inst == "TOP" and name in clocks):
                sigs.append((inst, name))
    if not sigs:
        die(f"{syms_h}: no module instance with signals")
    return sigs


def idle_fns(model, sigs):
    """The C++ of DIKTAMO_CHECK_IDLE's snapshots: a table of the design signals (state_signals), their
    bytes copied out in that order, and the count of edges checked, reported at exit."""
    root = f"V{model}__Syms"
    tab = [f'    {{"{i}.{n}", sizeof((({root} *)nullptr)->{i}.{n})}},' for i, n in sigs]
    cp = [f"    std::memcpy(p, &y->{i}.{n}, sizeof y->{i}.{n}), p += sizeof y->{i}.{n};" for i, n in sigs]
    return (["/* DIKTAMO_CHECK_IDLE: every design signal of every module instance (Verilator's own variables",
             " * left out), in the order idle_snap copies them. */",
             "typedef struct idle_sig { const char *name; size_t size; } idle_sig_t;",
             "static const idle_sig_t idle_sig[] = {"] + tab + ["    {nullptr, 0},", "};", "",
             "static size_t idle_bytes()", "{", "    size_t n = 0;",
             "    for (const idle_sig_t *g = idle_sig; g->name; g++)", "        n += g->size;", "    return n;", "}", "",
             f"static void idle_snap(V{model} *top, unsigned char *p)", "{", f"    {root} *y = top->rootp->vlSymsp;"] +
            cp + ["}", "", "static unsigned long long idle_checked; /* edges checked, every instance's */", "",
                  "static void idle_report()", "{", "    if (idle_checked)",
                  f'        std::fprintf(stderr, "{model}: DIKTAMO_CHECK_IDLE: %llu idle edges evaluated, none changed a "',
                  '                             "signal\\n", idle_checked);', "}", ""])


def w_of(model):
    return f"vw_{model}"


def main():
    if len(sys.argv) not in (4, 5):
        die("usage: gen_vwrap.py MODEL VDIR OUTDIR [TOP]")
    model, vdir, out = sys.argv[1:4]
    # The instance is named after the top module, so every shape of a top has the same scope
    # names in its waveforms (fabric_top.g_port[0]...), whatever the model is called.
    top = sys.argv[4] if len(sys.argv) == 5 else model
    hdr = os.path.join(vdir, f"V{model}.h")
    text = read_text(hdr)
    ports = []
    for dirn, _, name, msb, lsb, _ in PORT_RE.findall(text):
        if dirn == "INOUT":
            die(f"{hdr}: inout port {name} is not supported")
        ports.append({"dir": dirn, "name": name, "width": int(msb) - int(lsb) + 1})
    names = {p["name"] for p in ports}
    if "clk_i" not in names or "rst_ni" not in names:
        die(f"{hdr}: a wrapped top needs ports clk_i and rst_ni")
    traced = re.search(r"\bvoid trace\(VerilatedFstC\*", text) is not None
    # Verilator 5 detects a clock edge by comparing the clock with the value its last evaluation saw
    # (a member of the root class). Where that member exists, an untraced tick tells the model the
    # clock was low instead of evaluating the falling edge: nothing acts on it, and the rising edge's
    # evaluation computes everything the new inputs change anyway. Elsewhere the falling edge is
    # evaluated, as any Verilator allows.
    root = read_text(os.path.join(vdir, f"V{model}___024root.h"))
    # The falling edge, untraced: where clk_i is the one clock, its edge detector is set low instead
    # of an evaluation; a clock derived from it (a gated clock) has its own edge detector, which only
    # an evaluation with clk_i low resets (it then settles new inputs too).
    clocks = re.findall(r"\b(__Vtrigrprev__\w+);", root)
    one_clock = clocks == ["__Vtrigrprev__TOP__clk_i"]
    ins = [p for p in ports if p["dir"] == "IN" and p["name"] != "clk_i"]
    src = fast_sources(model, vdir)
    ce = clock_eval(model, src, [p["name"] for p in ins], clocks)
    clocked = set(clocked_only(src, ins))
    lazy = bool(ce) and any(l.startswith("static void comb_restore(") for l in ce)
    top_prev = "__Vtrigrprev__TOP__"
    sigs = state_signals(model, vdir, {c[len(top_prev):] for c in clocks if c.startswith(top_prev)})
    seen_low = (["        m->top->rootp->__Vtrigrprev__TOP__clk_i = 0;"] if one_clock else
                [f"        {w_of(model)}_edge(m, m->dirty);", "        m->dirty = false;"])
    outs = [p for p in ports if p["dir"] == "OUT"]
    w = w_of(model)
    guard = w.upper() + "_H"

    h = [f"/* Generated by scripts/gen_vwrap.py from V{model}.h. Do not edit. */", f"#ifndef {guard}",
         f"#define {guard}", "", "#include <stdbool.h>", "#include <stdint.h>", "", "#ifdef __cplusplus",
         'extern "C" {', "#endif", "",
         f"typedef struct {w} {w};", "", f"/** Inputs of {model} but clk_i. */", f"typedef struct {w}_in {{"]
    h += [f"    {c_decl(p)}; /* {p['width']} bits */" for p in ins]
    h += [f"}} {w}_in;", "", f"/** Outputs of {model}. */", f"typedef struct {w}_out {{"]
    h += [f"    {c_decl(p)}; /* {p['width']} bits */" for p in outs] or ["    uint8_t none_;"]
    h += [f"}} {w}_out;", "",
          f"{w} *{w}_create(uint64_t period_ps, uint64_t seed);",
          f"void {w}_free({w} *m);",
          f"uint64_t {w}_reset({w} *m, uint64_t cycle, unsigned n);",
          f"void {w}_set({w} *m, const {w}_in *in);",
          f"void {w}_get({w} *m, {w}_out *out);",
          f"void {w}_tick({w} *m, uint64_t cycle);",
          f"void {w}_tick_idle({w} *m, uint64_t cycle);",
          f"int {w}_trace_open({w} *m, const char *path, uint64_t start_ps, uint64_t stop_ps);",
          f"void {w}_trace_close({w} *m);", f"void {w}_settle({w} *m);", "",
          "/* The inputs only the clocked logic reads (a change of one alone evaluates nothing before the edge). */",
          f'#define {w.upper()}_CLOCKED_ONLY "{" ".join(sorted(clocked))}"', ""]
    # The view of the ports: a pointer to each port's storage in the model and to its flags, taken
    # once by a driver (ports_of), so that a cycle's accesses are inline loads and stores, not a call
    # each into the C++ wrapper (about 300 host instructions per directory edge).
    def ctype(p):
        return "uint32_t" if p["width"] > 64 else ("uint64_t" if p["width"] > 32 else
                                                  ("uint32_t" if p["width"] > 16 else
                                                   ("uint16_t" if p["width"] > 8 else "uint8_t")))
    h += [f"/** The ports' storage in the model (scripts/gen_vwrap.py): a pointer per port but clk_i. */",
          f"typedef struct {w}_ports {{",
          "    bool *dirty; /* an input changed since the last evaluation */"]
    h += [f"    {ctype(p)} *{p['name']};" for p in ins]
    h += [f"    const {ctype(p)} *{p['name']};" for p in outs]
    h += [f"}} {w}_ports;", "", f"const {w}_ports *{w}_ports_of({w} *m);", "",
          f"static inline void {w}_touch(const {w}_ports *p) {{ *p->dirty = true; }}"]
    for p in ins:
        n, t = p["name"], ctype(p)
        if p["width"] > 64:
            h.append(f"static inline uint32_t *{w}_words_{n}(const {w}_ports *p) {{ return p->{n}; }}")
        elif n in clocked:  # no evaluation before the edge: the clocked logic reads it there
            h.append(f"static inline void {w}_set_{n}(const {w}_ports *p, uint64_t v) {{ *p->{n} = ({t})v; }}")
        else:
            h += [f"static inline void {w}_set_{n}(const {w}_ports *p, uint64_t v)", "{",
                  f"    if (*p->{n} != ({t})v) {{", f"        *p->{n} = ({t})v;", "        *p->dirty = true;",
                  "    }", "}"]
    for p in outs:
        n = p["name"]
        if p["width"] > 64:
            h.append(f"static inline const uint32_t *{w}_words_{n}(const {w}_ports *p) {{ return p->{n}; }}")
        else:
            h.append(f"static inline uint64_t {w}_get_{n}(const {w}_ports *p) {{ return (uint64_t)*p->{n}; }}")
    h += ["", "#ifdef __cplusplus", "}", "#endif", "", "#endif", ""]

    # Each input is compared before it is written: a set that changes nothing leaves the model
    # settled, and the get after it does not evaluate.
    def copy_in(p):
        n, w = p["name"], p["width"]
        if w > 64: # words compared and copied whole (memcmp, memcpy: vector instructions)
            nb = f"{(w + 31) // 32} * sizeof(uint32_t)"
            return (f"    if (std::memcmp(&m->top->{n}[0], in->{n}, {nb})) {{\n"
                    f"        std::memcpy(&m->top->{n}[0], in->{n}, {nb});\n        ch = true;\n    }}")
        v = f"(uint64_t)in->{n}[0] | (uint64_t)in->{n}[1] << 32" if w > 32 else f"(decltype(m->top->{n}))in->{n}"
        if n in clocked:  # no evaluation before the edge: the clocked logic reads it there
            return f"    m->top->{n} = {v};"
        return f"    {{\n        const auto v = {v};\n        ch |= m->top->{n} != v;\n        m->top->{n} = v;\n    }}"

    def copy_out(p):
        n, w = p["name"], p["width"]
        if w > 64:
            return f"    std::memcpy(out->{n}, &m->top->{n}[0], {(w + 31) // 32} * sizeof(uint32_t));"
        if w > 32:
            return (f"    out->{n}[0] = (uint32_t)m->top->{n};\n"
                    f"    out->{n}[1] = (uint32_t)(m->top->{n} >> 32);")
        return f"    out->{n} = m->top->{n};"

    # The Syms class holds every module instance: the root for the clock's edge detector and the
    # clocked-only evaluation, all of them for DIKTAMO_CHECK_IDLE's snapshots.
    fst = [f'#include "V{model}__Syms.h"', "#include <cstdio>"] + (
        ['#include "verilated_fst_c.h"'] if traced else ["class VerilatedFstC; /* no tracing */"])
    c = [f"// Generated by scripts/gen_vwrap.py from V{model}.h. Do not edit.", f'#include "{w}.h"', "",
         f'#include "V{model}.h"', '#include "verilated.h"', "#include <cstdlib>", "#include <cstring>"] + fst + ['#include "base/cleanup.h"',
         "", f"struct {w} {{", "    VerilatedContext ctx;", f"    V{model} *top;", "    VerilatedFstC *tfp;",
         "    uint64_t period_ps, start_ps, stop_ps;",
         "    bool dirty; /* an input changed since the last evaluation */",
         "    bool low;   /* the clock fell after the last evaluation (the next one sees the edge) */",
         "    bool full;  /* DIKTAMO_FULL_EVAL: every edge evaluated in full */",
         "    bool stale; /* the logic of inputs and state not evaluated since the last edge (comb_restore) */",
         "    bool check; /* DIKTAMO_CHECK_IDLE: an idle edge evaluated and its signals compared (idle_check) */",
         "    unsigned char *snap[2]; /* the signals before and after such an edge */",
         f"    {w}_ports ports;",
         "};", ""] + (ce or []) + idle_fns(model, sigs) + [
         "/* An evaluation at a clock edge: in full when inputs changed since the last one (full) or",
         " * DIKTAMO_FULL_EVAL (the reference), else only the clocked logic (clock_eval) where the",
         " * generator could write it. */",
         f"static void {w}_edge({w} *m, bool full)", "{"] + ([
             "    if (full || m->full) {", "        m->top->eval();", "        m->stale = false;", "    } else {",
             "        if (m->stale)", "            comb_restore(m->top->rootp);", "        clock_eval(m->top->rootp);",
             "        m->stale = true;", "        if (m->tfp) {", "            comb_restore(m->top->rootp);",
             "            m->stale = false;", "        }", "    }"] if lazy else [
             "    if (full || m->full)", "        m->top->eval();", "    else", "        clock_eval(m->top->rootp);"]
             if ce else ["    (void)full;", "    m->top->eval();"]) + ["}", "",
         "/* What a read of the outputs needs first: the logic an edge left (comb_restore). */",
         f"static inline void {w}_fresh({w} *m)", "{"] + ([
             "    if (m->stale) {", "        comb_restore(m->top->rootp);", "        m->stale = false;", "    }"]
             if lazy else ["    (void)m;"]) + ["}", "",
         f"static void {w}_dump({w} *m, uint64_t t_ps)", "{"] + ([
             "    if (m->tfp && t_ps >= m->start_ps && t_ps < m->stop_ps)", "        m->tfp->dump(t_ps);", "}", "",
             f"static void {w}_close_cb(void *arg) {{ {w}_trace_close(({w} *)arg); }}", ""] if traced else [
             "    (void)m; (void)t_ps;", "}", ""]) + [
         f"extern \"C\" {w} *{w}_create(uint64_t period_ps, uint64_t seed)", "{", f"    {w} *m = new {w};",
         "    m->ctx.randReset(2);", "    /* Verilator takes seed 0 as \"from the clock\": fold the seed into 1 .. 2^31-1. */",
         "    m->ctx.randSeed((int)(seed % 0x7fffffffu) + 1);"] + (["    m->ctx.traceEverOn(true);"] if traced else []) + [
        
         f'    m->top = new V{model}(&m->ctx, "{top}");', "    m->tfp = nullptr;", "    m->period_ps = period_ps;",
         "    m->start_ps = m->stop_ps = 0;", "    m->top->clk_i = 0;", "    m->top->rst_ni = 0;",
         "    m->top->eval();", "    m->dirty = m->low = m->stale = false;",
         '    const char *full = std::getenv("DIKTAMO_FULL_EVAL");',
         '    m->full = full && *full && std::strcmp(full, "0") != 0;',
         '    const char *check = std::getenv("DIKTAMO_CHECK_IDLE");',
         '    m->check = check && *check && std::strcmp(check, "0") != 0;',
         "    m->ports.dirty = &m->dirty;"] + [
         f"    m->ports.{p['name']} = &m->top->{p['name']}{'[0]' if p['width'] > 64 else ''};" for p in ins + outs] + [
         "    m->snap[0] = m->snap[1] = nullptr;", "    if (m->check) {",
         "        m->snap[0] = new unsigned char[idle_bytes()];", "        m->snap[1] = new unsigned char[idle_bytes()];",
         "        static bool once;", "        if (!once) {", "            once = true;",
         "            std::atexit(idle_report);", "        }", "    }", "    return m;", "}", "",
         f"extern \"C\" void {w}_free({w} *m)", "{", "    if (!m) return;", f"    {w}_trace_close(m);",
         "    delete[] m->snap[0];", "    delete[] m->snap[1];",
         "    /* Verilator 5.006 erases a model's scopes from the thread's current context, which is the",
         "     * one current when it was first asked for: point it at this model's own (that one may be gone). */",
         "    Verilated::threadContextp(&m->ctx);",
         "    m->top->final();", "    delete m->top;", "    delete m;",
         "    Verilated::threadContextp(Verilated::defaultContextp()); /* never a deleted one */", "}", "",
         f"extern \"C\" uint64_t {w}_reset({w} *m, uint64_t cycle, unsigned n)", "{", f"    {w}_in in = {{}};",
         "    in.rst_ni = 0;", f"    {w}_set(m, &in);", "    for (unsigned i = 0; i < n; i++)",
         f"        {w}_tick(m, cycle++);", "    in.rst_ni = 1;", f"    {w}_set(m, &in);", "    return cycle;", "}", "",
         f"extern \"C\" void {w}_set({w} *m, const {w}_in *in)", "{", "    bool ch = false;"]
    c += [copy_in(p) for p in ins]
    c += ["    if (ch)", "        m->dirty = true;", "}", "",
          "/* Evaluates only when an input changed since the last evaluation (the falling edge a tick left",
          " * pending goes with it): after a tick, or a set that changed nothing, the outputs are settled. */",
          f"extern \"C\" void {w}_get({w} *m, {w}_out *out)", "{", f"    {w}_settle(m);"]
    c += [copy_out(p) for p in outs] or ["    (void)out;"]
    c += ["}", "",
          "/* The outputs settled for the inputs set (get without the copies; then get_<port> and",
          " * words_<port> read them). */",
          f"extern \"C\" void {w}_settle({w} *m)", "{",
          "    if (m->dirty) {", "        m->top->eval();", "        m->dirty = m->low = m->stale = false;", "    } else {",
          f"        {w}_fresh(m);", "    }", "}", "",
          "/* One clock cycle. Nothing in the RTL acts on the falling edge, so untraced it is not evaluated",
          " * unless a get with new inputs needs it: the tick tells the model the clock was low, and a cycle",
          " * (set, tick) costs one evaluation. Traced, the falling edge is evaluated and dumped at its time. */",
          f"extern \"C\" void {w}_tick({w} *m, uint64_t cycle)", "{",
          "    const uint64_t t = cycle * m->period_ps;",
          "    if (m->low) {"] + seen_low + ["    }", "    m->ctx.time(t);", "    m->top->clk_i = 1;",
          f"    {w}_edge(m, m->dirty);", f"    {w}_dump(m, t);", "    m->ctx.time(t + m->period_ps / 2);",
          "    m->top->clk_i = 0;", "    m->dirty = false;", "    m->low = true;", "    if (m->tfp) {",
          f"        {w}_edge(m, false);",
          f"        {w}_dump(m, t + m->period_ps / 2);", "        m->low = false;", "    }", "}", "",
          "/* DIKTAMO_CHECK_IDLE: the edge tick_idle would skip, evaluated in full (the reference) with every",
          " * design signal compared before and after; a change stops the run naming the signal. */",
          f"static void {w}_idle_check({w} *m, uint64_t cycle)", "{", f"    {w}_fresh(m);",
          "    idle_snap(m->top, m->snap[0]);", "    m->dirty = true;", f"    {w}_tick(m, cycle);", f"    {w}_fresh(m);",
          "    idle_snap(m->top, m->snap[1]);", "    __atomic_add_fetch(&idle_checked, 1, __ATOMIC_RELAXED);",
          "    size_t at = 0;", "    for (const idle_sig_t *g = idle_sig; g->name; at += g->size, g++)",
          "        if (std::memcmp(m->snap[0] + at, m->snap[1] + at, g->size)) {",
          f'            std::fprintf(stderr, "{model}: cycle %llu: an edge its block showed idle (tick_idle) changed "',
          '                                 "%s (DIKTAMO_CHECK_IDLE)\\n", (unsigned long long)cycle, g->name);',
          "            std::abort();", "        }", "}", "",
          "/* A clock cycle whose edge the caller knows changes nothing: no input changed since the last",
          " * evaluation (the get that showed the block idle) and the block's idle output says that such an",
          " * edge changes no state (DIKTAMO_CHECK_IDLE checks it). The edge is not evaluated: the",
          " * model's state, outputs and pending falling edge stay as they are, which is what evaluating it",
          " * would leave. It is a tick after a set that changed an input, with a trace open (the waves show",
          " * every edge) and under DIKTAMO_FULL_EVAL (the reference, where the assertions see every edge). */",
          f"extern \"C\" void {w}_tick_idle({w} *m, uint64_t cycle)", "{",
          "    if (m->dirty || m->tfp || m->full)", f"        {w}_tick(m, cycle);",
          "    else if (m->check)", f"        {w}_idle_check(m, cycle);", "}", "",
          f"extern \"C\" int {w}_trace_open({w} *m, const char *path, uint64_t start_ps, uint64_t stop_ps)", "{"]
    if traced:
        c += [f"    {w}_trace_close(m);", "    m->tfp = new VerilatedFstC;", "    m->top->trace(m->tfp, 99);",
              "    m->tfp->open(path);", "    if (!m->tfp->isOpen()) {", "        delete m->tfp;", "        m->tfp = nullptr;",
              "        return -1;", "    }", "    m->start_ps = start_ps;", "    m->stop_ps = stop_ps;",
              f"    cleanup_register({w}_close_cb, m);", "    return 0;", "}", "",
              f"extern \"C\" void {w}_trace_close({w} *m)", "{", "    if (!m->tfp) return;",
              f"    cleanup_unregister({w}_close_cb, m);", "    m->tfp->close();", "    delete m->tfp;",
              "    m->tfp = nullptr;", "}", ""]
    else:
        c += ["    (void)m; (void)start_ps; (void)stop_ps;",
              f'    std::fprintf(stderr, "{model}: built without tracing (fast flavour): cannot trace to %s\\n", path);',
              "    return -1;", "}", "",
              f"extern \"C\" void {w}_trace_close({w} *m) {{ (void)m; }}", ""]
    c += [f"extern \"C\" const {w}_ports *{w}_ports_of({w} *m) {{ return &m->ports; }}"]
    c += [""]
    os.makedirs(out, exist_ok=True)
    write_if_changed(os.path.join(out, f"{w}.h"), "\n".join(h))
    write_if_changed(os.path.join(out, f"{w}.cpp"), "\n".join(c))


if __name__ == "__main__":
    main()
