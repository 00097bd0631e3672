#!/usr/bin/env bash
# Builds the simulator for a configuration's fabric shape with GCC's profile-guided optimization
# and measures what it pays: build/bin/diktamo_sim_SHAPE_pgo, the fast flavour compiled (its
# Verilated models, the C models and the Verilator runtime alike) with the profile of training
# runs. The build tree is build/pgo (the Makefile with B=build/pgo): first instrumented
# (-fprofile-generate), then the training runs (every workload of the configuration under WB and
# DIKTAMO-proactive, the configuration's own sizes), then the objects compiled again with the
# profile (-fprofile-use). Last, the plain fast binary and the PGO one each run every training
# workload ROUNDS times (default 3), alternating, on the same machine in the same session
# (scripts/ab.py): the statistics must be identical (exit status 1 otherwise) and the median wall
# and user times of each are printed with their ratios, and written to build/bench/pgo_SHAPE.json;
# the binary is copied to build/bin only then.
# Usage: scripts/pgo.sh [--config FILE] [--rounds N]   (make pgo PGO_CONFIG=... ROUNDS=...)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/config_rounds.sh pgo "$@"
B=build/pgo
plain=build/bin/diktamo_sim_$shape
pgo=$B/bin/diktamo_sim_$shape
out=build/bin/diktamo_sim_${shape}_pgo # written only once its statistics are the plain one's
rm -f "$out"
runs=()
for w in ocean fluid kvs; do
  for p in wb proactive; do runs+=("$w $p"); done
done

clear_objects() { # the objects (and archives with their done marks, binary) of the PGO tree, not
  # its profiles (*.gcda): without its V<model>__ALL.ok a model's archive is made again
  find "$B/obj" "$B/vl" \( -name '*.o' -o -name '*.a' -o -name '*__ALL.ok' \) -delete 2>/dev/null || true
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

# Alternating runs, plain then PGO, every workload, ROUNDS times (scripts/ab.py).
python3 scripts/ab.py --config "$config" --rounds "$rounds" --out build/bench/pgo_$shape.json --label pgo \
  --a plain "$plain" --b pgo "$pgo" || exit 1
cp "$pgo" "$out"
echo "pgo: $out"
