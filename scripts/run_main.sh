#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install, build (Release), then
# build distributed graphs of every family with distopo and with MPICH's own
# MPI_Dist_graph_create at several local process counts, and print what was
# built, how long it took and how much heap per rank it needed.
# Ends with a plot of the study (time and heap per rank versus P).
# Usage: bash scripts/run_main.sh [process counts...]   (default: 2 4 8 16)
# Then two heavy rows per family whose size grows with the edges (10^6 edges
# per rank at P = 4, the family's weights and distinct weights;
# docs/design/heavy-graphs.md).
# Raw JSON lines are kept in build-release/scaling.jsonl (heavy rows:
# scaling_heavy.jsonl), the plot in build-release/scaling.png.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-release"
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(2 4 8 16)

bash "$root/scripts/setup/install_packages.sh" python3-matplotlib
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDISTOPO_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target distopo_ucx_yield distgraph_scaling scaling_report

source "$root/scripts/setup/mpi_env.sh"
distopo_mpi_env "$build"
results="$build/scaling.jsonl"
: > "$results"
for p in "${counts[@]}"; do
  echo "== distgraph_scaling on $p local ranks"
  # 41 repetitions: with the default 11, single ratios move between runs (docs/guide/benchmarks.md).
  mpiexec -n "$p" "$build/bench/distgraph_scaling" --reps 41 | tee -a "$results"
  # Unweighted with no (source, destination) pair twice: no edge end repeats
  # (at most P edges per rank make such a graph).
  mpiexec -n "$p" "$build/bench/distgraph_scaling" --family unique_pairs --unweighted --edges-per-rank "$p" \
    --reps 41 | tee -a "$results"
done
heavy="$build/scaling_heavy.jsonl"
echo "== distgraph_scaling, 10^6 edges per rank on 4 local ranks"
# 5 repetitions and 2 warm-up creates: one create takes tenths of a second at
# this size. The families' own weights repeat every edge thousands of times
# at this size; with distinct weights (each rank's edges weigh differently)
# none repeats but where ranks give edges between the same two ranks (powerlaw).
# Each implementation is timed in processes of its own, as a program uses one:
# in one process each create would start from the heap the other's creates
# left (docs/results/distinct/README.md, "One process, two implementations").
# A process alone has nothing to compare its lists with, so a run of both with
# one repetition first checks distopo's lists against MPICH's (the benchmark
# exits non-zero where they differ); its rows, left out of the summary, are
# kept in scaling_heavy_check.jsonl.
: > "$heavy"
check="$build/scaling_heavy_check.jsonl"
: > "$check"
heavy_families=random_kout,powerlaw,rank0_whole,incoming_only
for weights in repeated distinct; do
  mpiexec -n 4 "$build/bench/distgraph_scaling" --family "$heavy_families" --edges-per-rank 1000000 \
    --reps 1 --warmup 0 --warmup-seconds 0 --weights "$weights" --impl both >> "$check"
  for impl in distopo mpich; do
    mpiexec -n 4 "$build/bench/distgraph_scaling" --family "$heavy_families" \
      --edges-per-rank 1000000 --reps 5 --warmup 2 --weights "$weights" --impl "$impl" | tee -a "$heavy"
  done
done
echo
echo "== summary (times: max over ranks, median over repetitions)"
cat "$results" "$heavy" | "$build/bench/scaling_report"
echo
/usr/bin/python3 "$root/scripts/report/plot_scaling.py" "$results" -o "$build/scaling.png" \
  --title "dist_graph_create on $(nproc) local cores: distopo against MPICH (max over ranks, median of 41)"
