/* Reordering is a hint: when rank 0 has no memory for the gathered graph the
 * mapping is computed on, MPI_Dist_graph_create with reorder = 1 keeps the
 * identity on every rank instead of failing or hanging. Emulated machine
 * nodes of 2 ranks; rank r gives many unweighted edges to r + 2 (its own
 * lists stay small: equal edges travel with a count), so the identity crosses
 * machine nodes with all of them and a mapping would move ranks, as the same
 * call without the limit shows. Needs 4 or more ranks, an even number. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "address_space.h"
#include "capi_check.h"

/* The gathered graph takes 16 bytes per edge on rank 0 (destination, and
 * source, destination and weight in the partitioner's input): 4 ranks give
 * 32 MiB, above what rank 0 may map beyond its own needs. */
enum { kEdgesPerRank = 1 << 19 };
static const rlim_t kHeadroom = 24u << 20;

static int rank, size;
static int* destinations;

/* 1 if the reordered graph moved any rank (same answer on every rank). */
static int create_and_see_if_moved(MPI_Info info, int limit_rank_zero, const char* what) {
  struct rlimit original;
  getrlimit(RLIMIT_AS, &original);
  if (limit_rank_zero && rank == 0) {
    struct rlimit tight = original;
    tight.rlim_cur = mapped_bytes() + kHeadroom;
    CHECK(setrlimit(RLIMIT_AS, &tight) == 0, "setrlimit failed");
  }
  const int source = rank;
  const int degree = kEdgesPerRank;
  MPI_Comm graph = MPI_COMM_NULL;
  const int rc =
      MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, destinations, MPI_UNWEIGHTED, info, 1, &graph);
  if (limit_rank_zero && rank == 0) setrlimit(RLIMIT_AS, &original);
  expect_error_class(rc, MPI_SUCCESS, what);
  if (rc != MPI_SUCCESS) return -1;
  int new_rank = -1;
  MPI_Comm_rank(graph, &new_rank);
  int moved = new_rank != rank;
  MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  /* Whatever the mapping, the graph node each process holds has its lists:
   * kEdgesPerRank out-edges to graph node new_rank + 2. */
  int indegree = -1, outdegree = -1, weighted = -1;
  MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted);
  CHECK_EQ_INT(outdegree, kEdgesPerRank);
  CHECK_EQ_INT(indegree, kEdgesPerRank);
  MPI_Comm_free(&graph);
  return moved;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (size < 4 || size % 2 != 0) {
    if (rank == 0) printf("reorder_without_memory: needs an even number of ranks, at least 4; skipped\n");
    return capi_finish();
  }
  destinations = malloc(sizeof(int) * kEdgesPerRank);
  CHECK(destinations != NULL, "no memory for the input");
  if (destinations == NULL) return capi_finish();
  for (int i = 0; i < kEdgesPerRank; ++i) destinations[i] = (rank + 2) % size;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "distopo_ranks_per_node", "2");

  CHECK_EQ_INT(create_and_see_if_moved(info, 1, "reorder, rank 0 without memory for the graph"), 0);
  CHECK_EQ_INT(create_and_see_if_moved(info, 0, "reorder with memory"), 1);

  MPI_Info_free(&info);
  free(destinations);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return capi_finish();
}
