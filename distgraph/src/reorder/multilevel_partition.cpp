#include "multilevel_partition.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <map>
#include <tuple>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"
#include "exact_partition.hpp"
#include "record_exchange.hpp"

namespace distopo::detail {
namespace {

constexpr int kRoot = 0;
constexpr int kMatchingRounds = 6;
constexpr int kMaxLevels = 32;
constexpr int kRefinementRounds = 16;  // swap rounds
constexpr int kPairRounds = 32;        // pairwise repartitioning rounds on the graph itself
constexpr int kStaleRounds = 3;        // rounds in a row without a lower cut before either stops
// A level that keeps more than this share of its vertices has stalled.
constexpr double kStalled = 0.95;
// Stalled above this many times the goal: the coarse graph is too big to gather.
constexpr int kGiveUpFactor = 4;

// One level of the hierarchy, as held by this rank: the graph, how many graph
// nodes each vertex stands for, and the vertex of the finer level merged into
// each (kept on the lower id, which stays the vertex's id).
struct Level {
  HeldGraph graph;
  std::vector<Word> size;
  std::vector<int> partner;  // -1: none
};

std::size_t index_of(const HeldGraph& graph, int id) {
  return static_cast<std::size_t>(std::lower_bound(graph.ids.begin(), graph.ids.end(), id) - graph.ids.begin());
}

// The adjacency entry of held vertex i that names `neighbor` (targets are sorted per vertex).
std::size_t entry_of(const HeldGraph& graph, std::size_t i, int neighbor) {
  const auto first = graph.targets.begin() + static_cast<std::ptrdiff_t>(graph.offsets[i]);
  const auto last = graph.targets.begin() + static_cast<std::ptrdiff_t>(graph.offsets[i + 1]);
  return static_cast<std::size_t>(std::lower_bound(first, last, neighbor) - graph.targets.begin());
}

Word sum_over_ranks(MPI_Comm comm, Word value) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Allreduce");
  return value;
}

// For every adjacency entry, the value its neighbor holds (one exchange).
std::vector<Word> neighbor_values(RecordExchange& exchange, const HeldGraph& graph, std::span<const Word> own) {
  for (std::size_t i = 0; i < graph.ids.size(); ++i) {
    for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
      exchange.post(graph.blocks.owner(graph.targets[e]), {graph.targets[e], graph.ids[i], own[i]});
    }
  }
  std::vector<Word> values(graph.targets.size(), 0);
  exchange.deliver([&](std::span<const Word> words) {
    for (RecordReader in(words); in.more();) {
      const std::size_t i = index_of(graph, in.next_int());
      const int from = in.next_int();
      values[entry_of(graph, i, from)] = in.next();
    }
  });
  return values;
}

// Self-loops and zero weights dropped, targets sorted, parallel entries merged.
void sort_and_merge(std::vector<std::pair<int, Word>>& entries, int self) {
  std::erase_if(entries, [&](const auto& entry) { return entry.first == self || entry.second <= 0; });
  std::sort(entries.begin(), entries.end());
  std::size_t kept = 0;
  for (const auto& entry : entries) {
    if (kept > 0 && entries[kept - 1].first == entry.first) {
      entries[kept - 1].second += entry.second;
    } else {
      entries[kept++] = entry;
    }
  }
  entries.resize(kept);
}

void append_vertex(HeldGraph& graph, int id, const std::vector<std::pair<int, Word>>& entries) {
  graph.ids.push_back(id);
  for (const auto& [target, weight] : entries) {
    graph.targets.push_back(target);
    graph.weights.push_back(weight);
  }
  graph.offsets.push_back(graph.targets.size());
}

