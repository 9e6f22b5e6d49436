#!/usr/bin/env bash
# Builds Kokkos with the OpenMP backend (plus Serial) from Debian's own
# sources: Debian ships Kokkos only as a Serial build (libtrilinos-kokkos-dev),
# whose source package, trilinos, holds packages/kokkos. Only that subtree is
# extracted and built (Release, shared libraries, so that an application and
# libdistopo_mpi.so share one Kokkos), into <build dir>/kokkos-openmp/install.
# Cached: once that install exists, a run only prints its prefix.
#
# Usage: bash scripts/setup/kokkos_openmp.sh [build dir]   (default: build-openmp)
# Prints the install prefix on its last line (configure distopo with
# -DKokkos_ROOT=<prefix>). Exit status: 0 done; 1 build failed; 2 the sources
# cannot be fetched through apt (scripts/setup/debian_source.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-openmp}
mkdir -p "$build"
build=$(cd "$build" && pwd)
work="$build/kokkos-openmp"
prefix="$work/install"

if [ -f "$prefix/.complete" ]; then
  echo "kokkos_openmp: cached in $prefix" >&2
  echo "$prefix"
  exit 0
fi

for tool in apt-get tar cmake g++; do
  command -v "$tool" >/dev/null || { echo "kokkos_openmp: $tool is missing (bash scripts/setup/install_packages.sh installs it)" >&2; exit 1; }
done

# The Kokkos that Debian built Serial-only: same source version.
version=$(dpkg-query -W -f='${source:Version}' libtrilinos-kokkos-dev 2>/dev/null || true)
[ -n "$version" ] || version=13.2.0-4
mkdir -p "$work"

# apt fetches and checks the source package (deb-src entries added if missing).
echo "kokkos_openmp: fetching trilinos ${version} sources through apt (~170 MB once)" >&2
tarball=$(bash "$root/scripts/setup/debian_source.sh" trilinos "$version" "$work") || {
  echo "kokkos_openmp: cannot fetch trilinos ${version} sources through apt" >&2
  exit 2
}
tarball_name=$(basename "$tarball")

# packages/kokkos only (a few MB of the tarball's ~1 GB).
source_dir=$(find "$work/src" -maxdepth 3 -type d -path '*/packages/kokkos' 2>/dev/null | head -n 1 || true)
if [ -z "$source_dir" ]; then
  rm -rf "$work/src"
  mkdir -p "$work/src"
  echo "kokkos_openmp: extracting packages/kokkos" >&2
  tar -xf "$tarball" -C "$work/src" --wildcards '*/packages/kokkos/*'
  source_dir=$(find "$work/src" -maxdepth 3 -type d -path '*/packages/kokkos' | head -n 1)
  [ -n "$source_dir" ] || { echo "kokkos_openmp: packages/kokkos not found in $tarball_name" >&2; exit 1; }
fi

jobs=$(( $(nproc) < 2 ? $(nproc) : 2 ))
cmake -S "$source_dir" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
      -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF -DBUILD_SHARED_LIBS=ON \
      -DCMAKE_INSTALL_RPATH="$prefix/lib" -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON \
      -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF >"$work/configure.log" ||
  { tail -n 30 "$work/configure.log" >&2; echo "kokkos_openmp: configure failed (log: $work/configure.log)" >&2; exit 1; }
cmake --build "$work/build" -j "$jobs"
cmake --install "$work/build" >/dev/null
touch "$prefix/.complete"
echo "$prefix"
