#pragma once
// A graph that no rank holds whole: each rank holds some vertices with their
// lists, vertex v on rank v / per_rank (one vertex per rank inside
// dist_graph_create, all of them on one process in the benchmark), and the
// operations the distributed reordering builds on, each a round of the
// sparse exchange (record_exchange.hpp). Every result depends on the graph
// only, never on which rank holds a vertex or on message order.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "record_exchange.hpp"

namespace distopo::detail {

// Vertex v (0 .. vertex_count-1) is held by rank v / per_rank.
struct VertexBlocks {
  int vertex_count = 0;
  int per_rank = 1;
  [[nodiscard]] int owner(int v) const { return v / per_rank; }
};

// The vertices a rank holds, with their undirected neighbors: each pair
// listed at both ends with the same weight, no self-loops.
struct HeldGraph {
  VertexBlocks blocks;
  std::vector<int> ids;  // ascending
  std::vector<std::size_t> offsets;
  std::vector<int> targets;  // sorted per vertex
  std::vector<std::int64_t> weights;
};

// The position of held vertex `id` in graph.ids.
std::size_t index_of(const HeldGraph& graph, int id);

// The adjacency entry of held vertex i that names `neighbor`.
std::size_t entry_of(const HeldGraph& graph, std::size_t i, int neighbor);

// For every adjacency entry, the value its neighbor holds in `own` (one exchange).
std::vector<Word> neighbor_values(RecordExchange& exchange, const HeldGraph& graph, std::span<const Word> own);

// Self-loops (target `self`) and weights <= 0 dropped, targets sorted,
// parallel entries merged with their weights summed.
void sort_and_merge(std::vector<std::pair<int, Word>>& entries, int self);

// Reads an entry list as records carry it, {m, m x (target, weight)}, and
// appends it to `entries`.
void read_entries(RecordReader& in, std::vector<std::pair<int, Word>>& entries);

// Appends vertex `id` (above every id held so far) with `entries` as its list.
void append_vertex(HeldGraph& graph, int id, const std::vector<std::pair<int, Word>>& entries);

// splitmix64: tie-breaks that look random but are fixed.
std::uint64_t mix(std::uint64_t x);

// Locally dominant matching: each free vertex proposes to its best free
// neighbor whose size fits `size_cap` with its own (rating weight / (size x
// size), then a hash of the pair, the same seen from both ends, varied by
// `salt`); mutual proposals match, in up to 6 rounds. Returns each held
// vertex's partner or -1.
std::vector<int> heavy_edge_matching(RecordExchange& exchange, const HeldGraph& graph, std::span<const Word> size,
                                     Word size_cap, std::uint64_t salt = 0);

// One level of a coarsening, as held by this rank: the graph, how many
// vertices of the original graph each vertex stands for, and the vertex of
// the finer level merged into each (kept on the lower id, which stays the
// vertex's id).
struct Level {
  HeldGraph graph;
  std::vector<Word> size;
  std::vector<int> partner;  // -1: none
};

// The coarse level of `fine` for a matching (`partner` of each held vertex,
// as heavy_edge_matching returns it): each pair becomes one vertex on the
// rank of its lower id, which merges both lists (renamed to coarse ids, the
// pair's own edge dropped). Two exchanges.
Level contract(RecordExchange& exchange, const Level& fine, const std::vector<int>& partner);

// For each held vertex of `fine`, the label of the coarse vertex it was
// merged into (`coarse_labels` of each held vertex of `coarse`). One exchange.
std::vector<Word> project_labels(RecordExchange& exchange, const Level& coarse, const Level& fine,
                                 std::span<const Word> coarse_labels);

}  // namespace distopo::detail
