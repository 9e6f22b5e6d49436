#pragma once
// Dropping a message without room for it, for both routes of the sparse
// exchange.
#include <mpi.h>

#include "distopo/core/error.hpp"

namespace distopo::detail {

// Consumes the next message from `source` without room for it: a receive of
// nothing matches it and ends truncated. The channel may be the caller's own
// communicator (redistribute_edges), so its handler is set aside meanwhile.
inline void drop_message(MPI_Comm comm, int source, int tag, MPI_Datatype type) {
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  check_mpi(PMPI_Comm_get_errhandler(comm, &handler), "MPI_Comm_get_errhandler");
  check_mpi(PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  char nothing = 0;
  const int rc = PMPI_Recv(&nothing, 0, type, source, tag, comm, MPI_STATUS_IGNORE);
  PMPI_Comm_set_errhandler(comm, handler);
  PMPI_Errhandler_free(&handler);
  int error_class = MPI_SUCCESS;
  PMPI_Error_class(rc, &error_class);
  if (error_class != MPI_ERR_TRUNCATE) check_mpi(rc, "MPI_Recv");
}

}  // namespace distopo::detail
