// Builds a ring with the installed C++ API, checks its neighbors and
// exchanges with them through std::vector and std::array buffers.
#include <mpi.h>

#include <array>
#include <cstdio>
#include <vector>

#include "distopo/cart.hpp"
#include "distopo/distgraph.hpp"
#include "distopo/neighbor.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::vector<distopo::Edge> edges = {{rank, (rank + 1) % size, 1}};
  const int from = (rank + size - 1) % size;
  int failures = 0;
  {
    distopo::Comm ring = distopo::dist_graph_create(MPI_COMM_WORLD, edges);
    const auto& lists = distopo::dist_graph_neighbors(ring);
    failures += lists.destinations != std::vector<int>{(rank + 1) % size};
    failures += lists.sources != std::vector<int>{from};
    failures += distopo::dims_create(72, 2) != std::vector<int>{9, 8};

    const std::vector<int> send_vector = {rank};
    std::vector<int> recv_vector(1, -1);
    distopo::neighbor_alltoall(ring, send_vector, recv_vector);
    failures += recv_vector != std::vector<int>{from};

    const std::array<double, 2> send_array = {1.0 * rank, 0.5};
    std::array<double, 2> recv_array = {-1.0, -1.0};
    distopo::neighbor_alltoall(ring, send_array, recv_array);
    failures += recv_array != std::array<double, 2>{1.0 * from, 0.5};
  }
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("consumer: %s\n", failures == 0 ? "ok" : "FAILED");
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
