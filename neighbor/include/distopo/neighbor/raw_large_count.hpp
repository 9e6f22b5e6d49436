#pragma once
// The MPI-4 large-count forms of the neighborhood collectives (the C API's
// MPI_Neighbor_*_c, MPI_Ineighbor_*_c and MPI_Neighbor_*_init_c): MPI_Count
// counts and MPI_Aint displacements, otherwise the same calls as in
// <distopo/neighbor/raw.hpp>, over the same engine, with the same pairing of
// blocks and slots and the same errors. A block is posted with MPI_Isend_c
// and friends in every form; one whose bytes (count x extent) or address an
// MPI_Aint cannot hold is MPI_ERR_COUNT, a displacement that takes the
// address there is MPI_ERR_ARG.
#include <mpi.h>

#include "distopo/neighbor/persistent_request.hpp"

namespace distopo::raw {

// --- allgather -------------------------------------------------------------
void neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
void ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                           MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
[[nodiscard]] PersistentRequest neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount,
                                                          MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                                          MPI_Datatype recvtype, MPI_Comm comm,
                                                          MPI_Info = MPI_INFO_NULL);

// --- allgatherv ------------------------------------------------------------
void neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                           const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm);
void ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                            const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request);
[[nodiscard]] PersistentRequest neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount,
                                                           MPI_Datatype sendtype, void* recvbuf,
                                                           const MPI_Count recvcounts[], const MPI_Aint displs[],
                                                           MPI_Datatype recvtype, MPI_Comm comm,
                                                           MPI_Info = MPI_INFO_NULL);

// --- alltoall --------------------------------------------------------------
void neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
void ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
[[nodiscard]] PersistentRequest neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount,
                                                         MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                                         MPI_Datatype recvtype, MPI_Comm comm,
                                                         MPI_Info = MPI_INFO_NULL);

// --- alltoallv -------------------------------------------------------------
void neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm);
void ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                           MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
[[nodiscard]] PersistentRequest neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                                          const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                                          void* recvbuf, const MPI_Count recvcounts[],
                                                          const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                                          MPI_Comm comm, MPI_Info = MPI_INFO_NULL);

// --- alltoallw -------------------------------------------------------------
void neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
void ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                           MPI_Request* request);
[[nodiscard]] PersistentRequest neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                                          void* recvbuf, const MPI_Count recvcounts[],
                                                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                                          MPI_Comm comm, MPI_Info = MPI_INFO_NULL);

}  // namespace distopo::raw
