#!/usr/bin/env bash
# The heavy families with each implementation alone in its processes, one
# family per process (--impl distopo, then --impl mpich, alternating), so no
# create starts from a heap another implementation or family left
# (shared_process.sh shows what that changes). Rows
# labelled LABEL, stamped with the build's commit and the run's number.
#
# Usage: bash docs/results/distinct/alone.sh BUILD LABEL OUT ROUNDS [P...]
#   EDGES  (environment) edges per rank, default "100000 1000000"; the
#          reps follow measure.sh's heavy set (41 below 10^6 edges, 5 at 10^6,
#          3 at 10^6 on 16 ranks or more)
# Table: python3 docs/results/distinct/alone_table.py OUT
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$(cd "$1" && pwd)
label=$2
out=$3
rounds=$4
shift 4
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(4 8)
commit=$(git -C "$build/.." rev-parse --short HEAD)
source "$root/scripts/setup/mpi_env.sh"
distopo_mpi_env "$build"
for run in $(seq 1 "$rounds"); do
  for p in "${counts[@]}"; do
    for e in ${EDGES:-100000 1000000}; do
      for family in random_kout powerlaw rank0_whole incoming_only; do
        for impl in distopo mpich; do
          mpiexec -n "$p" "$build/bench/distgraph_scaling" --family "$family" --edges-per-rank "$e" \
            --reps $((e >= 1000000 ? (p >= 16 ? 3 : 5) : 41)) --warmup 2 --weights distinct --impl "$impl" |
            python3 "$root/docs/results/distinct/stamp_rows.py" "$label" "$commit" --run "$run" >> "$out"
        done
      done
    done
  done
done
