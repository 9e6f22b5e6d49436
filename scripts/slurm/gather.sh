#!/usr/bin/env bash
# Gathers one sweep (a folder made by scripts/slurm/sweep.sh) into one JSON
# lines file, each row tagged with the study, bench, nodes, ranks_per_node,
# job_id, launcher and sweep it came from. Checks that every job of the
# manifest exited 0 (the exit status its job script recorded, and Slurm's
# state where sacct or scontrol still know the job) and produced rows for
# every family it was given. See --help.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

usage() {
  cat <<'EOF'
Usage: bash scripts/slurm/gather.sh FOLDER [--output FILE] [--wait SECONDS] [--no-report]

Collects every job's JSON lines of the sweep in FOLDER into FOLDER/results.jsonl
(or --output FILE), adding study, bench, nodes, ranks_per_node, job_id,
launcher and sweep to each row, and prints one line per job.

  --output FILE     where the rows go (default: FOLDER/results.jsonl)
  --wait SECONDS    first wait, at most this long, until no job of the sweep is
                    queued or running (needs squeue; default 0: do not wait)
  --no-report       do not print build/bench/scaling_report's table of the
                    dist_graph_create rows
  -h, --help        this text

Exit status: 0 if every job of the manifest exited 0 and has its rows;
1 if any failed, is missing or is still running (its rows are left out); 2 on
a usage error.
EOF
}

die() {
  echo "gather: $*" >&2
  exit 2
}

folder="" output="" wait_seconds=0 report=1
while [ $# -gt 0 ]; do
  case $1 in
    --output) [ $# -ge 2 ] || die "--output needs a value"; output=$2; shift ;;
    --output=*) output=${1#*=} ;;
    --wait) [ $# -ge 2 ] || die "--wait needs a value"; wait_seconds=$2; shift ;;
    --wait=*) wait_seconds=${1#*=} ;;
    --no-report) report=0 ;;
    -h | --help) usage; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$folder" ] || die "one folder at a time"; folder=$1 ;;
  esac
  shift
done
[ -n "$folder" ] || die "which sweep folder? (see --help)"
[ -f "$folder/manifest.tsv" ] || die "$folder/manifest.tsv is missing: not a folder made by sweep.sh"
[[ $wait_seconds =~ ^[0-9]+$ ]] || die "--wait needs a whole number of seconds"
folder=${folder%/}
output=${output:-$folder/results.jsonl}
trap 'exit 130' INT
trap 'exit 143' TERM

# The standard library is all the tool needs; prefer the system's python3.
python=""
for candidate in /usr/bin/python3 "$(command -v python3 || true)"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then python=$candidate; break; fi
done
[ -n "$python" ] || die "python3 is needed (Debian: apt-get install python3)"

mapfile -t job_ids < <(tail -n +2 "$folder/manifest.tsv" | cut -f1 | grep -v '^$' || true)
[ ${#job_ids[@]} -gt 0 ] || die "$folder/manifest.tsv lists no jobs"
id_list=$(IFS=,; echo "${job_ids[*]}")

# Jobs of the sweep that Slurm still has queued or running. squeue answers
# "Invalid job id" once it has forgotten every job of the list.
active_jobs() {
  local listing
  if listing=$(squeue -h -o '%i %T' -j "$id_list" 2>&1); then
    awk '$2 != "COMPLETED" && $2 != "FAILED" && $2 != "CANCELLED" && $2 != "TIMEOUT" {print $1}' <<<"$listing"
  elif grep -q "Invalid job id" <<<"$listing"; then
    return 0
  else
    echo "gather: squeue failed: $listing" >&2
    return 1
  fi
}

if [ "$wait_seconds" -gt 0 ]; then
  command -v squeue >/dev/null || die "--wait needs squeue"
  deadline=$((SECONDS + wait_seconds))
  reported=""
  while :; do
    if active=$(active_jobs); then
      [ -n "$active" ] || break
      summary="waiting for $(wc -l <<<"$active") job(s): $(sort -n <<<"$active" | tr '\n' ' ')"
      if [ "$summary" != "$reported" ]; then
        echo "gather: $summary"
        reported=$summary
      fi
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "gather: gave up waiting after ${wait_seconds}s" >&2
      break
    fi
    sleep 2
  done
fi

# What Slurm says about each job: sacct where accounting is on, else
# scontrol while the controller still remembers the job (MinJobAge).
states=$(mktemp)
trap 'rm -f "$states"' EXIT
if command -v sacct >/dev/null && sacct -n -P -X -j "$id_list" -o JobIDRaw,State,ExitCode >"$states.sacct" 2>/dev/null; then
  awk -F'|' '{split($2, state, " "); print $1 "\t" state[1] "\t" $3}' "$states.sacct" >"$states"
elif command -v scontrol >/dev/null; then
  for id in "${job_ids[@]}"; do
    line=$(scontrol -o show job "$id" 2>/dev/null || true)
    [ -n "$line" ] || continue
    state=$(grep -o 'JobState=[A-Z_]*' <<<"$line" | cut -d= -f2 || true)
    exit_code=$(grep -o 'ExitCode=[0-9:]*' <<<"$line" | head -1 | cut -d= -f2 || true)
    printf '%s\t%s\t%s\n' "$id" "$state" "$exit_code" >>"$states"
  done
fi
rm -f "$states.sacct"

status=0
"$python" "$root/scripts/slurm/gather_rows.py" --folder "$folder" --states "$states" --output "$output" || status=$?

if [ "$report" -eq 1 ] && [ -s "$output" ] && grep -q '"bench": "distgraph"' "$output"; then
  build_dir=$(sed -n 's/^build_dir=//p' "$folder/sweep.info" 2>/dev/null || true)
  reporter="${build_dir:-$root/build-release}/bench/scaling_report"
  if [ -x "$reporter" ]; then
    echo
    echo "dist_graph_create, distopo against MPICH (max over ranks, median over repetitions):"
    grep '"bench": "distgraph"' "$output" | "$reporter" || true
  fi
fi
exit "$status"
