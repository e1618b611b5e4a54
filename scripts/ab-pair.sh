#!/usr/bin/env bash
# Two builds of `time_keys` at once, one on each of two cores, then with the cores swapped:
# each pair's B/A of the `seconds=` they print, and the median over all pairs. Both runs of a
# pair see the same hour of a shared machine, whose speed drifts by more than the builds
# differ; the swap evens out a core's own speed. Needs two cores and `taskset`.
#
# Usage: scripts/ab-pair.sh ROUNDS A B -- ARGS...
#   e.g. scripts/ab-pair.sh 3 /tmp/time_keys-old target/release/time_keys -- 27 1 5 avx2
set -euo pipefail
[ $# -ge 4 ] && [ "$4" = "--" ] || { sed -n 2,8p "$0"; exit 2; }
rounds=$1 a=$2 b=$3
shift 4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
seconds() { sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$1"; }
ratios=()
for ((i = 0; i < rounds; i++)); do
  for cores in "0 1" "1 0"; do
    read -r ca cb <<<"$cores"
    taskset -c "$ca" "$a" "$@" >"$out/a" &
    pa=$!
    taskset -c "$cb" "$b" "$@" >"$out/b" &
    pb=$!
    wait "$pa" "$pb"
    ta=$(seconds "$out/a") tb=$(seconds "$out/b")
    ratios+=("$(awk -v a="$ta" -v b="$tb" 'BEGIN {printf "%.3f", b / a}')")
    printf '%s/%s=%s ' "$tb" "$ta" "${ratios[-1]}"
  done
done
echo
printf '%s\n' "${ratios[@]}" | sort -n | awk '{x[NR] = $1} END {
  m = (NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2
  printf "pairs=%d b_over_a_median=%.3f min=%.3f max=%.3f\n", NR, m, x[1], x[NR]}'
