#!/usr/bin/env python3
"""`make prism`: the Prism blog's index experiments, scaled, on the simulated cluster (issue 25).

SC-BTree, SC-ART, SC-LSM and Prism (csim/workloads/sc_btree.c, sc_art.c, sc_lsm.c, prism.c) on
sim_configs/pc.ini (4 CNs of 2 cores, 2 MNs with a 2 MiB coherent region, WB), 7 clients each (the
LSMs' thread 0 is their compactor; the trees run 7 threads). Keys and SCR budgets are the blog's
scaled by 1/1000 (100 M keys -> 100 k, 128 MB -> 128 KiB); SC-ART's budget holds 40 % of its node
versions, as the blog's 128 MB do for its 100 M keys. Each run is checked (the index's history check
and the oracle of committed stores); throughput is the operations after each client's first tenth
over the window they took (workload.<name>.window_ops over end_ps - warm_ps), in Mops/s of simulated
time.

  P1  the blog's Fig. 9: YCSB A (50 % puts), B (5 %), C (reads only) and F (50 % read-modify-writes),
      Zipfian keys, for SC-ART, SC-BTree and Prism; and SC-ART with unlimited SCR on A and C (its §3)
  P2  the blog's Fig. 8: range scans of 16 keys, the rest puts, from 5 % to 50 % puts, for SC-BTree
      and Prism
  P3  the blog's ablation: SC-LSM (its write buffer all of the budget but the manifest) and Prism at
      5 % and 50 % puts (the rest gets), twice P1's operations so that L0 forms: SSTables probed per
      get; and SC-BTree at 50 %

Prints the tables beside the blog's numbers with a verdict per headline ratio (the same direction
and within a factor 2 of the blog's, or the reason), draws P1 and P2 (gnuplot, SVG and PNG) and
writes results-prism.md; runs and statistics under --out (build/results/prism), kept across calls
(an interrupted call resumes).

Usage: scripts/prism.py [--config FILE] [--seed N] [--out DIR] [--docs DIR] [--size tiny|default]
                        [--jobs N] [--flavour fast|test]
  --size tiny     a tenth of the keys and operations (the test in make test)
  --docs DIR      also write results-prism.md and its figures there (make prism: docs/)
Exit status: 0 done; 1 a run failed (its replay command printed); 2 bad input (one line)."""

import simruns
from simruns import Run, headline_results, load, plot, plot_lines, provenance, verdict, write_dat

simruns.PROG = "prism"

# The blog's numbers (Mops/s read off its figures; ratios from its text).
BLOG_P1 = {"A": {"sc_art": 2.2, "sc_btree": 1.6, "prism": 11.8}, "B": {"sc_art": 3.1, "sc_btree": 13.0, "prism": 18.5},
           "C": {"sc_art": 3.3, "sc_btree": 19.5, "prism": 21.0}, "F": {"sc_art": 1.9, "sc_btree": 1.5, "prism": 14.1}}
BLOG_P2 = {"writes": [5, 10, 20, 30, 40, 50], "sc_btree": [13.8, 9.0, 4.0, 2.7, 2.0, 1.6],
           "prism": [9.8, 10.1, 10.9, 10.5, 10.2, 9.5]}
BLOG = {"art_unlimited": 10.0, "probes_lsm": 15.0, "probes_prism": 2.0, "lsm_over_btree": 2.2}

# The LSMs' tables and manifest: the defaults (8192 keys a table, 1/64 of the budget) at full size;
# the tiny size keeps about as many tables (1024 keys each) and the full size's manifest.
SIZES = {"default": {"keys": 100000, "ops": 32768, "ops_p3": 65536, "scale": 1.0, "art_nodes": 27236, "lsm": []},
         "tiny": {"keys": 10000, "ops": 512, "ops_p3": 1024, "scale": 0.1, "art_nodes": 2729,
                  "lsm": ["workload.lsm_table_keys=1024", "workload.lsm_manifest=2KiB"]}}
YCSB = {"A": ["workload.share_read_pct=50"], "B": ["workload.share_read_pct=95"], "C": ["workload.share_read_pct=100"],
        "F": ["workload.share_read_pct=50", "workload.share_rmw_pct=50"]}
NAMES = {"sc_art": "SC-ART", "sc_btree": "SC-BTree", "prism": "Prism", "sc_lsm": "SC-LSM"}


def kib(x):
    return f"{max(1, round(x))}KiB"


