#!/usr/bin/env bash
# Two builds of one command side by side: RUNS alternated runs of A and B with the same
# arguments, the least user CPU time of each and B's over A's. User time, not wall time, and
# the least of the runs: on a machine shared with other work, the fairer measure of the code.
#
# Usage: scripts/ab-time.sh RUNS A B -- ARGS...
#   e.g. scripts/ab-time.sh 3 /tmp/time_keys-old target/release/time_keys -- 22 60 7 avx2
set -euo pipefail
[ $# -ge 4 ] && [ "$4" = "--" ] || { sed -n 2,7p "$0"; exit 2; }
runs=$1 a=$2 b=$3
shift 4
times=$(mktemp)
trap 'rm -f "$times"' EXIT
user() { /usr/bin/time -f '%U' -o "$times" "$@" >/dev/null 2>&1; cat "$times"; }
least_a= least_b=
for ((i = 0; i < runs; i++)); do
  ta=$(user "$a" "$@") tb=$(user "$b" "$@")
  least_a=$(awk -v x="$ta" -v m="${least_a:-$ta}" 'BEGIN {print (x < m) ? x : m}')
  least_b=$(awk -v x="$tb" -v m="${least_b:-$tb}" 'BEGIN {print (x < m) ? x : m}')
done
awk -v a="$least_a" -v b="$least_b" 'BEGIN {printf "a_min_user_s=%s b_min_user_s=%s b_over_a=%s\n", a, b, (a > 0) ? sprintf("%.3f", b / a) : "-"}'
