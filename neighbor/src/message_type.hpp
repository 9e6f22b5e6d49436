#pragma once
// The datatype of a message that carries several blocks (message_plan.hpp):
// a struct over the blocks' absolute addresses, in order, to be sent or
// received at MPI_BOTTOM with count 1. Its type signature is the blocks'
// signatures one after the other, so it matches the peer's message exactly
// when each block matches its slot, as the standard requires.
#include <mpi.h>

#include <span>

#include "slot_blocks.hpp"

namespace distopo::detail {

// Creates and commits the type into `type`; returns MPI's code (on failure
// nothing is left to free).
int message_type(std::span<const Block> blocks, MPI_Datatype* type);

}  // namespace distopo::detail
