#!/usr/bin/env bash
# A single-node Slurm cluster on this machine (Debian's slurmctld, slurmd and munge), for the tests of
# the runner's Slurm engine (scripts/runner.py) and for trying a sweep's ENGINE=slurm without a
# cluster. Everything it makes is under DIR: slurm.conf, the daemons' state, logs and PID files,
# munge's socket. The node is named localhost (the machine's own name varies); the ports are two
# free ones, so that two such clusters (two test runs) do not meet.
#   scripts/slurm_local.sh start DIR   starts munged, slurmctld and slurmd and waits until the node
#                                      is idle; prints the line to export: SLURM_CONF=DIR/slurm.conf
#   scripts/slurm_local.sh stop DIR    stops them (by their PID files) and waits until they are gone
# Needs root (slurmd runs the jobs as their user) and the packages slurm-wlm and munge
# (scripts/setup.sh installs them). Exit status 1 when a daemon does not come up, with its log.
set -euo pipefail

usage() { echo "usage: scripts/slurm_local.sh start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
dir=$(realpath -m "$2")

stop() {
  for d in slurmd slurmctld munged; do
    [ -f "$dir/$d.pid" ] || continue
    pid=$(cat "$dir/$d.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/$d.pid"
  done
}

fail() {
  echo "slurm_local: $1" >&2
  for l in "$dir"/*.log; do [ -f "$l" ] && { echo "--- $l" >&2; tail -n 20 "$l" >&2; }; done
  stop
  exit 1
}

case $cmd in
  stop) stop; exit 0 ;;
  start) ;;
  *) usage ;;
esac

for p in slurmctld slurmd munged sinfo; do
  command -v "$p" >/dev/null || { echo "slurm_local: $p is missing (scripts/setup.sh installs slurm-wlm and munge)" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "slurm_local: needs root (slurmd starts the jobs as their user)" >&2; exit 1; }
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"

# two free TCP ports
read -r p1 p2 < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

node=$(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]*/NodeName=localhost/')
cat > "$dir/slurm.conf" <<EOF
# A single-node Slurm for the tests (scripts/slurm_local.sh)
ClusterName=diktamo-local
SlurmctldHost=localhost
SlurmctldPort=$p1
SlurmdPort=$p2
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1,batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MaxArraySize=10001
$node State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF

munged --force --socket="$dir/munge/munge.socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" || fail "munged did not start"
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N localhost || fail "slurmd did not start"
for _ in $(seq 300); do
  state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
  [ "$state" = idle ] && { echo "SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.1
done
fail "the node is not idle after 30 s (sinfo: ${state:-nothing})"
