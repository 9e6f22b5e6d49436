#pragma once
// MPI datatypes for C++ element types that MPI does not name: a committed
// contiguous run of bytes per element size, made once and cached for the run
// (freed at MPI_Finalize), so hot paths never create and free types.
#include <mpi.h>

#include <cstddef>

namespace distopo::detail {

// MPI_BYTE for 1; otherwise a committed contiguous type of `bytes` bytes.
MPI_Datatype contiguous_bytes(std::size_t bytes);

}  // namespace distopo::detail
