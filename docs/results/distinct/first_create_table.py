"""first_create.sh's rows as a markdown table: per (P, edges per rank,
family, label), the median over the runs of distopo's time and of MPICH's
(each the slowest rank's, one create per process) with their range, the
ratio of the medians, and the median heap the busiest rank added.

    python3 docs/results/distinct/first_create_table.py docs/results/distinct/first_create.jsonl
"""
import argparse
import json
import statistics
from collections import defaultdict


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rows", nargs="+")
    args = parser.parse_args()
    times = defaultdict(lambda: defaultdict(list))  # case -> impl -> seconds
    heaps = defaultdict(lambda: defaultdict(list))
    for name in args.rows:
        for line in open(name):
            if not line.startswith("{"):
                continue
            row = json.loads(line)
            case = (row["P"], row["edges_per_rank"], row["family"], row["label"])
            times[case][row["impl"]].append(row["time_s"])
            heaps[case][row["impl"]].append(row["peak_bytes_per_rank"])
    print("| P | edges/rank | family | label | runs | distopo ms (range) | MPICH ms (range) | distopo/MPICH |"
          " heap MiB distopo / MPICH |")
    print("|---:|---:|---|---|---:|---|---|---:|---|")
    for case in sorted(times):
        t = times[case]
        if "distopo" not in t or "mpich" not in t:
            continue
        ours, theirs = statistics.median(t["distopo"]), statistics.median(t["mpich"])
        heap = [statistics.median(heaps[case][impl]) / 2**20 for impl in ("distopo", "mpich")]
        runs = min(len(t["distopo"]), len(t["mpich"]))
        spread = {impl: f"{min(t[impl]) * 1e3:.2f}-{max(t[impl]) * 1e3:.2f}" for impl in ("distopo", "mpich")}
        print(f"| {case[0]} | {case[1]} | {case[2]} | {case[3]} | {runs} | {ours * 1e3:.2f} ({spread['distopo']}) | "
              f"{theirs * 1e3:.2f} ({spread['mpich']}) | {ours / theirs:.2f} | {heap[0]:.2f} / {heap[1]:.2f} |")


if __name__ == "__main__":
    main()
