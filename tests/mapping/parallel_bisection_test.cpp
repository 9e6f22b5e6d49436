// The recursive bisection of the gathered graph spread over helper ranks:
// with finish_exact every part has exactly its capacity, the result is the
// same on every call, a cut far below a random assignment's, and fewer parts
// than helpers (some helpers get nothing to split) work too.
#include "parallel_bisection.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <numeric>
#include <optional>
#include <vector>

#include "exact_partition.hpp"
#include "mpi_testing.hpp"

namespace {

using distopo::detail::DirectedEdge;
using distopo::detail::UndirectedGraph;

// A side x side 5-point grid.
UndirectedGraph grid(int side) {
  std::vector<DirectedEdge> edges;
  for (int x = 0; x < side; ++x) {
    for (int y = 0; y < side; ++y) {
      if (x + 1 < side) edges.push_back({x * side + y, (x + 1) * side + y, 1});
      if (y + 1 < side) edges.push_back({x * side + y, x * side + y + 1, 1});
    }
  }
  return distopo::detail::partitioner_graph(side * side, edges);
}

// The parts on rank 0 (empty elsewhere), finished to exact sizes.
std::vector<int> parts(const UndirectedGraph& graph, const std::vector<int>& capacities) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::optional<std::vector<int>> part = distopo::detail::bisect_in_parallel(
      MPI_COMM_WORLD, rank == 0 ? std::optional<UndirectedGraph>(graph) : std::nullopt, capacities, 4);
  EXPECT_EQ(part.has_value(), rank == 0);
  if (!part) return {};
  distopo::detail::finish_exact(graph, capacities, *part, distopo::detail::PartitionEffort::balanced);
  return *part;
}

TEST(ParallelBisection, ExactSizesSameEveryCallAndALowCut) {
  const UndirectedGraph g = grid(32);  // 1024 vertices, 3968 entries
  for (const std::vector<int>& capacities :
       {std::vector<int>(16, 64), std::vector<int>{300, 724}, std::vector<int>{100, 200, 300, 424}}) {
    const std::vector<int> first = parts(g, capacities);
    const std::vector<int> second = parts(g, capacities);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
      EXPECT_TRUE(first.empty());
      continue;
    }
    EXPECT_EQ(first, second);
    std::vector<int> fill(capacities.size(), 0);
    for (const int p : first) ++fill.at(static_cast<std::size_t>(p));
    EXPECT_EQ(fill, capacities);
    // 16 blocks of 8 x 8 cut 2 x 3 x 32 x 2 = 384 entries; a random split ~3700.
    if (capacities.size() == 16) {
      EXPECT_LT(distopo::detail::cut_weight(g, first), 480);
    }
  }
}

// Rank 0 without a graph to give (it found no memory for it): the failure
// travels down the tree of helpers and back, every rank returns, nobody
// partitions; and the next call works as before.
TEST(ParallelBisection, RankZeroWithoutTheGraphEndsEveryHelper) {
  const UndirectedGraph g = grid(16);
  const std::vector<int> capacities(8, 32);
  const std::optional<std::vector<int>> part =
      distopo::detail::bisect_in_parallel(MPI_COMM_WORLD, std::nullopt, capacities, 4);
  EXPECT_FALSE(part.has_value());
  const std::vector<int> after = parts(g, capacities);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    EXPECT_EQ(after.size(), 256U);
  }
}

TEST(ParallelBisection, HelpersArePowersOfTwo) {
  EXPECT_EQ(distopo::detail::bisection_helpers(1), 1);
  EXPECT_EQ(distopo::detail::bisection_helpers(3), 2);
  EXPECT_EQ(distopo::detail::bisection_helpers(8), 8);
  EXPECT_EQ(distopo::detail::bisection_helpers(100000), distopo::detail::kMaxBisectionHelpers);
}

}  // namespace
