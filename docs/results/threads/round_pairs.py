#!/usr/bin/env python3
"""Pairs each distopo row with the MPICH row of the same round and prints,
per library commit, the median of the round ratios and each phase's median
excess in thread-seconds (distopo - MPICH).

Usage: python3 docs/results/threads/round_pairs.py ROWS.jsonl [--busy N]
"""
import argparse
import collections
import json
import statistics


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rows")
    parser.add_argument("--busy", type=int, default=None, help="only rows with this cpu_load")
    args = parser.parse_args()
    rounds = collections.defaultdict(dict)
    for line in open(args.rows):
        row = json.loads(line)
        if args.busy is not None and row["cpu_load"] != args.busy:
            continue
        key = "mpich" if row["impl"] == "mpich" else row["commit"]
        rounds[(row["cpu_load"], row["round"])][key] = row
    for load in sorted({load for load, _ in rounds}):
        pairs = [r for (l, _), r in rounds.items() if l == load and "mpich" in r]
        libraries = sorted({k for r in pairs for k in r if k != "mpich"})
        mpich = statistics.median(r["mpich"]["seconds"] for r in pairs)
        print(f"busy processes {load}: MPICH median {mpich:.3f} s")
        for library in libraries:
            runs = [r for r in pairs if library in r]
            ratios = sorted(r[library]["seconds"] / r["mpich"]["seconds"] for r in runs)
            median = statistics.median(r[library]["seconds"] for r in runs)
            print(f"  {library}: {len(runs)} rounds, median {median:.3f} s, median of round ratios "
                  f"{statistics.median(ratios):.2f}x, rounds {ratios[0]:.2f}-{ratios[-1]:.2f}")
            excess = collections.defaultdict(list)
            for r in runs:
                for phase, seconds in r[library]["phase_seconds"].items():
                    excess[phase].append(seconds - r["mpich"]["phase_seconds"][phase])
            for phase, values in sorted(excess.items()):
                print(f"    {phase:18s} {statistics.median(values):7.2f}")


if __name__ == "__main__":
    main()
