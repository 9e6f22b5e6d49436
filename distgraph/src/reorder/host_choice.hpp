#pragma once
// The serial half of the dist-graph reordering, run by the rank that holds
// the whole graph: which process each graph node goes to.
#include <cstdint>
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

// host[v]: the process for graph node v. Machine node i receives exactly as
// many graph nodes as it has processes; the partition into machine nodes
// minimizes the crossing weight (exact_partition.hpp). Deterministic.
std::vector<int> choose_hosts(const WholeGraph& graph, PartitionEffort effort);

// The weight of the directed edges whose ends sit on different machine nodes
// when graph node v runs on process host[v].
std::int64_t crossing_weight(const WholeGraph& graph, const std::vector<int>& host);

}  // namespace distopo::detail
