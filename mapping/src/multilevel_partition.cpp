#include "multilevel_partition.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distributed_refinement.hpp"
#include "exact_partition.hpp"
#include "nested_splits.hpp"

namespace distopo::detail {
namespace {

constexpr int kMaxLevels = 32;
// A level that keeps more than this share of its vertices has stalled.
constexpr double kStalled = 0.95;
// Stalled above this many times the goal: the coarse graph is too big to gather.
constexpr int kGiveUpFactor = 4;

Level finest_level(const HeldGraph& given) {
  Level level;
  level.graph.blocks = given.blocks;
  level.graph.offsets.push_back(0);
  std::vector<std::pair<int, Word>> entries;
  for (std::size_t i = 0; i < given.ids.size(); ++i) {
    entries.clear();
    for (std::size_t e = given.offsets[i]; e < given.offsets[i + 1]; ++e)
      entries.emplace_back(given.targets[e], given.weights[e]);
    sort_and_merge(entries, given.ids[i]);
    append_vertex(level.graph, given.ids[i], entries);
  }
  level.size.assign(given.ids.size(), 1);
  level.partner.assign(given.ids.size(), -1);
  return level;
}

using Shares = std::vector<Share>;

// Shares travel as {vertex, k, k x (part, count)}.
void post_shares(RecordExchange& exchange, int rank, int vertex, const Shares& shares) {
  auto& out = exchange.to(rank);
  out.insert(out.end(), {vertex, static_cast<Word>(shares.size())});
  for (const Share& share : shares) out.insert(out.end(), {share.part, share.count});
}

// Delivers this round and appends each received vertex's shares to result[its index in `graph`].
void receive_shares(RecordExchange& exchange, const HeldGraph& graph, std::vector<Shares>& result) {
  exchange.deliver([&](std::span<const Word> words) {
    for (RecordReader in(words); in.more();) {
      Shares& shares = result[index_of(graph, in.next_int())];
      for (Word k = in.next(); k > 0; --k) {
        const int part = in.next_int();
        shares.push_back({part, in.next()});
      }
    }
  });
}

// The parts this rank coordinates, with where each starts in the order of
// all parts' capacities (an exclusive prefix sum over the parts).
struct OwnPart {
  int part;
  Word capacity;
  Word offset;
};

std::vector<OwnPart> own_parts(RecordExchange& exchange, std::span<const PartCapacity> coordinated) {
  std::vector<OwnPart> parts;
  Word total = 0;
  for (const PartCapacity& c : coordinated) parts.push_back({c.part, c.capacity, 0}), total += c.capacity;
  std::sort(parts.begin(), parts.end(), [](const OwnPart& a, const OwnPart& b) { return a.part < b.part; });
  Word offset = exchange.exclusive_sum(total);  // parts are coordinated in rank order (owner(p) is monotone)
  for (OwnPart& p : parts) p.offset = offset, offset += p.capacity;
  return parts;
}

// The capacities of the chunks of every group this rank leads (the owner of
// the group's first part), keyed by that first part: the first part of each
// chunk, and the last part of the group, tell the leader where they start
// and end in the order of all capacities.
std::map<int, std::vector<Word>> chunk_capacities(RecordExchange& exchange, const NestedSplits& splits, int depth,
                                                  const VertexBlocks& blocks, std::span<const OwnPart> parts) {
  for (const OwnPart& p : parts) {
    const PartRun group = splits.group_of(p.part, depth);
    const int j = splits.chunk_index(group, depth, p.part);
    const int leader = blocks.owner(group.first);
    if (splits.chunk(group, depth, j).first == p.part) exchange.post(leader, {group.first, j, p.offset});
    if (p.part == group.last - 1)
      exchange.post(leader, {group.first, splits.chunk_count(group, depth), p.offset + p.capacity});
  }
  std::map<int, std::vector<Word>> bounds;  // group -> where each chunk starts, and the group's end
  exchange.deliver([&](std::span<const Word> words) {
    for (RecordReader in(words); in.more();) {
      const int first = in.next_int();
      const int j = in.next_int();
      auto& group_bounds = bounds[first];
      if (group_bounds.empty()) {
        group_bounds.resize(static_cast<std::size_t>(splits.chunk_count(splits.group_of(first, depth), depth)) + 1);
      }
      group_bounds[static_cast<std::size_t>(j)] = in.next();
    }
  });
  for (auto& [first, group_bounds] : bounds) {
    std::adjacent_difference(group_bounds.begin(), group_bounds.end(), group_bounds.begin());
    group_bounds.erase(group_bounds.begin());
  }
  return bounds;
}

// The leaders gather the coarsest level of their groups (`group` of each
// held coarse vertex), split each into its chunks' capacities and send each
// vertex its shares, named by the chunks' first parts.
std::vector<Shares> split_groups(RecordExchange& exchange, const NestedSplits& splits, int depth, const Level& level,
                                 std::span<const int> group, const std::map<int, std::vector<Word>>& capacities,
                                 LargestSplit& largest) {
  const HeldGraph& graph = level.graph;
  for (std::size_t i = 0; i < graph.ids.size(); ++i) {
    auto& out = exchange.to(graph.blocks.owner(group[i]));
    out.insert(out.end(),
               {group[i], graph.ids[i], level.size[i], static_cast<Word>(graph.offsets[i + 1] - graph.offsets[i])});
    for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
      out.insert(out.end(), {graph.targets[e], graph.weights[e]});
    }
  }
  // group -> its vertices as (id, size, entries)
  std::map<int, std::vector<std::tuple<int, Word, std::vector<std::pair<int, Word>>>>> gathered;
  exchange.deliver([&](std::span<const Word> words) {
    for (RecordReader in(words); in.more();) {
      auto& vertices = gathered[in.next_int()];
      const int id = in.next_int();
      const Word size = in.next();
      std::vector<std::pair<int, Word>> entries;
      read_entries(in, entries);
      vertices.emplace_back(id, size, std::move(entries));
    }
  });

