// Builds a ring with the installed C++ API and checks its neighbors.
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "distopo/cart.hpp"
#include "distopo/distgraph.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::vector<distopo::Edge> edges = {{rank, (rank + 1) % size, 1}};
  int failures = 0;
  {
    distopo::Comm ring = distopo::dist_graph_create(MPI_COMM_WORLD, edges);
    const auto& lists = distopo::dist_graph_neighbors(ring);
    failures += lists.destinations != std::vector<int>{(rank + 1) % size};
    failures += lists.sources != std::vector<int>{(rank + size - 1) % size};
    failures += distopo::dims_create(72, 2) != std::vector<int>{9, 8};
  }
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("consumer: %s\n", failures == 0 ? "ok" : "FAILED");
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
