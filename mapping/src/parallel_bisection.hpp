#pragma once
// Recursive bisection of the gathered graph spread over a few ranks, so the
// reordering below the gather limit does not wait for one rank to run every
// METIS bisection: rank 0 bisects the whole graph and sends one half (its
// induced subgraph and the parts it is to be split into) to rank
// helpers / 2, each then bisects its half and sends on, down a binomial tree;
// a rank with no helper left finishes its subgraph with METIS alone, and
// rank 0 collects the parts. The critical path is about two top-level
// bisections instead of the whole recursion, which also affords METIS more
// tries per bisection. `capacities` are read on rank 0; every rank gives the
// same `cuts`. Memory: each helper holds one subgraph at a time.
#include <mpi.h>

#include <optional>
#include <span>
#include <vector>

#include "exact_partition.hpp"

namespace distopo::detail {

inline constexpr int kMaxBisectionHelpers = 16;

// METIS' tries per bisection: fast 1, balanced 4, thorough 8.
int cuts_per_bisection(PartitionEffort effort);

// The number of ranks that take part: the largest power of two at most
// min(size, kMaxBisectionHelpers).
int bisection_helpers(int size);

// Collective over the first bisection_helpers(size) ranks of `channel` (a
// communicator that carries no other point-to-point traffic meanwhile);
// other ranks return at once. `graph` and `capacities` are read on rank 0
// only. Returns on rank 0 the proposed part of every vertex (sizes near the
// capacities: finish with finish_exact), nullopt elsewhere. Deterministic.
// A helper that runs out of memory passes "failed" down the tree and to
// rank 0 instead of its parts, so nobody waits; rank 0 then returns nullopt,
// as it does when it has no graph to give (`graph` nullopt on rank 0).
std::optional<std::vector<int>> bisect_in_parallel(MPI_Comm channel, const std::optional<UndirectedGraph>& graph,
                                                   std::span<const int> capacities, int cuts);

}  // namespace distopo::detail
