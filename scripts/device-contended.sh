#!/usr/bin/env bash
# Builds of the matching side by side on every core at once: one n = 27 key (`time_keys N 1
# SEED avx2`) run as many copies as the machine has CPUs, one build at a time, so that each
# copy pulls on memory as a thread of `count -j <all>` does, then one copy of it alone, if
# the deadline allows (each build's pair together, so that a deadline cuts whole pairs).
# Tells whether a build's gain on one thread holds when every core shares the memory. One
# line per copy goes to $OUT/contended.txt: NAME,COPIES,ROUND,COPY,<time_keys line>.
#
# Usage: OUT=DIR [DEADLINE_S=290] [N=27] [SEED=5] scripts/device-contended.sh NAME=TIME_KEYS_BIN...
#   each TIME_KEYS_BIN a release build of time_keys (scripts/instruments, `--features
#   instruments`, no -C target-cpu).
set -uo pipefail
out=${OUT:?OUT=DIR}
mkdir -p "$out"
deadline=${DEADLINE_S:-290} n=${N:-27} seed=${SEED:-5} cpus=$(nproc)
. "$(dirname "$0")/deadline.sh"
lscpu | sed -n 's/^Model name: *//p' | head -1 >"$out/cpu.txt"
run() { # name=bin copies round
  local name=${1%%=*} bin=${1#*=} s=$EPOCHREALTIME i
  [ "$(left)" -gt 50 ] || { echo "skipped (deadline): $name x$2"; return; }
  for i in $(seq "$2"); do
    ("$bin" "$n" 1 "$seed" avx2 | sed "s/^/$name,$2,$3,$i,/" >>"$out/contended.txt") &
  done
  wait
  echo "$name x$2 round $3: $(awk -v a="$s" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}') s, $(left) s left"
}
for b in "$@"; do
  run "$b" "$cpus" 1
  run "$b" 1 1
done
