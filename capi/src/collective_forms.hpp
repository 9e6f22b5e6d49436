#pragma once
// What the non-blocking and persistent forms of the neighborhood collectives
// add around distopo's call, shared by the standard and the large-count
// entry points.
#include <mpi.h>

#include <utility>

#include "error_reporting.hpp"
#include "persistent_requests.hpp"

namespace distopo::capi {

// The non-blocking forms: the request handle must exist before anything is
// posted. `mpich` answers on a topology MPICH made without distopo (served()).
template <class Start, class Mpich>
int nonblocking(MPI_Comm comm, const char* function, MPI_Request* request, Start&& start, Mpich&& mpich) {
  return served(
      comm, function,
      [&] {
        require_pointer(request, "request");
        start();
      },
      std::forward<Mpich>(mpich));
}

// The persistent forms: build the collective, then register it under a handle.
template <class Init, class Mpich>
int persistent(MPI_Comm comm, const char* function, MPI_Request* request, Init&& init, Mpich&& mpich) {
  return served(
      comm, function,
      [&] {
        require_pointer(request, "request");
        *request = register_persistent(init());
      },
      std::forward<Mpich>(mpich));
}

}  // namespace distopo::capi
