#pragma once
// The two routes of the sparse exchange (sparse_exchange.hpp), behind
// sparse_exchange_raw.
#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

#include "distopo/core/sparse_exchange.hpp"

namespace distopo::detail {

// The node-aware route's gathers travel in the NBX round as one kind more.
inline constexpr int kGatherKind = kMaxMessageKinds;
// sparse_exchange_raw's last agreement values: every rank's route (its ranks
// per node as the maximum and, negated, the minimum), and whether any rank
// gathered (the node-aware route sets it).
inline constexpr std::size_t kRouteSlots = 3;

// Where a message of `count` elements goes (`place`), or nullptr when this
// rank has no memory for it.
void* room_for(const PlaceFn& place, int source, int kind, int count);

// Direct: NBX (sparse_exchange.cpp), for message kinds 0 ... kinds - 1 (the
// node-aware route sends one kind more through it: kMaxMessageKinds).
void nbx_exchange(MPI_Comm comm, std::size_t element_size, const std::vector<RawMessage>& outgoing,
                  const PlaceFn& place, const DoneFn& done, const VerdictFn& on_verdict, std::span<int> agreement_max,
                  int kinds);

// Node-aware (node_aware_exchange.cpp); `agreement_max` ends with the route
// slots: without a gather, or if the routes disagree, after the NBX round
// there is no second round.
void node_aware_exchange(MPI_Comm comm, const ExchangeRoute& route, std::size_t element_size,
                         const std::vector<RawMessage>& outgoing, const PlaceFn& place, const DoneFn& done,
                         const VerdictFn& on_verdict, std::span<int> agreement_max);

}  // namespace distopo::detail
