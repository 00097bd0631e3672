#!/usr/bin/env bash
# `make run`: the three workloads under each store protocol on one configuration (default
# sim_configs/run.ini, a scaled cluster), each run checked by the oracle of committed stores and by
# the workload's own check; prints the execution times normalized to WB and writes every run's
# statistics and a summary under build/results/run/.
# Usage: scripts/run_workloads.sh [--config FILE] [--seed N] [other diktamo_sim arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
config=sim_configs/run.ini
seed=1
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --config) config=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
workloads=(ocean fluid kvs)
protocols=(wb wt)
out=build/results/run
make -s build/bin/diktamo_cfg
# Bad input stops here, before anything is built or written (one line, exit status 2).
for w in "${workloads[@]}"; do
  build/bin/diktamo_cfg --config "$config" --seed "$seed" "${args[@]}" --set workload.name="$w" --shape >/dev/null
done
shape=$(build/bin/diktamo_cfg --config "$config" --seed "$seed" "${args[@]}" --shape)
make -s SIM_SHAPE="$shape" "build/bin/diktamo_sim_$shape"
mkdir -p "$out"
echo "make run: $config, seed $seed, fabric $shape: ${workloads[*]} under ${protocols[*]}"
for w in "${workloads[@]}"; do
  for p in "${protocols[@]}"; do
    printf 'make run: %-6s %-4s ' "$w" "$p"
    if ! "build/bin/diktamo_sim_$shape" --config "$config" --seed "$seed" "${args[@]}" --set workload.name="$w" \
         --set core.protocol="$p" --quiet --stats "$out/$w-$p.json" 2>"$out/$w-$p.err"; then
      echo "FAILED"
      cat "$out/$w-$p.err" >&2
      echo "make run: replay: bash scripts/run_sim.sh --config $config --seed $seed ${args[*]} --set workload.name=$w --set core.protocol=$p" >&2
      exit 1
    fi
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%9.3f us  oracle %d words ok, %d lost, %d phantom" % (d["system"]["exec_time_ns"]/1000, d["oracle"]["ok"], d["oracle"]["lost"], d["oracle"]["phantom"]))' "$out/$w-$p.json"
  done
done
python3 - "$out" "${workloads[@]}" -- "${protocols[@]}" <<'PY'
import json, sys, math
out = sys.argv[1]
i = sys.argv.index("--")
wls, protos = sys.argv[2:i], sys.argv[i + 1:]
paper = {"wt": 3.68}  # DIKTAMO paper, Fig. 10: average execution time normalized to WB
rows, summary = [], {}
for w in wls:
    t = {p: json.load(open(f"{out}/{w}-{p}.json"))["system"]["exec_time_ns"] for p in protos}
    summary[w] = {p: {"exec_time_ns": t[p], "normalized_to_wb": t[p] / t["wb"]} for p in protos}
    rows.append((w, t))
print()
print("Execution time normalized to WB (the paper's Fig. 10 in miniature)")
print("%-10s" % "workload" + "".join("%12s" % p.upper() for p in protos))
for w, t in rows:
    print("%-10s" % w + "".join("%12.2f" % (t[p] / t["wb"]) for p in protos))
geo = {p: math.exp(sum(math.log(summary[w][p]["normalized_to_wb"]) for w in wls) / len(wls)) for p in protos}
print("%-10s" % "mean" + "".join("%12.2f" % geo[p] for p in protos) + "   (geometric)")
print("%-10s" % "paper" + "".join("%12s" % ("%.2f" % paper[p] if p in paper else ("1.00" if p == "wb" else "-")) for p in protos))
summary["mean"] = geo
json.dump(summary, open(f"{out}/summary.json", "w"), indent=2)
print(f"\nmake run: statistics of every run and summary.json in {out}/")
PY
