#!/usr/bin/python3
"""Tables of the simulated scaling study (markdown), from the JSON lines of
scripts/smpi/simulate.sh: per compute mode, family and P, the time and heap per
rank of distopo and of MPICH's algorithm and their ratios (>1: distopo
better), and whether both produced the same lists (checksums).

MPICH's pairwise reduce_scatter (its choice from P = 65536 on) is too slow to
simulate there. It takes P - 1 rounds, round i with the ranks i apart, so
each round costs about one message to a partner that is, for most rounds,
in another group of 1024 hosts once P > 1024 (one more switch level each
way). With --fit-pairwise, the simulated times at smaller P are fitted with
time = (P - 1) (c + d f(P)), f(P) = (P - 1024)+ / (P - 1) the share of
partners outside the rank's group, the fit is printed, and model rows up to
--model-max are written to --model-out for the plots.

Usage: summarize.py RESULTS.jsonl... [--fit-pairwise --model-out FILE --model-max 65536]
"""
import argparse
import json
from collections import defaultdict


def load(paths):
    rows = []
    for path in paths:
        with open(path) as stream:
            rows += [json.loads(line) for line in stream if line.startswith("{")]
    return rows


def fmt_time(seconds):
    return f"{seconds * 1e6:.1f} µs" if seconds < 1e-2 else f"{seconds * 1e3:.1f} ms"


def fmt_bytes(count):
    return f"{count / 1024:.1f} KiB" if count < 1 << 20 else f"{count / (1 << 20):.2f} MiB"


def fmt_heap(row):
    # Charged runs go without the heap meter (its bookkeeping would be charged).
    count = row.get("bytes_per_rank")
    return fmt_bytes(count) if count is not None else "n/a"


def tables(rows):
    by_key = defaultdict(dict)
    for row in rows:
        if row.get("model"):
            continue
        variant = row["impl"] if row["impl"] == "distopo" else f"{row['impl']}:{row.get('reduce_scatter', '')}"
        by_key[(row["compute"], row["family"], row["P"])][variant] = row
    for compute in sorted({key[0] for key in by_key}):
        print(f"\n### {compute.replace('_', ' ')}\n")
        print("| family | P | MPICH's reduce_scatter | time distopo | time MPICH alg. | ratio | heap/rank distopo "
              "| heap/rank MPICH alg. | ratio | same lists |")
        print("|---|---:|---|---:|---:|---:|---:|---:|---:|---|")
        for (mode, family, p), variants in sorted(by_key.items(), key=lambda item: (item[0][1], item[0][2])):
            if mode != compute:
                continue
            ours = variants.get("distopo")
            for name, theirs in sorted(variants.items()):
                if name == "distopo":
                    continue
                if ours is None:
                    print(f"| {family} | {p} | {theirs.get('reduce_scatter', '')} | (not simulated) "
                          f"| {fmt_time(theirs['time_s'])} | | | {fmt_heap(theirs)} | | |")
                    continue
                same = "yes" if ours["lists_checksum"] == theirs["lists_checksum"] else "**NO**"
                heap_ratio = (f"{theirs['bytes_per_rank'] / ours['bytes_per_rank']:.0f}x"
                              if ours.get("bytes_per_rank") and theirs.get("bytes_per_rank") else "")
                print(f"| {family} | {p} | {theirs.get('reduce_scatter', '')} | {fmt_time(ours['time_s'])} "
                      f"| {fmt_time(theirs['time_s'])} | {theirs['time_s'] / ours['time_s']:.2f}x "
                      f"| {fmt_heap(ours)} | {fmt_heap(theirs)} | {heap_ratio} | {same} |")
            if ours is not None and len(variants) == 1:
                print(f"| {family} | {p} | (not simulated) | {fmt_time(ours['time_s'])} | | | "
                      f"{fmt_heap(ours)} | | | |")


def outside_share(p):
    """Share of a rank's P - 1 partners outside its group of 1024 hosts."""
    return max(0, p - 1024) / (p - 1)


def fit_pairwise(rows, model_out, model_max):
    """Least squares of the per-round time (P - 1 rounds) = c + d f(P), per (compute, family)."""
    groups = defaultdict(list)
    for row in rows:
        if row["impl"] == "mpich_alg" and row.get("reduce_scatter") == "pairwise" and not row.get("model"):
            groups[(row["compute"], row["family"])].append((row["P"], row["time_s"]))
    model_rows = []
    print("\n### MPICH's pairwise reduce_scatter: fitted model time = (P - 1) (c + d f(P))\n")
    print("| compute | family | simulated at P (per round) | c | d | model at 65536 |")
    print("|---|---|---|---:|---:|---:|")
    for (compute, family), points in sorted(groups.items()):
        points.sort()
        xs = [outside_share(p) for p, _ in points]
        ys = [t / (p - 1) for p, t in points]
        n = len(points)
        mean_x, mean_y = sum(xs) / n, sum(ys) / n
        spread = sum((x - mean_x) ** 2 for x in xs)
        d = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / spread if spread > 0 else 0.0
        c = mean_y - d * mean_x
        model = lambda p: (p - 1) * (c + d * outside_share(p))  # noqa: E731
        simulated = ", ".join(f"{p} ({t / (p - 1) * 1e6:.2f} µs)" for p, t in points)
        print(f"| {compute} | {family} | {simulated} | {c * 1e6:.2f} µs | {d * 1e6:.2f} µs | "
              f"{fmt_time(model(model_max))} |")
        p = points[0][0]
        while p <= model_max:
            model_rows.append({"impl": "mpich_alg", "reduce_scatter": "pairwise", "model": True, "family": family,
                               "P": p, "compute": compute, "mode": "smpi", "time_s": model(p),
                               "fit": {"c_s": c, "d_s": d, "points": points}})
            p *= 2
    if model_out:
        with open(model_out, "w") as stream:
            for row in model_rows:
                stream.write(json.dumps(row, sort_keys=True) + "\n")
    return model_rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--fit-pairwise", action="store_true")
    parser.add_argument("--model-out")
    parser.add_argument("--model-max", type=int, default=65536)
    args = parser.parse_args()
    rows = load(args.results)
    tables(rows)
    if args.fit_pairwise:
        model = fit_pairwise(rows, args.model_out, args.model_max)
        ours = {(r["compute"], r["family"]): r for r in rows if r["impl"] == "distopo" and r["P"] == args.model_max}
        for row in model:
            key = (row["compute"], row["family"])
            if row["P"] == args.model_max and key in ours:
                print(f"\nAt P = {args.model_max} ({key[0]}, {key[1]}): distopo simulated "
                      f"{fmt_time(ours[key]['time_s'])}, MPICH's pairwise selection modelled {fmt_time(row['time_s'])}: "
                      f"{row['time_s'] / ours[key]['time_s']:.0f}x")


if __name__ == "__main__":
    main()
