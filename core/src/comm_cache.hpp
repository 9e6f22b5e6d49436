#pragma once
// An object the library caches on a communicator, made at its first use and
// deleted with the communicator: a RuntimeKeyval whose delete callback is
// delete_cached<T>, and cached_on() to find or make it.
#include <mpi.h>

#include <memory>

#include "distopo/core/error.hpp"
#include "distopo/core/runtime.hpp"

namespace distopo::detail {

// The delete callback of an attribute that owns a T (the library's records,
// families and caches alike).
template <class T>
int delete_cached(MPI_Comm, int, void* attribute, void*) {
  delete static_cast<T*>(attribute);
  return MPI_SUCCESS;
}

// The T that `keyval` caches on `comm`; `make()` (a std::unique_ptr<T>) makes
// it the first time.
template <class T, class Make>
T& cached_on(MPI_Comm comm, const RuntimeKeyval& keyval, Make&& make) {
  void* attribute = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, keyval.get(), &attribute, &found), "MPI_Comm_get_attr");
  if (found) return *static_cast<T*>(attribute);
  std::unique_ptr<T> owned = make();
  check_mpi(MPI_Comm_set_attr(comm, keyval.get(), owned.get()), "MPI_Comm_set_attr");
  return *owned.release();
}

}  // namespace distopo::detail
