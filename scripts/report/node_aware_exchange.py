#!/usr/bin/python3
"""The simulated edge exchange on hosts of many ranks (scripts/smpi/simulate.sh
--ranks-per-node): distopo's direct and node-aware routes against MPICH's
algorithm, from edge_exchange_sim's rows (JSON lines).

Prints a markdown table per machine model: one row per (family, edges per
rank, P), each route's simulated time, node-aware against direct and against
MPICH's algorithm, and whether the three produced the same lists. With
--plot FILE also draws time against P, a panel per (family, edges per rank).

    /usr/bin/python3 scripts/report/node_aware_exchange.py docs/results/scaling/node_aware.jsonl \\
        --plot docs/results/scaling/node_aware.png
"""
import argparse
import json
from collections import defaultdict

ROUTES = [("direct", "distopo, direct (NBX)"), ("node_aware", "distopo, node-aware"), ("mpich", "MPICH's algorithm")]
FAMILY_ORDER = {"ring": 0, "stencil3d": 1, "random_kout": 2, "powerlaw": 3}


def load(paths):
    latest = {}
    for path in paths:
        for line in open(path, encoding="utf-8"):
            if not line.startswith("{"):
                continue
            row = json.loads(line)
            if not row.get("ranks_per_node"):
                continue
            # Later rows of the same key replace earlier ones.
            key = (row.get("model", ""), row["family"], row["edges_per_rank"], row["P"], row["exchange"])
            latest[key] = row
    cells = defaultdict(dict)
    for (model, family, edges, p, route), row in latest.items():
        cells[(model, family, edges, p)][route] = row
    return cells


def degree_label(family, edges):
    # Only the k-out and power-law families take their degree from edges_per_rank.
    return f"{family} ({edges} edges/rank)" if family in ("random_kout", "powerlaw") else family


def us(row):
    return f"{row['time_s'] * 1e6:.2f}" if row else ""


def ratio(a, b):
    return f"{b['time_s'] / a['time_s']:.2f}x" if a and b else ""


def table(cells):
    models = sorted({key[0] for key in cells})
    for model in models:
        print(f"\n**Model: {model}** (times in microseconds, max over ranks)\n")
        print("| family | P | direct | node-aware | MPICH's algorithm | direct / node-aware | MPICH / node-aware | same lists |")
        print("|---|---:|---:|---:|---:|---:|---:|---|")
        keys = sorted((k for k in cells if k[0] == model), key=lambda k: (FAMILY_ORDER.get(k[1], 9), k[2], k[3]))
        for key in keys:
            _, family, edges, p = key
            routes = cells[key]
            direct, node_aware, mpich = (routes.get(r) for r, _ in ROUTES)
            sums = {row["lists_checksum"] for row in routes.values()}
            same = "yes" if len(sums) == 1 and len(routes) > 1 else ("" if len(routes) < 2 else "NO")
            print(f"| {degree_label(family, edges)} | {p} | {us(direct)} | {us(node_aware)} | {us(mpich)} | "
                  f"{ratio(node_aware, direct)} | {ratio(node_aware, mpich)} | {same} |")


def plot(cells, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    model = "overheads"
    panels = sorted({(k[1], k[2]) for k in cells if k[0] == model},
                    key=lambda fe: (FAMILY_ORDER.get(fe[0], 9), fe[1]))
    panels = [fe for fe in panels if fe[0] in ("random_kout",) or fe[1] == min(e for f, e in panels if f == fe[0])]
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 3.8), squeeze=False)
    styles = {"direct": ("tab:blue", "o"), "node_aware": ("tab:red", "s"), "mpich": ("0.55", "^")}
    for ax, (family, edges) in zip(axes[0], panels):
        for route, label in ROUTES:
            points = sorted((k[3], cells[k][route]["time_s"] * 1e6) for k in cells
                            if k[0] == model and k[1] == family and k[2] == edges and route in cells[k])
            if not points:
                continue
            color, marker = styles[route]
            ax.plot([p for p, _ in points], [t for _, t in points], marker=marker, color=color, label=label,
                    linewidth=3 if route == "mpich" else 1.5, alpha=0.6 if route == "mpich" else 1.0)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(degree_label(family, edges), fontsize=9)
        ax.set_xlabel("simulated ranks (64 per host)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("time of the exchange (us)")
    axes[0][-1].legend(fontsize=8)
    fig.suptitle("dist_graph_create's edge exchange, simulated: hosts of 64 ranks, per-message overheads", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="+")
    parser.add_argument("--plot", help="PNG to write")
    args = parser.parse_args()
    cells = load(args.rows)
    table(cells)
    if args.plot:
        plot(cells, args.plot)


if __name__ == "__main__":
    main()
