#!/usr/bin/env bash
# distgraph_scaling runs both implementations in one process, alternating:
# each one's creates start from the heap the other's left. Here rank0_whole
# (10^5 edges per rank, distinct weights, glibc's default allocator state)
# with distopo going by source or in one round (DISTOPO_BY_SOURCE), each
# implementation beside the other (--impl both) and alone (--impl distopo,
# --impl mpich). Rows are labelled "<by source setting>/<impl run>".
#
# Usage: bash docs/results/distinct/shared_process.sh BUILD OUT ROUNDS [P...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$(cd "$1" && pwd)
out=$2
rounds=$3
shift 3
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(8)
commit=$(git -C "$build/.." rev-parse --short HEAD)
source "$root/scripts/setup/mpi_env.sh"
distopo_mpi_env "$build"
for run in $(seq 1 "$rounds"); do
  for p in "${counts[@]}"; do
    for setting in auto false; do
      for impl in both distopo mpich; do
        [ "$impl" = mpich ] && [ "$setting" = false ] && continue  # MPICH alone: the setting is distopo's
        DISTOPO_BY_SOURCE=$setting mpiexec -n "$p" "$build/bench/distgraph_scaling" --family rank0_whole \
          --edges-per-rank 100000 --reps 11 --warmup 2 --weights distinct --impl "$impl" |
          python3 "$root/docs/results/distinct/stamp_rows.py" "$setting/$impl" "$commit" --run "$run" >> "$out"
      done
    done
  done
done
