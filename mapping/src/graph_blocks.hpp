#pragma once
// Node-aware placement of graph nodes: blocks of `ranks_per_node` graph nodes
// go to one machine node each. Computed from the whole graph, identically on
// every rank, with no communication.
#include <span>
#include <vector>

namespace distopo::detail {

// blocks[b] lists the graph nodes machine node b holds, in local-rank order
// (ascending). The exact partitioner of distributed graphs
// (exact_partition.hpp: METIS, then exact sizes and swap refinement) on the
// graph with every edge (either direction, multi-edges counted) of weight 1;
// block b gets exactly as many graph nodes as consecutive blocks would.
// Falls back to consecutive blocks (identity) unless that cuts strictly fewer
// edges.
std::vector<std::vector<int>> graph_node_blocks(int nnodes, std::span<const int> index, std::span<const int> edges,
                                                int ranks_per_node);

// Edges (multi-edges counted, self-loops never) whose ends are in different blocks.
long long blocks_cut(int nnodes, std::span<const int> index, std::span<const int> edges,
                     const std::vector<std::vector<int>>& blocks);

}  // namespace distopo::detail
