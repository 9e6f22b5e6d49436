/* Issue 13, case 11. A P x 1 x ... x 1 grid of 300000 dimensions with
 * reorder: the node mapping must not recurse once per dimension (it
 * overflowed the stack). All ranks are emulated as one node, so the mapping
 * runs at every process count above 1. And MPI_UNWEIGHTED given for one side
 * only must be reported naming the rank and the argument. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"

enum { kDims = 300000 };

static int rank, size;

static void many_dimensions(void) {
  int* dims = malloc(sizeof(int) * kDims);
  int* periods = malloc(sizeof(int) * kDims);
  int* coords = malloc(sizeof(int) * kDims);
  CHECK(dims != NULL && periods != NULL && coords != NULL, "no memory for the arrays");
  if (dims == NULL || periods == NULL || coords == NULL) return;
  for (int i = 0; i < kDims; ++i) {
    dims[i] = 1;
    periods[i] = 0;
  }
  dims[0] = size;
  periods[0] = 1;
  MPI_Comm cart = MPI_COMM_NULL;
  const int rc = MPI_Cart_create(MPI_COMM_WORLD, kDims, dims, periods, 1, &cart);
  expect_error_class(rc, MPI_SUCCESS, "MPI_Cart_create with 300000 dimensions and reorder");
  if (rc == MPI_SUCCESS) {
    int ndims = 0;
    MPI_Cartdim_get(cart, &ndims);
    CHECK_EQ_INT(ndims, kDims);
    int cart_rank = -1;
    MPI_Comm_rank(cart, &cart_rank);
    MPI_Cart_coords(cart, cart_rank, kDims, coords);
    CHECK_EQ_INT(coords[0], cart_rank);
    int nonzero = 0;
    for (int i = 1; i < kDims; ++i) nonzero += coords[i] != 0;
    CHECK_EQ_INT(nonzero, 0);
    int source = -1, destination = -1;
    MPI_Cart_shift(cart, 0, 1, &source, &destination);
    CHECK_EQ_INT(destination, (cart_rank + 1) % size);
    MPI_Comm_free(&cart);
  }
  free(dims);
  free(periods);
  free(coords);
}

/* The message of an error carries `rank N` and the argument. */
static void expect_message(int rc, const char* needle, const char* second, const char* what) {
  expect_error_class(rc, MPI_ERR_ARG, what);
  char text[MPI_MAX_ERROR_STRING] = "";
  int length = 0;
  MPI_Error_string(rc, text, &length);
  CHECK(strstr(text, needle) != NULL && strstr(text, second) != NULL, "%s: the message lacks '%s' or '%s': %s", what,
        needle, second, text);
}

static void partial_unweighted(void) {
  const int next = (rank + 1) % size;
  const int previous = (rank + size - 1) % size;
  const int weight = 1;
  char this_rank[32];
  snprintf(this_rank, sizeof this_rank, "rank %d", size - 1);
  { /* the last rank gives MPI_UNWEIGHTED for the sources and weights for the destinations */
    const int partial = rank == size - 1;
    MPI_Comm graph = MPI_COMM_NULL;
    const int rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &previous, partial ? MPI_UNWEIGHTED : &weight, 1,
                                                  &next, &weight, MPI_INFO_NULL, 0, &graph);
    expect_message(rc, this_rank, "sourceweights", "MPI_UNWEIGHTED for the sources only");
  }
  if (size > 1) { /* MPI_UNWEIGHTED on the last rank only */
    const int source = rank;
    const int degree = 1;
    MPI_Comm graph = MPI_COMM_NULL;
    const int rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, &next,
                                         rank == size - 1 ? MPI_UNWEIGHTED : &weight, MPI_INFO_NULL, 0, &graph);
    expect_message(rc, this_rank, "weights", "MPI_UNWEIGHTED on one rank only");
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char ranks_per_node[16];
  snprintf(ranks_per_node, sizeof ranks_per_node, "%d", size);
  setenv("DISTOPO_RANKS_PER_NODE", ranks_per_node, 1);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  many_dimensions();
  partial_unweighted();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return capi_finish();
}
