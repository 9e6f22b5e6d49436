#pragma once
// Partitioning a whole graph into parts of exactly given sizes (one part per
// machine node, sized as the node's process count), minimizing the weight of
// the edges between parts. METIS proposes; an exact balancing pass and swap
// refinement (moves in pairs, so every part keeps its size) finish.
// Serial: runs on the one rank that holds the graph.
#include <cstdint>
#include <span>
#include <vector>

#include "distopo/mapping/placement.hpp"  // PartitionEffort

namespace distopo::detail {

struct DirectedEdge {
  int source;
  int destination;
  std::int64_t weight;
};

// Undirected, in compressed rows: the neighbors of v are
// targets[offsets[v] .. offsets[v + 1]), each pair once per direction, no
// self-loops, positive weights.
struct UndirectedGraph {
  std::vector<int> offsets;
  std::vector<int> targets;
  std::vector<int> weights;
  [[nodiscard]] int vertex_count() const { return static_cast<int>(offsets.size()) - 1; }
};

// The partitioner's view of `edges` over vertices 0 .. n-1: self-loops and
// zero weights dropped, u->v and v->u merged into one pair with their weights
// summed; weights scaled down (never below 1) when their total would
// overflow METIS' 32-bit sums.
UndirectedGraph partitioner_graph(int n, std::span<const DirectedEdge> edges);

// part[v] for every vertex, with exactly capacities[i] vertices in part i
// (the capacities sum to the vertex count). Deterministic.
std::vector<int> partition_exact(const UndirectedGraph& graph, std::span<const int> capacities, PartitionEffort effort);

// Vertices 0 .. n-1 in order, part by part, the last part taking any beyond
// the capacities' sum: the start when METIS fails.
std::vector<int> blocks_in_order(std::span<const int> capacities, std::size_t n);

// The pieces of partition_exact, for callers that make the proposal
// elsewhere (parallel_bisection.hpp): METIS recursive bisection of `graph`
// into parts of nearly the capacities (`cuts` tries at each bisection,
// `ufactor` tenths of a percent of imbalance; empty when METIS fails), and
// the exact balancing and swap refinement that follow (an empty `part`
// starts from blocks in order).
std::vector<int> bisection_proposal(const UndirectedGraph& graph, std::span<const int> capacities, int cuts,
                                    int ufactor);
void finish_exact(const UndirectedGraph& graph, std::span<const int> capacities, std::vector<int>& part,
                  PartitionEffort effort);

// A vertex's weight split over parts: `count` of it goes to `part`.
struct Share {
  int part;
  std::int64_t count;
};

// The same for a graph whose vertices weigh vertex_weights[v] (a coarse
// graph: a vertex stands for that many graph nodes): parts get exactly their
// capacities (summing to the total vertex weight) by splitting a few
// vertices, each vertex's shares summing to its weight. Deterministic.
std::vector<std::vector<Share>> partition_into_shares(const UndirectedGraph& graph, std::span<const int> vertex_weights,
                                                      std::span<const int> capacities);

// The weight of the pairs whose ends are in different parts (each direction
// counted, as the graph stores both).
std::int64_t cut_weight(const UndirectedGraph& graph, std::span<const int> part);

}  // namespace distopo::detail
