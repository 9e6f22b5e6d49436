#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: install, build with
# warnings as errors, run every test at 1, 2, 3, 4 and 8 ranks; then the same
# under AddressSanitizer + UndefinedBehaviorSanitizer.
# Usage: bash scripts/test.sh [--no-sanitizers]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)

bash "$root/scripts/setup.sh"

run_suite() {
  local build_dir=$1
  shift
  cmake -S "$root" -B "$build_dir" -DCMAKE_COMPILE_WARNING_AS_ERROR=ON "$@"
  cmake --build "$build_dir" -j "$jobs"
  (cd "$build_dir" && ctest --output-on-failure -j "$jobs")
}

echo "== build and test (RelWithDebInfo)"
run_suite "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo

if [ "${1:-}" != "--no-sanitizers" ]; then
  echo "== build and test (AddressSanitizer + UndefinedBehaviorSanitizer)"
  run_suite "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug -DDISTOPO_SANITIZE=ON -DDISTOPO_BUILD_BENCHMARKS=OFF
fi
