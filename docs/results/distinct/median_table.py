"""distopo's time over MPICH's per row, for each run (label) in the files,
and the median over the runs; the heap ratio's median beside it.

    python3 docs/results/distinct/median_table.py docs/results/distinct/huge_heavy.jsonl
"""
import argparse
import json
import statistics
from collections import defaultdict


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rows", nargs="+")
    args = parser.parse_args()
    runs = defaultdict(dict)  # (P, edges, family, label) -> impl -> row
    for name in args.rows:
        for line in open(name):
            if line.startswith("{"):
                row = json.loads(line)
                runs[(row["P"], row["edges_per_rank"], row["family"], row["label"])][row["impl"]] = row
    times = defaultdict(list)
    heaps = defaultdict(list)
    for (p, edges, family, _), impls in runs.items():
        if "distopo" in impls and "mpich" in impls:
            times[(p, edges, family)].append(impls["distopo"]["time_s"] / impls["mpich"]["time_s"])
            heaps[(p, edges, family)].append(
                impls["distopo"]["peak_bytes_per_rank"] / impls["mpich"]["peak_bytes_per_rank"])
    print("| P | edges/rank | family | distopo/MPICH per run | median | heap distopo/MPICH (median) |")
    print("|---:|---:|---|---|---:|---:|")
    above = 0
    for key in sorted(times):
        median = statistics.median(times[key])
        above += median > 1.0
        print(f"| {key[0]} | {key[1]} | {key[2]} | {' '.join(f'{r:.2f}' for r in times[key])} | {median:.2f} |"
              f" {statistics.median(heaps[key]):.2f} |")
    print(f"\nrows whose median is above 1.0: {above} of {len(times)}")


if __name__ == "__main__":
    main()
