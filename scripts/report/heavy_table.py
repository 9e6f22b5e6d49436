#!/usr/bin/env python3
"""distgraph_scaling JSON lines -> a Markdown table of distopo against MPICH.

One row per (build, round, P, weights, family, edges per rank, max degree):
the median time of each implementation (max over ranks), their ratio, and the
peak heap each added on one rank. Lines may carry a "build" label and a
"round" number (added by the command that made them, e.g. before/after a
change, run twice); rows keep the order in which they first appear.

    python3 scripts/report/heavy_table.py [--where variant=final] docs/results/heavy/large.jsonl

--where KEY=VALUE (repeatable) keeps only the rows whose field KEY prints as VALUE,
e.g. one variant of docs/results/heavy/ files, which hold several.
"""
import json
import sys


def mib(value):
    if value is None:
        return "-"
    return f"{value / 2**20:.1f}" if value >= 2**20 else f"{value / 2**10:.0f} KiB"


def main(args):
    where, paths = [], []
    while args:
        if args[0] == "--where" and len(args) > 1:
            where.append(tuple(args[1].split("=", 1)))
            args = args[2:]
        else:
            paths.append(args[0])
            args = args[1:]
    rows = {}
    for path in paths:
        with open(path) as lines:
            for line in lines:
                if not line.startswith("{"):
                    continue
                r = json.loads(line)
                if any(str(r.get(key)) != value for key, value in where):
                    continue
                build = r.get("build", "") + (f" ({r['round']})" if "round" in r else "")
                key = (build, r["P"], r.get("weights", "repeated"), r["family"],
                       r["edges_per_rank"], r.get("max_degree", 0))
                rows.setdefault(key, {})[r["impl"]] = r
    print("| build | P | weights | family | edges/rank | distopo s | MPICH s | distopo/MPICH "
          "| heap distopo MiB | heap MPICH MiB | same lists |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---|")
    for (build, p, weights, family, edges, max_degree), impls in rows.items():
        ours, mpich = impls.get("distopo"), impls.get("mpich")
        if not ours or not mpich:
            continue
        size = f"{edges:,}" + (f" (D={max_degree})" if max_degree else "")
        print(f"| {build} | {p} | {weights} | {family} | {size} | {ours['time_s']:.4g} | {mpich['time_s']:.4g} "
              f"| {ours['time_s'] / mpich['time_s']:.2f} | {mib(ours['peak_bytes_per_rank'])} "
              f"| {mib(mpich['peak_bytes_per_rank'])} | {'yes' if ours.get('same_neighbors', True) else 'NO'} |")


if __name__ == "__main__":
    main(sys.argv[1:])
