# Helpers shared by the measuring scripts; source it: `. "$(dirname "$0")/lib.sh"`.
#
# Sets `root` (the checkout), `bin` (the nqueens binary: $NQUEENS_BIN if set, else the
# release build, built now, in cargo's target directory, CARGO_TARGET_DIR respected),
# `cpu_model`, `cpus` and `commit`; `reference_bin` builds the reference counter and
# `results_dir` makes the folder a round of measurements goes to by default. Needs python3
# (JSON is read with its json module).

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# cargo's target directory for this checkout (CARGO_TARGET_DIR and .cargo/config respected).
target_dir() {
  cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])'
}

if [ -n "${NQUEENS_BIN:-}" ]; then
  bin=$NQUEENS_BIN
else
  cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin nqueens
  bin=$(target_dir)/release/nqueens
fi

cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
cpu_model=${cpu_model:-$(uname -m)}
cpus=$(nproc)
commit=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)

# A new folder for one round of measurements, made and printed: `results_dir TOPIC` gives
# results/MACHINE/DATE-TOPIC in the checkout (results/README.md indexes them), MACHINE being
# $MACHINE if set (the folders' names: zen4, xeon, ...), else this host's short name, and DATE
# today's (YYYY-MM-DD). Where that folder already holds files, the round goes to DATE-TOPIC-2
# (-3, ...) instead: a default path never overwrites or appends to an earlier round.
results_dir() {
  local host=${MACHINE:-$(hostname -s 2>/dev/null || uname -n)}
  local base=$root/results/${host%%.*}/$(date +%F)-${1:?results_dir TOPIC} i=1
  local dir=$base
  while [ -n "$(ls -A "$dir" 2>/dev/null)" ]; do
    i=$((i + 1))
    dir=$base-$i
  done
  mkdir -p "$dir" && echo "$dir"
}

# Seconds since the epoch, with nanoseconds.
now() { date +%s.%N; }

# b - a, for two `now` readings.
elapsed() { awk -v a="$1" -v z="$2" 'BEGIN {print z - a}'; }

# The median, min and max of the numbers on stdin (one per line, or space-separated), as
# "median,min,max".
stats() {
  tr ' ' '\n' | grep . | sort -g |
    awk '{a[NR] = $1} END {m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.6f,%.6f,%.6f\n", m, a[1], a[NR]}'
}

# The median of the numbers on stdin.
median() { stats | cut -d, -f1; }

# The kernels named that nqueens can run on this CPU, one a line, in the order given; each
# other gets a note on stderr (nqueens' own message: the loops this CPU has) and is skipped.
usable_kernels() {
  local k why
  for k in "$@"; do
    if why=$("$bin" count 0 --kernel "$k" --format json 2>&1 >/dev/null); then
      echo "$k"
    else
      echo "skipping --kernel $k: ${why#error: }" >&2
    fi
  done
}

# Fields of one JSON object on stdin, comma-separated, in the order named:
# `json_fields elapsed_s solutions <<<"$line"`. A null prints as empty.
json_fields() {
  python3 -c '
import json, sys
row = json.loads(sys.stdin.read())
print(",".join("" if row[k] is None else str(row[k]) for k in sys.argv[1:]))
' "$@"
}

# Builds the reference counter, scripts/reference/textbook.c (or the C file $REFERENCE), with
# `cc -O3 -march=native` into cargo's target directory when the source is newer than the
# build; prints the program's path. Every ratio to the reference is measured against it.
reference_bin() {
  local src=${REFERENCE:-$root/scripts/reference/textbook.c}
  [ -f "$src" ] || { echo "no reference counter at $src" >&2; return 1; }
  command -v cc >/dev/null || { echo "the reference counter needs a C compiler, cc" >&2; return 1; }
  local dir
  dir=$(target_dir)/reference
  local ref=$dir/$(basename "$src" .c)
  mkdir -p "$dir"
  [ "$ref" -nt "$src" ] || cc -O3 -march=native -o "$ref" "$src" || return 1
  echo "$ref"
}
