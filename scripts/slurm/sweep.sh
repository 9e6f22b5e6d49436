#!/usr/bin/env bash
# Submits a strong- or weak-scaling sweep of the scaling study to Slurm: one
# job per (size, benchmark), each running scripts/slurm/distgraph_job.sh or
# scripts/slurm/neighbor_job.sh. Everything lands in a new dated folder
# (default results/slurm/<date>T<time>-<study>/): manifest.tsv (one line per
# submitted job), sweep.info (how it was called, the commit), jobs/ (per job:
# JSON lines, exit status, Slurm log). scripts/slurm/gather.sh then collects
# the folder into one results file. See --help.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

usage() {
  cat <<'EOF'
Usage: bash scripts/slurm/sweep.sh --study weak|strong --nodes LIST --ranks-per-node LIST [options]

Submits one Slurm job per size (every node count x every ranks-per-node value)
and benchmark, into a new dated folder, and prints the job ids.

Study:
  --study S             weak: the same edges per rank at every size;
                        strong: the same total edges at every size (edges per rank = total / P)
  --nodes LIST          node counts, e.g. 1,2,4,8 (default: 1)
  --ranks-per-node LIST MPI ranks per node, e.g. 64 or 2,4 (required)
  --bench B             distgraph, neighbor or both (default: both)
  --families LIST       distgraph_scaling's graph families (default: ring,stencil3d,random_kout,powerlaw;
                        all: ring,stencil2d,stencil3d,random_kout,powerlaw,rank0_whole,incoming_only)
  --topologies LIST     neighbor_bench's topologies (default: stencil2d,stencil3d,random_sparse)
  --edges-per-rank N    weak: degree of random_kout/powerlaw/rank0_whole/incoming_only and of
                        neighbor_bench's random_sparse (default: 16; ring and stencils keep theirs)
  --total-edges N       strong: edges of those families in all (default: 16 x the largest P)
  --reps N              timed repetitions per measurement (default: 11)
  --max-bytes N         neighbor_bench's largest block per neighbor (default: its own, 1 MiB)
  --distgraph-args "A"  more distgraph_scaling options, split at spaces (e.g. "--warmup 5 --fresh-comm")
  --neighbor-args "A"   more neighbor_bench options, split at spaces (e.g. "--op alltoall")

Slurm (nothing in the scripts needs editing for a cluster):
  --partition P         partition (default: the cluster's default)
  --account A           account to charge (default: yours)
  --time T              time limit per job (default: 00:30:00)
  --no-exclusive        share nodes with other jobs (default: --exclusive, for clean timings)
  --sbatch-arg ARG      one more sbatch option, repeatable (e.g. --sbatch-arg=--qos=long)
  --launcher L          srun (default: srun --mpi=pmi2) or mpiexec (MPICH's hydra in the allocation)
  --srun-mpi TYPE       srun's --mpi plugin (default: pmi2)
  --yield MODE          auto|on|off: the yield helper for oversubscribed nodes (default: auto,
                        on when ranks per node exceed the cores a job sees)
  --ucx-tls VALUE       auto (default: self,posix on one node, the environment's on several),
                        inherit, or a value to export in the job

Paths:
  --build-dir DIR       build with the benchmarks (default: build-release); configured
                        (Release, no tests) and built before submitting unless --no-build
  --no-build            use the build directory as it is
  --results-dir DIR     parent of the dated folder (default: results/slurm)
  --dry-run             print the sbatch lines, submit and create nothing
  -h, --help            this text

Example (a cluster): bash scripts/slurm/sweep.sh --study weak --partition compute --nodes 1,2,4,8 --ranks-per-node 64
Then: bash scripts/slurm/gather.sh results/slurm/<folder> [--wait SECONDS]
EOF
}

die() {
  echo "sweep: $*" >&2
  exit 2
}

positive() {  # <option> <value>
  [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer, not '$2'"
}

# The words of a command as a shell would read them back, quoting only where needed.
quoted() {
  local word out=""
  for word in "$@"; do
    if [[ $word =~ ^[A-Za-z0-9_./:=%,@+-]+$ ]]; then out+="$word "; else out+="$(printf '%q' "$word") "; fi
  done
  echo "${out% }"
}

# Absolute form of a path given relative to the caller's directory.
absolute() {
  case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac
}

study="" nodes_list=1 per_node_list="" bench=both
families=ring,stencil3d,random_kout,powerlaw topologies=""
edges_per_rank="" total_edges="" reps=11 max_bytes="" distgraph_args="" neighbor_args=""
partition="" account="" time_limit=00:30:00 exclusive=1 launcher=srun srun_mpi=pmi2 yield=auto ucx_tls=auto
build_dir="$root/build-release" build=1 results_dir="$root/results/slurm" dry_run=0
sbatch_extra=()
invocation=$(quoted "$0" "$@")

while [ $# -gt 0 ]; do
  option=$1
  value=""
  case $option in
    --*=*) value=${option#*=}; option=${option%%=*} ;;
    --study | --nodes | --ranks-per-node | --bench | --families | --topologies | --edges-per-rank | \
    --total-edges | --reps | --max-bytes | --distgraph-args | --neighbor-args | --partition | --account | \
    --time | --sbatch-arg | --launcher | --srun-mpi | --yield | --ucx-tls | --build-dir | --results-dir)
      [ $# -ge 2 ] || die "$option needs a value"
      value=$2
      shift ;;
  esac
  case $option in
    --study) study=$value ;;
    --nodes) nodes_list=$value ;;
    --ranks-per-node) per_node_list=$value ;;
    --bench) bench=$value ;;
    --families) families=$value ;;
    --topologies) topologies=$value ;;
    --edges-per-rank) edges_per_rank=$value ;;
    --total-edges) total_edges=$value ;;
    --reps) reps=$value ;;
    --max-bytes) max_bytes=$value ;;
    --distgraph-args) distgraph_args=$value ;;
    --neighbor-args) neighbor_args=$value ;;
    --partition) partition=$value ;;
    --account) account=$value ;;
    --time) time_limit=$value ;;
    --no-exclusive) exclusive=0 ;;
    --sbatch-arg) sbatch_extra+=("$value") ;;
    --launcher) launcher=$value ;;
    --srun-mpi) srun_mpi=$value ;;
    --yield) yield=$value ;;
    --ucx-tls) ucx_tls=$value ;;
    --build-dir) build_dir=$(absolute "$value") ;;
    --no-build) build=0 ;;
    --results-dir) results_dir=$(absolute "$value") ;;
    --dry-run) dry_run=1 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
  shift
