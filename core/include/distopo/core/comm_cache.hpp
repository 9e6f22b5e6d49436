#pragma once
// An object the library caches on a communicator, made at its first use and
// deleted with the communicator: a RuntimeKeyval whose delete callback is
// delete_cached<T>, cached_on() to find or make it, find_cached() to look.
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

// The T that `keyval` caches on `comm`, or nullptr.
template <class T>
T* find_cached(MPI_Comm comm, const RuntimeKeyval& keyval) {
  void* attribute = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, keyval.get(), &attribute, &found), "MPI_Comm_get_attr");
  return found ? static_cast<T*>(attribute) : nullptr;
}

// The T that `keyval` caches on `comm`; `make()` (a std::unique_ptr<T>) makes
// it the first time.
template <class T, class Make>
T& cached_on(MPI_Comm comm, const RuntimeKeyval& keyval, Make&& make) {
  if (T* cached = find_cached<T>(comm, keyval)) return *cached;
  std::unique_ptr<T> owned = make();
  check_mpi(MPI_Comm_set_attr(comm, keyval.get(), owned.get()), "MPI_Comm_set_attr");
  return *owned.release();
}

}  // namespace distopo::detail
