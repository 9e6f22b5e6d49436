#pragma once
// Node-aware placement of graph nodes: blocks of `ranks_per_node` graph nodes
// go to one machine node each. Computed from the whole graph, identically on
// every rank, with no communication.
#include <span>
#include <vector>

namespace distopo::detail {

// blocks[b] lists the graph nodes machine node b holds, in local-rank order.
// Greedy: each block starts at the lowest unplaced graph node and grows by the
// unplaced node with the most edges (either direction, multi-edges counted)
// into the block, ties to the lowest number. Falls back to consecutive
// blocks (identity) unless that cuts strictly fewer edges.
std::vector<std::vector<int>> graph_node_blocks(int nnodes, std::span<const int> index, std::span<const int> edges,
                                                int ranks_per_node);

// Edges (multi-edges counted, self-loops never) whose ends are in different blocks.
long long blocks_cut(int nnodes, std::span<const int> index, std::span<const int> edges,
                     const std::vector<std::vector<int>>& blocks);

}  // namespace distopo::detail
