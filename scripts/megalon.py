#!/usr/bin/env python3
"""`make megalon`: the Megalon blog's experiments, scaled, on the simulated cluster (issue 24).

HCMeta and Megalon (csim/workloads/hcmeta.c, megalon.c) share objects through partly coherent
memory on sim_configs/pc.ini (4 CNs of 2 cores, 2 MNs with a 2 MiB coherent region, WB). Object
counts and SCR budgets are the blog's scaled by 1/1000 (M -> k, MB -> KiB). Each run is checked
(the workload's history check and the oracle of committed stores); throughput is the operations
after each thread's first tenth over the window they took (workload.<name>.window_ops over end_ps -
warm_ps), in Mops/s of simulated time.

  M1  the blog's Fig. 1(c): read-only, uniform keys, 1 KiB objects; HCMeta with a 100 KiB budget
      and unlimited, Megalon with 100 KiB; 1.2k to 18k objects
  M2  the blog's Fig. 6(a): 5 % writes, Zipfian keys, a 200 KiB budget; HCMeta (the owner's software
      time 55 us, and 5 us: the collapse is not fixed by one constant) and Megalon; 4.8k to 24k
  M3  the blog's 32 MB note: M2 at 24k objects with a 32 KiB budget
  M4  from M2 and M3: a churn's cost (HCMeta: an owner's round trip; Megalon: its FREE and ALLOC
      appends) and Megalon's index replicas against the data

Prints the tables beside the blog's numbers with a verdict per headline ratio (the same direction
and within a factor 2 of the blog's, or the reason), draws M1 and M2 (gnuplot, SVG and PNG) and
writes results-megalon.md; runs and statistics under --out (build/results/megalon), kept across
calls (an interrupted call resumes).

Usage: scripts/megalon.py [--config FILE] [--seed N] [--out DIR] [--docs DIR] [--size tiny|default]
                          [--jobs N] [--flavour fast|test]
  --size tiny     a tenth of the objects and operations (the test in make test)
  --docs DIR      also write results-megalon.md and its figures there (make megalon: docs/)
Exit status: 0 done; 1 a run failed (its replay command printed); 2 bad input (one line)."""

import simruns
from simruns import Run, headline_results, load, plot_lines, provenance, run_key, verdict, write_dat

simruns.PROG = "megalon"

# The blog's numbers (Mops/s read off its figures; ratios from its text).
BLOG_M1 = {"objects": [1.2, 2.4, 4.8, 7.2, 12, 18], "hcmeta": [15.5, 15.2, 1.0, 0.9, 0.7, 0.6],
           "hcmeta-unl": [15.5, 15.3, 15.1, 15.0, 14.6, 13.8]}
BLOG_M2 = {"objects": [4.8, 7.2, 12, 24], "hcmeta": [16.6, 5.7, 2.5, 1.7], "megalon": [17.7, 17.2, 17.4, 17.4]}
BLOG = {"m1_read_only": 15.0, "m2_at_24": 10.0, "m3_small_scr": 8.4, "churn": 8.0, "replica_pct": 7.6}

SIZES = {"default": {"m1": [1200, 2400, 4800, 7200, 12000, 18000], "m2": [4800, 7200, 12000, 24000],
                     "m1_ops": 2048, "m2_ops": 4096, "scale": 1.0},
         "tiny": {"m1": [120, 240, 480], "m2": [480, 960], "m1_ops": 256, "m2_ops": 256, "scale": 0.1}}


def kib(x):
    return f"{max(1, round(x))}KiB"


