// Kokkos starts with the first distributed graph, not before: Cartesian grids
// and neighborhood collectives leave it alone even in a program that links
// it, and dist_graph_create starts it when the application has not (the
// control that shows the check can see it).
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <vector>

#include "distopo/cart.hpp"
#include "distopo/distgraph.hpp"
#include "distopo/neighbor.hpp"
#include "mpi_testing.hpp"

namespace {

TEST(KokkosLifecycle, StartedByTheFirstDistributedGraphOnly) {
  ASSERT_FALSE(Kokkos::is_initialized());
  const int p = distopo::testing::world_size();
  const int rank = distopo::testing::world_rank();
  {
    distopo::Comm grid = distopo::cart_create(MPI_COMM_WORLD, distopo::dims_create(p, 3),
                                              {distopo::periodic, distopo::open, distopo::periodic});
    const auto [in, out] = distopo::neighbor_degrees(grid);
    std::vector<double> send(static_cast<std::size_t>(out), 1.0);
    std::vector<double> recv(static_cast<std::size_t>(in));
    distopo::neighbor_alltoall(grid, send, recv);
    (void)distopo::cart_shift(grid, 1, 1);
  }
  EXPECT_FALSE(Kokkos::is_initialized()) << "a Cartesian program started Kokkos";

  const std::vector<distopo::Edge> edges = {{rank, (rank + 1) % p}};
  distopo::Comm ring = distopo::dist_graph_create(MPI_COMM_WORLD, edges);
  EXPECT_TRUE(Kokkos::is_initialized()) << "dist_graph_create did not start Kokkos";
}

}  // namespace
