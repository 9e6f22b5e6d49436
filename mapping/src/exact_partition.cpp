#include "exact_partition.hpp"

#include <metis.h>

#include <algorithm>
#include <numeric>
#include <tuple>

namespace distopo::detail {
namespace {

static_assert(sizeof(idx_t) == sizeof(int), "Debian's METIS uses 32-bit indices");

// Weights to part ids of one vertex's neighbors: a dense row over the parts
// plus the list of parts touched, so a vertex costs O(degree).
class PartConnections {
 public:
  explicit PartConnections(int parts) : weight_(static_cast<std::size_t>(parts), 0) {}

  void gather(const UndirectedGraph& graph, std::span<const int> part, int v) {
    for (const int p : touched_) weight_[static_cast<std::size_t>(p)] = 0;
    touched_.clear();
    for (int e = graph.offsets[static_cast<std::size_t>(v)]; e < graph.offsets[static_cast<std::size_t>(v) + 1]; ++e) {
      const int p = part[static_cast<std::size_t>(graph.targets[static_cast<std::size_t>(e)])];
      if (weight_[static_cast<std::size_t>(p)] == 0) touched_.push_back(p);
      weight_[static_cast<std::size_t>(p)] += graph.weights[static_cast<std::size_t>(e)];
    }
  }
  [[nodiscard]] std::int64_t to(int p) const { return weight_[static_cast<std::size_t>(p)]; }
  [[nodiscard]] std::span<const int> parts() const { return touched_; }

 private:
  std::vector<std::int64_t> weight_;
  std::vector<int> touched_;
};

enum class Method { kway, recursive_bisection };

// METIS' proposal: nearly the capacities (its balance is approximate).
// Empty when METIS fails.
// `vertex_weights` may be empty (every vertex weighs 1). `ufactor`: METIS'
// allowed imbalance in tenths of a percent.
std::vector<int> metis_proposal(const UndirectedGraph& graph, std::span<const int> vertex_weights,
                                std::span<const int> capacities, Method method, int cuts, int ufactor = 30) {
  idx_t n = graph.vertex_count();
  idx_t constraints = 1;
  idx_t parts = static_cast<idx_t>(capacities.size());
  const double total = std::accumulate(capacities.begin(), capacities.end(), 0.0);
  std::vector<real_t> targets(capacities.size());
  for (std::size_t i = 0; i < capacities.size(); ++i) {
    targets[i] = static_cast<real_t>(capacities[i] / total);
  }
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_NCUTS] = cuts;
  // 3 % imbalance: the freedom gives METIS lower cuts than a tight bound, and
  // the balancing pass that follows moves only the few vertices in excess.
  options[METIS_OPTION_UFACTOR] = ufactor;
  // METIS takes non-const pointers but does not write the graph.
  auto* offsets = const_cast<idx_t*>(graph.offsets.data());
  auto* targets_of = const_cast<idx_t*>(graph.targets.data());
  auto* weights = const_cast<idx_t*>(graph.weights.data());
  auto* sizes = vertex_weights.empty() ? nullptr : const_cast<idx_t*>(vertex_weights.data());
  idx_t cut = 0;
  std::vector<idx_t> part(static_cast<std::size_t>(n), 0);
  const int status = method == Method::kway
                         ? METIS_PartGraphKway(&n, &constraints, offsets, targets_of, sizes, nullptr, weights, &parts,
                                               targets.data(), nullptr, options, &cut, part.data())
                         : METIS_PartGraphRecursive(&n, &constraints, offsets, targets_of, sizes, nullptr, weights,
                                                    &parts, targets.data(), nullptr, options, &cut, part.data());
  if (status != METIS_OK) return {};
  return part;
}

// `part` (METIS' proposal, or all in part 0 when it failed) made exact: moves
// out of parts above their capacity, each to the part under capacity it is
// most connected to (or the first one with room), best gain first, the share
// moved what the source has too much and the target too little (so a vertex
// may be split); on return part[v] is where most of v is.
std::vector<std::vector<Share>> exact_shares(const UndirectedGraph& graph, std::span<const int> vertex_weights,
                                             std::span<const int> capacities, std::vector<int>& part) {
  const auto n = static_cast<std::size_t>(graph.vertex_count());
  if (part.empty()) part.assign(n, 0);
  std::vector<std::vector<Share>> shares(n);
  std::vector<std::int64_t> load(capacities.size(), 0);
  for (std::size_t v = 0; v < n; ++v) {
    shares[v].push_back({part[v], vertex_weights[v]});
    load[static_cast<std::size_t>(part[v])] += vertex_weights[v];
  }
  const auto excess = [&](int p) {
    return load[static_cast<std::size_t>(p)] - capacities[static_cast<std::size_t>(p)];
  };

  PartConnections connections(static_cast<int>(capacities.size()));
  struct Move {
    std::int64_t gain;
    int vertex;
    int source;
    int target;
  };
  for (;;) {
    std::vector<int> with_room;
    for (int p = 0; p < static_cast<int>(capacities.size()); ++p) {
      if (excess(p) < 0) with_room.push_back(p);
    }
    if (with_room.empty()) break;
    std::vector<Move> moves;
    for (std::size_t v = 0; v < n; ++v) {
      if (std::none_of(shares[v].begin(), shares[v].end(), [&](const Share& s) { return excess(s.part) > 0; })) {
        continue;
      }
      connections.gather(graph, part, static_cast<int>(v));
      for (const Share& share : shares[v]) {
        if (excess(share.part) <= 0) continue;
        Move best{-connections.to(share.part), static_cast<int>(v), share.part, with_room.front()};
        for (const int p : connections.parts()) {
          const std::int64_t gain = connections.to(p) - connections.to(share.part);
          if (excess(p) < 0 && (gain > best.gain || (gain == best.gain && p < best.target))) {
            best = {gain, static_cast<int>(v), share.part, p};
          }
        }
        moves.push_back(best);
      }
    }
    std::stable_sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) { return a.gain > b.gain; });
    for (const Move& move : moves) {
      auto& own = shares[static_cast<std::size_t>(move.vertex)];
      const auto from = std::find_if(own.begin(), own.end(), [&](const Share& s) { return s.part == move.source; });
      if (from == own.end()) continue;  // given away earlier in this round
      const std::int64_t amount = std::min({from->count, excess(move.source), -excess(move.target)});
      if (amount <= 0) continue;  // stale: the next round looks again
      from->count -= amount;
      load[static_cast<std::size_t>(move.source)] -= amount;
      load[static_cast<std::size_t>(move.target)] += amount;
      const auto to = std::find_if(own.begin(), own.end(), [&](const Share& s) { return s.part == move.target; });
      if (to != own.end()) {
        to->count += amount;
      } else {
        own.push_back({move.target, amount});
      }
      std::erase_if(own, [](const Share& s) { return s.count == 0; });
      // A vertex counts as being where most of it is.
      part[static_cast<std::size_t>(move.vertex)] =
          std::max_element(own.begin(), own.end(), [](const Share& a, const Share& b) {
            return a.count < b.count;
          })->part;
    }
  }
  return shares;
}

