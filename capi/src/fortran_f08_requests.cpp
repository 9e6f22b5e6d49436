// The Fortran 2008 bindings (`use mpi_f08`) of the calls that start and
// complete requests. MPICH's mpi_f08 wrappers call PMPI_Start, PMPI_Wait, ...
// directly, which know nothing of the persistent neighborhood collectives
// this library hands out (completion_calls.cpp): MPI_Start would start only
// their placeholder. These definitions come first when libdistopo_mpi.so is
// preloaded and call this library's C entry points, which pass requests that
// are not distopo's on to MPICH unchanged.
//
// Arguments as in fortran_f08.cpp; in addition TYPE(MPI_Request) is a bind(C)
// type holding one INTEGER (MPICH's C handle) and TYPE(MPI_Status) has the
// layout of MPICH's C MPI_Status. MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE
// are variables of MPICH's module (bind(C) names
// MPIR_F08_MPI_STATUS(ES)_IGNORE_OBJ), recognized by their address as MPICH's
// wrappers do. Indices are 1-based in Fortran.
#include <dlfcn.h>
#include <mpi.h>

#include "error_reporting.hpp"

namespace {

void finish(MPI_Fint* ierror, int code) {
  if (ierror != nullptr) *ierror = code;
}

MPI_Status* c_status(MPI_Fint* status) {
  static void* const ignore = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_STATUS_IGNORE_OBJ");
  if (status == nullptr || status == ignore) return MPI_STATUS_IGNORE;
  return reinterpret_cast<MPI_Status*>(status);
}

MPI_Status* c_statuses(MPI_Fint* statuses) {
  static void* const ignore = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_STATUSES_IGNORE_OBJ");
  if (statuses == nullptr || statuses == ignore) return MPI_STATUSES_IGNORE;
  return reinterpret_cast<MPI_Status*>(statuses);
}

// MPICH's MPI_Request is its Fortran handle.
static_assert(sizeof(MPI_Request) == sizeof(MPI_Fint));
MPI_Request* c_requests(MPI_Fint* requests) { return reinterpret_cast<MPI_Request*>(requests); }

// A C index (0-based, or MPI_UNDEFINED) as Fortran's.
MPI_Fint fortran_index(int index) { return index == MPI_UNDEFINED ? MPI_UNDEFINED : index + 1; }

}  // namespace

DISTOPO_CAPI void mpi_start_f08_(MPI_Fint* request, MPI_Fint* ierror) {
  finish(ierror, MPI_Start(c_requests(request)));
}

DISTOPO_CAPI void mpi_startall_f08_(const MPI_Fint* count, MPI_Fint* requests, MPI_Fint* ierror) {
  finish(ierror, MPI_Startall(*count, c_requests(requests)));
}

DISTOPO_CAPI void mpi_wait_f08_(MPI_Fint* request, MPI_Fint* status, MPI_Fint* ierror) {
  finish(ierror, MPI_Wait(c_requests(request), c_status(status)));
}

DISTOPO_CAPI void mpi_test_f08_(MPI_Fint* request, MPI_Fint* flag, MPI_Fint* status, MPI_Fint* ierror) {
  finish(ierror, MPI_Test(c_requests(request), flag, c_status(status)));
}

DISTOPO_CAPI void mpi_waitall_f08_(const MPI_Fint* count, MPI_Fint* requests, MPI_Fint* statuses, MPI_Fint* ierror) {
  finish(ierror, MPI_Waitall(*count, c_requests(requests), c_statuses(statuses)));
}

DISTOPO_CAPI void mpi_testall_f08_(const MPI_Fint* count, MPI_Fint* requests, MPI_Fint* flag, MPI_Fint* statuses,
                                   MPI_Fint* ierror) {
  finish(ierror, MPI_Testall(*count, c_requests(requests), flag, c_statuses(statuses)));
}

DISTOPO_CAPI void mpi_waitany_f08_(const MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index, MPI_Fint* status,
                                   MPI_Fint* ierror) {
  int c_index = MPI_UNDEFINED;
  const int code = MPI_Waitany(*count, c_requests(requests), &c_index, c_status(status));
  *index = fortran_index(c_index);
  finish(ierror, code);
}

DISTOPO_CAPI void mpi_testany_f08_(const MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index, MPI_Fint* flag,
                                   MPI_Fint* status, MPI_Fint* ierror) {
  int c_index = MPI_UNDEFINED;
  const int code = MPI_Testany(*count, c_requests(requests), &c_index, flag, c_status(status));
  *index = fortran_index(c_index);
  finish(ierror, code);
}

DISTOPO_CAPI void mpi_waitsome_f08_(const MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount, MPI_Fint* indices,
                                    MPI_Fint* statuses, MPI_Fint* ierror) {
  const int code = MPI_Waitsome(*incount, c_requests(requests), outcount, indices, c_statuses(statuses));
  for (int i = 0; i < *outcount && *outcount != MPI_UNDEFINED; ++i) indices[i] = fortran_index(indices[i]);
  finish(ierror, code);
}

DISTOPO_CAPI void mpi_testsome_f08_(const MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount, MPI_Fint* indices,
                                    MPI_Fint* statuses, MPI_Fint* ierror) {
  const int code = MPI_Testsome(*incount, c_requests(requests), outcount, indices, c_statuses(statuses));
  for (int i = 0; i < *outcount && *outcount != MPI_UNDEFINED; ++i) indices[i] = fortran_index(indices[i]);
  finish(ierror, code);
}

DISTOPO_CAPI void mpi_request_get_status_f08_(const MPI_Fint* request, MPI_Fint* flag, MPI_Fint* status,
                                              MPI_Fint* ierror) {
  finish(ierror, MPI_Request_get_status(static_cast<MPI_Request>(*request), flag, c_status(status)));
}

DISTOPO_CAPI void mpi_request_free_f08_(MPI_Fint* request, MPI_Fint* ierror) {
  finish(ierror, MPI_Request_free(c_requests(request)));
}

DISTOPO_CAPI void mpi_cancel_f08_(MPI_Fint* request, MPI_Fint* ierror) {
  finish(ierror, MPI_Cancel(c_requests(request)));
}
