#!/usr/bin/env bash
# Time and peak memory of `nqueens count N -j THREADS` for N = MIN..MAX, and each n's time
# over the one before (the growth per n; backtracking grows about 8-9x per n).
#
# Usage: scripts/growth.sh MIN MAX [OUT_CSV]   (default growth.csv in a new folder
#        results/<machine>/<date>-growth/, lib.sh's results_dir; THREADS [2], KERNEL [auto],
#        METHOD [auto]). Needs GNU time (/usr/bin/time). The method and kernel columns are
#        what nqueens reports it ran.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
min=${1:?MIN}
max=${2:?MAX}
out=${3:-$(results_dir growth)/growth.csv}
threads=${THREADS:-2}
kernel=${KERNEL:-auto}
method=${METHOD:-auto}
rss=$(mktemp)
echo "cpu_model,commit,n,method,kernel,threads,seconds,growth_over_n_minus_1,max_rss_kb,solutions,unique" >"$out"
prev=""
for ((n = min; n <= max; n++)); do
  line=$(/usr/bin/time -f %M -o "$rss" "$bin" count "$n" -j "$threads" --method "$method" --kernel "$kernel" --format json)
  IFS=, read -r s solutions unique ran loop <<<"$(json_fields elapsed_s solutions unique method kernel <<<"$line")"
  growth=$([ -n "$prev" ] && awk -v a="$prev" -v b="$s" 'BEGIN {printf "%.2f", b / a}' || echo "")
  echo "\"$cpu_model\",$commit,$n,$ran,$loop,$threads,$s,$growth,$(cat "$rss"),$solutions,$unique" | tee -a "$out"
  prev=$s
done
rm -f "$rss"