def experiments(size):
    z = SIZES[size]
    runs = []
    m1 = ["workload.share_read_pct=100", "workload.share_keys=uniform", f"workload.share_ops={z['m1_ops']}"]
    m1b = [f"workload.share_scr_budget={kib(100 * z['scale'])}"]
    for n in z["m1"]:
        o = [f"workload.share_objects={n}"]
        runs += [Run(f"m1-hcmeta-{n}", ["workload.name=hcmeta"] + m1 + m1b + o),
                 Run(f"m1-hcmeta-unl-{n}", ["workload.name=hcmeta", "workload.share_scr_budget=0"] + m1 + o),
                 Run(f"m1-megalon-{n}", ["workload.name=megalon"] + m1 + m1b + o)]
    m2 = ["workload.share_read_pct=95", "workload.share_keys=zipfian", f"workload.share_ops={z['m2_ops']}"]
    m2b = [f"workload.share_scr_budget={kib(200 * z['scale'])}"]
    for n in z["m2"]:
        o = [f"workload.share_objects={n}"]
        runs += [Run(f"m2-hcmeta-{n}", ["workload.name=hcmeta"] + m2 + m2b + o),
                 Run(f"m2-hcmeta5-{n}", ["workload.name=hcmeta", "workload.hcmeta_rpc=5us"] + m2 + m2b + o),
                 Run(f"m2-megalon-{n}", ["workload.name=megalon"] + m2 + m2b + o)]
    n = z["m2"][-1]
    m3b = [f"workload.share_scr_budget={kib(32 * z['scale'])}", f"workload.share_objects={n}"]
    runs += [Run(f"m3-hcmeta-{n}", ["workload.name=hcmeta"] + m2 + m3b),
             Run(f"m3-megalon-{n}", ["workload.name=megalon"] + m2 + m3b)]
    return runs


def stats(out, name):
    d = load(out, name)
    wl = "megalon" if "megalon" in name else "hcmeta"
    w = d["workload"][wl]
    win = w["end_ps"] - w["warm_ps"]
    return d, w, (w["window_ops"] / (win / 1e6) if win > 0 else 0.0)  # ops per us = Mops/s


