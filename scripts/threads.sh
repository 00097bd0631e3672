#!/usr/bin/env bash
# One host thread against two (sim.threads = 2: the switch's RTL evaluated on a worker thread while
# the other models run; docs/architecture.md section 6) on a configuration's workloads under WB and
# DIKTAMO-proactive, ROUNDS times each, alternating (scripts/ab.py): the statistics must be
# identical (exit status 1 otherwise); the median wall and user times and their ratios are printed
# and written to build/bench/threads_SHAPE.json.
# Usage: scripts/threads.sh [--config FILE] [--rounds N]   (make threads THREADS_CONFIG=... ROUNDS=...)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/config_rounds.sh threads "$@"
sim=build/bin/diktamo_sim_$shape
make -s SIM_SHAPE="$shape" "$sim"
python3 scripts/ab.py --config "$config" --rounds "$rounds" --out build/bench/threads_$shape.json --label threads \
  --a 1thread "$sim" --b 2threads "$sim" --set sim.threads=2
