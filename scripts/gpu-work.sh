#!/usr/bin/env bash
# The GPU path's work against the CPU join's on the same random keys of n = 18..23
# (KEYS each, default 3), under this machine's adapter's limits: writes
# results/<machine>/<date>-gpu-work/work.csv. `MACHINE=zen4 KEYS=3 scripts/gpu-work.sh`;
# `PROFILE=dev` uses the tests' build (the counters are the same in every build; the
# release one takes minutes more to build). `NS="18 19"` picks the boards. The split's
# workgroups take a GPU's least slice (`SLICE_LEAST`, 32 words) even on a software adapter.
# `OUT=DIR` writes DIR/work.csv instead.
set -euo pipefail
cd "$(dirname "$0")/.."
machine=${MACHINE:-$(hostname -s)}
keys=${KEYS:-3}
profile=${PROFILE:-release}
dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
out=${OUT:-results/$machine/$(date -u +%F)-gpu-work}
mkdir -p "$out"
cargo build --profile "$profile" -p nqueens-instruments --features gpu,instruments --bin gpu_work
echo "n,key,cpu_tested,gpu_tested,min_workgroups,max_workgroups,fewest_dispatch,matchings,submissions,dispatches,idle,depth,moved,visits,restarts,tile,workgroup_bytes,slice_least" > "$out/work.csv"
for n in ${NS:-18 19 20 21 22 23}; do
  SLICE_LEAST=${SLICE_LEAST:-32} "target/$dir/gpu_work" "$n" "$keys" 2>/dev/null | tee -a "$out/work.csv"
done
