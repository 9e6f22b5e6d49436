#!/usr/bin/env bash
# The simulated scaling study of dist_graph_create's edge exchange: distopo's
# redistribute_edges() against MPICH 4.0.2's algorithm, under SimGrid SMPI, on
# the fat tree of fat_tree_platform.sh. One smpirun per (P, implementation,
# family), so a long sweep can be stopped and resumed, rows appended to --out.
# Installs SimGrid (libsimgrid-dev) and builds the SMPI configuration
# (build-smpi) if needed. What the SMPI settings model, and why: docs/results/scaling/README.md.
#
# Usage: bash scripts/smpi/simulate.sh [options] P...
#   --impl LIST            distopo,mpich_alg               (default: both)
#   --family LIST          graph families                   (default: ring,random_kout,powerlaw)
#   --compute MODE         network_only: computation costs no simulated time
#                          charged: the CPU time measured between MPI calls is charged 1:1
#   --reduce-scatter ALG   auto (MPICH 4.0.2's choice: recursive halving while the
#                          8P-byte message is below 512 KiB, i.e. P < 65536, else
#                          pairwise), recursive_halving or pairwise
#   --weights W            repeated (the families' weights, 1-4; default) or distinct
#                          (each rank's edges weigh differently). DISTOPO_BY_SOURCE in the environment
#                          reaches distopo's runs and their rows (by_source)
#   --edges-per-rank K     (default 16)   --reps N (default 1; 5 when charged, without the heap meter)
#   --warmup N             untimed calls on the graph before the timed ones (default 1);
#                          the time is the same without (network only), but SMPI's
#                          first-use allocations then show in total_bytes_per_rank
#   --iprobe S             simulated cost of one MPI_Iprobe / MPI_Test (default 1e-7)
#   --out FILE             JSON lines, appended (default BUILD-DIR/results/scaling_smpi.jsonl;
#                          the committed rows are docs/results/scaling/smpi.jsonl: name it to add to them)
#   --log-dir DIR          one log per run (default build-smpi/logs)
#   --build-dir DIR        the SMPI build (default build-smpi)
#   --skip-done            skip (P, impl, family, compute, and for mpich_alg reduce_scatter)
#                          rows already in --out (rows are parsed: any JSON spacing)
#   --ranks-per-node N     hosts of N ranks (node_platform.sh) in the machine model of
#                          neighbor_model.sh (--model) instead of one rank per host on the
#                          fat tree; network_only only, on the patched SimGrid
#   --model NAME           with --ranks-per-node: overheads (default) or no_overheads
#   --exchange LIST        distopo's routes: direct,node_aware (default: direct); node_aware
#                          gathers per node pair (DISTOPO_EXCHANGE) on nodes of
#                          --ranks-per-node ranks (DISTOPO_RANKS_PER_NODE)
#   --stock-simgrid        run on Debian's libsimgrid as installed, not on the patched
#                          build of build_simgrid.sh: no 4-12 minute SimGrid build,
#                          the same simulated results, slower in real time at large P
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build-smpi"
impls=distopo,mpich_alg families=ring,random_kout,powerlaw compute=network_only
reduce_scatter=auto edges=16 weights=repeated reps="" warmup=1 iprobe=1e-7 out="" log_dir="" skip_done=0
stock_simgrid=0 per_node=0 model=overheads exchanges=direct
sizes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --impl) impls=$2; shift 2 ;;
    --family) families=$2; shift 2 ;;
    --compute) compute=$2; shift 2 ;;
    --reduce-scatter) reduce_scatter=$2; shift 2 ;;
    --edges-per-rank) edges=$2; shift 2 ;;
    --weights) weights=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --iprobe) iprobe=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build=$(realpath -m "$2"); shift 2 ;;
    --log-dir) log_dir=$2; shift 2 ;;
    --skip-done) skip_done=1; shift ;;
    --stock-simgrid) stock_simgrid=1; shift ;;
    --ranks-per-node) per_node=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --exchange) exchanges=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "simulate.sh: unknown option $1" >&2; exit 2 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[ ${#sizes[@]} -gt 0 ] || { echo "usage: simulate.sh [options] P..." >&2; exit 2; }
case "$compute" in
  network_only) compute_cfg=(--cfg=smpi/simulate-computation:no); : "${reps:=1}" ;;
  charged) compute_cfg=(--cfg=smpi/simulate-computation:yes --cfg=smpi/host-speed:1Gf); : "${reps:=5}" ;;
  *) echo "simulate.sh: --compute is network_only or charged" >&2; exit 2 ;;
esac
log_dir=${log_dir:-$build/logs}
out=${out:-$build/results/scaling_smpi.jsonl}

source "$root/scripts/smpi/smpi_common.sh"
smpi_build "$build" edge_exchange_sim distopo_actor_heap_meter
smpi_simgrid "$build" "$stock_simgrid"
smpi_code_version
mkdir -p "$log_dir" "$(dirname "$out")"
touch "$out"

