#!/usr/bin/env bash
# Pairs of half-boards the join tests per solution, n = MIN..MAX, against testing every pair
# of each key's half-boards (the join before it split on diagonals): the pairs instrument,
# counting each board in --symmetry none so that the solutions are the board's.
#
# Usage: scripts/pairs.sh MIN MAX [OUT_CSV]   (default pairs.csv in a new folder
#        results/<machine>/<date>-join-pairs/, lib.sh's results_dir)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
min=${1:?MIN}
max=${2:?MAX}
out=${3:-$(results_dir join-pairs)/pairs.csv}
cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p nqueens-instruments --bin pairs --features instruments
"$(target_dir)/release/pairs" "$min" "$max" |
  awk -v cpu="\"$cpu_model\"" -v commit="$commit" -F, 'NR == 1 {print "cpu_model,commit," $0; next} {print cpu "," commit "," $0}' |
  tee "$out"
