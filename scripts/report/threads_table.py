#!/usr/bin/python3
"""Table of bench/neighbor/threads_bench rows (docs/results/threads/): per
library commit, CPU load, ranks x threads and steps, the median over rounds of distopo's and MPICH's
time for the threaded part and the median of the per-round ratio (distopo /
MPICH, each round's two runs back to back), with the load average seen.
With --phases: for rows that carry phase_seconds (threads_phases.jsonl), the
median over rounds of each phase's time, summed over threads and ranks.

Usage: threads_table.py [--phases] docs/results/threads/threads.jsonl
"""
import json
import statistics
import sys
from collections import defaultdict


def phases_table(rows):
    groups = defaultdict(list)
    for row in rows:
        if "phase_seconds" in row:
            groups[(row["commit"], row["cpu_load"])].append(row)
    for (commit, load), group in groups.items():
        print(f"\n{commit[:24]}, {load} busy processes ({len(group) // 2} rounds): thread-seconds per phase, median\n")
        print("| phase | distopo | MPICH | distopo / MPICH |")
        print("|---|---:|---:|---:|")
        for phase in group[0]["phase_seconds"]:
            ours = statistics.median(r["phase_seconds"][phase] for r in group if r["impl"] == "distopo")
            theirs = statistics.median(r["phase_seconds"][phase] for r in group if r["impl"] == "mpich")
            print(f"| {phase} | {ours:.3f} | {theirs:.3f} | {ours / theirs:.2f}x |")


def main():
    arguments = [a for a in sys.argv[1:] if a != "--phases"]
    rows = [json.loads(line) for path in arguments for line in open(path) if line.startswith("{")]
    if "--phases" in sys.argv[1:]:
        phases_table(rows)
        return
    # (commit, load, ranks x threads, steps, quiet) -> round -> impl -> row
    runs = defaultdict(lambda: defaultdict(dict))
    for row in rows:
        shape = f'{row["np"]}x{row["threads"]}'
        key = (row["commit"], row["cpu_load"], shape, row["steps"], "machine" in row)
        runs[key][row["round"]][row["impl"]] = row
    print("| library commit | busy processes | ranks x threads | steps | rounds | distopo (median s) | "
          "MPICH (median s) | distopo / MPICH (median of rounds) | load average (1 min) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---|")
    for (commit, load, shape, steps, quiet), rounds in runs.items():
        pairs = [r for r in rounds.values() if "distopo" in r and "mpich" in r]
        ours = [r["distopo"]["seconds"] for r in pairs]
        theirs = [r["mpich"]["seconds"] for r in pairs]
        ratios = [a / b for a, b in zip(ours, theirs)]
        loads = [float(r[i]["loadavg"].split()[0]) for r in pairs for i in r]
        load_seen = "quiet (others stopped)" if quiet else f"{min(loads):.1f}-{max(loads):.1f}"
        print(f"| {commit[:12]} | {load} | {shape} | {steps} | {len(pairs)} | {statistics.median(ours):.3f} | "
              f"{statistics.median(theirs):.3f} | {statistics.median(ratios):.2f}x | {load_seen} |")


if __name__ == "__main__":
    main()