Level finest_level(const HeldGraph& given) {
  Level level;
  level.graph.blocks = given.blocks;
  level.graph.offsets.push_back(0);
  std::vector<std::pair<int, Word>> entries;
  for (std::size_t i = 0; i < given.ids.size(); ++i) {
    entries.clear();
    for (std::size_t e = given.offsets[i]; e < given.offsets[i + 1]; ++e) entries.emplace_back(given.targets[e], given.weights[e]);
    sort_and_merge(entries, given.ids[i]);
    append_vertex(level.graph, given.ids[i], entries);
  }
  level.size.assign(given.ids.size(), 1);
  level.partner.assign(given.ids.size(), -1);
  return level;
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64: tie-breaks that look random but are fixed
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Locally dominant matching: each free vertex proposes to its best free
// neighbor (rating weight / (size * size), then a hash of the pair, the same
// seen from both ends, varied by `salt`); mutual proposals match. Returns
// each held vertex's partner or -1.
std::vector<int> heavy_edge_matching(RecordExchange& exchange, const Level& level, Word size_cap,
                                     std::uint64_t salt = 0) {
  const HeldGraph& graph = level.graph;
  const std::size_t n = graph.ids.size();
  const std::vector<Word> neighbor_size = neighbor_values(exchange, graph, level.size);
  std::vector<int> partner(n, -1);
  std::vector<char> taken(graph.targets.size(), 0);
  std::vector<int> proposal(n, -1);
  for (int round = 0; round < kMatchingRounds; ++round) {
    int proposing = 0;
    for (std::size_t i = 0; i < n; ++i) {
      proposal[i] = -1;
      if (partner[i] >= 0) continue;
      const int id = graph.ids[i];
      std::tuple<double, std::uint64_t> best{-1.0, 0};
      for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
        if (taken[e] || level.size[i] + neighbor_size[e] > size_cap) continue;
        const int t = graph.targets[e];
        const double rating = static_cast<double>(graph.weights[e]) /
                              (static_cast<double>(level.size[i]) * static_cast<double>(neighbor_size[e]));
        const auto pair = (static_cast<std::uint64_t>(std::min(id, t)) << 32) | static_cast<std::uint32_t>(std::max(id, t));
        const std::tuple<double, std::uint64_t> key{rating, mix(pair ^ salt)};
        if (key > best) best = key, proposal[i] = t;
      }
      if (proposal[i] >= 0) {
        exchange.post(graph.blocks.owner(proposal[i]), {proposal[i], id});
        proposing = 1;
      }
    }
    const int any = exchange.deliver(
        [&](std::span<const Word> words) {
          for (RecordReader in(words); in.more();) {
            const std::size_t i = index_of(graph, in.next_int());
            const int from = in.next_int();
            if (proposal[i] == from) partner[i] = from;
          }
        },
        proposing);
    if (any == 0) break;
    std::vector<Word> matched(partner.begin(), partner.end());
    const std::vector<Word> neighbor_partner = neighbor_values(exchange, graph, matched);
    for (std::size_t e = 0; e < taken.size(); ++e) taken[e] = neighbor_partner[e] >= 0 ? 1 : 0;
  }
  return partner;
}

// The coarse level: each matched pair becomes one vertex on the rank of its
// lower id, which merges both lists (renamed to coarse ids, the pair's own
// edge dropped).
Level contract(RecordExchange& exchange, const Level& fine, const std::vector<int>& partner) {
  const HeldGraph& graph = fine.graph;
  const std::size_t n = graph.ids.size();
  std::vector<Word> coarse_id(n);
  for (std::size_t i = 0; i < n; ++i) coarse_id[i] = partner[i] >= 0 ? std::min(graph.ids[i], partner[i]) : graph.ids[i];
  const std::vector<Word> neighbor_coarse = neighbor_values(exchange, graph, coarse_id);

  for (std::size_t i = 0; i < n; ++i) {
    if (partner[i] < 0 || partner[i] > graph.ids[i]) continue;
    auto& out = exchange.to(graph.blocks.owner(partner[i]));
    out.insert(out.end(), {Word{partner[i]}, fine.size[i], static_cast<Word>(graph.offsets[i + 1] - graph.offsets[i])});
    for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
      out.insert(out.end(), {neighbor_coarse[e], graph.weights[e]});
    }
  }
  std::map<int, std::vector<std::pair<int, Word>>> merged_in;  // representative -> its partner's entries
  std::map<int, Word> merged_size;
  exchange.deliver([&](std::span<const Word> words) {
    for (RecordReader in(words); in.more();) {
      const int representative = in.next_int();
      merged_size[representative] = in.next();
      auto& entries = merged_in[representative];
      for (Word d = in.next(); d > 0; --d) {
        const int target = in.next_int();
        entries.emplace_back(target, in.next());
      }
    }
  });

  Level coarse;
  coarse.graph.blocks = graph.blocks;
  coarse.graph.offsets.push_back(0);
  std::vector<std::pair<int, Word>> entries;
  for (std::size_t i = 0; i < n; ++i) {
    const int id = graph.ids[i];
    if (partner[i] >= 0 && partner[i] < id) continue;  // merged into its partner
    entries.clear();
    for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
      entries.emplace_back(static_cast<int>(neighbor_coarse[e]), graph.weights[e]);
    }
    Word size = fine.size[i];
    Word other = 0;
    if (partner[i] >= 0) {
      const auto& theirs = merged_in[id];
      entries.insert(entries.end(), theirs.begin(), theirs.end());
      other = merged_size[id];
    }
    sort_and_merge(entries, id);
    append_vertex(coarse.graph, id, entries);
    coarse.size.push_back(size + other);
    coarse.partner.push_back(partner[i]);
  }
  return coarse;
}

