#!/usr/bin/env bash
# Speed of listing against counting, as issue 4 measures it:
#   nqueens solve N --format columns > /dev/null   vs   nqueens count N --symmetry mirror --method search
# both with the same threads, run alternately, median of REPS (the search, as listing walks the
# same tree; METHOD=join compares with the join instead).
#
# Usage: scripts/solve-speed.sh [N] [OUT_DIR]       (defaults 16 and a new folder
#        results/<machine>/<date>-solve-speed/, lib.sh's results_dir; REPS [3], THREADS [2],
#        METHOD [search])
# Writes OUT_DIR/solve.csv.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-16}
out=${2:-$(results_dir solve-speed)}
reps=${REPS:-3}
threads=${THREADS:-2}
method=${METHOD:-search}
mkdir -p "$out"
solve=() count=()
for ((r = 0; r < reps; r++)); do
  t0=$(now); "$bin" solve "$n" --format columns -j "$threads" >/dev/null; t1=$(now)
  "$bin" count "$n" --symmetry mirror --method "$method" -j "$threads" >/dev/null; t2=$(now)
  solve+=("$(elapsed "$t0" "$t1")")
  count+=("$(elapsed "$t1" "$t2")")
done
s=$(median <<<"${solve[*]}")
c=$(median <<<"${count[*]}")
solutions=$("$bin" count "$n" --format json | json_fields solutions)
echo "cpu_model,logical_cpus,commit,n,threads,repetitions,count_method,solve_columns_median_s,count_mirror_median_s,solve_over_count,solutions,solutions_per_s" >"$out/solve.csv"
awk -v cpu="$cpu_model" -v cpus="$cpus" -v commit="$commit" -v n="$n" -v t="$threads" -v r="$reps" -v m="$method" -v s="$s" -v c="$c" -v sol="$solutions" \
  'BEGIN {printf "\"%s\",%s,%s,%s,%s,%s,%s,%.3f,%.3f,%.2f,%s,%.0f\n", cpu, cpus, commit, n, t, r, m, s, c, s / c, sol, sol / s}' >>"$out/solve.csv"
cat "$out/solve.csv"
