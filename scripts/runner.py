#!/usr/bin/env python3
"""One runner for the project's long sweeps (make faults, make figures, make megalon, make prism and
the runs of make regress): a list of tasks, each a named command line, run on this machine
(--engine local: --jobs at a time) or on a Slurm cluster (--engine slurm: one job array, `sbatch
--array`), with the same files either way, under the sweep's output folder:
  NAME.out, NAME.err  the command's standard output and standard error
  NAME.done           the task's key (what decides whether its result can be kept: its command
                      line and the digests of its inputs) and its exit status; written last, whole:
                      a task without it did not finish
A finished task whose NAME.done holds the same key is kept, not run again, so that an interrupted
sweep resumes where it stopped: a sweep says which finished tasks are results (a failure campaign
keeps every run; make figures runs a failed simulation again).

On Slurm, the repository (with its build/) and the output folder must be on a file system every
node sees, as they are on a cluster's shared home or scratch. The array's elements run
`python3 scripts/runner.py --exec LIST INDEX` in the repository, each its share of the tasks (at
most SLURM_ARRAY_MAX elements, 1000 by default, as Slurm's own MaxArraySize allows 1001), exactly
as the local engine runs them. The submitting script polls squeue and the .done files (a progress
line), cancels the array when it is interrupted, and gathers the results as the local engine does;
a task whose element died without a result (a node lost, a time limit) is a failure naming its
Slurm output file. Settings from the environment:
  SBATCH_ARGS       more options for sbatch, split as a shell would (--partition=..., --time=...,
                    --account=...)
  SLURM_ARRAY_MAX   the most elements in the array (1000)
  RUNNER_POLL_S     seconds between two polls (2)
--jobs is the most tasks under way at once: local processes, or the array's throttle (%N).

A sweep script calls add_arguments(parser) and run(...); this file's own command line is only the
array elements' --exec."""
import concurrent.futures
import json
import math
import os
import shlex
import subprocess
import sys
import time

ENGINES = ("local", "slurm")
# Seconds between two progress lines (RUNNER_PROGRESS_S, or FIGURES_PROGRESS_S as before; the tests set it).
PROGRESS_S = float(os.environ.get("RUNNER_PROGRESS_S", os.environ.get("FIGURES_PROGRESS_S", "60")))
FAILED = "FAILED"


class Task:
    """A command line to run once: name (unique in its sweep, a file name), argv, key (the text that
    decides whether a finished result is kept; by default the command line), outputs (files the
    command writes, which a kept result must still have)."""

    def __init__(self, name, argv, key=None, outputs=()):
        self.name, self.argv = name, list(argv)
        self.key = key if key is not None else shlex.join(self.argv) + "\n"
        self.outputs = list(outputs)


