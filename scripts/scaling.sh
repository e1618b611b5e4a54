#!/usr/bin/env bash
# Thread-scaling sweep of nqueens, its ratio to the reference counter, and plots.
#
# Usage: scripts/scaling.sh [MAX_N] [OUT_DIR]        (defaults: 17 and results/)
#
# Writes OUT_DIR/scaling.csv: one row per (n, symmetry, split depth, threads) with the median,
# min and max of REPS runs, the speedup over 1 thread and the efficiency; OUT_DIR/baseline.csv:
# the ratio to the reference counter, scripts/reference/textbook.c (run side by side, median of REPS), for
# n = 14..=MAX_N; and OUT_DIR/scaling.svg from those numbers.
#
# Environment (defaults in brackets): REPS [3], MIN_N [12], SWEEP_MAX_N [MAX_N] (the last n of
# the thread sweep; baseline.csv still goes to MAX_N), MODES ["none mirror full"],
# DEPTHS ["1 2 3"], THREADS [1 2 4 ... and the logical CPUs], BASE_MODES [MODES] and
# BASE_MIN_N [14] for baseline.csv (BASE_MODES="" skips it), REFERENCE [textbook.c],
# NQUEENS_BIN [the release build, built now], PLOT_BIN [scripts/plot, built now], NO_PLOT
# [unset; 1 skips the SVG]. `scripts/scaling.sh 12 /tmp/x` is the quick check of the script.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

max_n=${1:-17}
out=${2:-results}
reps=${REPS:-3}
min_n=${MIN_N:-12}
sweep_max_n=${SWEEP_MAX_N:-$max_n}
modes=${MODES:-none mirror full}
depths=${DEPTHS:-1 2 3}
base_modes=${BASE_MODES-$modes}
base_min_n=${BASE_MIN_N:-14}

if [ "${NO_PLOT:-}" != 1 ] && [ -z "${PLOT_BIN:-}" ]; then
  cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p nqueens-plot
  PLOT_BIN=$(target_dir)/release/nqueens-plot
fi
mkdir -p "$out"

if [ -n "${THREADS:-}" ]; then
  read -r -a threads <<<"$THREADS"
else
  threads=(1)
  for ((t = 2; t < cpus; t *= 2)); do threads+=("$t"); done
  ((cpus > 1)) && threads+=("$cpus")
fi
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
          IFS=, read -r e solutions < <("$bin" count "$n" -j "$t" --split-depth "$depth" --symmetry "$mode" --format json | json_fields elapsed_s solutions)
          times[$t]+="$e "
        done
      done
      one=""
      for t in "${threads[@]}"; do
        IFS=, read -r median lo hi <<<"$(stats <<<"${times[$t]}")"
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
if [ "${NO_PLOT:-}" = 1 ]; then
  echo "wrote $csv (NO_PLOT=1: no SVG)" >&2
else
  "$PLOT_BIN" "$csv" "$out/scaling.svg"
  echo "wrote $csv and $out/scaling.svg" >&2
fi

# Ratio to the reference counter: baseline and engine run side by side, as ratio.sh does.
if [ -n "$base_modes" ] && ((max_n >= base_min_n)); then
  ref=$(reference_bin)
  t_all=${threads[${#threads[@]} - 1]}
  bcsv=$out/baseline.csv
  echo "cpu_model,logical_cpus,commit,n,symmetry,threads,repetitions,baseline_median_s,engine_median_s,ratio_median,subproblems,solutions" >"$bcsv"
  for ((n = base_min_n; n <= max_n; n++)); do
    declare -A ratios=() engine=() counted=()
    base=()
    for ((r = 0; r < reps; r++)); do
      t0=$(now); "$ref" "$n" >/dev/null; t1=$(now)
      b=$(elapsed "$t0" "$t1")
      base+=("$b")
      for mode in $base_modes; do
        t1=$(now); line=$("$bin" count "$n" -j "$t_all" --symmetry "$mode" --format json); t2=$(now)
        e=$(elapsed "$t1" "$t2")
        ratios[$mode]+="$(awk -v b="$b" -v e="$e" 'BEGIN {print b / e}') "
        engine[$mode]+="$e "
        counted[$mode]=$(json_fields subproblems solutions <<<"$line")
      done
    done
    b_med=$(median <<<"${base[*]}")
    for mode in $base_modes; do
      e_med=$(median <<<"${engine[$mode]}")
      r_med=$(median <<<"${ratios[$mode]}")
      echo "\"$cpu_model\",$cpus,$commit,$n,$mode,$t_all,$reps,$b_med,$e_med,$r_med,${counted[$mode]}" >>"$bcsv"
      printf 'n=%-2d %-6s %2d threads: baseline %9.3f s  engine %9.3f s  ratio %6.2f\n' "$n" "$mode" "$t_all" "$b_med" "$e_med" "$r_med" >&2
    done
  done
  echo "wrote $bcsv" >&2
fi
