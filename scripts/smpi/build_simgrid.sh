#!/usr/bin/env bash
# Builds the SimGrid library the simulations run on: Debian's own simgrid
# source package, the version libsimgrid-dev installed, with the patches
# scripts/smpi/simgrid-<version>-*.patch, applied in name order:
#   - detached-comms changes the simulator's cost and not its model. SimGrid
#     3.32 keeps every detached (eager) message in one std::list and removes it
#     from there, by a linear scan, each time a message completes: with P ranks
#     sending at once each completion costs O(P), and distopo's exchange at
#     16384 ranks did not finish in an hour. The patch keeps them in a hash map
#     instead. Same simulated times: docs/results/scaling/README.md.
#   - exscan-recursive-doubling adds a setting,
#     smpi/exscan-recursive-doubling (off by default), that runs MPI_Exscan as
#     MPICH does: log2(P) exchanges with rank ^ mask. SimGrid's own sends each
#     rank's value to every higher rank: P^2 / 2 messages, and a reordering
#     dist_graph_create (one MPI_Exscan to number the hosts) took 101 s of
#     simulator time at 1024 ranks and did not finish in 51 minutes at 4096.
#   - overheads-timeline adds a setting, smpi/overheads-timeline (off by
#     default, so other runs are unchanged), that charges each rank's send and
#     receive overheads on one timeline, receive overheads at arrival: see the
#     patch and docs/results/neighbor/README.md.
#   - tested-comms changes the simulator's cost and not its model either: a
#     comm completed by MPI_Test (or Testsome, Testany) stayed in its rank's
#     std::list of activities, alive, for the rest of the run, and each later
#     wait removed its own comm from that list by a linear scan; distopo's
#     relays and exchanges test their requests on every poll.
#
# Usage: bash scripts/smpi/build_simgrid.sh [PREFIX]
#   PREFIX defaults to build-smpi/simgrid; prints the library's path,
#   PREFIX/lib/libsimgrid.so.<version>, which simulate.sh preloads.
#   Cached: nothing is done when that library exists and was built with the
#   same patches (PREFIX/lib/patches.sha256).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix=$(realpath -m "${1:-$root/build-smpi/simgrid}")
source_version=$(dpkg-query -W -f='${source:Version}' libsimgrid-dev)
upstream=${source_version%%-*}
patches=("$root/scripts/smpi/simgrid-$upstream-"*.patch)
library="$prefix/lib/libsimgrid.so.$upstream"
stamp="$prefix/lib/patches.sha256"
patch_sums=$(cd "$root/scripts/smpi" && sha256sum "${patches[@]##*/}" 2>/dev/null || true)

if [ -e "$library" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$patch_sums" ]; then
  echo "$library"
  exit 0
fi
[ -f "${patches[0]}" ] || { echo "build_simgrid.sh: no patch for SimGrid $upstream (${patches[0]})" >&2; exit 1; }

work="$prefix/work"
mkdir -p "$work"
# apt fetches and checks the source package (deb-src entries added if missing).
tarball=$(bash "$root/scripts/setup/debian_source.sh" simgrid "$source_version" "$work") || {
  echo "build_simgrid.sh: cannot fetch simgrid $source_version sources through apt" >&2
  exit 2
}
rm -rf "$work/src"
mkdir -p "$work/src"
tar -xf "$tarball" -C "$work/src" --strip-components=1
for patch_file in "${patches[@]}"; do
  patch -d "$work/src" -p1 --quiet <"$patch_file"
done

# Debian's configuration minus what SMPI does not use (Java, ns-3, docs, MC).
# From inside $work: one of SimGrid's configure checks copies a program into
# the current directory.
cd "$work"
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE= -DCMAKE_C_FLAGS=-O3 -DCMAKE_CXX_FLAGS=-O3 \
  -DCMAKE_INSTALL_PREFIX="$prefix" -Denable_documentation=OFF -Denable_msg=ON -Denable_java=OFF \
  -Denable_ns3=OFF -Denable_smpi=ON -Denable_fortran=OFF -Denable_python=OFF -Denable_model-checking=OFF >"$work/configure.log" 2>&1
cmake --build "$work/build" -j "$(nproc)" --target simgrid >"$work/build.log" 2>&1
mkdir -p "$prefix/lib"
cp -P "$work/build/lib/"libsimgrid.so* "$prefix/lib/"
echo "$patch_sums" >"$stamp"
[ -e "$library" ] || { echo "build_simgrid.sh: $library was not built (see $work/build.log)" >&2; exit 1; }
rm -rf "$work/src" "$work/build"
echo "$library"
