#pragma once
// The dist-graph reordering below the gather limit, once rank 0 holds the
// whole graph: which process each graph node goes to.
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "exact_partition.hpp"

namespace distopo::detail {

// Every out-edge of the graph (graph node v was on process v) and every
// process's machine node (numbered 0 .. node_count - 1).
struct WholeGraph {
  std::vector<DirectedEdge> edges;
  std::vector<int> node_of;  // by process
  int node_count = 0;
};

// host[v]: the process for graph node v, on rank 0 of `channel` (which holds
// `graph`; nullopt elsewhere). Machine node i receives exactly as many graph
// nodes as it has processes; the partition into machine nodes minimizes the
// crossing weight: recursive bisection over the first ranks of `channel`
// (parallel_bisection.hpp), then exact sizes and swaps (exact_partition.hpp).
// Collective over `channel` (no other point-to-point traffic meanwhile).
// Deterministic. nullopt on rank 0 too when a rank ran out of memory on the
// way (every rank still returns: the caller keeps the identity).
std::optional<std::vector<int>> choose_hosts(MPI_Comm channel, const WholeGraph& graph, PartitionEffort effort);

// The weight of the directed edges whose ends sit on different machine nodes
// when graph node v runs on process host[v].
std::int64_t crossing_weight(const WholeGraph& graph, const std::vector<int>& host);

}  // namespace distopo::detail
