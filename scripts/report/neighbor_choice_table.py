#!/usr/bin/python3
"""The simulated neighborhood-collective rows (bench/smpi/neighbor_sim, JSON
lines) as a Markdown table of what one distopo setting chose and ran against
MPICH's algorithm (impl "direct"), per (pattern, P, mean block size): the
algorithm used, both times per call and their ratio. Rows of one model, form
and ranks per node; a later row of the same key replaces an earlier one.

Usage: neighbor_choice_table.py ROWS.jsonl... [--algorithm auto] [--form persistent]
           [--model overheads] [--ranks-per-node 64]
"""
import argparse
import json


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rows", nargs="+")
    parser.add_argument("--algorithm", default="auto", help="distopo's setting (the rows' 'algorithm')")
    parser.add_argument("--form", default="persistent")
    parser.add_argument("--model", default="overheads")
    parser.add_argument("--ranks-per-node", type=int, default=64)
    args = parser.parse_args()
    direct, chosen = {}, {}
    for path in args.rows:
        for line in open(path, encoding="utf-8"):
            if not line.startswith("{"):
                continue
            row = json.loads(line)
            if (row.get("model"), row.get("form"), row.get("ranks_per_node")) != (
                args.model,
                args.form,
                args.ranks_per_node,
            ):
                continue
            key = (row["pattern"], row["P"], row["bytes"])
            if row["impl"] == "direct":
                direct[key] = row
            elif row.get("algorithm") == args.algorithm:
                chosen[key] = row
    print(f"| pattern | P | bytes | MPICH's algorithm (us) | distopo {args.algorithm} (us) | ran | ratio |")
    print("|---|---:|---:|---:|---:|---|---:|")
    for key in sorted(chosen):
        row = chosen[key]
        base = direct.get(key)
        time = row["time_s"] * 1e6
        base_text = f"{base['time_s'] * 1e6:.2f}" if base else "-"
        ratio = f"{row['time_s'] / base['time_s']:.2f}" if base else "-"
        print(f"| {key[0]} | {key[1]} | {key[2]} | {base_text} | {time:.2f} | {row.get('algorithm_used', '-')} | {ratio} |")


if __name__ == "__main__":
    main()
