#!/usr/bin/env bash
# The repository's reference counter (scripts/reference/textbook.c) against another C counter,
# e.g. a published baseline counter: both built with `cc -O3 -march=native`,
# run alternately on the same board, each count checked against the other. Shows that ratios
# measured against the one carry over to the other.
#
# Usage: scripts/reference.sh OTHER.c N RUNS    (OUT is appended to, its header written when it
#        is new; default reference.csv in a new folder results/<machine>/<date>-textbook-reference/,
#        lib.sh's results_dir). Needs GNU time (/usr/bin/time).
# Columns: cpu_model, commit, n, other (the file's name), run, then wall seconds and user CPU
# seconds of each (the CPU time is the steadier on a busy machine) and the other's over the
# textbook's (above 1: the other is slower).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
other_src=${1:?OTHER.c}
n=${2:?N}
runs=${3:?RUNS}
textbook=$(reference_bin)
other=$(REFERENCE=$other_src reference_bin)
[ "$other" != "$textbook" ] || { echo "$other_src has the name of the reference: rename it" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time; Debian: apt-get install time)" >&2; exit 1; }
out=${OUT:-$(results_dir textbook-reference)/reference.csv}
[ -s "$out" ] || echo "cpu_model,commit,n,other,run,textbook_s,other_s,other_over_textbook,textbook_cpu_s,other_cpu_s,other_over_textbook_cpu" >"$out"
cpu=$(mktemp)
trap 'rm -f "$cpu"' EXIT
# One run of program $1 on board n: its output in $counted, its wall and user CPU seconds in
# $seconds and $user.
timed() {
  local t0 t1
  t0=$(now); counted=$(/usr/bin/time -f %U -o "$cpu" "$1" "$n"); t1=$(now)
  seconds=$(elapsed "$t0" "$t1")
  user=$(cat "$cpu")
}
for ((r = 0; r < runs; r++)); do
  # Which goes first alternates, so a machine that drifts favours neither.
  if ((r % 2 == 0)); then
    timed "$textbook"; a=$seconds ua=$user mine=$counted
    timed "$other"; b=$seconds ub=$user theirs=$counted
  else
    timed "$other"; b=$seconds ub=$user theirs=$counted
    timed "$textbook"; a=$seconds ua=$user mine=$counted
  fi
  [ "${mine#* }" = "${theirs#* }" ] || { echo "the counts differ: '$mine' against '$theirs'" >&2; exit 1; }
  q=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b / a}')
  uq=$(awk -v a="$ua" -v b="$ub" 'BEGIN {if (a > 0) printf "%.3f", b / a}')
  echo "\"$cpu_model\",$commit,$n,$(basename "$other_src"),$r,$a,$b,$q,$ua,$ub,$uq" >>"$out"
  printf 'n=%s run %d: textbook.c %.3f s (CPU %s s), %s %.3f s (CPU %s s), ratio %s (CPU %s)\n' \
    "$n" "$r" "$a" "$ua" "$(basename "$other_src")" "$b" "$ub" "$q" "$uq" >&2
done
