#!/usr/bin/env bash
# Count one board over a Slurm job array: one shard per array task, each resumable.
#
#   N=21 SHARDS=64 sbatch --array=0-63 scripts/slurm-array.sh
#   # when every task has finished:
#   nqueens merge shards/n21-*-of-64.json
#
# Each task writes shards/nN-I-of-K.json and keeps shards/nN-I-of-K.ckpt while it runs, so a
# task that is preempted or requeued (sbatch --requeue) resumes where it stopped. Every
# task must use the same nqueens binary, N, SHARDS, --symmetry and --split-depth: merge
# refuses shards of different configurations. Extra count flags go in NQUEENS_FLAGS.
#SBATCH --job-name=nqueens
#SBATCH --cpus-per-task=16
#SBATCH --time=24:00:00
#SBATCH --requeue
set -euo pipefail

: "${N:?set N, the board size}"
: "${SHARDS:?set SHARDS, the number of array tasks (the K of I/K)}"
: "${SLURM_ARRAY_TASK_ID:?run this with sbatch --array=0-$((SHARDS - 1))}"
nqueens=${NQUEENS:-nqueens}
out=${OUT_DIR:-shards}
i=$SLURM_ARRAY_TASK_ID
mkdir -p "$out"
# shellcheck disable=SC2086  # NQUEENS_FLAGS is a list of flags
exec "$nqueens" count "$N" -j "${SLURM_CPUS_PER_TASK:-$(nproc)}" \
  --shard "$i/$SHARDS" --output "$out/n$N-$i-of-$SHARDS.json" \
  --checkpoint "$out/n$N-$i-of-$SHARDS.ckpt" --progress always ${NQUEENS_FLAGS:-}
