#!/usr/bin/env bash
# The heavy families at 10^6 edges per rank under three states of glibc's
# allocator, every run alternating distopo and MPICH as distgraph_scaling
# does, rows labelled with the state:
#   default     repeated creates as they come (glibc's own thresholds)
#   warm        nothing ever given back (GLIBC_TUNABLES: trim threshold 4 GB,
#               mmap threshold 32 MiB): repeated creates reuse memory already
#               touched, no page faults
#   fresh       every block above 128 KiB a new mapping (mmap threshold
#               fixed at 128 KiB): every create touches new pages, as the
#               first create of a process does
#
# Usage: bash docs/results/distinct/allocator_conditions.sh BUILD OUT ROUNDS [P]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$(cd "$1" && pwd)
out=$2
rounds=$3
p=${4:-4}
commit=$(git -C "$build/.." rev-parse --short HEAD 2>/dev/null || git -C "$root" rev-parse --short HEAD)
source "$root/scripts/setup/mpi_env.sh"
distopo_mpi_env "$build"
source "$root/docs/results/distinct/allocator_states.sh"
for round in $(seq 1 "$rounds"); do
  for state in default warm fresh; do
    GLIBC_TUNABLES=${tunables[$state]} mpiexec -n "$p" "$build/bench/distgraph_scaling" \
      --family random_kout,powerlaw,rank0_whole,incoming_only --edges-per-rank 1000000 --reps 5 --warmup 2 \
      --weights distinct |
      python3 "$root/docs/results/distinct/stamp_rows.py" "$state" "$commit" --run "$round" | tee -a "$out"
  done
done
