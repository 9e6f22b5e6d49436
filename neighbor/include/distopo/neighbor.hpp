#pragma once
// Neighborhood collectives over Cartesian, graph and distributed-graph
// communicators (MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w), their
// non-blocking and persistent forms), typed: buffers are contiguous ranges of
// trivially copyable elements (std::vector, std::array, std::span, C arrays),
// counts and displacements are in elements.
//
//   std::vector<double> send(out * 8), recv(in * 8);
//   distopo::neighbor_alltoall(grid, send, recv);
//
// Slot i of a receive buffer belongs to the i-th in-neighbor, slot j of a send
// buffer to the j-th out-neighbor (neighbor_degrees() gives the counts;
// Cartesian: per dimension the -1 then the +1 neighbor, MPI_PROC_NULL slots
// included and left untouched). A block sent towards +1 in a periodic
// dimension of size 1 or 2 lands in the receiver's -1 slot and vice versa; with
// repeated graph edges a->b the k-th occurrence at a pairs with the k-th at b.
// Semantics, isolation and the error policy: see <distopo/neighbor/raw.hpp>
// (which also holds the MPI-signature forms, distopo::raw::*, for custom MPI
// datatypes).
//
// Every buffer must hold the blocks of all slots: a block outside its buffer is
// MPI_ERR_BUFFER, count/displacement arrays shorter than the degree are
// MPI_ERR_ARG, an ambiguous element count is MPI_ERR_COUNT.
#include <mpi.h>

#include <concepts>
#include <cstddef>
#include <ranges>
#include <span>
#include <type_traits>

#include "distopo/neighbor/algorithm.hpp"
#include "distopo/neighbor/collective.hpp"
#include "distopo/neighbor/persistent_request.hpp"
#include "distopo/neighbor/raw.hpp"
#include "distopo/neighbor/raw_large_count.hpp"

namespace distopo {

template <class T>
concept NeighborElement = std::is_trivially_copyable_v<T> && !std::is_const_v<T>;

// A buffer of neighborhood collective elements, contiguous and sized.
template <class R>
concept NeighborBuffer =
    std::ranges::contiguous_range<R> && std::ranges::sized_range<R> && NeighborElement<std::ranges::range_value_t<R>>;

// A buffer the collective may write into.
template <class R>
concept WritableNeighborBuffer =
    NeighborBuffer<R> && !std::is_const_v<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

// A receive buffer for the elements of send buffer `Send`.
template <class R, class Send>
concept NeighborRecvBuffer =
    WritableNeighborBuffer<R> && std::same_as<std::ranges::range_value_t<R>, std::ranges::range_value_t<Send>>;

// The non-blocking and persistent forms return while the library still holds
// pointers into the buffers: a temporary may only be a view (std::span), not
// a container that would die at the end of the statement.
template <class R>
concept LastingBuffer = std::ranges::borrowed_range<R>;

// The typed calls' buffers as the library sees them: addresses, element
// counts and the element size (the MPI datatype is a contiguous run of that
// many bytes).
struct NeighborRanges {
  const void* send;
  std::size_t send_count;
  void* recv;
  std::size_t recv_count;
  std::size_t element_size;
};

template <class Send, class Recv>
NeighborRanges neighbor_ranges(const Send& send, Recv& recv) {
  return {std::ranges::data(send), std::ranges::size(send), std::ranges::data(recv), std::ranges::size(recv),
          sizeof(std::ranges::range_value_t<Send>)};
}

// alltoallw counts bytes: each side may hold any element type.
template <class Send, class Recv>
NeighborRanges neighbor_byte_ranges(const Send& send, Recv& recv) {
  return {std::ranges::data(send), std::ranges::size(send) * sizeof(std::ranges::range_value_t<Send>),
          std::ranges::data(recv), std::ranges::size(recv) * sizeof(std::ranges::range_value_t<Recv>), 1};
}

// One typed collective, described by the functions below before its form is
// chosen: run() (blocking), start() (non-blocking) or init() (persistent).
// The translation of ranges into counts and its checks happen there, in the
// library, next to the engine's own checks.
class TypedNeighborCall {
 public:
  static TypedNeighborCall allgather(MPI_Comm comm, const NeighborRanges& buffers);
  static TypedNeighborCall allgatherv(MPI_Comm comm, const NeighborRanges& buffers, std::span<const int> recvcounts,
                                      std::span<const int> displs);
  static TypedNeighborCall alltoall(MPI_Comm comm, const NeighborRanges& buffers);
  static TypedNeighborCall alltoallv(MPI_Comm comm, const NeighborRanges& buffers, std::span<const int> sendcounts,
                                     std::span<const int> sdispls, std::span<const int> recvcounts,
                                     std::span<const int> rdispls);
  static TypedNeighborCall alltoallw(MPI_Comm comm, const NeighborRanges& buffers, std::span<const int> sendcounts,
                                     std::span<const MPI_Aint> sdispls, std::span<const MPI_Datatype> sendtypes,
                                     std::span<const int> recvcounts, std::span<const MPI_Aint> rdispls,
                                     std::span<const MPI_Datatype> recvtypes);

