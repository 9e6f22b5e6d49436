#pragma once
// The edge redistribution of dist_graph_create on its own: validation, the
// sparse exchange with its agreement on errors and flags, and the sort, but
// not the communicator that dist_graph_create returns. The simulated scaling
// study (bench/smpi) times exactly this step, also where one more
// communicator does not fit in memory.
#include <mpi.h>

#include "distopo/core/topology.hpp"
#include "distopo/distgraph.hpp"

namespace distopo {

// Whether a rank whose edges have other ranks as sources sends their
// out-ends to those sources first (a second exchange then brings the
// in-ends): auto, true or false (docs/guide/configuration.md).
inline constexpr const char* kBySourceInfoKey = "distopo_by_source";
inline constexpr const char* kBySourceEnv = "DISTOPO_BY_SOURCE";

// Collective over `comm`, whose ranks the edges name. The exchange runs on
// `channel`: `comm` itself or a duplicate of it, carrying no other
// point-to-point traffic until this returns (dist_graph_create passes its
// private channel). Back-to-back calls on one channel need a collective
// between them (see sparse_exchange.hpp). Throws the same distopo::Error on
// every rank if any rank's input is bad. Starts the library runtime (Kokkos)
// if needed.
DistGraphTopology redistribute_edges(MPI_Comm comm, MPI_Comm channel, int n, const int sources[], const int degrees[],
                                     const int destinations[], const int weights[], const DistGraphOptions& options);

}  // namespace distopo
