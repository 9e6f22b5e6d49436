#include "held_graph.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "distopo/core/error.hpp"

namespace distopo::detail {
namespace {

constexpr int kMatchingRounds = 6;

}  // namespace

std::size_t index_of(const HeldGraph& graph, int id) {
  return static_cast<std::size_t>(std::lower_bound(graph.ids.begin(), graph.ids.end(), id) - graph.ids.begin());
}

std::size_t entry_of(const HeldGraph& graph, std::size_t i, int neighbor) {
  const auto first = graph.targets.begin() + static_cast<std::ptrdiff_t>(graph.offsets[i]);
  const auto last = graph.targets.begin() + static_cast<std::ptrdiff_t>(graph.offsets[i + 1]);
  return static_cast<std::size_t>(std::lower_bound(first, last, neighbor) - graph.targets.begin());
}

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

void read_entries(RecordReader& in, std::vector<std::pair<int, Word>>& entries) {
  for (Word m = in.next(); m > 0; --m) {
    const int target = in.next_int();
    entries.emplace_back(target, in.next());
  }
}

void append_vertex(HeldGraph& graph, int id, const std::vector<std::pair<int, Word>>& entries) {
  graph.ids.push_back(id);
  for (const auto& [target, weight] : entries) {
    graph.targets.push_back(target);
    graph.weights.push_back(weight);
  }
  graph.offsets.push_back(graph.targets.size());
}

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::vector<int> heavy_edge_matching(RecordExchange& exchange, const HeldGraph& graph, std::span<const Word> size,
                                     Word size_cap, std::uint64_t salt) {
  const std::size_t n = graph.ids.size();
  const std::vector<Word> neighbor_size = neighbor_values(exchange, graph, size);
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
        if (taken[e] || size[i] + neighbor_size[e] > size_cap) continue;
        const int t = graph.targets[e];
        const double rating = static_cast<double>(graph.weights[e]) /
                              (static_cast<double>(size[i]) * static_cast<double>(neighbor_size[e]));
        const auto pair =
            (static_cast<std::uint64_t>(std::min(id, t)) << 32) | static_cast<std::uint32_t>(std::max(id, t));
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

Level contract(RecordExchange& exchange, const Level& fine, const std::vector<int>& partner) {
  const HeldGraph& graph = fine.graph;
  const std::size_t n = graph.ids.size();
  std::vector<Word> coarse_id(n);
  for (std::size_t i = 0; i < n; ++i)
    coarse_id[i] = partner[i] >= 0 ? std::min(graph.ids[i], partner[i]) : graph.ids[i];
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
      read_entries(in, merged_in[representative]);
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

std::vector<Word> project_labels(RecordExchange& exchange, const Level& coarse, const Level& fine,
                                 std::span<const Word> coarse_labels) {
  std::vector<Word> labels(fine.graph.ids.size(), 0);
  for (std::size_t i = 0; i < coarse.graph.ids.size(); ++i) {
    labels[index_of(fine.graph, coarse.graph.ids[i])] = coarse_labels[i];
    if (coarse.partner[i] >= 0) {
      exchange.post(fine.graph.blocks.owner(coarse.partner[i]), {coarse.partner[i], coarse_labels[i]});
    }
  }
  exchange.deliver([&](std::span<const Word> words) {
    for (RecordReader in(words); in.more();) {
      const std::size_t i = index_of(fine.graph, in.next_int());
      labels[i] = in.next();
    }
  });
  return labels;
}

}  // namespace distopo::detail
