#!/usr/bin/env bash
# Runs the co-simulation for a configuration: checks the configuration (bad input stops here with
# exit status 2), builds the simulator for the fabric shape it needs, and runs it with the same
# arguments. Usage: scripts/run_sim.sh [diktamo_sim arguments]   (see diktamo_sim --help)
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/bin/diktamo_cfg
shape=$(build/bin/diktamo_cfg "$@" --shape)
make -s SIM_SHAPE="$shape" "build/bin/diktamo_sim_$shape"
exec "build/bin/diktamo_sim_$shape" "$@"
