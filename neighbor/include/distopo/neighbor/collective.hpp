#pragma once
// One neighborhood collective, described once by the standard's arguments and
// completed in one of the three forms MPI defines: blocking (run), non-blocking
// (start: an MPI_Request) or persistent (init: a PersistentRequest). Both
// fronts, the typed API (<distopo/neighbor.hpp>) and the MPI-signature forms
// (<distopo/neighbor/raw.hpp>), describe a call here and pick its form; one
// engine serves every operation in every form.
#include <mpi.h>

#include <cstddef>
#include <optional>
#include <utility>
#include <variant>

#include "distopo/core/error.hpp"
#include "distopo/neighbor/persistent_request.hpp"

namespace distopo {

// In- and out-degree as neighborhood collectives count them (Cartesian:
// 2 * ndims each, MPI_PROC_NULL slots included). MPI_ERR_COMM for a null
// communicator, MPI_ERR_TOPOLOGY without a topology. Local.
struct NeighborDegrees {
  int indegree;
  int outdegree;
};
NeighborDegrees neighbor_degrees(MPI_Comm comm);

namespace detail {

// The standard's argument lists, one per operation; kName names the
// operation in error messages. Counts are MPI_Count inside (a block is posted
// with MPI_Isend_c and friends); the arrays keep the caller's types: int
// counts and displacements in the standard forms, MPI_Count counts and
// MPI_Aint displacements in the large-count ones (MPI_Neighbor_*_c).

// allgather and alltoall take the same arguments: one count and one datatype
// per side.
struct UniformArgs {
  const void* sendbuf;
  MPI_Count sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  MPI_Count recvcount;
  MPI_Datatype recvtype;
};
struct AllgatherArgs : UniformArgs {
  static constexpr const char* kName = "neighbor_allgather";
};
struct AlltoallArgs : UniformArgs {
  static constexpr const char* kName = "neighbor_alltoall";
};
template <class Count, class Displacement>
struct BasicAllgathervArgs {
  static constexpr const char* kName = "neighbor_allgatherv";
  const void* sendbuf;
  MPI_Count sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  const Count* recvcounts;
  const Displacement* displs;
  MPI_Datatype recvtype;
};
template <class Count, class Displacement>
struct BasicAlltoallvArgs {
  static constexpr const char* kName = "neighbor_alltoallv";
  const void* sendbuf;
  const Count* sendcounts;
  const Displacement* sdispls;
  MPI_Datatype sendtype;
  void* recvbuf;
  const Count* recvcounts;
  const Displacement* rdispls;
  MPI_Datatype recvtype;
};
template <class Count>
struct BasicAlltoallwArgs {
  static constexpr const char* kName = "neighbor_alltoallw";
  const void* sendbuf;
  const Count* sendcounts;
  const MPI_Aint* sdispls;
  const MPI_Datatype* sendtypes;
  void* recvbuf;
  const Count* recvcounts;
  const MPI_Aint* rdispls;
  const MPI_Datatype* recvtypes;
};
using AllgathervArgs = BasicAllgathervArgs<int, int>;
using AlltoallvArgs = BasicAlltoallvArgs<int, int>;
using AlltoallwArgs = BasicAlltoallwArgs<int>;
using LargeAllgathervArgs = BasicAllgathervArgs<MPI_Count, MPI_Aint>;
using LargeAlltoallvArgs = BasicAlltoallvArgs<MPI_Count, MPI_Aint>;
using LargeAlltoallwArgs = BasicAlltoallwArgs<MPI_Count>;
using NeighborArgs = std::variant<AllgatherArgs, AllgathervArgs, LargeAllgathervArgs, AlltoallArgs, AlltoallvArgs,
                                  LargeAlltoallvArgs, AlltoallwArgs, LargeAlltoallwArgs>;

// What a typed caller adds to the standard's arguments: the sizes of its
// buffers (every slot's block must lie inside them), and an error it found
// while translating ranges into counts, which takes the same no-hang path as
// the engine's own checks.
struct TypedBounds {
  std::size_t send_bytes = 0;
  std::size_t recv_bytes = 0;
  std::optional<LocalError> error;
};

class NeighborCall {
 public:
  NeighborCall(MPI_Comm comm, NeighborArgs args, std::optional<TypedBounds> typed = std::nullopt)
      : comm_(comm), args_(args), typed_(std::move(typed)) {}

  // Blocking: returns when this rank's sends and receives are complete.
  void run() const;
  // Non-blocking: *request completes with MPI_Wait, MPI_Test and friends. A
  // null `request` is MPI_ERR_REQUEST (after the no-hang exchange).
  void start(MPI_Request* request) const;
  [[nodiscard]] MPI_Request start() const {
    MPI_Request request = MPI_REQUEST_NULL;
    start(&request);
    return request;
  }
  // Persistent: inactive until start(). Throws without communicating.
  [[nodiscard]] PersistentRequest init() const;

 private:
  MPI_Comm comm_;
  NeighborArgs args_;
  std::optional<TypedBounds> typed_;
};

}  // namespace detail
}  // namespace distopo
