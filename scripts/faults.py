#!/usr/bin/env python3
"""`make faults`: a seeded campaign of CN failures and recoveries (docs/architecture.md 11g).

Each run is one diktamo_sim co-simulation of a workload (the paper's nine applications, megalon) under WT or a DIKTAMO
variant (baseline, parallel, proactive, proactive-noC) with Nr 2 or 3, and a CN failing at a moment
drawn from the campaign's seed:
  commits   after a random number of committed remote store words (REPLs and VALs in flight);
  time      at a random time while the workload runs (see WINDOW_SHARE);
  dump      a few ns after a log dump starts (every LU dumping);
  flush     at a random time while it runs, with DRAM logs of 16 KiB and a watermark at half (Early Flushes
            several times per dump period);
  second    a random CN early, then another one after the first recovery has ended;
  during    a random CN early, then another one while the first is being recovered (Nr 3: with
            Nr 2, two CNs failed before a recovery is unrecoverable by design);
  cm        a random CN but 0 early, then CN 0, the Configuration Manager, during that recovery
            (Nr 3); the next live CN takes its role over.
Every run must complete on the survivors with the oracle finding no committed store lost and no
phantom value, and the workload's own check passing. Prints the failures injected, the
recoveries completed, the committed stores checked, the stores lost and phantom values (both must
be 0), and the recovery latency (MSI to the last RecovEndResp) min / median / p99 / max; every
failing run with the command that replays it. Writes build/results/faults/summary.json.

Usage: scripts/faults.py [--runs N] [--seed S] [--jobs J] [--config FILE] [--shape SHAPE]
Exit status: 0 when every run passed, 1 otherwise, 2 on bad arguments."""
import argparse
import json
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import simruns
from simruns import writable, write_atomic

simruns.PROG = "faults"

VARIANTS = [
    ("wt", ["--set", "core.protocol=wt"]),
    ("baseline", ["--set", "core.protocol=baseline"]),
    ("parallel", ["--set", "core.protocol=parallel"]),
    ("proactive", ["--set", "core.protocol=proactive"]),
    ("proactive-noC", ["--set", "core.protocol=proactive", "--set", "core.coalesce=false"]),
]
WORKLOADS = ["bodytrack", "fluidanimate", "streamcluster", "canneal", "raytrace", "barnes", "ocean_ncp", "ocean_cp",
             "ycsb", "megalon"]
# Settings a workload needs on run.ini: megalon keeps its objects and log in the Large Non-coherent
# Region above a 256 KiB coherent one, with 256 records for its 1024 objects and a 64-entry log (so
# that records and log slots change hands while CNs fail), inserts and deletes among its writes.
WORKLOAD_SETS = {"megalon": ["mem.scr_size=256KiB", "workload.share_scr_budget=1KiB",
                             "workload.megalon_log_entries=64", "workload.share_read_pct=70",
                             "workload.share_insert_pct=5", "workload.share_delete_pct=5"]}


def wl_args(wl):
    """--set arguments naming workload wl and its settings."""
    a = ["--set", "workload.name=" + wl]
    for x in WORKLOAD_SETS.get(wl, []):
        a += ["--set", x]
    return a
KINDS = ["commits", "time", "dump", "flush", "second", "during", "cm"]
NUM_CN = 4
DUMP_PERIOD_US = 20     # sim_configs/run.ini's lu.dump_period
RECOVERY_US = 165       # a recovery on run.ini's 2 MiB MNs ends 140 to 160 us after the failure
DETECT_US = 5           # the switch detects a failure 4.1 us after it (silence_limit: 4096 cycles at 1 GHz)
# A failure drawn at a time lands in the first WINDOW_SHARE of the workload's failure-free execution
# time under the run's variant, measured by this campaign itself before its runs (window below), so
# that it falls while the workload runs whatever the simulator's speed of the day.
WINDOW_SHARE = 0.7


