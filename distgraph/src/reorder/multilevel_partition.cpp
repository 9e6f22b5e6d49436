#include "multilevel_partition.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <map>
#include <tuple>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "distributed_refinement.hpp"
#include "exact_partition.hpp"

namespace distopo::detail {
namespace {

constexpr int kRoot = 0;
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

// Rank 0 gathers the coarsest level and the capacities, splits the coarse
// graph into parts of exactly the capacities and sends each vertex its shares.
std::vector<Shares> partition_coarsest(RecordExchange& exchange, const Level& level,
                                       std::span<const PartCapacity> coordinated, int part_count) {
  enum Kind : Word { kVertex, kCapacity };
  const HeldGraph& graph = level.graph;
  auto& out = exchange.to(kRoot);
  for (const PartCapacity& c : coordinated) out.insert(out.end(), {kCapacity, c.part, c.capacity});
  for (std::size_t i = 0; i < graph.ids.size(); ++i) {
    out.insert(out.end(),
               {kVertex, graph.ids[i], level.size[i], static_cast<Word>(graph.offsets[i + 1] - graph.offsets[i])});
    for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
      out.insert(out.end(), {graph.targets[e], graph.weights[e]});
    }
  }
  const bool root = comm_rank(exchange.comm()) == kRoot;
  std::vector<int> capacities(root ? static_cast<std::size_t>(part_count) : 0);
  std::vector<std::tuple<int, Word, std::vector<std::pair<int, Word>>>> vertices;  // (id, size, entries)
  exchange.deliver([&](std::span<const Word> words) {
    for (RecordReader in(words); in.more();) {
      if (in.next() == kCapacity) {
        const int part = in.next_int();
        capacities[static_cast<std::size_t>(part)] = in.next_int();
        continue;
      }
      const int id = in.next_int();
      const Word size = in.next();
      std::vector<std::pair<int, Word>> entries;
      read_entries(in, entries);
      vertices.emplace_back(id, size, std::move(entries));
    }
  });

  if (root) {
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
    const auto shares =
        partition_into_shares(partitioner_graph(static_cast<int>(ids.size()), edges), sizes, capacities);
    for (std::size_t v = 0; v < ids.size(); ++v) post_shares(exchange, graph.blocks.owner(ids[v]), ids[v], shares[v]);
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
    Word room = fine.size[self];
    Shares rest;
    for (const Share& share : shares) {
      const Word kept = std::min(room, share.count);
      if (kept > 0) result[self].push_back({share.part, kept});
      if (share.count > kept) rest.push_back({share.part, share.count - kept});
      room -= kept;
    }
    if (coarse.partner[i] >= 0) {
      post_shares(exchange, fine.graph.blocks.owner(coarse.partner[i]), coarse.partner[i], rest);
    }
  }
  receive_shares(exchange, fine.graph, result);
  return result;
}

}  // namespace

std::optional<std::vector<int>> multilevel_partition(RecordExchange& exchange, const HeldGraph& graph,
                                                     std::span<const PartCapacity> coordinated, int part_count,
                                                     std::int64_t gather_limit, PartitionEffort effort) {
  // Pairs may weigh up to half the smallest part (at least 2): a part is
  // then made of several coarse vertices, which the split can balance.
  int smallest = INT_MAX;
  for (const PartCapacity& c : coordinated) smallest = std::min(smallest, c.capacity);
  smallest = -exchange.deliver([](std::span<const Word>) {}, -smallest);  // the minimum over all ranks
  const Word size_cap = std::max(2, smallest / 2);
  const Word goal = Word{kCoarseVerticesPerPart} * part_count;

  std::vector<Level> levels;
  levels.push_back(finest_level(graph));
  Word count = graph.blocks.vertex_count;
  bool stalled = false;
  bool fits = false;
  do {
    const std::vector<int> partner = heavy_edge_matching(exchange, levels.back().graph, levels.back().size, size_cap);
    levels.push_back(contract(exchange, levels.back(), partner));
    std::array<Word, 2> totals{static_cast<Word>(levels.back().graph.ids.size()),
                               static_cast<Word>(levels.back().graph.targets.size())};
    exchange.sum(totals);
    stalled = static_cast<double>(totals[0]) > kStalled * static_cast<double>(count);
    count = totals[0];
    fits = totals[0] + totals[1] <= gather_limit;  // each level costs cut: stop at the first rank 0 may hold
  } while (!fits && count > goal && !stalled && static_cast<int>(levels.size()) < kMaxLevels);
  if (!fits && count > kGiveUpFactor * goal) return std::nullopt;

  std::vector<Shares> shares = partition_coarsest(exchange, levels.back(), coordinated, part_count);
  for (std::size_t l = levels.size() - 1; l > 0; --l)
    shares = project(exchange, levels[l], levels[l - 1], std::move(shares));
  std::vector<int> part(shares.size());
  for (std::size_t i = 0; i < part.size(); ++i) part[i] = shares[i].front().part;  // one share of one graph node
  // Swaps first (cheap rounds for the boundary layer), then whole groups of parts.
  part = refine_by_swaps(exchange, levels.front().graph, std::move(part));
  return repartition_groups(exchange, levels.front().graph, std::move(part), effort);
}

}  // namespace distopo::detail
