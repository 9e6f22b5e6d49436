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

}  // namespace distopo::detail