def simulate(sim, config, out, name, args):
    """Runs diktamo_sim on config with args, its statistics in out/name.json: (the command, its
    exit status, its stderr, the statistics or {} when it wrote none)."""
    stats = os.path.join(out, name + ".json")
    cmd = [sim, "--config", config, "--quiet", "--stats", stats] + args
    if os.path.exists(stats):
        os.remove(stats)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    d = {}
    if os.path.exists(stats):
        with open(stats) as f:
            d = json.load(f)
    return cmd, p.returncode, p.stderr, d


def windows(sim, config, out, seed, jobs):
    """Per (workload, variant name): (the window, in us, in which a failure drawn at a time lands:
    WINDOW_SHARE of the failure-free execution time of that workload under that variant; the most
    committed remote words after which a failure drawn by commits lands: WINDOW_SHARE of that run's)
    (Nr 2, the campaign's seed; statistics in out/window-WORKLOAD-VARIANT.json). Exits 1 naming the
    run when one of them fails."""
    def one(wv):
        wl, (vname, vargs) = wv
        args = ["--seed", str(seed)] + wl_args(wl) + ["--set", "lu.nr=2"] + vargs
        cmd, rc, err, d = simulate(sim, config, out, "window-%s-%s" % (wl, vname), args)
        if rc != 0 or not d:
            msg = (err.strip().splitlines() or ["exit %d" % rc])[-1]
            print("make faults: the failure-free run that sizes the windows failed: %s: %s" % (" ".join(cmd), msg),
                  file=sys.stderr)
            sys.exit(1)
        return (wl, vname), (WINDOW_SHARE * stat(d, "system.exec_time_ns") / 1000.0,
                             int(WINDOW_SHARE * stat(d, "system.committed_remote_words")))

    pairs = [(wl, v) for wl in WORKLOADS for v in VARIANTS]
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        return dict(ex.map(one, pairs))


