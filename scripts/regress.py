#!/usr/bin/env python3
"""`make regress`: the long regression. What `make test` runs once with fixed seeds, run again with
many seeds, plus thousands of seeds of the random coherence tester, longer co-simulations, the
formal checks at larger sizes, a larger failure campaign and the host-side checks.

The independent runs (the suite over N seeds, the coherence testers, the co-simulations) are tasks
of the project's runner (scripts/runner.py): --jobs at a time on this machine, or a Slurm job array
with --engine slurm. Each is kept under build/regress while its command and the programs it runs
(every file of build/bin, their sha256) are the same, so an interrupted regression resumes. The
failure campaign goes through the same runner (scripts/faults.py). The steps that build (make pgo,
make threads, make instr, make test-asan) and the formal checks run here afterwards, one at a time.

Each failure names its seed; rerun one with
  TB_SEED=<seed> build/bin/run_tests --filter '<suite>/<test>'     or
  build/bin/coh_regress[_rtl] --preset <preset> --seed <seed>      or
  the co-simulation's command, which build/regress/<task>.err and the log give.
Usage: scripts/regress.py [--seeds N] [--engine local|slurm] [--jobs J]   (N: 20)
Every line goes to the terminal and to build/reports/regress.log. Exit status 1 when anything failed."""
import argparse
import hashlib
import os
import shlex
import subprocess
import sys

import runner
import simruns

OUT = "build/regress"
LOG = "build/reports/regress.log"
WORKLOADS = ["bodytrack", "fluidanimate", "streamcluster", "canneal", "raytrace", "barnes", "ocean_ncp", "ocean_cp",
             "ycsb"]
# The co-simulations' simulator: small.ini's shape, the test flavour (the RTL's assertions on).
SIM = "build/bin/diktamo_sim_c4m2_test"


def say(text):
    print(f"regress: {text}", flush=True)
    with open(LOG, "a") as f:
        f.write(f"regress: {text}\n")


def bin_digest():
    """sha256 of every program under build/bin: a task's result is kept only while they are the same."""
    h = hashlib.sha256()
    for name in sorted(os.listdir("build/bin")):
        p = os.path.join("build/bin", name)
        if os.path.isfile(p):
            h.update(f"{name} {simruns.digest(p)}\n".encode())
    return h.hexdigest()


def tasks(n, jobs):
    """(task, what its line says) for every independent run."""
    out = []

    def add(name, what, argv):
        out.append((runner.Task(name, argv), what))

    # The suite over N seeds, every replication and recovery case (TB_REPL_ALL, TB_RECOV_ALL); not
    # the sim suite (the co-simulations below) nor the formal one (no seed; it writes build/formal).
    for seed in range(1, n + 1):
        add(f"tests-{seed}", f"tests with TB_SEED={seed}",
            ["env", f"TB_SEED={seed}", "TB_REPL_ALL=1", "TB_RECOV_ALL=1", "build/bin/run_tests",
             "--jobs", "1" if jobs > 1 else str(os.cpu_count() or 1), "--filter", "!(sim/*|formal/*)"])
    # The random coherence tester on the reference directory (C only): every preset over 25 x N seeds
    # from 1000 on; on the RTL directory (Verilated, slower) 2 x N seeds from 5000 on.
    add("coh", f"coh_regress, 25 x {n} seeds of every preset",
        ["build/bin/coh_regress", "--seeds", str(int(os.environ.get("COH_SEEDS", 25 * n))), "--first", "1000"])
    add("coh-rtl", f"coh_regress_rtl, 2 x {n} seeds of every preset",
        ["build/bin/coh_regress_rtl", "--seeds", str(int(os.environ.get("COH_RTL_SEEDS", 2 * n))), "--first", "5000"])
    # Co-simulation of the fabric: loads, link jitter (reorders messages), both fabric clockings.
    variants = [("load1", ["--set", "traffic.load=1.0"]),
                ("jitter", ["--set", "traffic.load=0.2", "--set", "fabric.link_jitter=30ns",
                            "--set", "fabric.link_credits=128"]),
                ("noskip", ["--no-skip"])]
    for seed in range(1, n + 1):
        for v, args in variants:
            add(f"small-{v}-{seed}", f"small.ini --seed {seed} {' '.join(args)}",
                [SIM, "--traffic", "--config", "sim_configs/small.ini", "--seed", str(seed), "--quiet",
                 "--set", "traffic.messages=3000"] + args + ["--stats", f"{OUT}/small-{v}-{seed}.json"])
    # DIKTAMO-proactive with lu.head_reserve = none (the paper's early REPL sets, bounded by the store
    # buffers only) under pressure: 4 CNs of 16 cores on small.ini, so that a CN's early sets toward
    # one LU outnumber its buffer's 64 slots; every workload, N seeds, link jitter. Nothing excludes a
    # deadlock through a full buffer here (docs/architecture.md 11b): a run that stalls is counted as
    # such (DEADLOCK, the stall detector's dump in its .err), not failed; any other error fails it.
    # 30 ms of simulated time: streamcluster's 64 threads take 10.6 ms there (seed 1), small.ini ends at 10.
    for seed in range(1, n + 1):
        for w in WORKLOADS:
            add(f"reserve-none-{w}-{seed}", f"head_reserve=none {w} --seed {seed}",
                [SIM, "--config", "sim_configs/small.ini", "--seed", str(seed), "--quiet",
                 "--set", "system.cores_per_cn=16", "--set", "l3.size=2MiB", "--set", "core.protocol=proactive",
                 "--set", "lu.head_reserve=none", "--set", f"workload.name={w}", "--set", "fabric.link_jitter=20ns",
                 "--set", "workload.ycsb_records=512", "--set", "workload.ycsb_ops=1024",
                 "--set", "sim.end_time=30ms", "--stats", f"{OUT}/reserve-none-{w}-{seed}.json"])
    return out


