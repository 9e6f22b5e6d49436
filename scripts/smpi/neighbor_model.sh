# The simulated machine of the neighborhood-collective study, shared by
# simulate_neighbor.sh and check_neighbor_model.sh. Sourced; expects $root.
# Where each value comes from: docs/results/neighbor/README.md ("The simulated
# machine").

# Sets model_args (the driver's options) and model_cfg (SMPI settings) for
# model $1:
#   overheads      per-message CPU overheads and the network's per-message
#                  wire cost as published (below), copies at a core's copy
#                  bandwidth
#   no_overheads   the same machine with every per-message cost at zero: no
#                  send or receive overhead, no wire cost per message; latency,
#                  bandwidth and the copies stay
neighbor_model() {
  local network_overhead shm_overhead wire_bytes
  case "$1" in
    overheads)
      network_overhead=163e-9  # 1 / 6.15 M messages/s, osu_mbw_mr 8 B over a network transport (UCX issue 1831)
      shm_overhead=83e-9       # 1 / 12.06 M messages/s, osu_mbw_mr 8 B over shared memory (same table)
      # 12.5 GB/s / 215 M messages/s (ConnectX-6 message rate) = 58 bytes
      # per message in the NIC's queue, of which SMPI already counts 16 (its
      # message envelope).
      wire_bytes=42
      ;;
    no_overheads)
      network_overhead=0 shm_overhead=0 wire_bytes=0
      ;;
    *) echo "neighbor_model: unknown model $1 (overheads, no_overheads)" >&2; return 2 ;;
  esac
  # A core copies 11.17 GB/s (osu_mbw_mr 16 KiB over shared memory, same
  # table); the loopback link is fast because an eager message's copies are
  # charged to the two ranks' overheads, a rendezvous message's one copy at
  # the copy bandwidth (machine_model.hpp).
  neighbor_copy_bandwidth=11.17e9
  neighbor_loopback_bandwidth=1e12
  neighbor_loopback_latency=92ns  # 0.258 us shared-memory latency (UCX PR 1959) minus the two overheads
  neighbor_eager_limit=65536
  model_args=(--network-overhead "$network_overhead" --shm-overhead "$shm_overhead"
              --copy-bandwidth "$neighbor_copy_bandwidth" --wire-bytes "$wire_bytes"
              --loopback-bandwidth "$neighbor_loopback_bandwidth" --eager-limit "$neighbor_eager_limit"
              --nic-bandwidth 12.5e9 --hop-latency 0.5e-6)
  model_cfg=(
    --cfg=smpi/privatization:no
    --cfg=contexts/stack-size:128
    # No smpi/lat-factor or smpi/bw-factor: the model's callbacks set both
    # (SMPI refuses the settings beside them).
    --cfg=smpi/async-small-thresh:$neighbor_eager_limit --cfg=smpi/send-is-detached-thresh:$neighbor_eager_limit
    --cfg=smpi/overheads-timeline:yes
    # The links between hosts are 1e15 B/s (the NIC queue of the model is
    # their bandwidth); SimGrid's TCP window bound (gamma / 2 latency) would
    # otherwise cap them at 4 TB/s.
    --cfg=network/TCP-gamma:1e20
    --cfg=smpi/iprobe:1e-7 --cfg=smpi/test:1e-7 --cfg=smpi/grow-injected-times:no
    # MPI_Wtime costs nothing (SMPI's default charges 10 ns per call).
    --cfg=smpi/wtime:0
    --cfg=smpi/barrier:ompi_bruck --cfg=smpi/allreduce:rdb
    # MPICH's MPI_Exscan (node discovery in a reordering create): SimGrid's
    # own sends P^2 / 2 messages (the exscan patch of build_simgrid.sh).
    --cfg=smpi/exscan-recursive-doubling:yes
    --cfg=smpi/simulate-computation:no
    --log=root.thres:warning
  )
}

# Writes the platform of $2 ranks, $3 per host, and its hostfile under $1;
# sets platform and hostfile (and size_cfg, as smpi_platform does). $4, if
# given: node_platform.sh's --host-numbers.
neighbor_platform() {
  local build=$1 p=$2 per_host=$3 numbers=()
  [ -z "${4:-}" ] || numbers=(--host-numbers "$4")
  size_cfg=()
  if [ "$(cat /proc/sys/vm/max_map_count)" -lt $((16 * p)) ] && ! sysctl -qw vm.max_map_count=$((16 * p)) 2>/dev/null; then
    size_cfg=(--cfg=contexts/guard-size:0)
  fi
  platform="$build/platforms/nodes_${p}_${per_host}pn.xml"
  hostfile="$build/platforms/hosts_${p}_${per_host}pn.txt"
  mkdir -p "$build/platforms"
  bash "$root/scripts/smpi/node_platform.sh" --ranks-per-host "$per_host" --link-bw 1e15Bps \
    --loopback-bw "${neighbor_loopback_bandwidth}Bps" --loopback-lat "$neighbor_loopback_latency" \
    --hostfile "$hostfile" "${numbers[@]}" "$p" >"$platform"
}