def plan(runs, seed, window_us):
    """The campaign's runs: (name, arguments) drawn from the seed, every combination in turn; a
    failure drawn at a time lands within window_us[(workload, variant)] (see windows)."""
    rng = random.Random(seed)
    out = []
    for i in range(runs):
        # every workload in turn, each with the variants in turn (ten runs make one round of workloads)
        wl = WORKLOADS[i % len(WORKLOADS)]
        vname, vargs = VARIANTS[(i + i // len(WORKLOADS)) % len(VARIANTS)]
        nr = 2 + (i // len(VARIANTS)) % 2
        kind = KINDS[i % len(KINDS)]
        if kind in ("during", "cm"):
            nr = 3
        run_seed = rng.randrange(1, 1 << 31)
        cn = rng.randrange(1 if kind == "cm" else 0, NUM_CN)
        args = ["--seed", str(run_seed)] + wl_args(wl) + ["--set", "lu.nr=%d" % nr] + vargs
        win_us, win_commits = window_us[(wl, vname)]
        win_ns = int(win_us * 1000)
        if kind == "commits":
            args += ["--set", "fail.cn=%d" % cn, "--set", "fail.after_commits=%d" % rng.randrange(1, max(2, min(2500, win_commits)))]
        elif kind in ("time", "flush"):
            if kind == "flush":
                args += ["--set", "lu.dram_log_bytes=16KiB", "--set", "lu.high_watermark=0.5"]
            args += ["--set", "fail.cn=%d" % cn, "--set", "fail.at=%dns" % rng.randrange(500, max(501, win_ns))]
        elif kind == "dump":
            k = rng.randrange(1, max(1, win_ns // (DUMP_PERIOD_US * 1000)) + 1)
            args += ["--fail", "%d@%dns" % (cn, k * DUMP_PERIOD_US * 1000 + rng.randrange(1, 200))]
        else:
            t1 = rng.randrange(500, 10000)
            cn2 = 0 if kind == "cm" else (cn + 1 + rng.randrange(NUM_CN - 1)) % NUM_CN
            if kind == "second":
                t2 = t1 + RECOVERY_US * 1000 + rng.randrange(1, 15000)
            else:  # during the first recovery: from its detection to its end
                t2 = t1 + rng.randrange(DETECT_US * 1000, RECOVERY_US * 1000 - 20000)
            args += ["--fail", "%d@%dns" % (cn, t1), "--fail", "%d@%dns" % (cn2, t2)]
        name = "%03d-%s-%s-nr%d-%s" % (i, wl, vname, nr, kind)
        out.append((name, args))
    return out


def stat(d, key):
    """A statistic of a diktamo_sim --stats file (nested by the dots of its name)."""
    for part in key.split("."):
        if not isinstance(d, dict) or part not in d:
            return 0
        d = d[part]
    return d if isinstance(d, (int, float)) else 0


def percentile(xs, p):
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--config", default="sim_configs/run.ini")
    ap.add_argument("--shape", default="c4m2")
    ap.add_argument("--out", default="build/results/faults")
    a = ap.parse_args()
    if a.runs < 1 or a.jobs < 1:
        print("faults: --runs and --jobs must be at least 1", file=sys.stderr)
        return 2
    sim = "build/bin/diktamo_sim_" + a.shape
    writable(os.path.join(a.out, "summary.json"))
    win = windows(sim, a.config, a.out, a.seed, a.jobs)
    runs = plan(a.runs, a.seed, win)
    print("make faults: %d runs of %s, campaign seed %d, %d at a time" % (a.runs, a.config, a.seed, a.jobs))
    print("failure windows (us, %d %% of each failure-free run): %s" % (100 * WINDOW_SHARE, ", ".join(
        "%s %.0f-%.0f" % (wl, min(win[(wl, v[0])][0] for v in VARIANTS), max(win[(wl, v[0])][0] for v in VARIANTS))
        for wl in WORKLOADS)))

    def one(run):
        name, args = run
        return (name,) + simulate(sim, a.config, a.out, name, args)

    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        results = list(ex.map(one, runs))

    injected = recovered = stores = lost = phantom = undurable = 0
    lat = []
    bad = []
    for name, cmd, rc, err, d in results:
        f, r = int(stat(d, "system.failures")), int(stat(d, "recovery.count"))
        runs_ = int(stat(d, "recovery.runs"))
        injected += f
        recovered += r
        stores += int(stat(d, "oracle.stores"))
        lost += int(stat(d, "oracle.lost"))
        phantom += int(stat(d, "oracle.phantom"))
        undurable += int(stat(d, "oracle.undurable"))
        if runs_:
            lat.append(stat(d, "recovery.total_ns") / runs_)
        if rc != 0 or r != f or f == 0:
            first = (err.strip().splitlines() or [""])[-1]
            if not first:
                first = "the workload ended before the failure" if f == 0 else "%d failures, %d recovered" % (f, r)
            bad.append((name, " ".join(cmd), rc, first))
    summary = {
        "runs": a.runs, "seed": a.seed, "failures_injected": injected, "recoveries_completed": recovered,
        "committed_stores_checked": stores, "stores_lost": lost, "phantom_values": phantom,
        "undurable_words": undurable,
        "recovery_ns": {"min": min(lat) if lat else 0, "median": percentile(lat, 50), "p99": percentile(lat, 99),
                        "max": max(lat) if lat else 0},
        "failed_runs": [{"name": n, "command": c, "status": s, "message": m} for n, c, s, m in bad],
    }
    write_atomic(os.path.join(a.out, "summary.json"), json.dumps(summary, indent=2))
    print("failures injected      %d" % injected)
    print("recoveries completed   %d" % recovered)
    print("committed stores       %d checked" % stores)
    print("stores lost            %d (must be 0)" % lost)
    print("phantom values         %d (must be 0)" % phantom)
    print("not durable at failure %d words (their VALs never left the failed CN: allowed)" % undurable)
    print("recovery latency (us)  min %.1f  median %.1f  p99 %.1f  max %.1f" % tuple(
        x / 1000.0 for x in (summary["recovery_ns"]["min"], summary["recovery_ns"]["median"],
                             summary["recovery_ns"]["p99"], summary["recovery_ns"]["max"])))
    for name, cmd, rc, msg in bad:
        print("FAILED %s (exit %d): %s\n  replay: %s" % (name, rc, msg, cmd))
    print("make faults: %s (%s)" % ("PASS" if not bad else "FAIL: %d of %d runs" % (len(bad), a.runs),
                                   os.path.join(a.out, "summary.json")))
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
