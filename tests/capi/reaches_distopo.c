/* Proves that an unmodified MPI program's topology calls reach distopo, not
 * MPICH: every MPI_* topology and neighborhood function the program calls
 * resolves (dladdr) to libdistopo_mpi, and behaviour only distopo has shows
 * through the plain MPI calls: sorted dist graph neighbor lists, a negative
 * degree rejected (MPICH 4.0 accepts it), a 20-dimensional Cartesian grid
 * (MPICH's stack breaks beyond 16). Built without any distopo header. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "capi_check.h"

static void expect_distopo_symbol(const char* name, void* address) {
  Dl_info info;
  CHECK(dladdr(address, &info) != 0, "dladdr failed for %s", name);
  CHECK(info.dli_fname != NULL && strstr(info.dli_fname, "libdistopo_mpi") != NULL,
        "%s resolves to %s, not libdistopo_mpi", name, info.dli_fname ? info.dli_fname : "(unknown)");
}

#define EXPECT_DISTOPO(fn) expect_distopo_symbol(#fn, (void*)&fn)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  EXPECT_DISTOPO(MPI_Dims_create);
  EXPECT_DISTOPO(MPI_Cart_create);
  EXPECT_DISTOPO(MPI_Cartdim_get);
  EXPECT_DISTOPO(MPI_Cart_get);
  EXPECT_DISTOPO(MPI_Cart_rank);
  EXPECT_DISTOPO(MPI_Cart_coords);
  EXPECT_DISTOPO(MPI_Cart_shift);
  EXPECT_DISTOPO(MPI_Cart_sub);
  EXPECT_DISTOPO(MPI_Cart_map);
  EXPECT_DISTOPO(MPI_Graph_create);
  EXPECT_DISTOPO(MPI_Graphdims_get);
  EXPECT_DISTOPO(MPI_Graph_get);
  EXPECT_DISTOPO(MPI_Graph_neighbors_count);
  EXPECT_DISTOPO(MPI_Graph_neighbors);
  EXPECT_DISTOPO(MPI_Graph_map);
  EXPECT_DISTOPO(MPI_Dist_graph_create);
  EXPECT_DISTOPO(MPI_Dist_graph_create_adjacent);
  EXPECT_DISTOPO(MPI_Dist_graph_neighbors_count);
  EXPECT_DISTOPO(MPI_Dist_graph_neighbors);
  EXPECT_DISTOPO(MPI_Topo_test);
  EXPECT_DISTOPO(MPI_Neighbor_allgather);
  EXPECT_DISTOPO(MPI_Neighbor_allgatherv);
  EXPECT_DISTOPO(MPI_Neighbor_alltoall);
  EXPECT_DISTOPO(MPI_Neighbor_alltoallv);
  EXPECT_DISTOPO(MPI_Neighbor_alltoallw);
  EXPECT_DISTOPO(MPI_Ineighbor_allgather);
  EXPECT_DISTOPO(MPI_Ineighbor_allgatherv);
  EXPECT_DISTOPO(MPI_Ineighbor_alltoall);
  EXPECT_DISTOPO(MPI_Ineighbor_alltoallv);
  EXPECT_DISTOPO(MPI_Ineighbor_alltoallw);
  EXPECT_DISTOPO(MPI_Neighbor_allgather_init);
  EXPECT_DISTOPO(MPI_Neighbor_allgatherv_init);
  EXPECT_DISTOPO(MPI_Neighbor_alltoall_init);
  EXPECT_DISTOPO(MPI_Neighbor_alltoallv_init);
  EXPECT_DISTOPO(MPI_Neighbor_alltoallw_init);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* Each rank names its edges to every rank in descending order; MPICH keeps
   * arrival order, distopo sorts by (rank, weight). */
  {
    int destinations[64], weights[64];
    const int degree = size < 64 ? size : 64;
    for (int i = 0; i < degree; ++i) {
      destinations[i] = degree - 1 - i;
      weights[i] = 1;
    }
    MPI_Comm graph = MPI_COMM_NULL;
    const int rc =
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &degree, destinations, weights, MPI_INFO_NULL, 0, &graph);
    CHECK_EQ_INT(rc, MPI_SUCCESS);
    int indegree = 0, outdegree = 0, weighted = 0;
    MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted);
    int sources[64], source_weights[64], out[64], out_weights[64];
    MPI_Dist_graph_neighbors(graph, 64, sources, source_weights, 64, out, out_weights);
    for (int i = 1; i < outdegree; ++i) CHECK(out[i - 1] <= out[i], "out-neighbors not sorted at %d", i);
    for (int i = 1; i < indegree; ++i) CHECK(sources[i - 1] <= sources[i], "in-neighbors not sorted at %d", i);
    MPI_Comm_free(&graph);
  }

  /* A negative degree on the last rank only: every rank gets MPI_ERR_ARG. */
  {
    const int degree = rank == size - 1 ? -1 : 0;
    MPI_Comm graph = MPI_COMM_NULL;
    const int rc =
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &degree, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    expect_error_class(rc, MPI_ERR_ARG, "negative degree on the last rank");
  }

  /* 20 dimensions of size 1 (and the ranks on dimension 0). */
  {
    int dims[20], periods[20];
    for (int i = 0; i < 20; ++i) {
      dims[i] = 1;
      periods[i] = i % 2;
    }
    dims[0] = size;
    MPI_Comm cart = MPI_COMM_NULL;
    CHECK_EQ_INT(MPI_Cart_create(MPI_COMM_WORLD, 20, dims, periods, 0, &cart), MPI_SUCCESS);
    int ndims = 0;
    MPI_Cartdim_get(cart, &ndims);
    CHECK_EQ_INT(ndims, 20);
    int coords[20];
    MPI_Cart_coords(cart, rank, 20, coords);
    CHECK_EQ_INT(coords[0], rank);
    MPI_Comm_free(&cart);
  }
  return capi_finish();
}