  for (auto& [first, vertices] : gathered) {
    std::sort(vertices.begin(), vertices.end(),
              [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
    std::vector<int> ids;
    std::vector<int> sizes;
    for (const auto& [id, size, entries] : vertices) ids.push_back(id), sizes.push_back(static_cast<int>(size));
    const auto number = [&](int id) {
      return static_cast<int>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
    };
    std::vector<DirectedEdge> edges;
    for (std::size_t v = 0; v < vertices.size(); ++v) {
      for (const auto& [target, weight] : std::get<2>(vertices[v]))
        edges.push_back({static_cast<int>(v), number(target), weight});
    }
    largest.vertices = std::max(largest.vertices, static_cast<Word>(ids.size()));
    largest.entries = std::max(largest.entries, static_cast<Word>(edges.size()));
    const std::vector<Word>& chunk_words = capacities.at(first);
    const std::vector<int> chunk_sizes(chunk_words.begin(), chunk_words.end());
    auto shares = partition_into_shares(partitioner_graph(static_cast<int>(ids.size()), edges), sizes, chunk_sizes);
    const PartRun run = splits.group_of(first, depth);
    for (std::size_t v = 0; v < ids.size(); ++v) {
      for (Share& share : shares[v]) share.part = splits.chunk(run, depth, share.part).first;
      post_shares(exchange, graph.blocks.owner(ids[v]), ids[v], shares[v]);
    }
  }
  std::vector<Shares> result(graph.ids.size());
  receive_shares(exchange, graph, result);
  return result;
}

// The shares of the finer level: each coarse vertex keeps shares worth its
// own finer size (largest first) and sends the rest to its partner.
std::vector<Shares> project(RecordExchange& exchange, const Level& coarse, const Level& fine,
                            std::vector<Shares> coarse_shares) {
  std::vector<Shares> result(fine.graph.ids.size());
  for (std::size_t i = 0; i < coarse.graph.ids.size(); ++i) {
    Shares& shares = coarse_shares[i];
    std::sort(shares.begin(), shares.end(),
              [](const Share& a, const Share& b) { return std::tie(b.count, a.part) < std::tie(a.count, b.part); });
    const std::size_t self = index_of(fine.graph, coarse.graph.ids[i]);
    Word unassigned = fine.size[self];
    Shares rest;
    for (const Share& share : shares) {
      const Word kept = std::min(unassigned, share.count);
      if (kept > 0) result[self].push_back({share.part, kept});
      if (share.count > kept) rest.push_back({share.part, share.count - kept});
      unassigned -= kept;
    }
    if (coarse.partner[i] >= 0) {
      post_shares(exchange, fine.graph.blocks.owner(coarse.partner[i]), coarse.partner[i], rest);
    }
  }
  receive_shares(exchange, fine.graph, result);
  return result;
}

// `finest` without its entries between different groups (`group` of each held vertex).
Level within_groups(RecordExchange& exchange, const Level& finest, std::span<const int> group) {
  const HeldGraph& graph = finest.graph;
  const std::vector<Word> own(group.begin(), group.end());
  const std::vector<Word> neighbor_group = neighbor_values(exchange, graph, own);
  Level inside{.graph = {}, .size = finest.size, .partner = finest.partner};
  inside.graph.blocks = graph.blocks;
  inside.graph.ids = graph.ids;
  inside.graph.offsets.push_back(0);
  for (std::size_t i = 0; i < graph.ids.size(); ++i) {
    for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
      if (neighbor_group[e] != group[i]) continue;
      inside.graph.targets.push_back(graph.targets[e]);
      inside.graph.weights.push_back(graph.weights[e]);
    }
    inside.graph.offsets.push_back(inside.graph.targets.size());
  }
  return inside;
}

// The group of each vertex of the coarse level `contract` makes of `fine`:
// a pair keeps its lower vertex, and both ends are in one group.
std::vector<int> coarse_groups(const Level& fine, const std::vector<int>& partner, std::span<const int> group) {
  std::vector<int> kept;
  for (std::size_t i = 0; i < fine.graph.ids.size(); ++i) {
    if (partner[i] < 0 || partner[i] > fine.graph.ids[i]) kept.push_back(group[i]);
  }
  return kept;
}

// One depth of the nested splits: `finest` (entries inside groups only) is
// coarsened until its groups are about `goal` vertices in all, the leaders
// split their groups' coarse graphs, and the shares come back to the graph
// itself. Returns each held vertex's chunk (its first part), or nullopt on
// every rank when coarsening stalls far above the goal.
std::optional<std::vector<int>> split_depth(RecordExchange& exchange, const NestedSplits& splits, int depth,
                                            Level finest, std::vector<int> group,
                                            const std::map<int, std::vector<Word>>& capacities, Word size_cap,
                                            std::int64_t gather_limit, LargestSplit& largest) {
  // About kCoarseVerticesPerPart per part, and never more per group than for kMaxPartsPerSplit parts.
  const Word goal =
      Word{kCoarseVerticesPerPart} * std::min<Word>(splits.group_count(depth) * kMaxPartsPerSplit, splits.part_count());
  const Word holdable = gather_limit * splits.group_count(depth);  // about gather_limit per leader
  std::vector<Level> levels;
  levels.push_back(std::move(finest));
  std::vector<std::vector<int>> groups{std::move(group)};
  Word count = levels.back().graph.blocks.vertex_count;
  bool stalled = false;
  bool fits = false;
  do {
    const std::vector<int> partner = heavy_edge_matching(exchange, levels.back().graph, levels.back().size, size_cap);
    groups.push_back(coarse_groups(levels.back(), partner, groups.back()));
    levels.push_back(contract(exchange, levels.back(), partner));
    std::array<Word, 2> totals{static_cast<Word>(levels.back().graph.ids.size()),
                               static_cast<Word>(levels.back().graph.targets.size())};
    exchange.sum(totals);
    stalled = static_cast<double>(totals[0]) > kStalled * static_cast<double>(count);
    count = totals[0];
    fits = totals[0] + totals[1] <= holdable;  // each level costs cut: stop at the first the leaders may hold
  } while (!fits && count > goal && !stalled && static_cast<int>(levels.size()) < kMaxLevels);
  if (!fits && count > kGiveUpFactor * goal) return std::nullopt;

  std::vector<Shares> shares = split_groups(exchange, splits, depth, levels.back(), groups.back(), capacities, largest);
  for (std::size_t l = levels.size() - 1; l > 0; --l)
    shares = project(exchange, levels[l], levels[l - 1], std::move(shares));
  std::vector<int> chunk(shares.size());
  for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = shares[i].front().part;  // one share of one graph node
  return chunk;
}

}  // namespace

std::optional<std::vector<int>> multilevel_partition(RecordExchange& exchange, const HeldGraph& graph,
                                                     std::span<const PartCapacity> coordinated, int part_count,
                                                     std::int64_t gather_limit, PartitionEffort effort,
                                                     LargestSplit* largest) {
  LargestSplit ignored;
  // Pairs may weigh up to half the smallest chunk (at least 2): a chunk is
  // then made of several coarse vertices, which the split can balance.
  int smallest = INT_MAX;
  for (const PartCapacity& c : coordinated) smallest = std::min(smallest, c.capacity);
  smallest = -exchange.deliver([](std::span<const Word>) {}, -smallest);  // the minimum over all ranks
  const std::vector<OwnPart> parts = own_parts(exchange, coordinated);
  const NestedSplits splits(part_count);

  const Level finest = finest_level(graph);
  std::vector<int> group(graph.ids.size(), 0);  // depth 0: one group of all parts
  for (int depth = 0; depth < splits.depths(); ++depth) {
    const auto capacities = chunk_capacities(exchange, splits, depth, graph.blocks, parts);
    const Word size_cap = std::max<Word>(2, Word{smallest} * splits.fewest_parts_per_chunk(depth) / 2);
    Level inside = depth == 0 ? finest : within_groups(exchange, finest, group);
    auto chunk = split_depth(exchange, splits, depth, std::move(inside), std::move(group), capacities, size_cap,
                             gather_limit, largest ? *largest : ignored);
    if (!chunk) return std::nullopt;
    group = std::move(*chunk);  // each chunk is a group of the next depth
  }
  // Swaps first (cheap rounds for the boundary layer), then whole groups of parts.
  std::vector<int> part = refine_by_swaps(exchange, finest.graph, std::move(group));
  return repartition_groups(exchange, finest.graph, std::move(part), effort);
}

}  // namespace distopo::detail
