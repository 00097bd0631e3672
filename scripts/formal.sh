#!/usr/bin/env bash
# Runs the formal checks of constraints/formal/ (or of the directory --dir names):
#   NAME.ys      a Yosys script (sat -tempinduct): must prove;
#   NAME.rumur   a configuration of the Murphi model tb/formal/diktamo.m, checked exhaustively by
#                Rumur: must end with "No error found." Each line "KEY VALUE" sets the model's
#                constant KEY (one of its "  KEY: value;" lines) to VALUE; '#' starts a comment;
#                a line "expect TEXT | TEXT..." (controls) names the errors the counterexample may
#                show (another one, e.g. an assertion of the model, is an error of the check).
# NAME.fail.ys / NAME.fail.rumur is a control that must FAIL with a counterexample (so that a check
# that passes whatever the design does is noticed): a mutation of the model, or a proof without an
# assumption it needs. For Yosys that is a trace ("model found"): an induction that gives up at
# -maxsteps without one is neither a proof nor a counterexample, and fails the check. One line per check: proven (with states and time for Rumur) or
# counterexample found. Usage: scripts/formal.sh [--dir DIR] [NAME...] (default: every check of
# DIR, default constraints/formal). Logs and generated models go to $FORMAL_OUT (default
# build/formal)/NAME.*. Exit status 1 when any check goes the wrong way.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${FORMAL_OUT:-build/formal}
dir=constraints/formal
if [ "${1:-}" = "--dir" ]; then dir=$2; shift 2; fi
mkdir -p "$out"
model=tb/formal/diktamo.m

if [ $# -gt 0 ]; then
  checks=()
  for n in "$@"; do
    if [ -f "$dir/$n.ys" ]; then checks+=("$dir/$n.ys"); else checks+=("$dir/$n.rumur"); fi
  done
else
  shopt -s nullglob
  checks=("$dir"/*.ys "$dir"/*.rumur)
fi

# The model with the configuration's constants: rewritten from the one source, each override
# checked to have matched exactly one constant line.
gen_model() { # CONF OUT.m
  local conf=$1 m=$2 key val
  cp "$model" "$m"
  while read -r key val; do
    case $key in ''|'#'*|expect) continue ;; esac
    val=${val%%#*}; val=${val%"${val##*[![:space:]]}"}
    if [ "$(grep -c "^  $key: [^;]*;" "$m")" != 1 ]; then
      echo "formal.sh: $conf: $key: no such constant in $model" >&2
      return 1
    fi
    sed -i "s/^\(  $key: \)[^;]*;/\1$val;/" "$m"
  done < "$conf"
}

run_ys() { # NAME YS -> 0 proven, 1 counterexample, 2 error or no proof either way
  local name=$1 ys=$2 log=$out/$1.log
  yosys -q -l "$log" -s "$ys" > /dev/null 2>&1
  local rc=$?
  [ $rc -eq 0 ] && return 0
  # A failed proof is a counterexample only when Yosys found a trace ("model found", from reset
  # in an induction's base case): an induction that reached -maxsteps proved nothing either way,
  # which a control must not pass for.
  grep -q "proof did fail" "$log" && grep -q "model found" "$log" && return 1
  if grep -q "proof did fail" "$log"; then
    detail="no counterexample: the induction reached -maxsteps without a trace or a proof (see $log)"
  else
    detail="yosys error (see $log): $(grep -m1 ERROR "$log")"
  fi
  return 2
}

run_rumur() { # NAME CONF -> 0 no error, 1 counterexample, 2 error
  local name=$1 conf=$2 log=$out/$1.log m=$out/$1.m
  gen_model "$conf" "$m" || { detail="bad configuration"; return 2; }
  local fail=0; case $name in *.fail) fail=1 ;; esac
  # A control stops at its first counterexample, usually within seconds: an unoptimized verifier
  # compiles in half the time; one thread makes it the same counterexample, after the same number
  # of states, every run (threads racing through the queue find another one each time). States
  # unpacked (a byte or more per field, not bit-packed): the verifier spends most of its time
  # reading and writing fields, and the proof of protocol_proactive takes a fifth less time, and its
  # C a third less to compile, for 114 MB.
  local opt=-O1 threads=0; [ $fail -eq 1 ] && { opt=-O0; threads=1; }
  if ! rumur --quiet --threads $threads --deadlock-detection stuck --colour off --pack-state off \
         --output "$out/$name.c" "$m" > "$log" 2>&1 ||
     ! cc -std=c11 $opt -mcx16 -w -o "$out/$name.verifier" "$out/$name.c" -lpthread >> "$log" 2>&1; then
    detail="rumur or cc failed (see $log)"
    return 2
  fi
  local t0=$SECONDS
  "$out/$name.verifier" > "$log" 2>&1
  local rc=$?
  local secs=$((SECONDS - t0))
  local states; states=$(grep -Eo '^[[:space:]]*[0-9]+ states, [0-9]+ rules fired' "$log" | tail -1 | awk '{print $1}')
  if [ $rc -eq 0 ] && grep -q "No error found" "$log"; then
    detail="${states:-?} states, ${secs} s"
    return 0
  fi
  if [ $rc -eq 1 ] && grep -q "error trace for the error" "$log"; then
    local what; what=$(grep -A2 "error trace for the error" "$log" | sed -n 3p | sed 's/^[[:space:]]*//')
    local want alt ok=0; want=$(sed -n 's/^expect[[:space:]]\+//p' "$conf")
    [ -z "$want" ] && ok=1
    while read -r alt; do
      [ -n "$alt" ] && grep -qF -- "$alt" <<< "$what" && ok=1
    done <<< "${want// | /$'\n'}"
    if [ $ok -eq 0 ]; then
      detail="counterexample of another kind: $what (expected: $want; see $log)"
      return 2
    fi
    detail="$what, ${states:-?} states, ${secs} s"
    return 1
  fi
  detail="verifier exit status $rc (see $log)"
  return 2
}

status=0
for f in "${checks[@]}"; do
  name=$(basename "$f"); name=${name%.ys}; name=${name%.rumur}
  detail=""
  if [ ! -f "$f" ]; then
    echo "formal.sh: $f: no such check" >&2
    status=1
    continue
  fi
  case $f in
    *.ys)    run_ys "$name" "$f" ;;
    *.rumur) run_rumur "$name" "$f" ;;
  esac
  rc=$?
  case $name in
    *.fail)
      if [ $rc -eq 1 ]; then
        echo "formal: $name: counterexample found, as it must (control)${detail:+: $detail}"
      else
        echo "formal: $name: control did not fail with the expected counterexample${detail:+: $detail}" >&2
        status=1
      fi ;;
    *)
      if [ $rc -eq 0 ]; then
        echo "formal: $name: proven${detail:+ ($detail)}"
      elif [ $rc -eq 1 ]; then
        echo "formal: $name: PROOF FAILED, counterexample in $out/$name.log${detail:+: $detail}" >&2
        status=1
      else
        echo "formal: $name: $detail" >&2
        status=1
      fi ;;
  esac
done
exit $status
