/* One rank without memory for MPICH's copy of the topology (issue 28, item
 * 2). The last rank limits its address space to what it uses plus room for
 * distopo's own lists and some slack, not for the lists again: then it
 * creates a distributed graph with 8 million out-edges to one neighbor (the
 * others give one edge each). distopo's agreement passes; MPICH's copy of
 * the lists (PMPI_Dist_graph_create_adjacent, the native mirror) used to
 * fail on that rank only while every other rank returned a communicator.
 * Every rank must now return the same error class, MPI_ERR_NO_MEM, with
 * MPI_COMM_NULL, the message naming the user's call; nothing may hang, and
 * the communicator must work afterwards. The same for
 * MPI_Dist_graph_create_adjacent, and for MPI_Graph_create with a graph
 * whose last node has 8 million edges (every rank holds the whole graph). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "address_space.h"
#include "capi_check.h"

enum { kEdges = 8 << 20 };
/* Beyond distopo's own lists: room for MPI's needs during the call, far
 * less than the lists MPICH's copy needs. */
static const rlim_t kSlack = 24u << 20;

static int rank, size, limited;

/* Runs `create` with the last rank's address space limited to what it has
 * mapped plus `lists_bytes` (distopo's own copy) and the slack; checks that
 * every rank gets the same outcome, MPI_ERR_NO_MEM naming `call`. */
static void expect_same_outcome(int (*create)(MPI_Comm*), rlim_t lists_bytes, const char* call) {
  struct rlimit original;
  getrlimit(RLIMIT_AS, &original);
  if (rank == limited) {
    struct rlimit tight = original;
    tight.rlim_cur = mapped_bytes() + lists_bytes + kSlack;
    CHECK(setrlimit(RLIMIT_AS, &tight) == 0, "setrlimit failed");
  }
  MPI_Comm result = MPI_COMM_WORLD;
  const int rc = create(&result);
  if (rank == limited) setrlimit(RLIMIT_AS, &original);

  int error_class = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &error_class);
  int classes[2] = {error_class, -error_class};
  MPI_Allreduce(MPI_IN_PLACE, classes, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(classes[0] == -classes[1], "%s: ranks disagree: error classes from %d to %d (this rank: %d)", call, -classes[1],
        classes[0], error_class);
  expect_error_class(rc, MPI_ERR_NO_MEM, call);
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = "";
    int length = 0;
    MPI_Error_string(rc, text, &length);
    CHECK(strncmp(text, call, strlen(call)) == 0, "the message names %s: %s", call, text);
    CHECK(result == MPI_COMM_NULL, "%s: output communicator not MPI_COMM_NULL", call);
  } else if (result != MPI_COMM_NULL) {
    MPI_Comm_free(&result);
  }
}

static int* many_to_next; /* kEdges times the next rank */

static int create_graph(MPI_Comm* result) {
  const int next = (rank + 1) % size;
  const int degree = rank == limited ? kEdges : 1;
  return MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &degree, rank == limited ? many_to_next : &next,
                               MPI_UNWEIGHTED, MPI_INFO_NULL, 0, result);
}

/* The limited rank names kEdges out-edges to rank 0, rank 0 as many in-edges
 * from it; everybody else one edge along the ring. */
static int create_adjacent(MPI_Comm* result) {
  const int next = (rank + 1) % size;
  const int previous = (rank + size - 1) % size;
  int* zeros = many_to_next; /* rank == limited: all entries are 0 */
  int* from_limited = NULL;
  int indegree = 1, outdegree = 1;
  const int* sources = &previous;
  const int* destinations = &next;
  if (rank == 0 && size > 1) {
    from_limited = malloc(sizeof(int) * kEdges);
    for (int i = 0; i < kEdges; ++i) from_limited[i] = limited;
    indegree = kEdges;
    sources = from_limited;
  }
  if (rank == limited) {
    outdegree = kEdges;
    destinations = zeros;
    if (size == 1) {
      indegree = kEdges;
      sources = zeros;
    }
  }
  const int rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indegree, sources, MPI_UNWEIGHTED, outdegree,
                                                destinations, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, result);
  free(from_limited);
  return rc;
}

/* The whole graph on every rank: the last graph node has kEdges edges to
 * node 0, every other node one edge to the next. */
static int *graph_index, *graph_edges;

static int create_graph_topology(MPI_Comm* result) {
  return MPI_Graph_create(MPI_COMM_WORLD, size, graph_index, graph_edges, 0, result);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  limited = size - 1;

  /* Everything the library sets up once (Kokkos, keyvals, channels) exists
   * before the limit. */
  MPI_Comm warm = MPI_COMM_NULL;
  const int next = (rank + 1) % size;
  const int one = 1;
  MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, &next, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &warm);
  MPI_Comm_free(&warm);

  if (rank == limited) {
    many_to_next = malloc(sizeof(int) * kEdges);
    CHECK(many_to_next != NULL, "no memory for the input");
    for (int i = 0; i < kEdges; ++i) many_to_next[i] = 0; /* rank (limited + 1) % size */
  }
  /* The limited rank's lists: its out-edges, and at one rank its in-edges too. */
  const rlim_t lists = (rlim_t)kEdges * sizeof(int) * (size == 1 ? 2 : 1);
  expect_same_outcome(create_graph, lists, "MPI_Dist_graph_create");
  expect_same_outcome(create_adjacent, lists, "MPI_Dist_graph_create_adjacent");
  free(many_to_next);

  graph_index = malloc(sizeof(int) * (size_t)size);
  graph_edges = calloc((size_t)kEdges + (size_t)size, sizeof(int)); /* zeros: node 0 */
  CHECK(graph_index != NULL && graph_edges != NULL, "no memory for the graph");
  for (int node = 0; node < size - 1; ++node) {
    graph_index[node] = node + 1;
    graph_edges[node] = node + 1;
  }
  graph_index[size - 1] = size - 1 + kEdges;
  /* distopo's copy of the graph (index and edges) on the limited rank. */
  expect_same_outcome(create_graph_topology, (rlim_t)(size + kEdges) * sizeof(int), "MPI_Graph_create");
  free(graph_edges);
  free(graph_index);

  /* Nothing is left behind: a small graph on the same communicator works. */
  expect_small_graph_works();

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return capi_finish();
}
