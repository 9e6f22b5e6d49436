#!/usr/bin/env bash
# CPU time per create, all ranks together: perf stat's task-clock of a run of
# R1 + 10 creates minus that of a run of R1 creates, divided by 10 (the
# difference leaves out start-up and the benchmark's input generation, which
# both runs share). Distinct weights, 10^6 edges per rank, P = 4.
#
# Usage: bash docs/results/distinct/cpu_per_create.sh BUILD [FAMILY...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$(cd "$1" && pwd)
shift
families=("$@")
[ ${#families[@]} -gt 0 ] || families=(random_kout rank0_whole incoming_only powerlaw)
source "$root/scripts/setup/mpi_env.sh"
distopo_mpi_env "$build"
for family in "${families[@]}"; do
  for impl in mpich distopo; do
    clocks=()
    for reps in 3 13; do
      perf stat -e task-clock -x, -o /tmp/cpu_per_create.$$ mpiexec -n 4 "$build/bench/distgraph_scaling" \
        --family "$family" --edges-per-rank 1000000 --weights distinct --impl "$impl" --reps "$reps" --warmup 1 > /dev/null
      clocks+=("$(grep task-clock /tmp/cpu_per_create.$$ | cut -d, -f1)")
    done
    python3 -c "print('$family $impl cpu ms per create', round((${clocks[1]} - ${clocks[0]}) / 10, 1))"
  done
done
rm -f /tmp/cpu_per_create.$$
