#!/usr/bin/env bash
# The GPU timed on a lent GPU machine, ending within DEADLINE_S (default 230 s, so that a rerun
# fits a 15-minute lease): a smoke test (an adapter found, n = 12 exact), totals of n = 16..21
# against tests/data/published.tsv, then for each n = 24..27 a random shard of at least KEYS
# (16) keys counted on the GPU alone (--gpu-only) and on all THREADS (16) CPU threads, equal
# key by key and timed, and a random shard of 2 keys on 1 CPU thread (the host's loss under
# full load), then `estimate 27 --gpu-only` and `estimate 22 --gpu-only` with short samples.
# Each row is appended to $OUT/gpu.csv as it is measured; each command's stderr goes to
# $OUT/log.txt. Exit 1 where the smoke test fails or a count differs (a count the deadline cut
# short is a row saying so, not a failure).
#
# The machine has no cargo and may have no Vulkan loader. Prepare, on the build machine, in the
# repository's root:
#   cargo build --release --features gpu
#   echo /.gpu/ >> .git/info/exclude; mkdir -p .gpu; cp target/release/nqueens .gpu/
#   (cd .gpu && apt-get download libvulkan1)      # the loader, libvulkan.so.1, as a .deb
# and run with `.gpu` carried: `scripts/device-gpu.sh` (the script unpacks the loader into
# .gpu/root where the system has none, and points VK_DRIVER_FILES at the NVIDIA ICD where it is
# unset and the ICD is there).
#
# Knobs: NQUEENS (the binary; default .gpu/nqueens, else target/release/nqueens), THREADS,
# KEYS, SEED (the shards picked), SHIFT (subtracted from every n, to try the script on a
# software GPU: SHIFT=8 DEADLINE_S=200 THREADS=2 runs n = 8..13, keys of 16..19 and estimates
# of 19 and 14 on lavapipe).
set -uo pipefail
cd "$(dirname "$0")/.."
DEADLINE_S=${DEADLINE_S:-230}
OUT=${OUT:-out}
THREADS=${THREADS:-16}
KEYS=${KEYS:-16}
SEED=${SEED:-$$}
SHIFT=${SHIFT:-0}
if [ -z "${NQUEENS:-}" ]; then
  NQUEENS=target/release/nqueens
  [ -x .gpu/nqueens ] && NQUEENS=.gpu/nqueens
fi
mkdir -p "$OUT"
csv="$OUT/gpu.csv"
log="$OUT/log.txt"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
left() { echo $(( DEADLINE_S - ($(date +%s) - start) )); }
row() { echo "$1" | tee -a "$csv"; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
RANDOM=$SEED

# The Vulkan loader and the NVIDIA driver's ICD, where the system lacks them.
if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1'; then
  for deb in .gpu/libvulkan1_*.deb; do
    [ -f "$deb" ] || continue
    dpkg -x "$deb" .gpu/root
    export LD_LIBRARY_PATH=".gpu/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  done
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && [ -f "$icd" ]; then
  export VK_DRIVER_FILES=$icd
fi

[ -f "$csv" ] || row "step,n,loop,threads,parts,solutions,seconds,check"

# A field of a JSON object on stdin (python3 is on the lent machine and here).
field() { python3 -c "import json,sys; v=json.load(sys.stdin).get('$1'); print('' if v is None else v)"; }
# The published total of n.
published() { awk -v n="$1" '$1 == n { print $2 }' tests/data/published.tsv; }
# Runs the rest of the line within `limit` seconds (at least 1), its stderr to the log.
within() {
  local limit=$1; shift
  [ "$limit" -ge 1 ] || return 124
  echo "## $*" >>"$log"
  timeout "$limit" "$@" 2>>"$log"
}

# The smoke test: an adapter, and n = 12 exact.
n=12 t0=$(now)
json=$(within "$(left)" "$NQUEENS" count $n --gpu-only --format json) || json='{}'
got=$(echo "$json" | field solutions) gpu=$(echo "$json" | field gpu)
check=$([ "$got" = "$(published $n)" ] && echo exact || echo wrong)
row "smoke,$n,\"$gpu\",$(echo "$json" | field threads),$(echo "$json" | field subproblems),$got,$(since "$t0"),$check"
if [ "$check" != exact ] || [ -z "$gpu" ]; then
  echo "smoke test failed (no adapter, or n = $n miscounted): see $log" >&2
  exit 1
fi
failed=0

# Totals against the published table, within the first fifth of the time.
totals_end=$(( DEADLINE_S / 5 ))
for n in 16 17 18 19 20 21; do
  n=$(( n - SHIFT ))
  limit=$(( totals_end - ($(date +%s) - start) ))
  [ "$limit" -ge 2 ] || { row "total,$n,gpu,,,,,skipped (time)"; continue; }
  t0=$(now)
  json=$(within "$limit" "$NQUEENS" count "$n" --gpu-only -j "$THREADS" --format json) || json='{}'
  got=$(echo "$json" | field solutions)
  if [ -z "$got" ]; then
    check="no count (timed out or failed: see the log)"
  elif [ "$got" = "$(published "$n")" ]; then
    check=exact
  else
    check=wrong failed=1
  fi
  row "total,$n,gpu,$THREADS,$(echo "$json" | field subproblems),$got,$(since "$t0"),$check"
done

# A shard of `n` (index $2 of $3) counted as the rest of the line says, into $work/$4.json;
# prints its row's middle: threads,parts,solutions,seconds (the shard's own, planning included).
shard() {
  local n=$1 index=$2 count=$3 name=$4 limit=$5; shift 5
  rm -f "$work/$name.json"
  if within "$limit" "$NQUEENS" count "$n" --shard "$index/$count" --output "$work/$name.json" "$@"; then
    python3 - "$work/$name.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{r['threads']},{len(r['subproblems'])},{r['solutions']},{r['elapsed_s']:.3f}", end="")
EOF
  else
    echo ",,,,no count in time (or failed: see the log)"
    return 0
  fi
  echo ","
}
# Whether two shard files hold the same parts with the same counts.
same() {
  python3 - "$work/$1.json" "$work/$2.json" <<'EOF'
import json, sys
try:
    a, b = (json.load(open(p))["subproblems"] for p in sys.argv[1:])
    print("equal key by key" if a == b else "differs")
except (OSError, ValueError, KeyError):
    print("not compared")
EOF
}

