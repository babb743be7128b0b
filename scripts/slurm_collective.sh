#!/usr/bin/env bash
# The collective suite across N nodes, one rank per GPU:
#   sbatch --nodes=N scripts/slurm_collective.sh [--mpi PLUGIN] [--gpus-per-task 1] [--] [GPUBENCH-ARGS...]
# Each rank is one gpubench process (--no-isolate: an MPI rank joins its job once); rank 0
# writes the one JSON.
#   --mpi PLUGIN       srun's MPI plugin (srun --mpi=list shows them; Open MPI wants pmix or
#                      pmi2). Without it srun takes SLURM_MPI_TYPE, else the cluster's MpiDefault.
#   --gpus-per-task 1  each rank gets a GPU of its own and sees only it (device 0). Without it
#                      every rank sees the node's GPUs and its local rank picks one. gpubench
#                      maps both ways; so does `sbatch --gpus-per-task=1`.
# Environment: GPUS_PER_NODE (ranks per node; default the job's --ntasks-per-node, else 8),
# OUT (the result file), GPUBENCH (the binary; default the installed or built one beside this
# script, then $SLURM_SUBMIT_DIR/build/gpubench, then gpubench on PATH: sbatch runs a copy of
# this script, so a binary beside it is found only when it is run in place, e.g. under salloc).
#SBATCH --job-name=gpubench-collective
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --exclusive
#SBATCH --time=00:20:00
set -euo pipefail

die() {
  echo "slurm_collective: $1" >&2
  exit 2
}

srun_args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --mpi) [[ $# -ge 2 && -n $2 ]] || die "--mpi needs a plugin name"; srun_args+=(--mpi="$2"); shift 2 ;;
    --mpi=*) srun_args+=("$1"); shift ;;
    --gpus-per-task) [[ ${2:-} == 1 ]] || die "--gpus-per-task takes 1 (one GPU per rank)"
                     srun_args+=(--gpus-per-task=1); shift 2 ;;
    -h | --help) sed -n '2,/^#SBATCH/{/^#SBATCH/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    --) shift; break ;;
    *) break ;;
  esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case $here in
  */share/gpubench/scripts) beside=${here%/share/gpubench/scripts}/bin/gpubench ;;  # installed
  *) beside=$here/../build/gpubench ;;                                              # a clone
esac
gpubench=${GPUBENCH:-}
if [[ -z $gpubench ]]; then
  for candidate in "$beside" "${SLURM_SUBMIT_DIR:+$SLURM_SUBMIT_DIR/build/gpubench}"; do
    if [[ -x $candidate ]]; then gpubench=$candidate; break; fi
  done
  [[ -n $gpubench ]] || gpubench=$(command -v gpubench) || die "no gpubench binary found (set GPUBENCH)"
fi

out=${OUT:-collective-${SLURM_JOB_NUM_NODES:-1}n-$(date +%Y-%m-%d).json}
# NCCL_* variables set here (NCCL_NVLS_ENABLE, NCCL_ALGO, NCCL_PROTO, NCCL_IB_HCA ...) reach
# every rank and are recorded in the result's context.
srun ${srun_args[@]+"${srun_args[@]}"} --ntasks-per-node="${GPUS_PER_NODE:-${SLURM_NTASKS_PER_NODE:-8}}" \
  --cpu-bind=none "$gpubench" --suite collective --no-isolate --out "$out" "$@"