using Shares = std::vector<Share>;

// Rank 0 gathers the coarsest level and the capacities, splits the coarse
// graph into parts of exactly the capacities and sends each vertex its shares.
std::vector<Shares> partition_coarsest(MPI_Comm comm, RecordExchange& exchange, const Level& level,
                                       std::span<const PartCapacity> coordinated, int part_count) {
  enum Kind : Word { kVertex, kCapacity };
  const HeldGraph& graph = level.graph;
  auto& out = exchange.to(kRoot);
  for (const PartCapacity& c : coordinated) out.insert(out.end(), {kCapacity, c.part, c.capacity});
  for (std::size_t i = 0; i < graph.ids.size(); ++i) {
    out.insert(out.end(), {kVertex, graph.ids[i], level.size[i], static_cast<Word>(graph.offsets[i + 1] - graph.offsets[i])});
    for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
      out.insert(out.end(), {graph.targets[e], graph.weights[e]});
    }
  }
  std::vector<int> capacities(comm_rank(comm) == kRoot ? static_cast<std::size_t>(part_count) : 0);
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
      for (Word d = in.next(); d > 0; --d) {
        const int target = in.next_int();
        entries.emplace_back(target, in.next());
      }
      vertices.emplace_back(id, size, std::move(entries));
    }
  });

  if (comm_rank(comm) == kRoot) {
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
      for (const auto& [target, weight] : std::get<2>(vertices[v])) edges.push_back({static_cast<int>(v), number(target), weight});
    }
    const auto shares = partition_into_shares(partitioner_graph(static_cast<int>(ids.size()), edges), sizes, capacities);
    for (std::size_t v = 0; v < ids.size(); ++v) {
      auto& to = exchange.to(graph.blocks.owner(ids[v]));
      to.insert(to.end(), {ids[v], static_cast<Word>(shares[v].size())});
      for (const Share& share : shares[v]) to.insert(to.end(), {share.part, share.count});
    }
  }
  std::vector<Shares> result(graph.ids.size());
  exchange.deliver([&](std::span<const Word> words) {
    for (RecordReader in(words); in.more();) {
      Shares& shares = result[index_of(graph, in.next_int())];
      for (Word k = in.next(); k > 0; --k) {
        const int part = in.next_int();
        shares.push_back({part, in.next()});
      }
    }
  });
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
    if (coarse.partner[i] < 0) continue;
    auto& to = exchange.to(fine.graph.blocks.owner(coarse.partner[i]));
    to.insert(to.end(), {coarse.partner[i], static_cast<Word>(rest.size())});
    for (const Share& share : rest) to.insert(to.end(), {share.part, share.count});
  }
  exchange.deliver([&](std::span<const Word> words) {
    for (RecordReader in(words); in.more();) {
      Shares& shares = result[index_of(fine.graph, in.next_int())];
      for (Word k = in.next(); k > 0; --k) {
        const int part = in.next_int();
        shares.push_back({part, in.next()});
      }
    }
  });
  return result;
}

