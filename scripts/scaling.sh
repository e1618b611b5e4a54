#!/usr/bin/env bash
# Thread-scaling sweep of nqueens, its ratio to the reference counter, and plots.
#
# Usage: scripts/scaling.sh [MAX_N] [OUT_DIR]        (defaults: 17 and results/)
#
# Writes OUT_DIR/scaling.csv: one row per (n, symmetry, split depth, threads) with the median,
# min and max of REPS runs, the speedup over 1 thread and the efficiency; OUT_DIR/baseline.csv:
# the ratio to ../shared/reference/baseline.c (run side by side, median of REPS) for
# n = 14..=MAX_N; and OUT_DIR/scaling.svg from those numbers.
#
# Environment (defaults in brackets): REPS [3], MIN_N [12], SWEEP_MAX_N [MAX_N] (the last n of
# the thread sweep; baseline.csv still goes to MAX_N), MODES ["none mirror full"],
# DEPTHS ["1 2 3"], THREADS [1 2 4 ... and the logical CPUs], BASE_MODES [MODES] and
# BASE_MIN_N [14] for baseline.csv (BASE_MODES="" skips it), BASELINE [beside the checkout].
# `scripts/scaling.sh 12 /tmp/x` is the quick check of the script itself.
set -euo pipefail

max_n=${1:-17}
out=${2:-results}
root=$(cd "$(dirname "$0")/.." && pwd)
reps=${REPS:-3}
min_n=${MIN_N:-12}
sweep_max_n=${SWEEP_MAX_N:-$max_n}
modes=${MODES:-none mirror full}
depths=${DEPTHS:-1 2 3}
base_modes=${BASE_MODES-$modes}
base_min_n=${BASE_MIN_N:-14}
baseline_c=${BASELINE:-$root/../shared/reference/baseline.c}

cargo build --release --quiet --manifest-path "$root/Cargo.toml"
cargo build --release --quiet --manifest-path "$root/scripts/plot/Cargo.toml"
bin=$root/target/release/nqueens
plot=$root/scripts/plot/target/release/nqueens-plot
mkdir -p "$out"

cpus=$(nproc)
if [ -n "${THREADS:-}" ]; then
  read -r -a threads <<<"$THREADS"
else
  threads=(1)
  for ((t = 2; t < cpus; t *= 2)); do threads+=("$t"); done
  ((cpus > 1)) && threads+=("$cpus")
fi
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
cpu_model=${cpu_model:-$(uname -m)}
commit=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)

# median, min and max of the numbers on stdin
stats() { sort -g | awk '{a[NR] = $1} END {m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.6f,%.6f,%.6f", m, a[1], a[NR]}'; }
# a field of nqueens' JSON line
field() { sed -n "s/.*\"$1\":\\([^,}]*\\).*/\\1/p"; }

csv=$out/scaling.csv
echo "cpu_model,logical_cpus,commit,n,symmetry,split_depth,threads,repetitions,median_s,min_s,max_s,speedup,efficiency,solutions" >"$csv"
for ((n = min_n; n <= sweep_max_n; n++)); do
  for mode in $modes; do
    for depth in $depths; do
      ((depth > n)) && continue
      # Thread counts alternate within each repetition, so a machine that slows down or
      # speeds up over minutes shifts them all alike and the speedups stay fair.
      declare -A times=()
      for ((r = 0; r < reps; r++)); do
        for t in "${threads[@]}"; do
          line=$("$bin" count "$n" -j "$t" --split-depth "$depth" --symmetry "$mode" --format json)
          times[$t]+="$(field elapsed_s <<<"$line") "
          solutions=$(field solutions <<<"$line")
        done
      done
      one=""
      for t in "${threads[@]}"; do
        IFS=, read -r median lo hi <<<"$(tr ' ' '\n' <<<"${times[$t]}" | grep . | stats)"
        [ -z "$one" ] && one=$median
        speedup=$(awk -v a="$one" -v b="$median" 'BEGIN {printf "%.3f", (b > 0) ? a / b : 0}')
        efficiency=$(awk -v s="$speedup" -v t="$t" 'BEGIN {printf "%.3f", s / t}')
        echo "\"$cpu_model\",$cpus,$commit,$n,$mode,$depth,$t,$reps,$median,$lo,$hi,$speedup,$efficiency,$solutions" >>"$csv"
        printf 'n=%-2d %-6s depth %d  %2d threads  median %10.6f s  speedup %6.3f  efficiency %5.3f\n' \
          "$n" "$mode" "$depth" "$t" "$median" "$speedup" "$efficiency" >&2
      done
      unset times
    done
  done
done
"$plot" "$csv" "$out/scaling.svg"
echo "wrote $csv and $out/scaling.svg" >&2

# Ratio to the reference counter: baseline and engine run side by side, as ratio.sh does.
if [ -n "$base_modes" ] && ((max_n >= base_min_n)); then
  if [ ! -f "$baseline_c" ]; then
    echo "no $baseline_c: skipping baseline.csv" >&2
    exit 0
  fi
  ref=${TMPDIR:-/tmp}/nq-baseline
  [ "$ref" -nt "$baseline_c" ] || cc -O3 -march=native -o "$ref" "$baseline_c"
  now() { date +%s.%N; }
  t_all=${threads[${#threads[@]} - 1]}
  bcsv=$out/baseline.csv
  echo "cpu_model,logical_cpus,commit,n,symmetry,threads,repetitions,baseline_median_s,engine_median_s,ratio_median,subproblems,solutions" >"$bcsv"
  for ((n = base_min_n; n <= max_n; n++)); do
    declare -A ratios=() engine=()
    base=()
    for ((r = 0; r < reps; r++)); do
      t0=$(now); "$ref" "$n" >/dev/null; t1=$(now)
      b=$(awk -v a="$t0" -v z="$t1" 'BEGIN {print z - a}')
      base+=("$b")
      for mode in $base_modes; do
        t1=$(now); line=$("$bin" count "$n" -j "$t_all" --symmetry "$mode" --format json); t2=$(now)
        e=$(awk -v a="$t1" -v z="$t2" 'BEGIN {print z - a}')
        ratios[$mode]+="$(awk -v b="$b" -v e="$e" 'BEGIN {print b / e}') "
        engine[$mode]+="$e "
        eval "sub_$mode=$(field subproblems <<<"$line"); sol_$mode=$(field solutions <<<"$line")"
      done
    done
    b_med=$(printf '%s\n' "${base[@]}" | stats | cut -d, -f1)
    for mode in $base_modes; do
      e_med=$(tr ' ' '\n' <<<"${engine[$mode]}" | grep . | stats | cut -d, -f1)
      r_med=$(tr ' ' '\n' <<<"${ratios[$mode]}" | grep . | stats | cut -d, -f1)
      sub=sub_$mode; sol=sol_$mode
      echo "\"$cpu_model\",$cpus,$commit,$n,$mode,$t_all,$reps,$b_med,$e_med,$r_med,${!sub},${!sol}" >>"$bcsv"
      printf 'n=%-2d %-6s %2d threads: baseline %9.3f s  engine %9.3f s  ratio %6.2f\n' "$n" "$mode" "$t_all" "$b_med" "$e_med" "$r_med" >&2
    done
  done
  echo "wrote $bcsv" >&2
fi
