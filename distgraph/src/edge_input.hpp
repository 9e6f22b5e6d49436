#pragma once
// How edges reach the distributed-graph constructors, each input checked
// locally with the same checks and messages: dist_graph_create's standard
// arrays (ArrayEdges) or list of Edge (ListEdges), and one direction of
// dist_graph_create_adjacent's lists (AdjacentSide). validate() returns the
// first bad value; for_each(visit) visits (source, destination, weight) of
// valid input until visit returns false.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "distopo/core/error.hpp"
#include "distopo/distgraph.hpp"
#include "distopo/distgraph/edge_key.hpp"

namespace distopo::detail {

inline constexpr const char* kCreate = "dist_graph_create";
inline constexpr const char* kCreateAdjacent = "dist_graph_create_adjacent";
// The info key of dist_graph_create_adjacent (docs/guide/configuration.md).
inline constexpr const char* kCheckAdjacentKey = "distopo_check_adjacent";

using Check = std::optional<LocalError>;

// "name[index] = value" ("name = value" when index < 0): how every message
// about one input value begins.
inline std::string value_text(const char* name, std::int64_t index, int value) {
  return std::string(name) + (index < 0 ? "" : "[" + std::to_string(index) + "]") + " = " + std::to_string(value);
}

inline Check check_rank(const char* caller, const char* name, std::int64_t index, int value, int rank, int size) {
  if (value >= 0 && value < size) return std::nullopt;
  return rank_error(
      MPI_ERR_RANK, caller, rank,
      value_text(name, index, value) + " is not a rank of the communicator (size " + std::to_string(size) + ")");
}

inline Check check_weight(const char* caller, const char* name, std::int64_t index, int value, int rank) {
  if (value >= 0) return std::nullopt;
  return rank_error(MPI_ERR_ARG, caller, rank,
                    value_text(name, index, value) + " is negative; weights must be non-negative");
}

inline Check check_degree(const char* caller, const char* name, std::int64_t index, int value, int rank) {
  if (value >= 0) return std::nullopt;
  return rank_error(MPI_ERR_ARG, caller, rank, value_text(name, index, value) + " is negative");
}

// The least and greatest of `count` ints at `values` (count > 0), and their
// sum: vectorized, with a clone for AVX2 chosen at load time (baseline
// x86-64 has no 32-bit integer min/max in its vector instructions).
std::pair<int, int> range_of(const int* values, std::int64_t count);
std::int64_t sum_of(const int* values, std::int64_t count);

// The least and greatest of `count` values (count > 0), in one pass without
// early exits.
template <class Value>
std::pair<int, int> min_max(std::int64_t count, Value value) {
  int min = INT_MAX;
  int max = INT_MIN;
  for (std::int64_t i = 0; i < count; ++i) {
    min = std::min(min, value(i));
    max = std::max(max, value(i));
  }
  return {min, max};
}

// The ranks [low, high] that an input names (as sources or destinations).
struct RankRange {
  int low;
  int high;
  static RankRange of(std::pair<int, int> min_max) { return {min_max.first, min_max.second}; }
  [[nodiscard]] RankRange with(std::pair<int, int> more) const {
    return {std::min(low, more.first), std::max(high, more.second)};
  }
  [[nodiscard]] bool within(int first, int last) const { return low >= first && high <= last; }
  [[nodiscard]] std::size_t size() const { return static_cast<std::size_t>(static_cast<std::int64_t>(high) - low) + 1; }
};

// What validating an input learns on the way, for the steps after it.
struct InputExtent {
  std::int64_t edges = 0;
  std::int64_t entries = 0;               // source entries (each edge its own in an edge list)
  std::optional<RankRange> ranks;         // the ranks named; nullopt when none is
  std::optional<RankRange> sources;       // the sources of the edges; nullopt without edges
  std::optional<RankRange> destinations;  // their destinations
  std::pair<int, int> weights{0, 0};      // least and greatest weight (weighted, with edges)
  bool single_edge_entries = false;       // every source entry holds one edge

