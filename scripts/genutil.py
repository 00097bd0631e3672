"""Helpers shared by the generators in scripts/ (gen_msg.py, gen_vwrap.py, gen_gtkw_filter.py)."""
import os
import sys


def die(where, what):
    """One line `where: what` on stderr, exit status 2 (bad input)."""
    print(f"{where}: {what}", file=sys.stderr)
    sys.exit(2)


def write_if_changed(path, text):
    """Writes text to path only when it differs, so that make rebuilds only what changed; the
    file is replaced atomically, never left half-written."""
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
