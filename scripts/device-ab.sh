#!/usr/bin/env bash
# Builds of nqueens compared on a lent machine (16 cores, usually AVX-512), beside Kluev's counter,
# in one call: the builds' unit tests of the matching, then n = 18 in alternated rounds on 2
# threads, then n = 20 with every build and Kluev at once, each on 2 cores of its own (taskset), so
# that they share the machine's state and its drift. Every line goes to $OUT/ab.csv as it is
# measured, so a run cut off at its deadline still brings back what it finished.
#
# Usage: OUT=DIR [DEADLINE_S=480] [ROUNDS=5] [N_SMALL=18] [N_LARGE=20] KLUEV_SH=FILE \
#          scripts/device-ab.sh KLUEV_GIT_DIR KLUEV_FALLBACK LABEL=BIN[:KERNEL] ...
#   KLUEV_GIT_DIR, KLUEV_FALLBACK, KLUEV_SH: as scripts/device-sweep.sh's
#   LABEL=BIN[:KERNEL]: a release build (runtime dispatch) and the --kernel to force (auto);
#     BIN-libtests beside it, if there, is its library's test binary, run on `join::`
# Needs bash 5 (EPOCHREALTIME), taskset and awk.
set -uo pipefail
kgit=${1:?KLUEV_GIT_DIR} kfall=${2:?KLUEV_FALLBACK}
shift 2
[ $# -ge 1 ] || { echo "name at least one LABEL=BIN" >&2; exit 2; }
ksh=${KLUEV_SH:?KLUEV_SH=FILE, the script that builds kluev-N binaries}
out=${OUT:?OUT=DIR} deadline=${DEADLINE_S:-480} rounds=${ROUNDS:-5}
small=${N_SMALL:-18} large=${N_LARGE:-20}
mkdir -p "$out"
. "$(dirname "$0")/deadline.sh"

lscpu >"$out/lscpu.txt" 2>&1
model=$(sed -n 's/^Model name: *//p' "$out/lscpu.txt" | head -1)
echo "cpu: $model, $(nproc) CPUs, avx512vpopcntdq: $(grep -qw avx512_vpopcntdq /proc/cpuinfo && echo yes || echo no)"

# The builds: label, binary, kernel.
labels=() bins=() kernels=()
for spec in "$@"; do
  label=${spec%%=*} rest=${spec#*=}
  bin=${rest%%:*} kernel=auto
  [ "$rest" != "$bin" ] && kernel=${rest#*:}
  labels+=("$label") bins+=("$bin") kernels+=("$kernel")
  if [ -x "$bin-libtests" ]; then
    "$bin-libtests" --test-threads "$(nproc)" join:: >"$out/tests-$label.txt" 2>&1
    echo "$label unit tests (join::): rc=$? $(grep -m1 '^test result' "$out/tests-$label.txt")"
  fi
done

# Kluev's counter for both sizes, built by the anchor script on every core, before any timing.
. "$(dirname "$0")/kluev-lib.sh"
kdir=/tmp/kluev
kluev_build "$ksh" "$kgit" "$kfall" "$kdir" "$small" "$large" 2>"$out/kluev-build.txt"
echo "kluev builds: $small ${kbuild[$small]}, $large ${kbuild[$large]} ($(elapsed) s)"

csv=$out/ab.csv
echo "cpu_model,what,n,threads,cores,kernel,run,seconds,solutions" >"$csv"
# Runs one command on 2 cores, timed; appends a CSV row.
# $1 what, $2 n, $3 cores, $4 kernel, $5 run, then the command.
timed() {
  local what=$1 n=$2 cores=$3 kernel=$4 run=$5 s e sol tmp
  shift 5
  tmp=$(mktemp -d)
  [ "$(left)" -gt 5 ] || { echo "skipped (deadline): $what $n"; return 1; }
  s=$EPOCHREALTIME
  timeout "$(left)" taskset -c "$cores" "$@" >"$tmp/o" 2>"$tmp/e" || {
    echo "failed: $what $n ($(tail -1 "$tmp/e"))"
    return 1
  }
  e=$EPOCHREALTIME
  sol=$(grep -o '"solutions":[0-9]*' "$tmp/o" | head -1 | cut -d: -f2)
  [ -n "$sol" ] || sol=$(sed -n 's/^Result: //p' "$tmp/o")
  printf '"%s",%s,%s,2,%s,%s,%s,%s,%s\n' "$model" "$what" "$n" "$cores" "$kernel" "$run" \
    "$(awk -v a="$s" -v b="$e" 'BEGIN {printf "%.3f", b - a}')" "$sol" | tee -a "$csv"
  rm -rf "$tmp"
}
ours() { # index n cores run
  timed "${labels[$1]}" "$2" "$3" "${kernels[$1]}" "$4" \
    "${bins[$1]}" count "$2" -j 2 --method join --kernel "${kernels[$1]}" --format json
}
kluev() { # n cores run
  timed "kluev-${kbuild[$1]}" "$1" "$2" - "$3" "$kdir/kluev-$1" 2
}

# 1. The small board: every build and Kluev in turn, on cores 0-1, ROUNDS rounds, each round
# starting one build later than the one before, so that no build always runs right after Kluev's.
builds=${#labels[@]}
for r in $(seq "$rounds"); do
  for k in $(seq 0 $((builds - 1))); do ours $(((r - 1 + k) % builds)) "$small" 0-1 "$r"; done
  kluev "$small" 0-1 "$r"
done
# 2. The large board: all at once, each on a pair of cores of its own (Kluev on the last pair).
if [ "$(left)" -gt 60 ]; then
  for i in "${!labels[@]}"; do ours "$i" "$large" "$((2 * i))-$((2 * i + 1))" 1 & done
  kluev "$large" "$((2 * ${#labels[@]}))-$((2 * ${#labels[@]} + 1))" 1 &
  wait
fi
echo "done in $(elapsed) s"
{ column -s, -t <"$csv" 2>/dev/null || cat "$csv"; } | cut -c1-150
