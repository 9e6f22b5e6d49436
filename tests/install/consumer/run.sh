#!/usr/bin/env bash
# ctest driver: install the build tree into a scratch prefix, then build and
# run a consumer through find_package(distopo), README's ring.cpp through
# pkg-config (distopo), and README's halo.c and a C program that checks it
# reaches distopo through pkg-config (distopo-mpi, linked before libmpi).
# Usage: run.sh <build dir> <source dir of this test> <scratch dir> <mpiexec>
set -euo pipefail
build=$1 source=$2 scratch=$3 mpiexec=$4
rm -rf "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$source" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
"$mpiexec" -n 2 "$scratch/consumer/consumer"

export PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig"
# shellcheck disable=SC2046
mpicxx "$source/ring.cpp" -o "$scratch/ring" $(pkg-config --cflags --libs distopo)
"$mpiexec" -n 2 "$scratch/ring"
# shellcheck disable=SC2046
mpicc -o "$scratch/linked" "$source/../../capi/reaches_distopo.c" -I"$source/../../capi" $(pkg-config --libs distopo-mpi) -ldl
"$mpiexec" -n 2 "$scratch/linked"
# shellcheck disable=SC2046
mpicc -o "$scratch/halo" "$source/halo.c" $(pkg-config --libs distopo-mpi)
"$mpiexec" -n 4 "$scratch/halo"
echo "install_consumer: ok"
