/* How many topology communicators a program can keep alive, each having run a
 * neighborhood collective (issue 13, case 7). MPI has a fixed number of
 * communicators (context ids); the library's own channels must not take a
 * share that grows with the number of topology communicators. The count of
 * live MPI_Comm_dup copies of MPI_COMM_WORLD is what MPI alone allows; each
 * kind of topology must reach 95% of it, and running out must be a clean
 * error. Also runs without the library (prints the same counts). */
#include <mpi.h>
#include <stdlib.h>

#include "capi_check.h"

enum { kLimit = 1 << 16 };

static int rank, size;
static MPI_Comm* live;

static void free_all(int count) {
  for (int i = 0; i < count; ++i) MPI_Comm_free(&live[i]);
}

/* Every rank must stop at the same count: the creation is collective. */
static void check_same_everywhere(int count, const char* what) {
  int bounds[2] = {count, -count};
  MPI_Allreduce(MPI_IN_PLACE, bounds, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(bounds[0] == -bounds[1], "%s: ranks stopped at different counts (%d here)", what, count);
}

static int count_duplicates(void) {
  int count = 0;
  while (count < kLimit && MPI_Comm_dup(MPI_COMM_WORLD, &live[count]) == MPI_SUCCESS) ++count;
  check_same_everywhere(count, "MPI_Comm_dup");
  free_all(count);
  return count;
}

/* Creates topology communicators of one kind (0: dist graph adjacent, 1:
 * dist graph, 2: Cartesian) and runs a neighbor exchange on each, until MPI
 * runs out. */
static int count_topologies(int kind) {
  const int next = (rank + 1) % size;
  const int previous = (rank + size - 1) % size;
  const int dims[1] = {size};
  const int periods[1] = {1};
  int count = 0;
  while (count < kLimit) {
    MPI_Comm topo = MPI_COMM_NULL;
    int rc = MPI_SUCCESS;
    if (kind == 0) {
      rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &previous, MPI_UNWEIGHTED, 1, &next, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &topo);
    } else if (kind == 1) {
      const int one = 1;
      rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, &next, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &topo);
    } else {
      rc = MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &topo);
    }
    if (rc != MPI_SUCCESS) break;
    MPI_Comm_set_errhandler(topo, MPI_ERRORS_RETURN);
    int sent[2] = {rank, rank};
    int received[2] = {-1, -1};
    rc = MPI_Neighbor_alltoall(sent, 1, MPI_INT, received, 1, MPI_INT, topo);
    if (rc != MPI_SUCCESS) {
      MPI_Comm_free(&topo);
      break;
    }
    CHECK(received[0] == previous, "kind %d, communicator %d: received %d, expected %d", kind, count, received[0],
          previous);
    live[count++] = topo;
  }
  check_same_everywhere(count, "topology communicators");
  free_all(count);
  return count;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  live = malloc(sizeof(MPI_Comm) * kLimit);

  const int duplicates = count_duplicates();
  static const char* const kinds[3] = {"MPI_Dist_graph_create_adjacent", "MPI_Dist_graph_create", "MPI_Cart_create"};
  for (int kind = 0; kind < 3; ++kind) {
    const int topologies = count_topologies(kind);
    if (rank == 0) {
      printf("%s: %d live communicators with a neighbor collective each; MPI_Comm_dup: %d\n", kinds[kind], topologies,
             duplicates);
    }
    CHECK(100LL * topologies >= 95LL * duplicates, "%s: %d live communicators, fewer than 95%% of %d", kinds[kind],
          topologies, duplicates);
  }
  /* After running out, everything works again. */
  /* What the library keeps on MPI_COMM_WORLD (its channels) stays. */
  const int after = count_duplicates();
  CHECK(100LL * after >= 95LL * duplicates, "%d duplicates after running out, %d before", after, duplicates);

  free(live);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return capi_finish();
}