DEADLOCK = "deadlock"  # a reserve-none run that stalled: the paper's unbounded early sets allow it


def judge(t, status):
    """A run's state: a head_reserve=none co-simulation that stalled is a DEADLOCK, not a failure."""
    if status != 0 and t.name.startswith("reserve-none-"):
        try:
            err = open(os.path.join(OUT, t.name + ".err")).read()
        except OSError:
            err = ""
        if status == 1 and ": no instruction for " in err:
            return DEADLOCK
    return runner.default_judge(t, status)


def step(what, argv, see):
    """A step run here, its output appended to the log."""
    with open(LOG, "a") as f:
        rc = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT).returncode
    say(f"{what}: {'pass' if rc == 0 else f'FAIL (see {see})'}")
    return rc == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    runner.add_arguments(ap)
    a = ap.parse_args()
    if a.seeds < 1 or a.jobs < 1:
        print("regress: --seeds and --jobs must be at least 1", file=sys.stderr)
        return 2
    n = a.seeds
    os.makedirs("build/reports", exist_ok=True)
    os.makedirs(OUT, exist_ok=True)
    open(LOG, "w").close()
    p = subprocess.run(["make", "-s", SIM], capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        return 1
    digest = bin_digest()
    todo = tasks(n, a.jobs)
    for t, _ in todo:
        t.key += f"build/bin sha256 {digest}\n"
    say(f"{len(todo)} runs, {a.jobs} at a time ({a.engine}); each one's output in {OUT}/<run>.out and .err")
    res = runner.run([t for t, _ in todo], OUT, a.engine, a.jobs, "regress", "runs", judge=judge, each=False)
    ok = True
    for t, what in todo:
        st, state, kept = res[t.name]
        if state == runner.FAILED:
            ok = False
            say(f"{what}: FAIL (exit {st}; see {OUT}/{t.name}.out and .err): {shlex.join(t.argv)}")
    none = [t for t, _ in todo if t.name.startswith("reserve-none-")]
    dead = [t.name for t in none if res[t.name][1] == DEADLOCK]
    say(f"{sum(1 for t, _ in todo if res[t.name][1] != runner.FAILED)} of {len(todo)} runs passed")
    say(f"head_reserve=none: {len(dead)} of {len(none)} runs deadlocked (allowed: early sets bounded only by the "
        f"store buffers can fill a replica's buffer; per_core excludes it){': ' + ', '.join(dead) if dead else ''}")

    # The formal checks at the sizes make formal leaves out (constraints/formal/regress: the Murphi
    # model in the other two orders, the liveness property, two lines on two MNs, the control of the
    # fetch's timing assumption, the mutations on 3 CNs; the Logging Unit's ordering proof at 5 slots).
    env_formal = ["env", "FORMAL_OUT=build/formal"]
    ok &= step("formal checks of constraints/formal/regress",
               env_formal + ["bash", "scripts/formal.sh", "--dir", "constraints/formal/regress"], LOG)
    # A larger campaign of CN failures than make faults' default (10 x N runs, campaign seed 7), through
    # the same runner: a RECOVER that waited for a full directory table (fixed in 56c2b33) stalled only there.
    ok &= step(f"make faults RUNS={n * 10} SEED=7",
               ["python3", "scripts/faults.py", "--runs", str(n * 10), "--seed", "7", "--jobs", str(a.jobs),
                "--engine", a.engine, "--out", "build/regress/faults"], f"{LOG} and build/regress/faults/")
    # The simulator built with profile-guided optimization (make pgo) on run.ini's shape: its statistics
    # must equal the plain fast flavour's on every workload under WB and proactive (one round).
    ok &= step("make pgo on run.ini (the same statistics as the plain simulator)",
               ["bash", "scripts/pgo.sh", "--config", "sim_configs/run.ini", "--rounds", "1"], LOG)
    # Two host threads (make threads) on paper.ini: the statistics of every workload under WB and
    # proactive at 64 cores must equal one thread's (one round).
    ok &= step("make threads on paper.ini (the same statistics with two host threads as with one)",
               ["bash", "scripts/threads.sh", "--config", "sim_configs/paper.ini", "--rounds", "1"], LOG)
    # make instr's counts (callgrind) of every row, twice: the second must be the first's to within a
    # millionth (the system rows vary by a few dozen instructions), else a count would not measure the
    # code alone.
    ok &= step("make instr twice (the same host instruction counts)",
               ["sh", "-c", "python3 scripts/instr.py --out build/regress/instr1 && "
                "python3 scripts/instr.py --out build/regress/instr2 --base build/regress/instr1/instr.json && "
                "python3 -c 'import json, sys\n"
                "rows = json.load(open(\"build/regress/instr2/instr.json\"))[\"rows\"]\n"
                "sys.exit(0 if rows and all(abs(r[\"ratio\"] - 1) < 1e-6 for r in rows.values()) else 1)'"], LOG)
    # The whole suite with AddressSanitizer and UndefinedBehaviorSanitizer (make test-asan): no finding.
    ok &= step("make test-asan (AddressSanitizer, UndefinedBehaviorSanitizer)", ["make", "-s", "test-asan"],
               "build/reports/tests-asan.log")
    say("all passed" if ok else "FAILURES above")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
