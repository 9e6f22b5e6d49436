#!/usr/bin/env bash
# Fetches a Debian source package through apt, the way the rest of the
# install fetches packages (same mirrors, proxies and signature checks):
# `apt-get source --download-only PACKAGE=VERSION` into DIR. apt checks every
# file against the signed Sources index. When apt knows no source for the
# package, deb-src entries are derived from the machine's own enabled apt
# sources (deb822 *.sources stanzas, one-line *.list entries) into
# /etc/apt/sources.list.d/distopo-deb-src.sources, and the index is updated
# once; that needs root or sudo.
#
# Usage: bash scripts/setup/debian_source.sh PACKAGE VERSION DIR
#   VERSION: the source version, as `dpkg-query -W -f='${source:Version}'` prints it.
#        bash scripts/setup/debian_source.sh --derive [APT_ETC]
#   prints the deb-src entries it would add for APT_ETC (default /etc/apt).
# Prints the path of the upstream tarball (PACKAGE_UPSTREAM.orig.tar.*) in DIR.
# Cached: nothing is fetched when DIR already holds the package's .dsc and tarball.
# Exit status: 0 done; 2 the sources cannot be fetched.
set -euo pipefail
derive_only=0
if [ "${1:-}" = --derive ]; then
  derive_only=1
  apt_etc=${2:-/etc/apt}
  set -- - - "$(mktemp -d)"
fi
apt_etc=${apt_etc:-/etc/apt}
package=${1:?usage: debian_source.sh PACKAGE VERSION DIR}
version=${2:?usage: debian_source.sh PACKAGE VERSION DIR}
dir=${3:?usage: debian_source.sh PACKAGE VERSION DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
upstream=${version#*:}   # no epoch in file names
upstream=${upstream%-*}  # no Debian revision

fail() {
  echo "debian_source: cannot fetch $package $version through apt: $1" >&2
  exit 2
}

find_tarball() {
  find "$dir" -maxdepth 1 -name "${package}_${upstream}.orig.tar.*" ! -name '*.asc' | head -n 1
}

tarball=$(find_tarball)
if [ -n "$tarball" ] && [ -f "$dir/${package}_${version#*:}.dsc" ]; then
  echo "$tarball"
  exit 0
fi

as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo -n)
# Several scripts (and users) may run apt at once: wait for its locks.
apt_wait=(-o DPkg::Lock::Timeout=600)
# As root, apt would download as user _apt, who may not write to DIR.
apt_user=()
[ "$(id -u)" -ne 0 ] || apt_user=(-o APT::Sandbox::User=root)

# Writes deb-src twins of the enabled deb entries, keeping their options
# (Signed-By, Architectures, ...), to stdout in deb822 form.
derive_deb_src() {
  python3 - "$apt_etc" <<'PY'
import glob, os, re, sys

def stanzas(text):
    for block in re.split(r"\n\s*\n", text):
        fields, last = {}, None
        for line in block.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            if line[0] in " \t" and last:
                fields[last] += "\n" + line
                continue
            name, _, value = line.partition(":")
            last = name.strip()
            fields[last] = value.strip()
        if fields:
            yield fields

out = []
etc = sys.argv[1]
for path in sorted(glob.glob(os.path.join(etc, "sources.list.d", "*.sources"))):
    if os.path.basename(path) == "distopo-deb-src.sources":
        continue
    for fields in stanzas(open(path, encoding="utf-8").read()):
        types = fields.get("Types", "").split()
        if "deb" not in types or "deb-src" in types or fields.get("Enabled", "yes").lower() == "no":
            continue
        fields = dict(fields, Types="deb-src")
        out.append("\n".join(f"{k}: {v}" for k, v in fields.items()))
lists = [os.path.join(etc, "sources.list")] + sorted(glob.glob(os.path.join(etc, "sources.list.d", "*.list")))
for path in lists:
    if not os.path.exists(path):
        continue
    for line in open(path, encoding="utf-8"):
        m = re.match(r"\s*deb\s+(\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s*(.*)", line.split("#", 1)[0])
        if not m:
            continue
        options = dict(o.split("=", 1) for o in (m.group(2) or "").split() if "=" in o)
        stanza = ["Types: deb-src", f"URIs: {m.group(3)}", f"Suites: {m.group(4)}"]
        if m.group(5).strip():
            stanza.append(f"Components: {m.group(5).strip()}")
        names = {"signed-by": "Signed-By", "arch": "Architectures", "trusted": "Trusted"}
        stanza += [f"{names[k]}: {v}" for k, v in options.items() if k in names]
        out.append("\n".join(stanza))
print("\n\n".join(out))
PY
}

if [ "$derive_only" -eq 1 ]; then
  rmdir "$dir"
  derive_deb_src
  exit 0
fi

if ! apt-cache showsrc "$package" 2>/dev/null | grep -q "^Package: $package\$"; then
  # No deb-src entries (or an index without them): derive them, update once.
  sources=$(derive_deb_src)
  [ -n "$sources" ] || fail "no enabled deb entries in /etc/apt to derive deb-src entries from"
  echo "debian_source: adding deb-src entries (/etc/apt/sources.list.d/distopo-deb-src.sources) and updating apt's index" >&2
  printf '# deb-src twins of this machine'"'"'s deb entries, written by distopo'"'"'s scripts/setup/debian_source.sh\n%s\n' \
    "$sources" | "${as_root[@]}" tee /etc/apt/sources.list.d/distopo-deb-src.sources >/dev/null ||
    fail "cannot write /etc/apt/sources.list.d/distopo-deb-src.sources (root or sudo needed)"
  "${as_root[@]}" apt-get "${apt_wait[@]}" update -qq >/dev/null || fail "apt-get update failed"
fi

# --download-only: the .dsc, the upstream tarball and Debian's changes,
# checked by apt; no dpkg-source extraction (the callers extract what they need).
(cd "$dir" && apt-get "${apt_wait[@]}" "${apt_user[@]}" source --download-only -qq "$package=$version" >&2) ||
  fail "apt-get source --download-only $package=$version failed"
tarball=$(find_tarball)
[ -n "$tarball" ] || fail "no ${package}_${upstream}.orig.tar.* among the downloaded files"
echo "$tarball"
