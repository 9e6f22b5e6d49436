#pragma once
// Turns a computed distributed-graph record into the communicator handed back:
// with DISTOPO_NATIVE_TOPOLOGY, MPICH's own topology is installed too (its
// cheap adjacent constructor, reorder off, our lists), so plain MPI neighbor
// calls work on it; otherwise `base` itself becomes the result.
#include "distopo/core/comm.hpp"
#include "distopo/core/topology.hpp"

namespace distopo::detail {

// Collective over `base`, which must be a communicator distopo owns.
Comm install_dist_graph(Comm base, DistGraphTopology record);

}  // namespace distopo::detail
