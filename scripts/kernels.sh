#!/usr/bin/env bash
# The counting loops side by side: scalar, AVX2 and AVX-512 (those the CPU has), full
# symmetry, one thread and all threads, median of REPS alternating runs.
#
# Usage: scripts/kernels.sh [MIN_N] [MAX_N] [OUT_DIR]     (defaults 14, 17, results/; REPS [3])
# Writes OUT_DIR/kernels.csv.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
min_n=${1:-14}
max_n=${2:-17}
out=${3:-results}
reps=${REPS:-3}
mkdir -p "$out"
kernels=(scalar)
grep -qw avx2 /proc/cpuinfo && kernels+=(avx2)
grep -qw avx512f /proc/cpuinfo && kernels+=(avx512)
echo "cpu_model,logical_cpus,commit,n,symmetry,kernel,threads,repetitions,median_s,speedup_over_scalar" >"$out/kernels.csv"
for ((n = min_n; n <= max_n; n++)); do
  for t in 1 "$cpus"; do
    declare -A times=()
    for ((r = 0; r < reps; r++)); do
      for k in "${kernels[@]}"; do
        times[$k]+="$("$bin" count "$n" -j "$t" --kernel "$k" --format json | json_fields elapsed_s) "
      done
    done
    scalar=$(median <<<"${times[scalar]}")
    for k in "${kernels[@]}"; do
      m=$(median <<<"${times[$k]}")
      awk -v cpu="$cpu_model" -v cpus="$cpus" -v commit="$commit" -v n="$n" -v k="$k" -v t="$t" -v r="$reps" -v m="$m" -v s="$scalar" \
        'BEGIN {printf "\"%s\",%s,%s,%s,full,%s,%s,%s,%.6f,%.2f\n", cpu, cpus, commit, n, k, t, r, m, s / m}' >>"$out/kernels.csv"
    done
    unset times
  done
done
cat "$out/kernels.csv"
