#!/usr/bin/env bash
# Long regression: what `make test` runs once with fixed seeds, run again with many seeds, plus
# thousands of seeds of the random coherence tester and longer co-simulations. Each failure names
# its seed; rerun one with
#   TB_SEED=<seed> build/bin/run_tests --filter '<suite>/<test>'     or
#   build/bin/coh_regress[_rtl] --preset <preset> --seed <seed>      or
#   SIM_FLAVOUR=test bash scripts/run_sim.sh <same arguments>
# Usage: scripts/regress.sh [NUM_SEEDS]   (default 20). Exit status 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-20}
fail=0
log=build/reports/regress.log
mkdir -p build/reports build/regress
: > "$log"

say() { printf '%s\n' "$*" | tee -a "$log"; }

for seed in $(seq 1 "$n"); do
  if TB_SEED=$seed TB_REPL_ALL=1 TB_RECOV_ALL=1 build/bin/run_tests --jobs "$(nproc)" --filter '!(sim/*)' >>"$log" 2>&1; then
    say "regress: tests with TB_SEED=$seed: pass"
  else
    say "regress: tests with TB_SEED=$seed: FAIL (see $log)"; fail=1
  fi
done

# The random coherence tester on the reference directory controller (C only, fast): every preset
# configuration over 25 x N seeds (COH_SEEDS= to change), seeds from 1000 on (the test suite's own
# runs use small ones). Each failing seed is printed with the commands that replay it.
coh_seeds=${COH_SEEDS:-$((n * 25))}
coh_log=build/reports/coh_regress.log
if build/bin/coh_regress --seeds "$coh_seeds" --first 1000 > "$coh_log" 2>&1; then
  say "regress: $(tail -n 1 "$coh_log"): pass"
else
  grep -A 1 '^coh_regress: FAIL' "$coh_log" | cut -c 1-400 | tee -a "$log"
  say "regress: $(tail -n 1 "$coh_log"): FAIL (see $coh_log)"; fail=1
fi

# The same tester on the RTL directory controller (Verilated, slower): every preset over 2 x N seeds
# (COH_RTL_SEEDS= to change), seeds from 5000 on.
coh_rtl_seeds=${COH_RTL_SEEDS:-$((n * 2))}
coh_rtl_log=build/reports/coh_regress_rtl.log
if build/bin/coh_regress_rtl --seeds "$coh_rtl_seeds" --first 5000 > "$coh_rtl_log" 2>&1; then
  say "regress: $(tail -n 1 "$coh_rtl_log"): pass"
else
  grep -A 1 '^coh_regress_rtl: FAIL' "$coh_rtl_log" | cut -c 1-400 | tee -a "$log"
  say "regress: $(tail -n 1 "$coh_rtl_log"): FAIL (see $coh_rtl_log)"; fail=1
fi

# The formal checks at the sizes make formal leaves out (constraints/formal/regress: the Murphi
# model in the other two orders, the liveness property, two lines on two MNs, the control of the
# fetch's timing assumption, the mutations on 3 CNs; the Logging Unit's ordering proof at 5 slots).
if FORMAL_OUT=build/formal bash scripts/formal.sh --dir constraints/formal/regress >>"$log" 2>&1; then
  say "regress: formal checks of constraints/formal/regress: pass"
else
  say "regress: formal checks of constraints/formal/regress: FAIL (see $log)"; fail=1
fi

# Co-simulation: loads, link jitter (reorders messages), both fabric clockings; the test flavour,
# so that the RTL's assertions watch every cycle.
for seed in $(seq 1 "$n"); do
  for args in "--set traffic.load=1.0" "--set traffic.load=0.2 --set fabric.link_jitter=30ns" "--no-skip"; do
    if SIM_FLAVOUR=test bash scripts/run_sim.sh --traffic --config sim_configs/small.ini --seed "$seed" --quiet \
         --set traffic.messages=3000 $args --stats "build/regress/small-$seed.json" >>"$log" 2>&1; then
      say "regress: small.ini --seed $seed $args: pass"
    else
      say "regress: small.ini --seed $seed $args: FAIL (see $log)"; fail=1
    fi
  done
