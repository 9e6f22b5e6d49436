// MPI_Session_init and MPI_Session_finalize, seen on their way to MPICH: in
// the sessions model (MPI-4, no MPI_Init) there is no MPI_COMM_SELF whose
// attributes MPI deletes at the end, so the library learns of the last
// session's end here and releases what it holds while MPI still works
// (core/runtime.hpp).
#include "distopo/core/runtime.hpp"
#include "error_reporting.hpp"

DISTOPO_CAPI int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  const int rc = PMPI_Session_init(info, errhandler, session);
  if (rc == MPI_SUCCESS) distopo::session_initialized();
  return rc;
}

DISTOPO_CAPI int MPI_Session_finalize(MPI_Session* session) {
  if (session != nullptr && *session != MPI_SESSION_NULL) distopo::session_finalizing();
  return PMPI_Session_finalize(session);
}
