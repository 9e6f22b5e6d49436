#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: install, check the
# formatting (clang-format) and the documentation's links, build with GCC and
# warnings as errors, run every test at 1, 2, 3, 4 and 8 ranks, run MPICH's own
# topology tests against the C API (scripts/test/mpich_test_suite.sh), run the
# Slurm scripts end to end on a private single-node cluster
# (scripts/slurm/selftest.sh: about 40 s, 100 s with its Release build of the
# benchmarks); build everything again with Clang, warnings as errors; then
# the ctest suite again under AddressSanitizer + UndefinedBehaviorSanitizer.
# Usage: bash scripts/test.sh [--no-sanitizers] [--no-slurm]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
sanitizers=1
slurm=1
for option in "$@"; do
  case $option in
    --no-sanitizers) sanitizers=0 ;;
    --no-slurm) slurm=0 ;;
    *) echo "usage: bash scripts/test.sh [--no-sanitizers] [--no-slurm]" >&2; exit 2 ;;
  esac
done

# Clang and clang-format for the habits checked below; python3 for the link check.
bash "$root/scripts/setup/install_packages.sh" clang clang-format python3

echo "== formatting and documentation links"
bash "$root/scripts/test/check_format.sh"
python3 "$root/scripts/test/doc_links.py" "$root"

run_suite() {
  local build_dir=$1
  shift
  cmake -S "$root" -B "$build_dir" -DCMAKE_COMPILE_WARNING_AS_ERROR=ON "$@"
  cmake --build "$build_dir" -j "$jobs"
  (cd "$build_dir" && ctest --output-on-failure -j "$jobs")
}

echo "== build and test (RelWithDebInfo)"
run_suite "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo

echo "== MPICH's own topology and neighborhood tests, unchanged, against the C API"
status=0
bash "$root/scripts/test/mpich_test_suite.sh" "$root/build" || status=$?
if [ "$status" -eq 2 ]; then
  echo "WARNING: MPICH's test sources could not be fetched from the Debian archive; that suite did not run" >&2
elif [ "$status" -ne 0 ]; then
  exit "$status"
fi

if [ "$slurm" -eq 1 ]; then
  echo "== the Slurm scripts (scripts/slurm/) on a private single-node Slurm cluster"
  bash "$root/scripts/slurm/selftest.sh"
fi

echo "== build with Clang, warnings as errors (no run: the GCC build's tests cover behaviour)"
CC=clang CXX=clang++ cmake -S "$root" -B "$root/build-clang" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_COMPILE_WARNING_AS_ERROR=ON
cmake --build "$root/build-clang" -j "$jobs"

if [ "$sanitizers" -eq 1 ]; then
  echo "== build and test (AddressSanitizer + UndefinedBehaviorSanitizer)"
  run_suite "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug -DDISTOPO_SANITIZE=ON -DDISTOPO_BUILD_BENCHMARKS=OFF
fi
