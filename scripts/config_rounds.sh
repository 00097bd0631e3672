# Sourced by scripts/pgo.sh and scripts/threads.sh (`. scripts/config_rounds.sh NAME "$@"` from the
# repository's root): their arguments, --config FILE (default sim_configs/paper.ini) and --rounds N
# (default 3), checked before anything is built or run, and the configuration's fabric shape (a bad
# configuration stops here with its one-line message and status 2). Sets config, rounds and shape.
# A script with switches of its own names them in _switches before it sources this ("--bench"):
# each given sets the variable of its name (bench=1), else it is 0.
_name=$1
shift
config=sim_configs/paper.ini rounds=3
for _s in ${_switches:-}; do eval "${_s#--}=0"; done
while [ $# -gt 0 ]; do
  if [[ " ${_switches:-} " == *" $1 "* ]]; then eval "${1#--}=1"; shift; continue; fi
  case $1 in
    --config) config=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "$_name.sh: $1: unknown argument (--config FILE, --rounds N${_switches:+, ${_switches// /, }})" >&2; exit 2 ;;
  esac
done
case $rounds in ''|*[!0-9]*|0) echo "$_name.sh: --rounds $rounds: a count of 1 or more" >&2; exit 2 ;; esac
# (its make's output only if it fails: run from another make's recipe, it may warn about that
# make's job server, and a bad configuration's message must stay one line)
if ! mk=$(make -s build/bin/diktamo_cfg 2>&1); then echo "$mk" >&2; exit 1; fi
shape=$(build/bin/diktamo_cfg --config "$config" --shape) # a bad configuration stops here (status 2)
