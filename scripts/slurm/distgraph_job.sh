#!/usr/bin/env bash
#SBATCH --job-name=distopo-distgraph
# One Slurm job of the scaling study of dist_graph_create: distopo against MPICH's MPI_Dist_graph_create
# (build/bench/distgraph_scaling), per graph family, at the size of the job's allocation.
# scripts/slurm/sweep.sh submits one per size; by hand:
#   sbatch --nodes 2 --ntasks-per-node 64 --partition P scripts/slurm/distgraph_job.sh --repo $PWD
# Options: --help (the common part is in job_common.sh).
set -euo pipefail

# sbatch runs a copy of this file from Slurm's spool directory, so the
# repository is found from --repo, else this file's place, else the
# directory the job was submitted from.
repo=""
previous=""
for argument in "$@"; do
  case $argument in --repo=*) repo=${argument#--repo=} ;; esac
  [ "$previous" != --repo ] || repo=$argument
  [ "$argument" != -- ] || break
  previous=$argument
done
if [ -z "$repo" ]; then
  for candidate in "$(dirname "$0")/../.." "${SLURM_SUBMIT_DIR:-.}"; do
    if [ -f "$candidate/scripts/slurm/job_common.sh" ]; then repo=$candidate; break; fi
  done
fi
if [ -z "$repo" ] || [ ! -f "$repo/scripts/slurm/job_common.sh" ]; then
  echo "distgraph_job: cannot find the distopo repository; pass --repo DIR" >&2
  exit 2
fi
repo=$(cd "$repo" && pwd)
# shellcheck source=scripts/slurm/job_common.sh
source "$repo/scripts/slurm/job_common.sh"
distopo_job distgraph --repo "$repo" "$@"
