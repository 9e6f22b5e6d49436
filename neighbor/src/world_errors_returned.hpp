#pragma once
// MPICH 4.0.2 raises the failure of a request completed by MPI_Test or
// MPI_Wait (a truncated receive, for instance) on MPI_COMM_WORLD's error
// handler, not on the handler of the request's communicator: with the
// default handler the job aborts before the code comes back. While one of
// these guards lives, MPI_COMM_WORLD returns errors, so that a collective can
// report its failure on the user's communicator; the handler the program set
// is restored when the guard ends. Without MPI_Init (the sessions model)
// there is no MPI_COMM_WORLD to ask, and nothing is changed.
#include <mpi.h>

namespace distopo::detail {

class WorldErrorsReturned {
 public:
  WorldErrorsReturned() noexcept {
    int initialized = 0;
    PMPI_Initialized(&initialized);
    if (!initialized || PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &saved_) != MPI_SUCCESS) return;
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  ~WorldErrorsReturned() {
    if (saved_ == MPI_ERRHANDLER_NULL) return;
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, saved_);
    PMPI_Errhandler_free(&saved_);
  }
  WorldErrorsReturned(const WorldErrorsReturned&) = delete;
  WorldErrorsReturned& operator=(const WorldErrorsReturned&) = delete;

 private:
  MPI_Errhandler saved_ = MPI_ERRHANDLER_NULL;
};

}  // namespace distopo::detail
