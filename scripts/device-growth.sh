#!/usr/bin/env bash
# One lease of a lent machine (16 cores), in one call: issue 28's growth pair, `estimate 27`
# then `estimate 22` (thread-hours) on every CPU with the same build, and a thread sweep of
# `count 19`. Each line goes to $OUT as it is measured, so a run cut off at its deadline
# still brings back what it finished.
#
# Usage: OUT=DIR [DEADLINE_S=540] [KERNEL=avx2] [S27=200] [S22=50] scripts/device-growth.sh NQUEENS_BIN
#   NQUEENS_BIN: a release build (runtime dispatch, no -C target-cpu: it runs on any x86-64)
#   Each thread's share of --memory is 1 GiB, as 2 GiB for 2 threads gives on the laptops.
# Needs bash 5 (EPOCHREALTIME); nothing else beyond coreutils.
set -uo pipefail
bin=${1:?NQUEENS_BIN}
out=${OUT:?OUT=DIR}
mkdir -p "$out"
deadline=${DEADLINE_S:-540} kernel=${KERNEL:-avx2}
. "$(dirname "$0")/deadline.sh"
cpus=$(nproc)
lscpu >"$out/lscpu.txt" 2>&1
echo "cpu: $(sed -n 's/^Model name: *//p' "$out/lscpu.txt" | head -1), $cpus CPUs"

# The growth pair, 27 first and 22 right after (the same minutes of the machine), then 22
# once more: how much it moves within the lease.
estimate() { # n seconds label
  local s=$(( $2 < $(left) - 60 ? $2 : $(left) - 60 ))
  [ "$s" -ge 5 ] || { echo "skipped (deadline): estimate $1"; return 1; }
  timeout "$(left)" "$bin" estimate "$1" --seconds "$s" --seed 24301 -j "$cpus" --kernel "$kernel" \
    --memory "${cpus}G" --format json >"$out/estimate-$1-$3.json" 2>"$out/estimate-$1-$3.err"
  echo "estimate $1 ($3, rc $?, $(left) s left): $(cat "$out/estimate-$1-$3.json")"
}
estimate 27 "${S27:-200}" a
estimate 22 "${S22:-50}" a

# Threads: count 19 on 1 to all CPUs (the join, auto kernel), wall seconds.
echo "threads,seconds,solutions" >"$out/threads-19.csv"
for j in 1 2 4 8 16; do
  [ "$j" -le "$cpus" ] && [ "$(left)" -gt 40 ] || break
  s=$EPOCHREALTIME
  sol=$("$bin" count 19 -j "$j" --method join --format json | grep -o '"solutions":[0-9]*' | cut -d: -f2)
  e=$EPOCHREALTIME
  echo "$j,$(awk -v a="$s" -v b="$e" 'BEGIN {printf "%.3f", b - a}'),$sol" | tee -a "$out/threads-19.csv"
done
estimate 22 "${S22:-50}" b
echo "done, $(left) s before the deadline"