done

# DIKTAMO-proactive with lu.head_reserve = none (the paper's early REPL sets, bounded by the store
# buffers only) under pressure: 4 CNs of 16 cores on small.ini, so that a CN's early sets toward one
# LU outnumber its buffer's 64 slots; every workload, N seeds, link jitter. Nothing excludes a
# deadlock through a full buffer here: a run that stalls fails (the stall detector's dump in the log).
for seed in $(seq 1 "$n"); do
  for w in bodytrack fluidanimate streamcluster canneal raytrace barnes ocean_ncp ocean_cp ycsb; do
    if SIM_FLAVOUR=test bash scripts/run_sim.sh --config sim_configs/small.ini --seed "$seed" --quiet \
         --set system.cores_per_cn=16 --set l3.size=2MiB --set core.protocol=proactive --set lu.head_reserve=none \
         --set workload.name=$w --set fabric.link_jitter=20ns \
         --set workload.ycsb_records=512 --set workload.ycsb_ops=1024 \
         --stats "build/regress/reserve-none-$w-$seed.json" >>"$log" 2>&1; then
      say "regress: head_reserve=none $w --seed $seed: pass"
    else
      say "regress: head_reserve=none $w --seed $seed: FAIL (see $log)"; fail=1
    fi
  done
done

# A larger campaign of CN failures than make faults' default (10 x N runs, campaign seed 7): a
# RECOVER that waited for a full directory table (fixed in 56c2b33) stalled only there.
if make -s faults RUNS=$((n * 10)) SEED=7 >>"$log" 2>&1; then
  say "regress: make faults RUNS=$((n * 10)) SEED=7: pass"
else
  say "regress: make faults RUNS=$((n * 10)) SEED=7: FAIL (see $log and build/results/faults/)"; fail=1
fi

# The simulator built with profile-guided optimization (make pgo) on run.ini's shape: its statistics
# must equal the plain fast flavour's on every workload under WB and proactive (one round).
if bash scripts/pgo.sh --config sim_configs/run.ini --rounds 1 >>"$log" 2>&1; then
  say "regress: make pgo on run.ini (the same statistics as the plain simulator): pass"
else
  say "regress: make pgo on run.ini: FAIL (see $log)"; fail=1
fi

# Two host threads (make threads) on paper.ini: the statistics of every workload under WB and
# proactive at 64 cores must equal one thread's (one round).
if bash scripts/threads.sh --config sim_configs/paper.ini --rounds 1 >>"$log" 2>&1; then
  say "regress: make threads on paper.ini (the same statistics with two host threads as with one): pass"
else
  say "regress: make threads on paper.ini: FAIL (see $log)"; fail=1
fi

# make instr's counts (callgrind) of every row, twice: the second must be the first's to within a
# millionth (the system rows vary by a few dozen instructions), else a count would not measure the
# code alone.
if python3 scripts/instr.py --out build/regress/instr1 >>"$log" 2>&1 &&
   python3 scripts/instr.py --out build/regress/instr2 --base build/regress/instr1/instr.json >>"$log" 2>&1 &&
   python3 -c 'import json, sys
rows = json.load(open("build/regress/instr2/instr.json"))["rows"]
sys.exit(0 if rows and all(abs(r["ratio"] - 1) < 1e-6 for r in rows.values()) else 1)' >>"$log" 2>&1; then
  say "regress: make instr twice (the same host instruction counts): pass"
else
  say "regress: make instr twice: FAIL (see $log)"; fail=1
fi

# The whole suite with AddressSanitizer and UndefinedBehaviorSanitizer (make test-asan): no finding.
if make -s test-asan >>"$log" 2>&1; then
  say "regress: make test-asan (AddressSanitizer, UndefinedBehaviorSanitizer): pass"
else
  say "regress: make test-asan: FAIL (see build/reports/tests-asan.log)"; fail=1
fi

if [ "$fail" = 0 ]; then say "regress: all passed"; else say "regress: FAILURES above"; fi
exit "$fail"
