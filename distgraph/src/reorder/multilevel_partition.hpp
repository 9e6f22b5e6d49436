#pragma once
// Partitioning a graph that no rank holds whole into parts of exactly given
// sizes (one part per machine node), for the dist-graph reordering above the
// gather limit. Multilevel, with every step over the sparse exchange:
//   1. coarsen by heavy-edge matching (locally dominant pairs, rated
//      weight / (size * size)), each pair contracted on the rank of its
//      lower vertex, at least once and until the coarse graph's vertices and
//      entries fit the gather limit or it has about kCoarseVerticesPerPart vertices
//      per part (each level costs cut: stop as early as rank 0 may hold it);
//   2. rank 0 gathers the coarse graph (never the graph itself) and splits it
//      into parts of exactly the capacities (partition_into_shares);
//   3. the shares are projected back level by level, every graph node
//      ending in one part;
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
// `exchange` (a rank out of memory abandons through it: record_exchange.hpp). `coordinated`: the capacities of the
// parts p with blocks.owner(p) == rank (every part 0 .. part_count-1 is named by exactly one rank; the capacities sum
// to vertex_count). Returns the part of each held vertex, in the order of graph.ids; every part gets exactly its
// capacity. Memory per rank: its vertices' lists, the boundary of the parts
// it coordinates, and on rank 0 the coarse graph (at most `gather_limit`
// vertices and adjacency entries, or about kCoarseVerticesPerPart x part_count vertices)
// and the parts' capacities. nullopt (on every rank) when coarsening stalls
// far above both (a graph of mostly isolated vertices): rank 0 would have to
// hold most of the graph.
std::optional<std::vector<int>> multilevel_partition(RecordExchange& exchange, const HeldGraph& graph,
                                                     std::span<const PartCapacity> coordinated, int part_count,
                                                     std::int64_t gather_limit, PartitionEffort effort);

}  // namespace distopo::detail
