#!/usr/bin/env bash
# merge --quorum's memory against the number of slicings: shard 0 of each slicing of a plan
# from A to B shards (default n = 19 searched at split depth 2 in full symmetry, slicings 1
# to 4000), made by the make_shards instrument, then merged with `merge --quorum 1 --partial` as
# a folder under /usr/bin/time -v. Each slicing is a deal of the plan that the quorum checks
# its file against: memory that grows with the slicings, not with the parts, is what this
# measures. Appends a row to OUT_CSV (its header written when it is new): machine, commit,
# the binary, files, wall seconds, user and system CPU seconds, peak memory, parts agreed.
#
#   scripts/quorum-memory.sh [N] [DEPTH] [A-B] [OUT_CSV]
#   # defaults: 19, 2, 1-4000 and quorum-memory.csv in a new folder
#   # results/<machine>/<date>-quorum-memory/ (lib.sh's results_dir)
#
# NQUEENS_BIN picks the binary (another build, to compare); the target: 4,000 slicings of
# n = 19 within 200 MiB.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-19}
depth=${2:-2}
slicings=${3:-1-4000}
csv=${4:-$(results_dir quorum-memory)/quorum-memory.csv}
mkdir -p "$(dirname "$csv")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The dev profile optimises our code (Cargo.toml): the files are made without a release build.
cargo build --quiet --manifest-path "$root/Cargo.toml" -p nqueens-instruments --bin make_shards
"$(target_dir)/debug/make_shards" "$n" "$depth" full "$slicings" "$work/shards" >&2
files=$(find "$work/shards" -name '*.json' | wc -l)
[ -f "$csv" ] || echo "cpu_model,logical_cpus,commit,binary,files,wall_s,user_s,sys_s,max_rss_kb,parts,parts_agreed" >"$csv"
out=$(/usr/bin/time -v "$bin" merge --quorum 1 --partial --format json "$work/shards" 2>"$work/time.txt")
field() { sed -n "s/^[[:space:]]*$1: //p" "$work/time.txt"; }
wall=$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' | awk -F: '{s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s}')
echo "\"$cpu_model\",$cpus,$commit,$bin,$files,$wall,$(field 'User time (seconds)'),$(field 'System time (seconds)'),$(field 'Maximum resident set size (kbytes)'),$(json_fields parts parts_agreed <<<"$out")" | tee -a "$csv"
