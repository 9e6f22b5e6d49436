#pragma once
// Which algorithm a communicator's neighborhood collectives use, how to ask
// for one, and how to find out what was chosen (docs/guide/configuration.md,
// docs/guide/neighbor-collectives.md).
//
//   direct      one message per neighbor (per peer with 16 or more slots), as
//               MPI libraries do
//   aggregated  node-aware: blocks between ranks of one machine node go
//               direct; the blocks one node sends another travel as one
//               message per node pair, gathered and scattered on the nodes
//               by relay ranks spread over them
//   automatic   the default: direct for the blocking and non-blocking
//               forms; a persistent init, whose block sizes are known and
//               whose plan is paid once, runs aggregated where the ranks
//               span several machine nodes of MPI_Comm_split_type, the
//               pattern gives at least 2 blocks per (rank, other node)
//               pair over all ranks, and at least half of the remote blocks
//               are small (blocks above the relay size go direct); direct
//               otherwise (PersistentRequest::algorithm tells). Why:
//               docs/design/neighbor-collectives.md, "When auto takes it"
//
// Settings, read when the plan is made (the first collective on the
// communicator, or the first *_init), each the same on every rank:
//   info key distopo_neighbor_algorithm = direct | aggregated | auto
//            (environment DISTOPO_NEIGHBOR_ALGORITHM; default auto)
//   info key distopo_neighbor_aggregate_max_bytes = N: with aggregation,
//            blocks of more than N bytes go direct
//            (environment DISTOPO_NEIGHBOR_AGGREGATE_MAX_BYTES; default:
//            no limit when aggregated is asked for, 256 under auto)
//   info key distopo_ranks_per_node = k: nodes of k consecutive ranks
//            (environment DISTOPO_RANKS_PER_NODE; otherwise the nodes of
//            MPI_Comm_split_type(MPI_COMM_TYPE_SHARED))
// Info keys reach the communicator through set_neighbor_info (the C API's
// MPI_Comm_set_info calls it): MPICH 4.0.2 drops keys it does not know, so
// MPI_Comm_get_info cannot carry them.
#include <mpi.h>

#include <cstdint>

namespace distopo {

enum class NeighborAlgorithm { direct, aggregated, automatic };

// "direct", "aggregated", "auto".
const char* to_string(NeighborAlgorithm algorithm) noexcept;

struct NeighborAlgorithmChoice {
  NeighborAlgorithm setting;    // asked for (automatic unless set)
  NeighborAlgorithm algorithm;  // what the collectives use: direct or aggregated
  // With aggregation, blocks of at most this many bytes take the relays.
  std::uint64_t aggregate_max_bytes;
  // Machine nodes of the ranks where the plan looked for them (aggregated,
  // and auto's persistent form), 1 otherwise.
  int node_count;
  bool emulated_nodes;  // nodes from distopo_ranks_per_node (aggregated only)
  // With aggregation, the sending ranks whose blocks for another node one
  // message carries: 1 (each rank sends its own), or more where the pattern
  // has few blocks per (rank, other node) pair and they gather first.
  int senders_per_lane;
};

// The plan's choice for `comm` (a communicator with a topology), which its
// blocking and non-blocking collectives run. Makes the plan if no
// collective did yet: collective over `comm` then, local after.
NeighborAlgorithmChoice neighbor_algorithm(MPI_Comm comm);

// MPI_Comm_set_info, keeping distopo's keys for the neighborhood collectives
// of `comm` (and of its later duplicates). Collective over `comm`. A plan
// already made is dropped, so the next collective plans with the new
// settings.
void set_neighbor_info(MPI_Comm comm, MPI_Info info);

}  // namespace distopo
