#include "graph_blocks.hpp"

#include <algorithm>
#include <cstddef>

#include "exact_partition.hpp"

namespace distopo::detail {
namespace {

std::vector<std::vector<int>> consecutive_blocks(int nnodes, int k) {
  std::vector<std::vector<int>> blocks;
  for (int first = 0; first < nnodes; first += k) {
    std::vector<int> block;
    for (int g = first; g < std::min(nnodes, first + k); ++g) block.push_back(g);
    blocks.push_back(std::move(block));
  }
  return blocks;
}

}  // namespace

long long blocks_cut(int nnodes, std::span<const int> index, std::span<const int> edges,
                     const std::vector<std::vector<int>>& blocks) {
  std::vector<int> block_of(static_cast<std::size_t>(nnodes), -1);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    for (int g : blocks[b]) block_of[static_cast<std::size_t>(g)] = static_cast<int>(b);
  }
  long long cut = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(nnodes); ++i) {
    const auto end = static_cast<std::size_t>(index[i]);
    for (std::size_t j = begin; j < end; ++j) {
      if (block_of[i] != block_of[static_cast<std::size_t>(edges[j])]) ++cut;
    }
    begin = end;
  }
  return cut;
}

std::vector<std::vector<int>> graph_node_blocks(int nnodes, std::span<const int> index, std::span<const int> edges,
                                                int ranks_per_node) {
  const int k = std::max(ranks_per_node, 1);
  std::vector<std::vector<int>> identity = consecutive_blocks(nnodes, k);
  if (k == 1 || nnodes <= k) return identity;

  // The same partitioner as distributed graphs, on edges of weight 1: a
  // repeated edge is how a graph topology says "more traffic".
  std::vector<DirectedEdge> directed;
  directed.reserve(edges.size());
  std::size_t begin = 0;
  for (int v = 0; v < nnodes; ++v) {
    const auto end = static_cast<std::size_t>(index[static_cast<std::size_t>(v)]);
    for (std::size_t j = begin; j < end; ++j) directed.push_back({v, edges[j], 1});
    begin = end;
  }
  std::vector<int> capacities(identity.size());
  for (std::size_t b = 0; b < identity.size(); ++b) capacities[b] = static_cast<int>(identity[b].size());
  const std::vector<int> part =
      partition_exact(partitioner_graph(nnodes, directed), capacities, PartitionEffort::balanced);

  std::vector<std::vector<int>> blocks(identity.size());
  for (int v = 0; v < nnodes; ++v) blocks[static_cast<std::size_t>(part[static_cast<std::size_t>(v)])].push_back(v);
  if (blocks_cut(nnodes, index, edges, blocks) < blocks_cut(nnodes, index, edges, identity)) return blocks;
  return identity;
}

}  // namespace distopo::detail
