#!/usr/bin/env bash
# Builds the simulator for a configuration's fabric shape with GCC's profile-guided optimization
# and measures what it pays: build/bin/diktamo_sim_SHAPE_pgo, the fast flavour compiled (its
# Verilated models, the C models and the Verilator runtime alike) with the profile of training
# runs. The build tree is build/pgo (the Makefile with B=build/pgo): first instrumented
# (-fprofile-generate), then the training runs (every workload of the configuration under WB and
# DIKTAMO-proactive, the configuration's own sizes), then the objects compiled again with the
# profile (-fprofile-use). Last, the plain fast binary and the PGO one each run every training
# workload ROUNDS times (default 3), alternating, on the same machine in the same session: the
# statistics must be identical (exit status 1 otherwise) and the median user time of each is
# printed with their ratio, and written to build/bench/pgo_SHAPE.json; the binary is copied to
# build/bin only then.
# Usage: scripts/pgo.sh [--config FILE] [--rounds N]   (make pgo PGO_CONFIG=... ROUNDS=...)
set -euo pipefail
cd "$(dirname "$0")/.."
config=sim_configs/paper.ini rounds=3
while [ $# -gt 0 ]; do
  case $1 in
    --config) config=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "pgo.sh: $1: unknown argument (--config FILE, --rounds N)" >&2; exit 2 ;;
  esac
done
case $rounds in ''|*[!0-9]*|0) echo "pgo.sh: --rounds $rounds: a count of 1 or more" >&2; exit 2 ;; esac
# (its make's output only if it fails: run from another make's recipe, it may warn about that
# make's job server, and a bad configuration's message must stay one line)
if ! mk=$(make -s build/bin/diktamo_cfg 2>&1); then echo "$mk" >&2; exit 1; fi
shape=$(build/bin/diktamo_cfg --config "$config" --shape) # a bad configuration stops here (status 2)
B=build/pgo
plain=build/bin/diktamo_sim_$shape
pgo=$B/bin/diktamo_sim_$shape
out=build/bin/diktamo_sim_${shape}_pgo # written only once its statistics are the plain one's
rm -f "$out"
runs=()
for w in ocean fluid kvs; do
  for p in wb proactive; do runs+=("$w $p"); done
done

clear_objects() { # the objects (and archives, binary) of the PGO tree, not its profiles (*.gcda)
  find "$B/obj" "$B/vl" \( -name '*.o' -o -name '*.a' \) -delete 2>/dev/null || true
  rm -f "$B/bin/diktamo_sim_$shape"
}

echo "pgo: $shape ($config): instrumented build in $B"
clear_objects
find "$B" -name '*.gcda' -delete 2>/dev/null || true
make -s B=$B SIM_SHAPE="$shape" PGO="-fprofile-generate -fprofile-update=single" "$B/bin/diktamo_sim_$shape"
for r in "${runs[@]}"; do
  set -- $r
  echo "pgo: training: $1 under $2"
  "$B/bin/diktamo_sim_$shape" --config "$config" --set workload.name=$1 --set core.protocol=$2 --quiet > /dev/null
done
echo "pgo: build with the profile"
clear_objects
make -s B=$B SIM_SHAPE="$shape" PGO="-fprofile-use -fprofile-partial-training -Wno-missing-profile" \
  "$B/bin/diktamo_sim_$shape"
make -s SIM_SHAPE="$shape" "$plain"

# Alternating runs, plain then PGO, every workload, ROUNDS times.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((i = 0; i < rounds; i++)); do
  for r in "${runs[@]}"; do
    set -- $r
    for v in plain pgo; do
      bin=$plain; [ $v = pgo ] && bin=$pgo
      /usr/bin/time -f %U -o "$tmp/$1_$2_${v}_$i.time" "$bin" --config "$config" --set workload.name=$1 \
        --set core.protocol=$2 --quiet --stats "$tmp/$1_$2_$v.json" > /dev/null
    done
  done
done
mkdir -p build/bench
python3 - "$tmp" "$shape" "$config" "$rounds" build/bench/pgo_$shape.json "${runs[@]}" <<'EOF' || exit 1
import json, statistics, sys
tmp, shape, config, rounds, out, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6:]
# The host's side of a run, which differs by design (as tb/test_sim.c's same_stats leaves it out).
HOST = {"wall_s", "instr_per_s", "kernel_events", "cycles_clocked", "cycles_skipped"}

def flat(d, p=""):
    r = {}
    for k, v in d.items():
        if k not in HOST:
            r.update(flat(v, p + k + ".") if isinstance(v, dict) else {p + k: v})
    return r

rows, bad = [], []
print(f"pgo: {shape} ({config}): median user seconds of {rounds} alternating runs each")
print(f"  {'workload':<18} {'plain':>8} {'pgo':>8} {'pgo/plain':>10}  statistics")
for r in runs:
    w, p = r.split()
    t = {v: statistics.median(float(open(f"{tmp}/{w}_{p}_{v}_{i}.time").read()) for i in range(rounds))
         for v in ("plain", "pgo")}
    a, b = (flat(json.load(open(f"{tmp}/{w}_{p}_{v}.json"))) for v in ("plain", "pgo"))
    diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    if diff:
        bad.append(f"{w} {p}: {len(diff)} statistics differ, e.g. {diff[0]}: {a.get(diff[0])} vs {b.get(diff[0])}")
    ratio = t["pgo"] / t["plain"] if t["plain"] > 0 else float("nan")
    rows.append({"workload": w, "protocol": p, "plain_user_s": t["plain"], "pgo_user_s": t["pgo"],
                 "ratio": ratio, "identical": not diff})
    print(f"  {w + ' ' + p:<18} {t['plain']:8.2f} {t['pgo']:8.2f} {ratio:10.3f}  {'identical' if not diff else 'DIFFER'}")
json.dump({"shape": shape, "config": config, "rounds": rounds, "rows": rows}, open(out, "w"), indent=1)
print(f"pgo: {out}")
for m in bad:
    print(f"pgo: {m}", file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
cp "$pgo" "$out"
echo "pgo: $out"
