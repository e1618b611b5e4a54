#!/usr/bin/env bash
# Thread-scaling sweep of nqueens, its ratio to the reference counter, and plots.
#
# Usage: scripts/scaling.sh [MAX_N] [OUT_DIR]    (defaults: 17 and a new folder
#        results/<machine>/<date>-scaling/, lib.sh's results_dir)
#
# Writes OUT_DIR/scaling.csv: one row per (n, method, symmetry, split depth, threads) with the
# median, min and max of REPS runs, the speedup over 1 thread and the efficiency; the search is
# swept over split depths, the join (whose parts are its keys) once, its split_depth empty;
# method and kernel are what nqueens reports it ran. OUT_DIR/baseline.csv: the ratio to the
# reference counter, scripts/reference/textbook.c (run side by side, median of REPS), for
# n = 14..=MAX_N; and OUT_DIR/scaling.svg from scaling.csv.
#
# Environment (defaults in brackets): REPS [3], MIN_N [12], SWEEP_MAX_N [MAX_N] (the last n of
# the thread sweep; baseline.csv still goes to MAX_N), MODES ["none mirror full"],
# METHODS ["search join"], DEPTHS ["1 2 3"] (the search's), KERNEL [auto],
# THREADS [1 2 4 ... and the logical CPUs], BASE_MODES [MODES], BASE_METHODS ["auto"] and
# BASE_MIN_N [14] for baseline.csv (BASE_MODES="" skips it), REFERENCE [textbook.c],
# NQUEENS_BIN [the release build, built now], PLOT_BIN [scripts/plot, built now], NO_PLOT
# [unset; 1 skips the SVG]. `scripts/scaling.sh 12 OUT_DIR` is the quick check of the script.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

max_n=${1:-17}
out=${2:-$(results_dir scaling)}
reps=${REPS:-3}
min_n=${MIN_N:-12}
sweep_max_n=${SWEEP_MAX_N:-$max_n}
modes=${MODES:-none mirror full}
methods=${METHODS:-search join}
depths=${DEPTHS:-1 2 3}
kernel=${KERNEL:-auto}
base_modes=${BASE_MODES-$modes}
base_methods=${BASE_METHODS:-auto}
base_min_n=${BASE_MIN_N:-14}
# The largest board the join handles (MAX_CUT_N in src/types.rs, join::MAX_CUT_N).
join_max_n=28

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

# One count: `nqueens count N` with the flags given, as JSON; prints "elapsed_s,solutions,method,kernel".
run_count() {
  "$bin" count "$@" --kernel "$kernel" --format json | json_fields elapsed_s solutions method kernel
}

csv=$out/scaling.csv
echo "cpu_model,logical_cpus,commit,n,method,kernel,symmetry,split_depth,threads,repetitions,median_s,min_s,max_s,speedup,efficiency,solutions" >"$csv"
for ((n = min_n; n <= sweep_max_n; n++)); do
  for mode in $modes; do
    for method in $methods; do
      case $method in
        search) cells=$depths ;;
        join) ((n <= join_max_n)) || continue; cells=- ;;
        *) echo "METHODS: '$method' is not search or join" >&2; exit 2 ;;
      esac
      for depth in $cells; do
        [ "$depth" != - ] && ((depth > n)) && continue
        flags=(--method "$method" --symmetry "$mode")
        [ "$depth" != - ] && flags+=(--split-depth "$depth")
        # Thread counts alternate within each repetition, so a machine that slows down or
        # speeds up over minutes shifts them all alike and the speedups stay fair.
        declare -A times=()
        for ((r = 0; r < reps; r++)); do
          for t in "${threads[@]}"; do
            IFS=, read -r e solutions ran loop < <(run_count "$n" -j "$t" "${flags[@]}")
            [ "$ran" = "$method" ] || { echo "n=$n: asked for $method, $ran ran" >&2; exit 1; }
            times[$t]+="$e "
          done
        done
        one=""
        for t in "${threads[@]}"; do
          IFS=, read -r median lo hi <<<"$(stats <<<"${times[$t]}")"
          [ -z "$one" ] && one=$median
          speedup=$(awk -v a="$one" -v b="$median" 'BEGIN {printf "%.3f", (b > 0) ? a / b : 0}')
          efficiency=$(awk -v s="$speedup" -v t="$t" 'BEGIN {printf "%.3f", s / t}')
          echo "\"$cpu_model\",$cpus,$commit,$n,$method,$loop,$mode,${depth#-},$t,$reps,$median,$lo,$hi,$speedup,$efficiency,$solutions" >>"$csv"
          printf 'n=%-2d %-6s %-6s %-6s depth %s  %2d threads  median %10.6f s  speedup %6.3f  efficiency %5.3f\n' \
            "$n" "$method" "$loop" "$mode" "$depth" "$t" "$median" "$speedup" "$efficiency" >&2
        done
        unset times
      done
    done
  done
done
if [ "${NO_PLOT:-}" = 1 ]; then
  echo "wrote $csv (NO_PLOT=1: no SVG)" >&2
else
  "$PLOT_BIN" "$csv" "$out/scaling.svg"
  echo "wrote $csv and $out/scaling.svg" >&2
fi

# Ratio to the reference counter: reference and nqueens run side by side, as ratio.sh does.
if [ -n "$base_modes" ] && ((max_n >= base_min_n)); then
  ref=$(reference_bin)
  t_all=${threads[${#threads[@]} - 1]}
  bcsv=$out/baseline.csv
  echo "cpu_model,logical_cpus,commit,n,method,kernel,symmetry,threads,repetitions,reference_median_s,nqueens_median_s,ratio_median,subproblems,solutions" >"$bcsv"
  for ((n = base_min_n; n <= max_n; n++)); do
    declare -A ratios=() engine=() counted=()
    base=()
    for ((r = 0; r < reps; r++)); do
      t0=$(now); "$ref" "$n" >/dev/null; t1=$(now)
      b=$(elapsed "$t0" "$t1")
      base+=("$b")
      for method in $base_methods; do
        for mode in $base_modes; do
          t1=$(now)
          line=$("$bin" count "$n" -j "$t_all" --method "$method" --kernel "$kernel" --symmetry "$mode" --format json)
          t2=$(now)
          e=$(elapsed "$t1" "$t2")
          ratios[$method.$mode]+="$(awk -v b="$b" -v e="$e" 'BEGIN {print b / e}') "
          engine[$method.$mode]+="$e "
          counted[$method.$mode]=$(json_fields method kernel symmetry <<<"$line"),$t_all,$reps
          counted[$method.$mode.end]=$(json_fields subproblems solutions <<<"$line")
        done
      done
    done
    b_med=$(median <<<"${base[*]}")
    for method in $base_methods; do
      for mode in $base_modes; do
        e_med=$(median <<<"${engine[$method.$mode]}")
        r_med=$(median <<<"${ratios[$method.$mode]}")
        echo "\"$cpu_model\",$cpus,$commit,$n,${counted[$method.$mode]},$b_med,$e_med,$r_med,${counted[$method.$mode.end]}" >>"$bcsv"
        printf 'n=%-2d %-6s %-6s %2d threads: reference %9.3f s  nqueens %9.3f s  ratio %6.2f\n' \
          "$n" "${counted[$method.$mode]%%,*}" "$mode" "$t_all" "$b_med" "$e_med" "$r_med" >&2
      done
    done
    unset ratios engine counted
  done
  echo "wrote $bcsv" >&2
fi
