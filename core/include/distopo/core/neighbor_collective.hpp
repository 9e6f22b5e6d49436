#pragma once
// Neighborhood collectives with the standard's argument lists: the entry
// points the C API forwards MPI_Neighbor_*, MPI_Ineighbor_* and
// MPI_Neighbor_*_init to, and the escape hatch for callers with their own MPI
// datatypes. Most C++ code wants the typed layer in <distopo/neighbor.hpp>.
//
// Semantics (all three topology kinds; see neighbor_sequence.hpp for the
// slot order and the pairing rule):
//   - Buffers are indexed by the in/out neighbor sequence; MPI_PROC_NULL slots
//     (open Cartesian ends) are neither sent nor written.
//   - Isolation: traffic runs on a private duplicate of `comm`, made at the
//     first neighborhood collective on `comm` (that first call is therefore
//     also an MPI_Comm_dup, collective over `comm`) and cached on it. User
//     messages on `comm` can never match ours; every started collective gets
//     its own tag, and collectives started in the same order on every rank (as
//     MPI requires) also match in that order on each (source, tag).
//   - Blocking forms post all receives, then all sends, then wait.
//   - Non-blocking forms return a generalized request (MPICH's
//     MPIX_Grequest_class with a poll function that tests the underlying
//     sends and receives, and a wait function that waits for them), so
//     MPI_Wait/Test/Waitall/Testall/Waitany/... complete and progress it.
//     MPI_Cancel has no effect and MPI_Request_free before completion is
//     erroneous (as for every non-blocking collective).
//   - Persistent forms return a distopo::PersistentRequest holding persistent
//     point-to-point requests (MPI_Send_init/MPI_Recv_init in the same
//     posting order, one tag fixed at init); start() is one MPI_Startall.
//     Starts must happen in the same order on all ranks (as MPI-4 requires).
//   - Errors (distopo::Error): MPI_ERR_COMM for a null communicator,
//     MPI_ERR_TOPOLOGY when `comm` has no topology (the same on every rank),
//     MPI_ERR_COUNT for a negative count, MPI_ERR_ARG for a negative
//     displacement or missing array, MPI_ERR_TYPE for MPI_DATATYPE_NULL,
//     MPI_ERR_BUFFER for MPI_IN_PLACE (not allowed here) or a null buffer with
//     data. Validation is local, before anything is sent. A rank that fails it
//     still completes its part of the exchange with empty messages (and
//     discards what it receives) before throwing, so its neighbors do not
//     hang; their slots for that rank are left unspecified (the program is
//     erroneous). Persistent inits throw without communicating: a rank whose
//     init failed must not take part in later starts.
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <optional>

#include "distopo/core/element_type.hpp"
#include "distopo/core/error.hpp"

namespace distopo {

namespace detail {
struct PersistentCollective;  // the engine's persistent sends and receives
}

// A persistent neighborhood collective (MPI-4 "init once, start many times"):
// inactive after init; start() posts the prepared sends and receives,
// wait()/test() complete them. The buffers and the arguments given at init
// are used by every start. Movable; destroying an active one waits for it.
//
// Not an MPI_Request: MPICH 4.0.2's generalized requests cannot be persistent
// (MPI_Start rejects them), and MPICH's own MPI_Neighbor_alltoallw_init was
// measured to drop blocks on graphs whose repeated edges mix the calling rank
// and others, so it cannot carry distopo's pairing rule either. A C API that
// must return an MPI_Request for MPI_Neighbor_*_init needs to map its handle
// to this object in its MPI_Start/MPI_Wait wrappers.
class PersistentRequest {
 public:
  PersistentRequest() noexcept;
  explicit PersistentRequest(std::unique_ptr<detail::PersistentCollective> collective) noexcept;
  PersistentRequest(PersistentRequest&&) noexcept;
  PersistentRequest& operator=(PersistentRequest&&) noexcept;
  ~PersistentRequest();

  void start();
  void wait();
  [[nodiscard]] bool test();
  [[nodiscard]] bool active() const noexcept;
  [[nodiscard]] explicit operator bool() const noexcept { return collective_ != nullptr; }

 private:
  std::unique_ptr<detail::PersistentCollective> collective_;
};

}  // namespace distopo

namespace distopo::raw {

// --- blocking ------------------------------------------------------------
void neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm);
void neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
void neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm);
void neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm);
void neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                        const MPI_Datatype recvtypes[], MPI_Comm comm);

// --- non-blocking (the request completes with MPI_Wait and friends) -------
void ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
void ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Request* request);
void ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
void ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Request* request);
void ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                         const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request);

// --- persistent (inactive until start(); start/wait any number of times) ---
PersistentRequest neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Info info = MPI_INFO_NULL);
PersistentRequest neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                           MPI_Comm comm, MPI_Info info = MPI_INFO_NULL);
PersistentRequest neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Info info = MPI_INFO_NULL);
PersistentRequest neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                          MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                          const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Info info = MPI_INFO_NULL);
PersistentRequest neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                          const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                          MPI_Info info = MPI_INFO_NULL);

}  // namespace distopo::raw

namespace distopo {

// In- and out-degree as neighborhood collectives count them (Cartesian:
// 2 * ndims each, MPI_PROC_NULL slots included). MPI_ERR_TOPOLOGY without a
// topology. Local.
struct NeighborDegrees {
  int indegree;
  int outdegree;
};
NeighborDegrees neighbor_degrees(MPI_Comm comm);

namespace detail {
// What the typed layer (<distopo/neighbor.hpp>) adds to a call: the sizes of
// its spans in bytes, checked against every slot's block once extents are
// known, and an error it found itself (e.g. a span of the wrong length) that
// must go through the same no-hang path as the engine's own checks.
struct BufferBounds {
  std::size_t send_bytes;
  std::size_t recv_bytes;
};
enum class Mode { blocking, nonblocking, persistent };
struct CallOptions {
  Mode mode = Mode::blocking;
  MPI_Request* request = nullptr;           // non-blocking forms
  PersistentRequest* persistent = nullptr;  // persistent forms
  const BufferBounds* bounds = nullptr;
  std::optional<LocalError> error;
};

void neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, const CallOptions& call);
void neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                         const CallOptions& call);
void neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, const CallOptions& call);
void neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm, const CallOptions& call);
void neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                        const MPI_Datatype recvtypes[], MPI_Comm comm, const CallOptions& call);

}  // namespace detail

}  // namespace distopo
