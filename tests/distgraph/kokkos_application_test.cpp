// An application that owns Kokkos: it starts Kokkos with its own thread
// count before MPI_Init and finalizes it after MPI_Finalize (a global
// Kokkos::ScopeGuard, as many Kokkos programs hold one in main). distopo must
// sort with that Kokkos as it is, neither restart nor resize it, and leave it
// running when MPI goes down.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <vector>

#include "dist_graph_testing.hpp"
#include "distopo/distgraph.hpp"
#include "mpi_testing.hpp"

namespace {

// 1 thread on even ranks, 2 on odd ones: the launcher's rank, read before
// MPI_Init as an application could (MPICH's Hydra sets PMI_RANK).
int application_threads() {
  const char* rank = std::getenv("PMI_RANK");
  return rank != nullptr && std::atoi(rank) % 2 == 1 ? 2 : 1;
}

Kokkos::InitArguments application_arguments() {
  Kokkos::InitArguments arguments;
  arguments.num_threads = application_threads();
  arguments.disable_warnings = true;  // OMP_PROC_BIND advice, once per rank
  return arguments;
}

// Constructed before main (so before MPI_Init), destroyed after main returns.
const Kokkos::ScopeGuard application_kokkos(application_arguments());

// Enough edge ends per rank that the key sort takes the Kokkos radix passes
// (above 4096 keys), named by ranks that own neither end.
constexpr int kEdgesPerRank = 3000;

distopo::Edge edge(int rank, int i, int p) { return {(rank + i) % p, (rank * 31 + i * 17) % p, (rank + 3 * i) % 5}; }

TEST(KokkosOfTheApplication, SortsWithItAndLeavesItAsStarted) {
  ASSERT_TRUE(Kokkos::is_initialized());
  const int concurrency = Kokkos::DefaultHostExecutionSpace().concurrency();
#if defined(KOKKOS_ENABLE_OPENMP)
  EXPECT_EQ(concurrency, application_threads());
#endif
  const int p = distopo::testing::world_size();
  const int rank = distopo::testing::world_rank();
  std::vector<distopo::Edge> edges;
  for (int i = 0; i < kEdgesPerRank; ++i) edges.push_back(edge(rank, i, p));

  distopo::testing::WeightedList in;
  distopo::testing::WeightedList out;
  for (int q = 0; q < p; ++q) {
    for (int i = 0; i < kEdgesPerRank; ++i) {
      const distopo::Edge e = edge(q, i, p);
      if (e.source == rank) out.emplace_back(e.destination, e.weight);
      if (e.destination == rank) in.emplace_back(e.source, e.weight);
    }
  }
  ASSERT_GT(in.size() + out.size(), 4096U);

  for (int round = 0; round < 2; ++round) {  // the second one on the Kokkos already in use
    distopo::Comm graph = distopo::dist_graph_create(MPI_COMM_WORLD, edges, {.weighted = true});
    const auto lists = distopo::testing::distopo_lists(graph);
    EXPECT_EQ(lists.in, distopo::testing::sorted(in));
    EXPECT_EQ(lists.out, distopo::testing::sorted(out));
    EXPECT_TRUE(Kokkos::is_initialized());
    EXPECT_EQ(Kokkos::DefaultHostExecutionSpace().concurrency(), concurrency);
  }
}

}  // namespace
