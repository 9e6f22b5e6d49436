/* One rank runs out of memory in MPI_Dist_graph_create (issue 13, case 8):
 * the last rank limits its address space to what it uses plus room for MPI,
 * then edges are declared towards it, more than it can hold: its own (it
 * fails while bucketing them, before the exchange), then the other ranks'
 * (it fails while receiving them). The edges carry distinct weights, so that
 * every end travels on its own (unweighted, all alike, they would travel as
 * one end with its count and fit). Every rank must return MPI_ERR_NO_MEM,
 * nobody may wait, and the communicator must work afterwards. With three
 * ranks or more, once more by source (distopo_by_source): rank 0 declares
 * edges from rank 1 to the last rank, so they reach the last rank only in
 * the second exchange, sent on by rank 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "address_space.h"
#include "capi_check.h"

/* What the limited rank may map beyond what it has mapped already: room for
 * MPI's own needs, not for the edges below. */
static const rlim_t kHeadroom = 64u << 20;
/* Before the exchange: the last rank declares this many edges to itself
 * (96 MiB of edge ends to bucket). During it: every other rank declares this
 * many to the last one (80 MiB to receive from each). */
enum { kOwnEdges = 6 << 20, kIncomingEdges = 10 << 20 };

static int rank, size, limited;
static int *destinations, *weights;

/* Every rank declares `degree` edges to the last rank; the last rank gets too
 * little memory for its part. */
static void create_beyond_memory(int degree, const char* what) {
  struct rlimit original;
  getrlimit(RLIMIT_AS, &original);
  if (rank == limited) {
    struct rlimit tight = original;
    tight.rlim_cur = mapped_bytes() + kHeadroom;
    CHECK(setrlimit(RLIMIT_AS, &tight) == 0, "setrlimit failed");
  }
  const int source = rank;
  MPI_Comm graph = MPI_COMM_WORLD;
  const int rc =
      MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, destinations, weights, MPI_INFO_NULL, 0, &graph);
  if (rank == limited) setrlimit(RLIMIT_AS, &original);
  expect_error_class(rc, MPI_ERR_NO_MEM, what);
  CHECK(graph == MPI_COMM_NULL, "%s: output communicator not MPI_COMM_NULL", what);
  if (rc == MPI_SUCCESS) MPI_Comm_free(&graph);
}

/* Rank 0 declares kIncomingEdges edges from rank 1 to the last rank, to go
 * by source: the last rank runs out of memory in the second exchange. */
static void create_by_source_beyond_memory(void) {
  struct rlimit original;
  getrlimit(RLIMIT_AS, &original);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "distopo_by_source", "true");
  if (rank == limited) {
    struct rlimit tight = original;
    tight.rlim_cur = mapped_bytes() + kHeadroom;
    CHECK(setrlimit(RLIMIT_AS, &tight) == 0, "setrlimit failed");
  }
  const int source = 1;
  const int degree = rank == 0 ? kIncomingEdges : 0;
  MPI_Comm graph = MPI_COMM_WORLD;
  const int rc = MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? 1 : 0, &source, &degree, destinations, weights, info,
                                       0, &graph);
  if (rank == limited) setrlimit(RLIMIT_AS, &original);
  MPI_Info_free(&info);
  expect_error_class(rc, MPI_ERR_NO_MEM, "out of memory in the second exchange (by source)");
  CHECK(graph == MPI_COMM_NULL, "by source: output communicator not MPI_COMM_NULL");
  if (rc == MPI_SUCCESS) MPI_Comm_free(&graph);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  limited = size - 1;

  destinations = malloc(sizeof(int) * kIncomingEdges);
  weights = malloc(sizeof(int) * kIncomingEdges);
  CHECK(destinations != NULL && weights != NULL, "no memory for the input");
  if (destinations == NULL || weights == NULL) return capi_finish();
  for (int i = 0; i < kIncomingEdges; ++i) {
    destinations[i] = limited;
    weights[i] = i;
  }

  create_beyond_memory(rank == limited ? kOwnEdges : 0, "out of memory before the exchange");
  if (size > 1) create_beyond_memory(rank == limited ? 0 : kIncomingEdges, "out of memory during the exchange");
  if (size > 2) create_by_source_beyond_memory();
  free(weights);
  free(destinations);

  /* Nothing is left behind: a small graph on the same communicator works. */
  expect_small_graph_works();

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return capi_finish();
}
