// Kokkos starts with the first distributed graph, not before: Cartesian grids
// and neighborhood collectives leave it alone even in a program that links
// it, and dist_graph_create starts it when the application has not (the
// control that shows the check can see it), with as many threads as the
// user asked for or, by default, its share of the machine.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sched.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdlib>
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

#if defined(KOKKOS_ENABLE_OPENMP)
  // The threads distopo gave its Kokkos: the user's OMP_NUM_THREADS, or else
  // the ranks of one machine share its cores (all of them for a single rank).
  const int threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  if (const char* requested = std::getenv("OMP_NUM_THREADS")) {
    EXPECT_EQ(threads, std::atoi(requested));
  } else {
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    const int ranks_here = distopo::comm_size(node);
    MPI_Comm_free(&node);
    cpu_set_t mask;
    CPU_ZERO(&mask);
    ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
    const int cores = CPU_COUNT(&mask);
    EXPECT_EQ(threads, std::max(cores / ranks_here, 1)) << ranks_here << " ranks on " << cores << " cores";
  }
#endif
}

}  // namespace