// One pair of parts on its coordinator: the boundary vertices of both sides
// that named the other side as their best move, each with its weight to
// either part and its neighbors in the two parts.
class PairOfParts {
 public:
  struct Candidate {
    int id;
    int side;                     // 0: in the lower part, 1: in the higher one
    std::array<Word, 2> to_side;  // weight to each part
    std::vector<std::pair<int, Word>> neighbors;
  };

  void add(Candidate candidate) { candidates_.push_back(std::move(candidate)); }

  // Kernighan-Lin: repeatedly swap the best vertex of each side (gains
  // updated after every swap, the pair's own edge counted), then keep the
  // prefix of swaps with the highest total gain. Returns (vertex, new side).
  std::vector<std::pair<int, int>> best_swaps() {
    std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) { return a.id < b.id; });
    const auto find = [&](int id) {
      const auto it = std::lower_bound(candidates_.begin(), candidates_.end(), id,
                                       [](const Candidate& c, int key) { return c.id < key; });
      return it != candidates_.end() && it->id == id ? static_cast<std::size_t>(it - candidates_.begin()) : kNone;
    };
    std::vector<std::size_t> neighbor_index;  // per candidate's neighbor entry: its candidate index or kNone
    std::vector<std::size_t> first{0};
    for (const Candidate& c : candidates_) {
      for (const auto& [id, w] : c.neighbors) neighbor_index.push_back(find(id));
      first.push_back(neighbor_index.size());
    }
    std::vector<char> moved(candidates_.size(), 0);
    const auto gain = [&](const Candidate& c) { return c.to_side[1 - c.side] - c.to_side[c.side]; };
    const auto best_of = [&](int side) {
      std::size_t best = kNone;
      for (std::size_t i = 0; i < candidates_.size(); ++i) {
        if (moved[i] || candidates_[i].side != side) continue;
        if (best == kNone || gain(candidates_[i]) > gain(candidates_[best])) best = i;
      }
      return best;
    };
    const auto move = [&](std::size_t i) {
      Candidate& c = candidates_[i];
      for (std::size_t e = first[i]; e < first[i + 1]; ++e) {
        if (neighbor_index[e] == kNone) continue;
        Candidate& n = candidates_[neighbor_index[e]];
        n.to_side[c.side] -= c.neighbors[e - first[i]].second;
        n.to_side[1 - c.side] += c.neighbors[e - first[i]].second;
      }
      c.side = 1 - c.side;
      moved[i] = 1;
    };
    std::vector<std::size_t> sequence;
    Word total = 0;
    Word best_total = 0;
    std::size_t best_length = 0;
    for (;;) {
      const std::size_t x = best_of(0);
      const std::size_t y = best_of(1);
      if (x == kNone || y == kNone) break;
      const Word gain_x = gain(candidates_[x]);
      move(x);  // y's gain now counts its edge to x
      total += gain_x + gain(candidates_[y]);
      move(y);
      sequence.push_back(x);
      sequence.push_back(y);
      if (total > best_total) best_total = total, best_length = sequence.size();
      if (sequence.size() >= best_length + 2 * kHillClimb) break;
    }
    std::vector<std::pair<int, int>> swaps;
    for (std::size_t k = 0; k < best_length; ++k) swaps.emplace_back(candidates_[sequence[k]].id, candidates_[sequence[k]].side);
    return swaps;
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  static constexpr std::size_t kHillClimb = 16;  // swaps tried past the best before giving up
  std::vector<Candidate> candidates_;
};

