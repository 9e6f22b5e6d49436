#!/usr/bin/env bash
# The reorder mapping of dist_graph_create (distopo::detail::place_on_nodes),
# simulated under SimGrid SMPI on the fat tree and with the SMPI settings of
# simulate.sh: one graph node per simulated rank, emulated machine nodes of
# --ranks-per-node consecutive ranks. One smpirun per (P, path, ranks per
# node, compute mode) running the families not yet in --out; rows appended.
# What was simulated and why: docs/results/reorder/smpi.md.
#
# Usage: bash scripts/smpi/simulate_reorder.sh [options] P...
#   --family LIST          bench/mapping/reorder_graphs.hpp families   (default: stencil2d,stencil3d_permuted)
#   --path PATH            gathered (the default gather limit, 2^22 edges) or
#                          distributed (gather limit 1: the multilevel mapping)   (default gathered)
#   --ranks-per-node LIST  emulated ranks per machine node               (default 64)
#   --compute LIST         charged: the CPU time measured between MPI calls is charged 1:1
#                          network_only: computation costs no simulated time   (default charged)
#   --effort E             fast, balanced, thorough                      (default balanced)
#   --iprobe S             simulated cost of one MPI_Iprobe / MPI_Test (default 1e-7, as
#                          simulate.sh); charged runs of the distributed path poll
#                          while other ranks compute, which makes them slow to simulate
#   --calibrate S          rank 0 first burns S s of CPU and the row {"calibration":true}
#                          gives the simulated time it took (charged: should equal it)
#   --out FILE             JSON lines, appended (default BUILD-DIR/results/reorder_smpi.jsonl;
#                          the committed rows are docs/results/reorder/smpi.jsonl: name it to add to them)
#   --log-dir DIR          one log per run (default build-smpi/logs)
#   --build-dir DIR        the SMPI build (default build-smpi)
#   --skip-done            skip families whose (P, path, ranks per node, compute, family) row is in --out
#   --stock-simgrid        Debian's libsimgrid as installed, not the patched build of build_simgrid.sh:
#                          no 4-12 minute SimGrid build, the same simulated results
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build-smpi"
families=stencil2d,stencil3d_permuted path=gathered ranks_per_node=64 computes=charged effort=balanced
calibrate=0 iprobe=1e-7 out="" log_dir="" skip_done=0 stock_simgrid=0
sizes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --family) families=$2; shift 2 ;;
    --path) path=$2; shift 2 ;;
    --ranks-per-node) ranks_per_node=$2; shift 2 ;;
    --compute) computes=$2; shift 2 ;;
    --effort) effort=$2; shift 2 ;;
    --calibrate) calibrate=$2; shift 2 ;;
    --iprobe) iprobe=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build=$(realpath -m "$2"); shift 2 ;;
    --log-dir) log_dir=$2; shift 2 ;;
    --skip-done) skip_done=1; shift ;;
    --stock-simgrid) stock_simgrid=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "simulate_reorder.sh: unknown option $1" >&2; exit 2 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[ ${#sizes[@]} -gt 0 ] || { echo "usage: simulate_reorder.sh [options] P..." >&2; exit 2; }
case "$path" in gathered | distributed) ;; *) echo "simulate_reorder.sh: --path is gathered or distributed" >&2; exit 2 ;; esac
log_dir=${log_dir:-$build/logs}
out=${out:-$build/results/reorder_smpi.jsonl}

source "$root/scripts/smpi/smpi_common.sh"
smpi_build "$build" reorder_sim
smpi_simgrid "$build" "$stock_simgrid"
smpi_code_version
mkdir -p "$log_dir" "$(dirname "$out")"
touch "$out"

# simulate.sh's model, and MPICH 4.0.2's algorithms for the other
# collectives the mapping calls on small messages: MPI_Gather and
# MPI_Scatter binomial, MPI_Bcast binomial (MPI_Gatherv is linear in both).
smpi_model "$iprobe"
smpi_cfg+=(--cfg=smpi/gather:ompi_binomial --cfg=smpi/scatter:ompi_binomial --cfg=smpi/bcast:binomial_tree)

for p in "${sizes[@]}"; do
  smpi_platform "$build" "$p"
  for k in ${ranks_per_node//,/ }; do
    for compute in ${computes//,/ }; do
      case "$compute" in
        network_only) compute_cfg=(--cfg=smpi/simulate-computation:no) ;;
        # The platform's hosts run at 1 Gf, as smpi/host-speed says the host
        # running the simulation does: 1 s of CPU is 1 s simulated.
        charged) compute_cfg=(--cfg=smpi/simulate-computation:yes --cfg=smpi/host-speed:1Gf) ;;
        *) echo "simulate_reorder.sh: --compute is network_only or charged" >&2; exit 2 ;;
      esac
      todo=()
      for family in ${families//,/ }; do
        if [ "$skip_done" -eq 1 ] && smpi_row_done "$out" impl=distopo "P=$p" "compute=$compute" "family=$family" \
             "path=$path" "effort=$effort" "iprobe_s=$iprobe" "ranks_per_node=$k"; then
          echo "skip  P=$p path=$path k=$k compute=$compute family=$family"
          continue
        fi
        todo+=("$family")
      done
      [ ${#todo[@]} -gt 0 ] || continue
      list=$(IFS=,; echo "${todo[*]}")
      label="P=$p path=$path k=$k compute=$compute families=$list"
      log="$log_dir/reorder_${compute}_${path}_${effort}_iprobe${iprobe}_k${k}_${p}.log"
      measure_rss=()
      [ -x /usr/bin/time ] && measure_rss=(/usr/bin/time -f %M -o "$log.rss")
      load_start=$(cut -d' ' -f1 /proc/loadavg)
      start=$(date +%s)
      LD_PRELOAD="$simgrid_preload" \
        "${measure_rss[@]}" smpirun -np "$p" -platform "$platform" "${smpi_cfg[@]}" "${compute_cfg[@]}" "${size_cfg[@]}" \
        "$build/bench/smpi/reorder_sim" --family "$list" --ranks-per-node "$k" --path "$path" --effort "$effort" \
        --calibrate "$calibrate" --compute "$compute" --platform "fat_tree_$p" >"$log" 2>&1 || {
        echo "FAIL  $label (see $log)" >&2
        exit 1
      }
      # The simulator's own cost and the host's load (1-minute load average
      # at start and end): charged runs measure CPU time on a shared machine.
      load_end=$(cut -d' ' -f1 /proc/loadavg)
      cost=",\"commit\":\"$smpi_code\",\"iprobe_s\":$iprobe,\"simgrid\":\"$simgrid_label\",\"run_families\":${#todo[@]},\"sim_wall_s\":$(($(date +%s) - start)),\"loadavg\":[$load_start,$load_end]"
      [ -s "$log.rss" ] && cost+=",\"sim_peak_rss_mib\":$(($(tail -n 1 "$log.rss") / 1024))"
      rows=$(grep '^{' "$log" | sed "s/}\$/$cost}/")
      [ -n "$rows" ] || { echo "FAIL  $label: no rows (see $log)" >&2; exit 1; }
      printf '%s\n' "$rows" >>"$out"
      echo "done  $label in $(($(date +%s) - start)) s"
    done
  done
done
