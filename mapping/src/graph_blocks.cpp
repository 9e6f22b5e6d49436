#include "distopo/mapping/graph_blocks.hpp"

#include <algorithm>
#include <cstddef>

namespace distopo::detail {
namespace {

// Undirected adjacency in CSR form, one entry per edge end (self-loops dropped).
struct Adjacency {
  std::vector<std::size_t> offsets;
  std::vector<int> targets;
};

Adjacency undirected(int nnodes, std::span<const int> index, std::span<const int> edges) {
  const auto n = static_cast<std::size_t>(nnodes);
  std::vector<std::size_t> degree(n + 1, 0);
  std::size_t begin = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto end = static_cast<std::size_t>(index[i]);
    for (std::size_t j = begin; j < end; ++j) {
      const auto t = static_cast<std::size_t>(edges[j]);
      if (t == i) continue;
      ++degree[i + 1];
      ++degree[t + 1];
    }
    begin = end;
  }
  Adjacency adjacency;
  adjacency.offsets.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) adjacency.offsets[i + 1] = adjacency.offsets[i] + degree[i + 1];
  adjacency.targets.resize(adjacency.offsets[n]);
  std::vector<std::size_t> fill(adjacency.offsets.begin(), adjacency.offsets.end() - 1);
  begin = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto end = static_cast<std::size_t>(index[i]);
    for (std::size_t j = begin; j < end; ++j) {
      const auto t = static_cast<std::size_t>(edges[j]);
      if (t == i) continue;
      adjacency.targets[fill[i]++] = static_cast<int>(t);
      adjacency.targets[fill[t]++] = static_cast<int>(i);
    }
    begin = end;
  }
  return adjacency;
}

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

  const Adjacency adjacency = undirected(nnodes, index, edges);
  const auto n = static_cast<std::size_t>(nnodes);
  std::vector<bool> placed(n, false);
  std::vector<int> gain(n, 0);  // edges into the block being grown
  std::vector<int> candidates;  // unplaced nodes with gain > 0 (may hold stale entries)
  std::vector<std::vector<int>> blocks;
  std::size_t next_seed = 0;
  for (std::size_t placed_count = 0; placed_count < n;) {
    std::vector<int> block;
    candidates.clear();
    const auto add = [&](int g) {
      const auto u = static_cast<std::size_t>(g);
      placed[u] = true;
      ++placed_count;
      block.push_back(g);
      for (std::size_t e = adjacency.offsets[u]; e < adjacency.offsets[u + 1]; ++e) {
        const auto t = static_cast<std::size_t>(adjacency.targets[e]);
        if (placed[t]) continue;
        if (gain[t]++ == 0) candidates.push_back(static_cast<int>(t));
      }
    };
    while (next_seed < n && placed[next_seed]) ++next_seed;
    add(static_cast<int>(next_seed));
    while (block.size() < static_cast<std::size_t>(k) && placed_count < n) {
      int best = -1;
      for (int c : candidates) {
        const auto u = static_cast<std::size_t>(c);
        if (placed[u]) continue;
        if (best < 0 || gain[u] > gain[static_cast<std::size_t>(best)] ||
            (gain[u] == gain[static_cast<std::size_t>(best)] && c < best)) {
          best = c;
        }
      }
      if (best < 0) {  // nothing connected: start from the lowest unplaced node
        while (next_seed < n && placed[next_seed]) ++next_seed;
        best = static_cast<int>(next_seed);
      }
      add(best);
    }
    for (int c : candidates) gain[static_cast<std::size_t>(c)] = 0;
    blocks.push_back(std::move(block));
  }
  if (blocks_cut(nnodes, index, edges, blocks) < blocks_cut(nnodes, index, edges, identity)) return blocks;
  return identity;
}

}  // namespace distopo::detail
