#!/usr/bin/env bash
# dist_graph_create with and without going by source (DISTOPO_BY_SOURCE=false
# and true: every scattered input takes one round, or two), each process
# alternating distopo and MPICH as distgraph_scaling does. Rows labelled
# "<allocator state> by_source=<false|true>".
#
# Usage: bash docs/results/distinct/by_source.sh BUILD OUT ROUNDS SET [P...]
#   SET  large: powerlaw, rank0_whole, incoming_only at 10^5 and 10^6 edges per
#               rank, under three states of glibc's allocator (default, warm,
#               fresh: see allocator_conditions.sh); P default 4 8
#        small: rank0_whole at 1000 ... 30000 edges per rank (rank 0 gives
#               P times as many), allocator as it comes; P default 4 8 16
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$(cd "$1" && pwd)
out=$2
rounds=$3
set=$4
shift 4
counts=("$@")
if [ ${#counts[@]} -eq 0 ]; then
  if [ "$set" = small ]; then counts=(4 8 16); else counts=(4 8); fi
fi
commit=$(git -C "$build/.." rev-parse --short HEAD 2>/dev/null || git -C "$root" rev-parse --short HEAD)
source "$root/scripts/setup/mpi_env.sh"
distopo_mpi_env "$build"
source "$root/docs/results/distinct/allocator_states.sh"
run() {  # state, by_source, P, then distgraph_scaling's arguments
  local state=$1 by_source=$2 p=$3
  shift 3
  GLIBC_TUNABLES=${tunables[$state]} DISTOPO_BY_SOURCE=$by_source mpiexec -n "$p" \
    "$build/bench/distgraph_scaling" --weights distinct --warmup-seconds 0.5 "$@" |
    python3 "$root/docs/results/distinct/stamp_rows.py" "$state by_source=$by_source" "$commit" --run "$round" |
    tee -a "$out"
}
for round in $(seq 1 "$rounds"); do
  case $set in
    large)
      for state in default warm fresh; do
        for p in "${counts[@]}"; do
          for edges in 100000 1000000; do
            for by_source in false true; do
              run "$state" "$by_source" "$p" --family powerlaw,rank0_whole,incoming_only --edges-per-rank "$edges" \
                --reps $((edges >= 1000000 ? 5 : 15)) --warmup 2
            done
          done
        done
      done
      ;;
    small)
      for p in "${counts[@]}"; do
        for edges in 1000 2000 5000 10000 30000; do
          for by_source in false true; do
            run default "$by_source" "$p" --family rank0_whole --edges-per-rank "$edges" --reps 41 --warmup 3
          done
        done
      done
      ;;
    *) echo "by_source.sh: unknown set $set" >&2; exit 2 ;;
  esac
done