// Swap rounds on the graph itself. Each boundary vertex names its best other
// part; the rank of the lower part of each pair runs Kernighan-Lin on the
// pair's candidates (PairOfParts), so part sizes never change. Pairs run at
// the same time, each unaware of the others' moves, so the round with the
// lowest cut is the one kept.
std::vector<int> refine_by_swaps(MPI_Comm comm, RecordExchange& exchange, const HeldGraph& graph, std::vector<int> part) {
  const std::size_t n = graph.ids.size();
  int stale = 0;
  std::vector<int> best = part;
  Word best_cut = -1;
  std::vector<std::pair<int, Word>> connections;
  for (int round = 0;; ++round) {
    const std::vector<Word> neighbor_part = neighbor_values(exchange, graph, std::vector<Word>(part.begin(), part.end()));
    Word cut = 0;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
        if (neighbor_part[e] != part[i]) cut += graph.weights[e];
      }
    }
    cut = sum_over_ranks(comm, cut);
    if (best_cut < 0 || cut < best_cut) {
      best_cut = cut, best = part, stale = 0;
    } else if (++stale == kStaleRounds) {
      break;
    }
    if (round == kRefinementRounds) break;

    for (std::size_t i = 0; i < n; ++i) {
      connections.clear();
      for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
        connections.emplace_back(static_cast<int>(neighbor_part[e]), graph.weights[e]);
      }
      sort_and_merge(connections, -1);
      Word own = 0;
      for (const auto& [p, w] : connections) own += p == part[i] ? w : 0;
      int target = -1;
      Word to_target = 0;
      for (const auto& [p, w] : connections) {
        if (p != part[i] && (target < 0 || w > to_target)) target = p, to_target = w;
      }
      if (target < 0) continue;
      // {lower part, higher part, vertex, side, weight to lower, to higher, m, m x (neighbor, weight)}
      const int lower = std::min(part[i], target);
      const int side = part[i] == lower ? 0 : 1;
      auto& out = exchange.to(graph.blocks.owner(lower));
      out.insert(out.end(), {lower, std::max(part[i], target), graph.ids[i], side, side == 0 ? own : to_target,
                             side == 0 ? to_target : own});
      const std::size_t count_at = out.size();
      out.push_back(0);
      for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
        if (neighbor_part[e] == part[i] || neighbor_part[e] == target) {
          out.insert(out.end(), {graph.targets[e], graph.weights[e]});
          ++out[count_at];
        }
      }
    }
    std::map<std::pair<int, int>, PairOfParts> pairs;
    exchange.deliver([&](std::span<const Word> words) {
      for (RecordReader in(words); in.more();) {
        const int lower = in.next_int();
        const int higher = in.next_int();
        PairOfParts::Candidate c{in.next_int(), in.next_int(), {}, {}};
        c.to_side[0] = in.next();
        c.to_side[1] = in.next();
        for (Word m = in.next(); m > 0; --m) {
          const int neighbor = in.next_int();
          c.neighbors.emplace_back(neighbor, in.next());
        }
        pairs[{lower, higher}].add(std::move(c));
      }
    });
    int swapped = 0;
    for (auto& [key, pair] : pairs) {
      for (const auto& [vertex, side] : pair.best_swaps()) {
        exchange.post(graph.blocks.owner(vertex), {vertex, side == 0 ? key.first : key.second});
        swapped = 1;
      }
    }
    const int any = exchange.deliver(
        [&](std::span<const Word> words) {
          for (RecordReader in(words); in.more();) {
            const std::size_t i = index_of(graph, in.next_int());
            part[i] = in.next_int();
          }
        },
        swapped);
    if (any == 0) break;  // nothing moved: this state was just counted
  }
  return best;
}

