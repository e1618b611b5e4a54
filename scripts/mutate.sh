#!/usr/bin/env bash
# Random mutations and forgeries of shard sets, each merged alone, with --audit 100 and under
# --quorum 2 beside a genuine run, random mutations of a checkpoint, each resumed for its
# plan, and random attacks on the files a shard run writes (rescue files planted by another
# user or as links, `ulimit -f` limits), each run through the nqueens binary, and the verdicts
# checked (the `mutate` instrument in scripts/instruments, with tests/mutate/trials.rs,
# checkpoints.rs and files.rs; the test suite runs 224, 260 and 24 of them). Writes the verdicts
# by kind to mutations.csv (shards), checkpoint-mutations.csv and file-mutations.csv, and a
# README naming the machine, the command and the commit, in a new folder
# results/<machine>/<date>-mutations/ (<date>-checkpoint-mutations/ or <date>-file-mutations/
# for one set alone; lib.sh's results_dir), or OUT_DIR; a failing trial's line goes to
# failures.txt. Exits 1 where any trial failed: a merge that gave a wrong total (after a
# mutation; after a forgery with the audit or the quorum), a quorum that did not name a forged
# part, a resumed checkpoint that gave a wrong total after a mutation, or a file trial whose
# shard did not merge to the true total, lost its counts or wrote through a planted link.
#
#   scripts/mutate.sh [N] [SEED] [shards|checkpoints|files|both|all]   # defaults: 10000, 71, both
set -euo pipefail
# This script runs the instrument, not the nqueens binary: lib.sh need not build a release.
NQUEENS_BIN=${NQUEENS_BIN:-unused}
. "$(dirname "$0")/lib.sh"
trials=${1:-10000}
seed=${2:-71}
set=${3:-both}
case $set in
  shards | both | all) topic=mutations ;;
  checkpoints) topic=checkpoint-mutations ;;
  files) topic=file-mutations ;;
  *) echo "mutate.sh: $set: not shards, checkpoints, files, both or all" >&2; exit 2 ;;
