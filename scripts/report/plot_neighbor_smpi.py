#!/usr/bin/python3
"""Plots the simulated neighborhood-collective rows (bench/smpi/neighbor_sim,
JSON lines) as one PNG per pattern: time per call versus mean block size at
the largest P among those with the most rows, and versus P
at two block sizes; one line per implementation (MPICH's algorithm, distopo
with each algorithm and relay rule) and form, one row of panels per model.

Usage: plot_neighbor_smpi.py ROWS.jsonl... --out-dir DIR [--bytes 8,1024]
           [--ranks-per-node 64] [--prefix NAME] [--models overheads] [--relays middle,...]
Writes DIR/<prefix>_<pattern>.png.
"""
import argparse
import json
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MODEL_TITLES = {"overheads": "with per-message overheads", "no_overheads": "per-message overheads at zero"}


def load(paths, ranks_per_node):
    rows = []
    for path in paths:
        for line in open(path, encoding="utf-8"):
            if line.startswith("{"):
                row = json.loads(line)
                # --verify runs (private buffers, contents checked) are checks, not timings.
                if row.get("ranks_per_node") == ranks_per_node and "wrong_bytes" not in row:
                    rows.append(row)
    # Later rows of the same key replace earlier ones.
    latest = {}
    for row in rows:
        key = (row["pattern"], row["model"], row["impl"], row["algorithm"], row.get("relay"), row.get("header_bits"),
               row.get("run_lengths"), row["form"], row["P"], row["bytes"])
        latest[key] = row
    return list(latest.values())


def label(row):
    if row["impl"] == "direct":
        return "MPICH 4.0.2's algorithm"
    relay = f", {row['relay']} relay" if "relay" in row else ""
    headers = f", {row['header_bits']}-bit headers" if "header_bits" in row else ""
    if row.get("run_lengths") == "init":
        headers += ", lengths learned at init"
    elif row.get("run_lengths") == "init_between_hosts":
        headers += ", lengths learned at init between hosts"
    return f"distopo, {row['algorithm']}{relay}{headers}"


def style(row):
    color = "tab:red" if row["impl"] == "direct" else {"direct": "tab:gray", "aggregated": "tab:blue",
                                                       "auto": "tab:green"}.get(row["algorithm"], "tab:purple")
    # The rules the middle receiver replaced or beat, and the joined messages beside it.
    relay_colors = {"hash": "tab:orange", "middle_even_hash": "tab:olive", "middle_joined": "tab:cyan"}
    if row.get("relay") in relay_colors:
        color = relay_colors[row["relay"]]
    if row.get("header_bits") == 32:
        color = "tab:purple"
    if row.get("run_lengths") == "init":
        color = "tab:brown"
    elif row.get("run_lengths") == "init_between_hosts":
        color = "tab:pink"
    # MPICH's algorithm wide and beneath: distopo's direct algorithm often lies on it.
    wide = dict(linewidth=5, alpha=0.4, zorder=1) if row["impl"] == "direct" else dict(zorder=2)
    return dict(color=color, linestyle="-" if row["form"] == "persistent" else "--",
                marker="o" if row["form"] == "persistent" else "s", markersize=4, **wide)


def curves(rows, x_field):
    out = defaultdict(list)
    for row in rows:
        # MPICH's algorithm runs the same calls in both forms: one curve.
        if row["impl"] == "direct" and row["form"] != "persistent":
            continue
        name = label(row) + ("" if row["impl"] == "direct" else f" ({row['form']})")
        out[name].append((row[x_field], row["time_s"], style(row)))
    return {name: sorted(points, key=lambda p: p[0]) for name, points in out.items()}


def panel(ax, rows, x_field, title, xlabel):
    for name, points in sorted(curves(rows, x_field).items()):
        ax.plot([p[0] for p in points], [p[1] * 1e6 for p in points], label=name, **points[0][2])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("simulated time per call (µs)")
    ax.grid(True, which="both", alpha=0.3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="+")
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--bytes", default="8,1024")
    parser.add_argument("--ranks-per-node", type=int, default=64)
    parser.add_argument("--prefix", default="smpi")
    parser.add_argument("--models", help="only these machine models (comma-separated; default: all)")
    parser.add_argument("--relays", help="of rows with a relay rule, only these (comma-separated; default: all)")
    args = parser.parse_args()
    rows = load(args.rows, args.ranks_per_node)
    if args.models:
        rows = [r for r in rows if r["model"] in args.models.split(",")]
    if args.relays:
        rows = [r for r in rows if "relay" not in r or r["relay"] in args.relays.split(",")]
    sizes = [int(b) for b in args.bytes.split(",")]
    for pattern in sorted({r["pattern"] for r in rows}):
        of_pattern = [r for r in rows if r["pattern"] == pattern]
        models = [m for m in MODEL_TITLES if any(r["model"] == m for r in of_pattern)]
        fig, axes = plt.subplots(len(models), 1 + len(sizes), figsize=(5.2 * (1 + len(sizes)), 4.2 * len(models)),
                                 squeeze=False)
        for i, model in enumerate(models):
            of_model = [r for r in of_pattern if r["model"] == model]
            # The largest P among those with the most rows (larger ones may hold few block sizes).
            rows_at = defaultdict(int)
            for r in of_model:
                rows_at[r["P"]] += 1
            most = max(rows_at.values())
            largest = max(p for p in rows_at if rows_at[p] == most)
            panel(axes[i][0], [r for r in of_model if r["P"] == largest], "bytes",
                  f"P = {largest}, {MODEL_TITLES[model]}", "mean block size (bytes)")
            for j, size in enumerate(sizes, start=1):
                panel(axes[i][j], [r for r in of_model if r["bytes"] == size], "P",
                      f"{size} B blocks, {MODEL_TITLES[model]}", "P (ranks)")
        legend = {}
        for ax in axes.flat:
            for handle, name in zip(*ax.get_legend_handles_labels()):
                legend.setdefault(name, handle)
        # Long labels in fewer columns, so that none runs off the figure.
        columns = min(2 if max(len(name) for name in legend) > 60 else 3, len(legend))
        fig.legend(list(legend.values()), list(legend.keys()), loc="lower center", ncol=columns, fontsize=9)
        fig.suptitle(f"neighbor_alltoallv, {pattern}, {args.ranks_per_node} ranks per host "
                     "(simulated, SimGrid SMPI)", fontsize=11)
        fig.tight_layout(rect=(0, 0.02 + 0.05 * ((len(legend) + columns - 1) // columns), 1, 0.96))
        out = Path(args.out_dir) / f"{args.prefix}_{pattern}.png"
        fig.savefig(out, dpi=110)
        plt.close(fig)
        print(out)


if __name__ == "__main__":
    main()
