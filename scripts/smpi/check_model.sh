#!/usr/bin/env bash
# Checks the simulation against what can be worked out by hand: the ring at
# P = 2, 4, 8, 16 lies under one leaf switch, so every message crosses two
# 0.5 us links (L = 1 us) and carries a few bytes (0.002 us at 12.5 GB/s).
#   distopo:           data, acknowledgement, log2 P agreement rounds: (2 + log2 P) L
#   MPICH's algorithm: log2 P recursive-halving rounds, then the data: (1 + log2 P) L
# on top of which each message on the critical path costs 0.1 us of CPU to
# send, 0.1 us to receive and up to one 0.1 us poll. Exit 1 unless every
# time holds at least its latencies and distopo's exceeds MPICH's algorithm's
# by one latency (within 0.2 us) at every P.
# Usage: bash scripts/smpi/check_model.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
bash "$root/scripts/smpi/simulate.sh" --family ring --out "$scratch/rows.jsonl" --log-dir "$scratch" 2 4 8 16 >/dev/null
/usr/bin/python3 - "$scratch/rows.jsonl" <<'PY'
import json, math, sys
latency = 1.0e-6
rows = [json.loads(line) for line in open(sys.argv[1])]
times = {(r["P"], r["impl"]): r["time_s"] for r in rows}
ok = True
print("| P | latencies distopo / MPICH alg. | simulated distopo | simulated MPICH alg. | difference |")
print("|---:|---|---:|---:|---:|")
for p in sorted({r["P"] for r in rows}):
    ours, theirs = times[(p, "distopo")], times[(p, "mpich_alg")]
    rounds = int(math.log2(p))
    good = ours >= (2 + rounds) * latency and theirs >= (1 + rounds) * latency and abs(ours - theirs - latency) <= 0.2e-6
    ok &= good
    print(f"| {p} | {2 + rounds} / {1 + rounds} | {ours * 1e6:.3f} µs | {theirs * 1e6:.3f} µs | "
          f"{(ours - theirs) * 1e6:.3f} µs{'' if good else ' **unexpected**'} |")
sys.exit(0 if ok else 1)
PY
