#!/usr/bin/env bash
# Runs the formal proofs: Yosys scripts in constraints/formal/. Every NAME.ys must prove; every
# NAME.fail.ys is a control that must end in a failed proof (so a proof that passes whatever the
# design does is noticed). Usage: scripts/formal.sh [NAME...] (default: all). Logs go to
# $FORMAL_OUT (default build/formal)/NAME.log. Exit status 1 when any check goes the wrong way.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${FORMAL_OUT:-build/formal}
mkdir -p "$out"

if [ $# -gt 0 ]; then
  scripts=()
  for n in "$@"; do scripts+=("constraints/formal/$n.ys"); done
else
  scripts=(constraints/formal/*.ys)
fi

status=0
for ys in "${scripts[@]}"; do
  name=$(basename "$ys" .ys)
  log=$out/$name.log
  if [ ! -f "$ys" ]; then
    echo "formal.sh: $ys: no such script" >&2
    status=1
    continue
  fi
  yosys -q -l "$log" -s "$ys" > /dev/null 2>&1
  rc=$?
  # A failed proof is the one failure a control may have; anything else (syntax, missing file)
  # is an error either way.
  proof_failed=0
  grep -q "proof did fail" "$log" && proof_failed=1
  case $name in
    *.fail)
      if [ $rc -ne 0 ] && [ $proof_failed -eq 1 ]; then
        echo "formal: $name: fails as it must (control)"
      else
        echo "formal: $name: control did not fail with a counterexample (see $log)" >&2
        status=1
      fi ;;
    *)
      if [ $rc -eq 0 ]; then
        echo "formal: $name: proven"
      elif [ $proof_failed -eq 1 ]; then
        echo "formal: $name: PROOF FAILED, counterexample in $log" >&2
        status=1
      else
        echo "formal: $name: yosys error (see $log): $(grep -m1 ERROR "$log")" >&2
        status=1
      fi ;;
  esac
done
exit $status
