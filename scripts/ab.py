#!/usr/bin/env python3
"""Two ways of running the simulator, compared on the same runs: each of a configuration's workloads
under WB and DIKTAMO-proactive, run ROUNDS times by way A then way B, alternating (the machine's
load varies; alternating spreads it over both). The statistics of A and B must be identical, but
for the host's side (exit status 1 otherwise); the median wall and user seconds of each and the
ratios B/A are printed and written as JSON.

Usage: ab.py --config FILE --rounds N --out FILE.json --label TEXT
             --a NAME BINARY [ARG...] --b NAME BINARY [ARG...]
(--a and --b take the rest of the line up to the next --b or the end.) Used by scripts/pgo.sh
(the plain simulator against the PGO one) and `make threads` (one host thread against two)."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# The host's side of a run, which differs by design (as tb/test_sim.c's same_stats leaves it out).
HOST = {"wall_s", "instr_per_s", "kernel_events", "cycles_clocked", "cycles_skipped"}
RUNS = [(w, p) for w in ("ocean_cp", "fluidanimate", "ycsb") for p in ("wb", "proactive")]


def usage(msg):
    print(f"ab.py: {msg} (usage: see the script's first lines)", file=sys.stderr)
    sys.exit(2)


def parse(argv):
    opts, ways, i = {}, {}, 0
    while i < len(argv):
        a = argv[i]
        if a in ("--config", "--rounds", "--out", "--label"):
            if i + 1 >= len(argv):
                usage(f"{a} needs a value")
            opts[a[2:]] = argv[i + 1]
            i += 2
        elif a in ("--a", "--b"):
            j = i + 1
            while j < len(argv) and argv[j] not in ("--a", "--b"):
                j += 1
            if j - i < 3:
                usage(f"{a} needs a name and a binary")
            ways[a[2:]] = (argv[i + 1], argv[i + 2:j])
            i = j
        else:
            usage(f"{a}: unknown argument")
    for k in ("config", "rounds", "out", "label"):
        if k not in opts:
            usage(f"--{k} is missing")
    if set(ways) != {"a", "b"}:
        usage("--a and --b are both needed")
    if not opts["rounds"].isdigit() or int(opts["rounds"]) < 1:
        usage(f"--rounds {opts['rounds']}: a count of 1 or more")
    out = opts["out"]  # checked before any run: its folders made, a file creatable there
    try:
        if os.path.isdir(out):
            raise IsADirectoryError(21, "Is a directory")
        if os.path.exists(os.path.dirname(out) or ".") and not os.path.isdir(os.path.dirname(out) or "."):
            raise NotADirectoryError(20, "Not a directory")
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        with open(f"{out}.tmp", "w"):
            pass
        os.unlink(f"{out}.tmp")
    except OSError as e:
        print(f"ab.py: --out {out}: cannot write: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    return opts, ways


def flat(d, p=""):
    r = {}
    for k, v in d.items():
        if k not in HOST:
            r.update(flat(v, p + k + ".") if isinstance(v, dict) else {p + k: v})
    return r


def run(cmd, stats):
    """Wall and user seconds of one run (of the process and its children)."""
    t0, u0 = time.monotonic(), os.times()
    r = subprocess.run(cmd + ["--quiet", "--stats", stats], stdout=subprocess.DEVNULL)
    if r.returncode:
        print(f"ab.py: {' '.join(cmd)}: exit status {r.returncode} (its message is above)", file=sys.stderr)
        sys.exit(1)
    u1 = os.times()
    return time.monotonic() - t0, u1.children_user - u0.children_user


def main():
    opts, ways = parse(sys.argv[1:])
    rounds, config = int(opts["rounds"]), opts["config"]
    names = {k: ways[k][0] for k in "ab"}
    times = {(r, k): [] for r in RUNS for k in "ab"}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            for w, p in RUNS:
                for k in "ab":
                    cmd = ways[k][1] + ["--config", config, "--set", f"workload.name={w}", "--set", f"core.protocol={p}"]
                    times[(w, p), k].append(run(cmd, f"{tmp}/{w}_{p}_{k}.json"))
        rows, bad = [], []
        a_n, b_n = names["a"], names["b"]
        print(f"{opts['label']}: median seconds of {rounds} alternating runs each ({config})")
        print(f"  {'workload':<18} {a_n + ' wall':>12} {b_n + ' wall':>12} {'ratio':>7} "
              f"{a_n + ' user':>12} {b_n + ' user':>12} {'ratio':>7}  statistics")
        for w, p in RUNS:
            med = {k: [statistics.median(t[i] for t in times[(w, p), k]) for i in (0, 1)] for k in "ab"}
            sa, sb = (flat(json.load(open(f"{tmp}/{w}_{p}_{k}.json"))) for k in "ab")
            diff = sorted(k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k))
            if diff:
                bad.append(f"{w} {p}: {len(diff)} statistics differ, e.g. {diff[0]}: {sa.get(diff[0])} vs "
                           f"{sb.get(diff[0])}")
            rw = med["b"][0] / med["a"][0] if med["a"][0] > 0 else float("nan")
            ru = med["b"][1] / med["a"][1] if med["a"][1] > 0 else float("nan")
            rows.append({"workload": w, "protocol": p, f"{a_n}_wall_s": med["a"][0], f"{b_n}_wall_s": med["b"][0],
                         "wall_ratio": rw, f"{a_n}_user_s": med["a"][1], f"{b_n}_user_s": med["b"][1],
                         "user_ratio": ru, "identical": not diff})
            print(f"  {w + ' ' + p:<18} {med['a'][0]:12.2f} {med['b'][0]:12.2f} {rw:7.3f} {med['a'][1]:12.2f} "
                  f"{med['b'][1]:12.2f} {ru:7.3f}  {'identical' if not diff else 'DIFFER'}")
    os.makedirs(os.path.dirname(opts["out"]) or ".", exist_ok=True)
    with open(opts["out"] + ".tmp", "w") as f:  # whole or not at all
        json.dump({"label": opts["label"], "config": config, "rounds": rounds, "a": a_n, "b": b_n, "rows": rows},
                  f, indent=1)
    os.replace(opts["out"] + ".tmp", opts["out"])
    print(f"{opts['label']}: {opts['out']}")
    for m in bad:
        print(f"{opts['label']}: {m}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
