#!/usr/bin/env bash
# One lease of a lent machine (16 cores, usually AVX-512), in one call: nqueens against Kluev
# side by side on 2 threads (n = 18, then a thread sweep, then shards 0, 128, 300 of 512 of n = 22
# and n = 20), with the AVX-512 loop and with --kernel avx2 forced, then (if time is left) n = 22
# whole on every thread. Every line goes to $OUT/device.csv as it is measured, so a run cut off at
# its deadline still brings back what it finished.
#
# Usage: OUT=DIR [DEADLINE_S=540] KLUEV_SH=FILE scripts/device-sweep.sh NQUEENS_BIN KLUEV_GIT_DIR KLUEV_FALLBACK
#   NQUEENS_BIN: a release build (runtime dispatch, no -C target-cpu: it runs on any x86-64)
#   KLUEV_GIT_DIR: a bare clone of github.com/EvgenyKluev/N-Queens-Count-Sol (the `fetch` tool's),
#     built here by KLUEV_SH (a script taking GIT_DIR OUT_DIR N... that builds kluev-N with the
#     author's per-size settings and -march=native; carry it to the lent machine and name it)
#   KLUEV_FALLBACK: kluev-N binaries built elsewhere (-march=x86-64-v3), used where that fails
# Needs bash 5 (EPOCHREALTIME); nothing else beyond coreutils and awk.
set -uo pipefail
bin=${1:?NQUEENS_BIN} kgit=${2:?KLUEV_GIT_DIR} kfall=${3:?KLUEV_FALLBACK}
ksh=${KLUEV_SH:?KLUEV_SH=FILE, the script that builds kluev-N binaries}
out=${OUT:?OUT=DIR}
mkdir -p "$out"
deadline=${DEADLINE_S:-540}
. "$(dirname "$0")/deadline.sh"

lscpu >"$out/lscpu.txt" 2>&1
model=$(sed -n 's/^Model name: *//p' "$out/lscpu.txt" | head -1)
isa=$(grep -qw avx512f /proc/cpuinfo && echo avx512 || echo avx2)
echo "cpu: $model ($isa), $(nproc) CPUs, g++: $(command -v g++ || echo none)"

# Kluev's counter, one binary per n, built by the anchor script.
. "$(dirname "$0")/kluev-lib.sh"
kdir=/tmp/kluev
kluev_build "$ksh" "$kgit" "$kfall" "$kdir" 18 20 22
echo "kluev builds: 18 ${kbuild[18]}, 20 ${kbuild[20]}, 22 ${kbuild[22]} ($(elapsed) s)"

csv=$out/device.csv
echo "cpu_model,what,n,shard,threads,kernel,run,seconds,solutions" >"$csv"
# Times one command; appends a CSV row. $1 what, $2 n, $3 shard, $4 threads, $5 kernel, $6 run.
timed() {
  local what=$1 n=$2 shard=$3 threads=$4 kernel=$5 run=$6 s e sol
  shift 6
  rm -f /tmp/shard.json
  [ "$(left)" -gt 5 ] || { echo "skipped (deadline): $*"; return 1; }
  s=$EPOCHREALTIME
  timeout "$(left)" "$@" >/tmp/o 2>/tmp/e || { echo "failed: $* ($(tail -1 /tmp/e))"; return 1; }
  e=$EPOCHREALTIME
  sol=$(cat /tmp/o /tmp/shard.json 2>/dev/null | grep -o '"solutions":[0-9]*' | head -1 | cut -d: -f2)
  [ -n "$sol" ] || sol=$(sed -n 's/^Result: //p' /tmp/o)
  printf '"%s",%s,%s,%s,%s,%s,%s,%s,%s\n' "$model" "$what" "$n" "$shard" "$threads" "$kernel" "$run" \
    "$(awk -v a="$s" -v b="$e" 'BEGIN {printf "%.3f", b - a}')" "$sol" | tee -a "$csv"
}
ours() { # n shard threads kernel run
  local extra=()
  [ -n "$2" ] && extra=(--shard "$2" --output /tmp/shard.json)
  timed nqueens "$1" "$2" "$3" "$4" "$5" "$bin" count "$1" -j "$3" --method join --kernel "$4" --format json "${extra[@]}"
}
kluev() { # n shard threads run
  local args=("$3")
  [ -n "$2" ] && args=("$3" "${2#*/}" "${2%/*}")
  timed "kluev-${kbuild[$1]}" "$1" "$2" "$3" - "$4" "$kdir/kluev-$1" "${args[@]}"
}

# 1. n = 18, three alternated rounds.
for r in 1 2 3; do
  ours 18 "" 2 auto $r
  ours 18 "" 2 avx2 $r
  kluev 18 "" 2 $r
done
# 2. Threads: n = 19 and n = 20 on 1 to 16 threads (the join, auto kernel).
for j in 1 2 4 8 12 16; do ours 19 "" $j auto 1; done
for j in 4 8 16; do ours 20 "" $j auto 1; done
# 3. n = 22's shards and n = 20, one round each (Kluev's n = 20 takes about 4 minutes).
for s in 0/512 128/512 300/512; do
  ours 22 "$s" 2 auto 1
  ours 22 "$s" 2 avx2 1
  kluev 22 "$s" 2 1
done
ours 20 "" 2 auto 1
ours 20 "" 2 avx2 1
kluev 20 "" 2 1
# 4. n = 22 whole on every CPU, if the deadline leaves room (about 4 minutes on 16 threads).
if [ "$(left)" -gt 200 ]; then
  timeout "$(left)" "$bin" count 22 -j "$(nproc)" --method join --format json >"$out/n22-whole.json" 2>"$out/n22-whole.err"
  echo "n22 whole rc=$? $(cat "$out/n22-whole.json")"
fi
echo "done in $(elapsed) s"
{ column -s, -t <"$csv" 2>/dev/null || cat "$csv"; } | cut -c1-160 | tail -40
