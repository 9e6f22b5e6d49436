#pragma once
// The two routes of the sparse exchange (sparse_exchange.hpp), behind
// sparse_exchange_raw.
#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

#include "distopo/core/sparse_exchange.hpp"

namespace distopo::detail {

// Direct: NBX (sparse_exchange.cpp), for message kinds 0 ... kinds - 1 (the
// node-aware route sends one kind more through it: kMaxMessageKinds).
void nbx_exchange(MPI_Comm comm, std::size_t element_size, const std::vector<RawMessage>& outgoing,
                  const PlaceFn& place, const DoneFn& done, const VerdictFn& on_verdict, std::span<int> agreement_max,
                  int kinds);

// Node-aware (node_aware_exchange.cpp).
void node_aware_exchange(MPI_Comm comm, const ExchangeRoute& route, std::size_t element_size,
                         const std::vector<RawMessage>& outgoing, const PlaceFn& place, const DoneFn& done,
                         const VerdictFn& on_verdict, std::span<int> agreement_max);

}  // namespace distopo::detail
