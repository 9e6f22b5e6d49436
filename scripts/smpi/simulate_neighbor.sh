#!/usr/bin/env bash
# The simulated study of neighborhood collectives at scale: distopo's
# neighbor_alltoallv (its own code, the algorithm chosen by the info key
# distopo_neighbor_algorithm) against MPICH 4.0.2's algorithm, under SimGrid
# SMPI, on multi-core hosts (--ranks-per-node ranks each) joined by the fat
# tree of fat_tree_platform.sh, in the machine model of neighbor_model.sh.
# One smpirun per (P, pattern, implementation, algorithm, model); rows are
# appended to --out as the driver prints them, each stamped with the commit of
# the tree simulated. Installs SimGrid and builds build-smpi and the patched
# SimGrid (build_simgrid.sh) if needed. What is simulated and why:
# docs/results/neighbor/README.md.
#
# Usage: bash scripts/smpi/simulate_neighbor.sh [options] P...
#   --pattern LIST         stencil27,laplace27_metis,random_kout (default: all three)
#   --impl LIST            direct (MPICH's algorithm), distopo   (default: both)
#   --algorithm LIST       distopo_neighbor_algorithm values, one run each (default: auto)
#   --form LIST            persistent,blocking                  (default: both)
#   --bytes LIST           mean block sizes                     (default: 8,64,256,1024,4096,16384,65536)
#   --model LIST           overheads,no_overheads               (default: overheads)
#   --ranks-per-node N     ranks per host                       (default: 64)
#   --reps N               timed calls per block size           (default: 3)
#   --poll-cost SECONDS    what one MPI_Iprobe or MPI_Test costs (default: the model's, 1e-7);
#                          rows then carry poll_cost_s: give them an --out of their own
#   --verify               private buffers, contents checked (small P only: no shared buffers)
#   --reorder              distopo's communicators made with reorder = true (the node-aware
#                          mapping); the direct baseline keeps the identity, as MPICH does
#   --out FILE             JSON lines, appended (default BUILD-DIR/results/neighbor_smpi.jsonl;
#                          the committed rows are docs/results/neighbor/smpi.jsonl: name it to add to them)
#   --log-dir DIR          one log per run (default BUILD-DIR/logs)
#   --build-dir DIR        the SMPI build (default build-smpi)
#   --skip-done            skip (P, pattern, impl, algorithm, model, form, bytes) rows already in --out
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build-smpi"
patterns=stencil27,laplace27_metis,random_kout impls=direct,distopo algorithms=auto forms=persistent,blocking
bytes=8,64,256,1024,4096,16384,65536 models=overheads per_node=64 reps=3 verify=() out="" log_dir="" skip_done=0
poll_cost="" reorder=()
sizes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --pattern) patterns=$2; shift 2 ;;
    --impl) impls=$2; shift 2 ;;
    --algorithm) algorithms=$2; shift 2 ;;
    --form) forms=$2; shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --model) models=$2; shift 2 ;;
    --ranks-per-node) per_node=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --poll-cost) poll_cost=$2; shift 2 ;;
    --verify) verify=(--verify); shift ;;
    --reorder) reorder=(--reorder); shift ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build=$(realpath -m "$2"); shift 2 ;;
    --log-dir) log_dir=$2; shift 2 ;;
    --skip-done) skip_done=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "simulate_neighbor.sh: unknown option $1" >&2; exit 2 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[ ${#sizes[@]} -gt 0 ] || { echo "usage: simulate_neighbor.sh [options] P..." >&2; exit 2; }
log_dir=$(realpath -m "${log_dir:-$build/logs}")
out=$(realpath -m "${out:-$build/results/neighbor_smpi.jsonl}")

source "$root/scripts/smpi/smpi_common.sh"
source "$root/scripts/smpi/neighbor_model.sh"
smpi_build "$build" neighbor_sim
smpi_simgrid "$build" 0
mkdir -p "$log_dir" "$(dirname "$out")"
touch "$out"
# The commit of the code simulated; "+" when the library or the driver has
# uncommitted changes.
commit=$(git -C "$root" rev-parse --short HEAD)
[ -z "$(git -C "$root" status --porcelain -- core neighbor distgraph mapping bench/smpi CMakeLists.txt)" ] || commit+="+"

poll_cfg=() poll_key=() poll_field=""
if [ -n "$poll_cost" ]; then
  poll_cfg=(--cfg=smpi/iprobe:"$poll_cost" --cfg=smpi/test:"$poll_cost")
  poll_key=("poll_cost_s=$poll_cost")
  poll_field=",\"poll_cost_s\":$poll_cost"
fi

for p in "${sizes[@]}"; do
  for model in ${models//,/ }; do
    neighbor_model "$model"
    model_cfg+=("${poll_cfg[@]}")
    neighbor_platform "$build" "$p" "$per_node"
    for pattern in ${patterns//,/ }; do
      for impl in ${impls//,/ }; do
        impl_algorithms=$algorithms
        [ "$impl" = direct ] && impl_algorithms=mpich_linear
        # Only distopo reorders: MPICH ignores reorder.
        impl_reorder=()
        [ "$impl" = distopo ] && impl_reorder=("${reorder[@]}")
        reorder_key="reorder="
        [ ${#impl_reorder[@]} -eq 0 ] || reorder_key="reorder=true"
        for algorithm in ${impl_algorithms//,/ }; do
          label="P=$p model=$model pattern=$pattern impl=$impl algorithm=$algorithm${impl_reorder:+ reorder}"
          # The (form, bytes) rows still to do.
          todo_forms=() todo_bytes=()
          for form in ${forms//,/ }; do
            for b in ${bytes//,/ }; do
              if [ "$skip_done" -eq 1 ] && smpi_row_done "$out" "P=$p" "model=$model" "pattern=$pattern" \
                "impl=$impl" "algorithm=$algorithm" "form=$form" "bytes=$b" "ranks_per_node=$per_node" \
                "$reorder_key" "${poll_key[@]}"; then
                continue
              fi
              [[ " ${todo_forms[*]} " == *" $form "* ]] || todo_forms+=("$form")
              [[ " ${todo_bytes[*]} " == *" $b "* ]] || todo_bytes+=("$b")
            done
          done
          if [ ${#todo_forms[@]} -eq 0 ]; then
            echo "skip  $label"
            continue
          fi
          log="$log_dir/neighbor_${model}_${pattern}_${impl}_${algorithm}_${p}_${per_node}pn${poll_cost:+_poll$poll_cost}${impl_reorder:+_reorder}.log"
          algorithm_args=()
          [ "$impl" = distopo ] && algorithm_args=(--algorithm "$algorithm")
          start=$(date +%s)
          measure=()
          [ -x /usr/bin/time ] && measure=(/usr/bin/time -f "peak_rss_kib=%M" -o "$log.cost")
          # smpirun writes temporary files into the current directory.
          if ! (cd "$log_dir" && LD_PRELOAD="$simgrid_preload" "${measure[@]}" smpirun -np "$p" -platform "$platform" \
            -hostfile "$hostfile" "${model_cfg[@]}" "${size_cfg[@]}" "$build/bench/smpi/neighbor_sim" \
            --pattern "$pattern" --impl "$impl" "${algorithm_args[@]}" --form "$(IFS=,; echo "${todo_forms[*]}")" \
            --bytes "$(IFS=,; echo "${todo_bytes[*]}")" --reps "$reps" "${verify[@]}" "${impl_reorder[@]}" "${model_args[@]}" \
            --model-name "$model" --platform "$(basename "$platform" .xml)" --ranks-per-node "$per_node") 2>"$log" |
            while IFS= read -r line; do
              printf '%s\n' "$line" >>"$log.rows"
              case "$line" in
                "{"*) printf '%s\n' "${line%\}},\"commit\":\"$commit\",\"simgrid\":\"patched\"$poll_field,\"sim_elapsed_s\":$(($(date +%s) - start))}" >>"$out" ;;
              esac
            done; then
            echo "FAIL  $label (see $log)" >&2
            exit 1
          fi
          echo "done  $label in $(($(date +%s) - start)) s"
        done
      done
    done
  done
done
