// An application that owns Kokkos (issue 13, case 10): it initializes Kokkos
// after MPI_Init, builds a distributed graph (the library uses the
// application's Kokkos), finalizes Kokkos, and builds more graphs, large
// enough that the library would sort with Kokkos. They must work, and so must
// MPI_Finalize and the exit. Written against the C API, as such an
// application is; C++ only for Kokkos.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <vector>

#include "capi_check.h"

namespace {

int rank = 0;
int size = 0;

// Every rank declares `per_neighbor` parallel edges to each of its two ring
// neighbors, so it stores 4 * per_neighbor edge ends.
void build_and_use(int per_neighbor, const char* what) {
  const int next = (rank + 1) % size;
  const int previous = (rank + size - 1) % size;
  std::vector<int> destinations;
  for (int i = 0; i < per_neighbor; ++i) {
    destinations.push_back(next);
    destinations.push_back(previous);
  }
  const int source = rank;
  const int degree = static_cast<int>(destinations.size());
  MPI_Comm graph = MPI_COMM_NULL;
  const int rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, destinations.data(), MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &graph);
  expect_error_class(rc, MPI_SUCCESS, what);
  if (rc != MPI_SUCCESS) return;
  int indegree = 0, outdegree = 0, weighted = 0;
  MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted);
  CHECK(indegree == 2 * per_neighbor && outdegree == 2 * per_neighbor, "%s: degrees %d, %d", what, indegree, outdegree);
  std::vector<int> send(static_cast<std::size_t>(outdegree), rank);
  std::vector<int> receive(static_cast<std::size_t>(indegree), -1);
  expect_error_class(MPI_Neighbor_alltoall(send.data(), 1, MPI_INT, receive.data(), 1, MPI_INT, graph), MPI_SUCCESS,
                     what);
  for (int value : receive) CHECK(value == next || value == previous, "%s: received %d", what, value);
  MPI_Comm_free(&graph);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  Kokkos::initialize(argc, argv);
  build_and_use(3000, "with the application's Kokkos");
  Kokkos::finalize();
  build_and_use(3000, "after the application finalized Kokkos");
  build_and_use(2, "a small graph after the application finalized Kokkos");
  CHECK(!Kokkos::is_initialized(), "the library started Kokkos again after the application finalized it");

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return capi_finish();
}
