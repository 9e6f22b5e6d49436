"""The rows of compare_builds.sh as a table: per (P, edges per rank,
family) the median time of each build over the runs and their ratio
(after / before), with the range of the single runs; where the rows count
page faults (page_faults_max), the median count of each build too. A label
"before-STATE" / "after-STATE" (the allocator state of allocator_states.sh)
puts the state beside the family.

    python3 docs/results/distinct/compare_table.py ROWS.jsonl
"""
import json
import statistics
import sys


def main():
    times = {}
    faults = {}
    for line in open(sys.argv[1]):
        row = json.loads(line)
        # "before-warm": build "before", measured in the allocator state "warm"
        label, _, state = row["label"].partition("-")
        family = row["family"] + (f" ({state})" if state else "")
        key = (row["P"], row["edges_per_rank"], family)
        times.setdefault(key, {}).setdefault(label, []).append(row["time_s"] * 1e3)
        if "page_faults_max" in row:
            faults.setdefault(key, {}).setdefault(label, []).append(row["page_faults_max"])
    with_faults = bool(faults)
    head = "| P | edges/rank | family | before ms (range) | after ms (range) | after / before |"
    rule = "|---:|---:|---|---|---|---:|"
    if with_faults:
        head += " page faults before / after |"
        rule += "---:|"
    print(head)
    print(rule)
    for key in sorted(times):
        before, after = times[key].get("before"), times[key].get("after")
        if not before or not after:
            continue
        cells = [f"{statistics.median(t):.2f} ({min(t):.2f}-{max(t):.2f})" for t in (before, after)]
        ratio = statistics.median(after) / statistics.median(before)
        line = f"| {key[0]} | {key[1]} | {key[2]} | {cells[0]} | {cells[1]} | {ratio:.2f} |"
        if with_faults:
            counts = [faults.get(key, {}).get(label) for label in ("before", "after")]
            line += " " + " / ".join(f"{statistics.median(c):.0f}" if c else "-" for c in counts) + " |"
        print(line)


if __name__ == "__main__":
    main()
