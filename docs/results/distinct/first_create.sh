#!/usr/bin/env bash
# The first create of a process: what an application that builds its graph
# once pays. Every create runs in a process of its own (nothing warmed up:
# no earlier create, so the allocator hands out pages never touched, and
# distopo starts Kokkos and copies the communicator), distopo and MPICH
# alternating which goes first. Rows as distgraph_scaling prints them
# (reps = 1), with `label`, `commit`, `run` and `load`.
#
# Usage: bash docs/results/distinct/first_create.sh BUILD LABEL OUT RUNS [P...]
#   BUILD  a Release build directory with distgraph_scaling and the yield helper
#   RUNS   processes per implementation and case
#   P      process counts (default 4 8)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$(cd "$1" && pwd)
label=$2
out=$3
runs=$4
shift 4
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(4 8)
commit=$(git -C "$build/.." rev-parse --short HEAD 2>/dev/null || git -C "$root" rev-parse --short HEAD)

source "$root/scripts/setup/mpi_env.sh"
distopo_mpi_env "$build"
once() {  # P, implementation, family, edges per rank, run
  mpiexec -n "$1" "$build/bench/distgraph_scaling" --impl "$2" --family "$3" --edges-per-rank "$4" \
    --reps 1 --warmup 0 --warmup-seconds 0 --weights distinct |
    python3 "$root/docs/results/distinct/stamp_rows.py" "$label" "$commit" --run "$5" --load | tee -a "$out"
}
for p in "${counts[@]}"; do
  for e in 1000 10000 100000 1000000; do
    for family in random_kout powerlaw rank0_whole incoming_only; do
      for run in $(seq 1 "$runs"); do
        if [ $((run % 2)) -eq 1 ]; then order=(distopo mpich); else order=(mpich distopo); fi
        for impl in "${order[@]}"; do once "$p" "$impl" "$family" "$e" "$run"; done
      done
    done
  done
done