esac
dir=${OUT_DIR:-$(results_dir "$topic")}
mkdir -p "$dir"
# The file trials run the binary built beside the instrument (dev profile).
cargo build --quiet --manifest-path "$root/Cargo.toml" -p nqueens-instruments --bin mutate
cargo build --quiet --manifest-path "$root/Cargo.toml" --bin nqueens
status=0
start=$(now)
: >"$dir/failures.txt"
for one in shards checkpoints files; do
  case $set/$one in
    all/* | both/shards | both/checkpoints | "$one/$one") ;;
    *) continue ;;
  esac
  case $one in
    shards) csv=mutations.csv ;;
    checkpoints) csv=checkpoint-mutations.csv ;;
    files) csv=file-mutations.csv ;;
  esac
  "$(target_dir)/debug/mutate" "$trials" "$seed" "$one" >"$dir/$csv" 2>>"$dir/failures.txt" || status=$?
done
seconds=$(elapsed "$start" "$(now)")
[ -s "$dir/failures.txt" ] || rm -f "$dir/failures.txt"
shard_all=$(grep -s '^all,' "$dir/mutations.csv" || echo "all,none")
checkpoint_all=$(grep -s '^all-mutations,' "$dir/checkpoint-mutations.csv" || echo "all-mutations,none")
forged=$(grep -s '^forge-record,' "$dir/checkpoint-mutations.csv" || echo "forge-record,none")
files_all=$(grep -s '^all,' "$dir/file-mutations.csv" || echo "all,none")
{
  if [ "$set" = files ]; then
    cat <<README
# Planted rescue files and file size limits

- **Question.** Does a rescue file planted by another user or as a link ever become a shard's
  result, or get written through? Does a file size limit ever lose a shard's counts? (docs/trust.md
  says what is promised.)
README
  else
    cat <<README
# Mutations and forgeries of shard sets and checkpoints

- **Question.** Does any merge give a wrong total after a shard file is damaged or forged? Does
  a quorum of two runs name every forged part? Does any resume give a wrong total after a
  checkpoint is damaged?$([ "$set" = all ] && echo " Is a planted rescue file ever taken, or a shard's counts lost to a size limit?") (docs/trust.md says what each check catches.)
README
  fi
  cat <<README
- **Machine.** $(hostname -s 2>/dev/null || uname -n): $cpu_model, $cpus logical CPUs.
- **Command.** \`scripts/mutate.sh $trials $seed $set\` (the \`mutate\` instrument in the dev profile), $seconds s.
- **Commit.** $commit.
README
  if [ "$set" = shards ] || [ "$set" = both ] || [ "$set" = all ]; then
    cat <<README
- **Shard set.** n = 10 searched at depth 3 in full symmetry; run A in 4 shards (the one
  changed), run B in 3 (the genuine copy of the quorum). Each trial changes run A once, merges
  it alone (one reading, then a recount of every part by the other loop: \`merge --audit 100\`)
  and with run B under \`--quorum 2\` (A's folder and B's, two sources), and puts it back. The
  kinds take turns; \`forge-one-source\` adds to A's folder a second run forged alike and leaves
  out B's files of the forged part, so that only one source holds it (the quorum must refuse).
- **Shard result.** The row of all trials (columns in mutations.csv):

  \`$shard_all\`

  \`merge_wrong\` counts the trials a merge without audit took with a wrong total: forgeries of a
  count, consistent in every checksum, which nothing in a file can tell. What must hold:
  \`audit_wrong\` and \`quorum_wrong\` 0, \`forged_parts_named\` equal to \`counts_forged\`, and no
  wrong total from a kind that forges nothing.
README
  fi
  if [ "$set" = checkpoints ] || [ "$set" = both ] || [ "$set" = all ]; then
    cat <<README
- **Checkpoint.** n = 10 searched at depth 3 in full symmetry, two parts in three recorded
  through the library's \`Checkpoint\` (a count stopped midway). Each trial changes a copy once,
  opens it for the same plan (\`Checkpoint::open\`, as \`count --checkpoint\` does), counts the
  parts it does not hold and sums (\`foreign-record\` puts in a sound record of another plan's
  checkpoint: n - 1, or no symmetry); fundamental counts that make no whole number of solutions
  are refused as the binary refuses them (\`count_refused\`); the resume audit (\`count
  --audit\`) is left out. The kinds take turns.
- **Checkpoint result.** The row of all mutations (columns in checkpoint-mutations.csv):

  \`$checkpoint_all\`

  What must hold: \`wrong\` 0 (every mutation refused or resumed to the true total), and every
  \`whitespace\` trial exact. Forgeries (a record's counts changed, its residues and checksum
  recomputed) are tallied apart and may resume to a wrong total, as no checksum can tell them:

  \`$forged\`
README
  fi
  if [ "$set" = files ] || [ "$set" = all ]; then
    cat <<README
- **Files.** n = 12 in 2 shards, each trial a \`count 12 --shard I/2 --output FILE\` of the
  nqueens binary (dev profile) in a folder of its own. \`planted-rescue\`: a rescue file
  planted beside the output (in a folder others can write, or one of this user's alone)
  and/or where rescue files used to be kept (\`\$TMPDIR\`): another owner's (root: uid 65534),
  of mode 0644, a link to a file of the victim's or to the forgery (this shard with a part
  raised and its checksums recomputed, the other shard, or this shard genuine); the output
  made to fail at its rename in half the trials, then the same command run again.
  \`size-limit\`: the run under \`ulimit -f 0\` to \`2\` (KiB, SIGXFSZ not trapped), with a
  checkpoint in half the trials; the counts followed where the run says they went (the
  output, a rescue file or the checkpoint, by running the same command again without the
  limit; standard output, saved).
- **Files result.** The row of all trials (columns in file-mutations.csv; \`went\` says where
  each trial's counts went first):

  \`$files_all\`

  What must hold: \`wrong\`, \`lost\` and \`written_through\` 0: every shard merged with the
  other to the true total, no counts said to be kept were counted again, and no file a
  planted link names was changed.
README
  fi
  cat <<README
- **Exit status** $status$([ "$status" = 0 ] && echo ": no trial failed" || echo ": see failures.txt").
README
} >"$dir/README.md"
echo "$dir"
exit "$status"
