#pragma once
// Where each graph node of a distributed graph goes when reorder = true: a
// process on the machine node that keeps the most edge weight inside machine
// nodes, every machine node keeping its number of processes. Graph node v
// becomes rank v of the new communicator, on the process chosen for it.
//
// Below the gather limit (total edges), rank 0 gathers the out-lists,
// partitions the graph (exact_partition.hpp) and scatters the answer: O(P + E)
// memory on rank 0 only, O(degree) elsewhere. The mapping is kept only if its
// crossing weight is below the identity's, both counted on the exact
// directed edges and weights.
#include <mpi.h>

#include <cstdint>
#include <optional>

#include "distopo/core/node_layout.hpp"
#include "distopo/core/topology.hpp"

namespace distopo::detail {

// How hard to look: METIS cuts tried (recursive bisection; thorough adds
// k-way) and refinement passes.
enum class PartitionEffort { fast, balanced, thorough };

inline constexpr const char* kReorderGatherLimitKey = "distopo_reorder_gather_limit";
inline constexpr const char* kReorderEffortKey = "distopo_reorder_effort";

struct ReorderSettings {
  int gather_limit = 1 << 22;  // edges (sum of out-degrees) the graph may have to be gathered
  PartitionEffort effort = PartitionEffort::balanced;
  int ranks_per_node = 0;  // the emulation setting (core/node_layout.hpp); 0: real nodes
};

// The settings from rank 0's info (README, Configuration), on every rank:
// one rank's hint cannot make the ranks take different paths; and the
// emulated ranks per node, which every rank must give alike (else every rank
// throws MPI_ERR_ARG). Collective.
ReorderSettings agreed_reorder_settings(MPI_Comm comm, MPI_Info info);

struct Placement {
  int graph_node;  // the graph node this process hosts: its rank in the new communicator
  int host;        // the process (rank in comm) that hosts this rank's graph node
};

// Collective over `comm`; `own` holds graph node `rank`'s lists. nullopt:
// every graph node stays where it is.
std::optional<Placement> place_on_nodes(MPI_Comm comm, const DistGraphTopology& own, const NodeLayout& layout,
                                        const ReorderSettings& settings);

}  // namespace distopo::detail
