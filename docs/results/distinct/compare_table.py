"""The rows of compare_builds.sh as a table: per (P, edges per rank,
family) the median time of each build over the runs and their ratio
(after / before), with the range of the single runs.

    python3 docs/results/distinct/compare_table.py ROWS.jsonl
"""
import json
import statistics
import sys


def main():
    times = {}
    for line in open(sys.argv[1]):
        row = json.loads(line)
        key = (row["P"], row["edges_per_rank"], row["family"])
        times.setdefault(key, {}).setdefault(row["label"], []).append(row["time_s"] * 1e3)
    print("| P | edges/rank | family | before ms (range) | after ms (range) | after / before |")
    print("|---:|---:|---|---|---|---:|")
    for key in sorted(times):
        before, after = times[key].get("before"), times[key].get("after")
        if not before or not after:
            continue
        cells = [f"{statistics.median(t):.2f} ({min(t):.2f}-{max(t):.2f})" for t in (before, after)]
        ratio = statistics.median(after) / statistics.median(before)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {cells[0]} | {cells[1]} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
