/* Communicators built through the C API also carry MPICH's own topology:
 * the answers of MPICH's functions (PMPI_*, which the preloaded library does
 * not replace) match distopo's on the same communicator (a distributed
 * graph's weights only with info key distopo_native_weights = true), and
 * dup/idup/free keep and release the topology. */
#include <mpi.h>
#include <stdlib.h>

#include "capi_check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  { /* Cartesian */
    int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1};
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart, copy;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Comm_dup(cart, &copy);
    int kind = -1, native_kind = -1;
    MPI_Topo_test(copy, &kind);
    PMPI_Topo_test(copy, &native_kind);
    CHECK_EQ_INT(kind, MPI_CART);
    CHECK_EQ_INT(native_kind, MPI_CART);
    for (int d = 0; d < 3; ++d) {
      for (int disp = -2; disp <= 2; ++disp) {
        int s, t, ns, nt;
        MPI_Cart_shift(cart, d, disp, &s, &t);
        PMPI_Cart_shift(cart, d, disp, &ns, &nt);
        CHECK(s == ns && t == nt, "cart_shift(%d, %d): distopo %d,%d MPICH %d,%d", d, disp, s, t, ns, nt);
      }
    }
    int coords[3], native_coords[3];
    MPI_Cart_coords(cart, rank, 3, coords);
    PMPI_Cart_coords(cart, rank, 3, native_coords);
    for (int d = 0; d < 3; ++d) CHECK_EQ_INT(coords[d], native_coords[d]);
    MPI_Comm_free(&copy);
    MPI_Comm_free(&cart);
    CHECK(cart == MPI_COMM_NULL, "free did not null the handle");
  }
  MPI_Info native_weights;
  MPI_Info_create(&native_weights);
  MPI_Info_set(native_weights, "distopo_native_weights", "true");
  for (int copies_weights = 0; copies_weights <= 1; ++copies_weights) {
    /* distributed graph: each rank names edges to rank+1 and rank+2 */
    int source = rank, degree = 2;
    int destinations[2] = {(rank + 2) % size, (rank + 1) % size};
    int weights[2] = {2, 1};
    MPI_Comm graph, copy;
    MPI_Request request;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, destinations, weights,
                          copies_weights ? native_weights : MPI_INFO_NULL, 0, &graph);
    MPI_Comm_idup(graph, &copy, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    int in, out, weighted, nin, nout, nweighted;
    MPI_Dist_graph_neighbors_count(copy, &in, &out, &weighted);
    PMPI_Dist_graph_neighbors_count(copy, &nin, &nout, &nweighted);
    CHECK(in == 2 && out == 2 && weighted, "degrees %d %d %d", in, out, weighted);
    CHECK(in == nin && out == nout && (nweighted != 0) == copies_weights, "MPICH degrees %d %d %d", nin, nout,
          nweighted);
    int s[2], sw[2], d[2], dw[2], ns[2], nsw[2] = {-1, -1}, nd[2], ndw[2] = {-1, -1};
    MPI_Dist_graph_neighbors(copy, 2, s, sw, 2, d, dw);
    PMPI_Dist_graph_neighbors(copy, 2, ns, copies_weights ? nsw : MPI_UNWEIGHTED, 2, nd,
                              copies_weights ? ndw : MPI_UNWEIGHTED);
    for (int i = 0; i < 2; ++i) {
      CHECK(s[i] == ns[i] && d[i] == nd[i], "neighbor %d differs", i);
      CHECK(!copies_weights || (sw[i] == nsw[i] && dw[i] == ndw[i]), "weight %d differs", i);
    }
    /* maxindegree 1: only the first entry is written */
    int guard[3] = {-5, -5, -5};
    MPI_Dist_graph_neighbors(copy, 1, guard, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED);
    CHECK(guard[0] == s[0] && guard[1] == -5 && guard[2] == -5, "wrote past maxindegree");
    MPI_Comm_free(&copy);
    MPI_Comm_free(&graph);
  }
  MPI_Info_free(&native_weights);
  { /* graph: a ring given as index/edges on every rank */
    int* index = malloc(sizeof(int) * (size_t)size);
    int* edges = malloc(sizeof(int) * 2 * (size_t)size);
    for (int r = 0; r < size; ++r) {
      index[r] = 2 * (r + 1);
      edges[2 * r] = (r + size - 1) % size;
      edges[2 * r + 1] = (r + 1) % size;
    }
    MPI_Comm graph;
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
    int count, native_count;
    MPI_Graph_neighbors_count(graph, rank, &count);
    PMPI_Graph_neighbors_count(graph, rank, &native_count);
    CHECK_EQ_INT(count, native_count);
    int neighbors[2], native_neighbors[2];
    MPI_Graph_neighbors(graph, rank, 2, neighbors);
    PMPI_Graph_neighbors(graph, rank, 2, native_neighbors);
    CHECK(neighbors[0] == native_neighbors[0] && neighbors[1] == native_neighbors[1], "graph neighbors differ");
    MPI_Comm_free(&graph);
    free(index);
    free(edges);
  }
  return capi_finish();
}
