#!/usr/bin/env bash
# What --checkpoint costs: in each of RUNS rounds, every binary counts each case once without
# and once with a fresh checkpoint (which goes first alternates from round to round), timed
# from outside the process (the checkpoint's last sync included). Then, per binary and case,
# the medians of this set and the overhead (median with / median without - 1).
#
# Usage: scripts/checkpoint-overhead.sh RUNS [OUT]     (OUT is appended to, its header written
#        when it is new; default checkpoint-overhead.csv in a new folder
#        results/<machine>/<date>-checkpoint-overhead/, lib.sh's results_dir)
#   CASES: the count arguments, ';'-separated [16 --method search -j 1;18 -j 2]
#   BINS:  LABEL=PATH pairs to compare, space-separated [the release build, labelled by commit]
#   IDLE:  each count starts after a second in which the CPUs were at least IDLE% idle [90]
#          (the machine is shared), waiting at most WAIT seconds [300]; 0 starts at once.
#   The checkpoints go to cargo's target directory (a real disk, as a cluster's would be).
# Columns: set (when this invocation started, UTC), cpu_model, binary, case, run, first,
# plain_s, checkpoint_s, records, solutions, load1 (the 1-minute load average as the pair
# started), idle_plain and idle_checkpoint (the % of CPU idle in the second before each).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=${1:?RUNS}
out=${2:-$(results_dir checkpoint-overhead)/checkpoint-overhead.csv}
IFS=';' read -r -a cases <<<"${CASES:-16 --method search -j 1;18 -j 2}"
read -r -a bins <<<"${BINS:-$commit=$bin}"
work=$(target_dir)/checkpoint-overhead
mkdir -p "$work"
ckpt=$work/c.ckpt
[ -s "$out" ] || echo "set,cpu_model,binary,case,run,first,plain_s,checkpoint_s,records,solutions,load1,idle_plain,idle_checkpoint" >"$out"
set=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# The % of CPU time (all CPUs) idle over the next second.
idle_pct() {
  local a b
  read -r -a a </proc/stat
  sleep 1
  read -r -a b </proc/stat
  local busy=0 idle=$((b[4] + b[5] - a[4] - a[5])) i
  for i in 1 2 3 6 7 8; do busy=$((busy + b[i] - a[i])); done
  echo $((100 * idle / (idle + busy > 0 ? idle + busy : 1)))
}

# Waits for a second at least IDLE% idle (at most WAIT seconds); leaves the last reading in
# $idle.
wait_idle() {
  local waited=0
  idle=100
  [ "${IDLE:-90}" -gt 0 ] || return 0
  while idle=$(idle_pct) && [ "$idle" -lt "${IDLE:-90}" ] && [ "$waited" -lt "${WAIT:-300}" ]; do
    waited=$((waited + 1))
  done
}

# Seconds one count takes: `timed BINARY ARGS...`; its JSON line is left in $work/line. It
# starts on an idle machine (wait_idle), whose reading is left in $idle.
timed() {
  local t0 t1
  wait_idle
  t0=$(now)
  "$@" --format json >"$work/line"
  t1=$(now)
  took=$(elapsed "$t0" "$t1")
}

for ((r = 0; r < runs; r++)); do
  for c in "${cases[@]}"; do
    read -r -a args <<<"$c"
    for pair in "${bins[@]}"; do
      label=${pair%%=*}
      exe=${pair#*=}
      rm -f "$ckpt"
      load=$(cut -d' ' -f1 /proc/loadavg)
      if ((r % 2 == 0)); then
        first=plain
        timed "$exe" count "${args[@]}" && p=$took ip=$idle
        timed "$exe" count "${args[@]}" --checkpoint "$ckpt" && k=$took ik=$idle
      else
        first=checkpoint
        timed "$exe" count "${args[@]}" --checkpoint "$ckpt" && k=$took ik=$idle
        timed "$exe" count "${args[@]}" && p=$took ip=$idle
      fi
      records=$(($(wc -l <"$ckpt") - 1))
      rm -f "$ckpt"
      solutions=$(json_fields solutions <"$work/line")
      echo "$set,\"$cpu_model\",$label,$c,$r,$first,$p,$k,$records,$solutions,$load,$ip,$ik" >>"$out"
      printf '%s, count %s, run %d: %.3f s, with --checkpoint %.3f s (%d records; load %s, idle %s%%/%s%%)\n' \
        "$label" "$c" "$r" "$p" "$k" "$records" "$load" "$ip" "$ik" >&2
    done
  done
done
rm -f "$work/line"
rmdir "$work" 2>/dev/null || true

# Medians per binary and case, over this set's rows.
python3 - "$out" "$set" <<'EOF'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["set"] == sys.argv[2]]
keys = sorted({(r["binary"], r["case"]) for r in rows}, key=lambda k: (k[1], k[0]))
print("| binary | case | runs | load (1 min) | median without (s) | median with (s) | overhead |")
print("| --- | --- | ---: | --- | ---: | ---: | ---: |")
for b, c in keys:
    sel = [r for r in rows if (r["binary"], r["case"]) == (b, c)]
    p = statistics.median(float(r["plain_s"]) for r in sel)
    k = statistics.median(float(r["checkpoint_s"]) for r in sel)
    load = sorted(float(r["load1"]) for r in sel)
    print(f"| {b} | `count {c}` | {len(sel)} | {load[0]:.2f}-{load[-1]:.2f} | {p:.3f} | {k:.3f} | {100 * (k / p - 1):+.1f}% |")
EOF
