#pragma once
// Turns a Cartesian record into the communicator handed back: with
// DISTOPO_NATIVE_TOPOLOGY, MPICH's own Cartesian topology is installed too
// (PMPI_Cart_create, reorder off, on the already reordered communicator) when
// MPICH can represent it; otherwise `base` itself becomes the result.
#include "distopo/core/comm.hpp"
#include "distopo/core/topology.hpp"

namespace distopo::detail {

// MPICH 4.0 keeps Cartesian scratch arrays of 16 entries on the stack
// (MPI_Cart_shift smashes it past that), so larger grids get no mirror.
inline constexpr std::size_t kNativeCartMaxDims = 16;

// Collective over `base`, a communicator distopo owns whose size is the grid size.
Comm install_cart(Comm base, CartesianTopology record);

// Collective over `comm` when its ranks 0 .. grid size - 1 keep their ranks
// (no reordering): the result is made from `comm` in one step, with
// MPICH's own constructor when it mirrors the grid, without first splitting
// `comm` (every communicator made costs a context-id agreement, which
// threads creating communicators at once make far slower). `member`: the
// caller is in the grid (`record.coords` are then its coordinates); the
// others take part and get a null Comm.
Comm install_cart_in_order(MPI_Comm comm, CartesianTopology record, bool member);

}  // namespace distopo::detail
