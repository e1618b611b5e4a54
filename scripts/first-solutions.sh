#!/usr/bin/env bash
# How long the first solutions of large boards take to list: `nqueens solve N --limit K
# --format columns`, each N run REPS times, the median wall and CPU time (user + system).
# With BEFORE set to another build's binary, that build runs alternately with this one on the
# same boards, for a side-by-side ratio.
#
# Usage: scripts/first-solutions.sh [OUT_CSV] [N...]   (defaults: first-solutions.csv in a new
#        folder results/<machine>/<date>-first-solutions/, lib.sh's results_dir, also for an
#        OUT_CSV of ''; and 28 29 30 31 32. REPS [5], LIMIT [1], THREADS [all], BEFORE [unset])
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=${1:-$(results_dir first-solutions)/first-solutions.csv}
shift || true
boards=("$@")
((${#boards[@]})) || boards=(28 29 30 31 32)
reps=${REPS:-5}
limit=${LIMIT:-1}
threads=${THREADS:-$cpus}
builds=(this)
[ -n "${BEFORE:-}" ] && builds+=(before)
mkdir -p "$(dirname "$out")"
echo "cpu_model,logical_cpus,commit,build,n,limit,threads,repetitions,wall_median_s,cpu_median_s" >"$out"
for n in "${boards[@]}"; do
  declare -A wall=() cpu=()
  for ((r = 0; r < reps; r++)); do
    for b in "${builds[@]}"; do
      exe=$bin
      [ "$b" = before ] && exe=$BEFORE
      t=$( { /usr/bin/time -f '%e %U %S' "$exe" solve "$n" --limit "$limit" -j "$threads" --format columns >/dev/null; } 2>&1 | tail -n 1)
      read -r w u s <<<"$t"
      wall[$b]+=" $w"
      cpu[$b]+=" $(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')"
    done
  done
  for b in "${builds[@]}"; do
    w=$(median <<<"${wall[$b]}")
    c=$(median <<<"${cpu[$b]}")
    echo "\"$cpu_model\",$cpus,$commit,$b,$n,$limit,$threads,$reps,$w,$c" | tee -a "$out"
  done
  unset wall cpu
done
