#!/usr/bin/env bash
# The simulator and the benchmark built with GCC's profile-guided optimization, and what it pays.
# The fast flavour (its Verilated models, the C models and the Verilator runtime alike) is compiled
# in a build tree of its own, build/pgo (the Makefile with B=build/pgo): first instrumented
# (-fprofile-generate), then the training runs, then compiled again with their profile
# (-fprofile-use) and link-time optimization (-flto). The training runs: every workload under WB
# and DIKTAMO-proactive, at its configuration's own sizes, of the configuration asked for
# (--config, default paper.ini) and of the benchmark's two fabric shapes' (paper.ini for 16 + 16,
# run.ini for 4 + 2). Built with the profile: diktamo_sim for each of those shapes, and
# diktamo_bench.
#
# Each PGO simulator then runs its configuration's training workloads beside the plain fast one
# (scripts/ab.py, alternating): the statistics must be identical, else the script stops with status
# 1 and copies nothing. Only then are the programs copied to build/bin/diktamo_sim_SHAPE_pgo and
# build/bin/diktamo_bench_pgo (what `make bench` runs), and build/pgo/pgo.stamp records the hash of
# every input of the build (sources, RTL, generators, Makefile, configurations, compiler and
# Verilator versions, the training list). With the same hash and those programs in place, nothing
# is built again.
#
# make pgo: the above, then ROUNDS (default 3) alternating rounds of --config's workloads timed;
# their median wall and user times and the ratios are printed and written to
# build/bench/pgo_SHAPE.json. --bench (make bench): the build alone, when its inputs changed (the
# identity check then runs one round).
# Usage: scripts/pgo.sh [--config FILE] [--rounds N] [--bench]   (make pgo PGO_CONFIG=... ROUNDS=...)
set -euo pipefail
cd "$(dirname "$0")/.."
_switches="--bench"
. scripts/config_rounds.sh pgo "$@"
B=build/pgo

train=()
for c in "$config" sim_configs/paper.ini sim_configs/run.ini; do
  [[ " ${train[*]:-} " == *" $c "* ]] || train+=("$c")
done
shapes=()
for c in "${train[@]}"; do
  s=$(build/bin/diktamo_cfg --config "$c" --shape)
  [[ " ${shapes[*]:-} " == *" $s "* ]] || shapes+=("$s")
done
progs=(diktamo_bench)
for s in "${shapes[@]}"; do progs+=("diktamo_sim_$s"); done

# Every input of the build: what a change of would make the profile or the programs stale.
inputs_hash() {
  {
    find Makefile csim rtl tb/harness sim_configs scripts/mk scripts/pgo.sh scripts/gen_*.py scripts/genutil.py \
      -type f -print0 | sort -z | xargs -0 sha1sum
    cc --version | head -1
    c++ --version | head -1
    verilator --version
    echo "${train[*]}"
  } | sha1sum | cut -d' ' -f1
}

clear_objects() { # the objects (and archives with their done marks, binaries) of the PGO tree, not
  # its profiles (*.gcda): without its V<model>__ALL.ok a model's archive is made again
  find "$B/obj" "$B/vl" \( -name '*.o' -o -name '*.a' -o -name '*__ALL.ok' \) -delete 2>/dev/null || true
  rm -rf "$B/bin"
}

# (each shape's simulator is linked in a make of its own: SIM_SHAPE names the one to link)
make_progs() { # PGO flags, then the programs
  local flags=$1 p
  shift
  for p in "$@"; do
    case $p in
      diktamo_sim_*) make -s B=$B SIM_SHAPE="${p#diktamo_sim_}" PGO="$flags" "$B/bin/$p" ;;
      *) make -s B=$B PGO="$flags" "$B/bin/$p" ;;
    esac
  done
}

out_of() { echo "build/bin/${1}_pgo"; } # a program's copy in build/bin

want=$(inputs_hash)
fresh=1
[ "$(cat "$B/pgo.stamp" 2>/dev/null)" = "$want" ] || fresh=0
for p in "${progs[@]}"; do [ -x "$(out_of "$p")" ] || fresh=0; done

compare() { # configuration, rounds, JSON out: plain against PGO, statistics identical
  local c=$1 n=$2 j=$3 s
  s=$(build/bin/diktamo_cfg --config "$c" --shape)
  make -s SIM_SHAPE="$s" "build/bin/diktamo_sim_$s"
  python3 scripts/ab.py --config "$c" --rounds "$n" --out "$j" --label pgo \
    --a plain "build/bin/diktamo_sim_$s" --b pgo "$B/bin/diktamo_sim_$s"
}

mkdir -p build/bench
if [ $fresh = 0 ]; then
  rm -f "$B/pgo.stamp"
  for p in "${progs[@]}"; do rm -f "$(out_of "$p")"; done
  echo "pgo: instrumented build in $B (${shapes[*]})"
  clear_objects
  find "$B" -name '*.gcda' -delete 2>/dev/null || true
  sims=("${progs[@]:1}")
  make_progs "-fprofile-generate -fprofile-update=single" "${sims[@]}"
  for c in "${train[@]}"; do
    s=$(build/bin/diktamo_cfg --config "$c" --shape)
    for w in bodytrack fluidanimate streamcluster canneal raytrace barnes ocean_ncp ocean_cp ycsb; do
      for p in wb proactive; do
        echo "pgo: training: $c, $w under $p"
        "$B/bin/diktamo_sim_$s" --config "$c" --set workload.name=$w --set core.protocol=$p --quiet > /dev/null
      done
    done
  done
  echo "pgo: build with the profile and link-time optimization: ${progs[*]}"
  clear_objects
  # (-Wno-error: with the profile and -flto GCC may warn of calls whose counts it lost, a warning
  # no option turns off; seen with a profile used from another tree's path. The plain build keeps
  # -Werror for the code's own warnings.)
  make_progs "-fprofile-use -fprofile-partial-training -Wno-missing-profile -flto=auto -Wno-error" "${progs[@]}"
  # The same statistics as the plain simulator on every training configuration (one round each).
  for c in "${train[@]}"; do
    compare "$c" 1 "$B/same_$(basename "$c" .ini).json" || exit 1
  done
  for p in "${progs[@]}"; do cp "$B/bin/$p" "$(out_of "$p")"; done
  echo "$want" > "$B/pgo.stamp"
else
  echo "pgo: $B is up to date with the sources ($B/pgo.stamp)"
fi
# make pgo: --config's workloads timed, ROUNDS alternating rounds (their statistics checked again).
if [ $bench = 0 ]; then
  compare "$config" "$rounds" "build/bench/pgo_$shape.json" || exit 1
fi
for p in "${progs[@]}"; do echo "pgo: $(out_of "$p")"; done
