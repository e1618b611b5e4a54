#!/usr/bin/env bash
# nqueens against the reference counter, side by side, as the issues' targets are stated:
# in each of RUNS rounds, ../shared/reference/baseline.c counts N once, then nqueens counts N
# with each kernel asked for; every ratio is against that round's baseline.
#
# Usage: scripts/ratio.sh N RUNS [KERNEL...]     (kernels default: auto; THREADS [2];
#        METHODS ["auto"], e.g. "search join": each method with each kernel)
#        OUT [results/ratio.csv] is appended to (its header written when it is new).
# Columns: cpu_model, commit, n, method, kernel, threads, run, baseline_s, nqueens_s, ratio,
# max_rss_kb (of the nqueens process, from GNU time), solutions.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:?N}
runs=${2:?RUNS}
shift 2
kernels=("${@:-auto}")
threads=${THREADS:-2}
out=${OUT:-$root/results/ratio.csv}
ref=$(baseline_bin) || { echo "no ../shared/reference/baseline.c beside the checkout" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time; Debian: apt-get install time)" >&2; exit 1; }
[ -s "$out" ] || echo "cpu_model,commit,n,method,kernel,threads,run,baseline_s,nqueens_s,ratio,max_rss_kb,solutions" >"$out"
rss=$(mktemp)
for ((r = 0; r < runs; r++)); do
  t0=$(now); "$ref" "$n" >/dev/null; t1=$(now)
  b=$(elapsed "$t0" "$t1")
  for method in ${METHODS:-auto}; do
    for k in "${kernels[@]}"; do
      t1=$(now)
      line=$(/usr/bin/time -f %M -o "$rss" "$bin" count "$n" -j "$threads" --method "$method" --kernel "$k" --format json)
      t2=$(now)
      e=$(elapsed "$t1" "$t2")
      ratio=$(awk -v b="$b" -v e="$e" 'BEGIN {printf "%.2f", b / e}')
      echo "\"$cpu_model\",$commit,$n,$method,$k,$threads,$r,$b,$e,$ratio,$(cat "$rss"),$(json_fields solutions <<<"$line")" >>"$out"
      printf 'n=%s run %d: baseline %.3f s, nqueens --method %s --kernel %s -j %s %.3f s, ratio %s, max RSS %s KB\n' \
        "$n" "$r" "$b" "$method" "$k" "$threads" "$e" "$ratio" "$(cat "$rss")" >&2
    done
  done
done
rm -f "$rss"
