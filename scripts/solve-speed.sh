#!/usr/bin/env bash
# Speed of listing against counting, as issue 4 measures it:
#   nqueens solve N --format columns > /dev/null   vs   nqueens count N --symmetry mirror
# both with the same threads, run alternately, median of REPS.
#
# Usage: scripts/solve-speed.sh [N] [OUT_DIR]       (defaults 16 and results/; REPS [3], THREADS [2])
# Writes OUT_DIR/solve.csv.
set -euo pipefail
n=${1:-16}
out=${2:-results}
reps=${REPS:-3}
threads=${THREADS:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
bin=$root/target/release/nqueens
mkdir -p "$out"
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
solve=() count=()
for ((r = 0; r < reps; r++)); do
  t0=$(now); "$bin" solve "$n" --format columns -j "$threads" >/dev/null; t1=$(now)
  "$bin" count "$n" --symmetry mirror -j "$threads" >/dev/null; t2=$(now)
  solve+=("$(awk -v a="$t0" -v z="$t1" 'BEGIN {print z - a}')")
  count+=("$(awk -v a="$t1" -v z="$t2" 'BEGIN {print z - a}')")
done
s=$(printf '%s\n' "${solve[@]}" | median)
c=$(printf '%s\n' "${count[@]}" | median)
solutions=$("$bin" count "$n" --format csv | awk -F, 'NR == 2 {print $2}')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
commit=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)
echo "cpu_model,logical_cpus,commit,n,threads,repetitions,solve_columns_median_s,count_mirror_median_s,solve_over_count,solutions,solutions_per_s" >"$out/solve.csv"
awk -v cpu="$cpu" -v cpus="$(nproc)" -v commit="$commit" -v n="$n" -v t="$threads" -v r="$reps" -v s="$s" -v c="$c" -v sol="$solutions" \
  'BEGIN {printf "\"%s\",%s,%s,%s,%s,%s,%.3f,%.3f,%.2f,%s,%.0f\n", cpu, cpus, commit, n, t, r, s, c, s / c, sol, sol / s}' >>"$out/solve.csv"
cat "$out/solve.csv"
