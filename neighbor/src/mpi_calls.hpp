#pragma once
// The point-to-point and datatype calls the module posts blocks with. Where
// the MPI library has the MPI-4 large-count calls (MPICH), a block's count is
// an MPI_Count all the way down; SimGrid's SMPI (DISTOPO_SMPI builds) has
// only the int-count calls, so a count beyond INT_MAX is MPI_ERR_COUNT there.
// Everything goes through PMPI_ names: the C API library interposes the MPI_
// names of the completion calls.
#include <mpi.h>

#include <climits>
#include <vector>

namespace distopo::detail::mpi {

#ifdef DISTOPO_SMPI_BUILD
inline int to_int(MPI_Count count, int* out) {
  if (count < 0 || count > INT_MAX) return MPI_ERR_COUNT;
  *out = static_cast<int>(count);
  return MPI_SUCCESS;
}
#define DISTOPO_INT_COUNT(count, name) \
  int name = 0;                        \
  if (const int rc_ = to_int(count, &name); rc_ != MPI_SUCCESS) return rc_
inline int isend(const void* buffer, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  DISTOPO_INT_COUNT(count, n);
  return PMPI_Isend(buffer, n, type, peer, tag, comm, request);
}
inline int irecv(void* buffer, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  DISTOPO_INT_COUNT(count, n);
  return PMPI_Irecv(buffer, n, type, peer, tag, comm, request);
}
inline int send_init(const void* buffer, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  DISTOPO_INT_COUNT(count, n);
  return PMPI_Send_init(buffer, n, type, peer, tag, comm, request);
}
inline int recv_init(void* buffer, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  DISTOPO_INT_COUNT(count, n);
  return PMPI_Recv_init(buffer, n, type, peer, tag, comm, request);
}
inline int type_size(MPI_Datatype type, MPI_Count* size) { return PMPI_Type_size_x(type, size); }
inline int type_struct(const std::vector<MPI_Count>& lengths, const std::vector<MPI_Aint>& addresses,
                       const std::vector<MPI_Datatype>& types, MPI_Datatype* type) {
  std::vector<int> int_lengths(lengths.size());
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    DISTOPO_INT_COUNT(lengths[i], n);
    int_lengths[i] = n;
  }
  DISTOPO_INT_COUNT(static_cast<MPI_Count>(lengths.size()), blocks);
  return PMPI_Type_create_struct(blocks, int_lengths.data(), addresses.data(), types.data(), type);
}
#undef DISTOPO_INT_COUNT
#else
inline int isend(const void* buffer, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  return PMPI_Isend_c(buffer, count, type, peer, tag, comm, request);
}
inline int irecv(void* buffer, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  return PMPI_Irecv_c(buffer, count, type, peer, tag, comm, request);
}
inline int send_init(const void* buffer, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  return PMPI_Send_init_c(buffer, count, type, peer, tag, comm, request);
}
inline int recv_init(void* buffer, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  return PMPI_Recv_init_c(buffer, count, type, peer, tag, comm, request);
}
inline int type_size(MPI_Datatype type, MPI_Count* size) { return PMPI_Type_size_c(type, size); }
inline int type_struct(const std::vector<MPI_Count>& lengths, const std::vector<MPI_Aint>& addresses,
                       const std::vector<MPI_Datatype>& types, MPI_Datatype* type) {
  std::vector<MPI_Count> displacements(addresses.begin(), addresses.end());
  return PMPI_Type_create_struct_c(static_cast<MPI_Count>(lengths.size()), lengths.data(), displacements.data(),
                                   types.data(), type);
}
#endif

}  // namespace distopo::detail::mpi

namespace distopo::detail::mpi {

#ifdef DISTOPO_SMPI_BUILD
inline int message_bytes(const MPI_Status* status, MPI_Count* bytes) {
  int n = 0;
  const int rc = PMPI_Get_count(status, MPI_BYTE, &n);
  *bytes = n;
  return rc;
}
inline int pack(const void* in, MPI_Count count, MPI_Datatype type, void* out, MPI_Count size, MPI_Count* position) {
  int n = 0, s = 0, p = static_cast<int>(*position);
  if (to_int(count, &n) != MPI_SUCCESS || to_int(size, &s) != MPI_SUCCESS) return MPI_ERR_COUNT;
  const int rc = PMPI_Pack(in, n, type, out, s, &p, MPI_COMM_SELF);
  *position = p;
  return rc;
}
inline int unpack(const void* in, MPI_Count size, MPI_Count* position, void* out, MPI_Count count, MPI_Datatype type) {
  int n = 0, s = 0, p = static_cast<int>(*position);
  if (to_int(count, &n) != MPI_SUCCESS || to_int(size, &s) != MPI_SUCCESS) return MPI_ERR_COUNT;
  const int rc = PMPI_Unpack(in, s, &p, out, n, type, MPI_COMM_SELF);
  *position = p;
  return rc;
}
#else
inline int message_bytes(const MPI_Status* status, MPI_Count* bytes) {
  return PMPI_Get_elements_x(status, MPI_BYTE, bytes);
}
inline int pack(const void* in, MPI_Count count, MPI_Datatype type, void* out, MPI_Count size, MPI_Count* position) {
  return PMPI_Pack_c(in, count, type, out, size, position, MPI_COMM_SELF);
}
inline int unpack(const void* in, MPI_Count size, MPI_Count* position, void* out, MPI_Count count, MPI_Datatype type) {
  return PMPI_Unpack_c(in, size, position, out, count, type, MPI_COMM_SELF);
}
#endif

}  // namespace distopo::detail::mpi