  void run() const;
  [[nodiscard]] MPI_Request start() const;
  [[nodiscard]] PersistentRequest init() const;

  // What the call keeps of the caller's arguments (the library reads them).
  enum class Operation { allgather, allgatherv, alltoall, alltoallv, alltoallw };
  struct Parts {
    MPI_Comm comm;
    Operation operation;
    NeighborRanges buffers;
    std::span<const int> sendcounts{}, sdispls{}, recvcounts{}, rdispls{};  // allgatherv: recvcounts, rdispls
    std::span<const MPI_Aint> sdispls_bytes{}, rdispls_bytes{};             // alltoallw
    std::span<const MPI_Datatype> sendtypes{}, recvtypes{};                 // alltoallw
  };

 private:
  explicit TypedNeighborCall(const Parts& parts) : parts_(parts) {}
  Parts parts_;
};

// --- allgather: every rank sends `send` to each out-neighbor; recv holds
// indegree blocks of send's size (all ranks send the same count).
template <NeighborBuffer S, NeighborRecvBuffer<S> R>
void neighbor_allgather(MPI_Comm comm, S&& send, R&& recv) {
  TypedNeighborCall::allgather(comm, neighbor_ranges(send, recv)).run();
}
template <NeighborBuffer S, NeighborRecvBuffer<S> R>
requires LastingBuffer<S> && LastingBuffer<R>
[[nodiscard]] MPI_Request ineighbor_allgather(MPI_Comm comm, S&& send, R&& recv) {
  return TypedNeighborCall::allgather(comm, neighbor_ranges(send, recv)).start();
}
template <NeighborBuffer S, NeighborRecvBuffer<S> R>
requires LastingBuffer<S> && LastingBuffer<R>
[[nodiscard]] PersistentRequest neighbor_allgather_init(MPI_Comm comm, S&& send, R&& recv) {
  return TypedNeighborCall::allgather(comm, neighbor_ranges(send, recv)).init();
}

// --- allgatherv: block of in-neighbor i is recvcounts[i] elements at displs[i].
template <NeighborBuffer S, NeighborRecvBuffer<S> R>
void neighbor_allgatherv(MPI_Comm comm, S&& send, R&& recv, std::span<const int> recvcounts,
                         std::span<const int> displs) {
  TypedNeighborCall::allgatherv(comm, neighbor_ranges(send, recv), recvcounts, displs).run();
}
template <NeighborBuffer S, NeighborRecvBuffer<S> R>
requires LastingBuffer<S> && LastingBuffer<R>
[[nodiscard]] MPI_Request ineighbor_allgatherv(MPI_Comm comm, S&& send, R&& recv, std::span<const int> recvcounts,
                                               std::span<const int> displs) {
  return TypedNeighborCall::allgatherv(comm, neighbor_ranges(send, recv), recvcounts, displs).start();
}
template <NeighborBuffer S, NeighborRecvBuffer<S> R>
requires LastingBuffer<S> && LastingBuffer<R>
[[nodiscard]] PersistentRequest neighbor_allgatherv_init(MPI_Comm comm, S&& send, R&& recv,
                                                         std::span<const int> recvcounts, std::span<const int> displs) {
  return TypedNeighborCall::allgatherv(comm, neighbor_ranges(send, recv), recvcounts, displs).init();
}

// --- alltoall: send holds outdegree equal blocks, recv indegree equal blocks.
template <NeighborBuffer S, NeighborRecvBuffer<S> R>
void neighbor_alltoall(MPI_Comm comm, S&& send, R&& recv) {
  TypedNeighborCall::alltoall(comm, neighbor_ranges(send, recv)).run();
}
template <NeighborBuffer S, NeighborRecvBuffer<S> R>
requires LastingBuffer<S> && LastingBuffer<R>
[[nodiscard]] MPI_Request ineighbor_alltoall(MPI_Comm comm, S&& send, R&& recv) {
  return TypedNeighborCall::alltoall(comm, neighbor_ranges(send, recv)).start();
}
template <NeighborBuffer S, NeighborRecvBuffer<S> R>
requires LastingBuffer<S> && LastingBuffer<R>
[[nodiscard]] PersistentRequest neighbor_alltoall_init(MPI_Comm comm, S&& send, R&& recv) {
  return TypedNeighborCall::alltoall(comm, neighbor_ranges(send, recv)).init();
}

// --- alltoallv: counts and displacements per neighbor, in elements.
template <NeighborBuffer S, NeighborRecvBuffer<S> R>
void neighbor_alltoallv(MPI_Comm comm, S&& send, std::span<const int> sendcounts, std::span<const int> sdispls,
                        R&& recv, std::span<const int> recvcounts, std::span<const int> rdispls) {
  TypedNeighborCall::alltoallv(comm, neighbor_ranges(send, recv), sendcounts, sdispls, recvcounts, rdispls).run();
}
template <NeighborBuffer S, NeighborRecvBuffer<S> R>
requires LastingBuffer<S> && LastingBuffer<R>
[[nodiscard]] MPI_Request ineighbor_alltoallv(MPI_Comm comm, S&& send, std::span<const int> sendcounts,
                                              std::span<const int> sdispls, R&& recv, std::span<const int> recvcounts,
                                              std::span<const int> rdispls) {
  return TypedNeighborCall::alltoallv(comm, neighbor_ranges(send, recv), sendcounts, sdispls, recvcounts, rdispls)
      .start();
}
template <NeighborBuffer S, NeighborRecvBuffer<S> R>
requires LastingBuffer<S> && LastingBuffer<R>
[[nodiscard]] PersistentRequest neighbor_alltoallv_init(MPI_Comm comm, S&& send, std::span<const int> sendcounts,
                                                        std::span<const int> sdispls, R&& recv,
                                                        std::span<const int> recvcounts, std::span<const int> rdispls) {
  return TypedNeighborCall::alltoallv(comm, neighbor_ranges(send, recv), sendcounts, sdispls, recvcounts, rdispls)
      .init();
}

// --- alltoallw: the MPI datatype escape hatch. Byte displacements and one
// datatype per neighbor; each buffer may hold any element type (blocks are
// checked against the buffers' sizes in bytes with the datatypes' extents).
template <NeighborBuffer S, WritableNeighborBuffer R>
void neighbor_alltoallw(MPI_Comm comm, S&& send, std::span<const int> sendcounts, std::span<const MPI_Aint> sdispls,
                        std::span<const MPI_Datatype> sendtypes, R&& recv, std::span<const int> recvcounts,
                        std::span<const MPI_Aint> rdispls, std::span<const MPI_Datatype> recvtypes) {
  TypedNeighborCall::alltoallw(comm, neighbor_byte_ranges(send, recv), sendcounts, sdispls, sendtypes, recvcounts,
                               rdispls, recvtypes)
      .run();
}
template <NeighborBuffer S, WritableNeighborBuffer R>
requires LastingBuffer<S> && LastingBuffer<R>
[[nodiscard]] MPI_Request ineighbor_alltoallw(MPI_Comm comm, S&& send, std::span<const int> sendcounts,
                                              std::span<const MPI_Aint> sdispls,
                                              std::span<const MPI_Datatype> sendtypes, R&& recv,
                                              std::span<const int> recvcounts, std::span<const MPI_Aint> rdispls,
                                              std::span<const MPI_Datatype> recvtypes) {
  return TypedNeighborCall::alltoallw(comm, neighbor_byte_ranges(send, recv), sendcounts, sdispls, sendtypes,
                                      recvcounts, rdispls, recvtypes)
      .start();
}
template <NeighborBuffer S, WritableNeighborBuffer R>
requires LastingBuffer<S> && LastingBuffer<R>
[[nodiscard]] PersistentRequest neighbor_alltoallw_init(MPI_Comm comm, S&& send, std::span<const int> sendcounts,
                                                        std::span<const MPI_Aint> sdispls,
                                                        std::span<const MPI_Datatype> sendtypes, R&& recv,
                                                        std::span<const int> recvcounts,
                                                        std::span<const MPI_Aint> rdispls,
                                                        std::span<const MPI_Datatype> recvtypes) {
  return TypedNeighborCall::alltoallw(comm, neighbor_byte_ranges(send, recv), sendcounts, sdispls, sendtypes,
                                      recvcounts, rdispls, recvtypes)
      .init();
}

}  // namespace distopo
