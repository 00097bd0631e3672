#!/usr/bin/env python3
"""`make faults`: a seeded campaign of CN failures and recoveries (docs/architecture.md 11g).

Each run is one diktamo_sim co-simulation of sim_configs/run.ini's scale (16 cores in all, 2 MiB
MNs) on one of SHAPES (3 to 16 CNs, 2 to 16 MNs; the CNs' cores split 16 between them), of a
workload (the paper's nine applications, hcmeta, megalon, the range indexes) under WT or a DIKTAMO variant (baseline, parallel,
proactive, proactive-noC) with Nr 1 to 4, and CNs failing at moments drawn from the campaign's seed:
  commits   one CN after a random number of committed remote store words (REPLs and VALs in flight);
  time      one CN at a random time while the workload runs (see WINDOW_SHARE);
  dump      one CN a few ns after a log dump starts (every LU dumping);
  flush     one CN at a random time, with DRAM logs of 16 KiB and a watermark at half (Early
            Flushes several times per dump period);
  second    one CN early, then another one 0 to 30 us after the first recovery has ended (back to
            back: --fail CN@+TIME);
  during    one CN early, then another one within 20 us of the first's detection, while it is being
            recovered (Nr 3 or 4);
  cm        one CN but 0 early, then CN 0, the Configuration Manager, during that recovery (Nr 3
            or 4); the next live CN takes its role over;
  nr        Nr CNs within a few ns, before any recovery: unrecoverable by design under DIKTAMO (each
            store has Nr copies), which the CM must report; WT must recover them all.
With Nr 1 every failure is one of Nr failures before a recovery. Such a run must end with the CM
reporting the failed CNs unrecoverable (recovery.unrecoverable, exit status 1): it is counted as
unrecoverable by design, and the words it loses are reported apart, not as lost. A committed store
lost that way may leave the workload's own data inconsistent (a lock whose release was lost, a
pointer that held garbage): such a run may then stall, spin until its end time or make a bad access
(the simulator reports it), and is counted apart again (the oracle does not run on it). Every run ends by END_FACTOR times its failure-free execution time plus END_SLACK_NS. Every other run
must complete on the survivors with the oracle finding no committed store lost and no phantom
value, and the workload's own check passing.

Prints the failures injected, the recoveries completed, the runs unrecoverable by design, the
committed stores checked, the stores lost and phantom values (both must be 0) and the recovery
latency (MSI to the last RecovEndResp) min / median / p99 / max, and every failing run with the
command that replays it. Writes OUT/summary.json (build/results/faults).

The runs go through the project's runner (scripts/runner.py): on this machine (--jobs at a time) or
as a Slurm job array (--engine slurm); each run's statistics are kept under OUT while its command,
simulator and configuration file are the same, so that an interrupted campaign resumes where it
stopped. Before its runs, the campaign measures each (workload, variant, shape) it draws without a
failure (OUT/window-*.json): a failure drawn at a time falls in the first WINDOW_SHARE of that run.
When such a failure-free run fails (a deadlock, say), the campaign's runs of that combination fail
with its replay command, unrun, and the others go on.

Usage: scripts/faults.py [--runs N] [--seed S] [--jobs J] [--engine local|slurm] [--config FILE]
                         [--shapes c3m2,c4m2,...] [--out DIR] [--bin DIR]
Exit status: 0 when every run passed, 1 otherwise, 2 on bad arguments."""
import argparse
import json
import os
import random
import re
import shlex
import sys

import runner
import simruns
from simruns import build, digest, die, writable, write_atomic

simruns.PROG = "faults"

VARIANTS = [
    ("wt", ("--set", "core.protocol=wt")),
    ("baseline", ("--set", "core.protocol=baseline")),
    ("parallel", ("--set", "core.protocol=parallel")),
    ("proactive", ("--set", "core.protocol=proactive")),
    ("proactive-noC", ("--set", "core.protocol=proactive", "--set", "core.coalesce=false")),
]
WORKLOADS = ["bodytrack", "fluidanimate", "streamcluster", "canneal", "raytrace", "barnes", "ocean_ncp", "ocean_cp",
             "ycsb", "hcmeta", "megalon", "sc_btree", "sc_art", "sc_lsm", "prism"]
