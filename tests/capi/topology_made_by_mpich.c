/* Communicators whose topology MPICH made without distopo (issue 28, item
 * 1): a tool, a library or a binding (MPICH's own mpi_f08 wrappers, until
 * distopo defined their entry points) calls the constructors by their PMPI_
 * names. Every MPI_ call distopo serves must treat such a communicator as
 * valid: queries answered, neighborhood collectives (blocking, non-blocking,
 * persistent, large-count) run, results checked against the topology. */
#include <mpi.h>
#include <stdlib.h>

#include "capi_check.h"

static int rank, size;

/* Every in-neighbor sends its rank to every out-neighbor, in each form. */
static void exchange_ranks(MPI_Comm comm, int indegree, const int sources[], const char* what) {
  int* received = malloc(sizeof(int) * (size_t)(indegree + 1));
  for (int form = 0; form < 4; ++form) {
    for (int i = 0; i < indegree; ++i) received[i] = -1;
    MPI_Request request = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    if (form == 0) {
      rc = MPI_Neighbor_allgather(&rank, 1, MPI_INT, received, 1, MPI_INT, comm);
    } else if (form == 1) {
      rc = MPI_Ineighbor_allgather(&rank, 1, MPI_INT, received, 1, MPI_INT, comm, &request);
      if (rc == MPI_SUCCESS) rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
    } else if (form == 2) {
      rc = MPI_Neighbor_allgather_init(&rank, 1, MPI_INT, received, 1, MPI_INT, comm, MPI_INFO_NULL, &request);
      if (rc == MPI_SUCCESS) rc = MPI_Start(&request);
      if (rc == MPI_SUCCESS) rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
      if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
    } else {
      rc = MPI_Neighbor_allgather_c(&rank, 1, MPI_INT, received, 1, MPI_INT, comm);
    }
    CHECK(rc == MPI_SUCCESS, "%s: neighbor allgather form %d failed", what, form);
    for (int i = 0; i < indegree; ++i) {
      const int expected = sources[i] == MPI_PROC_NULL ? -1 : sources[i];
      CHECK(received[i] == expected, "%s form %d: slot %d holds %d, expected %d", what, form, i, received[i], expected);
    }
  }
  free(received);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int next = (rank + 1) % size;
  const int previous = (rank + size - 1) % size;

  /* Cartesian: a periodic ring. */
  MPI_Comm cart = MPI_COMM_NULL;
  int periodic = 1;
  PMPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &cart);
  MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
  int status = -1, ndims = -1, dims = -1, periods = -1, coords = -1, shifted_rank = -1, source = -1, dest = -1;
  CHECK(MPI_Topo_test(cart, &status) == MPI_SUCCESS && status == MPI_CART, "MPI_Topo_test: %d", status);
  CHECK(MPI_Cartdim_get(cart, &ndims) == MPI_SUCCESS && ndims == 1, "MPI_Cartdim_get: %d", ndims);
  CHECK(MPI_Cart_get(cart, 1, &dims, &periods, &coords) == MPI_SUCCESS && dims == size && periods && coords == rank,
        "MPI_Cart_get");
  CHECK(MPI_Cart_rank(cart, &coords, &shifted_rank) == MPI_SUCCESS && shifted_rank == rank, "MPI_Cart_rank");
  CHECK(MPI_Cart_coords(cart, rank, 1, &coords) == MPI_SUCCESS && coords == rank, "MPI_Cart_coords");
  CHECK(MPI_Cart_shift(cart, 0, 1, &source, &dest) == MPI_SUCCESS && source == previous && dest == next,
        "MPI_Cart_shift: %d %d", source, dest);
  int keep = 1;
  MPI_Comm sub = MPI_COMM_NULL;
  CHECK(MPI_Cart_sub(cart, &keep, &sub) == MPI_SUCCESS && sub != MPI_COMM_NULL, "MPI_Cart_sub");
  if (sub != MPI_COMM_NULL) MPI_Comm_free(&sub);
  const int cart_neighbors[2] = {previous, next};
  exchange_ranks(cart, 2, cart_neighbors, "cart");
  /* A duplicate carries MPICH's topology too. */
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(cart, &dup);
  exchange_ranks(dup, 2, cart_neighbors, "duplicated cart");
  MPI_Comm_free(&dup);
  MPI_Comm_free(&cart);

  /* Graph: the same ring. */
  int* index = malloc(sizeof(int) * (size_t)size);
  int* edges = malloc(sizeof(int) * 2 * (size_t)size);
  for (int i = 0; i < size; ++i) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i + size - 1) % size;
    edges[2 * i + 1] = (i + 1) % size;
  }
  MPI_Comm graph = MPI_COMM_NULL;
  PMPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
  int nnodes = -1, nedges = -1, count = -1, neighbors[2] = {-1, -1};
  CHECK(MPI_Topo_test(graph, &status) == MPI_SUCCESS && status == MPI_GRAPH, "MPI_Topo_test: %d", status);
  CHECK(MPI_Graphdims_get(graph, &nnodes, &nedges) == MPI_SUCCESS && nnodes == size && nedges == 2 * size,
        "MPI_Graphdims_get");
  int* got_index = malloc(sizeof(int) * (size_t)size);
  int* got_edges = malloc(sizeof(int) * 2 * (size_t)size);
  CHECK(MPI_Graph_get(graph, size, 2 * size, got_index, got_edges) == MPI_SUCCESS && got_index[0] == 2 &&
            got_edges[1] == 1 % size,
        "MPI_Graph_get");
  CHECK(MPI_Graph_neighbors_count(graph, rank, &count) == MPI_SUCCESS && count == 2, "MPI_Graph_neighbors_count");
  CHECK(
      MPI_Graph_neighbors(graph, rank, 2, neighbors) == MPI_SUCCESS && neighbors[0] == previous && neighbors[1] == next,
      "MPI_Graph_neighbors");
  exchange_ranks(graph, 2, neighbors, "graph");
  MPI_Comm_free(&graph);
  free(got_edges);
  free(got_index);
  free(edges);
  free(index);

  /* Distributed graph: out to the next rank (weight 7), in from the previous. */
  MPI_Comm ring = MPI_COMM_NULL;
  const int seven = 7;
  PMPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &previous, &seven, 1, &next, &seven, MPI_INFO_NULL, 0, &ring);
  int indegree = -1, outdegree = -1, weighted = -1, in = -1, out = -1, in_weight = -1, out_weight = -1;
  CHECK(MPI_Topo_test(ring, &status) == MPI_SUCCESS && status == MPI_DIST_GRAPH, "MPI_Topo_test: %d", status);
  CHECK(MPI_Dist_graph_neighbors_count(ring, &indegree, &outdegree, &weighted) == MPI_SUCCESS && indegree == 1 &&
            outdegree == 1 && weighted,
        "MPI_Dist_graph_neighbors_count");
  CHECK(MPI_Dist_graph_neighbors(ring, 1, &in, &in_weight, 1, &out, &out_weight) == MPI_SUCCESS && in == previous &&
            out == next && in_weight == 7 && out_weight == 7,
        "MPI_Dist_graph_neighbors");
  exchange_ranks(ring, 1, &previous, "dist graph");
  MPI_Comm_free(&ring);

  /* A communicator without any topology is still an error, raised by distopo. */
  int rc = MPI_Neighbor_allgather(&rank, 1, MPI_INT, &in, 1, MPI_INT, MPI_COMM_WORLD);
  expect_error_class(rc, MPI_ERR_TOPOLOGY, "a neighborhood collective without a topology");

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return capi_finish();
}
