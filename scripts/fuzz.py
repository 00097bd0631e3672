#!/usr/bin/env python3
"""`make fuzz`: runs the libFuzzer harnesses of tb/fuzz/ one after the other (docs/architecture.md 11).

Each harness (built by scripts/mk/fuzz.mk into --bin) runs for --seconds, or for --runs inputs,
with libFuzzer's seed --seed, from its committed seed corpus tb/fuzz/corpus/<harness>/ (read only);
the inputs it finds that reach new code go to <work>/corpus/<harness>/, which a run empties first
unless --keep (then it starts from what earlier runs found), and a crash's input to
<work>/artifacts/<harness>/. The configuration harnesses (fuzz_ini, fuzz_set) get a dictionary of
every section, key, unit and enum name, made from the key reference sim_configs/README.md (which
config_write_doc writes and a test keeps equal to the key table).

Prints per harness: executions, executions per second, coverage (libFuzzer's final `cov:`, the
instrumented edges reached, of how many the harness and the sources it exercises hold, and `ft:`,
its features: edges with their hit counts), the corpus, and any crash, leak, undefined behaviour
or broken invariant with the command that replays it. Writes <out>/summary.json (whole, or not at
all), with the commit, the date and the machine's cores.

Usage: scripts/fuzz.py [--bin DIR] [--work DIR] [--out DIR] [--seconds N | --runs N] [--seed S]
                       [--keep] HARNESS...
Exit status: 0 when no harness found anything, 1 otherwise, 2 on bad arguments."""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys

from genutil import write_atomic

SEEDS = "tb/fuzz/corpus"
KEY_REFERENCE = "sim_configs/README.md"
# Longest input libFuzzer makes, per harness: a configuration file of a few dozen lines; a list of
# --set arguments; one --fail argument; a flit (80 bytes) and a message's fields to encode (81).
MAX_LEN = {"fuzz_ini": 4096, "fuzz_set": 1024, "fuzz_fail": 128, "fuzz_msg": 256}
DICT = {"fuzz_ini", "fuzz_set"}
# The parser's functions each harness exercises (llvm-cov's names: a static function is FILE:NAME),
# whose lines and branches the coverage build counts over the corpus a run ended with.
C = "config.c:"
PARSER = {
    "fuzz_ini": ("csim/base/config.c", [
        "config_load_stream", C + "load_precheck", C + "load_stream", C + "load_reader", C + "precheck_line",
        C + "load_handler", C + "load_fail", C + "parse_val", C + "parse_uint", C + "parse_scaled", C + "check_val",
        "config_validate", "config_write_ini", C + "fmt_val", C + "fmt_scaled", C + "fmt_real"]),
    "fuzz_set": ("csim/base/config.c", [
        "config_set", C + "trim", C + "parse_val", C + "parse_uint", C + "parse_scaled", C + "check_val",
        "config_validate", "config_value_str", C + "fmt_val", C + "fmt_scaled", C + "fmt_real"]),
    "fuzz_fail": ("csim/base/cli.c", ["cli_parse_fail", "cli_parse_time", "cli_fail_what"]),
    "fuzz_msg": ("build/gen/msg_defs.c", [
        "msg_unpack", "msg_pack", "msg_check", "msg_equal", "msg_bytes", "msg_name", "msg_class_name",
        "msg_fields_used", "msg_data_kind", "msg_field_width", "msg_field_get", "msg_field_set"]),
}


def die(msg):
    print(f"fuzz: {msg}", file=sys.stderr)
    sys.exit(2)


def config_dict(path):
    """libFuzzer dictionary lines for the configuration parsers: `[section]`, `section.key`, `key =`,
    units and enum names, from the key reference's tables."""
    words = {"=", " = ", " ;", "; ", "#", "\n", "0x", ".", "true", "false", "yes", "no", "on", "off"}
    words |= {u for u in ("B", "KiB", "MiB", "GiB", "TiB", "ps", "ns", "us", "ms", "s", "Hz", "kHz", "MHz", "GHz")}
    section = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^### \[(\w+)\]", line)
            if m:
                section = m.group(1)
                words |= {f"[{section}]", f"{section}."}
                continue
            m = re.match(r"^\| `(\w+)` \| (\w+)[^|]*\| `([^`]*)` \| ([^|]*) \|", line)
            if m and section:
                key, typ, default, rng = m.groups()
                words |= {f"{section}.{key}=", f"{key} = ", default}
                if typ == "enum":
                    words |= {n.strip() for n in rng.split(",") if n.strip()}
    # libFuzzer's dictionary escapes: \x41 for any byte (it also reads \\ and \").
    def esc(w):
        return "".join(c if c.isprintable() and c not in '\\"' else f"\\x{ord(c):02X}" for c in w)

    return "".join(f'"{esc(w)}"\n' for w in sorted(words))


