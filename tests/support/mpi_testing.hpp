#pragma once
// Helpers every MPI test binary uses: the caller's place in MPI_COMM_WORLD and
// the error class a distopo call throws.
#include <mpi.h>

#include <functional>
#include <string>

#include "distopo/core/comm.hpp"
#include "distopo/core/error.hpp"

namespace distopo::testing {

inline int world_rank() { return distopo::comm_rank(MPI_COMM_WORLD); }
inline int world_size() { return distopo::comm_size(MPI_COMM_WORLD); }

// Calls `body` and returns the MPI error class of the distopo::Error it throws
// (MPI_SUCCESS if none), with its message in `*message` when asked for.
inline int error_class_of(const std::function<void()>& body, std::string* message = nullptr) {
  try {
    body();
  } catch (const distopo::Error& error) {
    if (message != nullptr) *message = error.what();
    return error.error_class();
  }
  return MPI_SUCCESS;
}

}  // namespace distopo::testing
