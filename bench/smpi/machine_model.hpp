#pragma once
// What a message costs in the simulated machine beyond the platform's links:
// SMPI's per-message send and receive overheads (the smpi/os, smpi/ois and
// smpi/or settings, given here as SMPI's cost callbacks so that they can
// depend on whether the two ranks share a host) and the network's
// per-message wire cost. The same for every message of every algorithm.
// Values and their sources: docs/results/neighbor/README.md.
//
// A message of S bytes between ranks on different hosts (SMPI adds 16 bytes
// of envelope: S' = S + 16):
//   sender    network_overhead (+ S / copy_bandwidth while eager: copied into
//             the network's bounce buffer)
//   NIC       the sending host's NIC sends its messages one after another, in
//             the order they start, each for (S' + wire_bytes) / nic_bandwidth:
//             the node's injection bandwidth, shared by all its ranks, and the
//             adapter's per-message cost (LogGP's G and g)
//   network   the hops between the two hosts in the fat tree (hop_latency
//             each); no congestion inside it or at the receiving host
//   receiver  network_overhead (+ S / copy_bandwidth while eager: copied out)
// A message between ranks on one host (shared memory):
//   sender    shm_overhead + S / copy_bandwidth (copy into the shared buffer)
//   transfer  the host's loopback latency; a rendezvous message (>= the eager
//             limit) one copy at copy_bandwidth instead of the two
//   receiver  shm_overhead + S / copy_bandwidth (copy out)
// SMPI charges a receive overhead only for eager messages, and a send
// overhead for eager messages and for every MPI_Isend; a persistent
// rendezvous send (MPI_Send_init + MPI_Start of S >= the eager limit) costs no
// send overhead there.
//
// The platform (scripts/smpi/node_platform.sh) names its hosts
// node-<100000 + h>, host h under leaf switch h / 32 and group h / 1024 of the
// fat tree of fat_tree_platform.sh (2 hops under one leaf, 4 within a group,
// 6 otherwise), and gives a message between hosts one link whose bandwidth
// is far beyond the NIC's: the NIC queue above is the only place its bytes
// take time.
#include <cstddef>

namespace smpi_bench {

struct MachineModel {
  double network_overhead = 0;      // s per message, sender and receiver each
  double shm_overhead = 0;          // s per message, sender and receiver each
  double copy_bandwidth = 0;        // bytes/s of one core's copy; 0: copies cost nothing
  double wire_bytes = 0;            // per message, in the NIC's queue
  double nic_bandwidth = 0;         // bytes/s of a host's NIC; 0: the platform's links carry the bytes
  double hop_latency = 0.5e-6;      // s per fat-tree hop
  double loopback_bandwidth = 0;    // the platform's loopback link (bytes/s)
  std::size_t eager_limit = 65536;  // smpi/async-small-thresh and smpi/send-is-detached-thresh
};

// Installs the model for the whole simulation. Call once, before MPI_Init
// (the first simulated rank to arrive installs it for all).
void install_machine_model(const MachineModel& model);

}  // namespace smpi_bench
