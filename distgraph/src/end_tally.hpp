#pragma once
// Repeated edges sent once each with their multiplicity. A heavy graph on few
// ranks is a multigraph: 10^6 edges per rank among 16 ranks with a handful of
// weights (or MPI_UNWEIGHTED) repeat every edge thousands of times, and each
// copy's two ends would be written, sent, received and counted. When a
// rank's distinct edges are few, each end goes out once as a run of one
// weight with its count (end_messages.hpp). The edges of large sparse graphs
// rarely repeat: there the tally gives up after a bounded number of distinct
// edges.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "end_messages.hpp"

namespace distopo::detail {

// A run and the rank that stores it.
struct OwnedRun {
  int owner;
  RunHeader run;
};

class EndTally {
 public:
  // The edges looked at, at most, before the tally decides whether the input
  // repeats.
  static constexpr std::size_t kProbeEdges = 4096;

  // Counts the distinct edges (source, destination, weight) that
  // `input.for_each` visits, or nullopt when there are more than
  // `max_distinct`: the walk stops there, so giving up costs at most that many
  // table insertions. One lookup per edge, not per end: distinct edges have
  // distinct ends.
  // It also gives up when more than half of the first `probe` edges are
  // distinct: then the input barely repeats, and walking on until
  // `max_distinct` would cost that many insertions for nothing.
  template <class Input>
  static std::optional<EndTally> of(const Input& input, std::size_t max_distinct, std::size_t probe = kProbeEdges) {
    if (max_distinct == 0) return std::nullopt;
    Table table(probe);
    bool gave_up = false;
    input.for_each([&](int source, int destination, int weight) {
      if (table.add({source, destination, weight}, max_distinct)) return true;
      gave_up = true;
      return false;
    });
    if (gave_up) return std::nullopt;
    return EndTally(std::move(table));
  }

  // Both ends of every distinct edge as runs (unweighted: weight 0), by
  // owner (in the table's order within one, which depends on the input only).
  // Throws std::bad_alloc.
  [[nodiscard]] std::vector<OwnedRun> runs(bool weighted) const {
    std::vector<OwnedRun> runs;
    runs.reserve(2 * table_.distinct());
    for (const Table::Entry& entry : table_.entries()) {
      if (entry.count == 0) continue;
      const Edge& edge = entry.edge;
      const auto count = static_cast<std::int32_t>(entry.count);  // at most the input's edges
      const std::int32_t weight = weighted ? edge.weight : 0;
      runs.push_back({edge.source, {direction_rank(true, edge.destination), count, weight}});
      runs.push_back({edge.destination, {direction_rank(false, edge.source), count, weight}});
    }
    std::stable_sort(runs.begin(), runs.end(), [](const OwnedRun& a, const OwnedRun& b) { return a.owner < b.owner; });
    return runs;
  }

 private:
  struct Edge {
    int source;
    int destination;
    int weight;
    friend bool operator==(const Edge&, const Edge&) = default;
  };

  // Open addressing on the edge, probed linearly; at most half full.
  class Table {
   public:
    struct Entry {
      Edge edge{};
      std::uint64_t count = 0;  // 0: free
    };

    explicit Table(std::size_t probe) : probe_(probe) {}

    // False when `edge` is new and `max_distinct` edges are counted already,
    // or it would be the (probe / 2 + 1)-th distinct edge among the first
    // `probe`. That is checked only when it is inserted (the edges
    // seen so far are summed once), so a repeating input pays nothing for it.
    bool add(const Edge& edge, std::size_t max_distinct) {
      Entry* entry = find(edge);
      if (entry->count > 0) {
        ++entry->count;
        return true;
      }
      if (distinct_ == max_distinct || (distinct_ == probe_ / 2 && seen() < probe_)) return false;
      if (2 * (distinct_ + 1) > entries_.size()) {
        grow();
        entry = find(edge);
      }
      *entry = {edge, 1};
      ++distinct_;
      return true;
    }

    [[nodiscard]] const std::vector<Entry>& entries() const { return entries_; }
    [[nodiscard]] std::size_t distinct() const { return distinct_; }

   private:
    // The edges added so far.
    [[nodiscard]] std::uint64_t seen() const {
      std::uint64_t edges = 0;
      for (const Entry& entry : entries_) edges += entry.count;
      return edges;
    }

    Entry* find(const Edge& edge) {
      const std::size_t mask = entries_.size() - 1;
      std::uint64_t mixed =
          (static_cast<std::uint64_t>(static_cast<std::uint32_t>(edge.destination)) << 32 |
           static_cast<std::uint32_t>(edge.weight)) ^
          (static_cast<std::uint64_t>(static_cast<std::uint32_t>(edge.source)) * 0x9E3779B97F4A7C15ULL);
      mixed *= 0xBF58476D1CE4E5B9ULL;
      std::size_t i = mixed >> shift_;
      while (entries_[i].count > 0 && !(entries_[i].edge == edge)) i = (i + 1) & mask;
      return &entries_[i];
    }

    void grow() {
      std::vector<Entry> old = std::exchange(entries_, std::vector<Entry>(2 * entries_.size()));
      shift_ -= 1;
      for (const Entry& entry : old) {
        if (entry.count > 0) *find(entry.edge) = entry;
      }
    }

    static constexpr unsigned kInitialBits = 8;
    std::vector<Entry> entries_ = std::vector<Entry>(std::size_t{1} << kInitialBits);
    unsigned shift_ = 64 - kInitialBits;
    std::size_t distinct_ = 0;
    std::size_t probe_;
  };

  explicit EndTally(Table table) : table_(std::move(table)) {}

  Table table_;
};

}  // namespace distopo::detail
