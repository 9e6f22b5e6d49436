#pragma once
// A rank whose arguments are bad still completes its part of the exchange, so
// its neighbors never hang: empty messages to every out-neighbor, and every
// message from an in-neighbor received (whatever its size) and dropped. Then
// it throws the error.
#include "channel_state.hpp"
#include "distopo/core/error.hpp"

namespace distopo::detail {

[[noreturn]] void drain_and_throw(const NeighborState& state, int tag, const LocalError& error);

}  // namespace distopo::detail
