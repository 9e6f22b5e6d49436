#!/usr/bin/env python3
"""Markdown tables of neighbor_bench rows (JSON lines): per cell (topology, P,
ranks per node, form, operation, block size) each implementation's time and
its ratio to a baseline measured in the same run (default: MPICH).

    python3 scripts/report/neighbor_table.py docs/results/neighbor/one_node.jsonl
    python3 scripts/report/neighbor_table.py docs/results/neighbor/algorithms.jsonl --baseline direct
"""
import argparse
import json
import math
from collections import OrderedDict


def name(row):
    return row.get("algorithm", row["impl"]) if row["impl"] == "distopo" else "mpich"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", help="JSON-lines file of neighbor_bench")
    parser.add_argument("--baseline", default="mpich", help="implementation the ratios divide by (mpich, direct, ...)")
    args = parser.parse_args()
    cells = OrderedDict()
    impls = []
    with open(args.rows) as f:
        for line in f:
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            key = (r["topology"], r["P"], r.get("ranks_per_node", "-"), r.get("form", "blocking"), r["op"], r["bytes"])
            impl = name(r)
            if impl not in impls:
                impls.append(impl)
            cells.setdefault(key, {})[impl] = r["median_time_s"]
    others = [i for i in impls if i != args.baseline]
    head = ["topology", "P", "ranks/node", "form", "op", "bytes"] + [f"{i} us" for i in impls]
    head += [f"{i}/{args.baseline}" for i in others]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    ratios = {i: [] for i in others}
    for key, times in cells.items():
        if args.baseline not in times:
            continue
        row = [str(k) for k in key] + [f"{times[i] * 1e6:.1f}" if i in times else "" for i in impls]
        for i in others:
            if i in times:
                ratio = times[i] / times[args.baseline]
                ratios[i].append(ratio)
                row.append(f"{ratio:.2f}")
            else:
                row.append("")
        print("| " + " | ".join(row) + " |")
    print()
    for i, values in ratios.items():
        if values:
            geo = math.exp(sum(math.log(v) for v in values) / len(values))
            print(f"{i}/{args.baseline}: {len(values)} cells, geometric mean {geo:.2f}, "
                  f"min {min(values):.2f}, max {max(values):.2f}, "
                  f"cells above 1.05: {sum(v > 1.05 for v in values)}")


if __name__ == "__main__":
    main()