// Every vertex weighs 1, so every share moves whole: exact sizes, no splits.
void balance_exactly(const UndirectedGraph& graph, std::span<const int> capacities, std::vector<int>& part) {
  const std::vector<int> unit(part.size(), 1);
  exact_shares(graph, unit, capacities, part);
}

std::int64_t weight_between(const UndirectedGraph& graph, int a, int b) {
  std::int64_t weight = 0;
  for (int e = graph.offsets[static_cast<std::size_t>(a)]; e < graph.offsets[static_cast<std::size_t>(a) + 1]; ++e) {
    if (graph.targets[static_cast<std::size_t>(e)] == b) weight += graph.weights[static_cast<std::size_t>(e)];
  }
  return weight;
}

// Swaps pairs of vertices between two parts while a swap lowers the cut, so
// every part keeps its size. Returns the cut reduction of the pass (one
// direction of each pair).
std::int64_t refine_by_swaps(const UndirectedGraph& graph, int parts, std::vector<int>& part) {
  PartConnections connections(parts);
  struct Candidate {
    int from;
    int to;
    std::int64_t gain;
    int vertex;
  };
  std::vector<Candidate> candidates;
  for (int v = 0; v < graph.vertex_count(); ++v) {
    const int own = part[static_cast<std::size_t>(v)];
    connections.gather(graph, part, v);
    for (const int p : connections.parts()) {
      if (p != own) candidates.push_back({own, p, connections.to(p) - connections.to(own), v});
    }
  }
  // Grouped by (from, to), best gain first.
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.from, a.to, b.gain, a.vertex) < std::tie(b.from, b.to, a.gain, b.vertex);
  });
  const auto group = [&](int from, int to) {
    const auto key = [](const Candidate& c) { return std::pair(c.from, c.to); };
    const auto first = std::lower_bound(candidates.begin(), candidates.end(), std::pair(from, to),
                                        [&](const Candidate& c, std::pair<int, int> k) { return key(c) < k; });
    auto last = first;
    while (last != candidates.end() && key(*last) == std::pair(from, to)) ++last;
    return std::span<const Candidate>(first, last);
  };
  const auto gain_now = [&](int v, int target) {
    connections.gather(graph, part, v);
    return connections.to(target) - connections.to(part[static_cast<std::size_t>(v)]);
  };

  std::vector<char> moved(static_cast<std::size_t>(graph.vertex_count()), 0);
  std::int64_t total = 0;
  for (std::size_t first = 0; first < candidates.size();) {
    const int a_part = candidates[first].from;
    const int b_part = candidates[first].to;
    std::size_t next = first;
    while (next < candidates.size() && candidates[next].from == a_part && candidates[next].to == b_part) ++next;
    if (a_part < b_part) {
      const std::span<const Candidate> forward(candidates.data() + first, next - first);
      const std::span<const Candidate> backward = group(b_part, a_part);
      std::size_t i = 0;
      std::size_t j = 0;
      while (i < forward.size() && j < backward.size()) {
        const Candidate& a = forward[i];
        const Candidate& b = backward[j];
        if (a.gain + b.gain <= 0) break;
        if (moved[static_cast<std::size_t>(a.vertex)] || part[static_cast<std::size_t>(a.vertex)] != a_part) {
          ++i;
          continue;
        }
        if (moved[static_cast<std::size_t>(b.vertex)] || part[static_cast<std::size_t>(b.vertex)] != b_part) {
          ++j;
          continue;
        }
        const std::int64_t gain =
            gain_now(a.vertex, b_part) + gain_now(b.vertex, a_part) - 2 * weight_between(graph, a.vertex, b.vertex);
        if (gain > 0) {
          part[static_cast<std::size_t>(a.vertex)] = b_part;
          part[static_cast<std::size_t>(b.vertex)] = a_part;
          moved[static_cast<std::size_t>(a.vertex)] = moved[static_cast<std::size_t>(b.vertex)] = 1;
          total += gain;
          ++i;
          ++j;
        } else if (a.gain <= b.gain) {
          ++i;
        } else {
          ++j;
        }
      }
    }
    first = next;
  }
  return total;
}

