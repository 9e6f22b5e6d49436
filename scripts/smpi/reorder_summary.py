#!/usr/bin/env python3
"""Markdown tables of the simulated reorder mapping (simulate_reorder.sh rows).

Usage: reorder_summary.py docs/results/reorder/smpi.jsonl [--reference ref.jsonl ...]

Reference rows are one-process `distgraph_reorder --mapping-only` rows (as in
docs/results/reorder/mapping_only.jsonl, and the "mode":"mapping_only" rows of the
rows file itself); the column "one-process cut" is the distopo row's
cut_weight there for the same path, family, P and ranks per node
(distributed: gather limit 1, balanced effort).
"""
import argparse
import json


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def reference_cuts(paths):
    cuts = {}
    for path in paths:
        for r in load(path):
            if r.get("impl") != "distopo" or r.get("mode") != "mapping_only" or r.get("effort") != "balanced":
                continue
            if r["path"] == "distributed" and r.get("gather_limit") != 1:
                continue
            cuts[(r["path"], r["family"], r["P"], r["ranks_per_node"])] = r["cut_weight"]
    return cuts


def time_text(seconds):
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} us"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rows")
    parser.add_argument("--reference", nargs="*", default=[])
    args = parser.parse_args()
    rows = load(args.rows)
    cuts = reference_cuts(args.reference + [args.rows])

    print("| P | path | family | ranks/node | compute | poll charge | simulated time | rounds | per round"
          " | cut | one-process cut | identity cut | simulator wall | peak RSS | load (start, end) |")
    print("|---:|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    key = lambda r: (r["path"], r["P"], r["ranks_per_node"], r["family"], r["compute"], r.get("iprobe_s", 1e-7))
    for r in sorted((r for r in rows if r.get("impl") == "distopo" and r.get("mode") == "smpi"), key=key):
        reference = cuts.get((r["path"], r["family"], r["P"], r["ranks_per_node"]))
        same = "" if reference is None else (f"{reference} (same)" if reference == r["cut_weight"] else f"{reference} (DIFFERS)")
        rounds = r.get("exchange_rounds", "")
        per_round = time_text(r["time_per_round_s"]) if "time_per_round_s" in r else ""
        print(f"| {r['P']} | {r['path']} | {r['family']} | {r['ranks_per_node']} | {r['compute']}"
              f" | {r.get('iprobe_s', 1e-7):g} s | {time_text(r['time_s'])} | {rounds} | {per_round}"
              f" | {r['cut_weight']} | {same} | {r['identity_cut']} | {r['sim_wall_s']} s"
              f" | {r.get('sim_peak_rss_mib', '')} MiB | {r['loadavg'][0]}, {r['loadavg'][1]} |")
    calibrations = [r for r in rows if r.get("calibration")]
    if calibrations:
        print()
        print("| compute | CPU burnt on rank 0 | simulated time it took |")
        print("|---|---:|---:|")
        for r in calibrations:
            print(f"| {r['compute']} | {r['cpu_s'] * 1e3:.3f} ms | {r['simulated_s'] * 1e3:.3f} ms |")


if __name__ == "__main__":
    main()
