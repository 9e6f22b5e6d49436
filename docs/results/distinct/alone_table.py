"""The rows of alone.sh as a table: per (P, edges per rank, family) the
median over runs of each implementation's time and page faults, and the
ratio distopo / MPICH of the medians; the same ratio of the peak heaps.

    python3 docs/results/distinct/alone_table.py ROWS.jsonl
"""
import json
import statistics
import sys


def main():
    rows = {}
    for line in open(sys.argv[1]):
        row = json.loads(line)
        key = (row["P"], row["edges_per_rank"], row["family"])
        rows.setdefault(key, {}).setdefault(row["impl"], []).append(row)
    print("| P | edges/rank | family | distopo ms | MPICH ms | distopo / MPICH | page faults distopo / MPICH | heap distopo / MPICH |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|")
    above = 0
    for key in sorted(rows):
        impls = rows[key]
        if "distopo" not in impls or "mpich" not in impls:
            continue
        def medians(field):
            return {i: statistics.median(r[field] for r in impls[i]) for i in ("distopo", "mpich")}

        ms = {i: seconds * 1e3 for i, seconds in medians("max_time_s").items()}
        faults = medians("page_faults_max")
        heap = medians("peak_bytes_per_rank")
        ratio = ms["distopo"] / ms["mpich"]
        above += ratio > 1.0
        print(f"| {key[0]} | {key[1]} | {key[2]} | {ms['distopo']:.2f} | {ms['mpich']:.2f} | {ratio:.2f} |"
              f" {faults['distopo']:.0f} / {faults['mpich']:.0f} | {heap['distopo'] / heap['mpich']:.2f} |")
    print(f"\nrows above 1.0: {above} of {len(rows)}")


if __name__ == "__main__":
    main()