def index_sets(wl, z, budget_kib=None):
    """A run of index wl: its name, 7 clients, the keys and the SCR budget (the blog's 128 MB / 1000,
    SC-ART's 40 % of its versions)."""
    s = [f"workload.name={wl}", f"workload.share_objects={z['keys']}", "workload.share_keys=zipfian"]
    s += ["workload.threads=8"] + z["lsm"] if wl in ("prism", "sc_lsm") else ["workload.threads=7"]
    if budget_kib is None:
        budget_kib = 0.4 * z["art_nodes"] * 8 / 1024 if wl == "sc_art" else 128 * z["scale"]
    s.append(f"workload.share_scr_budget={kib(budget_kib)}" if budget_kib else "workload.share_scr_budget=0")
    return s


def experiments(size):
    z = SIZES[size]
    runs = []
    ops = [f"workload.share_ops={z['ops']}"]
    for y, mix in YCSB.items():
        for wl in ("sc_art", "sc_btree", "prism"):
            runs.append(Run(f"p1-{y}-{wl}", index_sets(wl, z) + mix + ops))
    for y in ("A", "C"):
        runs.append(Run(f"p1-{y}-sc_art-unl", index_sets("sc_art", z, 0) + YCSB[y] + ops))
    for w in BLOG_P2["writes"]:
        mix = ["workload.share_read_pct=0", f"workload.share_scan_pct={100 - w}", "workload.share_scan_len=16"]
        for wl in ("sc_btree", "prism"):
            runs.append(Run(f"p2-{w}-{wl}", index_sets(wl, z) + mix + ops))
    ops3 = [f"workload.share_ops={z['ops_p3']}"]
    for w in (5, 50):
        mix = [f"workload.share_read_pct={100 - w}"]
        runs.append(Run(f"p3-{w}-sc_lsm", index_sets("sc_lsm", z) + mix + ops3))
        runs.append(Run(f"p3-{w}-prism", index_sets("prism", z) + mix + ops3))
    runs.append(Run("p3-50-sc_btree", index_sets("sc_btree", z) + ["workload.share_read_pct=50"] + ops3))
    return runs


def stats(out, name, wl):
    w = load(out, name)["workload"][wl]
    win = w["end_ps"] - w["warm_ps"]
    return w, (w["window_ops"] / (win / 1e6) if win > 0 else 0.0)  # ops per us = Mops/s


def same_side(ours, blog, reason):
    """A ratio the blog puts on one side of 1 (ahead or behind), ours on the same side."""
    ok = (ours > 1) == (blog > 1)
    return "agrees (same side of 1)" if ok else f"differs: {reason}"


