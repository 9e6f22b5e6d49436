#pragma once
// What a message costs in the simulated machine beyond the platform's links:
// SMPI's per-message send and receive overheads (the smpi/os, smpi/ois and
// smpi/or settings, given here as SMPI's cost callbacks so that they can
// depend on whether the two ranks share a host) and the network's
// per-message wire cost. The same for every message of every algorithm.
// Values and their sources: docs/results/neighbor/README.md.
//
// A message of S bytes between ranks on different hosts (SMPI adds 16 bytes
// of envelope to S on the wire):
//   sender    network_overhead (+ S / copy_bandwidth while eager: copied into
//             the network's bounce buffer)
//   network   the route's latency; S + wire_bytes on every link of the route,
//             links shared by every flow crossing them (a host's one link is
//             the node's injection bandwidth, shared by all its ranks)
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
#include <cstddef>

namespace smpi_bench {

struct MachineModel {
  double network_overhead = 0;      // s per message, sender and receiver each
  double shm_overhead = 0;          // s per message, sender and receiver each
  double copy_bandwidth = 0;        // bytes/s of one core's copy; 0: copies cost nothing
  double wire_bytes = 0;            // per message, on every network link it crosses
  double loopback_bandwidth = 0;    // the platform's loopback link (bytes/s)
  std::size_t eager_limit = 65536;  // smpi/async-small-thresh and smpi/send-is-detached-thresh
  // Hosts named node-<100000 + h> (scripts/smpi/node_platform.sh): a
  // message between two hosts crosses one link of one fat-tree hop's latency,
  // multiplied here by the hops between them in the fat tree of
  // fat_tree_platform.sh (2 under one leaf switch of 32 hosts, 4 within a
  // group of 1024, 6 otherwise). false: every route's latency as the
  // platform says.
  bool fat_tree_hops = false;
};

// Installs the model for the whole simulation. Call once, before MPI_Init
// (the first simulated rank to arrive installs it for all).
void install_machine_model(const MachineModel& model);

}  // namespace smpi_bench
