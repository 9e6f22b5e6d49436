// The serial partitioner of the dist-graph reordering: the partitioner's graph
// (self-loops dropped, both directions merged, weights summed and scaled),
// exact part sizes, cut quality against block mappings on natural and
// permuted grids, and determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "exact_partition.hpp"

namespace {

using distopo::detail::DirectedEdge;
using distopo::detail::partition_exact;
using distopo::detail::PartitionEffort;
using distopo::detail::partitioner_graph;

// Directed 5-point edges of an nx x ny grid, cell (x, y) numbered
// number[x * ny + y]; x edges weigh wx, y edges wy.
std::vector<DirectedEdge> grid_edges(int nx, int ny, const std::vector<int>& number, int wx = 1, int wy = 1) {
  std::vector<DirectedEdge> edges;
  const auto id = [&](int x, int y) { return number[static_cast<std::size_t>(x * ny + y)]; };
  for (int x = 0; x < nx; ++x) {
    for (int y = 0; y < ny; ++y) {
      if (x > 0) edges.push_back({id(x, y), id(x - 1, y), wx});
      if (x + 1 < nx) edges.push_back({id(x, y), id(x + 1, y), wx});
      if (y > 0) edges.push_back({id(x, y), id(x, y - 1), wy});
      if (y + 1 < ny) edges.push_back({id(x, y), id(x, y + 1), wy});
    }
  }
  return edges;
}

std::vector<int> natural(int n) {
  std::vector<int> number(static_cast<std::size_t>(n));
  std::iota(number.begin(), number.end(), 0);
  return number;
}

std::vector<int> permuted(int n, unsigned seed) {
  std::vector<int> number = natural(n);
  std::mt19937 generator(seed);
  std::shuffle(number.begin(), number.end(), generator);
  return number;
}

// Cut of bx x by blocks on an nx x ny grid, as cut_weight counts it: both
// directions of every pair, each weighing the sum of u->v and v->u (2 w).
std::int64_t block_cut(int nx, int ny, int bx, int by, int wx = 1, int wy = 1) {
  const std::int64_t x_cuts = static_cast<std::int64_t>(nx / bx - 1) * ny * wx;
  const std::int64_t y_cuts = static_cast<std::int64_t>(ny / by - 1) * nx * wy;
  return 4 * (x_cuts + y_cuts);
}

std::vector<int> part_sizes(const std::vector<int>& part, std::size_t parts) {
  std::vector<int> sizes(parts, 0);
  for (const int p : part) ++sizes[static_cast<std::size_t>(p)];
  return sizes;
}

TEST(ReorderPartition, PartitionerGraphMergesAndDropsSelfLoops) {
  const std::vector<DirectedEdge> edges{{0, 1, 3}, {1, 0, 4}, {0, 1, 5}, {2, 2, 7}, {1, 2, 0}, {2, 0, 1}};
  const auto graph = partitioner_graph(3, edges);
  ASSERT_EQ(graph.vertex_count(), 3);
  EXPECT_EQ(graph.offsets, (std::vector<int>{0, 2, 3, 4}));
  EXPECT_EQ(graph.targets, (std::vector<int>{1, 2, 0, 0}));
  EXPECT_EQ(graph.weights, (std::vector<int>{12, 1, 12, 1}));
}

TEST(ReorderPartition, HugeWeightsAreScaledForMetis) {
  const std::vector<DirectedEdge> edges{{0, 1, std::int64_t{1} << 40}, {1, 2, 1}};
  const auto graph = partitioner_graph(3, edges);
  for (const int w : graph.weights) EXPECT_GE(w, 1);
  EXPECT_LE(std::accumulate(graph.weights.begin(), graph.weights.end(), std::int64_t{0}), std::int64_t{1} << 31);
}

TEST(ReorderPartition, ExactSizesEvenWhenUneven) {
  const auto graph = partitioner_graph(60, grid_edges(6, 10, permuted(60, 3)));
  const std::vector<int> capacities{7, 13, 20, 1, 19};
  for (const auto effort : {PartitionEffort::fast, PartitionEffort::balanced, PartitionEffort::thorough}) {
    const auto part = partition_exact(graph, capacities, effort);
    EXPECT_EQ(part_sizes(part, capacities.size()), capacities);
  }
}

TEST(ReorderPartition, GridsReachTheBestBlockMapping) {
  // 8 x 8 grids in parts of 8 (best blocks 4 x 2) and of 4 (2 x 2); 16 x 16 in 16 (4 x 4).
  struct Grid {
    int n, parts, bx, by;
  };
  for (const Grid g : {Grid{8, 8, 4, 2}, Grid{8, 16, 2, 2}, Grid{16, 16, 4, 4}}) {
    for (const auto& number : {natural(g.n * g.n), permuted(g.n * g.n, 11)}) {
      const auto graph = partitioner_graph(g.n * g.n, grid_edges(g.n, g.n, number));
      const std::vector<int> capacities(static_cast<std::size_t>(g.parts), g.n * g.n / g.parts);
      const auto part = partition_exact(graph, capacities, PartitionEffort::balanced);
      EXPECT_EQ(part_sizes(part, capacities.size()), capacities);
      EXPECT_LE(distopo::detail::cut_weight(graph, part), block_cut(g.n, g.n, g.bx, g.by))
          << g.n << "x" << g.n << " in " << g.parts;
    }
  }
}

TEST(ReorderPartition, AnisotropicWeightsKeepHeavyEdgesInside) {
  // x edges weigh 10: parts should be long in x.
  const int n = 16;
  const auto graph = partitioner_graph(n * n, grid_edges(n, n, permuted(n * n, 5), 10, 1));
  const std::vector<int> capacities(16, 16);
  const auto part = partition_exact(graph, capacities, PartitionEffort::balanced);
  EXPECT_LE(distopo::detail::cut_weight(graph, part), block_cut(n, n, 16, 1, 10, 1));
}

TEST(ReorderPartition, SameInputSamePartition) {
  const auto graph = partitioner_graph(400, grid_edges(20, 20, permuted(400, 9)));
  const std::vector<int> capacities(25, 16);
  EXPECT_EQ(partition_exact(graph, capacities, PartitionEffort::balanced),
            partition_exact(graph, capacities, PartitionEffort::balanced));
}

TEST(ReorderPartition, OnePartAndNoEdges) {
  const auto graph = partitioner_graph(5, {});
  EXPECT_EQ(partition_exact(graph, std::vector<int>{5}, PartitionEffort::fast), std::vector<int>(5, 0));
  const auto part = partition_exact(graph, std::vector<int>{2, 3}, PartitionEffort::fast);
  EXPECT_EQ(part_sizes(part, 2), (std::vector<int>{2, 3}));
}

}  // namespace
