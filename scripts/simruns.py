"""The runs behind `make figures`, `make megalon` and `make prism`: each simulation a line of
diktamo_sim, run through the project's one runner (scripts/runner.py: on this machine, `jobs` at a
time, or as a Slurm job array) with a progress line, its statistics kept under an output directory
and not run again while its command, simulator binary and configuration file (their sha256) are the
same (an interrupted call resumes); gnuplot histograms and line plots of the results.

A script sets PROG (its name, the prefix of every line it prints) before it calls anything here."""
import hashlib
import json
import os
import shlex
import subprocess
import sys
import time

import runner
from genutil import write_atomic  # noqa: F401 (the scripts take it from here too)

PROG = "simruns"
# Keys of the host's side only: how many host threads a run uses, never what it simulates (its
# statistics are the same; tb/test_sim.c checks it). A script may give them (HOST_SETS, "key=value"):
# they go on every run's command line but not into what decides whether a run is made again.
HOST_KEYS = ("sim.threads", "sim.zlib_threads")
HOST_SETS = []
# Where the runs run: runner.ENGINES (a script sets it from its --engine).
ENGINE = "local"
# The simulator's flavour: build/bin/diktamo_sim_<shape> or its _test build.
FLAVOUR_SUFFIX = {"fast": "", "test": "_test"}


def die(msg, code=2):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(code)


# ---- outputs: checked before the work starts, written whole ----

def writable(path):
    """Stops the script (one line naming path and the reason, exit 2) unless a file can be written at
    path: its folders are made and a temporary is created beside it and removed. Called before any
    run, for every file or folder (path/.) the script will write."""
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        if os.path.isdir(path) and not path.endswith("/."):
            raise IsADirectoryError(21, "Is a directory")
        folder = os.path.dirname(path) or "."
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise NotADirectoryError(20, "Not a directory")
        os.makedirs(folder, exist_ok=True)
        with open(tmp, "w"):
            pass
        os.unlink(tmp)
    except OSError as e:
        die(f"{path.removesuffix('/.')}: cannot write: {e.strerror}")


def copy_atomic(src, dst):
    """Copies src to dst through a temporary beside dst."""
    import shutil
    tmp = f"{dst}.tmp.{os.getpid()}"
    try:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


class Run:
    """One simulation: a name, the shape it needs and its --set arguments."""

    def __init__(self, name, sets, may_stall=False):
        self.name, self.sets = name, sets
        self.shape = self.sim = None  # the fabric shape it needs, the simulator binary that runs it
        # A stall (the simulator's deadlock detector) is a result of this run, not a failure: a
        # configuration that allows a deadlock by design (lu.head_reserve = none).
        self.may_stall = may_stall

    def args(self, cfg, seed):
        a = ["--config", cfg, "--seed", str(seed)]
        for s in self.sets:
            a += ["--set", s]
        return a


