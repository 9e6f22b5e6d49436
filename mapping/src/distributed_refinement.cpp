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
constexpr int kGroupRounds = 64;
constexpr int kGroupDepth = 3;   // groups of up to 8 parts
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

std::vector<int> refine_by_swaps(RecordExchange& exchange, const HeldGraph& graph, std::vector<int> part) {
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
    exchange.sum(std::span<Word>(&cut, 1));
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
        read_entries(in, c.neighbors);
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

std::vector<int> repartition_groups(RecordExchange& exchange, const HeldGraph& graph, std::vector<int> part,
                                    PartitionEffort effort) {
  const std::size_t n = graph.ids.size();
  int idle = 0;  // rounds in a row in which no group found a better split
  struct Member {
    int id;
    int part;
    std::vector<std::pair<int, Word>> neighbors;  // (graph node, weight)
  };
  for (int round = 0; round < kGroupRounds; ++round) {
    const std::vector<Word> neighbor_part =
        neighbor_values(exchange, graph, std::vector<Word>(part.begin(), part.end()));
    // Every vertex to its part's coordinator: {part, id, m, m x (neighbor, weight),
    // m, m x the neighbor's part}.
    for (std::size_t i = 0; i < n; ++i) {
      auto& out = exchange.to(graph.blocks.owner(part[i]));
      out.insert(out.end(), {part[i], graph.ids[i], static_cast<Word>(graph.offsets[i + 1] - graph.offsets[i])});
      for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) {
        out.insert(out.end(), {graph.targets[e], graph.weights[e]});
      }
      out.push_back(static_cast<Word>(graph.offsets[i + 1] - graph.offsets[i]));
      for (std::size_t e = graph.offsets[i]; e < graph.offsets[i + 1]; ++e) out.push_back(neighbor_part[e]);
    }
    std::map<int, std::vector<Member>> members;   // by coordinated part
    std::map<int, std::map<int, Word>> adjacent;  // part -> the parts its members touch
    exchange.deliver([&](std::span<const Word> words) {
      for (RecordReader in(words); in.more();) {
        Member m;
        m.part = in.next_int();
        m.id = in.next_int();
        read_entries(in, m.neighbors);
        for (Word d = in.next(); d > 0; --d) {
          const int other = in.next_int();
          if (other != m.part) adjacent[m.part][other] = 1;  // any adjacent parts: the salt picks
        }
        members[m.part].push_back(std::move(m));
      }
    });

    // Groups of up to 2^kGroupDepth adjacent parts: the quotient graph (held
    // by the coordinators) matched and contracted kGroupDepth times; a
    // group's id is its lowest part, whose coordinator splits it.
    std::vector<Level> levels(1);
    levels[0].graph.blocks = graph.blocks;
    levels[0].graph.offsets.push_back(0);
    for (const auto& [p, list] : members) {
      append_vertex(levels[0].graph, p, {adjacent[p].begin(), adjacent[p].end()});
    }
    levels[0].size.assign(levels[0].graph.ids.size(), 1);
    levels[0].partner.assign(levels[0].graph.ids.size(), -1);
    for (int d = 0; d < kGroupDepth; ++d) {
      const Level& top = levels.back();
      const auto salt = mix(static_cast<std::uint64_t>(round) * kGroupDepth + static_cast<std::uint64_t>(d) + 1);
      const std::vector<int> partner = heavy_edge_matching(exchange, top.graph, top.size, Word{2} << d, salt);
      levels.push_back(contract(exchange, top, partner));
    }
    std::vector<Word> group(levels.back().graph.ids.begin(), levels.back().graph.ids.end());
    for (std::size_t l = levels.size() - 1; l > 0; --l)
      group = project_labels(exchange, levels[l], levels[l - 1], group);

    // {group, id, part, m, m x (neighbor, weight)} to the group's coordinator.
    for (std::size_t q = 0; q < group.size(); ++q) {
      const int p = levels[0].graph.ids[q];
      auto& out = exchange.to(graph.blocks.owner(static_cast<int>(group[q])));
      for (const Member& m : members[p]) {
        out.insert(out.end(), {group[q], m.id, p, static_cast<Word>(m.neighbors.size())});
        for (const auto& [u, w] : m.neighbors) out.insert(out.end(), {u, w});
      }
    }
    std::map<int, std::vector<Member>> groups;
    exchange.deliver([&](std::span<const Word> words) {
      for (RecordReader in(words); in.more();) {
        const int g = in.next_int();
        Member m;
        m.id = in.next_int();
        m.part = in.next_int();
        read_entries(in, m.neighbors);
        groups[g].push_back(std::move(m));
      }
    });

    int improved = 0;
    for (auto& entry : groups) {
      // A named reference, not a structured binding: lambdas below capture it.
      std::vector<Member>& all = entry.second;
      std::sort(all.begin(), all.end(), [](const Member& a, const Member& b) { return a.id < b.id; });
      std::vector<int> parts_here;
      for (const Member& m : all) parts_here.push_back(m.part);
      std::sort(parts_here.begin(), parts_here.end());
      parts_here.erase(std::unique(parts_here.begin(), parts_here.end()), parts_here.end());
      if (parts_here.size() < 2) continue;
      const auto local_part = [&](int p) {
        return static_cast<int>(std::lower_bound(parts_here.begin(), parts_here.end(), p) - parts_here.begin());
      };
      const auto local = [&](int id) {
        const auto it =
            std::lower_bound(all.begin(), all.end(), id, [](const Member& m, int key) { return m.id < key; });
        return it != all.end() && it->id == id ? static_cast<int>(it - all.begin()) : -1;
      };
      std::vector<DirectedEdge> edges;
      std::vector<int> now(all.size());
      std::vector<int> capacities(parts_here.size(), 0);
      for (std::size_t v = 0; v < all.size(); ++v) {
        now[v] = local_part(all[v].part);
        ++capacities[static_cast<std::size_t>(now[v])];
        for (const auto& [u, w] : all[v].neighbors) {
          if (const int j = local(u); j >= 0) edges.push_back({static_cast<int>(v), j, w});
        }
      }
      const UndirectedGraph group_graph = partitioner_graph(static_cast<int>(all.size()), edges);
      const std::vector<int> split = partition_exact(group_graph, capacities, effort);
      if (cut_weight(group_graph, split) >= cut_weight(group_graph, now)) continue;
      improved = 1;
      for (std::size_t v = 0; v < all.size(); ++v) {
        if (split[v] == now[v]) continue;
        exchange.post(graph.blocks.owner(all[v].id), {all[v].id, parts_here[static_cast<std::size_t>(split[v])]});
      }
    }
    idle = deliver_moves(exchange, graph, part, improved) != 0 ? 0 : idle + 1;
    if (idle == kStaleRounds) break;  // other groupings found nothing either
  }
  return part;
}

}  // namespace distopo::detail
