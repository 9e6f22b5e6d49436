#pragma once
// MPI_Neighbor_*_init must hand back an MPI_Request that MPI_Start, MPI_Wait
// and friends accept, but MPICH 4.0.2 has no persistent generalized requests
// (and its own MPI_Neighbor_*_init cannot carry distopo's pairing rule; see
// docs/design/neighbor-collectives.md). So the handle is a genuine MPICH
// persistent request that does nothing (a receive from MPI_PROC_NULL), and
// this registry maps it to distopo's collective; the completion calls
// (completion_calls.cpp) recognise it and drive the collective instead.
#include <mpi.h>

#include "distopo/neighbor/persistent_request.hpp"

namespace distopo::capi {

// Takes ownership of an inactive persistent collective; returns its handle.
MPI_Request register_persistent(PersistentRequest collective);

// The collective behind `handle`, or nullptr for any other request. Only
// free_persistent on the same handle removes it, which the standard forbids
// concurrently with other use of the handle, so the pointer stays valid.
// While none is registered the cost is one relaxed atomic load.
PersistentRequest* find_persistent(MPI_Request handle) noexcept;

// MPI_Request_free of one (MPI lets an active persistent request be freed: it
// completes first, and its failure is thrown after the handle is freed).
void free_persistent(MPI_Request* handle);

}  // namespace distopo::capi
