#include "mpi_compat.h"

#include <climits>
#include <vector>

namespace {

bool fits_int(MPI_Count count) { return count >= 0 && count <= INT_MAX; }

}  // namespace

extern "C" {

int PMPIX_Grequest_class_create(MPI_Grequest_query_function*, MPI_Grequest_free_function*,
                                MPI_Grequest_cancel_function*, MPIX_Grequest_poll_function*,
                                MPIX_Grequest_wait_function*, MPIX_Grequest_class*) {
  return MPI_ERR_OTHER;
}

int PMPIX_Grequest_class_allocate(MPIX_Grequest_class, void*, MPI_Request*) { return MPI_ERR_OTHER; }

int PMPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  if (!fits_int(count)) return MPI_ERR_COUNT;
  return PMPI_Isend(buf, static_cast<int>(count), datatype, dest, tag, comm, request);
}

int PMPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  if (!fits_int(count)) return MPI_ERR_COUNT;
  return PMPI_Irecv(buf, static_cast<int>(count), datatype, source, tag, comm, request);
}

int PMPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  if (!fits_int(count)) return MPI_ERR_COUNT;
  return PMPI_Send_init(buf, static_cast<int>(count), datatype, dest, tag, comm, request);
}

int PMPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  if (!fits_int(count)) return MPI_ERR_COUNT;
  return PMPI_Recv_init(buf, static_cast<int>(count), datatype, source, tag, comm, request);
}

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                              MPI_Datatype* newtype) {
  if (!fits_int(count)) return MPI_ERR_COUNT;
  const auto n = static_cast<std::size_t>(count);
  std::vector<int> lengths(n);
  std::vector<MPI_Aint> displacements(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!fits_int(array_of_blocklengths[i])) return MPI_ERR_COUNT;
    lengths[i] = static_cast<int>(array_of_blocklengths[i]);
    displacements[i] = static_cast<MPI_Aint>(array_of_displacements[i]);
  }
  return PMPI_Type_create_struct(static_cast<int>(count), lengths.data(), displacements.data(), array_of_types,
                                 newtype);
}

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) { return PMPI_Type_size_x(datatype, size); }

}  // extern "C"