// Pairwise repartitioning on the graph itself. Each round, the parts are
// paired by a matching of the quotient graph (parts adjacent by cut weight,
// varied by round), the coordinator of the higher part of each pair sends its
// members to the coordinator of the lower one, which splits the union of the
// two parts again (partition_exact: METIS, exact sizes, swaps) and keeps the
// split with the lower cut between them. Pairs are disjoint and edges leaving
// a pair are cut either way, so each kept split lowers the whole cut by
// exactly what its coordinator computed. Memory: two parts' lists.
std::vector<int> repartition_pairs(RecordExchange& exchange, const HeldGraph& graph, std::vector<int> part) {
  const std::size_t n = graph.ids.size();
  int idle = 0;  // rounds in a row in which no pair found a better split
  struct Member {
    int id;
    int part;
    std::vector<std::pair<int, Word>> neighbors;  // (graph node, weight), both ends in the member's part or its pair
  };
  for (int round = 0; round < kPairRounds; ++round) {
    const std::vector<Word> neighbor_part = neighbor_values(exchange, graph, std::vector<Word>(part.begin(), part.end()));
    // Every vertex to its part's coordinator: {part, id, m, m x (neighbor, its part, weight)}.
    for (std::size_t i = 0; i < n; ++i) {
      auto& out = exchange.to(graph.blocks.owner(part[i]));
      out.insert(out.end(), {part[i], graph.ids[i], static_cast<Word>(graph.offsets[i + 1] - graph.offsets[i])});
      for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
        out.insert(out.end(), {graph.targets[e], neighbor_part[e], graph.weights[e]});
      }
    }
    std::map<int, std::vector<Member>> members;                 // by coordinated part
    std::map<int, std::map<int, Word>> quotient;                // part -> other part -> cut weight
    std::map<int, std::vector<std::tuple<int, int, Word>>> rest;  // member lists, kept for the pair's coordinator
    exchange.deliver([&](std::span<const Word> words) {
      for (RecordReader in(words); in.more();) {
        Member m;
        m.part = in.next_int();
        m.id = in.next_int();
        for (Word d = in.next(); d > 0; --d) {
          const int neighbor = in.next_int();
          const int neighbor_part_id = in.next_int();
          const Word w = in.next();
          if (neighbor_part_id != m.part) quotient[m.part][neighbor_part_id] += w;
          rest[m.part].emplace_back(m.id, neighbor, neighbor_part_id);
          m.neighbors.emplace_back(neighbor, w);
        }
        members[m.part].push_back(std::move(m));
      }
    });
    for (auto& [p, list] : members) {
      std::sort(list.begin(), list.end(), [](const Member& a, const Member& b) { return a.id < b.id; });
    }

    // The quotient graph, held by the coordinators; a matching pairs the parts.
    Level parts;
    parts.graph.blocks = graph.blocks;
    parts.graph.offsets.push_back(0);
    for (const auto& [p, list] : members) {
      std::vector<std::pair<int, Word>> entries(quotient[p].begin(), quotient[p].end());
      for (auto& entry : entries) entry.second = 1;  // any adjacent pair: the salt picks
      append_vertex(parts.graph, p, entries);
    }
    parts.size.assign(parts.graph.ids.size(), 1);
    parts.partner.assign(parts.graph.ids.size(), -1);
    const std::vector<int> paired = heavy_edge_matching(exchange, parts, 2, mix(static_cast<std::uint64_t>(round) + 1));

    // The higher part's coordinator hands its members to the lower one's.
    for (std::size_t q = 0; q < paired.size(); ++q) {
      const int p = parts.graph.ids[q];
      if (paired[q] < 0 || paired[q] > p) continue;
      auto& out = exchange.to(graph.blocks.owner(paired[q]));
      for (const Member& m : members[p]) {
        out.insert(out.end(), {paired[q], m.id, p, static_cast<Word>(m.neighbors.size())});
        for (const auto& [u, w] : m.neighbors) out.insert(out.end(), {u, w});
      }
    }
    std::map<int, std::vector<Member>> partners;  // lower part -> the higher part's members
    exchange.deliver([&](std::span<const Word> words) {
      for (RecordReader in(words); in.more();) {
        const int lower = in.next_int();
        Member m;
        m.id = in.next_int();
        m.part = in.next_int();
        for (Word d = in.next(); d > 0; --d) {
          const int u = in.next_int();
          m.neighbors.emplace_back(u, in.next());
        }
        partners[lower].push_back(std::move(m));
      }
    });

    int improved = 0;
    for (auto& [lower, theirs] : partners) {
      std::sort(theirs.begin(), theirs.end(), [](const Member& a, const Member& b) { return a.id < b.id; });
      const std::vector<Member>& ours = members[lower];
      const int higher = theirs.front().part;
      std::vector<const Member*> all;
      for (const Member& m : ours) all.push_back(&m);
      for (const Member& m : theirs) all.push_back(&m);
      std::sort(all.begin(), all.end(), [](const Member* a, const Member* b) { return a->id < b->id; });
      const auto local = [&](int id) {
        const auto it = std::lower_bound(all.begin(), all.end(), id, [](const Member* m, int key) { return m->id < key; });
        return it != all.end() && (*it)->id == id ? static_cast<int>(it - all.begin()) : -1;
      };
      std::vector<DirectedEdge> edges;
      std::vector<int> now(all.size());
      for (std::size_t v = 0; v < all.size(); ++v) {
        now[v] = all[v]->part == lower ? 0 : 1;
        for (const auto& [u, w] : all[v]->neighbors) {
          if (const int j = local(u); j >= 0) edges.push_back({static_cast<int>(v), j, w});
        }
      }
      const UndirectedGraph pair_graph = partitioner_graph(static_cast<int>(all.size()), edges);
      const std::array<int, 2> capacities{static_cast<int>(ours.size()), static_cast<int>(theirs.size())};
      const std::vector<int> split = partition_exact(pair_graph, capacities, PartitionEffort::fast);
      if (cut_weight(pair_graph, split) >= cut_weight(pair_graph, now)) continue;
      improved = 1;
      for (std::size_t v = 0; v < all.size(); ++v) {
        if (split[v] != now[v]) exchange.post(graph.blocks.owner(all[v]->id), {all[v]->id, split[v] == 0 ? lower : higher});
      }
    }
    const int any = exchange.deliver(
        [&](std::span<const Word> words) {
          for (RecordReader in(words); in.more();) {
            const std::size_t i = index_of(graph, in.next_int());
            part[i] = in.next_int();
          }
        },
        improved);
    idle = any != 0 ? 0 : idle + 1;
    if (idle == kStaleRounds) break;  // other pairings found nothing either
  }
  return part;
}

}  // namespace

