#pragma once
// What the non-blocking and persistent forms of the neighborhood collectives
// add around distopo's call, shared by the standard and the large-count
// entry points.
#include <mpi.h>

#include "error_reporting.hpp"
#include "persistent_requests.hpp"

namespace distopo::capi {

// The non-blocking forms: the request handle must exist before anything is
// posted.
template <class Start>
int nonblocking(MPI_Comm comm, const char* function, MPI_Request* request, Start&& start) {
  return guarded(comm, function, [&] {
    require_pointer(request, "request");
    start();
  });
}

// The persistent forms: build the collective, then register it under a handle.
template <class Init>
int persistent(MPI_Comm comm, const char* function, MPI_Request* request, Init&& init) {
  return guarded(comm, function, [&] {
    require_pointer(request, "request");
    *request = register_persistent(init());
  });
}

}  // namespace distopo::capi
