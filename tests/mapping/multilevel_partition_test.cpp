// The distributed multilevel partitioner of the reordering above the gather
// limit, on its own: every part gets exactly its capacity (uneven ones too),
// the parts do not depend on how the vertices are spread over the ranks (one
// process holding all of them on MPI_COMM_SELF gives the same answer), the
// cut is within 1.15x of the serial partitioner's on the whole graph, and it
// gives up rather than gather a graph of isolated vertices.
#include "multilevel_partition.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "exact_partition.hpp"
#include "mpi_testing.hpp"

namespace {

using distopo::detail::HeldGraph;
using distopo::detail::multilevel_partition;
using distopo::detail::PartCapacity;
using Adjacency = std::vector<std::vector<std::pair<int, std::int64_t>>>;

// A side x side 5-point grid numbered by a fixed random permutation.
Adjacency permuted_grid(int side) {
  const int n = side * side;
  std::vector<int> number(static_cast<std::size_t>(n));
  std::iota(number.begin(), number.end(), 0);
  std::mt19937 generator(7);
  std::shuffle(number.begin(), number.end(), generator);
  Adjacency adjacency(static_cast<std::size_t>(n));
  const auto id = [&](int x, int y) { return number[static_cast<std::size_t>(x * side + y)]; };
  for (int x = 0; x < side; ++x) {
    for (int y = 0; y < side; ++y) {
      auto& list = adjacency[static_cast<std::size_t>(id(x, y))];
      if (x > 0) list.emplace_back(id(x - 1, y), 2);
      if (x + 1 < side) list.emplace_back(id(x + 1, y), 2);
      if (y > 0) list.emplace_back(id(x, y - 1), 1);
      if (y + 1 < side) list.emplace_back(id(x, y + 1), 1);
    }
  }
  return adjacency;
}

// The vertices of `comm`'s rank, spread in blocks; capacities of the parts it coordinates.
struct Input {
  HeldGraph graph;
  std::vector<PartCapacity> coordinated;
};

Input spread(MPI_Comm comm, const Adjacency& adjacency, const std::vector<int>& capacities) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = static_cast<int>(adjacency.size());
  Input input;
  input.graph.blocks = {n, (n + size - 1) / size};
  input.graph.offsets = {0};
  for (int v = rank * input.graph.blocks.per_rank; v < std::min(n, (rank + 1) * input.graph.blocks.per_rank); ++v) {
    input.graph.ids.push_back(v);
    for (const auto& [u, w] : adjacency[static_cast<std::size_t>(v)]) {
      input.graph.targets.push_back(u);
      input.graph.weights.push_back(w);
    }
    input.graph.offsets.push_back(input.graph.targets.size());
  }
  for (int p = 0; p < static_cast<int>(capacities.size()); ++p) {
    if (input.graph.blocks.owner(p) == rank) input.coordinated.push_back({p, capacities[static_cast<std::size_t>(p)]});
  }
  return input;
}

// The whole part array on every rank (nullopt when the partitioner gave up).
std::optional<std::vector<int>> partition(MPI_Comm comm, const Adjacency& adjacency, const std::vector<int>& capacities,
                                          std::int64_t gather_limit) {
  const Input input = spread(comm, adjacency, capacities);
  distopo::detail::RecordExchange exchange(comm);
  const auto part = multilevel_partition(exchange, input.graph, input.coordinated, static_cast<int>(capacities.size()),
                                         gather_limit, distopo::detail::PartitionEffort::balanced);
  if (!part) return std::nullopt;
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<int> counts(static_cast<std::size_t>(size));
  const int mine = static_cast<int>(part->size());
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  std::vector<int> displacements(counts.size(), 0);
  std::exclusive_scan(counts.begin(), counts.end(), displacements.begin(), 0);
  std::vector<int> whole(adjacency.size());
  MPI_Allgatherv(part->data(), mine, MPI_INT, whole.data(), counts.data(), displacements.data(), MPI_INT, comm);
  return whole;
}

std::int64_t cut(const Adjacency& adjacency, const std::vector<int>& part) {
  std::int64_t total = 0;
  for (std::size_t v = 0; v < adjacency.size(); ++v) {
    for (const auto& [u, w] : adjacency[v]) total += part[v] != part[static_cast<std::size_t>(u)] ? w : 0;
  }
  return total;
}

void expect_exact_sizes(const std::vector<int>& part, const std::vector<int>& capacities) {
  std::vector<int> fill(capacities.size(), 0);
  for (const int p : part) {
    ASSERT_GE(p, 0);
    ASSERT_LT(p, static_cast<int>(capacities.size()));
    ++fill[static_cast<std::size_t>(p)];
  }
  EXPECT_EQ(fill, capacities);
}

TEST(MultilevelPartition, ExactSizesAndTheSameOnAnyNumberOfRanks) {
  const Adjacency grid = permuted_grid(24);  // 576 vertices
  // 16 parts of 36, and uneven ones (sum 576) that force split coarse vertices;
  // then more parts than one rank splits at once (nested_splits.hpp), even and uneven.
  std::vector<int> many_uneven(276, 2);
  many_uneven.resize(300, 1);
  std::rotate(many_uneven.begin(), many_uneven.begin() + 150, many_uneven.end());
  const std::vector<std::vector<int>> layouts{
      std::vector<int>(16, 36), {40, 31, 64, 9, 100, 52, 80, 64, 36, 100}, std::vector<int>(288, 2), many_uneven};
  for (const auto& capacities : layouts) {
    // The serial exact partitioner on the whole graph (what the gathered path runs).
    std::vector<distopo::detail::DirectedEdge> edges;
    for (int v = 0; v < static_cast<int>(grid.size()); ++v) {
      for (const auto& [u, w] : grid[static_cast<std::size_t>(v)]) edges.push_back({v, u, w});
    }
    const std::int64_t whole_graph_cut = cut(
        grid, distopo::detail::partition_exact(distopo::detail::partitioner_graph(static_cast<int>(grid.size()), edges),
                                               capacities, distopo::detail::PartitionEffort::balanced));
    for (const std::int64_t gather_limit : {std::int64_t{1}, std::int64_t{1000}}) {
      const auto spread_result = partition(MPI_COMM_WORLD, grid, capacities, gather_limit);
      const auto alone = partition(MPI_COMM_SELF, grid, capacities, gather_limit);
      ASSERT_TRUE(spread_result.has_value());
      ASSERT_TRUE(alone.has_value());
      expect_exact_sizes(*spread_result, capacities);
      EXPECT_EQ(*spread_result, *alone);
      EXPECT_LE(static_cast<double>(cut(grid, *spread_result)), 1.15 * static_cast<double>(whole_graph_cut))
          << "gather limit " << gather_limit;
    }
  }
}

TEST(MultilevelPartition, GivesUpOnIsolatedVertices) {
  // No edges: nothing coarsens, and rank 0 would hold every vertex.
  const Adjacency isolated(4096);
  EXPECT_FALSE(partition(MPI_COMM_WORLD, isolated, std::vector<int>(4, 1024), 1).has_value());
}

}  // namespace
