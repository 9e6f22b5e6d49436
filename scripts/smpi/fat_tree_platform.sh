#!/usr/bin/env bash
# Prints the SimGrid platform of the simulated scaling study for P hosts:
# single-core hosts on a fat tree of radix-64 switches with full bisection
# bandwidth, every link 12.5 GB/s (100 Gb/s) and 0.5 us.
#   leaf switches:     32 hosts down, 32 links up
#   second level:      32 leaf switches down, 32 links up (1024 hosts below each)
#   top level:         as many second-level groups as P needs (up to 64: 65536 hosts)
# Hosts under one leaf are 2 links apart (1 us), under one second-level group
# 4 links (2 us), otherwise 6 links (3 us). Smaller P gets the same tree cut
# to size, so two ranks are as far apart at every P. Rank r runs on host
# node-(100000 + r), the r-th host under the leaves in order: SimGrid places
# and lists a cluster's hosts in the order of their names, so the numbers all
# have six digits (with node-0 ... node-1023, node-0's leaf mates were node-1,
# node-10, node-100 ..., and ranks 0 and 3 were 4 links apart).
#
# With --ranks-per-host N (the neighborhood-collective study), the hosts are
# multi-core machine nodes: ceil(P / N) hosts of N cores each, ranks
# N * h ... N * h + N - 1 on host h (write the hostfile with --hostfile), and
# ranks on one host talk through the host's loopback link (--loopback-bw,
# --loopback-lat; each message gets the whole loopback bandwidth: SimGrid makes
# a cluster's loopback a FATPIPE). All ranks of a host share its one link to
# the leaf switch: the node's injection bandwidth.
# Usage: bash scripts/smpi/fat_tree_platform.sh [--ranks-per-host N] [--loopback-bw BW]
#            [--loopback-lat LAT] [--hostfile FILE] P > platform.xml
set -euo pipefail
per_host=1 loopback_bw=100GBps loopback_lat=0 hostfile=""
while [ $# -gt 1 ]; do
  case "$1" in
    --ranks-per-host) per_host=$2; shift 2 ;;
    --loopback-bw) loopback_bw=$2; shift 2 ;;
    --loopback-lat) loopback_lat=$2; shift 2 ;;
    --hostfile) hostfile=$2; shift 2 ;;
    *) echo "fat_tree_platform.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
p=${1:?usage: fat_tree_platform.sh [options] P}
used=$(( (p + per_host - 1) / per_host ))  # hosts that carry ranks
if [ "$used" -le 1024 ]; then
  hosts=1024 shape="2;32,32;1,32;1,1"
else
  groups=$(( (used + 1023) / 1024 ))
  hosts=$(( groups * 1024 )) shape="3;32,32,$groups;1,32,32;1,1,1"
fi
if [ -n "$hostfile" ]; then
  for ((r = 0; r < p; ++r)); do echo "node-$((100000 + r / per_host))"; done >"$hostfile"
fi
cores=
[ "$per_host" -gt 1 ] && cores=" core=\"$per_host\""
cat <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- $(basename "$0") $p: a radix-64 fat tree (topo_parameters levels;down;up;parallel
     links) of 12.5 GB/s, 0.5 us links. The host speed matters only where
     computation is charged; it equals smpi/host-speed, so measured CPU time
     is charged 1:1. -->
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="fattree" topology="FAT_TREE" topo_parameters="$shape"
             prefix="node-" radical="100000-$((100000 + hosts - 1))" suffix="" speed="1Gf"
             bw="12.5GBps" lat="0.5us" loopback_bw="$loopback_bw" loopback_lat="$loopback_lat"$cores/>
  </zone>
</platform>
XML
