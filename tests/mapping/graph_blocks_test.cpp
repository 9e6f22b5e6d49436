// The node-aware mapping of graph topologies (graph_create / graph_map with
// reorder): exact block sizes, a permutation, never worse than consecutive
// blocks, and the optimal blocks where they are known.
#include "graph_blocks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace {

using distopo::detail::blocks_cut;
using distopo::detail::graph_node_blocks;

struct Graph {
  std::vector<int> index;
  std::vector<int> edges;
};

// Open rows x cols 5-point stencil, both directions stored, nodes numbered
// row by row.
Graph stencil(int rows, int cols) {
  Graph graph;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      if (r > 0) graph.edges.push_back((r - 1) * cols + c);
      if (c > 0) graph.edges.push_back(r * cols + c - 1);
      if (c + 1 < cols) graph.edges.push_back(r * cols + c + 1);
      if (r + 1 < rows) graph.edges.push_back((r + 1) * cols + c);
      graph.index.push_back(static_cast<int>(graph.edges.size()));
    }
  }
  return graph;
}

std::vector<std::vector<int>> consecutive(int n, int k) {
  std::vector<std::vector<int>> blocks;
  for (int first = 0; first < n; first += k) {
    blocks.emplace_back();
    for (int v = first; v < std::min(n, first + k); ++v) blocks.back().push_back(v);
  }
  return blocks;
}

void expect_partition_like_consecutive(const std::vector<std::vector<int>>& blocks, int n, int k) {
  const auto expected = consecutive(n, k);
  ASSERT_EQ(blocks.size(), expected.size());
  std::vector<int> all;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    EXPECT_EQ(blocks[b].size(), expected[b].size()) << "block " << b;
    EXPECT_TRUE(std::is_sorted(blocks[b].begin(), blocks[b].end())) << "block " << b;
    all.insert(all.end(), blocks[b].begin(), blocks[b].end());
  }
  std::sort(all.begin(), all.end());
  std::vector<int> every(static_cast<std::size_t>(n));
  std::iota(every.begin(), every.end(), 0);
  EXPECT_EQ(all, every);
}

TEST(GraphBlocks, SquaresOfAFourByFourStencil) {
  // Rows of 4 cut 24 directed edges; 2x2 squares cut 16, the optimum.
  const Graph graph = stencil(4, 4);
  const auto blocks = graph_node_blocks(16, graph.index, graph.edges, 4);
  expect_partition_like_consecutive(blocks, 16, 4);
  EXPECT_EQ(blocks_cut(16, graph.index, graph.edges, consecutive(16, 4)), 24);
  EXPECT_EQ(blocks_cut(16, graph.index, graph.edges, blocks), 16);
}

TEST(GraphBlocks, RepeatedEdgesPullTheirEndsTogether) {
  // A ring of 8 where edges 1->2 and 5->6 are repeated many times:
  // consecutive pairs {0,1}, {2,3}, ... cut both; the heavy pairs must be
  // blocks of their own.
  Graph graph;
  for (int v = 0; v < 8; ++v) {
    graph.edges.push_back((v + 1) % 8);
    graph.edges.push_back((v + 7) % 8);
    if (v == 1 || v == 5) graph.edges.insert(graph.edges.end(), 10, v + 1);
    graph.index.push_back(static_cast<int>(graph.edges.size()));
  }
  const auto blocks = graph_node_blocks(8, graph.index, graph.edges, 2);
  expect_partition_like_consecutive(blocks, 8, 2);
  EXPECT_NE(std::find(blocks.begin(), blocks.end(), std::vector<int>{1, 2}), blocks.end());
  EXPECT_NE(std::find(blocks.begin(), blocks.end(), std::vector<int>{5, 6}), blocks.end());
  EXPECT_LT(blocks_cut(8, graph.index, graph.edges, blocks),
            blocks_cut(8, graph.index, graph.edges, consecutive(8, 2)));
}

TEST(GraphBlocks, FewerNodesThanProcessesLeaveAShortLastBlock) {
  const Graph graph = stencil(2, 5);
  const auto blocks = graph_node_blocks(10, graph.index, graph.edges, 4);
  expect_partition_like_consecutive(blocks, 10, 4);
  EXPECT_LE(blocks_cut(10, graph.index, graph.edges, blocks),
            blocks_cut(10, graph.index, graph.edges, consecutive(10, 4)));
}

TEST(GraphBlocks, NoEdgesKeepConsecutiveBlocks) {
  const std::vector<int> index(6, 0);
  EXPECT_EQ(graph_node_blocks(6, index, {}, 3), consecutive(6, 3));
}

TEST(GraphBlocks, SameAnswerEveryTime) {
  const Graph graph = stencil(6, 6);
  EXPECT_EQ(graph_node_blocks(36, graph.index, graph.edges, 4), graph_node_blocks(36, graph.index, graph.edges, 4));
}

}  // namespace
