#!/usr/bin/env bash
# merge at the scale of a plan (issue 30): K real shard results of a small board (default
# 176,871, as many as n = 22's join plan has parts: n = 14 searched at split depth 6 with no
# symmetry, 241,484 parts) made by the make_shards instrument, then merged as a folder, as a
# --list file and with --partial after a few are removed, each under /usr/bin/time -v.
# Appends one row per merge to OUT_CSV (its header written when it is new): machine, commit,
# files, how they were given, wall seconds, user and system CPU seconds, peak memory, the total.
#
#   scripts/merge-scale.sh [K] [THREADS] [OUT_CSV]
#   # defaults: 176871, 2 and merge-scale.csv in a new folder results/<machine>/<date>-merge-scale/
#   # (lib.sh's results_dir)
#
# The issue's target: 176,871 files within 60 s and 256 MB on 2 cores (a run against it:
# results/zen3/2026-11-25-cluster-readiness/).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
k=${1:-176871}
threads=${2:-2}
csv=${3:-$(results_dir merge-scale)/merge-scale.csv}
mkdir -p "$(dirname "$csv")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p nqueens-instruments --bin make_shards
"$(target_dir)/release/make_shards" 14 6 none "$k" "$work/shards" >&2
[ -f "$csv" ] || echo "cpu_model,logical_cpus,commit,files,given_as,threads,wall_s,user_s,sys_s,max_rss_kb,shards_merged,solutions" >"$csv"

# One merge under /usr/bin/time -v: a CSV row.
measure() {
  local given=$1 merged=$2
  shift 2
  local out
  out=$(/usr/bin/time -v "$bin" merge "$@" -j "$threads" --format json 2>"$work/time.txt")
  local field
  field() { sed -n "s/^[[:space:]]*$1: //p" "$work/time.txt"; }
  local wall
  wall=$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' | awk -F: '{s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s}')
  echo "\"$cpu_model\",$cpus,$commit,$k,$given,$threads,$wall,$(field 'User time (seconds)'),$(field 'System time (seconds)'),$(field 'Maximum resident set size (kbytes)'),$merged,$(json_fields solutions <<<"$out")" | tee -a "$csv"
}

measure folder "$k" "$work/shards"
find "$work/shards" -name '*.json' >"$work/list.txt"
measure list "$k" --list "$work/list.txt"
# Every hundredth shard removed: a job still running.
find "$work/shards" -name '*00.json' -delete
left=$(find "$work/shards" -name '*.json' | wc -l)
measure partial "$left" --partial "$work/shards"
