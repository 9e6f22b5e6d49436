#!/usr/bin/env bash
# Two builds of the library, distopo's create only, alternating run by run:
# the heavy families with distinct weights (10^5 and 10^6 edges per rank unless EDGES says).
# Each row is stamped with its build's label and commit and the run's number.
#
# Usage: bash docs/results/distinct/compare_builds.sh BEFORE AFTER OUT ROUNDS [P...]
#   BEFORE, AFTER  Release build directories with distgraph_scaling (labels
#                  "before" and "after"; the yield helper is AFTER's)
#   ROUNDS         how many times each pair runs
#   P              process counts (default 4 8)
#   EDGES          (environment) edges per rank, default "100000 1000000"
# Table: python3 docs/results/distinct/compare_table.py OUT
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
before=$(cd "$1" && pwd)
after=$(cd "$2" && pwd)
out=$3
rounds=$4
shift 4
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(4 8)

source "$root/scripts/setup/mpi_env.sh"
distopo_mpi_env "$after"
for run in $(seq 1 "$rounds"); do
  for p in "${counts[@]}"; do
    for e in ${EDGES:-100000 1000000}; do
      for label in before after; do
        build=$([ "$label" = before ] && echo "$before" || echo "$after")
        commit=$(git -C "$build/.." rev-parse --short HEAD)
        mpiexec -n "$p" "$build/bench/distgraph_scaling" --family random_kout,powerlaw,rank0_whole,incoming_only \
          --edges-per-rank "$e" --reps $((e >= 1000000 ? 5 : e >= 100000 ? 21 : 41)) --warmup 2 --weights distinct --impl distopo |
          python3 "$root/docs/results/distinct/stamp_rows.py" "$label" "$commit" --run "$run" >> "$out"
      done
    done
  done
done
