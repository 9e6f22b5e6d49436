// Local graph queries: reads of the record cached on the communicator.
#include <algorithm>
#include <string>

#include "distopo/core/runtime.hpp"
#include "distopo/graph.hpp"

namespace distopo {
namespace {

const GraphTopology& graph_record(MPI_Comm comm, const char* caller) {
  ensure_runtime();
  return require_topology<GraphTopology>(comm, caller);
}

void check_max(MPI_Comm comm, const char* caller, const char* name, int value) {
  if (value < 0) {
    throw Error(MPI_ERR_ARG, comm_rank_prefix(caller, comm) + name + " = " + std::to_string(value) + " is negative");
  }
}

std::span<const int> neighbors_of(MPI_Comm comm, const char* caller, int rank) {
  const auto& record = graph_record(comm, caller);
  const auto nnodes = static_cast<int>(record.index.size());
  if (rank < 0 || rank >= nnodes) {
    throw Error(MPI_ERR_RANK, comm_rank_prefix(caller, comm) + "rank " + std::to_string(rank) +
                                  " is not a node of the graph [0, " + std::to_string(nnodes) + ")");
  }
  const auto r = static_cast<std::size_t>(rank);
  const auto begin = r == 0 ? std::size_t{0} : static_cast<std::size_t>(record.index[r - 1]);
  const auto end = static_cast<std::size_t>(record.index[r]);
  return std::span<const int>(record.edges).subspan(begin, end - begin);
}

}  // namespace

GraphDims graphdims_get(MPI_Comm comm) {
  const auto& record = graph_record(comm, "graphdims_get");
  return {static_cast<int>(record.index.size()), static_cast<int>(record.edges.size())};
}

const GraphTopology& graph_get(MPI_Comm comm) { return graph_record(comm, "graph_get"); }

void graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  const auto& record = graph_record(comm, "graph_get");
  check_max(comm, "graph_get", "maxindex", maxindex);
  check_max(comm, "graph_get", "maxedges", maxedges);
  const std::size_t n_index = std::min(record.index.size(), static_cast<std::size_t>(maxindex));
  const std::size_t n_edges = std::min(record.edges.size(), static_cast<std::size_t>(maxedges));
  if ((n_index > 0 && index == nullptr) || (n_edges > 0 && edges == nullptr)) {
    throw Error(MPI_ERR_ARG, comm_rank_prefix("graph_get", comm) + "index or edges is NULL");
  }
  std::copy_n(record.index.begin(), n_index, index);
  std::copy_n(record.edges.begin(), n_edges, edges);
}

int graph_neighbors_count(MPI_Comm comm, int rank) {
  return static_cast<int>(neighbors_of(comm, "graph_neighbors_count", rank).size());
}

std::span<const int> graph_neighbors(MPI_Comm comm, int rank) { return neighbors_of(comm, "graph_neighbors", rank); }

void graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  check_max(comm, "graph_neighbors", "maxneighbors", maxneighbors);
  const auto list = neighbors_of(comm, "graph_neighbors", rank);
  const std::size_t n = std::min(list.size(), static_cast<std::size_t>(maxneighbors));
  if (n > 0 && neighbors == nullptr) {
    throw Error(MPI_ERR_ARG, comm_rank_prefix("graph_neighbors", comm) + "neighbors is NULL");
  }
  std::copy_n(list.begin(), n, neighbors);
}

}  // namespace distopo
