#!/usr/bin/env bash
# End-to-end test of scripts/slurm/ on this machine, no cluster needed:
# installs Slurm and munge from Debian if missing, starts a private
# single-node Slurm cluster (munged, slurmctld, slurmd; no systemd, own
# config, sockets, ports and state in a temporary directory), submits small
# weak- and strong-scaling sweeps with both launchers through sweep.sh,
# waits for them, gathers them with gather.sh and checks the results; also
# checks --dry-run and that a failing job makes gather fail. On the way out,
# also on failure or Ctrl-C, it cancels its jobs and stops exactly the daemons
# it started. Exit status 0 only if every check held.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

usage() {
  cat <<'EOF'
Usage: bash scripts/slurm/selftest.sh [--keep] [--timeout SECONDS]

Starts a private single-node Slurm cluster on this machine, runs small sweeps
through scripts/slurm/sweep.sh and gather.sh, checks them, stops the cluster.
Needs root or sudo (to install packages and run slurmd).

  --keep             keep the temporary directory (config, logs, results) on success too
  --timeout SECONDS  deadline for the submitted jobs to finish (default: 240)
  -h, --help         this text
EOF
}

keep=0
job_deadline=240
while [ $# -gt 0 ]; do
  case $1 in
    --keep) keep=1 ;;
    --timeout)
      if [ $# -lt 2 ] || ! [[ $2 =~ ^[0-9]+$ ]]; then echo "selftest: --timeout needs seconds" >&2; exit 2; fi
      job_deadline=$2
      shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "selftest: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

say() { echo "selftest: $*"; }
fail() {
  echo "selftest: FAILED: $*" >&2
  exit 1
}

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || fail "needs root or sudo (to install packages and run slurmd)"
  as_root=(sudo)
fi

# --- packages: Slurm, munge and a python3 for gather.sh; then the build's.
packages=(slurm-wlm munge python3)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
bash "$root/scripts/setup/install_packages.sh"

# Nothing of an enclosing Slurm job or of another cluster's settings may leak
# into ours (this may itself run inside a CI job on a Slurm cluster).
while read -r variable; do
  unset "$variable"
done < <(compgen -e | grep -E '^(SLURM|SBATCH|SALLOC|SRUN|SQUEUE|SINFO|SACCT)_' || true)

# --- the private cluster, all of it under one temporary directory.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/distopo-slurm-selftest.XXXXXX")
chmod 755 "$tmp"  # munged wants every directory above its socket searchable
conf="$tmp/slurm.conf"
daemon_pids=()     # what we started, stopped in reverse order
daemon_names=()
started=$SECONDS

# Processes started by our daemons (job steps, stray ranks): once the daemons
# are gone, only they carry our config's path in their environment. This
# script's own children do not (SLURM_CONF is given to each client command,
# never exported).
our_strays() {
  "${as_root[@]}" grep -lsxzF "SLURM_CONF=$conf" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 || true
}

cleanup() {
  local status=$? i pid name waited
  trap - EXIT INT TERM
  set +e
  if [ ${#daemon_pids[@]} -gt 0 ]; then
    # Jobs first, while slurmd still runs and can end them cleanly.
    local jobs=""
    if [ -n "${slurmctld_pid:-}" ] && kill -0 "$slurmctld_pid" 2>/dev/null; then
      jobs=$(SLURM_CONF=$conf timeout 10 squeue -h -o %i 2>/dev/null)
    fi
    if [ -n "$jobs" ]; then
      say "cancelling jobs still there: $(tr '\n' ' ' <<<"$jobs")"
      # shellcheck disable=SC2086  # one id per word
      SLURM_CONF=$conf timeout 10 scancel $jobs
      for waited in $(seq 20); do
        [ -n "$(SLURM_CONF=$conf timeout 5 squeue -h -o %i 2>/dev/null)" ] || break
        sleep 1
      done
      [ "$waited" -lt 20 ] || say "jobs did not end within 20 s"
    fi
    for ((i = ${#daemon_pids[@]} - 1; i >= 0; i--)); do
      pid=${daemon_pids[i]}
      name=${daemon_names[i]}
      "${as_root[@]}" kill -TERM "$pid" 2>/dev/null || continue
      for waited in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
      done
      if kill -0 "$pid" 2>/dev/null; then
        say "$name (pid $pid) ignored SIGTERM for 10 s; killing it"
        "${as_root[@]}" kill -KILL "$pid" 2>/dev/null
      fi
      wait "$pid" 2>/dev/null
    done
    local strays
    strays=$(our_strays)
    if [ -n "$strays" ]; then
      say "killing processes our slurmd left behind: $(tr '\n' ' ' <<<"$strays")"
      # shellcheck disable=SC2086  # one pid per word
      "${as_root[@]}" kill -KILL $strays 2>/dev/null
    fi
  fi
  if [ "$status" -ne 0 ]; then
    for log in "$tmp"/log/slurmctld.log "$tmp"/log/slurmd.log "$tmp"/log/munged.log; do
      [ -f "$log" ] || continue
      echo "---- last lines of $log"
      tail -n 15 "$log"
    done
  fi
  if [ "$status" -eq 0 ] && [ "$keep" -eq 0 ]; then
    "${as_root[@]}" rm -rf "$tmp"
  else
    say "kept $tmp (slurm.conf, log/, results/)"
  fi
  if [ "$status" -eq 0 ]; then
    say "passed in $((SECONDS - started)) s"
  else
    echo "selftest: FAILED (exit $status) after $((SECONDS - started)) s" >&2
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# start <name> <command...>: runs a daemon in the foreground, in the
# background, in a session of its own: Ctrl-C reaches this script, which then
# stops the cluster in order, not the daemons behind its back.
start() {
  local name=$1
  shift
  setsid "$@" >"$tmp/log/$name.out" 2>&1 &
  daemon_pids+=($!)
  daemon_names+=("$name")
}

# await <seconds> <what> <command...>: polls the command until it succeeds,
# failing if the deadline passes or a daemon we started died.
await() {
  local seconds=$1 what=$2 i j
  shift 2
  for ((i = 0; i < seconds * 5; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    for j in "${!daemon_pids[@]}"; do
      kill -0 "${daemon_pids[j]}" 2>/dev/null ||
        fail "${daemon_names[j]} exited while waiting for $what (see $tmp/log/${daemon_names[j]}.out)"
    done
    sleep 0.2
  done
  fail "no $what after $seconds s"
}

# A TCP port nobody listens on (ours only if nobody takes it meanwhile).
free_port() {
  local port _
  for _ in $(seq 100); do
    port=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && [ "$port" != "${1:-}" ]; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

mkdir -p "$tmp/log" "$tmp/state" "$tmp/spool" "$tmp/results"
mkdir -m 700 "$tmp/munge"
mkdir -m 755 "$tmp/munge-run"
"${as_root[@]}" chown munge:munge "$tmp/munge" "$tmp/munge-run"
socket="$tmp/munge-run/munge.socket"
"${as_root[@]}" setpriv --reuid=munge --regid=munge --init-groups mungekey --create --keyfile "$tmp/munge/munge.key"
start munged "${as_root[@]}" setpriv --reuid=munge --regid=munge --init-groups \
  munged --foreground --socket="$socket" --key-file="$tmp/munge/munge.key" --pid-file="$tmp/munge-run/munged.pid" \
  --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munged.seed"
await 15 "munge credential" bash -c "munge -S '$socket' -n | unmunge -S '$socket'"

node=$(hostname -s)
ctld_port=$(free_port) || fail "no free TCP port"
slurmd_port=$(free_port "$ctld_port") || fail "no free TCP port"
cat >"$conf" <<EOF
# A private single-node cluster for scripts/slurm/selftest.sh ($tmp).
ClusterName=distopo-selftest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/state/slurmctld.pid
SlurmdPidFile=$tmp/spool/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=5
MinJobAge=600
# The node claims 64 CPUs whatever it has, so oversubscribed jobs fit.
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=64 State=UNKNOWN
PartitionName=selftest Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
start slurmctld "${as_root[@]}" env SLURM_CONF="$conf" slurmctld -D -f "$conf"
slurmctld_pid=${daemon_pids[-1]}
start slurmd "${as_root[@]}" env SLURM_CONF="$conf" slurmd -D -f "$conf" -N "$node"
node_idle() { [ "$(SLURM_CONF=$conf sinfo -h -n "$node" -o %T)" = idle ]; }
await 30 "idle node in sinfo" node_idle
say "cluster up in $((SECONDS - started)) s (controller port $ctld_port, slurmd port $slurmd_port, $tmp)"

slurm() { SLURM_CONF=$conf "$@"; }
small=(--nodes 1 --reps 3 --partition selftest --time 5 --yield on
       --distgraph-args "--warmup 2 --warmup-seconds 0.2" --max-bytes 512)

# --- --dry-run prints one sbatch line per job and creates nothing.
dry=$(slurm bash "$root/scripts/slurm/sweep.sh" --study weak --ranks-per-node 2,4 "${small[@]}" \
      --results-dir "$tmp/results/dry" --dry-run) || fail "sweep --dry-run exited nonzero"
[ "$(grep -c '^sbatch ' <<<"$dry")" -eq 4 ] || fail "sweep --dry-run printed $(grep -c '^sbatch ' <<<"$dry") sbatch lines, not 4"
[ ! -e "$tmp/results/dry" ] || fail "sweep --dry-run created $tmp/results/dry"

# --- the sweeps: weak and strong with srun, weak with mpiexec, and one job
# that must fail (an unknown graph family makes distgraph_scaling exit 105).
submit() {  # <label> <sweep options...>
  local label=$1
  shift
  say "sweep $label"
  slurm bash "$root/scripts/slurm/sweep.sh" --results-dir "$tmp/results/$label" "$@" |
    sed 's/^/    /' || fail "sweep $label failed"
}
submit weak-srun --study weak --ranks-per-node 2,4 --launcher srun "${small[@]}"
submit strong-srun --study strong --ranks-per-node 2,4 --total-edges 64 --launcher srun --no-build "${small[@]}"
submit weak-mpiexec --study weak --ranks-per-node 3 --launcher mpiexec --no-build "${small[@]}"
submit failing --study weak --ranks-per-node 2 --bench distgraph --families ring,no_such_family --no-build "${small[@]}"

sweep_folder() {  # the one dated folder a sweep made under its results dir
  local folders=("$tmp/results/$1"/*/)
  if [ ${#folders[@]} -ne 1 ] || [ ! -f "${folders[0]}manifest.tsv" ]; then
    fail "no single sweep folder under $tmp/results/$1"
  fi
  echo "${folders[0]%/}"
}

deadline=$((SECONDS + job_deadline))
for label in weak-srun strong-srun weak-mpiexec; do
  folder=$(sweep_folder "$label")
  left=$((deadline - SECONDS))
  [ "$left" -gt 0 ] || left=1
  say "gather $label"
  status=0
  slurm bash "$root/scripts/slurm/gather.sh" "$folder" --wait "$left" --no-report 2>&1 | sed 's/^/    /' || status=$?
  [ "$status" -eq 0 ] || fail "gather $label reported failed or missing jobs (exit $status)"
  # Independently of gather: every job of the manifest has rows in the
  # gathered file, tagged with where they came from.
  /usr/bin/python3 - "$folder" <<'EOF' || fail "the gathered file of $label is incomplete"
import csv, json, os, sys
folder = sys.argv[1]
jobs = list(csv.DictReader(open(os.path.join(folder, "manifest.tsv")), delimiter="\t"))
rows = [json.loads(line) for line in open(os.path.join(folder, "results.jsonl"))]
for job in jobs:
    mine = [r for r in rows if r["job_id"] == int(job["job_id"])]
    key = "family" if job["bench"] == "distgraph" else "topology"
    assert mine, f"no rows of job {job['job_id']}"
    assert all(r["study"] == job["study"] and r["nodes"] == int(job["nodes"]) and
               r["ranks_per_node"] == int(job["ranks_per_node"]) and r["P"] == int(job["ranks"]) and
               r["bench"] == job["bench"] and r["launcher"] == job["launcher"] for r in mine), job
    assert {r[key] for r in mine} >= set(job["families"].split(",")), job
print(f"    checked: {len(rows)} rows, every one of {len(jobs)} jobs present")
EOF
done

folder=$(sweep_folder failing)
say "gather failing (must fail)"
status=0
report=$(slurm bash "$root/scripts/slurm/gather.sh" "$folder" --wait "$((deadline - SECONDS > 0 ? deadline - SECONDS : 1))" --no-report 2>&1) ||
  status=$?
# shellcheck disable=SC2001  # indents every line
sed 's/^/    /' <<<"$report"
[ "$status" -eq 1 ] || fail "gather passed a sweep whose job failed (exit $status)"
grep -q "FAILED: exited 105" <<<"$report" || fail "gather did not name the failed job's exit code"
