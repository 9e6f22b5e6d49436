#pragma once
// Moves graph node lists to the processes chosen for them: move_lists()
// (placement.hpp).
#include <mpi.h>

#include "distopo/core/topology.hpp"
#include "distopo/mapping/placement.hpp"

namespace distopo::detail {

// Collective over `channel` (a private communicator over the same group,
// ranks as in the constructor's communicator): sends `own`, the lists of graph
// node `rank`, to its host, and returns the lists of the graph node this
// process hosts. Neighbor ids are graph nodes, which are the new ranks, so
// they travel unchanged.
DistGraphTopology ship_lists(MPI_Comm channel, DistGraphTopology own, const Placement& placement);

}  // namespace distopo::detail
