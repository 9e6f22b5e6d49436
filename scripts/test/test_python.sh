#!/usr/bin/env bash
# distopo from Python: builds mpi4py from Debian's own source package
# against MPICH (Debian's python3-mpi4py is built on Open MPI) with Debian's
# cython3 and /usr/bin/python3, then, with libdistopo_mpi.so preloaded, runs
# examples/python/weighted_ring.py (a weighted dist graph with reorder and a
# neighbor_alltoallv over it, results checked) and mpi4py's own topology and
# neighborhood tests at 1-4 ranks. Not part of scripts/test.sh: it needs
# mpi4py's sources and a second build (about a minute of CPU).
# Usage: bash scripts/test/test_python.sh [build dir]   (default: build-python)
# Exit status: 0 if everything passed, 1 if a test failed, 2 if mpi4py's
# sources cannot be fetched.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-python}
mkdir -p "$build" && build=$(cd "$build" && pwd)
jobs=$(( $(nproc) < 2 ? $(nproc) : 2 ))
python=/usr/bin/python3  # Debian's: cython3 and the MPICH build are for it

bash "$root/scripts/setup/install_packages.sh" python3-dev cython3 dpkg-dev

echo "== build distopo's C API"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_COMPILE_WARNING_AS_ERROR=ON
cmake --build "$build" -j "$jobs" --target distopo_capi distopo_ucx_yield
library="$build/capi/libdistopo_mpi.so"

# mpi4py's Debian sources through apt itself (so a mirror or proxy configured
# for apt serves them too): deb-src entries derived from the machine's own
# deb entries, in a private apt state under the build directory (the
# machine's apt configuration is left as it is).
work="$build/mpi4py"
mkdir -p "$work/apt/lists/partial" "$work/apt/sources"
: >"$work/apt/sources.list"
if [ ! -d "$work/source" ]; then
  for file in /etc/apt/sources.list.d/*.sources; do
    # Only entries with binary packages (a deb-src-only file would repeat them).
    [ -f "$file" ] && grep -qE '^Types:(.* )?deb( |$)' "$file" &&
      sed 's/^Types:.*/Types: deb-src/' "$file" >"$work/apt/sources/$(basename "$file")"
  done
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] && sed -n 's/^deb \(.*\)/deb-src \1/p' "$file" >"$work/apt/sources/$(basename "$file").list"
  done
  apt_private=(-o Dir::Etc::SourceList="$work/apt/sources.list" -o Dir::Etc::SourceParts="$work/apt/sources"
               -o Dir::State::Lists="$work/apt/lists")
  apt-get "${apt_private[@]}" update >/dev/null
  rm -rf "$work/fetch" && mkdir -p "$work/fetch"
  if ! (cd "$work/fetch" && apt-get "${apt_private[@]}" source mpi4py); then
    echo "test_python: cannot fetch mpi4py's Debian sources through apt" >&2
    exit 2
  fi
  mv "$(find "$work/fetch" -mindepth 1 -maxdepth 1 -type d -name 'mpi4py-*' | head -n 1)" "$work/source"
fi

echo "== build mpi4py against MPICH"
cd "$work/source"
if ! "$python" -c "import sys; sys.path.insert(0, 'src'); import mpi4py.MPI" 2>/dev/null; then
  "$python" conf/cythonize.py
  MPICC=mpicc "$python" setup.py build_ext --inplace
fi
export PYTHONPATH="$work/source/src"

source "$root/scripts/setup/mpi_env.sh"
distopo_mpi_env "$build"
export LD_PRELOAD="$library:$LD_PRELOAD"
failed=0
for np in 1 2 3 4; do
  echo "== examples/python/weighted_ring.py, $np ranks"
  timeout 120 mpiexec -n "$np" "$python" "$root/examples/python/weighted_ring.py" || failed=1
done
for np in 1 2 3 4; do
  echo "== mpi4py's topology and neighborhood tests, $np ranks"
  timeout 300 mpiexec -n "$np" "$python" test/runtests.py --no-builddir -q -i test_comm_topo -i test_cco_ngh ||
    failed=1
done
if [ "$failed" -ne 0 ]; then
  echo "test_python: FAILED" >&2
  exit 1
fi
echo "test_python: passed"
