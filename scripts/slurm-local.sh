#!/usr/bin/env bash
# A real Slurm run on this machine, not a mock: installs Debian's Slurm (slurmctld, slurmd,
# munge) if missing, starts a one-node cluster in a scratch directory, submits
# scripts/slurm-array.sh as an array of SHARDS shards, sends SIGTERM to KILLS running tasks
# (what Slurm does on preemption and at the time limit) and requeues them, polls
# `merge --partial` on the shard folder while the array runs, merges the shards (with an
# audit) and checks the total against the published one (src/published.rs).
#
# Usage: scripts/slurm-local.sh [OUT_FILE]        (default slurm-local.txt in a new folder
#        results/<machine>/<date>-slurm-local/, lib.sh's results_dir)
# Environment: N [17], SHARDS [8], KILLS [1], POLL [seconds between partial merges, 5],
# NQUEENS_FLAGS ["--kernel scalar": slow enough per shard that a task can be caught mid-count
# on 2 cores; at n = 15 each shard ends in a few ms], WORK [a fresh directory under /tmp],
# KEEP [unset; 1 leaves the cluster running], SLOTS [the node's CPUs as Slurm sees them, default
# the real count; more lets more one-CPU tasks run at once, as on a node with that many cores: Slurm
# starts a task in about a second, so with 2 slots 2,048 short tasks take most of an hour].
# The issue 30 rehearsal, 2,048 tasks (its log: results/zen3/2026-11-25-cluster-readiness/):
#   N=20 SHARDS=2048 KILLS=5 SLOTS=8 scripts/slurm-local.sh
# Needs root (apt-get, munged, slurmd). Prints a log to stdout and OUT_FILE; exits non-zero
# if any check fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out_file=${1:-$(results_dir slurm-local)/slurm-local.txt}
n=${N:-17}
shards=${SHARDS:-8}
kills=${KILLS:-1}
poll=${POLL:-5}
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
MaxArraySize=$((shards + 1))
MaxJobCount=$((shards + 1000))
SlurmdParameters=config_overrides
NodeName=$host CPUs=${SLOTS:-$cpus} RealMemory=$mem State=UNKNOWN
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

# A partial merge every $poll s while the array runs: what a user polls.
(
  while sleep "$poll"; do
    row=$("$bin" merge --partial --format csv "$work/shards" 2>/dev/null | tail -n 1) || continue
    IFS=, read -r _ complete solutions _ _ _ _ k merged parts parts_merged cost missing <<<"$row"
    say "merge --partial: $merged of $k shards ($parts_merged of $parts parts, $cost of the estimated work), $solutions solutions so far; missing: $(echo "$missing" | wc -w) ranges, first $(echo "$missing" | cut -d' ' -f1-3)"
    [ "$complete" = true ] && break
  done
) &
poller=$!

# Catch KILLS tasks mid-count (running, their checkpoint open), one after another: each is
# sent SIGTERM, must say so in its log, and is requeued.
killed=0
victims=()
declare -A tried=()
for _ in $(seq 3000); do
  ((killed < kills)) || break
  victim=""
  while read -r id state; do
    [ "$state" = RUNNING ] || continue
    task=${id#*_}
    [ -n "${tried[$task]:-}" ] && continue
    ckpt=$work/shards/n$n-$task-of-$shards.ckpt
    if [ -f "$ckpt" ] && (($(wc -l <"$ckpt") > ${MIN_RECORDS:-2})); then
      victim=$task
      break
    fi
  done < <(squeue -h -j "$job" -t RUNNING -o '%i %T')
  if [ -z "$victim" ]; then
    sleep 0.1
    continue
  fi
  tried[$victim]=1
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
  if ! grep -h "interrupted by SIGTERM" "$log" | sed 's/^/  task log: /'; then
    say "task $victim finished before the signal reached it: another one"
    continue
  fi
  kept=$(wc -l <"$work/shards/n$n-$victim-of-$shards.ckpt")
  say "task $victim stopped with $((kept - 1)) records kept; requeueing it"
  [ -f "$work/shards/n$n-$victim-of-$shards.json" ] && fail "an interrupted shard wrote a result"
  scontrol requeue "${job}_$victim" || fail "scontrol requeue ${job}_$victim"
  victims+=("$victim")
  killed=$((killed + 1))
done
((killed == kills)) || fail "only $killed of $kills tasks were caught running with a checkpoint"

for _ in $(seq 7200); do
  squeue -h -j "$job" | grep -q . || break
  sleep 0.5
done
squeue -h -j "$job" | grep -q . && fail "the array did not finish"
say "all tasks left the queue"
wait "$poller" 2>/dev/null || true
grep -h "partial counts written" "$work"/logs/*.out | sed -n '1,3p;$p' | sed 's/^/  task log: /'
say "$(grep -l "partial counts written" "$work"/logs/*.out | wc -l) task logs say their shard was written"
for victim in "${victims[@]}"; do
  grep -h "partial counts written" "$work/logs/${job}_$victim.out" >/dev/null ||
    fail "the requeued task $victim did not finish"
done

say "merging the folder with an audit of ${AUDIT:-25}%"
merged=$("$bin" merge --audit "${AUDIT:-25}" --seed 1 --format json "$work/shards")
echo "  merge: $merged"
published=$(sed -n '/^pub const A000170/,/^];/p' "$root/src/published.rs" | grep -E '^ +[0-9]+,' | sed -n "$((n + 1))p" | tr -dc 0-9)
m=$(json_fields solutions <<<"$merged")
[ "$m" = "$published" ] || fail "merged $m differs from the published $published"
say "OK: the merged total ($m) equals the published A000170($n), with $kills task(s) preempted by SIGTERM and requeued"
