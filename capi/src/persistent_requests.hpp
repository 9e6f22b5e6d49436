#pragma once
// MPI_Neighbor_*_init must hand back an MPI_Request that MPI_Start, MPI_Wait
// and friends accept, but MPICH 4.0.2 has no persistent generalized requests
// (and its own MPI_Neighbor_*_init cannot carry distopo's pairing rule; see
// docs/design/neighbor-collectives.md). So the handle is a genuine MPICH
// persistent request that does nothing (a receive from MPI_PROC_NULL), and
// this library's MPI_Start, MPI_Startall, MPI_Wait*, MPI_Test*,
// MPI_Request_free, MPI_Request_get_status and MPI_Cancel recognise it and
// drive distopo's collective instead. Requests that are not ours go straight
// to MPICH; while no persistent neighborhood collective exists the only cost
// is one relaxed atomic load per call.
#include <mpi.h>

#include "distopo/neighbor/persistent_request.hpp"

namespace distopo::capi {

// Takes ownership of an inactive persistent collective; returns its handle.
MPI_Request register_persistent(PersistentRequest collective);

}  // namespace distopo::capi
