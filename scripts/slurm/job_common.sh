# shellcheck shell=bash
# Sourced by distgraph_job.sh and neighbor_job.sh: what one job of the scaling
# study does, whichever benchmark it runs. The job's size is the allocation
# Slurm gave it (nodes x tasks per node); everything else comes as arguments,
# so the same script runs unchanged on any cluster.
#
# A job writes, into --out-dir, <name>-<job id>.jsonl (the benchmark's JSON
# lines) and <name>-<job id>.status (its exit code, written even when it
# fails or is cancelled while the shell can still run): scripts/slurm/gather.sh
# reads both, so a cluster without job accounting still tells a failed job
# from a finished one.

distopo_job_usage() {
  local bench=$1
  cat <<EOF
Usage: sbatch --nodes N --ntasks-per-node R [sbatch options] scripts/slurm/${bench}_job.sh [options] [-- benchmark options]

One job of the scaling study: runs build/bench/$( [ "$bench" = distgraph ] && echo distgraph_scaling || echo neighbor_bench)
on every task of the allocation and writes its JSON lines to
<out-dir>/<name>-<job id>.jsonl and its exit code to <out-dir>/<name>-<job id>.status.
scripts/slurm/sweep.sh submits one such job per size; run by hand only for a single size.

Options:
  --repo DIR          repository root (default: found from the script's or the submit directory)
  --build-dir DIR     build with the benchmark (default: <repo>/build-release)
  --out-dir DIR       where the job's files go (default: <repo>/results/slurm/manual)
  --name NAME         file name stem (default: ${bench}-N<nodes>-R<ranks per node>)
  --launcher L        srun (default) or mpiexec (MPICH's hydra, inside the allocation)
  --srun-mpi TYPE     srun's --mpi plugin (default: pmi2)
  --yield MODE        auto (default: when ranks per node exceed the cores the job sees),
                      on or off: preload the helper that yields the CPU on empty UCX
                      progress polls (scripts/setup/mpi_env.sh); only for oversubscribed nodes
  --ucx-tls VALUE     auto (default: self,posix on one node, otherwise left as the
                      environment has it), inherit, or a UCX_TLS value to export
  --reps N            timed repetitions (median reported; default: the benchmark's)
EOF
  if [ "$bench" = distgraph ]; then
    cat <<EOF
  --families LIST     graph families, comma separated (default: all of distgraph_scaling's)
  --edges-per-rank N  degree of random_kout, powerlaw, rank0_whole, incoming_only (default 16)
EOF
  else
    cat <<EOF
  --topologies LIST   stencil2d,stencil3d,random_sparse (default: all)
  --degree N          out-edges each rank draws in random_sparse (default: neighbor_bench's, 3)
  --max-bytes N       largest block per neighbor (default: neighbor_bench's, 1 MiB)
EOF
  fi
  cat <<EOF
  -h, --help          this text
Arguments after -- go to the benchmark unchanged.
EOF
}

# distopo_job <distgraph|neighbor> [options]: runs one job; the exit code is
# the benchmark's (2 for a usage error).
distopo_job() {
  local bench=$1
  shift
  local repo="" build_dir="" out_dir="" name="" launcher=srun srun_mpi=pmi2 yield=auto ucx_tls=auto
  local reps="" families="" edges="" max_bytes=""
  local -a passthrough=()
  need_value() {
    if [ $# -lt 2 ] || [ -z "$2" ]; then
      echo "${bench}_job: $1 needs a value" >&2
      exit 2
    fi
  }
  while [ $# -gt 0 ]; do
    case $1 in
      --repo) need_value "$@"; repo=$2; shift ;;
      --build-dir) need_value "$@"; build_dir=$2; shift ;;
      --out-dir) need_value "$@"; out_dir=$2; shift ;;
      --name) need_value "$@"; name=$2; shift ;;
      --launcher) need_value "$@"; launcher=$2; shift ;;
      --srun-mpi) need_value "$@"; srun_mpi=$2; shift ;;
      --yield) need_value "$@"; yield=$2; shift ;;
      --ucx-tls) need_value "$@"; ucx_tls=$2; shift ;;
      --reps) need_value "$@"; reps=$2; shift ;;
      --families | --topologies) need_value "$@"; families=$2; shift ;;
      --edges-per-rank | --degree) need_value "$@"; edges=$2; shift ;;
      --max-bytes) need_value "$@"; max_bytes=$2; shift ;;
      -h | --help) distopo_job_usage "$bench"; exit 0 ;;
      --) shift; passthrough=("$@"); break ;;
      *) echo "${bench}_job: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
  done
  case $launcher in srun | mpiexec) ;; *) echo "${bench}_job: --launcher is srun or mpiexec" >&2; exit 2 ;; esac
  case $yield in auto | on | off) ;; *) echo "${bench}_job: --yield is auto, on or off" >&2; exit 2 ;; esac
  if [ -z "${SLURM_JOB_ID:-}" ] || [ -z "${SLURM_NTASKS:-}" ]; then
    echo "${bench}_job: not inside a Slurm job with tasks; submit it with sbatch --nodes N --ntasks-per-node R (see --help)" >&2
    exit 2
  fi

  build_dir=${build_dir:-$repo/build-release}
  out_dir=${out_dir:-$repo/results/slurm/manual}
  local nodes=${SLURM_JOB_NUM_NODES:-${SLURM_NNODES:-1}}
  local ranks=$SLURM_NTASKS
  local per_node=$((ranks / nodes))
  name=${name:-$bench-N$nodes-R$per_node}
  mkdir -p "$out_dir"
  local stem="$out_dir/$name-$SLURM_JOB_ID"
  # From here on every way out leaves the exit code behind. Slurm sends
  # SIGTERM at the time limit or on scancel; the trap then records 143.
  distopo_job_status_file="$stem.status"
  rm -f "$distopo_job_status_file"
  trap 'echo "$?" >"$distopo_job_status_file"' EXIT
  trap 'exit 143' TERM
  trap 'exit 130' INT

  local binary
  if [ "$bench" = distgraph ]; then binary="$build_dir/bench/distgraph_scaling"; else binary="$build_dir/bench/neighbor_bench"; fi
  if [ ! -x "$binary" ]; then
    echo "${bench}_job: $binary is missing; build it first (scripts/slurm/sweep.sh does)" >&2
    exit 1
  fi
  local -a args=()
  [ -z "$reps" ] || args+=(--reps "$reps")
  if [ "$bench" = distgraph ]; then
    [ -z "$families" ] || args+=(--family "$families")
    [ -z "$edges" ] || args+=(--edges-per-rank "$edges")
  else
    [ -z "$families" ] || args+=(--topology "$families")
    [ -z "$edges" ] || args+=(--degree "$edges")
    [ -z "$max_bytes" ] || args+=(--max-bytes "$max_bytes")
  fi
  # ${a[@]+"${a[@]}"}: empty arrays are fine under set -u with bash < 4.4 too.
  args+=(${passthrough[@]+"${passthrough[@]}"})

  # Oversubscribed ranks busy-poll under ch4:ucx; the helper makes them yield.
  local cores
  cores=$(nproc)
  if [ "$yield" = auto ]; then
    if [ "$per_node" -gt "$cores" ]; then yield=on; else yield=off; fi
  fi
  local tls_set=${UCX_TLS+set} tls_before=${UCX_TLS-}
  if [ "$yield" = on ]; then
    # shellcheck source=scripts/setup/mpi_env.sh
    source "$repo/scripts/setup/mpi_env.sh"
    distopo_mpi_env "$build_dir"  # also sets UCX_TLS=self,posix, decided below
  fi
  # UCX_TLS is exported here, not through srun --export (which would split
  # "self,posix" at the comma). Shared memory alone only fits a single node.
  case $ucx_tls in
    auto) if [ "$nodes" -eq 1 ]; then export UCX_TLS=self,posix; elif [ -n "$tls_set" ]; then export UCX_TLS=$tls_before; else unset UCX_TLS; fi ;;
    inherit) if [ -n "$tls_set" ]; then export UCX_TLS=$tls_before; else unset UCX_TLS; fi ;;
    *) export UCX_TLS=$ucx_tls ;;
  esac
  export UCX_WARN_UNUSED_ENV_VARS=n

  local -a launch
  if [ "$launcher" = srun ]; then
    launch=(srun --mpi="$srun_mpi" --kill-on-bad-exit=1 --nodes="$nodes" --ntasks="$ranks")
    [ $((ranks % nodes)) -ne 0 ] || launch+=(--ntasks-per-node="$per_node")
  else
    launch=(mpiexec -n "$ranks")
    [ $((ranks % nodes)) -ne 0 ] || launch+=(-ppn "$per_node")
  fi
  echo "distopo $bench job $SLURM_JOB_ID on $(hostname): $nodes node(s) x $per_node ranks = $ranks," \
       "$cores cores per node seen, yield helper $yield, UCX_TLS=${UCX_TLS-<unset>}, $(date -Is)"
  echo "+ $(printf '%q ' "${launch[@]}" "$binary" ${args[@]+"${args[@]}"})> $stem.jsonl"
  local status=0
  "${launch[@]}" "$binary" ${args[@]+"${args[@]}"} >"$stem.jsonl" || status=$?
  echo "distopo $bench job $SLURM_JOB_ID: exit $status, $(wc -l <"$stem.jsonl") JSON lines, $(date -Is)"
  exit "$status"
}
