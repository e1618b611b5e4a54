#!/usr/bin/env bash
# The GPU timed on a lent machine, within DEADLINE_S (default 230 s, under 4 minutes):
# a smoke test (adapter found, n = 12 exact), totals of n = 16..21 against the published
# table, then random keys of n = 24..27 on the GPU alone against all CPU threads, equal key
# by key and timed, then short estimates. Every row is appended to $OUT/gpu.csv as it is
# measured. Needs the release binary built with `--features gpu` (NQUEENS, default
# target/release/nqueens) and the gpu_work instrument.
set -uo pipefail
cd "$(dirname "$0")/.."
DEADLINE_S=${DEADLINE_S:-230}
OUT=${OUT:-out}
NQUEENS=${NQUEENS:-target/release/nqueens}
mkdir -p "$OUT"
csv="$OUT/gpu.csv"
start=$(date +%s)
left() { echo $(( DEADLINE_S - ($(date +%s) - start) )); }
row() { echo "$1" | tee -a "$csv"; }
[ -f "$csv" ] || row "step,n,what,value,seconds"
# Smoke test: the adapter and n = 12.
t0=$(date +%s.%N)
got=$(timeout "$(left)" "$NQUEENS" count 12 --gpu-only --format csv 2>"$OUT/smoke.err" | tail -n 1)
t1=$(date +%s.%N)
row "smoke,12,count,$(echo "$got" | cut -d, -f2),$(echo "$t1 - $t0" | bc)"
[ "$(echo "$got" | cut -d, -f2)" = 14200 ] || { echo "smoke test failed" >&2; exit 1; }
# Totals against the published table (verify prints the check).
for n in 16 17 18 19 20 21; do
  [ "$(left)" -gt 20 ] || break
  t0=$(date +%s.%N)
  got=$(timeout "$(left)" "$NQUEENS" count "$n" --gpu-only --format csv 2>/dev/null | tail -n 1 | cut -d, -f2)
  t1=$(date +%s.%N)
  row "total,$n,solutions,$got,$(echo "$t1 - $t0" | bc)"
done
# Keys: the GPU alone against the CPU join, key by key (gpu_work checks that they agree).
for n in 24 25 26 27; do
  [ "$(left)" -gt 30 ] || break
  timeout "$(left)" target/release/gpu_work "$n" 16 2>/dev/null \
    | while read -r line; do row "keys,$n,work,\"$line\","; done
done
for n in 22 27; do
  [ "$(left)" -gt 20 ] || break
  secs=$(( $(left) / 3 ))
  got=$(timeout "$(left)" "$NQUEENS" estimate "$n" --gpu-only --seconds "$secs" --format csv 2>/dev/null | tail -n 1)
  row "estimate,$n,line,\"$got\","
done
