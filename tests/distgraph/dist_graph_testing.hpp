#pragma once
// Helpers shared by the distributed-graph tests.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <utility>
#include <vector>

#include "distopo/distgraph.hpp"
#include "mpi_testing.hpp"

namespace distopo::testing {

using WeightedList = std::vector<std::pair<int, int>>;  // (rank, weight)

inline WeightedList zip(const std::vector<int>& ranks, const std::vector<int>& weights) {
  WeightedList list;
  for (std::size_t i = 0; i < ranks.size(); ++i) list.emplace_back(ranks[i], weights.empty() ? 1 : weights[i]);
  return list;
}

inline WeightedList sorted(WeightedList list) {
  std::sort(list.begin(), list.end());
  return list;
}

inline std::vector<int> neighbor_ranks(const WeightedList& list) {
  std::vector<int> ranks;
  for (const auto& [rank, weight] : list) ranks.push_back(rank);
  return ranks;
}

struct Lists {
  WeightedList in;
  WeightedList out;
  bool weighted = false;
};

// distopo's lists on `comm`, as stored (order kept).
inline Lists distopo_lists(MPI_Comm comm) {
  const auto& n = distopo::dist_graph_neighbors(comm);
  return {zip(n.sources, n.source_weights), zip(n.destinations, n.destination_weights), n.weighted};
}

// MPICH's lists on `comm` (through PMPI: MPICH's own answer).
inline Lists mpich_lists(MPI_Comm comm) {
  int indegree = 0;
  int outdegree = 0;
  int weighted = 0;
  EXPECT_EQ(PMPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &weighted), MPI_SUCCESS);
  std::vector<int> sources(static_cast<std::size_t>(indegree)), source_weights(sources.size());
  std::vector<int> destinations(static_cast<std::size_t>(outdegree)), destination_weights(destinations.size());
  EXPECT_EQ(
      PMPI_Dist_graph_neighbors(comm, indegree, sources.data(), weighted ? source_weights.data() : MPI_UNWEIGHTED,
                                outdegree, destinations.data(), weighted ? destination_weights.data() : MPI_UNWEIGHTED),
      MPI_SUCCESS);
  if (!weighted) source_weights.clear(), destination_weights.clear();
  return {zip(sources, source_weights), zip(destinations, destination_weights), weighted != 0};
}

// MPICH's own copy of the topology on `comm` (the native mirror) has
// distopo's neighbors in distopo's order; the weights as well only where
// `copies_weights` (info key distopo_native_weights = true) and the graph is
// weighted.
inline void expect_native_mirror(MPI_Comm comm, const Lists& ours, bool copies_weights) {
  const Lists native = mpich_lists(comm);
  const bool weights = copies_weights && ours.weighted;
  EXPECT_EQ(native.weighted, weights);
  EXPECT_EQ(native.in, weights ? ours.in : zip(neighbor_ranks(ours.in), {}));
  EXPECT_EQ(native.out, weights ? ours.out : zip(neighbor_ranks(ours.out), {}));
}

}  // namespace distopo::testing
