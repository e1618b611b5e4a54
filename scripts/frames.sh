#!/usr/bin/env bash
# The lanes' stack frames against each other (what SLACK in src/search/simd.rs rests on; the
# run that set it: results/xeon/2026-11-22-lane-frames/): each frame forced with
# NQUEENS_LANE_FRAME, the search (the frames are its lanes'), full symmetry, all threads,
# median of REPS runs taken in turn. Needs a CPU with AVX-512.
#
# Usage: scripts/frames.sh [MIN_N] [MAX_N] [OUT_DIR]    (defaults 16, 18 and a new folder
#        results/<machine>/<date>-lane-frames/, lib.sh's results_dir; REPS [3])
# Writes OUT_DIR/frames.csv.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
min_n=${1:-16}
max_n=${2:-18}
grep -qw avx512f /proc/cpuinfo || { echo "this CPU lacks AVX-512: no lane frames to compare" >&2; exit 1; }
out=${3:-$(results_dir lane-frames)}
reps=${REPS:-3}
frames=(open open-rd open-rd-ld)
mkdir -p "$out"
echo "cpu_model,logical_cpus,commit,n,method,frame,threads,repetitions,median_s,min_s,max_s" >"$out/frames.csv"
for ((n = min_n; n <= max_n; n++)); do
  declare -A times=()
  for ((r = 0; r < reps; r++)); do
    for f in "${frames[@]}"; do
      times[$f]+="$(NQUEENS_LANE_FRAME=$f "$bin" count "$n" -j "$cpus" --method search --kernel avx512 --format json | json_fields elapsed_s) "
    done
  done
  for f in "${frames[@]}"; do
    echo "\"$cpu_model\",$cpus,$commit,$n,search,$f,$cpus,$reps,$(stats <<<"${times[$f]}")" >>"$out/frames.csv"
  done
  unset times
done
cat "$out/frames.csv"
