// MPI_Comm_set_info: MPICH 4.0.2 keeps only the keys it knows, so distopo's
// keys for the neighborhood collectives (distopo_neighbor_algorithm, ...)
// would be lost. distopo::set_neighbor_info sets the info and keeps them.
#include "distopo/neighbor/algorithm.hpp"
#include "error_reporting.hpp"

DISTOPO_CAPI int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  return distopo::capi::guarded(comm, "MPI_Comm_set_info", [&] { distopo::set_neighbor_info(comm, info); });
}