def add_arguments(ap, jobs_help="tasks under way at once (default: this machine's cores)"):
    """--engine and --jobs, the same in every sweep script."""
    ap.add_argument("--engine", default=os.environ.get("ENGINE") or "local", choices=ENGINES,
                    help="where the tasks run: this machine, or a Slurm cluster (a job array)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help=jobs_help)


def paths(out, name):
    return {x: os.path.join(out, f"{name}.{x}") for x in ("out", "err", "done")}


def status_of(out, task):
    """The exit status of a finished task whose key is task's, or None (not run, run with another
    key, interrupted, or an output missing)."""
    try:
        with open(paths(out, task.name)["done"]) as f:
            text = f.read()
    except FileNotFoundError:
        return None
    if not text.startswith(task.key):
        return None
    rest = text[len(task.key):].split()
    if len(rest) != 2 or rest[0] != "status":
        return None
    if not all(os.path.exists(p) for p in task.outputs):
        return None
    return int(rest[1])


def execute(out, name, argv, key):
    """Runs one task here: its output in NAME.out and NAME.err, then NAME.done (key and status,
    written whole). Returns the exit status (negative: killed by that signal)."""
    p = paths(out, name)
    if os.path.exists(p["done"]):
        os.unlink(p["done"])
    with open(p["out"], "w") as o, open(p["err"], "w") as e:
        try:
            rc = subprocess.run(argv, stdout=o, stderr=e).returncode
        except OSError as x:  # no such program: a failure of this task, said in its .err
            e.write(f"runner: {argv[0]}: {x.strerror}\n")
            rc = 127
    tmp = f"{p['done']}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(f"{key}status {rc}\n")
    os.replace(tmp, p["done"])
    return rc


def default_judge(task, status):
    return "ok" if status == 0 else FAILED


class Sweep:
    """The progress of one call of run(): what it prints, and the results so far."""

    def __init__(self, prog, label, n, each, quiet):
        self.prog, self.label, self.n, self.each, self.quiet = prog, label, n, each, quiet
        self.t0 = self.last = time.time()
        self.k = self.kept = self.made = 0
        self.states = {}

    def line(self, text):
        if not self.quiet:
            print(f"{self.prog}: {self.label} [{self.k}/{self.n}] {text}", flush=True)

    def finished(self, task, state, kept):
        self.k += 1
        self.kept += kept
        self.made += not kept
        self.states[state] = self.states.get(state, 0) + 1
        if self.each or state == FAILED:
            self.line(f"{task.name}: {'kept' if kept else state} ({time.time() - self.t0:.0f} s)")
            self.last = time.time()

    def summary(self):
        """kept 3, ok 12, FAILED 1, 40 s, about 2.5 min left"""
        el = time.time() - self.t0
        parts = [f"kept {self.kept}"] + [f"{s} {c}" for s, c in sorted(self.states.items())]
        left = ""
        if self.made and self.k < self.n:
            left = f", about {(el / self.made) * (self.n - self.k) / 60:.1f} min left"
        return f"{', '.join(parts)}; {el:.0f} s{left}"

    def tick(self, under):
        """Every PROGRESS_S without a line: the tasks under way (each: per task) or the counts."""
        if time.time() - self.last < PROGRESS_S:
            return
        self.last = time.time()
        if self.each and under:
            now = time.time()
            self.line("running: " + ", ".join(f"{n} ({(now - t) / 60:.1f} min)" for n, t in under))
        elif not self.each:
            self.line(self.summary())


def run(tasks, out, engine="local", jobs=1, prog="runner", label="runs", judge=default_judge, keep_failed=False,
        each=True, quiet=False):
    """Runs the tasks that have no kept result; returns {name: (status, state, kept)} for every task.
    judge(task, status) names a finished task's state ("ok", FAILED, or a sweep's own word such as
    "stalled" or "unrecoverable"); a result is kept when its key is the same and it is not FAILED, or
    always with keep_failed. each: a line per finished task (else a progress line every PROGRESS_S
    and a line per failure); quiet: no line at all."""
    names = [t.name for t in tasks]
    if len(set(names)) != len(names):
        raise ValueError("two tasks of one sweep have the same name")
    os.makedirs(out, exist_ok=True)
    sweep = Sweep(prog, label, len(tasks), each, quiet)
    results, todo = {}, []
    for t in tasks:
        st = status_of(out, t)
        state = judge(t, st) if st is not None else None
        if st is not None and (keep_failed or state != FAILED):
            results[t.name] = (st, state, True)
            sweep.finished(t, state, True)
        else:
            todo.append(t)
    if todo:
        (run_local if engine == "local" else run_slurm)(todo, out, jobs, sweep, judge, results)
    if not each and tasks:
        sweep.line("done: " + sweep.summary())
    return results


def run_local(todo, out, jobs, sweep, judge, results):
    started = {}

    def one(t):
        started[t.name] = time.time()
        return execute(out, t.name, t.argv, t.key)

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(one, t): t for t in todo}
        pending = set(futs)
        try:
            while pending:
                done, pending = concurrent.futures.wait(pending, timeout=min(PROGRESS_S, 5),
                                                        return_when=concurrent.futures.FIRST_COMPLETED)
                for f in done:
                    t = futs[f]
                    st = f.result()
                    state = judge(t, st)
                    results[t.name] = (st, state, False)
                    sweep.finished(t, state, False)
                if pending:
                    sweep.tick([(futs[f].name, started[futs[f].name]) for f in pending if futs[f].name in started])
        except KeyboardInterrupt:
            ex.shutdown(wait=False, cancel_futures=True)
            raise


