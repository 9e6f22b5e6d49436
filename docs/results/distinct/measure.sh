#!/usr/bin/env bash
# The rows of this study: bench/distgraph/distgraph_scaling of one build, each
# row stamped with the build's commit, a label, the number of busy processes
# beside the run and the load average when it was printed.
#
# Usage: bash docs/results/distinct/measure.sh BUILD LABEL OUT SET [P...]
#   BUILD  a Release build directory with distgraph_scaling and the yield helper
#   SET    heavy: the four heavy families, distinct weights, 10^3 ... 10^6 edges per rank
#          small: ring, stencils (distinct weights) and unique_pairs (unweighted), 16 / P edges per rank
#          main: the main job's sizes (16 edges per rank, the families' weights)
#          repeated: the four heavy families at 10^6 edges per rank, the families' weights
#          busy: the heavy families at 10^5 and 10^6 edges, one busy process (`yes`) beside the run
#   P      process counts (default 4 8 16)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$(cd "$1" && pwd)
label=$2
out=$3
set=$4
shift 4
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(4 8 16)
commit=$(git -C "$build/.." rev-parse --short HEAD 2>/dev/null || git -C "$root" rev-parse --short HEAD)

source "$root/scripts/setup/mpi_env.sh"
distopo_mpi_env "$build"
busy=0
run() {  # P, then distgraph_scaling's arguments
  local p=$1
  shift
  mpiexec -n "$p" "$build/bench/distgraph_scaling" "$@" |
    python3 "$root/docs/results/distinct/stamp_rows.py" "$label" "$commit" --busy "$busy" --load | tee -a "$out"
}
heavy=random_kout,powerlaw,rank0_whole,incoming_only
for p in "${counts[@]}"; do
  case $set in
    heavy)
      for e in 1000 10000 100000; do
        run "$p" --family $heavy --edges-per-rank $e --reps 41 --warmup 3 --weights distinct
      done
      run "$p" --family $heavy --edges-per-rank 1000000 --reps $((p >= 16 ? 3 : 5)) --warmup 2 --weights distinct
      ;;
    small)
      run "$p" --family ring,stencil2d,stencil3d --reps 101 --warmup 5 --weights distinct
      run "$p" --family unique_pairs --unweighted --edges-per-rank "$p" --reps 101 --warmup 5
      ;;
    main)
      run "$p" --reps 101 --warmup 5
      ;;
    repeated)
      run "$p" --family $heavy --edges-per-rank 1000000 --reps 5 --warmup 2
      ;;
    busy)
      yes > /dev/null &
      busy_pid=$!
      busy=1
      for e in 100000 1000000; do
        run "$p" --family $heavy --edges-per-rank $e --reps $((e >= 1000000 ? 5 : 21)) --warmup 2 --weights distinct
      done
      kill "$busy_pid"
      busy=0
      ;;
    *) echo "measure.sh: unknown set $set" >&2; exit 2 ;;
  esac
done
