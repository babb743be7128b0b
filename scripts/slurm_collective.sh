#!/usr/bin/env bash
# The collective suite across N nodes, one rank per GPU: sbatch --nodes=N scripts/slurm_collective.sh
# Each rank is one gpubench process (--no-isolate: an MPI rank joins its job once); rank 0
# writes the one JSON. GPUS_PER_NODE, GPUBENCH and OUT override the defaults.
#SBATCH --job-name=gpubench-collective
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --exclusive
#SBATCH --time=00:20:00
set -euo pipefail
gpubench=${GPUBENCH:-$(dirname "$0")/../build/gpubench}
out=${OUT:-collective-${SLURM_JOB_NUM_NODES:-1}n-$(date +%Y-%m-%d).json}
# NCCL_* variables set here (NCCL_NVLS_ENABLE, NCCL_ALGO, NCCL_PROTO, NCCL_IB_HCA ...) reach
# every rank and are recorded in the result's context.
srun --mpi=pmix --ntasks-per-node="${GPUS_PER_NODE:-8}" --cpu-bind=none \
  "$gpubench" --suite collective --no-isolate --out "$out" "$@"
