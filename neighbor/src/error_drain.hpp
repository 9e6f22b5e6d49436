#pragma once
// A rank whose arguments are bad, or whose posting failed midway, still
// completes its part of the exchange, so its neighbors never hang: an empty
// message in place of every message not yet sent, and every message not yet
// posted for received (whatever its size) and dropped, following the
// sequence's message plans as a correct rank would.
#include <mpi.h>

#include <cstddef>

#include "channel_state.hpp"
#include "distopo/core/error.hpp"
#include "neighbor_sequence.hpp"

namespace distopo::detail {

// Completes the messages from the `posted`-th request on, in posting order
// (the receive order, then the send order); the requests before it are the
// caller's to complete.
void drain_rest(const NeighborSequence& s, MPI_Comm channel, int tag, std::size_t posted);

// The whole exchange drained, then `error` thrown.
[[noreturn]] void drain_and_throw(const NeighborState& state, int tag, const LocalError& error);

}  // namespace distopo::detail
