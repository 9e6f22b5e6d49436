// Must not compile (test temporary_query_does_not_compile): the Comm that
// dist_graph_create returns is freed at the end of the statement, and the
// lists the reference points into with it.
#include <span>

#include "distopo/distgraph.hpp"

const distopo::DistGraphNeighbors& dangling(MPI_Comm comm, std::span<const distopo::Edge> edges) {
  return distopo::dist_graph_neighbors(distopo::dist_graph_create(comm, edges));
}