  // Whether every edge has `rank` as its source (or, with `destination`, as
  // its destination).
  [[nodiscard]] bool all_edges_at(int rank, bool destination) const {
    const std::optional<RankRange>& ends = destination ? destinations : sources;
    return edges > 0 && ends && ends->low == rank && ends->high == rank;
  }
};

// The standard's (n, sources, degrees, destinations, weights).
class ArrayEdges {
 public:
  ArrayEdges(int n, const int* sources, const int* degrees, const int* destinations, const int* weights, bool weighted)
      : n_(n),
        sources_(sources),
        degrees_(degrees),
        destinations_(destinations),
        weights_(weights),
        weighted_(weighted) {}

  // `extent`: what valid input holds (filled as far as validation got).
  [[nodiscard]] Check validate(int rank, int size, InputExtent& extent) const {
    if (Check error = check_degree(kCreate, "n", -1, n_, rank)) return error;
    if (n_ > 0 && (sources_ == nullptr || degrees_ == nullptr)) {
      return rank_error(MPI_ERR_ARG, kCreate, rank, "sources or degrees is NULL with n = " + std::to_string(n_));
    }
    std::int64_t& total = extent.edges;
    std::optional<RankRange>& ranks = extent.ranks;
    total = 0;
    extent.entries = n_;
    if (n_ > 0) ranks = RankRange::of(range_of(sources_, n_));
    const std::pair<int, int> degree_range = n_ > 0 ? range_of(degrees_, n_) : std::pair{0, 0};
    const bool sources_valid = (n_ == 0 || ranks->within(0, size - 1)) && degree_range.first >= 0;
    if (sources_valid) total = sum_of(degrees_, n_);  // n ints cannot overflow 64 bits
    if (!sources_valid || total > INT_MAX) {
      total = 0;
      for (int i = 0; i < n_; ++i) {
        if (Check error = check_rank(kCreate, "sources", i, sources_[i], rank, size)) return error;
        if (Check error = check_degree(kCreate, "degrees", i, degrees_[i], rank)) return error;
        total += degrees_[i];
        if (total > INT_MAX) {
          return rank_error(MPI_ERR_ARG, kCreate, rank,
                            "the degrees sum to more than INT_MAX (at degrees[" + std::to_string(i) + "])");
        }
      }
    }
    if (total > 0 && (destinations_ == nullptr || (weighted_ && weights_ == nullptr))) {
      return rank_error(MPI_ERR_ARG, kCreate, rank,
                        "destinations or weights is NULL with " + std::to_string(total) + " edges");
    }
    extent.single_edge_entries = n_ > 0 && degree_range == std::pair{1, 1};
    if (total > 0) {
      extent.destinations = RankRange::of(range_of(destinations_, total));
      extent.sources = degree_range.first > 0 ? ranks : sources_of_edges();
      ranks = ranks->with({extent.destinations->low, extent.destinations->high});
      if (weighted_) extent.weights = range_of(weights_, total);
    }
    const bool weights_valid = !weighted_ || total == 0 || extent.weights.first >= 0;
    if ((!ranks || ranks->within(0, size - 1)) && weights_valid) return std::nullopt;
    for (std::int64_t j = 0; j < total; ++j) {
      if (Check error = check_rank(kCreate, "destinations", j, destinations_[j], rank, size)) return error;
      if (!weighted_) continue;
      if (Check error = check_weight(kCreate, "weights", j, weights_[j], rank)) return error;
    }
    return std::nullopt;
  }

  template <class Visit>
  void for_each(Visit&& visit) const {
    std::int64_t j = 0;
    for (int i = 0; i < n_; ++i) {
      const int source = sources_[i];
      for (int k = 0; k < degrees_[i]; ++k, ++j) {
        if (!visit(source, destinations_[j], weighted_ ? weights_[j] : 1)) return;
      }
    }
  }

  // visit(source, destination, weight) per edge of valid input, in order
  // (weight 1 when unweighted): one loop over the arrays where each entry
  // holds one edge (`extent` from validation), not one loop per entry.
  template <class Visit>
  void for_each_edge(const InputExtent& extent, Visit&& visit) const {
    if (!extent.single_edge_entries) {
      for_each([&](int source, int destination, int weight) {
        visit(source, destination, weight);
        return true;
      });
      return;
    }
    for (int i = 0; i < n_; ++i) visit(sources_[i], destinations_[i], weighted_ ? weights_[i] : 1);
  }

