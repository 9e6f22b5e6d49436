# What simulate.sh and simulate_reorder.sh share: SimGrid installed, the SMPI
# build, the patched libsimgrid, the network model, and the platform of P
# hosts. Sourced; expects $root.

# Installs SimGrid (libsimgrid-dev) if needed, configures the SMPI build in
# $1 if it has none, and builds the targets given after it.
smpi_build() {
  local build=$1
  shift
  if ! command -v smpirun >/dev/null || ! dpkg-query -W -f='${Status}' libsimgrid-dev 2>/dev/null | grep -q "ok installed"; then
    bash "$root/scripts/setup/install_packages.sh"
    local as_root=()
    [ "$(id -u)" -eq 0 ] || as_root=(sudo)
    DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends libsimgrid-dev simgrid >/dev/null
  fi
  if [ ! -f "$build/CMakeCache.txt" ]; then
    bash "$root/scripts/setup/install_packages.sh"
    CC=smpicc CXX=smpicxx cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDISTOPO_SMPI=ON >/dev/null
  fi
  cmake --build "$build" -j "$(nproc)" --target "$@" >/dev/null
}

# Sets simgrid_preload and simgrid_label: the patched library of
# build_simgrid.sh built in $1/simgrid, unless $2 is 1 (Debian's as installed).
# smpirun puts the system library directory first in LD_LIBRARY_PATH, so the
# patched library is preloaded (the loader then resolves its soname to it).
smpi_simgrid() {
  simgrid_preload=
  simgrid_label=stock
  if [ "$2" -eq 0 ]; then
    simgrid_preload=$(bash "$root/scripts/smpi/build_simgrid.sh" "$1/simgrid")
    simgrid_label=patched
  fi
}

# Sets smpi_cfg, the model (docs/results/scaling/README.md): links as the platform
# says (no SMPI latency/bandwidth correction factors), eager messages below
# 64 KiB, 100 ns of CPU overhead per send and receive, $1 s per poll
# (MPI_Iprobe, MPI_Test), and MPICH's algorithms for barrier and allreduce.
smpi_model() {
  smpi_cfg=(
    --cfg=smpi/privatization:no
    --cfg=contexts/stack-size:128
    --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1
    --cfg=smpi/async-small-thresh:65536 --cfg=smpi/send-is-detached-thresh:65536
    --cfg=smpi/os:0:1e-7 --cfg=smpi/ois:0:1e-7 --cfg=smpi/or:0:1e-7
    "--cfg=smpi/iprobe:$1" "--cfg=smpi/test:$1" --cfg=smpi/grow-injected-times:no
    --cfg=smpi/barrier:ompi_bruck --cfg=smpi/allreduce:rdb
    --log=root.thres:warning
  )
}

# Sets platform (the fat tree of $2 hosts, written under $1/platforms) and
# size_cfg. Every simulated rank's stack is a mapping plus a guard page;
# Linux allows 65530 mappings per process by default.
smpi_platform() {
  local build=$1 p=$2
  size_cfg=()
  if [ "$(cat /proc/sys/vm/max_map_count)" -lt $((4 * p)) ] && ! sysctl -qw vm.max_map_count=$((4 * p)) 2>/dev/null; then
    size_cfg=(--cfg=contexts/guard-size:0)
  fi
  platform="$build/platforms/fat_tree_$p.xml"
  mkdir -p "$(dirname "$platform")"
  bash "$root/scripts/smpi/fat_tree_platform.sh" "$p" >"$platform"
}

# Succeeds if JSON-lines file $1 holds a row with every field of $2...
# (name=value; equal as JSON values, as text, or as numbers: "1e-7" matches
# both 1e-7 and "1e-7"; name= with no value: the row lacks the field or holds
# false there).
# Parsed, not grepped: rows written with spaces ("P": 256) or in another key
# order are found too.
smpi_row_done() {
  python3 - "$@" <<'PY'
import json, sys
path = sys.argv[1]
wanted = dict(field.partition("=")[::2] for field in sys.argv[2:])

def same(value, text):
    if str(value) == text:
        return True
    try:
        if value == json.loads(text):
            return True
    except ValueError:
        pass
    try:
        return not isinstance(value, bool) and float(value) == float(text)
    except (TypeError, ValueError):
        return False
try:
    lines = open(path, encoding="utf-8")
except FileNotFoundError:
    sys.exit(1)
for line in lines:
    line = line.strip()
    if not line.startswith("{"):
        continue
    try:
        row = json.loads(line)
    except ValueError:
        continue
    def matches(name, text):
        if text == "":
            return row.get(name) in (None, False)
        return name in row and same(row[name], text)
    if all(matches(name, text) for name, text in wanted.items()):
        sys.exit(0)
sys.exit(1)
PY
}

# Sets smpi_code: the commit whose code the build simulates, with "+" when
# tracked files differ from it (rows carry it as "commit").
smpi_code_version() {
  smpi_code=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
  git -C "$root" diff --quiet HEAD 2>/dev/null || smpi_code+="+"
}