# Settings of the workloads on run.ini. Megalon keeps its objects and log in the Large Non-coherent
# Region above a 256 KiB coherent one, with 256 records for its 1024 objects and a 64-entry log (so
# that records and log slots change hands while CNs fail), inserts and deletes among its writes.
# HCMeta too, with an index of 128 entries for 256 objects and an owner's software time of 2 us, so
# that owners share objects on request all along (a failed owner's partition is taken over while
# clients wait on it), in runs of about 240 us on 4 CNs.
# Four applications run smaller inputs than run.ini's, 80 to 480 us of a run on 4 CNs instead of up
# to 2.5 ms (fluidanimate's two frames of 768 particles took 9 s of host time a run), so that a
# campaign of thousands of runs fits in hours; a failure still meets every phase and several dumps.
# The range indexes run 512 keys in the LNR above a 256 KiB coherent region, half their operations
# puts (100 to 200 us a run, under 0.5 s of host time): the trees with 8 versions in the SCR (the
# others spilled into the LNR), the LSMs with tables of 32 keys, a 1 KiB memtable and a 4 KiB
# manifest (Prism: 16 BUL nodes), so that flushes and merges run while CNs fail.
_INDEX = ["mem.scr_size=256KiB", "workload.share_objects=512", "workload.share_ops=400",
          "workload.share_read_pct=50"]
_LSM = _INDEX + ["workload.share_scr_budget=5248B", "workload.lsm_table_keys=32", "workload.lsm_memtable=1KiB",
                 "workload.lsm_manifest=4KiB"]
WORKLOAD_SETS = {"sc_btree": _INDEX + ["workload.share_scr_budget=64B"],
                 "sc_art": _INDEX + ["workload.share_scr_budget=64B"],
                 "sc_lsm": _LSM,
                 "prism": _LSM[:2] + ["workload.share_ops=300"] + _LSM[3:],
                 "hcmeta": ["mem.scr_size=256KiB", "workload.share_objects=256", "workload.share_ops=512",
                            "workload.share_scr_budget=6656B", "workload.hcmeta_rpc=2us", "workload.share_read_pct=70",
                            "workload.share_insert_pct=5", "workload.share_delete_pct=5"],
                 "megalon": ["mem.scr_size=256KiB", "workload.share_scr_budget=1KiB",
                             "workload.megalon_log_entries=64", "workload.share_read_pct=70",
                             "workload.share_insert_pct=5", "workload.share_delete_pct=5"],
                 "fluidanimate": ["workload.fluidanimate_particles=128", "workload.fluidanimate_frames=1"],
                 "bodytrack": ["workload.bodytrack_particles=64"],
                 "canneal": ["workload.canneal_steps=12"],
                 "ycsb": ["workload.ycsb_ops=512"]}
KINDS = ["commits", "time", "dump", "flush", "second", "during", "cm", "nr"]
# The fabric shapes (CNs, MNs): every CN count from 3 to 16 is not one Verilated fabric each; these
# eight span them and every MN count (a power of two, 2 to 16). A shape's CNs share 16 cores.
SHAPES = ["c3m2", "c4m2", "c5m4", "c6m8", "c8m2", "c10m16", "c12m4", "c16m16"]
TOTAL_CORES = 16
DUMP_PERIOD_US = 20     # sim_configs/run.ini's lu.dump_period
DETECT_US = 5           # the switch detects a failure 4.1 us after it (silence_limit: 4096 cycles at 1 GHz)
DURING_US = 20          # the shortest recoveries at this scale take 26 us from the MSI (make faults' own figures)
# A failure drawn at a time lands in the first WINDOW_SHARE of the failure-free execution time of its
# workload, variant and shape, measured by this campaign itself before its runs (windows below), so
# that it falls while the workload runs whatever the simulator's speed of the day.
WINDOW_SHARE = 0.7
# A run's sim.end_time: this many times its failure-free execution time, plus this (recoveries, and
# bodytrack's and megalon's work lost with a CN done again, take well under it).
END_FACTOR = 3
END_SLACK_NS = 2000000
UNRECOVERABLE = "unrecoverable"  # a run's state: Nr or more CNs failed before a recovery, as planned