  // visit(source, destinations, weights) per source entry of valid input;
  // weights: null when unweighted.
  template <class Visit>
  void for_each_source(Visit&& visit) const {
    std::int64_t j = 0;
    for (int i = 0; i < n_; ++i) {
      const auto degree = static_cast<std::size_t>(degrees_[i]);
      visit(sources_[i], std::span<const int>(destinations_ + j, degree), weighted_ ? weights_ + j : nullptr);
      j += degrees_[i];
    }
  }

 private:
  // The range of the sources of entries with a positive degree.
  [[nodiscard]] std::optional<RankRange> sources_of_edges() const {
    std::optional<RankRange> range;
    for (int i = 0; i < n_; ++i) {
      if (degrees_[i] == 0) continue;
      range = range ? range->with({sources_[i], sources_[i]}) : RankRange{sources_[i], sources_[i]};
    }
    return range;
  }

  int n_;
  const int* sources_;
  const int* degrees_;
  const int* destinations_;
  const int* weights_;
  bool weighted_;
};

// A list of Edge.
class ListEdges {
 public:
  ListEdges(std::span<const Edge> edges, bool weighted) : edges_(edges), weighted_(weighted) {}

  // `extent`: what valid input holds (filled as far as validation got).
  [[nodiscard]] Check validate(int rank, int size, InputExtent& extent) const {
    const auto count = static_cast<std::int64_t>(edges_.size());
    extent.edges = count;
    extent.entries = count;
    extent.single_edge_entries = count > 0;
    const auto source = [this](std::int64_t i) { return edges_[static_cast<std::size_t>(i)].source; };
    const auto destination = [this](std::int64_t i) { return edges_[static_cast<std::size_t>(i)].destination; };
    const auto weight = [this](std::int64_t i) { return edges_[static_cast<std::size_t>(i)].weight; };
    if (count == 0) return std::nullopt;
    extent.sources = RankRange::of(min_max(count, source));
    extent.destinations = RankRange::of(min_max(count, destination));
    extent.ranks = extent.sources->with({extent.destinations->low, extent.destinations->high});
    if (weighted_) extent.weights = min_max(count, weight);
    if (extent.ranks->within(0, size - 1) && (!weighted_ || extent.weights.first >= 0)) return std::nullopt;
    for (std::size_t i = 0; i < edges_.size(); ++i) {
      const auto index = static_cast<std::int64_t>(i);
      if (Check error = check_rank(kCreate, "edges.source", index, edges_[i].source, rank, size)) return error;
      if (Check error = check_rank(kCreate, "edges.destination", index, edges_[i].destination, rank, size)) {
        return error;
      }
      if (!weighted_) continue;
      if (Check error = check_weight(kCreate, "edges.weight", index, edges_[i].weight, rank)) return error;
    }
    return std::nullopt;
  }

  template <class Visit>
  void for_each(Visit&& visit) const {
    for (const Edge& edge : edges_) {
      if (!visit(edge.source, edge.destination, weighted_ ? edge.weight : 1)) return;
    }
  }

  // The interface of ArrayEdges.
  template <class Visit>
  void for_each_edge(const InputExtent&, Visit&& visit) const {
    for (const Edge& edge : edges_) visit(edge.source, edge.destination, weighted_ ? edge.weight : 1);
  }

  // Each edge as a source entry of degree 1 (the interface of ArrayEdges).
  template <class Visit>
  void for_each_source(Visit&& visit) const {
    for (const Edge& edge : edges_) {
      visit(edge.source, std::span<const int>(&edge.destination, 1), weighted_ ? &edge.weight : nullptr);
    }
  }

 private:
  std::span<const Edge> edges_;
  bool weighted_;
};

// The out-ends a rank holds after the first round of a create that goes by
// source (dist_graph_create.cpp): its own out-edges, as edge keys, the input
// of the second round. Their ranks were checked when they arrived.
class OwnOutEnds {
 public:
  OwnOutEnds(int self, std::span<const EdgeKey> keys, bool weighted) : self_(self), keys_(keys), weighted_(weighted) {}

