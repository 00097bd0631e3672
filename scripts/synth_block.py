#!/usr/bin/env python3
"""Synthesize one RTL block with Yosys 0.23 and time it with OpenSTA; or only check it elaborates.

    synth_block.py [options] MODULE           full flow, results in OUT/ (default build/synth/MODULE)
    synth_block.py --check [options] MODULE   Yosys read + hierarchy + proc only (a few seconds)
    synth_block.py --check-all [options]      the same for every module at once (check_all())

Run from the repository root (the Makefile does: `make synth`). The flow, per block:

 1. Sources. Every rtl/*.sv and rtl/*/*.sv defines one module named after its file. The files the
    block needs are found by following instantiations of known module names from MODULE's file;
    the generated packages (build/gen/msg_pkg.sv, csr_pkg.sv) are read first, `-Irtl/include` is given.
    Parameters from constraints/MODULE.params (lines `Name=Value`, `#` comments) override the
    module's defaults (Yosys `chparam` before `hierarchy`). MODULE.VARIANT names another parameter set of
    MODULE: constraints/MODULE.VARIANT.params (required) and .sdc (else MODULE's SDC).
    constraints/MODULE.VARIANT.flow, else MODULE.flow, says how the flow treats the block
    (`keep = MODULE ...`: hierarchical mode, see FLOW_KEYS). A wrong line in a params or flow file
    prints `file:line: key: what is wrong` and exits 2.
 2. Elaboration (Yosys, OUT/elab.log): read, `hierarchy -check -top`, the elaborated design is
    saved. Storage wrappers (modules named ram_* or sram_*) other than MODULE itself are analysed
    here: their bit count (Depth x Width parameters, else the bits of the memories Yosys inferred)
    and which inputs are clocks, which are sampled by the clock, and which reach which outputs
    combinationally (an asynchronous read port).
 3. Synthesis (Yosys, OUT/yosys.log, script from constraints/synth.ys.tmpl): the storage wrappers
    become black boxes (macros) renamed after their parameters (ram_1r1w__Depth16_Width8);
    everything else is flattened and mapped to the liberty's cells (dfflibmap, then timing-driven
    abc -D <clock period in ps>); wide word selects are mapped by constraints/techmap_shift.v. In
    hierarchical mode the kept modules are renamed after their parameters and not flattened: each
    is synthesized once and instantiated. Standard-cell area from `stat -liberty`, summed over the
    hierarchy.
 4. Timing (OpenSTA, OUT/sta.log, script from constraints/sta.tcl.tmpl): the netlist, the liberty,
    a generated liberty for the macros (OUT/macros.lib: setup MEM_SETUP_NS before the clock edge
    on sampled inputs, MEM_ACCESS_NS from the clock to registered outputs and from address to
    data on combinational read ports), the block's SDC (constraints/MODULE.sdc, else
    constraints/default.sdc). Worst setup slack, critical path start and end (a flop inside a kept
    module is named by its register after the instance path: g_in[0].g_fifo.u_in/g_cls[0].u_fifo.rd_ptr_q[1]).
 5. OUT/result.json (read by synth_report.py) and OUT/deps.mk (the files the block depends on).

A failure prints `synth: MODULE: <stage> failed: <first error>` and the log to read, exits 1.
"""

import argparse
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import time

import genutil

DEFAULT_LIBERTY = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib"
MACRO_RE = re.compile(r"^(ram|sram)_")


class FlowError(Exception):
    """A stage of the flow failed: `stage`, the first error line, the log to read."""

    def __init__(self, stage, what, log=None):
        super().__init__(what)
        self.stage, self.what, self.log = stage, what, log


class InputError(Exception):
    """A constraints file is wrong: reported as `file:line: key: what is wrong`, exit status 2."""

    def __init__(self, path, line, key, what):
        super().__init__(what)
        self.path, self.line, self.key, self.what = path, line, key, what

    def __str__(self):
        return f"{self.path}:{self.line}: {self.key}: {self.what}"


# ------------------------------------------------------------------------------------------------
# Sources


def discover_modules(rtl_files):
    """Module name -> file (genutil.discover_modules), a FlowError when a name repeats."""
    try:
        return genutil.discover_modules(rtl_files)
    except ValueError as e:
        raise FlowError("sources", str(e))


def source_closure(top, mods):
    """The files `top` needs (genutil.source_closure), a FlowError when no file defines it."""
    try:
        return genutil.source_closure(top, mods)
    except ValueError as e:
        raise FlowError("sources", str(e))


def assignments(path, value_re, form):
    """The `key = value` lines of a constraints file (`#` starts a comment), as (line, key, value)
    with value matching value_re; a malformed line or a key given twice is an InputError."""
    seen = {}
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r"([A-Za-z_]\w*)\s*=\s*(" + value_re + ")", line)
            if not m:
                raise InputError(path, n, re.split(r"[\s=]", line, 1)[0] or line,
                                 f"expected `{form}`, got `{line}`")
            if m.group(1) in seen:
                raise InputError(path, n, m.group(1), f"given twice (first on line {seen[m.group(1)]})")
            seen[m.group(1)] = n
            yield n, m.group(1), m.group(2)


def read_params(path):
    """constraints/MODULE.params: `Name=Value` per line, `#` starts a comment.

    [(name, value, line)]; a malformed line or a name given twice is an InputError. Whether the
    module has such a parameter only Yosys knows: see param_error()."""
    params = []
    if path and os.path.exists(path):
        for n, key, value in assignments(path, r"\S+", "Name=Value"):
            params.append((key, value, n))
    return params


def param_error(tool_error, params, path, top):
    """Yosys' error for a parameter the module does not have, as an InputError on its line."""
    m = re.search(r"Can't find object for defparam `\\?(\w+)`", tool_error or "")
    if not m:
        return None
    line = next((n for k, _, n in params if k == m.group(1)), 0)
    return InputError(path, line, m.group(1), f"{top} has no such parameter")


# constraints/<block>.flow: how the flow treats a block (not what the block is). Keys, one
# `key = value` per line, `#` comments:
#   keep = MODULE ...   hierarchical mode: each listed module (every parameter set of it that the
#                       block uses) is synthesized once and instantiated, not flattened into the
#                       block; the other modules are flattened into the kept module or the block
#                       that instantiates them. Names of modules this block does not use are
#                       ignored (a flow file serves every variant of the block).
FLOW_KEYS = ("keep",)


