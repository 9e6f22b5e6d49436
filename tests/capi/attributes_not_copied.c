/* Only MPI_Comm_dup (and idup, dup_with_info) copies attributes (issue 13,
 * case 2). A communicator carries two attributes: one whose copy callback
 * counts its calls, one whose copy callback fails. Building every kind of
 * topology on it, and running neighborhood collectives (blocking,
 * nonblocking, persistent) on results that carry the same attributes, must
 * run no copy callback and fail nowhere; an MPI_Comm_dup of a result runs
 * each callback exactly once. */
#include <mpi.h>

#include "capi_check.h"

static int rank, size;
static int copies = 0;
static int counted_keyval = MPI_KEYVAL_INVALID;
static int failing_keyval = MPI_KEYVAL_INVALID;

static int count_copy(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm;
  (void)keyval;
  (void)extra;
  ++copies;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm;
  (void)keyval;
  (void)extra;
  (void)in;
  (void)out;
  (void)flag;
  ++copies;
  return MPI_ERR_OTHER;
}

static int attribute_value = 42;

static void decorate(MPI_Comm comm) {
  MPI_Comm_set_attr(comm, counted_keyval, &attribute_value);
  MPI_Comm_set_attr(comm, failing_keyval, &attribute_value);
}

/* Every neighborhood collective form on a topology communicator whose
 * neighbors are given by the counts. */
static void run_collectives(MPI_Comm topo, const char* what) {
  int indegree = 0, outdegree = 0, weighted = 0, status = MPI_UNDEFINED;
  MPI_Topo_test(topo, &status);
  if (status == MPI_DIST_GRAPH) {
    MPI_Dist_graph_neighbors_count(topo, &indegree, &outdegree, &weighted);
  } else if (status == MPI_CART) {
    int ndims = 0;
    MPI_Cartdim_get(topo, &ndims);
    indegree = outdegree = 2 * ndims;
  } else {
    MPI_Graph_neighbors_count(topo, rank, &indegree);
    outdegree = indegree;
  }
  int send[64];
  int receive[64];
  for (int i = 0; i < 64; ++i) send[i] = rank;
  CHECK(indegree <= 64 && outdegree <= 64, "%s: too many neighbors for this test", what);
  expect_error_class(MPI_Neighbor_alltoall(send, 1, MPI_INT, receive, 1, MPI_INT, topo), MPI_SUCCESS, what);
  MPI_Request request = MPI_REQUEST_NULL;
  expect_error_class(MPI_Ineighbor_allgather(send, 1, MPI_INT, receive, 1, MPI_INT, topo, &request), MPI_SUCCESS, what);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  expect_error_class(MPI_Neighbor_allgather_init(send, 1, MPI_INT, receive, 1, MPI_INT, topo, MPI_INFO_NULL, &request),
                     MPI_SUCCESS, what);
  if (request != MPI_REQUEST_NULL) {
    MPI_Start(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Request_free(&request);
  }
}

/* A result of a constructor: no copy so far; then it carries the attributes
 * itself and runs collectives, still without a copy; its MPI_Comm_dup copies
 * the counted attribute once and fails on the other. */
static void check_result(int rc, MPI_Comm* topo, const char* what) {
  expect_error_class(rc, MPI_SUCCESS, what);
  CHECK(copies == 0, "%s: %d copy callbacks ran in the constructor", what, copies);
  if (rc != MPI_SUCCESS || *topo == MPI_COMM_NULL) return;
  MPI_Comm_set_errhandler(*topo, MPI_ERRORS_RETURN);
  decorate(*topo);
  run_collectives(*topo, what);
  run_collectives(*topo, what);
  CHECK(copies == 0, "%s: %d copy callbacks ran in neighborhood collectives", what, copies);
  MPI_Comm_delete_attr(*topo, failing_keyval);
  MPI_Comm dup = MPI_COMM_NULL;
  expect_error_class(MPI_Comm_dup(*topo, &dup), MPI_SUCCESS, what);
  CHECK(copies == 1, "%s: MPI_Comm_dup ran %d copy callbacks, expected 1", what, copies);
  if (dup != MPI_COMM_NULL) {
    run_collectives(dup, what);
    MPI_Comm_free(&dup);
  }
  MPI_Comm_free(topo);
  copies = 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &counted_keyval, NULL);
  MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &failing_keyval, NULL);

  MPI_Comm base = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  MPI_Comm_set_errhandler(base, MPI_ERRORS_RETURN);
  decorate(base);

  const int next = (rank + 1) % size;
  const int previous = (rank + size - 1) % size;
  for (int round = 0; round < 2; ++round) { /* the second round finds whatever the first cached */
    MPI_Comm topo = MPI_COMM_NULL;
    int rc = MPI_Dist_graph_create_adjacent(base, 1, &previous, MPI_UNWEIGHTED, 1, &next, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                            0, &topo);
    check_result(rc, &topo, "MPI_Dist_graph_create_adjacent");

    const int source = rank;
    const int degree = 1;
    rc = MPI_Dist_graph_create(base, 1, &source, &degree, &next, MPI_UNWEIGHTED, MPI_INFO_NULL, round, &topo);
    check_result(rc, &topo, "MPI_Dist_graph_create");

    const int dims[2] = {size, 1};
    const int periods[2] = {1, 0};
    rc = MPI_Cart_create(base, 2, dims, periods, round, &topo);
    check_result(rc, &topo, "MPI_Cart_create");

    int index[64];
    int edges[128];
    for (int i = 0; i < size && i < 64; ++i) { /* a ring both ways: graph neighbors are symmetric */
      index[i] = 2 * (i + 1);
      edges[2 * i] = (i + size - 1) % size;
      edges[2 * i + 1] = (i + 1) % size;
    }
    rc = MPI_Graph_create(base, size, index, edges, round, &topo);
    check_result(rc, &topo, "MPI_Graph_create");

    MPI_Comm cart = MPI_COMM_NULL;
    MPI_Cart_create(base, 2, dims, periods, 0, &cart);
    decorate(cart);
    copies = 0;
    const int remain[2] = {1, round};
    rc = MPI_Cart_sub(cart, remain, &topo);
    check_result(rc, &topo, "MPI_Cart_sub");
    MPI_Comm_free(&cart);
    copies = 0;
  }

  MPI_Comm_free(&base);
  CHECK(copies == 0, "%d copy callbacks at the end", copies);
  MPI_Comm_free_keyval(&counted_keyval);
  MPI_Comm_free_keyval(&failing_keyval);
  return capi_finish();
}
