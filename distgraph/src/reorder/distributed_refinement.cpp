#include "distributed_refinement.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <tuple>

#include "exact_partition.hpp"

namespace distopo::detail {
namespace {

constexpr int kSwapRounds = 16;
constexpr int kPairRounds = 32;
constexpr int kStaleRounds = 3;  // rounds in a row without a lower cut before either stops

// Applies the moves ({vertex, new part}) sent this round; returns the max of
// `flag` over all ranks.
int deliver_moves(RecordExchange& exchange, const HeldGraph& graph, std::vector<int>& part, int flag) {
  return exchange.deliver(
      [&](std::span<const Word> words) {
        for (RecordReader in(words); in.more();) {
          const std::size_t i = index_of(graph, in.next_int());
          part[i] = in.next_int();
        }
      },
      flag);
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
    std::sort(candidates_.begin(), candidates_.end(),
              [](const Candidate& a, const Candidate& b) { return a.id < b.id; });
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
    for (std::size_t k = 0; k < best_length; ++k)
      swaps.emplace_back(candidates_[sequence[k]].id, candidates_[sequence[k]].side);
    return swaps;
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  static constexpr std::size_t kHillClimb = 16;  // swaps tried past the best before giving up
  std::vector<Candidate> candidates_;
};

}  // namespace

std::vector<int> refine_by_swaps(MPI_Comm comm, RecordExchange& exchange, const HeldGraph& graph,
                                 std::vector<int> part) {
  const std::size_t n = graph.ids.size();
  int stale = 0;
  std::vector<int> best = part;
  Word best_cut = -1;
  std::vector<std::pair<int, Word>> connections;
  for (int round = 0;; ++round) {
    const std::vector<Word> neighbor_part =
        neighbor_values(exchange, graph, std::vector<Word>(part.begin(), part.end()));
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
    if (round == kSwapRounds) break;

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
    if (deliver_moves(exchange, graph, part, swapped) == 0) break;  // nothing moved: this state was just counted
  }
  return best;
}

std::vector<int> repartition_pairs(RecordExchange& exchange, const HeldGraph& graph, std::vector<int> part) {
  const std::size_t n = graph.ids.size();
  int idle = 0;  // rounds in a row in which no pair found a better split
  struct Member {
    int id;
    int part;
    std::vector<std::pair<int, Word>> neighbors;  // (graph node, weight), both ends in the member's part or its pair
  };
  for (int round = 0; round < kPairRounds; ++round) {
    const std::vector<Word> neighbor_part =
        neighbor_values(exchange, graph, std::vector<Word>(part.begin(), part.end()));
    // Every vertex to its part's coordinator: {part, id, m, m x (neighbor, its part, weight)}.
    for (std::size_t i = 0; i < n; ++i) {
      auto& out = exchange.to(graph.blocks.owner(part[i]));
      out.insert(out.end(), {part[i], graph.ids[i], static_cast<Word>(graph.offsets[i + 1] - graph.offsets[i])});
      for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
        out.insert(out.end(), {graph.targets[e], neighbor_part[e], graph.weights[e]});
      }
    }
    std::map<int, std::vector<Member>> members;                   // by coordinated part
    std::map<int, std::map<int, Word>> quotient;                  // part -> other part -> cut weight
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
    HeldGraph parts;
    parts.blocks = graph.blocks;
    parts.offsets.push_back(0);
    for (const auto& [p, list] : members) {
      std::vector<std::pair<int, Word>> entries(quotient[p].begin(), quotient[p].end());
      for (auto& entry : entries) entry.second = 1;  // any adjacent pair: the salt picks
      append_vertex(parts, p, entries);
    }
    const std::vector<Word> one_each(parts.ids.size(), 1);
    const std::vector<int> paired =
        heavy_edge_matching(exchange, parts, one_each, 2, mix(static_cast<std::uint64_t>(round) + 1));

    // The higher part's coordinator hands its members to the lower one's.
    for (std::size_t q = 0; q < paired.size(); ++q) {
      const int p = parts.ids[q];
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
        const auto it =
            std::lower_bound(all.begin(), all.end(), id, [](const Member* m, int key) { return m->id < key; });
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
        if (split[v] != now[v])
          exchange.post(graph.blocks.owner(all[v]->id), {all[v]->id, split[v] == 0 ? lower : higher});
      }
    }
    idle = deliver_moves(exchange, graph, part, improved) != 0 ? 0 : idle + 1;
    if (idle == kStaleRounds) break;  // other pairings found nothing either
  }
  return part;
}

}  // namespace distopo::detail
