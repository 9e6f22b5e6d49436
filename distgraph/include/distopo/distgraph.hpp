#pragma once
// Distributed graph topologies (MPI_Dist_graph_create and friends).
//
// dist_graph_create redistributes the edges each rank names with one sparse
// exchange (NBX), so every rank ends up with exactly its own in- and out-lists,
// sorted by (rank, weight): two creates with the same input return identical
// lists. No structure of size P is built anywhere.
#include <mpi.h>

#include <span>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/topology.hpp"

namespace distopo {

// A directed edge source -> destination, ranks of the input communicator.
struct Edge {
  int source;
  int destination;
  int weight = 1;
};

struct DistGraphOptions {
  // false is MPI_UNWEIGHTED: weights are neither read nor returned. Must agree
  // on all ranks.
  bool weighted = true;
  // May ranks be renumbered? Must agree on all ranks. If so, graph nodes move
  // to processes so that less edge weight (MPI_UNWEIGHTED: fewer edges)
  // crosses machine nodes, every machine node keeping its process count;
  // graph node v is rank v of the result (docs/guide/reordering.md).
  bool reorder = false;
  // Hints; see docs/guide/configuration.md. MPI_INFO_NULL is always valid.
  MPI_Info info = MPI_INFO_NULL;
};

// What this rank knows of the graph: one neighbor list per direction.
using DistGraphNeighbors = DistGraphTopology;

struct DistGraphDegrees {
  int indegree;
  int outdegree;
  bool weighted;
};

// Collective. Any rank may name any edge; multi-edges and self-loops are kept.
Comm dist_graph_create(MPI_Comm comm_old, std::span<const Edge> edges, const DistGraphOptions& options = {});

// The standard's argument arrays: n source nodes, degrees[i] destinations each,
// weights alongside (not read when options.weighted is false).
Comm dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                       const int weights[], const DistGraphOptions& options);

// Collective. Each rank gives its own in- and out-edges; they are kept in the
// order given. Info key "distopo_check_adjacent" = "true" verifies with one
// sparse exchange that every out-edge a->b is an in-edge at b.
Comm dist_graph_create_adjacent(MPI_Comm comm_old, std::span<const int> sources, std::span<const int> source_weights,
                                std::span<const int> destinations, std::span<const int> destination_weights,
                                const DistGraphOptions& options = {});

// The standard's argument arrays (degrees are ints so bad ones can be reported).
Comm dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int source_weights[],
                                int outdegree, const int destinations[], const int destination_weights[],
                                const DistGraphOptions& options);

// Local queries; throw MPI_ERR_TOPOLOGY on a communicator without a
// distributed graph topology.
DistGraphDegrees dist_graph_neighbors_count(MPI_Comm comm);
// The lists themselves, valid while `comm` (or a dup of it) lives. Not on a
// temporary Comm (dist_graph_neighbors(dist_graph_create(...))), which would
// free the lists before the reference is used.
const DistGraphNeighbors& dist_graph_neighbors(MPI_Comm comm);
const DistGraphNeighbors& dist_graph_neighbors(Comm&& comm) = delete;

}  // namespace distopo
