#pragma once
// The two ways edges reach dist_graph_create (the standard's arrays, or a list
// of Edge), behind one interface: validate() checks every value locally and
// for_each() visits (source, destination, weight) triples of valid input.
#include <climits>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "distopo/core/error.hpp"
#include "distopo/distgraph.hpp"

namespace distopo::detail {

inline LocalError bad_value(int error_class, int rank, const std::string& what) {
  return rank_error(error_class, "dist_graph_create", rank, what);
}

inline std::optional<LocalError> check_rank(const char* array, std::int64_t index, int value, int rank, int size) {
  if (value >= 0 && value < size) return std::nullopt;
  return bad_value(MPI_ERR_RANK, rank,
                   std::string(array) + "[" + std::to_string(index) + "] = " + std::to_string(value) +
                       " is not a rank of the communicator (size " + std::to_string(size) + ")");
}

inline std::optional<LocalError> check_weight(const char* array, std::int64_t index, int value, int rank) {
  if (value >= 0) return std::nullopt;
  return bad_value(MPI_ERR_ARG, rank,
                   std::string(array) + "[" + std::to_string(index) + "] = " + std::to_string(value) +
                       " is negative; weights must be non-negative");
}

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

  [[nodiscard]] std::optional<LocalError> validate(int rank, int size) const {
    if (n_ < 0) return bad_value(MPI_ERR_ARG, rank, "n = " + std::to_string(n_) + " is negative");
    if (n_ > 0 && (sources_ == nullptr || degrees_ == nullptr)) {
      return bad_value(MPI_ERR_ARG, rank, "sources or degrees is NULL with n = " + std::to_string(n_));
    }
    std::int64_t total = 0;
    for (int i = 0; i < n_; ++i) {
      if (auto error = check_rank("sources", i, sources_[i], rank, size)) return error;
      if (degrees_[i] < 0) {
        return bad_value(MPI_ERR_ARG, rank,
                         "degrees[" + std::to_string(i) + "] = " + std::to_string(degrees_[i]) + " is negative");
      }
      total += degrees_[i];
      if (total > INT_MAX) {
        return bad_value(MPI_ERR_ARG, rank,
                         "the degrees sum to more than INT_MAX (at degrees[" + std::to_string(i) + "])");
      }
    }
    if (total > 0 && (destinations_ == nullptr || (weighted_ && weights_ == nullptr))) {
      return bad_value(MPI_ERR_ARG, rank, "destinations or weights is NULL with " + std::to_string(total) + " edges");
    }
    for (std::int64_t j = 0; j < total; ++j) {
      if (auto error = check_rank("destinations", j, destinations_[j], rank, size)) return error;
      if (weighted_) {
        if (auto error = check_weight("weights", j, weights_[j], rank)) return error;
      }
    }
    edges_ = total;
    return std::nullopt;
  }

  [[nodiscard]] std::int64_t edge_count() const { return edges_; }

  template <class Visit>
  void for_each(Visit&& visit) const {
    std::int64_t j = 0;
    for (int i = 0; i < n_; ++i) {
      const int source = sources_[i];
      for (int k = 0; k < degrees_[i]; ++k, ++j) visit(source, destinations_[j], weighted_ ? weights_[j] : 1);
    }
  }

 private:
  int n_;
  const int* sources_;
  const int* degrees_;
  const int* destinations_;
  const int* weights_;
  bool weighted_;
  mutable std::int64_t edges_ = 0;
};

// A list of Edge.
class ListEdges {
 public:
  ListEdges(std::span<const Edge> edges, bool weighted) : edges_(edges), weighted_(weighted) {}

  [[nodiscard]] std::optional<LocalError> validate(int rank, int size) const {
    for (std::size_t i = 0; i < edges_.size(); ++i) {
      const auto index = static_cast<std::int64_t>(i);
      if (auto error = check_rank("edges.source", index, edges_[i].source, rank, size)) return error;
      if (auto error = check_rank("edges.destination", index, edges_[i].destination, rank, size)) return error;
      if (weighted_) {
        if (auto error = check_weight("edges.weight", index, edges_[i].weight, rank)) return error;
      }
    }
    return std::nullopt;
  }

  [[nodiscard]] std::int64_t edge_count() const { return static_cast<std::int64_t>(edges_.size()); }

  template <class Visit>
  void for_each(Visit&& visit) const {
    for (const Edge& edge : edges_) visit(edge.source, edge.destination, weighted_ ? edge.weight : 1);
  }

 private:
  std::span<const Edge> edges_;
  bool weighted_;
};

}  // namespace distopo::detail