struct EffortPlan {
  std::vector<Method> methods;
  int cuts;
  int refinement_passes;
};

EffortPlan plan_for(PartitionEffort effort, int vertices) {
  // Recursive bisection with the best of several cuts gave the lowest
  // crossing on every benchmark family; above 16384 vertices two cuts keep
  // the time near the goal of docs/design/reorder.md.
  switch (effort) {
    case PartitionEffort::fast:
      return {{Method::recursive_bisection}, 1, 2};
    case PartitionEffort::balanced:
      return {{Method::recursive_bisection}, vertices <= 16384 ? 4 : 2, 8};
    case PartitionEffort::thorough:
      break;
  }
  return {{Method::recursive_bisection, Method::kway}, 8, 32};
}

}  // namespace

UndirectedGraph partitioner_graph(int n, std::span<const DirectedEdge> edges) {
  std::vector<std::tuple<int, int, std::int64_t>> pairs;
  pairs.reserve(2 * edges.size());
  for (const DirectedEdge& edge : edges) {
    if (edge.source == edge.destination || edge.weight <= 0) continue;
    pairs.emplace_back(edge.source, edge.destination, edge.weight);
    pairs.emplace_back(edge.destination, edge.source, edge.weight);
  }
  std::sort(pairs.begin(), pairs.end());
  // Merge parallel pairs.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (kept > 0 && std::get<0>(pairs[kept - 1]) == std::get<0>(pairs[i]) &&
        std::get<1>(pairs[kept - 1]) == std::get<1>(pairs[i])) {
      std::get<2>(pairs[kept - 1]) += std::get<2>(pairs[i]);
    } else {
      pairs[kept++] = pairs[i];
    }
  }
  pairs.resize(kept);
  // METIS sums weights in 32-bit integers.
  const std::int64_t total =
      std::accumulate(pairs.begin(), pairs.end(), std::int64_t{0},
                      [](std::int64_t sum, const auto& pair) { return sum + std::get<2>(pair); });
  constexpr std::int64_t kLimit = std::int64_t{1} << 30;
  const std::int64_t divisor = total > kLimit ? (total + kLimit - 1) / kLimit : 1;

  UndirectedGraph graph;
  graph.offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  graph.targets.reserve(pairs.size());
  graph.weights.reserve(pairs.size());
  for (const auto& [u, v, w] : pairs) {
    ++graph.offsets[static_cast<std::size_t>(u) + 1];
    graph.targets.push_back(v);
    graph.weights.push_back(static_cast<int>(std::max<std::int64_t>(1, w / divisor)));
  }
  std::partial_sum(graph.offsets.begin(), graph.offsets.end(), graph.offsets.begin());
  return graph;
}

