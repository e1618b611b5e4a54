#!/usr/bin/env bash
# nqueens against Evgeny Kluev's quadrant-join counter, side by side: for each N, RUNS
# alternated runs of `nqueens count N -j THREADS` and `kluev-N THREADS [PARTS PART]`, their
# medians and our lead (Kluev's time over ours), in wall time and in CPU time (user + system,
# of all threads: on a machine shared with other work, the CPU time ratio is the fairer one).
# Both totals are checked against each other.
#
# Usage: KLUEV=DIR scripts/vs-kluev.sh RUNS N... [> CSV]   (THREADS [2]; SHARD=I/K times
#   shard I of K of ours against Kluev's part I of K: a slice of n = 21 or 22; KERNELS="auto
#   avx2" runs ours once per kernel in each round, a row each, against the same Kluev runs)
#   DIR holds kluev-N binaries, each built from github.com/EvgenyKluev/N-Queens-Count-Sol (MIT)
#   with `size` set to N and the author's per-size settings in solcounter.h, by
#   `g++ -std=c++20 -O3 -march=native -pthread`; nothing of it is in this repository.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=${1:?RUNS}
shift
threads=${THREADS:-2}
kluev=${KLUEV:?KLUEV=DIR of kluev-N binaries}
out_json=$(mktemp) times=$(mktemp)
trap 'rm -f "$out_json" "$times"' EXIT
# Runs a command with its output on stdout; leaves "wall cpu" seconds in $times.
timed() {
  /usr/bin/time -f '%e %U %S' -o "$times" "$@"
  read -r wall user sys <"$times"
  echo "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" >"$times"
}
echo "cpu_model,commit,n,threads,shard,runs,nqueens_median_s,kluev_median_s,lead,method,kernel,nqueens_solutions,kluev_solutions,nqueens_cpu_s,kluev_cpu_s,cpu_lead"
# Each round runs our build once per kernel of KERNELS (e.g. "auto avx2"; unset: no --kernel
# flag), then Kluev's once: one row per kernel, each against the same Kluev runs.
read -r -a kernels <<<"${KERNELS:-default}"
for n in "$@"; do
  declare -A ours=() ours_cpu=() ran=() found=()
  theirs=() theirs_cpu=()
  for ((i = 0; i < runs; i++)); do
    for k in "${kernels[@]}"; do
      flag=()
      [ "$k" = default ] || flag=(--kernel "$k")
      if [ -n "${SHARD:-}" ]; then
        timed "$bin" count "$n" -j "$threads" "${flag[@]}" --shard "$SHARD" --output "$out_json" 2>/dev/null
        IFS=, read -r method kernel solutions <<<"$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["config"]["method"], r["kernel"], r["solutions"], sep=",")' "$out_json" 2>/dev/null || echo ",,")"
        part=(${SHARD/\// })
        kluev_args=("$threads" "${part[1]}" "${part[0]}")
      else
        line=$(timed "$bin" count "$n" -j "$threads" "${flag[@]}" --format json)
        IFS=, read -r solutions method kernel <<<"$(json_fields solutions method kernel <<<"$line")"
        kluev_args=("$threads")
      fi
      read -r wall cpu <"$times"
      ours[$k]+=" $wall" ours_cpu[$k]+=" $cpu"
      ran[$k]="$method,$kernel" found[$k]=$solutions
    done
    printed=$(timed "$kluev/kluev-$n" "${kluev_args[@]}")
    read -r wall cpu <"$times"
    theirs+=("$wall") theirs_cpu+=("$cpu")
    kluev_solutions=$(sed -n 's/^Result: //p' <<<"$printed")
  done
  b=$(printf '%s\n' "${theirs[@]}" | median)
  cb=$(printf '%s\n' "${theirs_cpu[@]}" | median)
  for k in "${kernels[@]}"; do
    a=$(median <<<"${ours[$k]}")
    ca=$(median <<<"${ours_cpu[$k]}")
    lead=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", b / a}')
    cpu_lead=$(awk -v a="$ca" -v b="$cb" 'BEGIN {printf "%.2f", b / a}')
    echo "\"$cpu_model\",$commit,$n,$threads,${SHARD:-},$runs,$a,$b,$lead,${ran[$k]},${found[$k]},$kluev_solutions,$ca,$cb,$cpu_lead"
  done
  unset ours ours_cpu ran found
done
