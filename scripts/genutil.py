"""Helpers shared by the generators in scripts/ (gen_msg.py, gen_vwrap.py, gen_gtkw_filter.py, gen_flist.py)
and by synth_block.py."""
import os
import re
import sys


def die(where, what):
    """One line `where: what` on stderr, exit status 2 (bad input)."""
    print(f"{where}: {what}", file=sys.stderr)
    sys.exit(2)


def write_atomic(path, text):
    """Writes text to path through a temporary beside it, renamed over it: never half-written."""
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_if_changed(path, text):
    """Writes text to path only when it differs, so that make rebuilds only what changed; the
    file is replaced atomically, never left half-written."""
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    write_atomic(path, text)


# ---- RTL sources: one module per file, named after it ----

def strip_comments(text):
    """SystemVerilog text without its // and /* */ comments."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def discover_modules(files):
    """Module name -> file, one module per file named after it. ValueError when a name repeats."""
    mods = {}
    for f in files:
        name = os.path.splitext(os.path.basename(f))[0]
        if name in mods:
            raise ValueError(f"module {name} defined by two files: {mods[name]} and {f}")
        mods[name] = f
    return mods


def source_closure(top, mods):
    """Files of `top` and of every known module it instantiates, transitively (`top` first).

    An instantiation is a known module name followed by `#(` or by an instance name and `(`.
    A false positive only reads one more file; a miss makes the tool that elaborates the list name
    the module. ValueError when no file defines `top`.
    """
    if top not in mods:
        raise ValueError(f"no file defines module {top} (expected rtl/{top}.sv or rtl/*/{top}.sv)")
    pats = {m: re.compile(r"\b" + re.escape(m) + r"\s*(#|[A-Za-z_]\w*\s*\()") for m in mods}
    order, pending, seen = [], [top], {top}
    while pending:
        m = pending.pop(0)
        order.append(m)
        with open(mods[m], encoding="utf-8", errors="replace") as fh:
            text = strip_comments(fh.read())
        for other, pat in pats.items():
            if other not in seen and pat.search(text):
                seen.add(other)
                pending.append(other)
    return [mods[m] for m in order]