def build(target, *args):
    """make TARGET; its output is shown only when it fails."""
    p = subprocess.run(["make", "-s"] + list(args) + [target], capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        die(f"could not build {target}", 1)


def shape_of(cfg, seed, run):
    """The fabric shape a run needs; bad input stops everything here (exit status 2)."""
    p = subprocess.run(["build/bin/diktamo_cfg"] + run.args(cfg, seed) + ["--shape"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        sys.exit(2 if p.returncode == 2 else 1)
    return p.stdout.strip()


_digests = {}


def digest(path):
    """sha256 of a file's bytes (computed once per file and call)."""
    if path not in _digests:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _digests[path] = h.hexdigest()
    return _digests[path]


def place(run, cfg, seed, flavour):
    """The run's fabric shape and the simulator binary (of that flavour) that runs it."""
    run.shape = shape_of(cfg, seed, run)
    run.sim = f"build/bin/diktamo_sim_{run.shape}{FLAVOUR_SUFFIX[flavour]}"


def task(out, cfg, seed, run):
    """The runner's task for a run: its statistics in out/NAME.json, kept while its command, simulator
    binary and configuration file (their sha256) are the same (a run of an older build is made again)."""
    sim = run.sim
    cmd = [sim] + run.args(cfg, seed) + ["--quiet", "--stats", f"{out}/{run.name}.json"]
    key = f"{shlex.join(cmd)}\nsimulator sha256 {digest(sim)}\n{cfg} sha256 {digest(cfg)}\n"
    if run.may_stall:
        key += MAY_STALL
    for s in HOST_SETS:
        cmd += ["--set", s]
    return runner.Task(run.name, cmd, key, outputs=[f"{out}/{run.name}.json"])


def judge(out):
    """A finished run's state: ok, stalled (a stall its configuration allows: Run.may_stall) or FAILED."""
    def j(t, status):
        if status == 0:
            return "ok"
        return "stalled" if stalled(out, t.name) else runner.FAILED
    return j


def simulate(out, cfg, seed, run):
    """Runs one simulation unless it is kept (see task); returns (name, status, kept), status 0 for a
    stall the run allows."""
    t = task(out, cfg, seed, run)
    st, state, kept = runner.run([t], out, ENGINE, 1, PROG, "run", judge(out), quiet=True)[t.name]
    return run.name, (1 if state == runner.FAILED else 0), kept


# A run that may stall: a line of its key; what diktamo_sim says of a stall.
MAY_STALL = "may stall\n"
STALL_SAYS = ": no instruction for "


def stalled(out, name):
    """The run ended in a stall its configuration allows (Run.may_stall)."""
    try:
        done = open(f"{out}/{name}.done").read()
        err = open(f"{out}/{name}.err").read()
    except FileNotFoundError:
        return False
    return MAY_STALL in done and not done.endswith("status 0\n") and STALL_SAYS in err


def run_all(out, cfg, seed, runs, jobs, label):
    """Runs a list through the runner (ENGINE, jobs at a time) with a progress line per run that ends,
    and one naming the runs under way (with their time so far) every PROGRESS_S seconds that none ends;
    then, when any failed, prints each one's error and replay and exits 1. Returns how many were kept."""
    res = runner.run([task(out, cfg, seed, r) for r in runs], out, ENGINE, jobs, PROG, label, judge(out))
    failed = [r for r in runs if res[r.name][1] == runner.FAILED]
    for r in failed:
        sys.stderr.write(open(f"{out}/{r.name}.err").read())
        print(f"{PROG}: {r.name} failed; replay: bash scripts/run_sim.sh {shlex.join(r.args(cfg, seed))}",
              file=sys.stderr)
    if failed:
        sys.exit(1)
    return sum(1 for r in runs if res[r.name][2])


def load(out, name):
    d = json.load(open(f"{out}/{name}.json"))
    o = d["oracle"]
    if o["lost"] or o["phantom"]:
        die(f"{name}: the oracle found {o['lost']} lost and {o['phantom']} phantom words", 1)
    return d


def provenance(mine=()):
    """The commit (and whether the tree differs from it, the paths this script writes, mine, aside)
    and the machine, for the claims' record."""
    def git(*a):
        p = subprocess.run(["git"] + list(a), capture_output=True, text=True)
        return p.stdout.strip() if p.returncode == 0 else ""
    rev = git("rev-parse", "--short", "HEAD") or "unknown commit"
    if git("status", "--porcelain", "--untracked-files=no", "--", ".", *[f":(exclude){m}" for m in mine]):
        rev += " with local changes"
    return f"{rev}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}"


def ini_value(lines, sec, key):
    """A key's value in an effective configuration (diktamo_sim's <stats>.ini, diktamo_cfg --dump), or None."""
    cur = None
    for line in lines:
        line = line.split(";")[0].strip()
        if line.startswith("["):
            cur = line.strip("[]")
        elif cur == sec and "=" in line and line.split("=")[0].strip() == key:
            return line.split("=", 1)[1].strip()
    return None


def run_key(out, name, sec, key):
    """A key's value in the configuration a run wrote beside its statistics (<name>.json.ini)."""
    v = ini_value(open(f"{out}/{name}.json.ini"), sec, key)
    if v is None:
        die(f"{out}/{name}.json.ini has no {sec}.{key}", 1)
    return v


# ---- gnuplot ----

def write_dat(path, header, rows):
    lines = [" ".join(header)]
    for r in rows:
        lines.append(" ".join(r[0:1] + ["%.6g" % v if isinstance(v, (int, float)) else str(v) for v in r[1:]]))
    write_atomic(path, "\n".join(lines) + "\n")


def draw(out, name, body):
    """Runs a gnuplot script body twice: NAME.svg and NAME.png under out."""
    for term, ext in (("svg size 900,420 dynamic font ',11'", "svg"), ("pngcairo size 900,420 font ',10'", "png")):
        gp, tmp = f"{out}/{name}.{ext}.gp", f"{out}/{name}.{ext}.tmp.{os.getpid()}"
        write_atomic(gp, f"set terminal {term}\nset output '{tmp}'\n" + body)
        p = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
        if p.returncode != 0:
            if os.path.exists(tmp):
                os.unlink(tmp)
            die(f"gnuplot could not draw {name}.{ext}: {p.stderr.strip()}", 1)
        os.replace(tmp, f"{out}/{name}.{ext}")


def plot(out, name, title, ylabel, dat, ncols, stacked=False, extra=""):
    """A histogram of dat's columns 2 .. ncols + 1, one group per row, as NAME.svg and NAME.png."""
    style = "rowstacked" if stacked else "clustered gap 1"
    body = f"""set title '{title}'
set style data histograms
set style histogram {style}
set style fill solid 0.85 border -1
set boxwidth 0.8
set key outside right top
set grid ytics
set yrange [0:*]
set ylabel '{ylabel}'
{extra}
plot for [c=2:{ncols + 1}] '{dat}' using c:xtic(1) title columnhead(c)
"""
    draw(out, name, body)


def plot_lines(out, name, title, ylabel, dat, ncols, logy=False):
    """Lines with points of dat's columns 2 .. ncols + 1 against its first (a category per row), as
    NAME.svg and NAME.png."""
    body = f"""set title '{title}'
set key outside right top
set grid ytics
set ylabel '{ylabel}'
set xlabel '{open(dat).readline().split()[0]}'
{"set logscale y" if logy else "set yrange [0:*]"}
plot for [c=2:{ncols + 1}] '{dat}' using 0:c:xtic(1) with linespoints lw 2 title columnhead(c)
"""
    draw(out, name, body)


def verdict(ours, blog, reason):
    """A blog experiment's verdict on a headline ratio: ours within a factor 2 of the blog's, or why not."""
    ok = ours > 0 and blog / 2 <= ours <= blog * 2
    return "agrees (within a factor 2)" if ok else f"differs: {reason}"


def headline_results(out, doc, lines, table):
    """Ends a blog experiment's report: lines, then the table of headline ratios (name, ours, the
    blog's, the verdict), written to out/doc and printed."""
    lines += ["## Headline ratios", "", "| ratio | ours | blog | verdict |", "| --- | --- | --- | --- |"]
    for name, ours, blog, judged in table:
        lines.append(f"| {name} | {ours:.3g} | {blog:.3g} | {judged} |")
    lines.append("")
    md = "\n".join(lines)
    write_atomic(f"{out}/{doc}", md)
    print(md)


def blog_main(doc, experiments, report, sizes, figs, results, out):
    """The command line of a blog's scaled experiments (make megalon, make prism): options --config,
    --seed, --out (default out), --docs, --size (one of sizes), --jobs, --flavour; builds the
    simulators, runs experiments(size)'s runs (kept across calls), calls report(out, size, took,
    mine), which writes out/results, and with --docs copies results and the figures (figs, under
    out) into the docs."""
    import argparse
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--config", default="sim_configs/pc.ini")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=out)
    ap.add_argument("--docs")
    ap.add_argument("--size", default="default", choices=sorted(sizes))
    runner.add_arguments(ap)
    ap.add_argument("--flavour", default="fast", choices=sorted(FLAVOUR_SUFFIX))
    a = ap.parse_args()
    global ENGINE
    ENGINE = a.engine
    if not os.path.isfile(a.config):
        die(f"no configuration file {a.config}")
    if a.jobs < 1:
        die(f"--jobs {a.jobs}: at least 1")
    build("build/bin/diktamo_cfg")
    runs = experiments(a.size)
    for r in runs:
        place(r, a.config, a.seed, a.flavour)
    for path in [f"{a.out}/.", f"{a.out}/{results}"] + (
            [f"{a.docs}/{results}"] + [f"{a.docs}/figures/{fn}" for fn in figs] if a.docs else []):
        writable(path)
    for s in sorted({r.shape for r in runs}):
        build(f"build/bin/diktamo_sim_{s}{FLAVOUR_SUFFIX[a.flavour]}", f"SIM_SHAPE={s}")
    t0 = time.time()
    kept = run_all(a.out, a.config, a.seed, runs, a.jobs, "runs")
    took = f"{len(runs) - kept} of its {len(runs)} runs made by this call in {(time.time() - t0) / 60:.1f} minutes, " \
           f"{a.jobs} at a time"
    mine = [f"{a.docs}/{results}"] + [f"{a.docs}/figures/{fn}" for fn in figs] if a.docs else []
    report(a.out, a.size, took, mine)
    if a.docs:
        os.makedirs(f"{a.docs}/figures", exist_ok=True)
        for fn in figs:
            copy_atomic(f"{a.out}/{fn}", f"{a.docs}/figures/{fn}")
        copy_atomic(f"{a.out}/{results}", f"{a.docs}/{results}")
