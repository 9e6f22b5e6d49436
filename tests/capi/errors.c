/* Bad input given on ONE rank only (the last) must return the same standard
 * error class on EVERY rank, with MPI_ERRORS_RETURN, and never hang. Plain
 * MPICH 4.0.2 accepts negative degrees and aborts on out-of-range ranks, so
 * this program is meant for the preloaded library. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "capi_check.h"

static int rank, size, last;

static void dist_graph_case(const char* what, int n, int degree, int destination, int weight, int expected) {
  int source = rank;
  int destinations[1] = {destination};
  int weights[1] = {weight};
  MPI_Comm graph = MPI_COMM_WORLD; /* must come back as MPI_COMM_NULL */
  const int rc =
      MPI_Dist_graph_create(MPI_COMM_WORLD, n, &source, &degree, destinations, weights, MPI_INFO_NULL, 0, &graph);
  expect_error_class(rc, expected, what);
  CHECK(graph == MPI_COMM_NULL, "%s: output communicator not MPI_COMM_NULL", what);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  last = size - 1;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int bad = rank == last;

  dist_graph_case("negative n", bad ? -1 : 1, 1, rank, 1, MPI_ERR_ARG);
  dist_graph_case("negative degree", 1, bad ? -2 : 1, rank, 1, MPI_ERR_ARG);
  dist_graph_case("rank out of range", 1, 1, bad ? size + 5 : rank, 1, MPI_ERR_RANK);
  dist_graph_case("negative weight", 1, 1, rank, bad ? -7 : 1, MPI_ERR_ARG);

  { /* MPI_UNWEIGHTED on some ranks only (needs two ranks to disagree) */
    if (size > 1) {
      int source = rank, degree = 1, destination = rank, weight = 1;
      MPI_Comm graph;
      const int rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, &destination,
                                           bad ? MPI_UNWEIGHTED : &weight, MPI_INFO_NULL, 0, &graph);
      expect_error_class(rc, MPI_ERR_ARG, "MPI_UNWEIGHTED on one rank only");
    }
  }
  { /* reorder differing between ranks */
    if (size > 1) {
      int source = rank, degree = 0;
      MPI_Comm graph;
      const int rc =
          MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, bad, &graph);
      expect_error_class(rc, MPI_ERR_ARG, "reorder on one rank only");
    }
  }
  { /* adjacent: negative indegree on one rank */
    MPI_Comm graph;
    const int rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, bad ? -1 : 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                                  MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    expect_error_class(rc, MPI_ERR_ARG, "adjacent: negative indegree");
  }
  { /* Cartesian: a grid larger than the group, a negative dimension */
    int dims[2] = {size, bad ? size + 1 : 1}, periods[2] = {0, 0};
    MPI_Comm cart;
    int rc = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    if (size > 0 && bad) expect_error_class(rc, MPI_ERR_ARG, "cart: grid larger than the group");
    CHECK(rc != MPI_SUCCESS, "cart: grid larger than the group accepted on rank %d", rank);
    dims[1] = bad ? -1 : 1;
    rc = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    CHECK(rc != MPI_SUCCESS, "cart: negative dimension accepted on rank %d", rank);
    int ok_dims[1] = {size}, ok_periods[1] = {0};
    CHECK_EQ_INT(MPI_Cart_create(MPI_COMM_WORLD, 1, ok_dims, ok_periods, 0, &cart), MPI_SUCCESS);
    int source, destination;
    expect_error_class(MPI_Cart_shift(cart, 1, 1, &source, &destination), MPI_ERR_ARG, "cart_shift direction 1 of 1");
    int coords[1];
    expect_error_class(MPI_Cart_coords(cart, size, 1, coords), MPI_ERR_RANK, "cart_coords of rank size");
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    int ndims;
    expect_error_class(MPI_Graphdims_get(cart, &ndims, &ndims), MPI_ERR_TOPOLOGY, "graphdims_get on a cart");
    MPI_Comm_free(&cart);
  }
  { /* graph: an edge outside [0, nnodes) on one rank */
    int index[1] = {1}, edges[1] = {bad ? 3 : 0};
    MPI_Comm graph;
    const int rc = MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &graph);
    expect_error_class(rc, MPI_ERR_ARG, "graph: edge outside [0, nnodes)");
  }
  { /* dims_create: non-divisible preset */
    int dims[2] = {size + 1, 0};
    expect_error_class(MPI_Dims_create(size, 2, dims), MPI_ERR_DIMS, "dims_create: non-divisible preset");
  }
  { /* queries on a communicator without a topology */
    int status = 0;
    CHECK_EQ_INT(MPI_Topo_test(MPI_COMM_WORLD, &status), MPI_SUCCESS);
    CHECK_EQ_INT(status, MPI_UNDEFINED);
    int dims[1], periods[1], coords[1];
    expect_error_class(MPI_Cart_get(MPI_COMM_WORLD, 1, dims, periods, coords), MPI_ERR_TOPOLOGY,
                       "cart_get without a topology");
    int send = 1, recv = 0;
    expect_error_class(MPI_Neighbor_alltoall(&send, 1, MPI_INT, &recv, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY,
                       "neighbor_alltoall without a topology");
  }
  { /* the message says what was wrong and where */
    int source = rank, degree = bad ? -3 : 0;
    MPI_Comm graph;
    const int rc =
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    char expected_rank[32];
    snprintf(expected_rank, sizeof expected_rank, "rank %d", last);
    CHECK(strstr(text, expected_rank) != NULL && strstr(text, "-3") != NULL, "message '%s' lacks the rank or value",
          text);
  }
  return capi_finish();
}
