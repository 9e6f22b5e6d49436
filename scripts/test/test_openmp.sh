#!/usr/bin/env bash
# distopo on a Kokkos that really runs in parallel: installs the dependencies,
# builds Kokkos with OpenMP from Debian's sources (scripts/setup/kokkos_openmp.sh,
# cached), builds distopo against it with warnings as errors (RelWithDebInfo
# as in scripts/test.sh, in its own build directory) and runs the key sort,
# edge-list, distributed-graph, Kokkos lifetime and install tests with 2
# OpenMP threads per rank, then the Kokkos lifetime test without
# OMP_NUM_THREADS (the thread count distopo picks). Not part of scripts/test.sh: it adds a Kokkos build
# (under a minute of CPU) and a second distopo build.
# Usage: bash scripts/test/test_openmp.sh [build dir]   (default: build-openmp)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-openmp}
jobs=$(( $(nproc) < 2 ? $(nproc) : 2 ))

bash "$root/scripts/setup/install_packages.sh"
prefix=$(bash "$root/scripts/setup/kokkos_openmp.sh" "$build" | tail -n 1)

echo "== build distopo against $prefix"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKokkos_ROOT="$prefix" -DCMAKE_COMPILE_WARNING_AS_ERROR=ON
grep -q "^Kokkos_DIR:PATH=$prefix/" "$build/CMakeCache.txt" ||
  { echo "test_openmp: $build did not pick the Kokkos in $prefix" >&2; exit 1; }
cmake --build "$build" -j "$jobs"

echo "== tests, OMP_NUM_THREADS=2"
cd "$build"
OMP_NUM_THREADS=2 ctest --output-on-failure -j "$jobs" -R 'key_sort|edge_lists|kokkos|dist_graph|install_consumer'
echo "== the thread count distopo picks for its own Kokkos, without OMP_NUM_THREADS"
env -u OMP_NUM_THREADS -u KOKKOS_NUM_THREADS ctest --output-on-failure -j "$jobs" -R kokkos_lifecycle
