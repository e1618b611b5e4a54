#!/usr/bin/env bash
# The pooled thread efficiency of a scaling.csv (scripts/scaling.sh's): per method and split
# depth (the join has none), the geometric mean over modes and n >= MIN_N of the efficiency at
# the most threads measured, with the lowest and highest cell. Prints a Markdown table (as in
# results/xeon/2026-11-22-search-vs-textbook/ and results/zen4/2026-11-23-scaling-sweep/). A
# CSV without a method column predates the join: every row of it is the search.
#
# Usage: scripts/pooled-efficiency.sh SCALING_CSV [MIN_N]    (MIN_N default 16)
set -euo pipefail
csv=${1:?SCALING_CSV, e.g. results/zen4/2026-11-23-scaling-sweep/scaling.csv}
min_n=${2:-16}
python3 - "$csv" "$min_n" <<'PY'
import csv, math, sys
from collections import defaultdict

path, min_n = sys.argv[1], int(sys.argv[2])
rows = list(csv.DictReader(open(path)))
top = max(int(r["threads"]) for r in rows)
cells = defaultdict(list)
for r in rows:
    if int(r["n"]) >= min_n and int(r["threads"]) == top:
        cells[(r.get("method", "search"), r["split_depth"] or "-")].append(float(r["efficiency"]))
print(f"| method | split depth | cells | geometric mean efficiency at {top} threads | lowest | highest |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for method, depth in sorted(cells):
    e = cells[(method, depth)]
    g = math.exp(sum(math.log(x) for x in e) / len(e))
    print(f"| {method} | {depth} | {len(e)} | {g:.3f} | {min(e):.2f} | {max(e):.2f} |")
PY
