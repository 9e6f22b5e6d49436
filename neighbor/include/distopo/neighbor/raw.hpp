#pragma once
// Neighborhood collectives with the standard's argument lists: the entry
// points the C API forwards MPI_Neighbor_*, MPI_Ineighbor_* and
// MPI_Neighbor_*_init to, and the escape hatch for callers with their own MPI
// datatypes. Most C++ code wants the typed API in <distopo/neighbor.hpp>.
//
// Semantics (all three topology kinds):
//   - Buffers are indexed by the in/out neighbor sequence; MPI_PROC_NULL slots
//     (open Cartesian ends) are neither sent nor written.
//   - Isolation: traffic runs on a channel shared by the communicators over
//     the same ranks in the same order (distopo/core/shared_channel.hpp; it
//     returns errors as codes, reported on `comm`), in a range of tags leased
//     to `comm` at its first neighborhood collective (that first call is
//     therefore collective over `comm`: one allreduce) and cached on it. User
//     messages on `comm` can never match ours; every started collective gets
//     its own tag of the range, and collectives started in the same order on
//     every rank (as MPI requires) also match in that order on each
//     (source, tag).
//   - Blocking forms post all receives, then all sends, then wait.
//   - Non-blocking forms return a generalized request (MPICH's
//     MPIX_Grequest_class with a poll function that tests the underlying
//     sends and receives, and a wait function that waits for them), so
//     MPI_Wait/Test/Waitall/Testall/Waitany/... complete and progress it
//     (MPICH's MPI_Request_get_status does not: see
//     distopo/neighbor/nonblocking_request.hpp, through which the C API
//     completes them). MPI_Cancel has no effect and MPI_Request_free before
//     completion is erroneous (as for every non-blocking collective).
//   - Persistent forms return a distopo::PersistentRequest holding persistent
//     point-to-point requests (MPI_Send_init/MPI_Recv_init in the same
//     posting order, one tag fixed at init); start() is one MPI_Startall.
//   - Displacements may be negative (a block may lie before the buffer
//     argument, or anywhere from MPI_BOTTOM); every block's address is
//     computed and checked as an MPI_Aint.
//   - Errors (distopo::Error): MPI_ERR_COMM for a null communicator,
//     MPI_ERR_TOPOLOGY when `comm` has no topology (the same on every rank),
//     MPI_ERR_COUNT for a negative count or a block of more bytes than an
//     MPI_Aint holds, MPI_ERR_ARG for a missing array or a displacement that
//     takes a block's address beyond MPI_Aint, MPI_ERR_TYPE for
//     MPI_DATATYPE_NULL, MPI_ERR_BUFFER for MPI_IN_PLACE (not allowed here)
//     or a null buffer with data. Validation is local, before anything is
//     sent. A rank that fails it still completes its part of the exchange
//     with empty messages (and discards what it receives) before throwing, so
//     its neighbors do not hang; their slots for that rank are left
//     unspecified (the program is erroneous). Persistent inits throw without
//     communicating: a rank whose init failed must not take part in later
//     starts. A failure while the messages move (MPI_ERR_TRUNCATE when a
//     neighbor sends more than its slot holds, or an MPI call that fails) is
//     the collective's error, thrown where it completes: by the blocking
//     call, by the C API's completion calls (on the communicator's handler)
//     or PersistentRequest::wait/test; every other message of the collective
//     is still completed.
#include <mpi.h>

#include "distopo/neighbor/persistent_request.hpp"

namespace distopo::raw {

// --- allgather -------------------------------------------------------------
void neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm);
void ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
[[nodiscard]] PersistentRequest neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                                        void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                                        MPI_Comm comm, MPI_Info = MPI_INFO_NULL);

// --- allgatherv ------------------------------------------------------------
void neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
void ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Request* request);
[[nodiscard]] PersistentRequest neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                                         void* recvbuf, const int recvcounts[], const int displs[],
                                                         MPI_Datatype recvtype, MPI_Comm comm,
                                                         MPI_Info = MPI_INFO_NULL);

// --- alltoall --------------------------------------------------------------
void neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm);
void ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
[[nodiscard]] PersistentRequest neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                                       void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                                       MPI_Comm comm, MPI_Info = MPI_INFO_NULL);

// --- alltoallv -------------------------------------------------------------
void neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm);
void ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Request* request);
[[nodiscard]] PersistentRequest neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[],
                                                        const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                                        const int recvcounts[], const int rdispls[],
                                                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info = MPI_INFO_NULL);

// --- alltoallw -------------------------------------------------------------
void neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                        const MPI_Datatype recvtypes[], MPI_Comm comm);
void ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                         const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request);
[[nodiscard]] PersistentRequest neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[],
                                                        const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                                        void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                                        const MPI_Datatype recvtypes[], MPI_Comm comm,
                                                        MPI_Info = MPI_INFO_NULL);

}  // namespace distopo::raw