def report(out, size, took, mine):
    z = SIZES[size]
    t = {}

    def series(exp, variants, labels, title):
        """Loads an experiment's runs into t and draws its throughput against the object count."""
        rows = []
        for n in z[exp]:
            for v in variants:
                t[(exp, v, n)] = stats(out, f"{exp}-{v}-{n}")
            rows.append([f"{n / 1000:g}k"] + [t[(exp, v, n)][2] for v in variants])
        write_dat(f"{out}/{exp}.dat", ["objects"] + labels, rows)
        plot_lines(out, f"megalon_{exp}", title, "Mops/s (simulated)", f"{out}/{exp}.dat", len(variants), logy=True)

    series("m1", ("hcmeta", "hcmeta-unl", "megalon"), ["HCMeta", "HCMeta,unlimited", "Megalon"],
           "M1 (blog Fig. 1(c)): read-only, uniform, 1 KiB objects")
    series("m2", ("hcmeta", "hcmeta5", "megalon"), ["HCMeta,55us", "HCMeta,5us", "Megalon"],
           "M2 (blog Fig. 6(a)): 5 % writes, Zipfian, 1 KiB objects")
    n3 = z["m2"][-1]
    for v in ("hcmeta", "megalon"):
        t[("m3", v, n3)] = stats(out, f"m3-{v}-{n3}")

    L = [f"# Megalon and HCMeta on partly coherent memory (`make megalon`)", "",
         f"Made by `scripts/megalon.py --size {size}` on {provenance(mine)}: {took}. Configuration "
         "`sim_configs/pc.ini` (4 CNs of 2 cores, 2 MNs of 32 MiB with a 2 MiB coherent region, WB); the "
         "blog's object counts and SCR budgets scaled by 1/1000 (M -> k, MB -> KiB). Throughput: operations "
         "after each thread's first tenth over the time they took, Mops/s of simulated time; the blog's "
         "values are read off its figures. Every run passed its history check and the oracle.", ""]
    m1 = z["m1"]
    L += ["## M1 (blog Fig. 1(c)): read-only, uniform keys, 100 KiB of SCR", "",
          "![M1](figures/megalon_m1.svg)", "",
          "| objects | HCMeta | HCMeta, unlimited SCR | Megalon | HCMeta requests | blog HCMeta | blog unlimited |",
          "| --- | --- | --- | --- | --- | --- | --- |"]
    for i, n in enumerate(m1):
        h, u, mg = (t[("m1", v, n)] for v in ("hcmeta", "hcmeta-unl", "megalon"))
        bl = [BLOG_M1["hcmeta"][i], BLOG_M1["hcmeta-unl"][i]] if size == "default" else ["—", "—"]
        L.append(f"| {n / 1000:g}k | {h[2]:.3g} | {u[2]:.3g} | {mg[2]:.3g} | {h[1]['rpcs']} | {bl[0]} | {bl[1]} |")
    cap = int(100 * 1024 * z["scale"]) // 52
    flat = t[("m1", "hcmeta-unl", m1[-1])][2] / t[("m1", "hcmeta-unl", m1[0])][2]
    cliff = t[("m1", "hcmeta", m1[0])][2] / t[("m1", "hcmeta", m1[2])][2]
    r18 = t[("m1", "megalon", m1[-1])][2] / t[("m1", "hcmeta", m1[-1])][2]
    def flushed(n):
        """The share of unlimited HCMeta's gets at n objects that flushed the object (not validated on
        their CN before: read from memory, a CXL round trip per line, rather than from its caches)."""
        w = t[("m1", "hcmeta-unl", n)][1]
        return w["flushes"] * 64 / 1024 / w["gets"] if w["gets"] else 0.0

    L += ["", f"HCMeta's budget buys {cap} shared objects (52 B each). Unlimited HCMeta at {m1[-1] / 1000:g}k over "
          f"{m1[0] / 1000:g}k: {flat:.2f} (blog: flat): its gets that found no copy validated on their CN (and "
          f"so flushed and read the object from memory) grow from {100 * flushed(m1[0]):.0f} % to "
          f"{100 * flushed(m1[-1]):.0f} %, since with {z['m1_ops']} gets fewer objects are read twice on one CN as "
          f"they grow (the blog's runs are far longer). HCMeta "
          f"at {m1[0] / 1000:g}k over {m1[2] / 1000:g}k: {cliff:.1f} x (blog: a cliff, 15.2 -> 1.0 between 2.4M "
          f"and 4.8M).", ""]

    m2 = z["m2"]
    L += ["## M2 (blog Fig. 6(a)): 5 % writes, Zipfian keys, 200 KiB of SCR", "",
          "![M2](figures/megalon_m2.svg)", "",
          "| objects | HCMeta (55 us) | HCMeta (5 us) | Megalon | Megalon / HCMeta | HCMeta requests | Megalon "
          "evictions | blog HCMeta | blog Megalon |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for i, n in enumerate(m2):
        h, h5, mg = (t[("m2", v, n)] for v in ("hcmeta", "hcmeta5", "megalon"))
        bl = [BLOG_M2["hcmeta"][i], BLOG_M2["megalon"][i]] if size == "default" else ["—", "—"]
        L.append(f"| {n / 1000:g}k | {h[2]:.3g} | {h5[2]:.3g} | {mg[2]:.3g} | {mg[2] / h[2]:.1f} | {h[1]['rpcs']} | "
                 f"{mg[1]['evictions']} | {bl[0]} | {bl[1]} |")
    r24 = t[("m2", "megalon", m2[-1])][2] / t[("m2", "hcmeta", m2[-1])][2]
    r24_5 = t[("m2", "megalon", m2[-1])][2] / t[("m2", "hcmeta5", m2[-1])][2]
    mflat = t[("m2", "megalon", m2[-1])][2] / t[("m2", "megalon", m2[0])][2]
    h3, m3 = t[("m3", "hcmeta", n3)], t[("m3", "megalon", n3)]
    r3 = m3[2] / h3[2]
    ops3 = m3[1]["gets"] + m3[1]["puts"]
    L += ["", f"Megalon at {m2[-1] / 1000:g}k over {m2[0] / 1000:g}k: {mflat:.2f} (blog: flat, 17.7 -> 17.4).", "",
          f"## M3 (the blog's 32 MB note): M2 at {n3 / 1000:g}k objects, {kib(32 * z['scale'])} of SCR", "",
          f"HCMeta {h3[2]:.3g} Mops/s ({h3[1]['rpcs']} requests, {h3[1]['rpcs'] / ops3:.3f} a operation), Megalon "
          f"{m3[2]:.3g} ({m3[1]['evictions']} records changed hands, {m3[1]['evictions'] / ops3:.3f} a operation): "
          f"{r3:.1f} x.", ""]

    # M4: a churn's cost and the replicas' memory.
    h, mg = t[("m2", "hcmeta", m2[-1])][1], m3[1]
    rpc_us = h["rpc_ps"] / h["rpcs"] / 1e6 if h["rpcs"] else 0.0
    churn_us = 2 * mg["append_ps"] / mg["appends"] / 1e6 if mg["appends"] else 0.0  # FREE + ALLOC
    churn = rpc_us / churn_us if churn_us else 0.0
    nrec = int(32 * 1024 * z["scale"]) // 4
    obj = 1024
    replica = (8 * n3 * 2 + 8 * nrec) / (n3 * obj) * 100  # replica words, seen, reverse map per CN
    L += ["## M4: the cost of a churn, and of Megalon's replicas", "",
          f"HCMeta's round trip to an owner (M2, {m2[-1] / 1000:g}k): {rpc_us:.1f} us; Megalon's churn, a FREE and "
          f"an ALLOC appended (M3): {churn_us:.2f} us: {churn:.0f} x cheaper. Megalon's index replica, its seen "
          f"records and reverse map on each CN: {replica:.1f} % of the data ({n3} objects of {obj} B).", ""]

    # Once most operations need an owner, HCMeta runs at its owners' service capacity: each owner CN
    # serves one request at a time for the owner's software time.
    first = f"m1-hcmeta-{m1[-1]}"
    owners = int(run_key(out, first, "system", "num_cn"))  # every CN runs threads: each an owner
    threads = owners * int(run_key(out, first, "system", "cores_per_cn"))
    floor = owners / 55.0  # Mops/s at 55 us a request
    need = BLOG_M1["hcmeta"][-1] * 55.0
    reason_ratio = (f"HCMeta's floor is its owners' service capacity: {owners} owner CNs serving one request at a "
                    f"time for 55 us each give {floor:.3f} Mops/s (measured {t[('m1', 'hcmeta', m1[-1])][2]:.3f} in "
                    f"M1); the blog's floor of {BLOG_M1['hcmeta'][-1]} Mops/s needs about {need:.0f} requests "
                    f"served at once, a parallelism its cluster has and this one ({threads} threads) does not, so "
                    "the depth of the collapse is ours, its direction the blog's")
    table = [("M1: Megalon / HCMeta, read-only, largest size", r18, BLOG["m1_read_only"], reason_ratio),
             ("M2: Megalon / HCMeta at the largest size", r24, BLOG["m2_at_24"],
              reason_ratio + f"; with a 5 us owner time the ratio is {r24_5:.1f}, within a factor 2 of the "
              "blog's"),
             ("M3: Megalon / HCMeta, small SCR", r3, BLOG["m3_small_scr"], reason_ratio),
             ("M4: a churn's cost, HCMeta / Megalon", churn, BLOG["churn"],
              "HCMeta's churn is the owner's software time (55 us, Tigon's) plus queueing behind the owner's "
              "other requests; Megalon's is two appends of about a round trip each on this fabric"),
             ("M4: Megalon's replicas, % of the data", replica, BLOG["replica_pct"],
              "this replica holds a word per object and per record (no keys: objects are numbered); the "
              "blog's holds the index with its 40-byte keys")]
    headline_results(out, "results-megalon.md", L, [(n, o, b, verdict(o, b, why)) for n, o, b, why in table])


def main():
    figs = ("megalon_m1.svg", "megalon_m1.png", "megalon_m2.svg", "megalon_m2.png")
    simruns.blog_main(__doc__, experiments, report, SIZES, figs, "results-megalon.md", "build/results/megalon")


if __name__ == "__main__":
    main()
