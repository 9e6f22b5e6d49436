#pragma once
// Partitioning a graph that no rank holds whole into parts of exactly given
// sizes (one part per machine node), for the dist-graph reordering above the
// gather limit. Multilevel, with every step over the sparse exchange:
//   1. coarsen by heavy-edge matching (locally dominant pairs, rated
//      weight / (size * size)), each pair contracted on the rank of its
//      lower vertex, at least once and until the coarse graph's vertices and
//      entries fit the gather limit or it has about kCoarseVerticesPerPart vertices
//      per part (each level costs cut: stop as early as the leader may hold it);
//   2. a leader gathers the coarse graph (never the graph itself) and splits
//      it into parts of exactly the capacities (partition_into_shares);
//   3. the shares are projected back level by level, every graph node
//      ending in one part.
//   With more than kMaxPartsPerSplit parts, 1-3 run once per depth of
//   nested splits (nested_splits.hpp): the graph is split into chunks of
//   parts first, then each chunk's subgraph (the entries inside it) into its
//   own chunks, all chunks at once, each by its own leader; so no rank holds
//   a coarse graph or capacities for more than kMaxPartsPerSplit parts.
//   4. refine on the graph itself, keeping every part's size: rounds of
//      Kernighan-Lin swaps between the boundary vertices of each pair of
//      adjacent parts (on the lower part's rank), then rounds of group
//      repartitioning, where matchings of the parts group up to 8 adjacent
//      ones and the rank of the group's lowest part splits their union again
//      with METIS, keeping the split if it cuts less
//      (distributed_refinement.hpp).
// Every decision depends on the graph only, never on which rank holds a
// vertex or on message order: the same graph gives the same parts whether a
// rank holds one vertex (dist_graph_create) or all of them (the benchmark).
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "exact_partition.hpp"
#include "held_graph.hpp"

namespace distopo::detail {

// A coarse graph this fine leaves the refinement less to repair than a
// better split of a coarser one (docs/design/reorder.md).
inline constexpr int kCoarseVerticesPerPart = 32;

struct PartCapacity {
  int part;
  int capacity;
};

// `effort`: how hard each group split looks (exact_partition.hpp).
// Collective over the exchange's communicator; every step is a round of
// `exchange` (a rank out of memory abandons through it: record_exchange.hpp).
// `coordinated`: the capacities of the parts p with blocks.owner(p) == rank
// (every part 0 .. part_count-1 is named by exactly one rank; the capacities
// sum to vertex_count). Returns the part of each held vertex, in the order of
// graph.ids; every part gets exactly its capacity. Memory per rank: its
// vertices' lists, the boundary of the parts it coordinates, and on the
// owner of a group's first part that group's coarse graph (about the gather
// limit per group, or kCoarseVerticesPerPart x kMaxPartsPerSplit vertices)
// and chunk capacities (kMaxPartsPerSplit): independent of P. nullopt (on
// every rank) when coarsening stalls far above both (a graph of mostly
// isolated vertices): a leader would have to hold most of its group.
// The largest coarse graph this rank gathered and split (zero where it led
// no group): what the bound above is about, for benchmarks and tests.
struct LargestSplit {
  std::int64_t vertices = 0;
  std::int64_t entries = 0;  // each pair counted at both ends
};

std::optional<std::vector<int>> multilevel_partition(RecordExchange& exchange, const HeldGraph& graph,
                                                     std::span<const PartCapacity> coordinated, int part_count,
                                                     std::int64_t gather_limit, PartitionEffort effort,
                                                     LargestSplit* largest = nullptr);

}  // namespace distopo::detail
