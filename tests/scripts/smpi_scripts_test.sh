#!/usr/bin/env bash
# scripts/smpi as a newcomer meets them, without SimGrid: --skip-done finds
# rows however they are spaced (parsed, not grepped); --out defaults to the
# build tree, not to the committed docs/; --stock-simgrid is in the help;
# distopo's progress line names no reduce_scatter algorithm (MPICH's only).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
smpi="$root/scripts/smpi"
failures=0
fail() {
  echo "smpi_scripts_test: $*" >&2
  failures=$((failures + 1))
}

source "$smpi/smpi_common.sh"
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
cat >"$rows" <<'ROWS'
{"P": 256, "compute": "network_only", "family": "powerlaw", "impl": "distopo", "time_s": 1e-05}
{"P":1024,"compute":"network_only","family":"ring","impl":"mpich_alg","reduce_scatter":"recursive_halving"}
{"P": 4096, "effort": "balanced", "family": "stencil2d", "impl": "distopo", "iprobe_s": 1e-07, "path": "gathered", "ranks_per_node": 64}
not json
ROWS
smpi_row_done "$rows" P=256 impl=distopo family=powerlaw compute=network_only || fail "spaced row not found"
smpi_row_done "$rows" P=1024 impl=mpich_alg family=ring compute=network_only reduce_scatter=recursive_halving ||
  fail "compact row not found"
smpi_row_done "$rows" impl=distopo P=4096 family=stencil2d path=gathered effort=balanced iprobe_s=1e-7 ranks_per_node=64 ||
  fail "reorder row (iprobe_s written as 1e-07) not found"
! smpi_row_done "$rows" P=25 impl=distopo family=powerlaw compute=network_only || fail "P=25 matched P=256"
! smpi_row_done "$rows" P=1024 impl=mpich_alg family=ring compute=network_only reduce_scatter=pairwise ||
  fail "a row with another reduce_scatter matched"
! smpi_row_done "$rows.missing" P=256 || fail "a missing file matched"

for script in simulate.sh simulate_reorder.sh; do
  help=$(bash "$smpi/$script" --help)
  grep -q -- '--stock-simgrid' <<<"$help" || fail "$script --help does not mention --stock-simgrid"
  grep -q 'no 4-12 minute SimGrid build' <<<"$help" || fail "$script --help does not say what --stock-simgrid saves"
  grep -A1 -- '--out FILE' <<<"$help" | grep -q 'default BUILD-DIR/results/' || fail "$script: --out does not default to the build tree"
  if grep -nE '^[^#]*out="\$root/docs' "$smpi/$script"; then fail "$script writes docs/ by default"; fi
  grep -q 'stock-simgrid' "$root/docs/guide/simulation.md" || fail "docs/guide/simulation.md does not mention --stock-simgrid"
done
# The progress label is built without the algorithm, which is added for MPICH's rows only.
if grep -nE 'label="[^"]*reduce_scatter=' "$smpi/simulate.sh"; then fail "simulate.sh labels every row with reduce_scatter"; fi

[ "$failures" -eq 0 ] && echo "smpi_scripts_test: passed"
exit $((failures != 0))
