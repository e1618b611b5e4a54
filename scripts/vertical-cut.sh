#!/usr/bin/env bash
# The vertical-cut probe (scripts/probe/vertical_cut.rs: totals only) against
# `nqueens count N -j THREADS --method join`, one run each, on this machine: time, peak memory,
# and both totals (they must agree; the script fails where they do not).
#
# Usage: scripts/vertical-cut.sh "N..." [OUT_CSV]   (N even; default results/vertical-cut.csv;
#        THREADS [1], for both).
# Needs rustc (the toolchain's) and GNU time (/usr/bin/time).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
sizes=${1:?N list, e.g. "14 16 18"}
out=${2:-$root/results/vertical-cut.csv}
threads=${THREADS:-1}
probe=$(mktemp -d)
# Built for this machine's CPU, as ratio.sh builds baseline.c (-march=native).
rustc --edition 2021 -O -C target-cpu=native -o "$probe/vertical_cut" "$root/scripts/probe/vertical_cut.rs"
rss=$(mktemp)
echo "cpu_model,commit,threads,n,probe_total,join_total,half_boards,probe_build_cpu_s,probe_match_cpu_s,probe_s,probe_max_rss_kb,join_s,join_max_rss_kb" >"$out"
for n in $sizes; do
  IFS=, read -r _ total halves build match seconds <<<"$(/usr/bin/time -f %M -o "$rss" "$probe/vertical_cut" "$n" "$threads")"
  probe_rss=$(cat "$rss")
  line=$(/usr/bin/time -f %M -o "$rss" "$bin" count "$n" -j "$threads" --method join --format json)
  IFS=, read -r join_s join_total <<<"$(json_fields elapsed_s solutions <<<"$line")"
  echo "\"$cpu_model\",$commit,$threads,$n,$total,$join_total,$halves,$build,$match,$seconds,$probe_rss,$join_s,$(cat "$rss")" | tee -a "$out"
  if [ "$total" != "$join_total" ]; then
    echo "vertical-cut: n = $n: the probe counts $total, nqueens $join_total" >&2
    exit 1
  fi
done
rm -rf "$probe" "$rss"
