#!/usr/bin/env bash
# Installs everything distopo needs on Debian 12 (apt-get, as root or through
# sudo), plus any packages named as arguments (what one script alone needs,
# e.g. python3-matplotlib for the plots). Safe to run again: packages already
# present are skipped.
# Usage: bash scripts/setup/install_packages.sh [package...]
set -euo pipefail

packages=(
  g++ make cmake pkg-config
  mpich libmpich-dev            # MPICH 4.0 (ch4:ucx)
  libtrilinos-kokkos-dev        # Kokkos 3.4, Serial backend
  libmetis-dev                  # METIS 5.1: the dist-graph reordering (no MPI dependency, unlike Scotch)
  libgtest-dev libbenchmark-dev # tests and kernel benchmarks
  libcli11-dev nlohmann-json3-dev
  ca-certificates xz-utils python3 # Debian source packages through apt (scripts/setup/debian_source.sh)
  "$@"
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
echo "setup: installing ${missing[*]}"
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