# Keys: the GPU alone against every CPU thread on the same shard, then 2 keys on 1 thread,
# within the next three fifths of the time (a quarter of what is left for each board).
keys_end=$(( DEADLINE_S * 4 / 5 ))
for n in 24 25 26 27; do
  n=$(( n - SHIFT ))
  boards_left=$(( 28 - SHIFT - n ))
  slot=$(( (keys_end - ($(date +%s) - start)) / boards_left ))
  [ "$slot" -ge 6 ] || { row "keys,$n,,,,,,skipped (time)"; continue; }
  # The plan's parts: the refusal of more shards than parts names them (and times the plan).
  t0=$(now)
  parts=$(timeout "$slot" "$NQUEENS" count "$n" --shard 0/4000000000 --output "$work/none.json" \
    2>&1 >/dev/null | sed -n 's/.*the plan has \([0-9]*\) subproblems.*/\1/p')
  [ -n "$parts" ] || { row "keys,$n,,,,,,no plan in time"; continue; }
  row "plan,$n,cpu,$THREADS,$parts,,$(since "$t0"),"
  count=$(( parts / KEYS )) pick=$(( (RANDOM * 32768 + RANDOM) % (parts / KEYS) ))
  each=$(( slot * 2 / 5 ))
  row "keys,$n,gpu,$(shard "$n" $pick $count gpu $each --gpu-only -j "$THREADS")"
  cpu=$(shard "$n" $pick $count cpu $each -j "$THREADS")
  row "keys,$n,cpu,${cpu%,*},$(same gpu cpu)"
  [ "$(same gpu cpu)" != differs ] || failed=1
  two=$(( parts / 2 )) pick=$(( (RANDOM * 32768 + RANDOM) % (parts / 2) ))
  limit=$(( slot - ($(date +%s) - ${t0%.*}) ))
  row "keys,$n,cpu,$(shard "$n" $pick $two one "$limit" -j 1)"
done

# Short estimates of the GPU alone, in the time left (two thirds of it to n = 27).
for n in 27 22; do
  n=$(( n - SHIFT ))
  share=$(( n == 27 - SHIFT ? $(left) * 2 / 3 : $(left) ))
  # The sampling bound leaves time for the plan and the prediction.
  seconds=$(( share / 3 ))
  [ "$seconds" -ge 2 ] || { row "estimate,$n,gpu,,,,,skipped (time)"; continue; }
  t0=$(now)
  json=$(within "$share" "$NQUEENS" estimate "$n" --gpu-only -j "$THREADS" --seconds "$seconds" --format json) || json='{}'
  hours=$(echo "$json" | field gpu_hours)
  row "estimate,$n,gpu,$THREADS,$(echo "$json" | field sampled),,$(since "$t0"),gpu_hours=$hours thread_hours=$(echo "$json" | field thread_hours) low=$(echo "$json" | field thread_hours_low) high=$(echo "$json" | field thread_hours_high)"
done
exit $failed
