#!/usr/bin/python3
"""Plots scaling results (JSON lines) as PNG: time and heap per rank versus P,
log-log, one line per implementation and family, with O(log P) and O(P)
reference slopes.

Reads the rows of bench/distgraph_scaling (real runs: "max_time_s",
"peak_bytes_per_rank") and of bench/smpi/edge_exchange_sim (simulated:
"time_s", "bytes_per_rank"), and model rows ("model": true) drawn dotted.

Usage: plot_scaling.py RESULTS.jsonl... -o OUT.png [--where key=value ...] [--title TEXT]
"""
import argparse
import json
import math
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"distopo": "tab:blue", "mpich": "tab:red", "mpich_alg": "tab:red", "pairwise": "tab:orange"}
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def load(paths, where):
    rows = []
    for path in paths:
        with open(path) as stream:
            for line in stream:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                row = json.loads(line)
                if all(str(row.get(key)) == value for key, value in where):
                    rows.append(row)
    return rows


def implementation(row):
    name = row["impl"]
    if row.get("reduce_scatter"):
        name += " (" + row["reduce_scatter"].replace("_", " ") + ")"
    if row.get("model"):
        name += ", model"
    return name


def series(rows, field_names):
    """{(implementation, family): sorted [(P, value)]} for the first field present."""
    out = defaultdict(dict)
    for row in rows:
        value = next((row[f] for f in field_names if row.get(f) is not None), None)
        if value is None or value <= 0:
            continue
        out[(implementation(row), row["family"])][row["P"]] = value
    return {key: sorted(points.items()) for key, points in out.items()}


def reference_slopes(axis, all_points):
    """Grey O(P) and O(log P) lines over the plotted range of P, starting at
    the highest and the lowest value at the smallest P, so they run beside the
    steepest and the flattest series."""
    if not all_points:
        return
    p_min = min(p for p, _ in all_points)
    p_max = max(p for p, _ in all_points)
    if p_max <= p_min:
        return
    first = [v for p, v in all_points if p == p_min]
    xs = [p_min * (p_max / p_min) ** (i / 50) for i in range(51)]
    axis.plot(xs, [max(first) * x / p_min for x in xs], color="0.55", linestyle="--", linewidth=1,
              label="reference: ∝ P")
    axis.plot(xs, [min(first) * math.log2(max(x, 2)) / math.log2(max(p_min, 2)) for x in xs], color="0.55",
              linestyle=":", linewidth=1.5, label="reference: ∝ log P")


def panel(axis, data, ylabel, scale):
    families = sorted({family for _, family in data})
    marker_of = {family: MARKERS[i % len(MARKERS)] for i, family in enumerate(families)}
    points = []
    for (impl, family), values in sorted(data.items()):
        base = impl.split(" ")[0].rstrip(",")
        xs = [p for p, _ in values]
        ys = [v * scale for _, v in values]
        points += list(zip(xs, ys))
        color = COLORS["pairwise"] if "pairwise" in impl else COLORS.get(base, "tab:green")
        axis.plot(xs, ys, marker=marker_of[family], color=color,
                  linestyle=":" if "model" in impl else ("-" if base == "distopo" else "-."),
                  alpha=0.9, label=f"{impl}, {family}")
    reference_slopes(axis, points)
    axis.set_xscale("log", base=2)
    axis.set_yscale("log")
    axis.set_xlabel("P (ranks)")
    axis.set_ylabel(ylabel)
    axis.grid(True, which="both", alpha=0.3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--where", action="append", default=[], help="key=value: keep only matching rows")
    parser.add_argument("--title", default="dist_graph_create: time and heap per rank")
    args = parser.parse_args()
    where = [tuple(item.split("=", 1)) for item in args.where]
    rows = load(args.results, where)
    if not rows:
        sys.exit("plot_scaling.py: no rows match")
    times = series(rows, ["time_s", "max_time_s"])
    heaps = series([r for r in rows if not r.get("model")], ["bytes_per_rank", "peak_bytes_per_rank"])
    # Rows without a heap figure (simulations charged with computation run
    # without the heap meter) get the time panel alone.
    has_heap = any(points for points in heaps.values())
    figure, axes = plt.subplots(1, 2 if has_heap else 1, figsize=(14 if has_heap else 8, 7), squeeze=False)
    axes = list(axes[0])
    panel(axes[0], times, "time of the call, max over ranks (µs)", 1e6)
    axes[0].set_title("time")
    if has_heap:
        panel(axes[1], heaps, "heap added per rank, worst rank (KiB)", 1 / 1024)
        axes[1].set_title("memory")
    figure.suptitle(args.title)
    # One legend for all panels, below them.
    labels = {}
    for axis in axes:
        for handle, label in zip(*axis.get_legend_handles_labels()):
            labels.setdefault(label, handle)
    figure.legend(labels.values(), labels.keys(), loc="lower center", ncol=3, fontsize=8, frameon=False)
    figure.tight_layout(rect=(0, 0.16, 1, 1))
    figure.savefig(args.output, dpi=110)
    print(f"plot_scaling.py: wrote {args.output}")


if __name__ == "__main__":
    main()