smpi_model "$iprobe"
smpi_cfg+=("${compute_cfg[@]}")
model_args=() neighbor_args=()
if [ "$per_node" -gt 0 ]; then
  [ "$compute" = network_only ] || { echo "simulate.sh: --ranks-per-node runs network_only" >&2; exit 2; }
  [ "$stock_simgrid" -eq 0 ] || { echo "simulate.sh: --ranks-per-node needs the patched SimGrid" >&2; exit 2; }
  source "$root/scripts/smpi/neighbor_model.sh"
  neighbor_model "$model"
  smpi_cfg=("${model_cfg[@]}")
  neighbor_args=("${model_args[@]}")
  model_args=(--model-name "$model")
fi

for p in "${sizes[@]}"; do
  host_cfg=() platform_label="fat_tree_$p"
  if [ "$per_node" -gt 0 ]; then
    neighbor_platform "$build" "$p" "$per_node"
    host_cfg=(-hostfile "$hostfile")
    platform_label=$(basename "$platform" .xml)
  else
    smpi_platform "$build" "$p"
  fi
  rs=$reduce_scatter
  if [ "$rs" = auto ]; then
    if [ $((8 * p)) -lt 524288 ]; then rs=recursive_halving; else rs=pairwise; fi
  fi
  case "$rs" in
    recursive_halving) rs_cfg=ompi_basic_recursivehalving ;;
    pairwise) rs_cfg=mpich_pair ;;
    *) echo "simulate.sh: --reduce-scatter is auto, recursive_halving or pairwise" >&2; exit 2 ;;
  esac
  # The heap meter's bookkeeping on every allocation would be charged as
  # computation: charged runs go without it (the heap is the same as in the
  # network-only rows).
  heap_meter="$build/bench/smpi/libdistopo_actor_heap_meter.so"
  [ "$compute" = charged ] && heap_meter=
  for impl_route in $(for i in ${impls//,/ }; do
    if [ "$i" = distopo ]; then for e in ${exchanges//,/ }; do echo "$i:$e"; done; else echo "$i:mpich"; fi
  done); do
    impl=${impl_route%%:*} exchange=${impl_route#*:}
    for family in ${families//,/ }; do
      # The reduce_scatter algorithm is a setting of MPICH's algorithm only.
      label="P=$p impl=$impl family=$family compute=$compute weights=$weights"
      done_fields=("P=$p" "impl=$impl" "family=$family" "compute=$compute" "edges_per_rank=$edges")
      [ "$weights" = repeated ] || done_fields+=("weights=$weights")
      if [ "$impl" != distopo ]; then
        label+=" reduce_scatter=$rs"
        done_fields+=("reduce_scatter=$rs")
      fi
      route_env=()
      if [ "$per_node" -gt 0 ]; then
        label+=" ranks_per_node=$per_node model=$model exchange=$exchange"
        done_fields+=("ranks_per_node=$per_node" "model=$model" "exchange=$exchange")
        route_env=(DISTOPO_EXCHANGE="$exchange" DISTOPO_RANKS_PER_NODE="$per_node")
      elif [ "$exchange" = node_aware ]; then
        echo "simulate.sh: --exchange node_aware needs --ranks-per-node" >&2
        exit 2
      fi
      if [ "$skip_done" -eq 1 ] && smpi_row_done "$out" "${done_fields[@]}"; then
        echo "skip  $label"
        continue
      fi
      log="$log_dir/${compute}_${rs}_${impl}_${family}_$p.log"
      [ "$per_node" -gt 0 ] && log="$log_dir/${model}_${per_node}pn_${impl}_${exchange}_${family}_${edges}e_$p.log"
      # The simulator's own cost (wall time, peak resident memory) goes into each row.
      measure_rss=()
      [ -x /usr/bin/time ] && measure_rss=(/usr/bin/time -f %M -o "$log.rss")
      start=$(date +%s)
      env "${route_env[@]}" LD_PRELOAD="$simgrid_preload${heap_meter:+ $heap_meter}" \
        "${measure_rss[@]}" smpirun -np "$p" -platform "$platform" "${host_cfg[@]}" "${smpi_cfg[@]}" "${size_cfg[@]}" --cfg=smpi/reduce_scatter:$rs_cfg \
        "$build/bench/smpi/edge_exchange_sim" --impl "$impl" --family "$family" --edges-per-rank "$edges" --weights "$weights" \
        --reps "$reps" --warmup "$warmup" --compute "$compute" --reduce-scatter "$rs" \
        --platform "$platform_label" --iprobe "$iprobe" "${model_args[@]}" "${neighbor_args[@]}" >"$log" 2>&1 || {
        echo "FAIL  $label (see $log)" >&2
        exit 1
      }
      cost=",\"commit\":\"$smpi_code\",\"simgrid\":\"$simgrid_label\",\"sim_wall_s\":$(( $(date +%s) - start ))"
      [ -s "$log.rss" ] && cost+=",\"sim_peak_rss_mib\":$(( $(tail -n 1 "$log.rss") / 1024 ))"
      rows=$(grep '^{' "$log" | sed "s/}\$/$cost}/")
      [ -n "$rows" ] || { echo "FAIL  $label: no rows (see $log)" >&2; exit 1; }
      printf '%s\n' "$rows" >>"$out"
      echo "done  $label in $(( $(date +%s) - start )) s"
    done
  done
done
