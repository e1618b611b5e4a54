#!/usr/bin/env bash
# nqueens against the reference counter, side by side: in each of RUNS rounds the reference
# (scripts/reference/textbook.c, the textbook one-thread mirror counter, built here with
# `cc -O3 -march=native`) counts N once, then nqueens counts N with each kernel asked for;
# every ratio is against that round's reference time. Needs only a clone, cc and GNU time.
#
# Usage: scripts/ratio.sh N RUNS [KERNEL...]     (kernels default: auto, one this CPU lacks is
#        skipped with a note; THREADS [2];
#        METHODS ["auto"], e.g. "search join": each method with each kernel;
#        REFERENCE [scripts/reference/textbook.c]: another C counter to time instead)
#        OUT [ratio.csv in cargo's target directory] is appended to (its header written when it
#        is new; a file with another header is refused rather than mixed: the ratio.csv of
#        results/xeon/2026-11-22-search-vs-textbook/ holds an older format). A round kept in
#        results/ goes to its own folder: OUT=results/<machine>/<date>-<topic>/ratio.csv.
# Columns: cpu_model, commit, n, method and kernel (as nqueens reports them: what ran),
# threads, run, baseline_s (the reference's seconds), nqueens_s, ratio, max_rss_kb (of the
# nqueens process, from GNU time), solutions.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:?N}
runs=${2:?RUNS}
shift 2
# A kernel this CPU lacks is skipped with a note, rather than ending the run after the rows before it.
mapfile -t kernels < <(usable_kernels "${@:-auto}")
[ "${#kernels[@]}" -gt 0 ] || { echo "none of the kernels asked for runs on this CPU" >&2; exit 1; }
threads=${THREADS:-2}
out=${OUT:-$(target_dir)/ratio.csv}
ref=$(reference_bin) || exit 1
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time; Debian: apt-get install time)" >&2; exit 1; }
header="cpu_model,commit,n,method,kernel,threads,run,baseline_s,nqueens_s,ratio,max_rss_kb,solutions"
if [ -s "$out" ]; then
  [ "$(head -n 1 "$out")" = "$header" ] || { echo "$out has other columns than ratio.sh writes: set OUT to another file" >&2; exit 2; }
else
  mkdir -p "$(dirname "$out")"
  echo "$header" >"$out"
fi
rss=$(mktemp)
trap 'rm -f "$rss"' EXIT
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
      IFS=, read -r ran loop solutions <<<"$(json_fields method kernel solutions <<<"$line")"
      echo "\"$cpu_model\",$commit,$n,$ran,$loop,$threads,$r,$b,$e,$ratio,$(cat "$rss"),$solutions" >>"$out"
      printf 'n=%s run %d: %s %.3f s, nqueens --method %s --kernel %s -j %s (ran %s, %s) %.3f s, ratio %s, max RSS %s KB\n' \
        "$n" "$r" "$(basename "$ref")" "$b" "$method" "$k" "$threads" "$ran" "$loop" "$e" "$ratio" "$(cat "$rss")" >&2
    done
  done
done
