#!/usr/bin/env bash
# A real Slurm run on this machine, not a mock: installs Debian's Slurm (slurmctld, slurmd,
# munge) if missing, starts a one-node cluster in a scratch directory, submits
# scripts/slurm-array.sh as an array of SHARDS shards, sends SIGTERM to one running task
# (what Slurm does on preemption and at the time limit) and requeues it, waits, merges the
# shards (with an audit) and checks the total against an ordinary `nqueens count`.
#
# Usage: scripts/slurm-local.sh [OUT_FILE]        (default results/slurm-local.txt)
# Environment: N [17], SHARDS [8], NQUEENS_FLAGS ["--kernel scalar": slow enough per shard
# that a task can be caught mid-count on 2 cores; at n = 15 each shard ends in a few ms],
# WORK [a fresh directory under /tmp], KEEP [unset; 1 leaves the cluster running].
# Needs root (apt-get, munged, slurmd). Prints a log to stdout and OUT_FILE; exits non-zero
# if any check fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out_file=${1:-$root/results/slurm-local.txt}
n=${N:-17}
shards=${SHARDS:-8}
flags=${NQUEENS_FLAGS:---kernel scalar}
work=${WORK:-$(mktemp -d /tmp/nq-slurm.XXXXXX)}
mkdir -p "$work"/{state,spool,logs,shards}
exec > >(tee "$out_file") 2>&1

say() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
fail() { say "FAILED: $*"; exit 1; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  say "installing Debian's slurmctld, slurmd, slurm-client and munge"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null
fi
say "$(slurmctld -V), $(munged --version 2>&1 | head -n 1)"
say "machine: $cpu_model, $cpus logical CPUs; nqueens $("$bin" --version) at $commit"

# munge: a key of our own and a daemon on its own socket.
mkdir -p "$work/munge"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged --force --key-file "$work/munge/munge.key" --socket "$socket" \
  --pid-file "$work/munge/munged.pid" --log-file "$work/munge/munged.log" --seed-file "$work/munge/seed"

host=$(hostname -s)
mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=nqueens-local
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
JobRequeue=1
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

stop() {
  [ "${KEEP:-}" = 1 ] && { say "KEEP=1: the cluster stays up (SLURM_CONF=$SLURM_CONF)"; return; }
  for pid in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munge/munged.pid"; do
    [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
  done
}
trap stop EXIT

slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  sinfo -h -o %T 2>/dev/null | grep -qx idle && break
  sleep 1
done
sinfo -h -o '%P %N %c CPUs %T' | sed 's/^/  sinfo: /'
sinfo -h -o %T | grep -qx idle || fail "the node did not come up (see $work/slurmd.log)"

say "submitting n = $n in $shards shards, one CPU each, flags: $flags"
job=$(cd "$work" && N=$n SHARDS=$shards NQUEENS=$bin OUT_DIR=$work/shards NQUEENS_FLAGS=$flags \
  sbatch --parsable --array=0-$((shards - 1)) --cpus-per-task=1 --time=30 \
  --output="$work/logs/%A_%a.out" "$root/scripts/slurm-array.sh")
say "job $job"

# Catch a task mid-count: running, with results in its checkpoint already.
victim=""
for _ in $(seq 600); do
  while read -r id state; do
    [ "$state" = RUNNING ] || continue
    task=${id#*_}
    ckpt=$work/shards/n$n-$task-of-$shards.ckpt
    if [ -f "$ckpt" ] && (($(wc -l <"$ckpt") > 2)); then
      victim=$task
      break
    fi
  done < <(squeue -h -j "$job" -o '%i %T')
  [ -n "$victim" ] && break
  sleep 0.1
done
[ -n "$victim" ] || fail "no task was caught running with a checkpoint"
before=$(wc -l <"$work/shards/n$n-$victim-of-$shards.ckpt")
say "task $victim is running with $((before - 1)) records in its checkpoint: scancel --batch --signal=TERM"
# scancel reports a signalled array task with a non-zero status even when it delivered the
# signal; the task's own log below is what tells.
scancel --batch --signal=TERM "${job}_$victim" || say "(scancel exit status $?)"
for _ in $(seq 100); do
  squeue -h -j "${job}_$victim" -o %T 2>/dev/null | grep -q . || break
  sleep 0.2
done
log=$work/logs/${job}_$victim.out
grep -h "interrupted by SIGTERM" "$log" | sed 's/^/  task log: /' || fail "task $victim did not report the SIGTERM"
kept=$(wc -l <"$work/shards/n$n-$victim-of-$shards.ckpt")
say "task $victim stopped with $((kept - 1)) records kept; requeueing it"
[ -f "$work/shards/n$n-$victim-of-$shards.json" ] && fail "an interrupted shard wrote a result"
scontrol requeue "${job}_$victim" || fail "scontrol requeue ${job}_$victim"

for _ in $(seq 1200); do
  squeue -h -j "$job" | grep -q . || break
  sleep 0.5
done
squeue -h -j "$job" | grep -q . && fail "the array did not finish"
say "all tasks left the queue"
grep -h "partial counts written" "$work"/logs/*.out | sed 's/^/  task log: /'
grep -h "partial counts written" "$work/logs/${job}_$victim.out" >/dev/null || fail "the requeued task did not finish"

say "merging with an audit of 25%"
merged=$("$bin" merge --audit 25 --seed 1 --format json "$work"/shards/n$n-*-of-$shards.json)
echo "  merge: $merged"
direct=$("$bin" count "$n" --format json)
echo "  count: $direct"
m=$(json_fields solutions unique <<<"$merged")
d=$(json_fields solutions unique <<<"$direct")
[ "$m" = "$d" ] || fail "merged $m differs from the direct count $d"
say "OK: the merged total ($m) equals the direct count, with one task preempted by SIGTERM and requeued"