def read_flow(path, mods, top):
    """The block's flow settings: {"keep": [module, ...]}; an InputError for anything wrong."""
    flow = {"keep": []}
    if not path or not os.path.exists(path):
        return flow
    for n, key, text in assignments(path, r".*", "key = value"):
        value = text.split()
        if key not in FLOW_KEYS:
            raise InputError(path, n, key, f"unknown key (known: {', '.join(FLOW_KEYS)})")
        if key == "keep":
            if not value:
                raise InputError(path, n, key, "expected one or more module names")
            for v in value:
                if v not in mods:
                    raise InputError(path, n, key, f"{v}: no such module (no rtl/{v}.sv or rtl/*/{v}.sv)")
                if v == top:
                    raise InputError(path, n, key, f"{v}: the block itself (list the modules below it)")
                if MACRO_RE.match(v):
                    raise InputError(path, n, key, f"{v}: a storage wrapper, already a macro")
            flow["keep"] = value
    return flow


def read_sdc_period(path):
    """The clock period in ns, from the SDC's `set clk_period <ns>` line (the convention)."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r"\s*set\s+clk_period\s+([0-9]*\.?[0-9]+)\s*(;|#|$)", line)
            if m:
                return float(m.group(1))
    raise FlowError("sdc", f"{path}: no `set clk_period <ns>` line (the flow reads the period from it)")


# ------------------------------------------------------------------------------------------------
# Tools


def run_tool(stage, cmd, log, cwd=None):
    """Run a tool with its output in `log`; FlowError with the first error line if it fails.

    Yosys runs with -t (elaboration, synthesis): each line of its log, and of the files it writes
    with `tee -o`, starts with the seconds since it started, `[00012.345678] `, to see which pass
    takes the time; the text returned (and the error line) has them removed (yosys_output for the
    tee files)."""
    with open(log, "w") as fh:
        rc = subprocess.call(cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=cwd)
    with open(log, errors="replace") as fh:
        text = re.sub(r"(?m)^\[[0-9]+\.[0-9]+\] ", "", fh.read())
    errs = [ln.strip() for ln in text.splitlines() if re.search(r"(^|\s)(ERROR|Error):", ln)]
    if rc != 0 or errs:
        raise FlowError(stage, errs[0] if errs else f"{cmd[0]} exited with status {rc}", log)
    return text


def yosys_output(path):
    """A file Yosys wrote with `tee -o` (stat.txt, stat.json), without the -t timestamps."""
    with open(path, errors="replace") as fh:
        return re.sub(r"(?m)^\[[0-9]+\.[0-9]+\] ", "", fh.read())


# Yosys 0.23's `stat -json` prints, when a module under the top is itself hierarchical, the
# hierarchy's cell counts (`   name   count`, unquoted) between "modules" and "design": not JSON.
_STAT_HIER_LINE = re.compile(r'(?m)^[ \t]+[^\s"{}\[\]:,]+[ \t]+[0-9]+[ \t]*\n')


def yosys_json(path):
    """stat.json as Yosys 0.23 writes it, parsed: timestamps and stray hierarchy lines dropped."""
    return json.loads(_STAT_HIER_LINE.sub("", yosys_output(path)))


def fill(template_path, out_path, values):
    """Copy a template, replacing @NAME@ by values[NAME] (no other syntax: Tcl and Yosys keep $)."""
    with open(template_path, encoding="utf-8") as fh:
        text = fh.read()

    def sub(m):
        if m.group(1) not in values:
            raise FlowError("template", f"{template_path}: unknown placeholder @{m.group(1)}@")
        return str(values[m.group(1)])

    text = re.sub(r"@([A-Z_]+)@", sub, text)
    with open(out_path, "w", encoding="utf-8") as fh:
        fh.write(text)


def chparam_cmd(top, params):
    """The parameter overrides as a `chparam` on the top before `hierarchy` (a comment when none).

    Not `hierarchy -chparam`: with it, Yosys 0.23 aborts (`modules_.count(module->name) == 0`) when
    the top is reprocessed after a parameterized submodule becomes available; `chparam` re-derives
    the deferred top in place and keeps its name."""
    if not params:
        return "# no parameter overrides"
    return "chparam" + "".join(f" -set {n} {v}" for n, v, _ in params) + f" {top}"


def elab_script(files, pkgs, incdir, top, params, out, macro_bases):
    lines = [f"# Generated by scripts/synth_block.py: elaborate {top}, analyse its storage wrappers."]
    for p in pkgs:
        lines.append(f"read_verilog -sv -I{incdir} {p}")
    lines.append(f"read_verilog -sv -defer -I{incdir} " + " ".join(files))
    lines.append(chparam_cmd(top, params))
    lines.append(f"hierarchy -check -top {top}")
    lines.append(f"write_rtlil {out}/elab.il")
    if macro_bases:
        # Only the storage wrappers (every parameterization) are analysed: drop the rest first.
        pats = " ".join(f"{b} $paramod*{b}*" for b in macro_bases)
        lines += [f"select -set macros {pats}", "delete * @macros %d", "select -clear",
                  "proc", "memory -nomap", "opt_clean"]
        lines.append(f"write_json {out}/elab.json")
    lines.append("")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# Storage wrappers: identification, naming, timing analysis


def base_name(modname):
    """`$paramod$<hash>\\ram_1r1w` or `$paramod\\ram_1r1w\\Depth=...` or `ram_1r1w` -> ram_1r1w."""
    if modname.startswith("$paramod"):
        parts = modname.split("\\")
        return parts[1] if len(parts) > 1 else modname
    return modname.lstrip("\\")


def param_value(v):
    if isinstance(v, str) and v and set(v) <= {"0", "1"}:
        return int(v, 2)
    if isinstance(v, int):
        return v
    return v


def macro_clean_name(base, params):
    parts = []
    for k in sorted(params):
        v = param_value(params[k])
        parts.append(f"{k}{v}" if isinstance(v, int) else f"{k}{re.sub(r'[^A-Za-z0-9]', '', str(v))}")
    name = base + ("__" + "_".join(parts) if parts else "")
    if len(name) > 80:
        name = base + "__" + hashlib.sha1(name.encode()).hexdigest()[:10]
    return name


SEQ_PREFIXES = ("dff", "adff", "sdff", "aldff", "dlatch", "adlatch", "sr", "ff")
CLOCK_PORTS = {"CLK", "C", "EN", "E", "WR_CLK", "RD_CLK"}
BITWISE = {"$not", "$pos", "$and", "$or", "$xor", "$xnor", "$_BUF_", "$_NOT_"}


def is_seq(ctype):
    t = ctype.lstrip("$").lstrip("_").lower()
    return ctype.startswith("$") and t.startswith(SEQ_PREFIXES)


class ModuleTiming:
    """Port-level timing view of one module of the elaborated (proc'd) design.

    comb[out]   set of input ports with a combinational path to output port `out`
    seqsrc[out] True if `out` is driven (also) from state: a clock-to-output arc
    sink[in]    True if input `in` is sampled by state: a setup/hold check
    clock[in]   True if `in` clocks state
    """

    def __init__(self, design, name, cache):
        self.name = name
        mod = design["modules"].get(name)
        self.known = mod is not None
        if mod is None:  # undefined module: assume the worst
            self.ports = {}
            return
        self.ports = {p: d["direction"] for p, d in mod["ports"].items()}
        ins = [p for p, d in self.ports.items() if d == "input"]
        outs = [p for p, d in self.ports.items() if d != "input"]
        in_bit = {}
        for p in ins:
            for b in mod["ports"][p]["bits"]:
                in_bit[b] = p
        # driver[bit] = (fanin bits, from_state)
        driver = {}
        sink_bits, clock_bits = [], []
        for cname, cell in mod["cells"].items():
            ctype, conn = cell["type"], cell["connections"]
            dirs = cell.get("port_directions", {})
            if ctype == "$mem_v2":
                self._mem(cell, driver, sink_bits, clock_bits)
            elif is_seq(ctype):
                for port, bits in conn.items():
                    if dirs.get(port) == "output":
                        for b in bits:
                            driver[b] = ((), True)
                    elif port in CLOCK_PORTS:
                        clock_bits += bits
                    else:
                        sink_bits += bits
            elif ctype.startswith("$"):
                self._comb(ctype, cell, conn, dirs, driver)
            else:
                child = cache.get(ctype)
                if child is None:
                    child = cache[ctype] = ModuleTiming(design, ctype, cache)
                self._inst(child, conn, dirs, driver, sink_bits, clock_bits)
        memo = {}

        def cone(bit):
            """(input ports, from_state) of the combinational cone ending at `bit`."""
            if not isinstance(bit, int):
                return frozenset(), False
            if bit in memo:
                return memo[bit]
            stack = [(bit, False)]
            while stack:
                b, expanded = stack.pop()
                if b in memo:
                    continue
                if b in in_bit:
                    memo[b] = (frozenset([in_bit[b]]), False)
                    continue
                fan, st = driver.get(b, ((), False))
                fan = [x for x in fan if isinstance(x, int)]
                if not expanded:
                    memo_pending = [x for x in fan if x not in memo]
                    if memo_pending:
                        stack.append((b, True))
                        for x in memo_pending:
                            if x != b:
                                stack.append((x, False))
                        continue
                ports, state = set(), st
                for x in fan:
                    p, s = memo.get(x, (frozenset(), False))  # a loop: cut it
                    ports |= p
                    state = state or s
                memo[b] = (frozenset(ports), state)
            return memo[bit]

        self.comb, self.seqsrc = {}, {}
        for p in outs:
            ports, state = set(), False
            for b in mod["ports"][p]["bits"]:
                pp, s = cone(b)
                ports |= pp
                state = state or s
            self.comb[p], self.seqsrc[p] = ports, state
        self.sink = {p: False for p in ins}
        self.clock = {p: False for p in ins}
        for b in sink_bits:
            for p in cone(b)[0]:
                self.sink[p] = True
        for b in clock_bits:
            for p in cone(b)[0]:
                self.clock[p] = True

    @staticmethod
    def _comb(ctype, cell, conn, dirs, driver):
        outs = [p for p in conn if dirs.get(p) == "output"]
        ins = [p for p in conn if dirs.get(p) != "output"]
        all_in = [b for p in ins for b in conn[p]]
        for op in outs:
            for i, b in enumerate(conn[op]):
                if ctype in BITWISE and all(len(conn[p]) == len(conn[op]) for p in ins):
                    fan = [conn[p][i] for p in ins]
                elif ctype == "$mux" and len(conn["A"]) == len(conn[op]):
                    fan = [conn["A"][i], conn["B"][i]] + conn["S"]
                else:
                    fan = all_in
                driver[b] = (fan, False)

    @staticmethod
    def _mem(cell, driver, sink_bits, clock_bits):
        par, conn = cell["parameters"], cell["connections"]
        nrd = param_value(par["RD_PORTS"])
        abits, width = param_value(par["ABITS"]), param_value(par["WIDTH"])
        clk_en = par["RD_CLK_ENABLE"]
        for port in ("WR_ADDR", "WR_DATA", "WR_EN"):
            sink_bits += conn.get(port, [])
        clock_bits += conn.get("WR_CLK", []) + conn.get("RD_CLK", [])
        # RD_DATA may be wider than WIDTH per port (wide ports); split evenly by port count.
        data = conn.get("RD_DATA", [])
        per = len(data) // nrd if nrd else 0
        for i in range(nrd):
            sync = clk_en[-1 - i] == "1" if isinstance(clk_en, str) else bool(clk_en)
            addr = conn["RD_ADDR"][i * abits:(i + 1) * abits]
            ctl = [conn[p][i] for p in ("RD_EN", "RD_ARST", "RD_SRST") if p in conn and len(conn[p]) > i]
            if sync:
                sink_bits += addr + ctl
                fan = []
            else:
                fan = addr
            for b in data[i * per:(i + 1) * per]:
                driver[b] = (fan, True)

    @staticmethod
    def _inst(child, conn, dirs, driver, sink_bits, clock_bits):
        if not child.known:  # conservative: every input reaches every output and is sampled
            ins = [b for p, bits in conn.items() if dirs.get(p) != "output" for b in bits]
            for p, bits in conn.items():
                if dirs.get(p) == "output":
                    for b in bits:
                        driver[b] = (ins, True)
            sink_bits += ins
            return
        for p, bits in conn.items():
            d = child.ports.get(p, dirs.get(p))
            if d == "input":
                if child.clock.get(p):
                    clock_bits += bits
                if child.sink.get(p):
                    sink_bits += bits
            else:
                fan = [b for q in child.comb.get(p, ()) for b in conn.get(q, [])]
                for b in bits:
                    driver[b] = (fan, child.seqsrc.get(p, False))


def memory_bits(design, name, seen=None):
    """Bits of the memories Yosys inferred in module `name` and below."""
    mod = design["modules"].get(name)
    if mod is None:
        return 0
    total = 0
    for cell in mod["cells"].values():
        if cell["type"] == "$mem_v2":
            total += param_value(cell["parameters"]["WIDTH"]) * param_value(cell["parameters"]["SIZE"])
        elif not cell["type"].startswith("$"):
            total += memory_bits(design, cell["type"])
    return total


def analyse_macros(design, top):
    """The storage wrappers below `top`: [{module, name, base, params, bits, bits_from, timing}]."""
    out, cache, used = [], {}, set()
    for name, mod in design["modules"].items():
        if name.lstrip("\\") == top:
            continue
        base = base_name(name)
        if not MACRO_RE.match(base):
            continue
        params = {k: param_value(v) for k, v in mod.get("parameter_default_values", {}).items()}
        clean = macro_clean_name(base, params)
        if clean in used:
            clean += "__" + hashlib.sha1(name.encode()).hexdigest()[:6]
        used.add(clean)
        if isinstance(params.get("Depth"), int) and isinstance(params.get("Width"), int):
            bits, how = params["Depth"] * params["Width"], "Depth x Width"
        else:
            bits, how = memory_bits(design, name), "inferred memories"
        timing = ModuleTiming(design, name, cache)
        ports = {}
        for p, d in mod["ports"].items():
            n = len(d["bits"])
            off = d.get("offset", 0)
            msb, lsb = (off, off + n - 1) if d.get("upto") else (off + n - 1, off)
            ports[p] = {"direction": d["direction"], "width": n, "msb": msb, "lsb": lsb}
        out.append({"module": name, "name": clean, "base": base, "params": params, "bits": bits,
                    "bits_from": how, "ports": ports, "timing": timing})
    return out


# ------------------------------------------------------------------------------------------------
# Hierarchical mode (constraints/<block>.flow `keep = ...`)


def rtlil_param(v):
    """An RTLIL constant as a Python value: 8 -> 8, 32'00001000 -> 8, "text" -> text."""
    m = re.fullmatch(r"(\d+)'([01xzm-]*)", v)
    if m:
        return int(m.group(2), 2) if m.group(2) and set(m.group(2)) <= {"0", "1"} else v
    if re.fullmatch(r"-?\d+", v):
        return int(v)
    return v.strip('"')


def rtlil_modules(path):
    """Module name -> {parameter: value} of an RTLIL file (the elaborated design)."""
    mods, cur = {}, None
    with open(path, errors="replace") as fh:
        for line in fh:
            if line.startswith("module "):
                cur = line.split(None, 1)[1].strip()
                mods[cur] = {}
            elif cur is not None and line.startswith("  parameter "):
                parts = line.split(None, 2)
                if len(parts) == 3:
                    mods[cur][parts[1].lstrip("\\")] = rtlil_param(parts[2].strip())
            elif line.rstrip() == "end":
                cur = None
    return mods


def kept_modules(il_path, keep):
    """The elaborated modules that the flow file keeps: [{module, name, base, params}].

    Each gets a readable name like the macros' (sw_ingress__CrdPerCls4_NumOut8): the netlist,
    OpenSTA's paths and the report use it."""
    out, used = [], set()
    for mod, params in sorted(rtlil_modules(il_path).items()):
        base = base_name(mod)
        if base not in keep:
            continue
        clean = macro_clean_name(base, params)
        if clean in used:
            clean += "__" + hashlib.sha1(mod.encode()).hexdigest()[:6]
        used.add(clean)
        out.append({"module": mod, "name": clean, "base": base, "params": params})
    return out


def hier_totals(stat, areas, top, blackboxes):
    """Cells by type and area of `top` with every kept submodule counted once per instance.

    stat: Yosys `stat -json` (cells by type per module, a kept module's instances counted as one
    cell of its type); areas: module -> standard-cell area of the module's own cells (`stat
    -liberty`). Returns (cells by type, area, {kept module: instances below top})."""
    mods = {n.lstrip("\\"): s["num_cells_by_type"] for n, s in stat["modules"].items()}
    areas = {n.lstrip("\\"): a for n, a in areas.items()}
    memo = {}

    def walk(m):
        if m not in memo:
            types, area, inst = {}, areas.get(m) or 0.0, {}
            for t, n in mods.get(m, {}).items():
                if t in mods and t not in blackboxes:
                    sub_types, sub_area, sub_inst = walk(t)
                    area += n * sub_area
                    inst[t] = inst.get(t, 0) + n
                    for st, sn in sub_types.items():
                        types[st] = types.get(st, 0) + n * sn
                    for si, sn in sub_inst.items():
                        inst[si] = inst.get(si, 0) + n * sn
                else:
                    types[t] = types.get(t, 0) + n
            memo[m] = (types, area, inst)
        return memo[m]

    return walk(top)


# ------------------------------------------------------------------------------------------------
# Liberty for the macros


def macro_liberty(libname, macros, setup_ns, access_ns, warn):
    """A liberty with one cell per macro: pins, buses, and placeholder timing (see module doc)."""
    L = [f"/* Generated by scripts/synth_block.py: storage wrappers of one block as black-box",
         f"   macros. Timing placeholders: setup {setup_ns} ns before the clock edge on sampled inputs,",
         f"   {access_ns} ns clock-to-output and address-to-data. Area is reported by the flow as",
         f"   bits x MEM_BIT_AREA, not here. */",
         f"library ({libname}) {{",
         "  delay_model : table_lookup;",
         '  time_unit : "1ns";', '  voltage_unit : "1V";', '  current_unit : "1uA";',
         '  pulling_resistance_unit : "1kohm";', '  leakage_power_unit : "1nW";',
         "  capacitive_load_unit (1,pf);",
         "  slew_upper_threshold_pct_rise : 80;", "  slew_lower_threshold_pct_rise : 20;",
         "  slew_upper_threshold_pct_fall : 80;", "  slew_lower_threshold_pct_fall : 20;",
         "  input_threshold_pct_rise : 50;", "  input_threshold_pct_fall : 50;",
         "  output_threshold_pct_rise : 50;", "  output_threshold_pct_fall : 50;",
         "  nom_process : 1;", "  nom_voltage : 1.8;", "  nom_temperature : 25;",
         "  operating_conditions (typical) { process : 1; voltage : 1.8; temperature : 25; }",
         "  default_operating_conditions : typical;"]
    types = {}
    for m in macros:
        for p in m["ports"].values():
            if p["width"] > 1:
                key = (p["msb"], p["lsb"])
                types.setdefault(key, f"bus_{p['msb']}_{p['lsb']}")
    for (msb, lsb), tname in sorted(types.items()):
        w = abs(msb - lsb) + 1
        L.append(f"  type ({tname}) {{ base_type : array; data_type : bit; bit_width : {w}; "
                 f"bit_from : {msb}; bit_to : {lsb}; downto : {'true' if msb >= lsb else 'false'}; }}")

    def scalar(group, v):
        return f'{group} (scalar) {{ values ("{v}"); }}'

    for m in macros:
        t = m["timing"]
        clocks = [p for p, c in t.clock.items() if c]
        L.append(f"  cell ({m['name']}) {{")
        L.append(f"    /* {m['base']} {m['params']}: {m['bits']} bits ({m['bits_from']}) */")
        L.append("    area : 0;")
        L.append("    dont_touch : true;")
        L.append("    dont_use : true;")
        for pname, p in m["ports"].items():
            head = f"bus ({pname})" if p["width"] > 1 else f"pin ({pname})"
            L.append(f"    {head} {{")
            if p["width"] > 1:
                L.append(f"      bus_type : {types[(p['msb'], p['lsb'])]};")
            if p["direction"] == "input":
                L.append("      direction : input;")
                L.append("      capacitance : 0.01;")
                if t.clock.get(pname):
                    L.append("      clock : true;")
                elif t.sink.get(pname):
                    for c in clocks:
                        for kind, v in (("setup_rising", setup_ns), ("hold_rising", 0.0)):
                            L.append(f'      timing () {{ related_pin : "{c}"; timing_type : {kind}; '
                                     f'{scalar("rise_constraint", v)} {scalar("fall_constraint", v)} }}')
            else:
                L.append("      direction : output;")
                arcs = []
                if t.seqsrc.get(pname):
                    if not clocks:
                        warn(f"macro {m['name']}: output {pname} comes from state but no clock input found")
                    arcs += [(c, "rising_edge") for c in clocks]
                arcs += [(q, "combinational") for q in sorted(t.comb.get(pname, ())) if not t.clock.get(q)]
                for rel, kind in arcs:
                    sense = "" if kind == "rising_edge" else "timing_sense : non_unate; "
                    rp = m["ports"][rel]
                    if rp["width"] > 1:
                        # Bit by bit: OpenSTA pairs two buses bit for bit (or refuses them when
                        # their widths differ); each address bit reaches every data bit.
                        step = 1 if rp["msb"] >= rp["lsb"] else -1
                        rel = " ".join(f"{rel}[{i}]" for i in range(rp["lsb"], rp["msb"] + step, step))
                    L.append(f'      timing () {{ related_pin : "{rel}"; timing_type : {kind}; {sense}'
                             f'{scalar("cell_rise", access_ns)} {scalar("cell_fall", access_ns)} '
                             f'{scalar("rise_transition", 0.1)} {scalar("fall_transition", 0.1)} }}')
            L.append("    }")
        L.append("  }")
    L.append("}")
    return "\n".join(L) + "\n"


# ------------------------------------------------------------------------------------------------
# Reports


def liberty_cells(path):
    with open(path, errors="replace") as fh:
        return set(n.strip().strip('"') for n in re.findall(r"\n\s*cell\s*\(([^)]*)\)", fh.read()))


def liberty_seq_cells(path):
    """Names of the liberty's sequential cells (those with an ff, latch or statetable group)."""
    with open(path, errors="replace") as fh:
        text = fh.read()
    seq = set()
    for chunk in re.split(r"\n\s*cell\s*\(", text)[1:]:
        name = chunk.split(")", 1)[0].strip().strip('"')
        body = re.split(r"\n\s*cell\s*\(", chunk)[0]
        if re.search(r"\b(ff|ff_bank|latch|latch_bank|statetable)\s*\(", body):
            seq.add(name)
    return seq


def parse_stat(text):
    """Yosys `stat -liberty` text: ({module: area of its own cells}, area of the top's hierarchy
    from `stat -top`, or None)."""
    own = {mod.lstrip("\\"): float(a)
           for mod, a in re.findall(r"Chip area for module '([^']+)':\s*([0-9.]+)", text)}
    m = re.search(r"Chip area for top module '([^']+)':\s*([0-9.]+)", text)
    return own, (float(m.group(2)) if m else None)


def parse_sta(text):
    r = {"worst_slack_ns": None, "tns_ns": None, "start": None, "end": None, "start_kind": None,
         "end_kind": None, "arrival_ns": None}
    m = re.search(r"worst slack\s+(-?[0-9.]+|INF|-INF)", text)
    if m and "INF" not in m.group(1):
        r["worst_slack_ns"] = float(m.group(1))
    m = re.search(r"tns\s+(-?[0-9.]+)", text)
    if m:
        r["tns_ns"] = float(m.group(1))
    m = re.search(r"Startpoint:\s*(\S+)\s*(\(.*?\))?\s*\n", text)
    if m:
        r["start"], r["start_kind"] = m.group(1), (m.group(2) or "").strip("()") or None
    m = re.search(r"Endpoint:\s*(\S+)\s*(\(.*?\))?\s*\n", text)
    if m:
        r["end"], r["end_kind"] = m.group(1), (m.group(2) or "").strip("()") or None
    m = re.search(r"(-?[0-9.]+)\s+data arrival time", text)
    if m:
        r["arrival_ns"] = float(m.group(1))
    return r


def instance_type(netlist_text, inst):
    """The cell type of an instance in a Yosys-written netlist, or None."""
    m = re.search(r"^\s*\\?(\S+)\s+\\?" + re.escape(inst) + r"\s*\(", netlist_text, flags=re.M)
    return m.group(1) if m else None


def netlist_modules(text):
    """Module name -> its text, of a netlist written by Yosys' write_verilog."""
    return {m.group(1): m.group(0) for m in
            re.finditer(r"^module\s+\\?(\S+?)\s*\(.*?^endmodule", text, flags=re.S | re.M)}


def locate_instance(netlist_mods, top, path):
    """An OpenSTA instance path (`g_in\\[0\\].u_ing/_77_`): the module holding the last instance,
    the instance's name there, and the path to that module with a trailing `/` ('' at the top)."""
    parts = [p.replace("\\", "") for p in path.split("/")]
    mod = top
    for p in parts[:-1]:
        t = instance_type(netlist_mods.get(mod, ""), p)
        if t is None:
            return None, parts[-1], ""
        mod = t.lstrip("\\")
    return mod, parts[-1], "".join(p + "/" for p in parts[:-1])


def register_of(netlist_text, inst):
    """The net a flop instance drives (its register's name), or None: `_77_` -> `rp_q[1]`."""
    if not inst:
        return None
    esc = re.escape(inst)
    m = re.search(r"(?:^|\s)\\?" + esc + r"\s*\((.*?)\);", netlist_text, flags=re.S)
    if not m:
        return None
    q = re.search(r"\.Q\(\s*(?:\\(\S+)\s*|([A-Za-z_][\w$]*)\s*)(\[\d+\])?\s*\)", m.group(1))
    return ((q.group(1) or q.group(2)) + (q.group(3) or "")) if q else None


def failed(e, who):
    """The exit status of a failed run, its message printed: an InputError as `file:line: key: what
    is wrong` (2); a FlowError as `WHO: stage failed: first error` and the log to read (1)."""
    if isinstance(e, InputError):
        print(e, file=sys.stderr)
        return 2
    print(f"{who}: {e.stage} failed: {e.what}", file=sys.stderr)
    if e.log:
        print(f"{who}: see {e.log}", file=sys.stderr)
    return 1


def check_all(a):
    """--check-all: does Yosys accept every module of the RTL? One Yosys run reads every file (not
    deferred: each module is elaborated at its defaults, or at constraints/MODULE.params where there
    is one), then `hierarchy -check`, `proc` and `check -assert` over the whole design: every
    module at those parameters and at every parameter set it is instantiated with, each elaborated
    and processed once. The same checks as --check MODULE for every module in turn, without doing
    a shared submodule over again for each module above it (the tests' check, make synth-check)."""
    out = a.out or "build/synth/check/all"
    os.makedirs(out, exist_ok=True)
    rtl = a.rtl if a.rtl else sorted(glob.glob("rtl/*.sv") + glob.glob("rtl/*/*.sv"))
    try:
        for p in a.pkgs:
            if not os.path.exists(p):
                raise FlowError("sources", f"{p} missing (make {p})")
        mods = discover_modules(rtl)
        overrides = []
        for m in sorted(mods):
            path = os.path.join(a.constraints, f"{m}.params")
            params = read_params(path)
            if params:
                overrides.append((m, params, path))
        ys = os.path.join(out, "check.ys")
        with open(ys, "w") as fh:
            fh.write("".join(f"read_verilog -sv -I{a.inc} {p}\n" for p in a.pkgs))
            fh.write(f"read_verilog -sv -I{a.inc} {' '.join(sorted(mods.values()))}\n")
            fh.write("".join(chparam_cmd(m, params) + "\n" for m, params, _ in overrides))
            fh.write("hierarchy -check\nproc\ncheck -assert\n")
        log = os.path.join(out, "check.log")
        try:
            run_tool("check", [a.yosys, ys], log)
        except FlowError as e:
            for m, params, path in overrides:
                err = param_error(e.what, params, path, m)
                if err:
                    raise err
            raise
    except (InputError, FlowError) as e:
        return failed(e, "synth check: all")
    print(f"synth check: all: every module accepted by Yosys ({len(mods)} modules)")
    return 0


# ------------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("module", nargs="?")
    ap.add_argument("--check", action="store_true", help="only Yosys read + hierarchy + proc")
    ap.add_argument("--check-all", action="store_true", help="--check for every module, in one Yosys run")
    ap.add_argument("--rtl", nargs="*", help="RTL files (default: rtl/*.sv rtl/*/*.sv)")
    ap.add_argument("--pkgs", nargs="*", default=["build/gen/msg_pkg.sv", "build/gen/csr_pkg.sv"], help="packages, read first")
    ap.add_argument("--inc", default="rtl/include", help="include directory")
    ap.add_argument("--constraints", default="constraints", help="SDC, params and templates")
    ap.add_argument("--liberty", default=DEFAULT_LIBERTY)
    ap.add_argument("--out", help="output directory (default build/synth/MODULE)")
    ap.add_argument("--mem-setup-ns", type=float, default=0.3)
    ap.add_argument("--mem-access-ns", type=float, default=1.2)
    ap.add_argument("--yosys", default="yosys")
    ap.add_argument("--sta", default="sta")
    ap.add_argument("--keep", action="store_true", help="keep the elaborated design files")
    a = ap.parse_args()
    if a.check_all:
        if a.module:
            ap.error("--check-all takes no MODULE")
        return check_all(a)
    if not a.module:
        ap.error("a MODULE is needed (or --check-all)")

    # A configuration is a module, or module.variant: another parameter set of the module, from
    # constraints/module.variant.params (and .sdc, else the module's SDC, else default.sdc).
    name = a.module
    top = name.partition(".")[0]
    rtl = a.rtl if a.rtl else sorted(glob.glob("rtl/*.sv") + glob.glob("rtl/*/*.sv"))
    out = a.out or (os.path.join("build/synth/check", name) if a.check else os.path.join("build/synth", name))
    os.makedirs(out, exist_ok=True)
    warnings = []

    def warn(msg):
        warnings.append(msg)
        print(f"synth: {name}: warning: {msg}", file=sys.stderr)

    try:
        for p in a.pkgs:
            if not os.path.exists(p):
                raise FlowError("sources", f"{p} missing (make {p})")
        mods = discover_modules(rtl)
        files = source_closure(top, mods)
        params_path = os.path.join(a.constraints, f"{name}.params")
        if name != top and not os.path.exists(params_path):
            raise FlowError("params", f"{params_path} missing: a variant {name} needs its parameters")
        params = read_params(params_path)
        flows = [os.path.join(a.constraints, f"{n}.flow") for n in (name, top)]
        flow_path = next((f for f in flows if os.path.exists(f)), None)
        flow = read_flow(flow_path, mods, top)

        if a.check:
            ys = os.path.join(out, "check.ys")
            with open(ys, "w") as fh:
                fh.write("".join(f"read_verilog -sv -I{a.inc} {p}\n" for p in a.pkgs))
                fh.write(f"read_verilog -sv -defer -I{a.inc} {' '.join(files)}\n")
                fh.write(f"{chparam_cmd(top, params)}\nhierarchy -check -top {top}\nproc\ncheck -assert\n")
            log = os.path.join(out, "check.log")
            try:
                run_tool("check", [a.yosys, ys], log)
            except FlowError as e:
                raise param_error(e.what, params, params_path, top) or e
            print(f"synth check: {name}: accepted by Yosys ({len(files)} files)")
            return 0

        t0 = time.time()
        sdcs = [os.path.join(a.constraints, f"{n}.sdc") for n in (name, top)]
        sdc = next((f for f in sdcs if os.path.exists(f)), os.path.join(a.constraints, "default.sdc"))
        period = read_sdc_period(sdc)
        for f in ("elab.json", "elab.il", "netlist.v", "macros.lib", "result.json"):
            if os.path.exists(os.path.join(out, f)):
                os.remove(os.path.join(out, f))

        # 2. Elaboration and analysis of the storage wrappers.
        bases = [os.path.splitext(os.path.basename(f))[0] for f in files[1:]]
        bases = [b for b in bases if MACRO_RE.match(b)]
        if MACRO_RE.match(top):  # a storage wrapper on its own: count its bits too
            bases.append(top)
        with open(os.path.join(out, "elab.ys"), "w") as fh:
            fh.write(elab_script(files, a.pkgs, a.inc, top, params, out, bases))
        try:
            run_tool("elaboration", [a.yosys, "-t", os.path.join(out, "elab.ys")], os.path.join(out, "elab.log"))
        except FlowError as e:
            raise param_error(e.what, params, params_path, top) or e
        macros, own_bits = [], None
        if bases:
            with open(os.path.join(out, "elab.json")) as fh:
                design = json.load(fh)
            macros = analyse_macros(design, top)
            own_bits = None
            for mname, mod in design["modules"].items():
                if mname.lstrip("\\") == top:
                    pv = {k: param_value(v) for k, v in mod.get("parameter_default_values", {}).items()}
                    if isinstance(pv.get("Depth"), int) and isinstance(pv.get("Width"), int):
                        own_bits = pv["Depth"] * pv["Width"]
                    else:
                        own_bits = memory_bits(design, mname)
            del design
        with open(os.path.join(out, "macros.ys"), "w") as fh:
            fh.write("# Generated by scripts/synth_block.py: storage wrappers become named black boxes.\n")
            for m in macros:
                fh.write(f"rename {m['module']} {m['name']}\n")
                fh.write(f"chtype -map {m['module']} {m['name']}\n")
                fh.write(f"blackbox {m['name']}\n")
        # Hierarchical mode: the kept modules get readable names and keep_hierarchy, so that
        # `synth -flatten` flattens everything else into them or into the block.
        kept = kept_modules(os.path.join(out, "elab.il"), flow["keep"]) if flow["keep"] else []
        with open(os.path.join(out, "hier.ys"), "w") as fh:
            fh.write("# Generated by scripts/synth_block.py: modules kept as their own units "
                     f"({flow_path or 'no flow file'}).\n")
            for k in kept:
                if k["module"] != k["name"]:
                    fh.write(f"rename {k['module']} {k['name']}\n")
                    fh.write(f"chtype -map {k['module']} {k['name']}\n")
                fh.write(f"setattr -mod -set keep_hierarchy 1 {k['name']}\n")
        macro_lib = os.path.join(out, "macros.lib")
        if macros:
            with open(macro_lib, "w") as fh:
                fh.write(macro_liberty(f"macros_{top}", macros, a.mem_setup_ns, a.mem_access_ns, warn))

        # 3. Synthesis.
        seq = liberty_seq_cells(a.liberty)
        constr = os.path.join(a.constraints, "abc.constr")
        abc_constr = ""
        if os.path.exists(constr):
            with open(constr) as fh:
                drv = re.search(r"set_driving_cell\s+(\S+)", fh.read())
            if drv and drv.group(1) not in liberty_cells(a.liberty):
                warn(f"{constr}: driving cell {drv.group(1)} not in {a.liberty}; ABC maps without it "
                     "(no buffering or sizing)")
            else:
                abc_constr = f"-constr {constr}"
        vals = {"ELAB_IL": f"{out}/elab.il", "MACROS_YS": f"{out}/macros.ys",
                "HIER_YS": f"{out}/hier.ys", "SHIFT_MAP": os.path.join(a.constraints, "techmap_shift.v"),
                "TOP": top,
                "LIBERTY": a.liberty, "PERIOD_PS": int(round(period * 1000)),
                "STAT_TXT": f"{out}/stat.txt", "STAT_JSON": f"{out}/stat.json",
                "NETLIST": f"{out}/netlist.v", "ABC_CONSTR": abc_constr}
        fill(os.path.join(a.constraints, "synth.ys.tmpl"), os.path.join(out, "synth.ys"), vals)
        ylog = os.path.join(out, "yosys.log")
        ytext = run_tool("synthesis", [a.yosys, "-t", os.path.join(out, "synth.ys")], ylog)
        t1 = time.time()
        own_areas, yosys_area = parse_stat(yosys_output(os.path.join(out, "stat.txt")))
        stat = yosys_json(os.path.join(out, "stat.json"))
        macro_names = {m["name"]: m for m in macros}
        # Counts and area of the whole block: a kept module counts once per instance.
        by_type, logic_area, kept_inst = hier_totals(stat, own_areas, top, set(macro_names))
        if yosys_area is not None and abs(yosys_area - logic_area) > 0.001 * max(logic_area, 1.0):
            warn(f"area {logic_area:.0f} um2 summed over the hierarchy, Yosys `stat -top` says "
                 f"{yosys_area:.0f} um2")
        leftovers = [t for t in by_type if t.startswith("$")]
        if leftovers:
            raise FlowError("synthesis", f"cells not mapped to the liberty: {', '.join(leftovers)}", ylog)
        cells = sum(n for t, n in by_type.items() if t not in macro_names)
        ffs = sum(n for t, n in by_type.items() if t in seq)
        macro_inst = [{"type": t, "base": macro_names[t]["base"], "params": macro_names[t]["params"],
                 "instances": n, "bits_each": macro_names[t]["bits"],
                 "bits_from": macro_names[t]["bits_from"]}
                for t, n in sorted(by_type.items()) if t in macro_names]
        mem_bits = sum(i["instances"] * i["bits_each"] for i in macro_inst)
        ywarn = sorted({ln.strip() for ln in ytext.splitlines() if ln.startswith("Warning:")})

        # 4. Timing.
        libs = [a.liberty] + ([macro_lib] if macro_inst else [])
        sta_vals = {"READ_LIBS": "\n".join(f"read_liberty {p}" for p in libs),
                    "NETLIST": f"{out}/netlist.v", "TOP": top, "SDC": sdc,
                    "TIMING_RPT": f"{out}/timing.rpt"}
        fill(os.path.join(a.constraints, "sta.tcl.tmpl"), os.path.join(out, "sta.tcl"), sta_vals)
        slog = os.path.join(out, "sta.log")
        stext = run_tool("timing (OpenSTA)", [a.sta, "-no_init", "-no_splash", "-exit", os.path.join(out, "sta.tcl")], slog)
        sta = parse_sta(stext)
        with open(os.path.join(out, "netlist.v"), errors="replace") as fh:
            netlist_mods = netlist_modules(fh.read())
        macro_types = {m["name"] for m in macros}
        for k in ("start", "end"):
            sta[k + "_instance"] = None
            if sta[k] and "flip-flop" in (sta[k + "_kind"] or ""):
                iname = sta[k]
                sta[k + "_instance"] = iname
                # In hierarchical mode the instance sits in a kept module: u_a/u_b/_77_.
                mod, leaf, prefix = locate_instance(netlist_mods, top, iname)
                text = netlist_mods.get(mod, "")
                ctype = instance_type(text, leaf)
                reg = register_of(text, leaf)
                if ctype in macro_types:
                    sta[k] = f"{prefix}{leaf} (macro {ctype})"
                elif reg and not reg.startswith("_"):
                    sta[k] = prefix + reg
        del netlist_mods
        t2 = time.time()
        wns = sta["worst_slack_ns"]
        if wns is None:
            warn("no constrained timing path (no clock and no path from input to output?)")

        result = {
            "block": name, "params": {k: v for k, v, _ in params}, "sdc": sdc, "period_ns": period,
            "flow": {"file": flow_path, "mode": "hierarchical" if kept else "flat",
                     "kept": [{"name": k["name"], "base": k["base"], "params": k["params"],
                               "instances": kept_inst.get(k["name"], 0)} for k in kept]},
            "cells": cells, "logic_area_um2": logic_area, "flip_flops": ffs,
            "cells_by_type": {t: n for t, n in sorted(by_type.items()) if t not in macro_names},
            "macros": macro_inst, "memory_bits": mem_bits,
            "storage_wrapper_bits": own_bits,
            "worst_slack_ns": wns, "tns_ns": sta["tns_ns"],
            "fmax_mhz": (1000.0 / (period - wns)) if wns is not None and period - wns > 0 else None,
            "critical_path": {"start": sta["start"], "start_kind": sta["start_kind"],
                              "start_instance": sta["start_instance"],
                              "end": sta["end"], "end_kind": sta["end_kind"],
                              "end_instance": sta["end_instance"], "arrival_ns": sta["arrival_ns"]},
            "mem_setup_ns": a.mem_setup_ns, "mem_access_ns": a.mem_access_ns,
            "liberty": a.liberty, "sources": files, "yosys_warnings": ywarn,
            "flow_warnings": warnings,
            "seconds": {"synthesis": round(t1 - t0, 1), "timing": round(t2 - t1, 1)},
            "logs": {"elaboration": f"{out}/elab.log", "synthesis": ylog, "timing": slog,
                     "timing_report": f"{out}/timing.rpt", "netlist": f"{out}/netlist.v"},
        }
        if not a.keep:
            for f in ("elab.json", "elab.il"):
                if os.path.exists(os.path.join(out, f)):
                    os.remove(os.path.join(out, f))
        with open(os.path.join(out, "deps.mk"), "w") as fh:
            target = os.path.join(out, "result.json")
            fh.write(f"# Generated by scripts/synth_block.py: what {top}'s synthesis read.\n")
            fh.write(f"{target}: {' '.join(files)}\n")
            for f in files:
                fh.write(f"{f}:\n")
        genutil.write_atomic(os.path.join(out, "result.json"), json.dumps(result, indent=1) + "\n")
        slack = f"{wns:+.3f} ns" if wns is not None else "n/a"
        print(f"synth: {name}: {cells} cells, {logic_area or 0:.0f} um2 logic, {mem_bits} memory bits, "
              f"slack {slack} at {period} ns ({t2 - t0:.0f} s)")
        return 0
    except (InputError, FlowError) as e:
        return failed(e, f"synth: {name}")


if __name__ == "__main__":
    sys.exit(main())
