// ring.cpp: every rank names its edges to both neighbors on a ring, then
// exchanges one int with each of them.
#include <mpi.h>

#include <cstdio>
#include <distopo/distgraph.hpp>
#include <distopo/neighbor.hpp>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  {
    // Each rank names the edges it knows about, in any order, any owner.
    const std::vector<distopo::Edge> edges = {{rank, (rank + 1) % p, /*weight*/ 2}, {rank, (rank + p - 1) % p, 2}};
    distopo::Comm ring = distopo::dist_graph_create(MPI_COMM_WORLD, edges, {.weighted = true});
    const auto& nb = distopo::dist_graph_neighbors(ring);  // sorted (rank, weight) lists
    std::vector<int> send(nb.destinations.size(), rank), recv(nb.sources.size(), -1);
    distopo::neighbor_alltoall(ring, send, recv);
    std::printf("rank %d got %d from %d and %d from %d\n", rank, recv[0], nb.sources[0], recv[1], nb.sources[1]);
  }  // `ring` is freed here; it also carries MPICH's native topology meanwhile
  MPI_Finalize();
}