def parse_log(text):
    """The numbers of libFuzzer's log: its last status line, its final stats and any finding."""
    r = {"executions": None, "exec_per_sec": None, "cov": None, "ft": None, "edges": None, "corpus": None,
         "new_units": None, "peak_rss_mb": None}
    m = re.search(r"INFO: Loaded \d+ modules?\s+\((\d+) inline 8-bit counters\)", text)
    if m:
        r["edges"] = int(m.group(1))
    status = re.findall(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/", text, re.M)
    if status:
        n, cov, ft, corp = status[-1]
        r.update(executions=int(n), cov=int(cov), ft=int(ft), corpus=int(corp))
    for key, stat in (("executions", "number_of_executed_units"), ("exec_per_sec", "average_exec_per_sec"),
                      ("new_units", "new_units_added"), ("peak_rss_mb", "peak_rss_mb")):
        m = re.search(rf"^stat::{stat}:\s*(\d+)", text, re.M)
        if m:
            r[key] = int(m.group(1))
    return r


def finding(text):
    """(kind, one line) of what a failed run found, from the sanitizer's or the harness's report."""
    for pat, kind in ((r"invariant broken: .*", "invariant"), (r"SUMMARY: AddressSanitizer: .*", "asan"),
                      (r"SUMMARY: UndefinedBehaviorSanitizer: .*", "ubsan"), (r"runtime error: .*", "ubsan"),
                      (r"ERROR: LeakSanitizer: .*", "leak"), (r"ERROR: libFuzzer: .*", "libfuzzer"),
                      (r"==\d+== ERROR: .*", "error")):
        m = re.search(pat, text)
        if m:
            return kind, m.group(0).strip()
    return "unknown", (text.strip().splitlines() or ["no output"])[-1]


def run(h, a, dictfile):
    exe = os.path.join(a.bin, h)
    if not os.access(exe, os.X_OK):
        die(f"{exe}: no such harness (make fuzz builds it)")
    seeds = os.path.join(SEEDS, h)
    if not os.path.isdir(seeds):
        die(f"{seeds}: the harness has no seed corpus")
    corpus = os.path.join(a.work, "corpus", h)
    arts = os.path.join(a.work, "artifacts", h)
    logs = os.path.join(a.work, "logs")
    if not a.keep:
        shutil.rmtree(corpus, ignore_errors=True)
    shutil.rmtree(arts, ignore_errors=True)
    for d in (corpus, arts, logs):
        os.makedirs(d, exist_ok=True)
    opts = [f"-seed={a.seed}", "-print_final_stats=1", f"-artifact_prefix={arts}/", f"-max_len={MAX_LEN.get(h, 4096)}",
            "-timeout=10", "-rss_limit_mb=2048"]
    opts.append(f"-runs={a.runs}" if a.runs else f"-max_total_time={a.seconds}")
    if h in DICT:
        opts.append(f"-dict={dictfile}")
    cmd = [exe] + opts + [corpus, seeds]
    log = os.path.join(logs, h + ".log")
    print(f"fuzz: {h}: {' '.join(cmd)}", flush=True)
    with open(log, "w") as f:
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    with open(log, errors="replace") as f:
        text = f.read()
    r = parse_log(text)
    r.update(harness=h, command=" ".join(cmd), status=p.returncode, log=log, seeds=len(os.listdir(seeds)),
             crash=None, coverage=coverage(h, a, corpus, seeds))
    if p.returncode != 0:
        m = re.findall(r"Test unit written to (\S+)", text)
        kind, what = finding(text)
        r["crash"] = {"kind": kind, "what": what, "input": m[-1] if m else None,
                      "replay": f"{exe} {m[-1]}" if m else " ".join(cmd)}
    return r


def coverage(h, a, corpus, seeds):
    """Lines and branches of the harness's parser functions (PARSER) that the corpus reaches: the
    coverage build runs every input once (-runs=0), llvm-cov counts. None without a coverage build."""
    exe = os.path.join(a.cov_bin, h) if a.cov_bin else None
    if not exe or not os.access(exe, os.X_OK) or h not in PARSER:
        return None
    src, funcs = PARSER[h]
    d = os.path.join(a.work, "cov")
    os.makedirs(d, exist_ok=True)
    raw, data = os.path.join(d, h + ".profraw"), os.path.join(d, h + ".profdata")
    env = dict(os.environ, LLVM_PROFILE_FILE=raw)
    subprocess.run([exe, "-runs=0", corpus, seeds], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run(["llvm-profdata", "merge", "-sparse", raw, "-o", data], check=True)
    rep = subprocess.run(["llvm-cov", "report", "-show-functions", exe, f"-instr-profile={data}", src],
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in rep.splitlines():
        f = line.split()
        # Name, Regions, Miss, Cover, Lines, Miss, Cover, Branches, Miss, Cover
        if len(f) == 10 and f[0] in funcs:
            rows[f[0]] = {"lines": int(f[4]), "lines_missed": int(f[5]),
                          "branches": int(f[7]), "branches_missed": int(f[8])}
    missing = [fn for fn in funcs if fn not in rows]
    if missing:
        die(f"{h}: llvm-cov reports no function {', '.join(missing)} in {src} (scripts/fuzz.py's PARSER)")
    tot = {k: sum(r[k] for r in rows.values()) for k in ("lines", "lines_missed", "branches", "branches_missed")}
    return {"file": src, "functions": rows, **tot}


def fmt(n):
    return "?" if n is None else f"{n:,}".replace(",", " ")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="build/fuzz/bin")
    ap.add_argument("--cov-bin", default=None)
    ap.add_argument("--work", default="build/fuzz")
    ap.add_argument("--out", default="build/results/fuzz")
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--runs", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("harness", nargs="+")
    a = ap.parse_args()
    if a.seconds < 1 or a.runs < 0 or a.seed < 0:
        die("--seconds must be at least 1, --runs and --seed not negative")
    os.makedirs(a.out, exist_ok=True)
    os.makedirs(a.work, exist_ok=True)
    dictfile = os.path.join(a.work, "config.dict")
    write_atomic(dictfile, config_dict(KEY_REFERENCE))
    limit = f"{a.runs} inputs" if a.runs else f"{a.seconds} s"
    print(f"make fuzz: {len(a.harness)} harnesses, {limit} each, seed {a.seed}, "
          f"{'from the corpus of earlier runs and ' if a.keep else ''}from the seeds in {SEEDS}/", flush=True)
    results = []
    for h in a.harness:
        r = run(h, a, dictfile)
        results.append(r)
        print(f"fuzz: {h}: {fmt(r['executions'])} executions, cov {fmt(r['cov'])}, ft {fmt(r['ft'])}: "
              f"{'no finding' if not r['crash'] else r['crash']['what']}", flush=True)

    def git(*args):
        p = subprocess.run(["git", *args], capture_output=True, text=True)
        return p.stdout.strip() if p.returncode == 0 else None

    clang = subprocess.run(["clang", "--version"], capture_output=True, text=True).stdout.splitlines()
    summary = {
        "commit": git("rev-parse", "--short", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "date": datetime.datetime.now().isoformat(timespec="seconds"), "cores": os.cpu_count(),
        "clang": clang[0] if clang else None, "seconds": None if a.runs else a.seconds, "runs": a.runs or None,
        "seed": a.seed, "keep": a.keep, "harnesses": results,
    }
    path = os.path.join(a.out, "summary.json")
    write_atomic(path, json.dumps(summary, indent=2) + "\n")

    print(f"{'harness':<10} {'executions':>13} {'exec/s':>9} {'cov/edges':>11} {'ft':>7} {'corpus':>13} "
          f"{'parser lines':>15} {'branches':>15}  result")
    for r in results:
        cov = f"{fmt(r['cov'])}/{fmt(r['edges'])}"
        corp = f"{fmt(r['corpus'])} (+{fmt(r['new_units'])})"
        c = r["coverage"]
        lines = branches = "-"
        if c:
            got = lambda n, m: f"{n - m}/{n} {100.0 * (n - m) / n:.0f}%" if n else "0/0"  # noqa: E731
            lines, branches = got(c["lines"], c["lines_missed"]), got(c["branches"], c["branches_missed"])
        res = "no finding" if not r["crash"] else f"{r['crash']['kind'].upper()}: {r['crash']['what']}"
        print(f"{r['harness']:<10} {fmt(r['executions']):>13} {fmt(r['exec_per_sec']):>9} {cov:>11} "
              f"{fmt(r['ft']):>7} {corp:>13} {lines:>15} {branches:>15}  {res}")
    bad = [r for r in results if r["crash"]]
    for r in bad:
        print(f"  replay {r['harness']}: {r['crash']['replay']}  (log: {r['log']})")
    print(f"make fuzz: {'PASS' if not bad else 'FOUND %d' % len(bad)} ({path})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