std::optional<std::vector<int>> multilevel_partition(MPI_Comm comm, const HeldGraph& graph,
                                                     std::span<const PartCapacity> coordinated, int part_count,
                                                     std::int64_t gather_limit) {
  RecordExchange exchange(comm);
  // Pairs may weigh up to half the smallest part (at least 2): a part is
  // then made of several coarse vertices, which the split can balance.
  int smallest = INT_MAX;
  for (const PartCapacity& c : coordinated) smallest = std::min(smallest, c.capacity);
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &smallest, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  const Word size_cap = std::max(2, smallest / 2);
  const Word goal = Word{kCoarseVerticesPerPart} * part_count;

  std::vector<Level> levels;
  levels.push_back(finest_level(graph));
  Word count = graph.blocks.vertex_count;
  bool stalled = false;
  bool fits = false;
  do {
    const std::vector<int> partner = heavy_edge_matching(exchange, levels.back(), size_cap);
    levels.push_back(contract(exchange, levels.back(), partner));
    std::array<Word, 2> totals{static_cast<Word>(levels.back().graph.ids.size()),
                               static_cast<Word>(levels.back().graph.targets.size())};
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, totals.data(), 2, MPI_INT64_T, MPI_SUM, comm), "MPI_Allreduce");
    stalled = static_cast<double>(totals[0]) > kStalled * static_cast<double>(count);
    count = totals[0];
    fits = totals[0] + totals[1] <= gather_limit;  // each level costs cut: stop at the first rank 0 may hold
  } while (!fits && count > goal && !stalled && static_cast<int>(levels.size()) < kMaxLevels);
  if (!fits && count > kGiveUpFactor * goal) return std::nullopt;

  std::vector<Shares> shares = partition_coarsest(comm, exchange, levels.back(), coordinated, part_count);
  for (std::size_t l = levels.size() - 1; l > 0; --l) shares = project(exchange, levels[l], levels[l - 1], std::move(shares));
  std::vector<int> part(shares.size());
  for (std::size_t i = 0; i < part.size(); ++i) part[i] = shares[i].front().part;  // one share of one graph node
  // Swaps first (cheap rounds for the boundary layer), then whole pairs of parts.
  part = refine_by_swaps(comm, exchange, levels.front().graph, std::move(part));
  return repartition_pairs(exchange, levels.front().graph, std::move(part));
}

}  // namespace distopo::detail
