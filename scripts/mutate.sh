#!/usr/bin/env bash
# Random mutations and forgeries of shard sets, each merged alone, with --audit 100 and under
# --quorum 2 beside a genuine run, and the verdicts checked (examples/mutate.rs and
# examples/mutate/trials.rs; the test suite runs 210 of them). Writes the verdicts by kind to
# mutations.csv and a README naming the machine, the command and the commit, in a new folder
# results/<machine>/<date>-mutations/ (lib.sh's results_dir), or OUT_DIR; a failing trial's
# line goes to failures.txt. Exits 1 where any trial failed: a merge that gave a wrong total
# (after a mutation; after a forgery with the audit or the quorum), or a quorum that did not
# name a forged part.
#
#   scripts/mutate.sh [N] [SEED]        # defaults: 10000 trials, seed 71
set -euo pipefail
# This script runs the example, not the nqueens binary: lib.sh need not build a release.
NQUEENS_BIN=${NQUEENS_BIN:-unused}
. "$(dirname "$0")/lib.sh"
trials=${1:-10000}
seed=${2:-71}
dir=${OUT_DIR:-$(results_dir mutations)}
mkdir -p "$dir"
cargo build --quiet --manifest-path "$root/Cargo.toml" --example mutate
status=0
start=$(now)
"$(target_dir)/debug/examples/mutate" "$trials" "$seed" >"$dir/mutations.csv" 2>"$dir/failures.txt" || status=$?
seconds=$(elapsed "$start" "$(now)")
[ -s "$dir/failures.txt" ] || rm -f "$dir/failures.txt"
all=$(grep '^all,' "$dir/mutations.csv" || echo "all,none")
cat >"$dir/README.md" <<README
# Mutations and forgeries of shard sets

- **Question.** Does any merge give a wrong total after a shard file is damaged or forged? Does
  a quorum of two runs name every forged part? (docs/trust.md says what each check catches.)
- **Machine.** $(hostname -s 2>/dev/null || uname -n): $cpu_model, $cpus logical CPUs.
- **Command.** \`scripts/mutate.sh $trials $seed\` (examples/mutate.rs in the dev profile), $seconds s.
- **Commit.** $commit.
- **Set.** n = 10 searched at depth 3 in full symmetry; run A in 4 shards (the one changed), run
  B in 3 (the genuine copy of the quorum). Each trial changes run A once, merges it alone (one
  reading, then a recount of every part by the other loop: \`merge --audit 100\`) and with run B
  under \`--quorum 2\`, and puts it back. The kinds take turns.
- **Result.** The row of all trials (columns in mutations.csv):

  \`$all\`

  Exit status $status$([ "$status" = 0 ] && echo ": no trial failed" || echo ": see failures.txt").
  \`merge_wrong\` counts the trials a merge without audit took with a wrong total: forgeries of a
  count, consistent in every checksum, which nothing in a file can tell. What must hold:
  \`audit_wrong\` and \`quorum_wrong\` 0, \`forged_parts_named\` equal to \`counts_forged\`, and no
  wrong total from a kind that forges nothing.
README
echo "$dir"
exit "$status"
