#!/usr/bin/env python3
"""Host instructions per benchmark row, counted by callgrind: the measure of a speed step that the
machine's load does not move (the bench's wall times vary by a third from hour to hour here; a
count repeats: the fabric rows' exactly, the system rows' to within a few dozen instructions). Each
row is a row of `make bench` (diktamo_bench --only ROW --no-profile, one host thread, one run),
counted only inside the simulation: kernel_run for the fabric rows (the traffic
generator's events included, as the bench times them), system_run for the system rows (without the
set-up and the core model alone). Printed as a table (host instructions; per clocked fabric cycle,
or per simulated instruction) and written to OUT/instr.json and OUT/instr.csv with the commit, the
machine's cores and the date (simruns.provenance); with --base, an earlier instr.json's counts beside and the ratio new / base.

Usage: instr.py [--only PATTERN] [--scale X] [--base FILE] [--jobs N] [--out DIR]
  --only PATTERN  the rows whose name holds PATTERN (default: every row below)
  --scale X       diktamo_bench --scale X (the fabric rows' work; > 0, default 1)
  --base FILE     an earlier run's instr.json: its counts and the ratios
  --jobs N        rows counted at once (default 2)
  --out DIR       where instr.json and instr.csv go (default build/bench)
(`make instr ROWS=PATTERN BASE=FILE`.) Bad arguments stop it with one line and exit status 2 before
anything is built or run. To compare two commits: check the older out in a worktree of its own
(git worktree add), make instr there, then make instr BASE=<its build/bench/instr.json> here."""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import simruns
from simruns import build, die, provenance, writable

simruns.PROG = "instr.py"

BENCH = "build/bin/diktamo_bench"
# (row, function whose calls are counted, the bench's CSV with the row, the simulated unit)
ROWS = [(f"fabric fabric_top_{s}_fast {m}", "kernel_run", "fabric.csv", "clocked fabric cycle")
        for s in ("c4m2", "c16m16") for m in ("busy", "light")] + \
       [(f"system {t} {w}", "system_run", "system.csv", "simulated instruction")
        for t in ("paper", "paper-proactive") for w in ("bodytrack", "fluidanimate", "streamcluster", "canneal",
                                                        "raytrace", "barnes", "ocean_ncp", "ocean_cp", "ycsb")]


def parse(argv):
    o = {"only": None, "scale": "1", "base": None, "jobs": "2", "out": "build/bench"}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a not in ("--only", "--scale", "--base", "--jobs", "--out"):
            die(f"{a}: unknown argument (--only PATTERN, --scale X, --base FILE, --jobs N, --out DIR)")
        if i + 1 >= len(argv):
            die(f"{a} needs a value")
        o[a[2:]] = argv[i + 1]
        i += 2
    if not o["jobs"].isdigit() or int(o["jobs"]) < 1:
        die(f"--jobs {o['jobs']}: a count of 1 or more")
    try:
        scale = float(o["scale"])
    except ValueError:
        scale = 0.0
    if not scale > 0 or scale == float("inf"):
        die(f"--scale {o['scale']}: a number above 0")
    rows = [r for r in ROWS if o["only"] is None or o["only"] in r[0]]
    if not rows:
        die(f"--only {o['only']}: no row's name holds it (rows: {', '.join(r[0] for r in ROWS)})")
    base = {}
    if o["base"] is not None:
        try:
            with open(o["base"]) as f:
                doc = json.load(f)
            base = {k: int(v["host_instructions"]) for k, v in doc["rows"].items()}
        except OSError as e:
            die(f"--base {o['base']}: {e.strerror}")
        except (ValueError, KeyError, TypeError, AttributeError):
            die(f"--base {o['base']}: not an instr.json (rows of host_instructions)")
    return rows, o["scale"], base, int(o["jobs"]), o["out"]


def count(row, scale, tmp):
    """(host instructions, simulated units) of one row, or an exception naming what failed."""
    name, fn, table, _ = row
    d = os.path.join(tmp, name.replace(" ", "_"))
    os.makedirs(d)
    out = os.path.join(d, "callgrind.out")
    cmd = ["valgrind", "--tool=callgrind", f"--toggle-collect={fn}", f"--callgrind-out-file={out}", BENCH,
           "--only", name, "--repeat", "1", "--scale", scale, "--no-profile", "--out", d]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{name}: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()[-400:]}")
    ir = None
    with open(out) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                ir = int(line.split()[1])
                break
    with open(os.path.join(d, table)) as f:
        got = list(csv.DictReader(f))
    if ir is None or len(got) != 1:
        raise RuntimeError(f"{name}: no count in {out} or not one row in {table}")
    units = int(got[0]["clocked" if table == "fabric.csv" else "instructions"])
    return ir, units


def main():
    rows, scale, base, jobs, outdir = parse(sys.argv[1:])
    if not shutil.which("valgrind"):
        die("valgrind is not installed (make instr installs it: scripts/setup.sh)")
    for fname in ("instr.json", "instr.csv"):
        writable(os.path.join(outdir, fname))
    build(BENCH)
    with tempfile.TemporaryDirectory(prefix="instr.") as tmp:
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            futs = [ex.submit(count, row, scale, tmp) for row in rows]
            res, failed = {}, []
            for row, fu in zip(rows, futs):
                try:
                    res[row[0]] = fu.result()
                except (RuntimeError, OSError) as e:
                    failed.append(str(e))
    for f in failed:
        print(f"instr.py: {f}", file=sys.stderr)
    doc = {"provenance": provenance(), "scale": float(scale), "rows": {}}
    head = f"{'row':40s} {'host instructions':>18s} {'per unit':>10s}  unit"
    if base:
        head += f"{'':24s} {'base':>14s} {'new/base':>9s}"
    print(f"instr: host instructions per row (callgrind), {doc['provenance']}")
    print(head)
    lines = [["row", "host_instructions", "units", "unit", "per_unit", "base", "ratio"]]
    for name, fn, table, unit in rows:
        if name not in res:
            continue
        ir, units = res[name]
        per = ir / units if units else 0.0
        e = {"host_instructions": ir, "units": units, "unit": unit, "per_unit": per, "counted_in": fn}
        line = f"{name:40s} {ir:18,d} {per:10.1f}  {unit}"
        b = base.get(name)
        if b:
            e["base"], e["ratio"] = b, ir / b
            line += f"{'':{22 - len(unit)}s}   {b:14,d} {ir / b:9.3f}"
        doc["rows"][name] = e
        print(line)
        lines.append([name, ir, units, unit, f"{per:.1f}", b or "", f"{ir / b:.4f}" if b else ""])
    os.makedirs(outdir, exist_ok=True)
    for fname, write in (("instr.json", lambda f: json.dump(doc, f, indent=1)),
                         ("instr.csv", lambda f: csv.writer(f).writerows(lines))):
        path = os.path.join(outdir, fname)
        with open(path + ".tmp", "w", newline="") as f:
            write(f)
        os.replace(path + ".tmp", path)
    print(f"instr: {os.path.join(outdir, 'instr.json')}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
