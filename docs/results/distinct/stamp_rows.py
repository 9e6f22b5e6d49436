"""Copies the JSON rows of distgraph_scaling from standard input to standard
output (other lines dropped), each stamped with the study's fields: its
label and commit, and where given the busy processes beside the run, the
run's number and the 1-minute load average when the row was read.

    ... | python3 docs/results/distinct/stamp_rows.py LABEL COMMIT [--busy N] [--run N] [--load]
"""
import argparse
import json
import os
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("label")
    parser.add_argument("commit")
    parser.add_argument("--busy", type=int)
    parser.add_argument("--run", type=int)
    parser.add_argument("--load", action="store_true")
    args = parser.parse_args()
    for line in sys.stdin:
        if not line.startswith("{"):
            continue
        row = json.loads(line)
        row.update(label=args.label, commit=args.commit)
        if args.busy is not None:
            row.update(busy=args.busy)
        if args.run is not None:
            row.update(run=args.run)
        if args.load:
            row.update(load=round(os.getloadavg()[0], 2))
        print(json.dumps(row, sort_keys=True), flush=True)


if __name__ == "__main__":
    main()
