#!/usr/bin/python3
"""Markdown table of bench/distgraph_reorder results (JSON lines): per mode,
path (gathered below the gather limit, distributed above it, with the gather
limit of mapping-only distributed runs and the effort unless balanced),
family, P and
ranks per node, the crossing weight of the identity, of distopo's mapping,
of the best block mapping (stencils) and of whole-graph METIS (the lower of
k-way and recursive bisection among those that fill no node beyond its
processes, else the lower of both; from any file's rows of the same graph),
distopo's ratio to each, and what the
mapping cost (cpu_s where the row has it: the largest CPU time of one rank;
else time_s).

Usage: reorder_table.py RESULTS.jsonl...
"""
import json
import sys
from collections import defaultdict


def cell(value, fmt="{}"):
    return fmt.format(value) if value is not None else ""


def main(paths):
    groups = defaultdict(dict)
    references = defaultdict(dict)  # (family, P, ranks per node) -> block and METIS rows: they depend on the graph only
    for path in paths:
        with open(path) as stream:
            for line in stream:
                if line.startswith("{"):
                    row = json.loads(line)
                    path_name = row.get("path", "gathered")
                    if "gather_limit" in row:  # mapping only, distributed: what rank 0 may hold
                        path_name += f", limit {row['gather_limit']}"
                    if row.get("effort", "balanced") != "balanced":
                        path_name += f", {row['effort']}"
                    key = (row["mode"], path_name, row["family"], row["P"], row["ranks_per_node"])
                    groups[key][row["impl"]] = row
                    if row["impl"] in ("block", "metis_kway", "metis_rb"):
                        references[(row["family"], row["P"], row["ranks_per_node"])][row["impl"]] = row
    print("| mode | path | family | P | ranks/node | identity | distopo | block | METIS "
          "| distopo/block | distopo/METIS | mapping time |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (mode, path, family, size, k), impls in sorted(groups.items()):
        impls = {**references[(family, size, k)], **impls}
        distopo = impls["distopo"]
        cut = distopo["cut_weight"]
        block = impls.get("block", {}).get("cut_weight")
        # METIS' own balance may overfill a node: a partition that fits is the fair reference.
        runs = [impls[m] for m in ("metis_kway", "metis_rb") if m in impls]
        fitting = [r["cut_weight"] for r in runs if r.get("largest_node", 0) <= k]
        metis = min(fitting) if fitting else (min(r["cut_weight"] for r in runs) if runs else None)
        seconds = distopo.get("cpu_s", distopo["time_s"])
        print(f"| {mode} | {path} | {family} | {size} | {k} | {impls['identity']['cut_weight']} | {cut} "
              f"| {cell(block)} | {cell(metis)} | {cell(cut / block if block else None, '{:.3f}')} "
              f"| {cell(cut / metis if metis else None, '{:.3f}')} | {seconds * 1e3:.0f} ms |")


if __name__ == "__main__":
    main(sys.argv[1:])
