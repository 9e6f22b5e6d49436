#pragma once
// Graph topologies (MPI_Graph_create and friends). Every rank holds the whole
// graph (index and edges exactly as given: self-loops, multi-edges and the
// order of neighbors are kept), so all queries are local.
#include <mpi.h>

#include <span>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distopo/core/node_layout.hpp"
#include "distopo/core/topology.hpp"

namespace distopo {

using GraphOptions = ReorderOptions;

struct GraphDims {
  int nnodes;
  int nedges;
  friend bool operator==(const GraphDims&, const GraphDims&) = default;
};

// --- constructors (collective) ---------------------------------------------
// Bad input on any rank makes every rank throw the same Error (class and
// message of the lowest failing rank), MPI_ERR_ARG as MPICH uses it: nnodes
// negative or larger than the group, index negative or decreasing, an edge
// outside [0, nnodes), missing arrays, or arguments that differ between
// ranks. nnodes = 0 gives a null Comm everywhere; ranks >= nnodes get a null
// Comm. The result also carries MPICH's own graph topology.
//
// With reorder, graph nodes that are strongly connected are put on the same
// machine node (greedy growth of blocks of ranks-per-node graph nodes),
// when that cuts fewer edges than the identity; identity otherwise and when
// nodes hold different numbers of ranks.

// nnodes = index.size(); edges.size() must be index.back().
Comm graph_create(MPI_Comm comm_old, std::span<const int> index, std::span<const int> edges,
                  const GraphOptions& options = {});
// The standard's arrays.
Comm graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], bool reorder,
                  MPI_Info info = MPI_INFO_NULL);

// Collective over comm (node discovery). The rank the calling process would
// have in a graph created with reorder, or MPI_UNDEFINED.
int graph_map(MPI_Comm comm, std::span<const int> index, std::span<const int> edges, MPI_Info info = MPI_INFO_NULL);
int graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], MPI_Info info = MPI_INFO_NULL);

// --- local queries ---------------------------------------------------------
// Throw MPI_ERR_TOPOLOGY on a communicator without a graph topology.

GraphDims graphdims_get(MPI_Comm comm);
// index and edges as given; valid while `comm` (or a dup of it) lives. The
// overloads that return references refuse a temporary Comm, which would free
// the graph before the reference is used.
const GraphTopology& graph_get(MPI_Comm comm);
const GraphTopology& graph_get(Comm&& comm) = delete;
// Writes at most maxindex / maxedges entries.
void graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);

// MPI_ERR_RANK unless 0 <= rank < nnodes.
int graph_neighbors_count(MPI_Comm comm, int rank);
// In the order given to graph_create; valid while `comm` (or a dup) lives.
std::span<const int> graph_neighbors(MPI_Comm comm, int rank);
std::span<const int> graph_neighbors(Comm&& comm, int rank) = delete;
// Writes at most maxneighbors entries.
void graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);

}  // namespace distopo