  [[nodiscard]] Check validate(int, int, InputExtent& extent) const {
    const auto count = static_cast<std::int64_t>(keys_.size());
    extent.edges = count;
    extent.entries = count;
    extent.single_edge_entries = count > 0;
    if (count == 0) return std::nullopt;
    const auto key = [this](std::int64_t i) { return keys_[static_cast<std::size_t>(i)]; };
    extent.sources = RankRange{self_, self_};
    extent.destinations = RankRange::of(min_max(count, [&](std::int64_t i) { return edge_rank(key(i)); }));
    extent.ranks = extent.sources->with({extent.destinations->low, extent.destinations->high});
    if (weighted_) extent.weights = min_max(count, [&](std::int64_t i) { return edge_weight(key(i)); });
    return std::nullopt;
  }

  template <class Visit>
  void for_each(Visit&& visit) const {
    for (const EdgeKey key : keys_) {
      if (!visit(self_, edge_rank(key), weighted_ ? edge_weight(key) : 1)) return;
    }
  }

  // The interface of ArrayEdges.
  template <class Visit>
  void for_each_edge(const InputExtent&, Visit&& visit) const {
    for (const EdgeKey key : keys_) visit(self_, edge_rank(key), weighted_ ? edge_weight(key) : 1);
  }

  // Each end as a source entry of degree 1 (the interface of ArrayEdges).
  template <class Visit>
  void for_each_source(Visit&& visit) const {
    for (const EdgeKey key : keys_) {
      const int destination = edge_rank(key);
      const int weight = edge_weight(key);
      visit(self_, std::span<const int>(&destination, 1), weighted_ ? &weight : nullptr);
    }
  }

 private:
  int self_;
  std::span<const EdgeKey> keys_;
  bool weighted_;
};

// One direction of dist_graph_create_adjacent: degree, ranks and weights as
// given, with the standard's argument names for messages.
struct AdjacentSide {
  const char* degree_name;
  const char* ranks_name;
  const char* weights_name;
  int degree;
  const int* ranks;
  const int* weights;

  // Both sides; with `weighted`, MPI_UNWEIGHTED given for one side only is
  // an error of this rank (MPI_UNWEIGHTED for both sides is weighted = false).
  [[nodiscard]] static Check validate_pair(const AdjacentSide& in, const AdjacentSide& out, bool weighted, int rank,
                                           int size) {
    if (weighted && MPI_UNWEIGHTED != nullptr) {
      for (const auto& [side, other] : {std::pair{&in, &out}, std::pair{&out, &in}}) {
        if (side->degree <= 0 || side->weights != MPI_UNWEIGHTED) continue;
        return rank_error(MPI_ERR_ARG, kCreateAdjacent, rank,
                          std::string(side->weights_name) + " is MPI_UNWEIGHTED but " + other->weights_name +
                              " is not (with " + value_text(side->degree_name, -1, side->degree) +
                              "); give MPI_UNWEIGHTED for both or neither");
      }
    }
    if (Check error = in.validate(weighted, rank, size)) return error;
    return out.validate(weighted, rank, size);
  }

  [[nodiscard]] Check validate(bool weighted, int rank, int size) const {
    if (Check error = check_degree(kCreateAdjacent, degree_name, -1, degree, rank)) return error;
    if (degree > 0 && (ranks == nullptr || (weighted && weights == nullptr))) {
      return rank_error(
          MPI_ERR_ARG, kCreateAdjacent, rank,
          std::string(ranks_name) + " or " + weights_name + " is NULL with " + value_text(degree_name, -1, degree));
    }
    for (int i = 0; i < degree; ++i) {
      if (Check error = check_rank(kCreateAdjacent, ranks_name, i, ranks[i], rank, size)) return error;
      if (!weighted) continue;
      if (Check error = check_weight(kCreateAdjacent, weights_name, i, weights[i], rank)) return error;
    }
    return std::nullopt;
  }
};

}  // namespace distopo::detail
