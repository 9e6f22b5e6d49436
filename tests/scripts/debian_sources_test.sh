#!/usr/bin/env bash
# The scripts that need Debian source packages (MPICH's test suite, SimGrid,
# Kokkos with OpenMP) get them through apt's own mechanism, via
# scripts/setup/debian_source.sh, never from a hard-coded archive address;
# and the deb-src entries it derives from a machine's apt sources are right
# for both formats (deb822 stanzas and one-line entries), skipping disabled
# and source-only entries. Local: no network, no root.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
failures=0
fail() {
  echo "debian_sources_test: $*" >&2
  failures=$((failures + 1))
}

for script in scripts/test/mpich_test_suite.sh scripts/smpi/build_simgrid.sh scripts/setup/kokkos_openmp.sh; do
  path="$root/$script"
  [ -f "$path" ] || { fail "$script not found"; continue; }
  if grep -nE 'curl|wget|deb\.debian\.org|/pool/main' "$path"; then fail "$script fetches sources itself"; fi
  grep -q 'debian_source.sh' "$path" || fail "$script does not use scripts/setup/debian_source.sh"
done

etc=$(mktemp -d)
trap 'rm -rf "$etc"' EXIT
mkdir -p "$etc/sources.list.d"
cat >"$etc/sources.list.d/debian.sources" <<'SOURCES'
Types: deb
# a comment inside the stanza
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb deb-src
URIs: http://both.example/debian
Suites: bookworm
Components: main

Types: deb
URIs: http://off.example/debian
Suites: bookworm
Components: main
Enabled: no
SOURCES
cat >"$etc/sources.list" <<'LIST'
# deb http://commented.example/debian bookworm main
deb [arch=amd64 signed-by=/etc/keys/k.gpg] http://proxy.example:3142/debian-security bookworm-security main
deb-src http://already.example/debian bookworm main
LIST
cat >"$etc/sources.list.d/old.list.disabled-by-someone" <<'LIST'
deb http://disabled.example/debian bookworm main
LIST

derived=$(bash "$root/scripts/setup/debian_source.sh" --derive "$etc")
expected='Types: deb-src
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://proxy.example:3142/debian-security
Suites: bookworm-security
Components: main
Architectures: amd64
Signed-By: /etc/keys/k.gpg'
if [ "$derived" != "$expected" ]; then
  fail "derived deb-src entries differ"
  diff <(echo "$expected") <(echo "$derived") >&2 || true
fi

[ "$failures" -eq 0 ] && echo "debian_sources_test: passed"
exit $((failures != 0))
