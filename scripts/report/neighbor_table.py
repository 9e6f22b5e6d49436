#!/usr/bin/env python3
"""Markdown tables of neighbor_bench rows, or of the simulated rows of
bench/smpi/neighbor_sim (JSON lines): per cell (topology, P, ranks per node,
form, operation, block size) each implementation's time and its ratio to a
baseline measured in the same run (default: MPICH). A simulated row's
topology is its pattern and machine model ("stencil27/overheads").

    python3 scripts/report/neighbor_table.py docs/results/neighbor/one_node.jsonl
    python3 scripts/report/neighbor_table.py docs/results/neighbor/algorithms.jsonl --baseline direct
    python3 scripts/report/neighbor_table.py docs/results/neighbor/one_node_quiet.jsonl --busy 0 --summary
    python3 scripts/report/neighbor_table.py docs/results/neighbor/smpi.jsonl
    python3 scripts/report/neighbor_table.py docs/results/neighbor/smpi_middle_relay.jsonl   # rows with "relay"
    python3 scripts/report/neighbor_table.py docs/results/neighbor/smpi_middle_relay.jsonl \
        docs/results/neighbor/smpi_joined.jsonl                                                 # several files
    python3 scripts/report/neighbor_table.py docs/results/neighbor/smpi_headers.jsonl \
        docs/results/neighbor/smpi_lengths.jsonl                         # rows with "header_bits", "run_lengths"
    python3 scripts/report/neighbor_table.py docs/results/neighbor/smpi_reorder.jsonl  # rows with "reorder"

Several files make one table (a later row of a cell and implementation
replaces an earlier one).
"""
import argparse
import json
import math
from collections import OrderedDict


def name(row):
    if row["impl"] != "distopo":
        return "mpich"
    algorithm = row.get("algorithm", row["impl"])
    name = f"{algorithm}/{row['relay']}" if "relay" in row else algorithm
    name += f"/{row['header_bits']}-bit headers" if "header_bits" in row else ""
    # Persistent runs whose relays learned the groups' lengths at init: for
    # every message (e3e6a65), or for those between hosts only (2d677b1).
    lengths = {"init": "/lengths at init", "init_between_hosts": "/lengths at init between hosts"}
    name += lengths.get(row.get("run_lengths"), "")
    # Communicators made with reorder = true (the node-aware mapping).
    return name + ("/reordered" if row.get("reorder") else "")


def topology(row):
    if "pattern" in row:
        return f"{row['pattern']}/{row['model']}"
    return row["topology"]


def time_of(row):
    return row["median_time_s"] if "median_time_s" in row else row["time_s"]


def describe(values):
    geo = math.exp(sum(math.log(v) for v in values) / len(values))
    return (f"{len(values)} | {geo:.2f} | {min(values):.2f} | {max(values):.2f} | "
            f"{sum(v > 1.05 for v in values)}")


def summary(cells, others, baseline):
    """Per (P, form) and implementation: cells, geometric mean, min, max of
    the ratio, and the cells above 1.05."""
    print(f"| P | form | implementation | cells | geometric mean /{baseline} | min | max | cells above 1.05 |")
    print("|---:|---|---|---:|---:|---:|---:|---:|")
    groups = OrderedDict()
    for (topology, p, per_node, form, op, size), times in cells.items():
        for i in others:
            if i in times and baseline in times:
                groups.setdefault((p, form, i), []).append(times[i] / times[baseline])
    for (p, form, i), values in sorted(groups.items()):
        print(f"| {p} | {form} | {i} | {describe(values)} |")
    for i in others:
        values = [v for (p, form, j), vs in groups.items() if j == i for v in vs]
        if values:
            print(f"| all | all | {i} | {describe(values)} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="+", help="JSON-lines files of neighbor_bench or neighbor_sim")
    parser.add_argument("--baseline", default="mpich", help="implementation the ratios divide by (mpich, direct, ...)")
    parser.add_argument("--busy", type=int, help="only rows measured beside this many busy processes")
    parser.add_argument("--summary", action="store_true", help="one line per (P, form) instead of one per cell")
    args = parser.parse_args()
    cells = OrderedDict()
    impls = []
    for path in args.rows:
        with open(path) as f:
            for line in f:
                if not line.startswith("{"):
                    continue
                r = json.loads(line)
                if args.busy is not None and r.get("busy_processes") != args.busy:
                    continue
                key = (topology(r), r["P"], r.get("ranks_per_node", "-"), r.get("form", "blocking"), r["op"],
                       r["bytes"])
                impl = name(r)
                if impl not in impls:
                    impls.append(impl)
                cells.setdefault(key, {})[impl] = time_of(r)
    others = [i for i in impls if i != args.baseline]
    if args.summary:
        summary(cells, others, args.baseline)
        return
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
