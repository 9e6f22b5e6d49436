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
#include "distopo/mapping/placement.hpp"

namespace distopo::detail {

// Collective over `comm`; `own` holds graph node `rank`'s lists. nullopt:
// every graph node stays where it is. The core of place() for distributed
// graphs (placement.hpp).
std::optional<Placement> place_on_nodes(MPI_Comm comm, const DistGraphTopology& own, const NodeLayout& layout,
                                        const ReorderSettings& settings);

}  // namespace distopo::detail
