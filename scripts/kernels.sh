#!/usr/bin/env bash
# The counting loops side by side: scalar, AVX2 and AVX-512 (those the CPU has), full
# symmetry, one thread and all threads, median of REPS alternating runs, with the method
# METHOD (the join's matcher follows the loop too).
#
# Usage: scripts/kernels.sh [MIN_N] [MAX_N] [OUT_DIR]     (defaults 14, 17 and a new folder
#        results/<machine>/<date>-kernels/, lib.sh's results_dir; REPS [3], METHOD [search])
# Writes OUT_DIR/kernels.csv; its method column is what nqueens reports it ran.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
min_n=${1:-14}
max_n=${2:-17}
out=${3:-$(results_dir kernels)}
reps=${REPS:-3}
method=${METHOD:-search}
mkdir -p "$out"
mapfile -t kernels < <(usable_kernels scalar avx2 avx512 2>/dev/null)
echo "cpu_model,logical_cpus,commit,n,method,symmetry,kernel,threads,repetitions,median_s,speedup_over_scalar" >"$out/kernels.csv"
for ((n = min_n; n <= max_n; n++)); do
  for t in 1 "$cpus"; do
    declare -A times=()
    for ((r = 0; r < reps; r++)); do
      for k in "${kernels[@]}"; do
        IFS=, read -r e ran < <("$bin" count "$n" -j "$t" --method "$method" --kernel "$k" --format json | json_fields elapsed_s method)
        times[$k]+="$e "
      done
    done
    scalar=$(median <<<"${times[scalar]}")
    for k in "${kernels[@]}"; do
      m=$(median <<<"${times[$k]}")
      awk -v cpu="$cpu_model" -v cpus="$cpus" -v commit="$commit" -v n="$n" -v ran="$ran" -v k="$k" -v t="$t" -v r="$reps" -v m="$m" -v s="$scalar" \
        'BEGIN {printf "\"%s\",%s,%s,%s,%s,full,%s,%s,%s,%.6f,%.2f\n", cpu, cpus, commit, n, ran, k, t, r, m, s / m}' >>"$out/kernels.csv"
    done
    unset times
  done
done
cat "$out/kernels.csv"
