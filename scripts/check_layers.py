#!/usr/bin/env python3
"""Checks that csim/'s folders include only the layers below them (docs/architecture.md section 1).

Usage: check_layers.py [CSIM_DIR]   (default csim)

Every `#include "x/y.h"` of a file in folder F must name a header of F itself or of a folder of a
lower rank in LAYERS, and a private header `x/NAME_priv.h` is for `x/NAME*.c` only; a bare `#include "y.h"` must be a generated header (build/gen: msg_defs.h,
the vw_*.h wrappers, ...), which sit below every layer. A folder of csim/ that LAYERS does not name,
or a header that does not exist, is an error too. One line per finding (file:line: what), exit 1
when there is one, 2 on bad usage.
"""
import os
import re
import sys

# Folder -> rank: a folder may include its own headers and those of lower ranks only (peers of one
# rank are independent of each other). Kept in step with docs/architecture.md section 1.
LAYERS = {
    "base": 0,       # event kernel, clocks, statistics, configuration, command line, host threads
    "mem": 1,        # memory devices: DRAM timing
    "drv": 2,        # drivers of the Verilated blocks (fabric, switch, LU, directory), links, zlib engine
    "cn": 3,         # compute node: cores, caches, its memory system, port, replication, its LU
    "mn": 3,         # memory node: directory node, log store of the LUs' dumps
    "gen": 3,        # traffic generators and scripted scenarios for the RTL on its own
    "sw": 4,         # host software on the simulated system: Configuration Manager, MN recovery handler
    "workloads": 4,  # the applications, written against the core's workload API
    "sys": 5,        # system assembly, the oracle of committed stores, checks of the replicas
    "main": 6,       # the programs
}
# Generated headers (build/gen and build/gen/vw), included bare.
GENERATED = re.compile(r"^(msg_defs|csr_defs|vw_[A-Za-z0-9_@]+)\.h$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def check(root):
    bad = []
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            bad.append(f"{path}: a file at csim's top level; every file belongs to a layer folder")
            continue
        if folder not in LAYERS:
            bad.append(f"{path}: folder not in scripts/check_layers.py's LAYERS (give it a rank)")
            continue
        for name in sorted(os.listdir(path)):
            f = os.path.join(path, name)
            if not name.endswith((".c", ".h", ".in")):
                continue
            with open(f, encoding="utf-8") as fh:
                for ln, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    if "/" not in inc:
                        if not GENERATED.match(inc):
                            bad.append(f"{f}:{ln}: #include \"{inc}\": name its folder (\"<layer>/{inc}\")")
                        continue
                    top = inc.split("/", 1)[0]
                    if top not in LAYERS:
                        bad.append(f"{f}:{ln}: #include \"{inc}\": {top}/ is not a layer of csim/")
                    elif not os.path.isfile(os.path.join(root, inc)):
                        bad.append(f"{f}:{ln}: #include \"{inc}\": no such header")
                    elif inc.endswith("_priv.h") and not (
                            top == folder and name.startswith(os.path.basename(inc)[:-len("_priv.h")])):
                        bad.append(f"{f}:{ln}: #include \"{inc}\": a private header, for "
                                   f"{os.path.basename(inc)[:-len('_priv.h')]}*.c of {top}/ only")
                    elif top != folder and LAYERS[top] >= LAYERS[folder]:
                        bad.append(f"{f}:{ln}: #include \"{inc}\": {folder}/ (rank {LAYERS[folder]}) "
                                   f"may not include {top}/ (rank {LAYERS[top]}): only lower layers")
    return bad


def main(argv):
    if len(argv) > 2:
        print("usage: check_layers.py [CSIM_DIR]", file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else "csim"
    if not os.path.isdir(root):
        print(f"check_layers.py: {root}: not a directory", file=sys.stderr)
        return 2
    bad = check(root)
    for b in bad:
        print(b)
    if bad:
        print(f"check_layers: {len(bad)} include(s) against the layers", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
