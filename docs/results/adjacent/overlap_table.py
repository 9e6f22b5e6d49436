#!/usr/bin/python3
"""Table of overlap_compare.jsonl: per (P, family) distopo's create_adjacent
time in each run before and after, MPICH's in the same runs, and the median
over runs of distopo / MPICH for each label.

Usage: overlap_table.py docs/results/adjacent/overlap_compare.jsonl
"""
import json
import statistics
import sys
from collections import defaultdict


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
    times = defaultdict(dict)  # (P, family, label, impl) -> run -> us
    for r in rows:
        times[(r["P"], r["family"], r["label"], r["impl"])][r["run"]] = r["max_time_s"] * 1e6
    print("| P | family | distopo before (us, runs) | distopo after (us, runs) | MPICH (us, all runs) "
          "| distopo / MPICH before | after |")
    print("|---:|---|---|---|---|---:|---:|")
    shapes = sorted({(p, f) for (p, f, _, _) in times})
    for p, family in shapes:
        cells = []
        ratios = []
        for label in ("before", "after"):
            ours = times[(p, family, label, "distopo")]
            theirs = times[(p, family, label, "mpich")]
            cells.append(", ".join(f"{ours[run]:.0f}" for run in sorted(ours)))
            ratios.append(statistics.median(ours[run] / theirs[run] for run in ours))
        mpich = [t for label in ("before", "after") for t in times[(p, family, label, "mpich")].values()]
        print(f"| {p} | {family} | {cells[0]} | {cells[1]} | {min(mpich):.0f}-{max(mpich):.0f} "
              f"| {ratios[0]:.2f} | {ratios[1]:.2f} |")


if __name__ == "__main__":
    main()
