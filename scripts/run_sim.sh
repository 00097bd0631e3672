#!/usr/bin/env bash
# Runs the co-simulation for a configuration: checks the configuration (bad input stops here with
# exit status 2), builds the simulator for the fabric shape it needs, and runs it with the same
# arguments. Usage: [SIM_FLAVOUR=fast|test] scripts/run_sim.sh [diktamo_sim arguments]
# (see diktamo_sim --help)
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/bin/diktamo_cfg
shape=$(build/bin/diktamo_cfg "$@" --shape)
# The fast flavour (no assertions, no tracing) unless the run traces or SIM_FLAVOUR=test asks for
# the test flavour (SVA assertions on, FST tracing): the same statistics either way.
sim="build/bin/diktamo_sim_$shape"
for a in "$@"; do
  [ "$a" = --trace ] && SIM_FLAVOUR=test
done
case "${SIM_FLAVOUR:-fast}" in
  fast) ;;
  test) sim="${sim}_test" ;;
  *) echo "run_sim.sh: SIM_FLAVOUR=$SIM_FLAVOUR: fast or test" >&2; exit 2 ;;
esac
make -s SIM_SHAPE="$shape" "$sim"
exec "$sim" "$@"
