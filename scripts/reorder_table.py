#!/usr/bin/python3
"""Markdown table of bench/distgraph_reorder results (JSON lines): per mode,
family, P and ranks per node, the crossing weight of the identity, of
distopo's mapping, of the best block mapping (stencils) and of whole-graph
METIS (the lower of k-way and recursive bisection among those that fill no
node beyond its processes, else the lower of both), distopo's ratio to each, and what the mapping cost.

Usage: reorder_table.py RESULTS.jsonl...
"""
import json
import sys
from collections import defaultdict


def main(paths):
    groups = defaultdict(dict)
    for path in paths:
        with open(path) as stream:
            for line in stream:
                if line.startswith("{"):
                    row = json.loads(line)
                    groups[(row["mode"], row["family"], row["P"], row["ranks_per_node"])][row["impl"]] = row
    print("| mode | family | P | ranks/node | identity | distopo | block | METIS | distopo/block | distopo/METIS | mapping time |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (mode, family, size, k), impls in sorted(groups.items()):
        distopo = impls["distopo"]
        block = impls.get("block", {}).get("cut_weight")
        # METIS' own balance may overfill a node: a partition that fits is the fair reference.
        runs = [impls[m] for m in ("metis_kway", "metis_rb") if m in impls]
        fitting = [r["cut_weight"] for r in runs if r.get("largest_node", 0) <= k]
        metis = min(fitting) if fitting else (min(r["cut_weight"] for r in runs) if runs else None)
        seconds = distopo.get("cpu_s", distopo["time_s"])
        print(f"| {mode} | {family} | {size} | {k} | {impls['identity']['cut_weight']} | {distopo['cut_weight']} | "
              f"{block if block is not None else ''} | {metis if metis is not None else ''} | "
              f"{distopo['cut_weight'] / block:.3f} |" if block else
              f"| {mode} | {family} | {size} | {k} | {impls['identity']['cut_weight']} | {distopo['cut_weight']} | | "
              f"{metis if metis is not None else ''} | |", end="")
        print(f" {distopo['cut_weight'] / metis:.3f} |" if metis else " |", end="")
        print(f" {seconds * 1e3:.0f} ms |")


if __name__ == "__main__":
    main(sys.argv[1:])