done

case $study in weak | strong) ;; "") die "--study weak or --study strong is required (see --help)" ;; *) die "--study is weak or strong" ;; esac
case $bench in distgraph) benches=(distgraph) ;; neighbor) benches=(neighbor) ;; both) benches=(distgraph neighbor) ;; *) die "--bench is distgraph, neighbor or both" ;; esac
case $launcher in srun | mpiexec) ;; *) die "--launcher is srun or mpiexec" ;; esac
case $yield in auto | on | off) ;; *) die "--yield is auto, on or off" ;; esac
[ -n "$per_node_list" ] || die "--ranks-per-node is required (see --help)"
IFS=, read -r -a node_counts <<<"$nodes_list"
IFS=, read -r -a per_node_counts <<<"$per_node_list"
[ ${#node_counts[@]} -gt 0 ] || die "--nodes is empty"
for n in "${node_counts[@]}"; do positive --nodes "$n"; done
for r in "${per_node_counts[@]}"; do positive --ranks-per-node "$r"; done
positive --reps "$reps"
[ -z "$max_bytes" ] || positive --max-bytes "$max_bytes"
[[ -n $families && $families != *" "* ]] || die "--families is a comma-separated list without spaces"
[[ $topologies != *" "* ]] || die "--topologies is a comma-separated list without spaces"
read -r -a distgraph_extra <<<"$distgraph_args"
read -r -a neighbor_extra <<<"$neighbor_args"

largest=0
for n in "${node_counts[@]}"; do
  for r in "${per_node_counts[@]}"; do [ $((n * r)) -le "$largest" ] || largest=$((n * r)); done
done
if [ "$study" = weak ]; then
  [ -z "$total_edges" ] || die "--total-edges is for --study strong; weak scaling takes --edges-per-rank"
  edges_per_rank=${edges_per_rank:-16}
  positive --edges-per-rank "$edges_per_rank"
else
  [ -z "$edges_per_rank" ] || die "--edges-per-rank is for --study weak; strong scaling takes --total-edges"
  total_edges=${total_edges:-$((16 * largest))}
  positive --total-edges "$total_edges"
fi

scripts_dir="$root/scripts/slurm"
if [ "$dry_run" -eq 0 ]; then
  command -v sbatch >/dev/null || die "sbatch is not on PATH: run this on a Slurm login node (or look with --dry-run)"
fi
if [ "$build" -eq 1 ] && [ "$dry_run" -eq 0 ]; then
  # Configured like scripts/run_main.sh's build (Release, no tests), on the
  # login node; the compute nodes read it from the shared file system.
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    echo "sweep: configuring $build_dir (Release)"
    log=$(cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DDISTOPO_BUILD_TESTS=OFF 2>&1) ||
      { echo "$log" >&2; die "cmake could not configure $build_dir"; }
  fi
  log=$(cmake --build "$build_dir" -j "$(nproc)" --target distopo_ucx_yield distgraph_scaling neighbor_bench scaling_report 2>&1) ||
    { echo "$log" >&2; die "the build in $build_dir failed"; }
fi
for b in "${benches[@]}"; do
  binary="$build_dir/bench/$([ "$b" = distgraph ] && echo distgraph_scaling || echo neighbor_bench)"
  if [ ! -x "$binary" ]; then
    [ "$dry_run" -eq 1 ] || die "$binary is missing (drop --no-build, or build it)"
    echo "sweep: note: $binary is not built yet" >&2
  fi
done

# A new folder per sweep, never reused: <date>T<time>-<study>[-k].
stamp=$(date +%Y-%m-%dT%H%M%S)
folder="$results_dir/$stamp-$study"
k=2
while [ -e "$folder" ]; do
  folder="$results_dir/$stamp-$study-$k"
  k=$((k + 1))
done

if [ "$dry_run" -eq 1 ]; then
  echo "# dry run: would create $folder and submit:"
else
  mkdir -p "$folder/jobs"
  {
    echo "created=$(date -Is)"
    echo "host=$(hostname)"
    echo "invocation=$invocation"
    if commit=$(git -C "$root" rev-parse HEAD 2>/dev/null); then
      git -C "$root" diff --quiet HEAD 2>/dev/null || commit+=" (with local changes)"
      echo "commit=$commit"
    else
      echo "commit=unknown (not a git checkout)"
    fi
    echo "build_dir=$build_dir"
    echo "study=$study"
  } >"$folder/sweep.info"
  printf 'job_id\tbench\tstudy\tnodes\tranks_per_node\tranks\tedges_per_rank\tfamilies\tlauncher\tstem\n' >"$folder/manifest.tsv"
fi

submitted=0
for n in "${node_counts[@]}"; do
  for r in "${per_node_counts[@]}"; do
    ranks=$((n * r))
    if [ "$study" = weak ]; then
      edges=$edges_per_rank
    else
      edges=$((total_edges / ranks))
      [ "$edges" -ge 1 ] || die "--total-edges $total_edges gives no edge per rank at P=$ranks"
      [ $((edges * ranks)) -eq "$total_edges" ] ||
        echo "sweep: note: $total_edges edges over $ranks ranks: $edges per rank ($((edges * ranks)) in all)" >&2
    fi
    for b in "${benches[@]}"; do
      name="$b-N$n-R$r"
      command=(sbatch --parsable --job-name "distopo-$study-$name" --nodes "$n" --ntasks-per-node "$r"
               --time "$time_limit" --output "$folder/jobs/$name-%j.log")
      [ -z "$partition" ] || command+=(--partition "$partition")
      [ -z "$account" ] || command+=(--account "$account")
      [ "$exclusive" -eq 0 ] || command+=(--exclusive)
      command+=(${sbatch_extra[@]+"${sbatch_extra[@]}"})
      command+=("$scripts_dir/${b}_job.sh" --repo "$root" --build-dir "$build_dir" --out-dir "$folder/jobs"
                --name "$name" --launcher "$launcher" --srun-mpi "$srun_mpi" --yield "$yield" --ucx-tls "$ucx_tls"
                --reps "$reps")
      if [ "$b" = distgraph ]; then
        job_families=$families
        command+=(--families "$families" --edges-per-rank "$edges")
        [ ${#distgraph_extra[@]} -eq 0 ] || command+=(-- "${distgraph_extra[@]}")
      else
        job_families=${topologies:-stencil2d,stencil3d,random_sparse}
        [ -z "$topologies" ] || command+=(--topologies "$topologies")
        command+=(--degree "$edges")
        [ -z "$max_bytes" ] || command+=(--max-bytes "$max_bytes")
        [ ${#neighbor_extra[@]} -eq 0 ] || command+=(-- "${neighbor_extra[@]}")
      fi
      if [ "$dry_run" -eq 1 ]; then
        quoted "${command[@]}"
        continue
      fi
      if ! reply=$("${command[@]}"); then
        echo "sweep: sbatch failed for $name; $submitted job(s) submitted before it are listed in $folder/manifest.tsv" >&2
        exit 1
      fi
      job_id=${reply%%;*}
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$job_id" "$b" "$study" "$n" "$r" "$ranks" "$edges" \
        "$job_families" "$launcher" "jobs/$name-$job_id" >>"$folder/manifest.tsv"
      printf '%s\t%s N=%s x %s (P=%s, %s edges per rank)\n' "$job_id" "$b" "$n" "$r" "$ranks" "$edges"
      submitted=$((submitted + 1))
    done
  done
done

if [ "$dry_run" -eq 0 ]; then
  echo "sweep: $submitted job(s) submitted; results in $folder"
  echo "sweep: gather them with: bash scripts/slurm/gather.sh $folder --wait 86400"
fi