def report(out, size, took, mine):
    z = SIZES[size]
    p1 = {(y, wl): stats(out, f"p1-{y}-{wl}", wl) for y in YCSB for wl in ("sc_art", "sc_btree", "prism")}
    unl = {y: stats(out, f"p1-{y}-sc_art-unl", "sc_art") for y in ("A", "C")}
    p2 = {(w, wl): stats(out, f"p2-{w}-{wl}", wl) for w in BLOG_P2["writes"] for wl in ("sc_btree", "prism")}
    p3 = {(w, wl): stats(out, f"p3-{w}-{wl}", wl) for w in (5, 50) for wl in ("sc_lsm", "prism")}
    bt3 = stats(out, "p3-50-sc_btree", "sc_btree")

    rows = [[y] + [p1[(y, wl)][1] for wl in ("sc_art", "sc_btree", "prism")] for y in YCSB]
    write_dat(f"{out}/p1.dat", ["workload", "SC-ART", "SC-BTree", "Prism"], rows)
    plot(out, "prism_p1", f"P1 (blog Fig. 9): YCSB, Zipfian, {z['keys'] // 1000} k keys", "Mops/s (simulated)",
         f"{out}/p1.dat", 3)
    rows = [[f"{w}%"] + [p2[(w, wl)][1] for wl in ("sc_btree", "prism")] for w in BLOG_P2["writes"]]
    write_dat(f"{out}/p2.dat", ["writes", "SC-BTree", "Prism"], rows)
    plot_lines(out, "prism_p2", "P2 (blog Fig. 8): range scans of 16 keys", "Mops/s (simulated)", f"{out}/p2.dat", 2)

    keys = z["keys"]
    art = p1[("C", "sc_art")][0]
    art_pct = 100 * art["scr_nodes"] / max(1, art["nodes"])
    L = ["# Prism and the index baselines on partly coherent memory (`make prism`)", "",
         f"Made by `scripts/prism.py --size {size}` on {provenance(mine)}: {took}. Configuration "
         "`sim_configs/pc.ini` (4 CNs of 2 cores, 2 MNs of 32 MiB with a 2 MiB coherent region, WB), 7 clients "
         "per run (the LSMs' eighth thread is their compactor). The blog's keys and SCR scaled by one factor, "
         f"1/1000 ({keys} keys, {kib(128 * z['scale'])} of SCR: for Prism 64 % memtable, 62 % BUL versions, 2 % "
         f"manifest, as the blog's 64 + 62 + 2 MB); SC-ART's budget holds {art_pct:.0f} % of its node versions "
         f"({art['scr_nodes']} of {art['nodes']}), as the blog's 128 MB hold about 40 % for 100 M keys (our ART has "
         f"{art['nodes'] / keys:.2f} nodes a key where the blog's has 0.4). Throughput: operations "
         "after each client's first tenth over the time they took, Mops/s of simulated time; the blog's values are "
         "read off its figures. Every run passed its history check and the oracle.", "",
         "## P1 (blog Fig. 9): YCSB A, B, C and F, Zipfian keys", "", "![P1](figures/prism_p1.svg)", "",
         "| workload | SC-ART | SC-BTree | Prism | Prism / SC-BTree | Prism / SC-ART | blog SC-ART | blog SC-BTree "
         "| blog Prism |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for y in YCSB:
        a, b, p = (p1[(y, wl)][1] for wl in ("sc_art", "sc_btree", "prism"))
        bl = BLOG_P1[y]
        L.append(f"| {y} | {a:.3g} | {b:.3g} | {p:.3g} | {p / b:.2f} | {p / a:.2f} | {bl['sc_art']} | "
                 f"{bl['sc_btree']} | {bl['prism']} |")
    fl = {y: p1[(y, "sc_btree")][0] for y in YCSB}
    L += ["", "SC-BTree's node lines flushed per operation: " + ", ".join(
        f"{y} {fl[y]['flushes'] / max(1, fl[y]['gets'] + fl[y]['puts'] - fl[y]['rmws']):.1f}" for y in YCSB) +
          " (a put invalidates the whole 33-line leaf on every other CN that cached any of its 128 keys). SC-ART's "
          "spilled version reads per operation: " + ", ".join(
              f"{y} {p1[(y, 'sc_art')][0]['spilled_version_reads'] / max(1, z['ops']):.1f}" for y in YCSB) + ".", "",
          "SC-ART with unlimited SCR (every version in it): " + ", ".join(
              f"{y} {unl[y][1]:.3g} Mops/s ({unl[y][1] / p1[(y, 'sc_art')][1]:.2f} x the limited one)"
              for y in ("A", "C")) + ".", ""]

    L += ["## P2 (blog Fig. 8): range scans of 16 keys, the rest puts", "", "![P2](figures/prism_p2.svg)", "",
          "| puts | SC-BTree | Prism | Prism / SC-BTree | blog SC-BTree | blog Prism | blog ratio |",
          "| --- | --- | --- | --- | --- | --- | --- |"]
    for i, w in enumerate(BLOG_P2["writes"]):
        b, p = p2[(w, "sc_btree")][1], p2[(w, "prism")][1]
        bb, bp = BLOG_P2["sc_btree"][i], BLOG_P2["prism"][i]
        L.append(f"| {w} % | {b:.3g} | {p:.3g} | {p / b:.2f} | {bb} | {bp} | {bp / bb:.1f} |")
    L += ["", "Prism's scans started again (a BUL node or the manifest changed under them): " + ", ".join(
        f"{w} % {p2[(w, 'prism')][0]['scan_retries']}" for w in BLOG_P2["writes"]) + ".", ""]

    def per_get(r):
        w = r[0]
        return w["tables_probed"] / w["gets"] if w["gets"] else 0.0
    L += ["## P3 (the blog's ablation): SC-LSM and Prism, gets and puts", "",
          "| puts | SC-LSM Mops/s | Prism Mops/s | SC-LSM tables probed per get | Prism tables probed per get | "
          "SC-LSM L0 flushes | Prism L0 flushes | SC-LSM compactions | Prism compactions |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for w in (5, 50):
        s, p = p3[(w, "sc_lsm")], p3[(w, "prism")]
        L.append(f"| {w} % | {s[1]:.3g} | {p[1]:.3g} | {per_get(s):.2f} | {per_get(p):.2f} | {s[0]['l0_flushes']} | "
                 f"{p[0]['l0_flushes']} | {s[0]['compactions']} | {p[0]['compactions']} |")
    L += ["", f"SC-BTree at 50 % puts, the same operations: {bt3[1]:.3g} Mops/s.", ""]

    r = {y: p1[(y, "prism")][1] / p1[(y, "sc_btree")][1] for y in YCSB}
    ra = {y: p1[(y, "prism")][1] / p1[(y, "sc_art")][1] for y in YCSB}
    unl_c = unl["C"][1] / p1[("C", "sc_art")][1]
    prism_vs_unl = p1[("A", "prism")][1] / unl["A"][1]
    r2 = {w: p2[(w, "prism")][1] / p2[(w, "sc_btree")][1] for w in BLOG_P2["writes"]}
    lsm_bt = p3[(50, "sc_lsm")][1] / bt3[1]
    probes5 = per_get(p3[(5, "sc_lsm")]) / max(1e-9, per_get(p3[(5, "prism")]))
    bt = {y: p1[(y, "sc_btree")] for y in YCSB}
    fall = bt["C"][1] / bt["A"][1] if bt["A"][1] else 0.0
    fl_a = bt["A"][0]["flushes"] / max(1, bt["A"][0]["gets"] + bt["A"][0]["puts"])
    why_btree = (f"SC-BTree falls {fall:.1f} x from C to A here (the blog's, 19.5 -> 1.6: 12 x): its puts invalidate "
                 f"their leaf on the other CNs ({fl_a:.1f} lines flushed an operation), and a reader then pays the "
                 "leaf's search misses again, a few CXL round trips on this timing model; the blog's collapse is "
                 "steeper than that cost gives here")
    why_tiers = ("with few writes Prism's get reads three tiers (a memtable bucket, a BUL node under its version, then "
                 "a table's fence index and block) where SC-BTree reads a root it keeps cached and a leaf, and SC-ART "
                 "its nodes: the extra tiers cost more than the baselines' version checks save at this scale")
    sp_c = p1[("C", "sc_art")][0]["spilled_version_reads"] / max(1, p1[("C", "sc_art")][0]["gets"])
    why_art = (f"the versions that fit the SCR are the upper levels' (numbered breadth first), so a get reads "
               f"{sp_c:.1f} spilled versions, its lowest node's, past the cache; the blog's tree over 100 M keys is "
               "deeper and spills more of each path")
    why_lsm = "the scaled LSM has few levels (100 k keys in tables of 8192), so SC-LSM's gets probe fewer tables"
    why_scan = ("a Prism scan merges every source under one manifest snapshot and probes each of its keys' memtable "
                "buckets; SC-BTree's reads one or two leaves, and its leaves' invalidations cost less here than the "
                "blog's (see P1 A)")
    table = [("P1 A: Prism / SC-BTree", r["A"], 7.4, verdict, why_btree),
             ("P1 F: Prism / SC-BTree", r["F"], 9.4, verdict, why_btree),
             ("P1 B: Prism / SC-BTree (Prism ahead)", r["B"], 18.5 / 13.0, same_side, why_tiers),
             ("P1 C: Prism / SC-BTree (Prism edges ahead)", r["C"], 21.0 / 19.5, same_side, why_tiers),
             ("P1 C: Prism / SC-ART (up to 6.3)", ra["C"], 6.3, verdict, why_tiers + "; " + why_art),
             ("P1 A: Prism / SC-ART", ra["A"], 11.8 / 2.2, verdict, why_art),
             ("SC-ART unlimited / limited SCR on C", unl_c, BLOG["art_unlimited"], verdict, why_art),
             ("P1 A: Prism / SC-ART with unlimited SCR (about 1)", prism_vs_unl, 1.0, verdict, why_art),
             ("P2 at 5 % puts: Prism / SC-BTree (SC-BTree wins)", r2[5], 0.7, same_side, why_scan),
             ("P2 at 50 % puts: Prism / SC-BTree", r2[50], 6.0, verdict, why_scan),
             ("P3 at 5 % puts: SSTables probed per get, SC-LSM / Prism", probes5,
              BLOG["probes_lsm"] / BLOG["probes_prism"], verdict, why_lsm),
             ("P3 at 50 % puts: SC-LSM / SC-BTree", lsm_bt, BLOG["lsm_over_btree"], verdict, why_btree)]
    headline_results(out, "results-prism.md", L, [(n, o, b, judge(o, b, why)) for n, o, b, judge, why in table])


def main():
    figs = ("prism_p1.svg", "prism_p1.png", "prism_p2.svg", "prism_p2.png")
    simruns.blog_main(__doc__, experiments, report, SIZES, figs, "results-prism.md", "build/results/prism")


if __name__ == "__main__":
    main()