# ---- Slurm ----

def slurm_cmd(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    return p.returncode, p.stdout.strip(), p.stderr.strip()


def run_slurm(todo, out, jobs, sweep, judge, results):
    amax = int(os.environ.get("SLURM_ARRAY_MAX", "1000"))
    chunk = max(1, math.ceil(len(todo) / amax))
    elems = math.ceil(len(todo) / chunk)
    sdir = os.path.abspath(os.path.join(out, "slurm"))
    os.makedirs(sdir, exist_ok=True)
    stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    listing = os.path.join(sdir, f"tasks-{stamp}.json")
    with open(listing + ".tmp", "w") as f:
        json.dump({"out": os.path.abspath(out), "chunk": chunk,
                   "tasks": [{"name": t.name, "argv": t.argv, "key": t.key} for t in todo]}, f)
    os.replace(listing + ".tmp", listing)
    me = os.path.abspath(__file__)
    argv = ["sbatch", "--parsable", f"--job-name={sweep.prog}-{sweep.label.replace(' ', '-')}",
            f"--chdir={os.getcwd()}", f"--output={sdir}/%A_%a.out", f"--array=0-{elems - 1}%{jobs}",
            "--ntasks=1"] + shlex.split(os.environ.get("SBATCH_ARGS", "")) + [
            f"--wrap={shlex.join([sys.executable, me, '--exec', listing])} \"$SLURM_ARRAY_TASK_ID\""]
    rc, so, se = slurm_cmd(argv)
    if rc != 0:
        print(f"{sweep.prog}: sbatch refused the array: {se or so}", file=sys.stderr)
        sys.exit(1)
    job = so.split(";")[0]
    sweep.line(f"Slurm job {job}: {len(todo)} tasks in {elems} array elements, {jobs} at a time "
               f"(its output: {sdir}/{job}_*.out)")
    poll = float(os.environ.get("RUNNER_POLL_S", "2"))
    left = {t.name: t for t in todo}
    index = {t.name: i for i, t in enumerate(todo)}
    try:
        while left:
            for name in list(left):
                st = status_of(out, left[name])
                if st is not None:
                    t = left.pop(name)
                    state = judge(t, st)
                    results[name] = (st, state, False)
                    sweep.finished(t, state, False)
            if not left:
                break
            rc, so, se = slurm_cmd(["squeue", "-h", "-j", job, "-o", "%i %T"])
            if (rc == 0 and not so) or (rc != 0 and "Invalid job id" in se):
                # the array has ended: a last look, then whatever has no result was lost
                for name in list(left):
                    st = status_of(out, left[name])
                    t = left.pop(name)
                    if st is None:
                        el = index[name] // chunk
                        with open(paths(out, name)["err"], "a") as e:
                            e.write(f"runner: Slurm job {job}'s element {el} ended without this task's result "
                                    f"(see {sdir}/{job}_{el}.out)\n")
                        st = -1
                    state = judge(t, st)
                    results[name] = (st, state, False)
                    sweep.finished(t, state, False)
                break
            sweep.tick([])
            time.sleep(poll)
    except KeyboardInterrupt:
        slurm_cmd(["scancel", job])
        print(f"{sweep.prog}: interrupted: Slurm job {job} cancelled", file=sys.stderr)
        raise


def exec_element(listing, index):
    """An array element: its share of the listed tasks, one after the other."""
    with open(listing) as f:
        d = json.load(f)
    c = d["chunk"]
    for t in d["tasks"][index * c:(index + 1) * c]:
        execute(d["out"], t["name"], t["argv"], t["key"])
    return 0  # a task's failure is its result (in its .done), not the element's


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--exec":
        sys.exit(exec_element(sys.argv[2], int(sys.argv[3])))
    print("usage: runner.py --exec TASKS.json INDEX (an element of a Slurm array the sweeps submit)", file=sys.stderr)
    sys.exit(2)
