#!/usr/bin/env bash
# dist_graph_create_adjacent before and after its agreement overlapped MPICH's
# copy: two Release builds' distgraph_scaling --constructor adjacent (each
# against MPICH's MPI_Dist_graph_create_adjacent in the same run), alternating,
# three runs at 2, 4 and 8 ranks; rows stamped with label, commit and run.
#
# Usage: bash docs/results/adjacent/overlap_compare.sh BEFORE AFTER OUT
#   BEFORE, AFTER  Release build directories (labels "before", "after"; the yield helper is AFTER's)
# Table: python3 docs/results/adjacent/overlap_table.py OUT
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
before=$(cd "$1" && pwd)
after=$(cd "$2" && pwd)
out=$3
source "$root/scripts/setup/mpi_env.sh"
distopo_mpi_env "$after"
for run in 1 2 3; do
  for p in 2 4 8; do
    for label in before after; do
      build=$([ "$label" = before ] && echo "$before" || echo "$after")
      commit=$(git -C "$build/.." rev-parse --short HEAD)
      mpiexec -n "$p" "$build/bench/distgraph_scaling" --constructor adjacent --family ring,stencil3d,random_kout \
        --edges-per-rank 16 --reps 41 --weights distinct |
        python3 "$root/docs/results/distinct/stamp_rows.py" "$label" "$commit" --run "$run" >> "$out"
    done
  done
done
