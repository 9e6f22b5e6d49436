#include "distopo/distgraph.hpp"

namespace distopo {

DistGraphDegrees dist_graph_neighbors_count(MPI_Comm comm) {
  const auto& record = require_topology<DistGraphTopology>(comm, "dist_graph_neighbors_count");
  return {static_cast<int>(record.sources.size()), static_cast<int>(record.destinations.size()), record.weighted};
}

const DistGraphNeighbors& dist_graph_neighbors(MPI_Comm comm) {
  return require_topology<DistGraphTopology>(comm, "dist_graph_neighbors");
}

}  // namespace distopo
