"""The study's rows as a markdown table: per (P, edges per rank, family),
distopo's time over MPICH's in the same run for each label (before, after),
the times of the last label, and the heap the busiest rank added.

    python3 docs/results/distinct/table.py docs/results/distinct/heavy.jsonl [--busy 0|1]
"""
import argparse
import json
from collections import defaultdict


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rows", nargs="+")
    parser.add_argument("--busy", type=int, default=None, help="only rows with this many busy processes beside")
    args = parser.parse_args()
    runs = defaultdict(dict)  # (P, edges, family, weights, label) -> impl -> row
    labels = []
    for name in args.rows:
        for line in open(name):
            if not line.startswith("{"):
                continue
            row = json.loads(line)
            if args.busy is not None and row.get("busy", 0) != args.busy:
                continue
            weights = row.get("weights", "repeated") if row.get("weighted", True) else "unweighted"
            key = (row["P"], row["edges_per_rank"], row["family"], weights, row["label"])
            runs[key][row["impl"]] = row
            if row["label"] not in labels:
                labels.append(row["label"])
    cases = sorted({key[:4] for key in runs})
    last = labels[-1]
    print("| P | edges/rank | family | weights | " + " | ".join(f"{label} distopo/MPICH" for label in labels) +
          f" | {last} ms distopo (MPICH) | {last} heap MiB distopo / MPICH |")
    print("|---:|---:|---|---|" + "---:|" * len(labels) + "---|---|")
    for case in cases:
        cells = []
        for label in labels:
            pair = runs.get(case + (label,), {})
            if "distopo" in pair and "mpich" in pair:
                cells.append("%.2f" % (pair["distopo"]["time_s"] / pair["mpich"]["time_s"]))
            else:
                cells.append("")
        pair = runs.get(case + (last,), {})
        if "distopo" in pair and "mpich" in pair:
            ours, theirs = pair["distopo"], pair["mpich"]
            times = "%.3f (%.3f)" % (ours["time_s"] * 1e3, theirs["time_s"] * 1e3)
            heap = "%.2f / %.2f" % (ours["bytes_per_rank"] / 2**20, theirs["bytes_per_rank"] / 2**20)
        else:
            times = heap = ""
        p, edges, family, weights = case
        print(f"| {p} | {edges} | {family} | {weights} | " + " | ".join(cells) + f" | {times} | {heap} |")


if __name__ == "__main__":
    main()
