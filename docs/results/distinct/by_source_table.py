"""The table of by_source.sh's rows: per allocator state, P, edges per rank
and family, the median over runs of distopo's and MPICH's time with one
round (by_source=false) and by source (true), and distopo's time by source
over its time in one round.

    python3 docs/results/distinct/by_source_table.py docs/results/distinct/by_source.jsonl
"""
import json
import statistics
import sys
from collections import defaultdict


def main():
    times = defaultdict(list)
    for line in open(sys.argv[1]):
        row = json.loads(line)
        state, by_source = row["label"].split(" by_source=")
        key = (state, row["P"], row["edges_per_rank"], row["family"])
        times[key + (by_source, row["impl"])].append(row["max_time_s"] * 1e3)
    print("| allocator | P | edges per rank | family | one round: distopo / MPICH (ms) | ratio "
          "| by source: distopo / MPICH (ms) | ratio | distopo by source / one round |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    keys = sorted({k[:4] for k in times}, key=lambda k: (["default", "warm", "fresh"].index(k[0]), k[1], k[2], k[3]))
    for key in keys:
        cells = []
        distopo = []
        for by_source in ("false", "true"):
            d = statistics.median(times[key + (by_source, "distopo")])
            m = statistics.median(times[key + (by_source, "mpich")])
            distopo.append(d)
            cells += [f"{d:.2f} / {m:.2f}", f"{d / m:.2f}"]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | " + " | ".join(cells) +
              f" | {distopo[1] / distopo[0]:.2f} |")


if __name__ == "__main__":
    main()
