// The graph topology functions, forwarded to distopo's C++ API.
#include "distopo/graph.hpp"

#include "error_reporting.hpp"

using distopo::capi::guarded;
using distopo::capi::require_pointer;
using distopo::capi::served;

DISTOPO_CAPI int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[], int reorder,
                                  MPI_Comm* comm_graph) {
  return guarded(comm_old, "MPI_Graph_create", [&] {
    require_pointer(comm_graph, "comm_graph");
    *comm_graph = MPI_COMM_NULL;  // what the caller holds if the call fails
    *comm_graph = distopo::graph_create(comm_old, nnodes, indx, edges, reorder != 0).release();
  });
}

DISTOPO_CAPI int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  return served(
      comm, "MPI_Graphdims_get",
      [&] {
        require_pointer(nnodes, "nnodes");
        require_pointer(nedges, "nedges");
        const distopo::GraphDims dims = distopo::graphdims_get(comm);
        *nnodes = dims.nnodes;
        *nedges = dims.nedges;
      },
      [&] { return PMPI_Graphdims_get(comm, nnodes, nedges); });
}

DISTOPO_CAPI int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[]) {
  return served(
      comm, "MPI_Graph_get", [&] { distopo::graph_get(comm, maxindex, maxedges, indx, edges); },
      [&] { return PMPI_Graph_get(comm, maxindex, maxedges, indx, edges); });
}

DISTOPO_CAPI int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  return served(
      comm, "MPI_Graph_neighbors_count",
      [&] {
        require_pointer(nneighbors, "nneighbors");
        *nneighbors = distopo::graph_neighbors_count(comm, rank);
      },
      [&] { return PMPI_Graph_neighbors_count(comm, rank, nneighbors); });
}

DISTOPO_CAPI int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  return served(
      comm, "MPI_Graph_neighbors", [&] { distopo::graph_neighbors(comm, rank, maxneighbors, neighbors); },
      [&] { return PMPI_Graph_neighbors(comm, rank, maxneighbors, neighbors); });
}

DISTOPO_CAPI int MPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int* newrank) {
  return guarded(comm, "MPI_Graph_map", [&] {
    require_pointer(newrank, "newrank");
    *newrank = distopo::graph_map(comm, nnodes, indx, edges);
  });
}
