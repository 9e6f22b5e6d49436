#pragma once
// Turns a computed distributed-graph record into the communicator handed back,
// a new communicator over the group of `comm_old`: with
// DISTOPO_NATIVE_TOPOLOGY it comes from MPICH's own adjacent constructor
// (reorder off, our lists), so plain MPI neighbor calls work on it too;
// otherwise from copy_without_attributes. Either way the user's attributes are
// not copied (only MPI_Comm_dup copies them). Unless reordered, the result
// shares neighborhood channels with `comm_old` (same group, same rank order);
// a reordered result comes from MPI_Comm_split and starts a family of its own.
#include "distopo/core/comm.hpp"
#include "distopo/core/topology.hpp"
#include "distopo/distgraph.hpp"

namespace distopo::detail {

// Collective over `comm_old`. `record` holds graph node `rank`'s lists; with
// options.reorder (agreed) the graph nodes may move to other processes
// (reorder/node_placement.hpp), graph node v becoming rank v of the result.
Comm install_dist_graph(MPI_Comm comm_old, DistGraphTopology record, const DistGraphOptions& options);

}  // namespace distopo::detail
