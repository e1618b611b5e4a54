#!/usr/bin/env bash
# `nqueens estimate` against the runs it predicts: for each N, the estimate (its thread-seconds,
# interval and wall time) and then, unless FULL=0, the full count on the same threads, timed
# from outside (wall) and by the kernel's accounting (user + system: the thread-seconds).
# With FULL=0 it only records the estimates: the growth table beyond what can be counted.
#
# Usage: scripts/estimate-check.sh N... [>> CSV]   (THREADS [2]; ESTIMATE: more arguments
#   for `estimate`, e.g. "--seconds 300 --shards 512"; HEADER=0 leaves out the header)
# Columns: cpu_model, commit, n, threads, method, kernel, parts, sampled, sampling_s,
#   predicted_core_s (low, high: the interval), predicted_wall_s, memory_seen (bytes, the
#   estimate's peak), longest_shard_s (with --shards), measured_wall_s, measured_core_s,
#   error (predicted core-seconds over measured, - 1), solutions.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
threads=${THREADS:-2}
read -r -a extra <<<"${ESTIMATE:-}"
[ "${HEADER:-1}" = 0 ] || echo "cpu_model,commit,n,threads,method,kernel,parts,sampled,sampling_s,predicted_core_s,low_core_s,high_core_s,predicted_wall_s,memory_seen,longest_shard_s,measured_wall_s,measured_core_s,error,solutions"
times=$(mktemp)
trap 'rm -f "$times"' EXIT
for n in "$@"; do
  e=$("$bin" estimate "$n" -j "$threads" --format json "${extra[@]}" 2>/dev/null)
  IFS=, read -r method kernel parts sampled sampling_s core low high wall memory longest <<<"$(
    json_fields method kernel parts sampled sampling_s thread_hours thread_hours_low thread_hours_high wall_s memory_seen longest_shard_s <<<"$e"
  )"
  secs() { awk -v h="$1" 'BEGIN {printf "%.3f", h * 3600}'; }
  core=$(secs "$core") low=$(secs "$low") high=$(secs "$high")
  measured_wall='' measured_core='' error='' solutions=''
  if [ "${FULL:-1}" != 0 ]; then
    line=$(/usr/bin/time -o "$times" -f '%e %U %S' "$bin" count "$n" -j "$threads" --format json)
    read -r measured_wall u s <"$times"
    measured_core=$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')
    error=$(awk -v p="$core" -v m="$measured_core" 'BEGIN {printf "%+.3f", p / m - 1}')
    solutions=$(json_fields solutions <<<"$line")
  fi
  echo "\"$cpu_model\",$commit,$n,$threads,$method,$kernel,$parts,$sampled,$sampling_s,$core,$low,$high,$wall,$memory,$longest,$measured_wall,$measured_core,$error,$solutions"
done
