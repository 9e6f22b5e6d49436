"""Collects the JSON lines of every job of one sweep into one file.

Called by scripts/slurm/gather.sh (standard library only: any python3 works).
For each job in the sweep folder's manifest.tsv it reads jobs/<stem>.status
(the exit code the job script recorded) and jobs/<stem>.jsonl (the
benchmark's rows), checks the job exited 0, that Slurm (when it can tell)
says COMPLETED, that every row has the job's process count and that every
family or topology the job was given has rows; then it adds to each row
where it came from (study, bench, nodes, ranks_per_node, job_id, launcher,
sweep) and writes the rows of the jobs that passed to --output. Exit status 0
only if every job passed.
"""

import argparse
import csv
import json
import os
import sys

# Slurm job states of a job that may still write its results.
UNFINISHED = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING", "STAGE_OUT"}


def read_states(path):
    """job id -> (state, exit code) from gather.sh's scheduler query."""
    states = {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                fields = line.rstrip("\n").split("\t")
                if len(fields) >= 3 and fields[0]:
                    states[fields[0]] = (fields[1], fields[2])
    return states


def read_status(path):
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read().strip()
    except FileNotFoundError:
        return None
    try:
        return int(text)
    except ValueError:
        return text or None


def read_rows(path):
    rows, stray = [], []
    if not os.path.exists(path):
        return rows, stray
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            line = line.strip()
            if not line:
                continue
            try:
                row = json.loads(line)
            except ValueError:
                row = None
            if isinstance(row, dict):
                rows.append(row)
            else:
                stray.append(line)
    return rows, stray


def check_job(folder, job, states):
    """Returns (annotated rows, list of problems, stray lines)."""
    stem = os.path.join(folder, job["stem"])
    problems = []
    status = read_status(stem + ".status")
    state, exit_code = states.get(job["job_id"], ("", ""))
    rows, stray = read_rows(stem + ".jsonl")
    if status is None and state in UNFINISHED:
        return [], [f"not finished (Slurm: {state}); gather again later, or with --wait"], stray
    if status is None:
        problems.append("no exit status (killed, or never started)")
    elif status != 0:
        problems.append(f"exited {status}")
    if state and state != "COMPLETED":
        problems.append(f"Slurm says {state} (exit code {exit_code})")
    if not rows:
        problems.append("no JSON lines")
    ranks = int(job["ranks"])
    wrong = sorted({str(row.get("P")) for row in rows if row.get("P") != ranks})
    if wrong:
        problems.append(f"rows with P={','.join(wrong)}, expected {ranks}")
    key = "family" if job["bench"] == "distgraph" else "topology"
    present = {row.get(key) for row in rows}
    missing = [name for name in job["families"].split(",") if name and name not in present]
    if rows and missing:
        problems.append(f"no rows for {key} {','.join(missing)}")
    origin = {
        "study": job["study"],
        "bench": job["bench"],
        "nodes": int(job["nodes"]),
        "ranks_per_node": int(job["ranks_per_node"]),
        "job_id": int(job["job_id"]) if job["job_id"].isdigit() else job["job_id"],
        "launcher": job["launcher"],
        "sweep": os.path.basename(os.path.normpath(folder)),
    }
    return [{**row, **origin} for row in rows], problems, stray


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--folder", required=True, help="the sweep folder (holds manifest.tsv)")
    parser.add_argument("--states", help="TSV of job id, Slurm state, exit code (optional)")
    parser.add_argument("--output", required=True, help="the results file to write")
    args = parser.parse_args()

    manifest = os.path.join(args.folder, "manifest.tsv")
    with open(manifest, encoding="utf-8", newline="") as handle:
        jobs = list(csv.DictReader(handle, delimiter="\t"))
    if not jobs:
        print(f"gather: {manifest} lists no jobs", file=sys.stderr)
        return 1
    states = read_states(args.states)

    gathered, failed = [], 0
    print(f"{'job':>10}  {'bench':9} {'nodes':>5} {'rpn':>5} {'P':>6} {'rows':>5}  result")
    for job in jobs:
        rows, problems, stray = check_job(args.folder, job, states)
        verdict = "ok" if not problems else "FAILED: " + "; ".join(problems)
        print(f"{job['job_id']:>10}  {job['bench']:9} {job['nodes']:>5} {job['ranks_per_node']:>5} "
              f"{job['ranks']:>6} {len(rows):>5}  {verdict}")
        if stray:
            print(f"{'':>10}  note: {len(stray)} line(s) that are not JSON objects skipped, "
                  f"first: {stray[0][:100]}")
        if problems:
            failed += 1
            if os.path.exists(os.path.join(args.folder, job["stem"] + ".log")):
                print(f"{'':>10}  log: {os.path.join(args.folder, job['stem'])}.log")
        else:
            gathered.extend(rows)

    partial = args.output + ".part"
    with open(partial, "w", encoding="utf-8") as handle:
        for row in gathered:
            handle.write(json.dumps(row, sort_keys=True) + "\n")
    os.replace(partial, args.output)
    print(f"gather: {len(gathered)} rows of {len(jobs) - failed}/{len(jobs)} jobs in {args.output}")
    if failed:
        print(f"gather: {failed} job(s) failed or are missing; their rows are left out", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
