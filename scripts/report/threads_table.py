#!/usr/bin/python3
"""Table of bench/neighbor/threads_bench rows (docs/results/threads/): per
library commit and CPU load, the median over rounds of distopo's and MPICH's
time for the threaded part and the median of the per-round ratio (distopo /
MPICH, each round's two runs back to back), with the load average seen.

Usage: threads_table.py docs/results/threads/threads.jsonl
"""
import json
import statistics
import sys
from collections import defaultdict


def main():
    rows = [json.loads(line) for path in sys.argv[1:] for line in open(path) if line.startswith("{")]
    runs = defaultdict(lambda: defaultdict(dict))  # (commit, load) -> round -> impl -> row
    for row in rows:
        runs[(row["commit"], row["cpu_load"])][row["round"]][row["impl"]] = row
    print("| library commit | busy processes | rounds | distopo (median s) | MPICH (median s) | "
          "distopo / MPICH (median of rounds) | load average (1 min) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for (commit, load), rounds in runs.items():
        pairs = [r for r in rounds.values() if "distopo" in r and "mpich" in r]
        ours = [r["distopo"]["seconds"] for r in pairs]
        theirs = [r["mpich"]["seconds"] for r in pairs]
        ratios = [a / b for a, b in zip(ours, theirs)]
        loads = [float(r[i]["loadavg"].split()[0]) for r in pairs for i in r]
        print(f"| {commit[:12]} | {load} | {len(pairs)} | {statistics.median(ours):.2f} | "
              f"{statistics.median(theirs):.2f} | {statistics.median(ratios):.2f}x | "
              f"{min(loads):.1f}-{max(loads):.1f} |")


if __name__ == "__main__":
    main()
