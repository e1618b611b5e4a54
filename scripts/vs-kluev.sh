#!/usr/bin/env bash
# nqueens against Evgeny Kluev's quadrant-join counter, side by side: for each N, RUNS
# alternated runs of `nqueens count N -j THREADS` and `kluev-N THREADS [PARTS PART]`, their
# medians and our lead (Kluev's time over ours). Both totals are checked against each other.
#
# Usage: KLUEV=DIR scripts/vs-kluev.sh RUNS N... [> CSV]   (THREADS [2]; SHARD=I/K times
#   shard I of K of ours against Kluev's part I of K: a slice of n = 21 or 22)
#   DIR holds kluev-N binaries, built by ../shared/anchors/kluev.sh from a fetched copy of
#   github.com/EvgenyKluev/N-Queens-Count-Sol (MIT); nothing of it is in this repository.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=${1:?RUNS}
shift
threads=${THREADS:-2}
kluev=${KLUEV:?KLUEV=DIR of kluev-N binaries}
out_json=$(mktemp)
trap 'rm -f "$out_json"' EXIT
echo "cpu_model,commit,n,threads,shard,runs,nqueens_median_s,kluev_median_s,lead,method,kernel,nqueens_solutions,kluev_solutions"
for n in "$@"; do
  ours=() theirs=()
  for ((i = 0; i < runs; i++)); do
    if [ -n "${SHARD:-}" ]; then
      t0=$(now)
      "$bin" count "$n" -j "$threads" --shard "$SHARD" --output "$out_json" 2>/dev/null
      t1=$(now)
      ours+=("$(elapsed "$t0" "$t1")")
      IFS=, read -r method kernel solutions <<<"$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["config"]["method"], r["kernel"], r["solutions"], sep=",")' "$out_json" 2>/dev/null || echo ",,")"
      ran="$method,$kernel"
      part=(${SHARD/\// })
      t0=$(now)
      k=$("$kluev/kluev-$n" "$threads" "${part[1]}" "${part[0]}")
      t1=$(now)
    else
      line=$("$bin" count "$n" -j "$threads" --format json)
      IFS=, read -r s solutions method kernel <<<"$(json_fields elapsed_s solutions method kernel <<<"$line")"
      ran="$method,$kernel"
      t0=$(now)
      k=$("$kluev/kluev-$n" "$threads")
      t1=$(now)
      ours+=("$s")
    fi
    theirs+=("$(elapsed "$t0" "$t1")")
    kluev_solutions=$(sed -n 's/^Result: //p' <<<"$k")
  done
  a=$(printf '%s\n' "${ours[@]}" | stats | cut -d, -f1)
  b=$(printf '%s\n' "${theirs[@]}" | stats | cut -d, -f1)
  lead=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", b / a}')
  echo "\"$cpu_model\",$commit,$n,$threads,${SHARD:-},$runs,$a,$b,$lead,$ran,$solutions,$kluev_solutions"
done
