#pragma once
// Where each process lands when a topology constructor may renumber ranks
// (reorder = true, cart_map, graph_map): a node-aware mapping that keeps
// neighbors, or the heaviest edges, inside machine nodes. One answer type for
// the three kinds of topology, so cart/, graph/ and distgraph/ only call
// place(), then split and install.
#include <mpi.h>

#include <cstdint>
#include <span>

#include "distopo/core/node_layout.hpp"
#include "distopo/core/topology.hpp"

namespace distopo::detail {

struct Placement {
  // This process's rank in the new communicator; MPI_UNDEFINED: not in it.
  int rank = MPI_UNDEFINED;
  // Distributed graphs: the process (rank in comm) that becomes this
  // process's rank of comm, so its lists move there (move_lists).
  int lists_to = MPI_UNDEFINED;
  // Every process keeps its rank of comm: the new communicator can share
  // channels with comm. Decided from agreed values, so the same everywhere.
  bool same_order = false;
};

// Process r keeps rank r when r < size (the new communicator's size).
Placement identity_placement(MPI_Comm comm, std::int64_t size);

// A Cartesian grid: every machine node holds a compact block of the grid
// (Gropp, EuroMPI'18); the identity when nodes are not uniform or no block
// tiles the grid. No communication beyond `layout`'s.
Placement place(MPI_Comm comm, std::span<const int> dims, std::span<const Periodicity> periods,
                const NodeLayout& layout);

// A graph, whole on every rank: parts of exactly ranks_per_node graph nodes
// cutting the fewest edges (multi-edges counted), kept only if it cuts fewer
// than consecutive blocks. Deterministic: the same answer on every rank, no
// communication beyond `layout`'s.
Placement place(MPI_Comm comm, const GraphTopology& graph, const NodeLayout& layout);

// How hard the distributed-graph mapping looks: METIS cuts tried (recursive
// bisection; thorough adds k-way) and refinement passes.
enum class PartitionEffort { fast, balanced, thorough };

inline constexpr const char* kReorderGatherLimitKey = "distopo_reorder_gather_limit";
inline constexpr const char* kReorderEffortKey = "distopo_reorder_effort";

struct ReorderSettings {
  int gather_limit = 1 << 22;  // edges (sum of out-degrees) the graph may have to be gathered
  PartitionEffort effort = PartitionEffort::balanced;
  int ranks_per_node = 0;  // the emulation setting (core/node_layout.hpp); 0: real nodes
};

// The settings from rank 0's info (docs/guide/configuration.md), on every
// rank: one rank's hint cannot make the ranks take different paths; and the
// emulated ranks per node, which every rank must give alike (else every rank
// throws MPI_ERR_ARG). Collective.
ReorderSettings agreed_reorder_settings(MPI_Comm comm, MPI_Info info);

// A distributed graph, collective over comm: `own` holds graph node
// (rank in comm)'s lists. Graph node v becomes rank v, on the process chosen
// for it; the identity unless the mapping crosses less weight. Never holds a
// P x P structure; gathers the graph on rank 0 only below the gather limit.
Placement place(MPI_Comm comm, const DistGraphTopology& own, const NodeLayout& layout, const ReorderSettings& settings);

// Collective over `channel` (a private communicator over comm's group, same
// ranks): sends `own` to placement.lists_to and returns the lists of the
// graph node this process becomes. Neighbor ids are graph nodes, which are
// the new ranks, so they travel unchanged.
DistGraphTopology move_lists(MPI_Comm channel, DistGraphTopology own, const Placement& placement);

}  // namespace distopo::detail
