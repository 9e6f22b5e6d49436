/* An info key the library reads, given on rank 0 only: every rank must return
 * the same error (MPI_ERR_ARG, naming the key), none may wait for the others
 * (issue 13, case 4). The same hint on every rank works. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"

static int rank, size;

/* With more than one rank the key differs between ranks: MPI_ERR_ARG naming
 * `key` everywhere. Alone, rank 0 is everyone: success. */
static void expect_disagreement(int rc, MPI_Comm* result, const char* key, const char* what) {
  if (size == 1) {
    expect_error_class(rc, MPI_SUCCESS, what);
    if (rc == MPI_SUCCESS) MPI_Comm_free(result);
    return;
  }
  expect_error_class(rc, MPI_ERR_ARG, what);
  CHECK(*result == MPI_COMM_NULL, "%s: output communicator not MPI_COMM_NULL", what);
  char text[MPI_MAX_ERROR_STRING] = "";
  int length = 0;
  MPI_Error_string(rc, text, &length);
  CHECK(strstr(text, key) != NULL, "%s: the message does not name %s: %s", what, key, text);
}

static MPI_Info info_with(const char* key, const char* value) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, key, value);
  return info;
}

/* A ring with both sides declared consistently: the check, when it runs,
 * passes. */
static int create_ring(MPI_Info info, MPI_Comm* graph) {
  const int previous = (rank + size - 1) % size;
  const int next = (rank + 1) % size;
  return MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &previous, MPI_UNWEIGHTED, 1, &next, MPI_UNWEIGHTED, info, 0,
                                        graph);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  { /* distopo_check_adjacent = true on rank 0 only */
    MPI_Info info = rank == 0 ? info_with("distopo_check_adjacent", "true") : MPI_INFO_NULL;
    MPI_Comm graph = MPI_COMM_WORLD;
    const int rc = create_ring(info, &graph);
    expect_disagreement(rc, &graph, "distopo_check_adjacent", "distopo_check_adjacent on rank 0 only");
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  }
  { /* ... and on every rank: checked, and valid */
    MPI_Info info = info_with("distopo_check_adjacent", "true");
    MPI_Comm graph = MPI_COMM_NULL;
    const int rc = create_ring(info, &graph);
    expect_error_class(rc, MPI_SUCCESS, "distopo_check_adjacent on every rank");
    if (rc == MPI_SUCCESS) MPI_Comm_free(&graph);
    MPI_Info_free(&info);
  }
  { /* distopo_native_weights = true on rank 0 only: MPI_Dist_graph_create,
     * where the agreement is the exchange's */
    MPI_Info info = rank == 0 ? info_with("distopo_native_weights", "true") : MPI_INFO_NULL;
    const int source = rank;
    const int degree = 1;
    const int destination = (rank + 1) % size;
    const int weight = 3;
    MPI_Comm graph = MPI_COMM_WORLD;
    const int rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, &destination, &weight, info, 0, &graph);
    expect_disagreement(rc, &graph, "distopo_native_weights", "distopo_native_weights on rank 0 only, create");
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  }
  { /* ... and MPI_Dist_graph_create_adjacent (given on the last rank only) */
    MPI_Info info = rank == size - 1 ? info_with("distopo_native_weights", "true") : MPI_INFO_NULL;
    MPI_Comm graph = MPI_COMM_WORLD;
    const int rc = create_ring(info, &graph);
    expect_disagreement(rc, &graph, "distopo_native_weights", "distopo_native_weights on the last rank only");
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  }
  /* MPI_Cart_create and MPI_Graph_create take no info: their setting is the
   * environment variable, here set on rank 0 only. */
  if (rank == 0) setenv("DISTOPO_RANKS_PER_NODE", "2", 1);
  { /* MPI_Cart_create with reorder */
    const int dims[1] = {size};
    const int periods[1] = {1};
    MPI_Comm cart = MPI_COMM_WORLD;
    const int rc = MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 1, &cart);
    expect_disagreement(rc, &cart, "DISTOPO_RANKS_PER_NODE", "DISTOPO_RANKS_PER_NODE on rank 0 only, cart");
  }
  { /* MPI_Graph_create with reorder: a ring */
    int index[64];
    int edges[64];
    for (int i = 0; i < size; ++i) {
      index[i] = i + 1;
      edges[i] = (i + 1) % size;
    }
    MPI_Comm graph = MPI_COMM_WORLD;
    const int rc = MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 1, &graph);
    expect_disagreement(rc, &graph, "DISTOPO_RANKS_PER_NODE", "DISTOPO_RANKS_PER_NODE on rank 0 only, graph");
  }
  if (rank == 0) unsetenv("DISTOPO_RANKS_PER_NODE");

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return capi_finish();
}