def shape_counts(shape):
    m = re.fullmatch(r"c(\d+)m(\d+)", shape)
    return int(m.group(1)), int(m.group(2))


def base_args(wl, vargs, shape):
    """--set arguments of a workload and its settings, a variant and a shape."""
    cn, mn = shape_counts(shape)
    a = ["--set", "system.num_cn=%d" % cn, "--set", "system.num_mn=%d" % mn,
         "--set", "system.cores_per_cn=%d" % max(1, TOTAL_CORES // cn), "--set", "workload.name=" + wl]
    for x in WORKLOAD_SETS.get(wl, []):
        a += ["--set", x]
    return a + list(vargs)


class Plan:
    """One run of the campaign: its name, workload, variant, shape, Nr, kind, the failing CNs, and
    whether the design must report it unrecoverable."""

    def __init__(self, i, wl, variant, shape, nr, kind):
        self.i, self.wl, self.variant, self.shape, self.nr, self.kind = i, wl, variant, shape, nr, kind
        self.name = "%05d-%s-%s-%s-nr%d-%s" % (i, wl, variant[0], shape, nr, kind)
        self.fail_args = []
        self.failing = 0  # CNs the plan fails before any recovery can end (the design survives fewer than Nr)
        self.end_ns = 0   # its sim.end_time (place)

    @property
    def unrecoverable(self):
        """DIKTAMO keeps each store in Nr LUs: Nr failed CNs before a recovery lose some by design; WT
        keeps none in CNs and survives them."""
        return self.variant[0] != "wt" and self.failing >= self.nr

    def args(self, seed):
        return ["--seed", str(seed)] + base_args(self.wl, self.variant[1], self.shape) + \
            ["--set", "lu.nr=%d" % self.nr, "--set", "sim.end_time=%dns" % self.end_ns] + self.fail_args


def draw(runs, seed, shapes):
    """The campaign's runs, drawn from the seed: every workload in turn, each with the variants, the
    kinds and the shapes in turn; Nr and the failures from the seed. Times are drawn as fractions,
    placed in their windows once those are measured (place)."""
    rng = random.Random(seed)
    out = []
    for i in range(runs):
        wl = WORKLOADS[i % len(WORKLOADS)]
        variant = VARIANTS[(i + i // len(WORKLOADS)) % len(VARIANTS)]
        kind = KINDS[i % len(KINDS)]
        shape = shapes[(i // (len(WORKLOADS) * len(KINDS) // 2)) % len(shapes)]
        ncn = shape_counts(shape)[0]
        if kind in ("during", "cm"):
            nr = rng.choice([3, 4])
        elif kind == "second":
            nr = rng.choice([2, 3, 4])
        elif kind == "nr":
            nr = rng.choice([1, 2, 3, 4])
        else:
            nr = rng.choice([1, 2, 2, 3, 3, 3, 4, 4, 4])  # Nr 1 (unrecoverable at once) a run in nine
        nr = min(nr, ncn - 1 if kind == "nr" else ncn)
        p = Plan(i, wl, variant, shape, nr, kind)
        p.seed = rng.randrange(1, 1 << 31)
        p.u = [rng.random() for _ in range(4)]
        p.cns = rng.sample(range(ncn), ncn)  # the failing CNs, in order
        if kind == "cm":
            p.cns.remove(0)
            p.cns.insert(1, 0)
        out.append(p)
    return out


def place(p, win_ns, win_commits, exec_ns):
    """Sets a run's failures and its end time once the window of its workload, variant and shape
    (and that run's execution time) is known."""
    u, cns = p.u, p.cns
    p.end_ns = END_FACTOR * exec_ns + END_SLACK_NS
    if p.kind == "commits":
        p.fail_args = ["--set", "fail.cn=%d" % cns[0],
                       "--set", "fail.after_commits=%d" % (1 + int(u[0] * max(1, min(2500, win_commits) - 1)))]
        p.failing = 1
    elif p.kind in ("time", "flush"):
        if p.kind == "flush":
            p.fail_args = ["--set", "lu.dram_log_bytes=16KiB", "--set", "lu.high_watermark=0.5"]
        p.fail_args += ["--set", "fail.cn=%d" % cns[0], "--set", "fail.at=%dns" % (500 + int(u[0] * max(1, win_ns - 500)))]
        p.failing = 1
    elif p.kind == "dump":
        k = 1 + int(u[0] * max(1, win_ns // (DUMP_PERIOD_US * 1000)))
        p.fail_args = ["--fail", "%d@%dns" % (cns[0], k * DUMP_PERIOD_US * 1000 + 1 + int(u[1] * 199))]
        p.failing = 1
    elif p.kind == "nr":
        t = 500 + int(u[0] * 9500)
        for k in range(p.nr):
            p.fail_args += ["--fail", "%d@%dns" % (cns[k], t + k * (1 + int(u[1] * 100)))]
        p.failing = p.nr
    elif p.kind == "second":  # back to back: up to 30 us after the first recovery has ended (--fail CN@+TIME)
        p.fail_args = ["--fail", "%d@%dns" % (cns[0], 500 + int(u[0] * 9500)),
                       "--fail", "%d@+%dns" % (cns[1], int(u[1] * 30000))]
        p.failing = 1
    else:  # during the first recovery: from its detection on, within the shortest recoveries seen
        t1 = 500 + int(u[0] * 9500)
        t2 = t1 + DETECT_US * 1000 + int(u[1] * DURING_US * 1000)
        p.fail_args = ["--fail", "%d@%dns" % (cns[0], t1), "--fail", "%d@%dns" % (cns[1], t2)]
        p.failing = 2


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


def load(out, name):
    try:
        with open(os.path.join(out, name + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def last_line(out, name):
    """What a run said went wrong: its stderr's last line of diktamo_sim's own (a stall's dump of what
    waits on what follows its headline), else its last line."""
    try:
        lines = open(os.path.join(out, name + ".err")).read().strip().splitlines()
    except OSError:
        lines = []
    own = [x for x in lines if x.startswith("diktamo_sim: ")]
    return own[-1] if own else lines[-1] if lines else ""


def verdict(out, p, status):
    """A finished run's state (ok, UNRECOVERABLE or runner.FAILED) and what went wrong, if anything."""
    d = load(out, p.name)
    f, r, u = (int(stat(d, k)) for k in ("system.failures", "recovery.count", "recovery.unrecoverable"))
    lost, phantom = int(stat(d, "oracle.lost")), int(stat(d, "oracle.phantom"))
    if not d:
        return runner.FAILED, last_line(out, p.name) or "no statistics (exit %d)" % status
    if phantom:
        return runner.FAILED, "%d phantom values" % phantom
    if f == 0:
        return runner.FAILED, "the workload ended before the failure"
    if p.unrecoverable:
        if u and status == 1 and "unrecoverable:" in last_line(out, p.name):
            return UNRECOVERABLE, ""
        if u:
            return runner.FAILED, "the CM reported %d CNs unrecoverable (lu.nr = %d), but the run did not end so: %s" % (
                u, p.nr, last_line(out, p.name))
        return runner.FAILED, "%d CNs failed before a recovery with lu.nr = %d, and the CM did not report them " \
            "unrecoverable (exit %d)" % (p.failing, p.nr, status)
    if status != 0 or u or lost:
        return runner.FAILED, last_line(out, p.name) or "exit %d, %d words lost" % (status, lost)
    if r != f:
        return runner.FAILED, "%d failures, %d recovered" % (f, r)
    return "ok", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    runner.add_arguments(ap)
    ap.add_argument("--config", default="sim_configs/run.ini")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--out", default="build/results/faults")
    ap.add_argument("--bin", help="take the simulators from this folder, built already (default: build them in build/bin)")
    a = ap.parse_args()
    if a.runs < 1 or a.jobs < 1:
        die("--runs and --jobs must be at least 1")
    shapes = a.shapes.split(",")
    for s in shapes:
        m = re.fullmatch(r"c(\d+)m(\d+)", s)
        if not m or not 3 <= int(m.group(1)) <= 32 or int(m.group(2)) not in (2, 4, 8, 16, 32):
            die(f"--shapes {a.shapes}: {s} is not a shape cNmM with 3 .. 32 CNs and 2 .. 32 MNs (a power of two)")
    if not os.path.isfile(a.config):
        die(f"{a.config}: no such configuration file")
    writable(os.path.join(a.out, "summary.json"))
    runner.PROGRESS_S = float(os.environ.get("RUNNER_PROGRESS_S", "15"))
    plans = draw(a.runs, a.seed, shapes)
    used = sorted({p.shape for p in plans}, key=lambda s: shape_counts(s))
    for s in used:
        if not a.bin:
            build(f"build/bin/diktamo_sim_{s}", f"SIM_SHAPE={s}")
        elif not os.access(os.path.join(a.bin, f"diktamo_sim_{s}"), os.X_OK):
            die(f"--bin {a.bin}: no simulator diktamo_sim_{s} there")
    cfg = a.config

    def task(name, shape, args):
        sim = os.path.join(a.bin or "build/bin", f"diktamo_sim_{shape}")
        cmd = [sim, "--config", cfg, "--quiet", "--stats", os.path.join(a.out, name + ".json")] + args
        key = f"{shlex.join(cmd)}\nsimulator sha256 {digest(sim)}\n{cfg} sha256 {digest(cfg)}\n"
        return runner.Task(name, cmd, key, outputs=[os.path.join(a.out, name + ".json")])

    # The windows: each (workload, variant, shape) the plan draws, without a failure, Nr 2.
    combos = sorted({(p.wl, p.variant, p.shape) for p in plans})
    wtasks = {c: task("window-%s-%s-%s" % (c[0], c[1][0], c[2]), c[2],
                      ["--seed", str(a.seed)] + base_args(c[0], c[1][1], c[2]) + ["--set", "lu.nr=2"]) for c in combos}
    print(f"faults: {a.runs} runs of {cfg} on {' '.join(used)}, campaign seed {a.seed}, {a.jobs} at a time "
          f"({a.engine}); first the {len(combos)} failure-free runs that size the failure windows", flush=True)
    res = runner.run(list(wtasks.values()), a.out, a.engine, a.jobs, "faults", "windows", each=False)
    win, nowin = {}, {}  # nowin: the combinations whose failure-free run failed, and why
    for c, t in wtasks.items():
        d = load(a.out, t.name)
        if res[t.name][1] == runner.FAILED or not d:
            nowin[c] = "its failure-free run failed (%s): %s" % (
                last_line(a.out, t.name) or "exit %d" % res[t.name][0], shlex.join(t.argv))
            continue
        win[c] = (int(WINDOW_SHARE * stat(d, "system.exec_time_ns")),
                  int(WINDOW_SHARE * stat(d, "system.committed_remote_words")), int(stat(d, "system.exec_time_ns")))
    for c, why in sorted(nowin.items()):
        print(f"faults: {c[0]} {c[1][0]} {c[2]}: {why}", file=sys.stderr)
    byname, tasks, task_of = {}, [], {}
    for p in plans:  # a run whose window could not be sized is a failure of the campaign, not run
        byname[p.name] = p
        if (p.wl, p.variant, p.shape) in win:
            place(p, *win[(p.wl, p.variant, p.shape)])
            task_of[p.name] = task(p.name, p.shape, p.args(p.seed))
            tasks.append(task_of[p.name])
    notes = {}

    def judge(t, status):
        state, why = verdict(a.out, byname[t.name], status)
        notes[t.name] = why
        return state

    res = runner.run(tasks, a.out, a.engine, a.jobs, "faults", "runs", judge=judge, keep_failed=True, each=False)

    injected = recovered = stores = lost = phantom = undurable = unrec = unrec_lost = unrec_open = 0
    lat, bad, by_kind = [], [], {}
    for p in plans:
        k = by_kind.setdefault(p.kind, {"runs": 0, "failures": 0, "unrecoverable": 0, "failed": 0})
        k["runs"] += 1
        if p.name not in task_of:
            k["failed"] += 1
            bad.append((p.name, "(not run)", -1, nowin[(p.wl, p.variant, p.shape)]))
            continue
        t = task_of[p.name]
        d = load(a.out, p.name)
        state = res[p.name][1]
        injected += int(stat(d, "system.failures"))
        recovered += int(stat(d, "recovery.count"))
        stores += int(stat(d, "oracle.stores"))
        phantom += int(stat(d, "oracle.phantom"))
        undurable += int(stat(d, "oracle.undurable"))
        k["failures"] += int(stat(d, "system.failures"))
        if state == UNRECOVERABLE:
            unrec += 1
            unrec_lost += int(stat(d, "oracle.lost"))
            unrec_open += "did not end after it" in last_line(a.out, p.name)
            k["unrecoverable"] += 1
        else:
            lost += int(stat(d, "oracle.lost"))
            if stat(d, "recovery.runs"):
                lat.append(stat(d, "recovery.total_ns") / stat(d, "recovery.runs"))
        if state == runner.FAILED:
            k["failed"] += 1
            bad.append((p.name, shlex.join(t.argv), res[p.name][0], notes.get(p.name) or verdict(a.out, p, res[p.name][0])[1]))
    summary = {
        "runs": a.runs, "seed": a.seed, "config": cfg, "shapes": used, "failures_injected": injected,
        "recoveries_completed": recovered, "unrecoverable_runs": unrec, "words_lost_in_unrecoverable_runs": unrec_lost,
        "unrecoverable_runs_not_ended": unrec_open,
        "committed_stores_checked": stores, "stores_lost": lost, "phantom_values": phantom,
        "undurable_words": undurable,
        "recovery_ns": {"min": min(lat) if lat else 0, "median": percentile(lat, 50), "p99": percentile(lat, 99),
                        "max": max(lat) if lat else 0},
        "by_kind": by_kind,
        "failed_runs": [{"name": n, "command": c, "status": s, "message": m} for n, c, s, m in bad],
    }
    write_atomic(os.path.join(a.out, "summary.json"), json.dumps(summary, indent=2) + "\n")
    print("failures injected      %d" % injected)
    print("recoveries completed   %d" % recovered)
    print("unrecoverable by design %d runs (Nr or more CNs failed before a recovery; %d words lost there, "
          "not counted below; %d of them stalled, spun or made a bad access afterwards, unchecked)" % (unrec, unrec_lost, unrec_open))
    print("committed stores       %d checked" % stores)
    print("stores lost            %d (must be 0)" % lost)
    print("phantom values         %d (must be 0)" % phantom)
    print("not durable at failure %d words (their VALs never left the failed CN: allowed)" % undurable)
    print("recovery latency (us)  min %.1f  median %.1f  p99 %.1f  max %.1f" % tuple(
        x / 1000.0 for x in (summary["recovery_ns"]["min"], summary["recovery_ns"]["median"],
                             summary["recovery_ns"]["p99"], summary["recovery_ns"]["max"])))
    print("by kind                " + ", ".join("%s %d/%d" % (k, v["failures"], v["runs"]) for k, v in by_kind.items()) +
          " (failures/runs)")
    for name, cmd, rc, msg in bad:
        print("FAILED %s (exit %d): %s\n  replay: %s" % (name, rc, msg, cmd))
    print("make faults: %s (%s)" % ("PASS" if not bad else "FAIL: %d of %d runs" % (len(bad), a.runs),
                                   os.path.join(a.out, "summary.json")))
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
