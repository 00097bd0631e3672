#!/usr/bin/env bash
# Installs the Debian 12 packages the build uses, only those missing, and says what it installs.
# Called by the Makefile before any target that needs a tool; safe to run by hand.
# `setup.sh --fuzz`: the packages of `make fuzz` only (clang and libFuzzer), which no other target
# needs; the Makefile calls it so before building the fuzzing harnesses.
set -euo pipefail

# package  -> what uses it
pkgs=(
  build-essential   # gcc, g++, make: the C simulator, tests and Verilated models
  pkg-config        # finds Criterion, inih and zlib flags
  python3           # scripts/gen_msg.py, scripts/gen_vwrap.py, report scripts
  verilator         # lint, co-simulation
  yosys             # make synth
  opensta           # make synth (static timing)
  qflow-tech-osu018 # OSU 0.18 um liberty for make synth
  libcriterion-dev  # make test
  libinih-dev       # sim_configs/*.ini parsing
  zlib1g-dev        # compression engine model (Logging Unit dumps)
  gtkwave           # make waves, make waves-png; fst2vcd in tests
  xvfb              # make waves-png (headless GTKWave)
  imagemagick       # make waves-png (screenshot of the headless window)
  z3                # formal proofs (yosys-smtbmc back end)
  rumur             # make formal: the Murphi model of the protocol (tb/formal/diktamo.m)
  gnuplot-nox       # make run's chart (build/results/run/fig10.svg), make figures (docs/figures/)
  valgrind          # make instr: host instructions per benchmark row (callgrind)
  slurm-wlm         # the runner's Slurm engine (ENGINE=slurm); make test runs a single-node Slurm
  munge             # Slurm's authentication, for that single-node Slurm
)
# make fuzz: the libFuzzer harnesses of tb/fuzz/ (clang -fsanitize=fuzzer,address,undefined).
fuzz_pkgs=(
  clang               # the compiler driver (Debian 12: clang 14)
  libclang-rt-14-dev  # clang 14's runtimes: libFuzzer (libclang_rt.fuzzer), ASan, UBSan
  llvm                # llvm-profdata, llvm-cov: the line coverage of what the harnesses reached
)
case "${1:-}" in
  "") ;;
  --fuzz) pkgs=("${fuzz_pkgs[@]}") ;;
  *) echo "setup.sh: unknown argument: $1 (usage: setup.sh [--fuzz])" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing missing Debian packages: ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
echo "setup: done" >&2