std::vector<int> blocks_in_order(std::span<const int> capacities, std::size_t n) {
  std::vector<int> part;
  part.reserve(n);
  for (std::size_t p = 0; p < capacities.size() && part.size() < n; ++p) {
    part.insert(part.end(), std::min(static_cast<std::size_t>(capacities[p]), n - part.size()), static_cast<int>(p));
  }
  part.resize(n, capacities.empty() ? 0 : static_cast<int>(capacities.size()) - 1);
  return part;
}

std::vector<int> bisection_proposal(const UndirectedGraph& graph, std::span<const int> capacities, int cuts,
                                    int ufactor) {
  return metis_proposal(graph, {}, capacities, Method::recursive_bisection, cuts, ufactor);
}

void finish_exact(const UndirectedGraph& graph, std::span<const int> capacities, std::vector<int>& part,
                  PartitionEffort effort) {
  if (part.empty()) part = blocks_in_order(capacities, static_cast<std::size_t>(graph.vertex_count()));
  balance_exactly(graph, capacities, part);
  const EffortPlan plan = plan_for(effort, graph.vertex_count());
  for (int pass = 0; pass < plan.refinement_passes; ++pass) {
    if (refine_by_swaps(graph, static_cast<int>(capacities.size()), part) == 0) break;
  }
}

std::vector<int> partition_exact(const UndirectedGraph& graph, std::span<const int> capacities,
                                 PartitionEffort effort) {
  const int parts = static_cast<int>(capacities.size());
  if (parts <= 1) return std::vector<int>(static_cast<std::size_t>(graph.vertex_count()), 0);
  const EffortPlan plan = plan_for(effort, graph.vertex_count());
  std::vector<int> best;
  std::int64_t best_cut = 0;
  for (const Method method : plan.methods) {
    std::vector<int> part = metis_proposal(graph, {}, capacities, method, plan.cuts);
    finish_exact(graph, capacities, part, effort);
    const std::int64_t cut = cut_weight(graph, part);
    if (best.empty() || cut < best_cut) {
      best = std::move(part);
      best_cut = cut;
    }
  }
  return best;
}

std::vector<std::vector<Share>> partition_into_shares(const UndirectedGraph& graph, std::span<const int> vertex_weights,
                                                      std::span<const int> capacities) {
  const auto n = static_cast<std::size_t>(graph.vertex_count());
  if (capacities.size() <= 1) {
    std::vector<int> part(n, 0);
    return exact_shares(graph, vertex_weights, capacities, part);
  }
  // One METIS recursive bisection: it runs on rank 0 while every other rank
  // waits, and k-way or more tries gave no lower final cut for up to 13x the
  // time (docs/design/reorder.md).
  std::vector<int> part = metis_proposal(graph, vertex_weights, capacities, Method::recursive_bisection, 1);
  return exact_shares(graph, vertex_weights, capacities, part);
}

std::int64_t cut_weight(const UndirectedGraph& graph, std::span<const int> part) {
  std::int64_t cut = 0;
  for (int v = 0; v < graph.vertex_count(); ++v) {
    for (int e = graph.offsets[static_cast<std::size_t>(v)]; e < graph.offsets[static_cast<std::size_t>(v) + 1]; ++e) {
      if (part[static_cast<std::size_t>(graph.targets[static_cast<std::size_t>(e)])] !=
          part[static_cast<std::size_t>(v)]) {
        cut += graph.weights[static_cast<std::size_t>(e)];
      }
    }
  }
  return cut;
}

}  // namespace distopo::detail
