#!/usr/bin/env bash
# Prints the SimGrid platform of the neighborhood-collective study for P
# ranks: ceil(P / N) multi-core hosts (machine nodes) of N ranks each, ranks
# N * h ... N * h + N - 1 on host h (--hostfile writes the hostfile that
# places them so). A message between two hosts crosses one link, its sending
# host's (--link-bw, default 12.5 GB/s; latency 0.5 us, one fat-tree hop); a
# message within a host crosses the host's loopback link (every message on
# its own: --loopback-bw, --loopback-lat).
#
# The study gives the links a bandwidth far beyond the NIC's, and the machine
# model (bench/smpi/machine_model.hpp) queues each message in its sending
# host's NIC and sets its latency to the hops between the two hosts in the
# fat tree of fat_tree_platform.sh. Why not that fat tree itself, with the
# hosts' links shared: a message then crosses switch links and the
# receiving host's link too, which tie every message in flight into one
# system of shared links that SimGrid solves again at every message's start
# and end; with thousands of ranks sending 26 messages each at once, the
# first block size at 4096 ranks (four calls) had not finished after 25
# minutes, and sharing one host's link alone was still too slow.
#
# Usage: bash scripts/smpi/node_platform.sh --ranks-per-host N [--link-bw BW] [--loopback-bw BW]
#            [--loopback-lat LAT] [--hostfile FILE] [--host-numbers h1,h2,...] P > platform.xml
#   --host-numbers: the hosts are node-<100000 + h> for these h (default 0, 1, ...)
set -euo pipefail
per_host="" link_bw=12.5GBps loopback_bw=100GBps loopback_lat=0 hostfile="" numbers=""
while [ $# -gt 1 ]; do
  case "$1" in
    --ranks-per-host) per_host=$2; shift 2 ;;
    --link-bw) link_bw=$2; shift 2 ;;
    --loopback-bw) loopback_bw=$2; shift 2 ;;
    --loopback-lat) loopback_lat=$2; shift 2 ;;
    --hostfile) hostfile=$2; shift 2 ;;
    --host-numbers) numbers=$2; shift 2 ;;
    *) echo "node_platform.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
p=${1:?usage: node_platform.sh --ranks-per-host N [options] P}
[ -n "$per_host" ] || { echo "node_platform.sh: --ranks-per-host is required" >&2; exit 2; }
hosts=$(( (p + per_host - 1) / per_host ))
[ -n "$numbers" ] || numbers=$(seq -s, 0 $((hosts - 1)))
IFS=, read -r -a number <<<"$numbers"
[ "${#number[@]}" -eq "$hosts" ] || { echo "node_platform.sh: --host-numbers needs $hosts numbers" >&2; exit 2; }
if [ -n "$hostfile" ]; then
  for ((r = 0; r < p; ++r)); do echo "node-$((100000 + number[r / per_host]))"; done >"$hostfile"
fi
/usr/bin/python3 - "$numbers" "$per_host" "$link_bw" "$loopback_bw" "$loopback_lat" "$0 --ranks-per-host $per_host $p" <<'PY'
import sys
numbers, per_host, link_bw, loopback_bw, loopback_lat, command = sys.argv[1:7]
names = [f"node-{100000 + int(h)}" for h in numbers.split(",")]
hosts = len(names)
out = sys.stdout
out.write("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n")
out.write(f"<!-- {command}: {hosts} hosts of {per_host} cores; a message between hosts crosses its\n"
          "     sending host's link only (bench/smpi/machine_model.hpp adds the NIC queue and the hops). -->\n")
out.write('<platform version="4.1">\n  <zone id="world" routing="Full">\n')
for name in names:
    out.write(f'    <host id="{name}" speed="1Gf" core="{per_host}"/>\n')
for name in names:
    out.write(f'    <link id="{name}-out" bandwidth="{link_bw}" latency="0.5us" sharing_policy="FATPIPE"/>\n')
    out.write(f'    <link id="{name}-loopback" bandwidth="{loopback_bw}" latency="{loopback_lat}" '
              'sharing_policy="FATPIPE"/>\n')
for src in names:
    for dst in names:
        link = f"{src}-loopback" if src == dst else f"{src}-out"
        out.write(f'    <route src="{src}" dst="{dst}" symmetrical="NO"><link_ctn id="{link}"/></route>\n')
out.write("  </zone>\n</platform>\n")
PY
