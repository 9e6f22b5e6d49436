#pragma once
// Neighborhood collectives over Cartesian, graph and distributed-graph
// communicators (MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w), their
// non-blocking and persistent forms), typed: buffers are spans of trivially
// copyable elements, counts and displacements are in elements.
//
//   distopo::neighbor_alltoall(grid, std::span<const double>(send), std::span<double>(recv));
//
// Slot i of a receive buffer belongs to the i-th in-neighbor, slot j of a send
// buffer to the j-th out-neighbor (neighbor_degrees() gives the counts;
// Cartesian: per dimension the -1 then the +1 neighbor, MPI_PROC_NULL slots
// included and left untouched). A block sent towards +1 in a periodic
// dimension of size 1 or 2 lands in the receiver's -1 slot and vice versa; with
// repeated graph edges a->b the k-th occurrence at a pairs with the k-th at b.
// Semantics, isolation and the error policy: see
// distopo/core/neighbor_collective.hpp (which also holds the untyped
// MPI-signature forms, distopo::raw::*, for custom MPI datatypes).
//
// Every span must hold the blocks of all slots: a block outside its span is
// MPI_ERR_BUFFER, count/displacement arrays shorter than the degree are
// MPI_ERR_ARG, an ambiguous element count is MPI_ERR_COUNT.
#include <mpi.h>

#include <climits>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "distopo/core/error.hpp"
#include "distopo/core/neighbor_collective.hpp"

namespace distopo {

template <class T>
concept NeighborElement = std::is_trivially_copyable_v<T> && !std::is_const_v<T>;

namespace detail {

template <class T>
MPI_Datatype element_type() {
  return contiguous_bytes(sizeof(T));
}

inline void note(std::optional<LocalError>& error, int error_class, const char* caller, const std::string& what) {
  if (!error) error = LocalError{error_class, std::string(caller) + ": " + what};
}

inline int element_count(std::size_t n, std::optional<LocalError>& error, const char* caller, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX)) {
    note(error, MPI_ERR_COUNT, caller, std::string(what) + " has more than INT_MAX elements");
    return 0;
  }
  return static_cast<int>(n);
}

// Elements per neighbor when `elements` are split evenly over `degree` slots.
inline int per_slot(std::size_t elements, int degree, std::optional<LocalError>& error, const char* caller,
                    const char* what) {
  if (degree == 0) return 0;
  const auto d = static_cast<std::size_t>(degree);
  if (elements % d != 0) {
    note(error, MPI_ERR_COUNT, caller,
         std::string(what) + " holds " + std::to_string(elements) + " elements, not a multiple of the degree " +
             std::to_string(degree));
  }
  return element_count(elements / d, error, caller, what);
}

// Array of one entry per neighbor: shorter than the degree is an error (and
// is then not read).
template <class A>
const A* per_neighbor(std::span<const A> values, int degree, std::optional<LocalError>& error, const char* caller,
                      const char* what) {
  if (values.size() < static_cast<std::size_t>(degree)) {
    note(error, MPI_ERR_ARG, caller,
         std::string(what) + " has " + std::to_string(values.size()) + " entries for " + std::to_string(degree) +
             " neighbors");
    return nullptr;
  }
  return values.data();
}

// Where a call's result goes: nothing (blocking), a request (non-blocking)
// or a persistent request.
struct Target {
  Mode mode;
  MPI_Request* request = nullptr;
  PersistentRequest* persistent = nullptr;
};
inline Target blocking() { return {Mode::blocking}; }
inline Target nonblocking(MPI_Request* request) { return {Mode::nonblocking, request}; }
inline Target persistent(PersistentRequest* request) { return {Mode::persistent, nullptr, request}; }

template <class T>
CallOptions typed_call(std::span<const T> send, std::span<T> recv, BufferBounds& bounds, const Target& target) {
  bounds = {send.size_bytes(), recv.size_bytes()};
  CallOptions call;
  call.mode = target.mode;
  call.request = target.request;
  call.persistent = target.persistent;
  call.bounds = &bounds;
  return call;
}

// The five operations, any mode.
template <class T>
void allgather(MPI_Comm comm, std::span<const T> send, std::span<T> recv, const Target& target) {
  BufferBounds bounds{};
  CallOptions call = typed_call(send, recv, bounds, target);
  const int count = element_count(send.size(), call.error, "neighbor_allgather", "send");
  neighbor_allgather(send.data(), count, element_type<T>(), recv.data(), count, element_type<T>(), comm, call);
}

template <class T>
void allgatherv(MPI_Comm comm, std::span<const T> send, std::span<T> recv, std::span<const int> recvcounts,
                std::span<const int> displs, const Target& target) {
  BufferBounds bounds{};
  CallOptions call = typed_call(send, recv, bounds, target);
  const char* caller = "neighbor_allgatherv";
  const int in = neighbor_degrees(comm).indegree;
  const int count = element_count(send.size(), call.error, caller, "send");
  const int* counts = per_neighbor(recvcounts, in, call.error, caller, "recvcounts");
  const int* displacements = per_neighbor(displs, in, call.error, caller, "displs");
  neighbor_allgatherv(send.data(), count, element_type<T>(), recv.data(), counts, displacements, element_type<T>(),
                      comm, call);
}

template <class T>
void alltoall(MPI_Comm comm, std::span<const T> send, std::span<T> recv, const Target& target) {
  BufferBounds bounds{};
  CallOptions call = typed_call(send, recv, bounds, target);
  const char* caller = "neighbor_alltoall";
  const NeighborDegrees degrees = neighbor_degrees(comm);
  const int send_count = per_slot(send.size(), degrees.outdegree, call.error, caller, "send");
  const int recv_count = per_slot(recv.size(), degrees.indegree, call.error, caller, "recv");
  neighbor_alltoall(send.data(), send_count, element_type<T>(), recv.data(), recv_count, element_type<T>(), comm,
                    call);
}

template <class T>
void alltoallv(MPI_Comm comm, std::span<const T> send, std::span<const int> sendcounts, std::span<const int> sdispls,
               std::span<T> recv, std::span<const int> recvcounts, std::span<const int> rdispls,
               const Target& target) {
  BufferBounds bounds{};
  CallOptions call = typed_call(send, recv, bounds, target);
  const char* caller = "neighbor_alltoallv";
  const NeighborDegrees degrees = neighbor_degrees(comm);
  const int* scounts = per_neighbor(sendcounts, degrees.outdegree, call.error, caller, "sendcounts");
  const int* sdisps = per_neighbor(sdispls, degrees.outdegree, call.error, caller, "sdispls");
  const int* rcounts = per_neighbor(recvcounts, degrees.indegree, call.error, caller, "recvcounts");
  const int* rdisps = per_neighbor(rdispls, degrees.indegree, call.error, caller, "rdispls");
  neighbor_alltoallv(send.data(), scounts, sdisps, element_type<T>(), recv.data(), rcounts, rdisps,
                     element_type<T>(), comm, call);
}

inline void alltoallw(MPI_Comm comm, std::span<const std::byte> send, std::span<const int> sendcounts,
                      std::span<const MPI_Aint> sdispls, std::span<const MPI_Datatype> sendtypes,
                      std::span<std::byte> recv, std::span<const int> recvcounts, std::span<const MPI_Aint> rdispls,
                      std::span<const MPI_Datatype> recvtypes, const Target& target) {
  BufferBounds bounds{};
  CallOptions call = typed_call(send, recv, bounds, target);
  const char* caller = "neighbor_alltoallw";
  const NeighborDegrees degrees = neighbor_degrees(comm);
  const int* scounts = per_neighbor(sendcounts, degrees.outdegree, call.error, caller, "sendcounts");
  const MPI_Aint* sdisps = per_neighbor(sdispls, degrees.outdegree, call.error, caller, "sdispls");
  const MPI_Datatype* stypes = per_neighbor(sendtypes, degrees.outdegree, call.error, caller, "sendtypes");
  const int* rcounts = per_neighbor(recvcounts, degrees.indegree, call.error, caller, "recvcounts");
  const MPI_Aint* rdisps = per_neighbor(rdispls, degrees.indegree, call.error, caller, "rdispls");
  const MPI_Datatype* rtypes = per_neighbor(recvtypes, degrees.indegree, call.error, caller, "recvtypes");
  neighbor_alltoallw(send.data(), scounts, sdisps, stypes, recv.data(), rcounts, rdisps, rtypes, comm, call);
}

}  // namespace detail

// --- allgather: every rank sends `send` to each out-neighbor; recv holds
// indegree blocks of send.size() elements (all ranks send the same count).
template <NeighborElement T>
void neighbor_allgather(MPI_Comm comm, std::span<const T> send, std::span<T> recv) {
  detail::allgather(comm, send, recv, detail::blocking());
}
template <NeighborElement T>
[[nodiscard]] MPI_Request ineighbor_allgather(MPI_Comm comm, std::span<const T> send, std::span<T> recv) {
  MPI_Request request = MPI_REQUEST_NULL;
  detail::allgather(comm, send, recv, detail::nonblocking(&request));
  return request;
}
template <NeighborElement T>
[[nodiscard]] PersistentRequest neighbor_allgather_init(MPI_Comm comm, std::span<const T> send, std::span<T> recv) {
  PersistentRequest request;
  detail::allgather(comm, send, recv, detail::persistent(&request));
  return request;
}

// --- allgatherv: block of in-neighbor i is recvcounts[i] elements at displs[i].
template <NeighborElement T>
void neighbor_allgatherv(MPI_Comm comm, std::span<const T> send, std::span<T> recv, std::span<const int> recvcounts,
                         std::span<const int> displs) {
  detail::allgatherv(comm, send, recv, recvcounts, displs, detail::blocking());
}
template <NeighborElement T>
[[nodiscard]] MPI_Request ineighbor_allgatherv(MPI_Comm comm, std::span<const T> send, std::span<T> recv,
                                               std::span<const int> recvcounts, std::span<const int> displs) {
  MPI_Request request = MPI_REQUEST_NULL;
  detail::allgatherv(comm, send, recv, recvcounts, displs, detail::nonblocking(&request));
  return request;
}
template <NeighborElement T>
[[nodiscard]] PersistentRequest neighbor_allgatherv_init(MPI_Comm comm, std::span<const T> send, std::span<T> recv,
                                                         std::span<const int> recvcounts,
                                                         std::span<const int> displs) {
  PersistentRequest request;
  detail::allgatherv(comm, send, recv, recvcounts, displs, detail::persistent(&request));
  return request;
}

// --- alltoall: send holds outdegree equal blocks, recv indegree equal blocks.
template <NeighborElement T>
void neighbor_alltoall(MPI_Comm comm, std::span<const T> send, std::span<T> recv) {
  detail::alltoall(comm, send, recv, detail::blocking());
}
template <NeighborElement T>
[[nodiscard]] MPI_Request ineighbor_alltoall(MPI_Comm comm, std::span<const T> send, std::span<T> recv) {
  MPI_Request request = MPI_REQUEST_NULL;
  detail::alltoall(comm, send, recv, detail::nonblocking(&request));
  return request;
}
template <NeighborElement T>
[[nodiscard]] PersistentRequest neighbor_alltoall_init(MPI_Comm comm, std::span<const T> send, std::span<T> recv) {
  PersistentRequest request;
  detail::alltoall(comm, send, recv, detail::persistent(&request));
  return request;
}

// --- alltoallv: counts and displacements per neighbor, in elements.
template <NeighborElement T>
void neighbor_alltoallv(MPI_Comm comm, std::span<const T> send, std::span<const int> sendcounts,
                        std::span<const int> sdispls, std::span<T> recv, std::span<const int> recvcounts,
                        std::span<const int> rdispls) {
  detail::alltoallv(comm, send, sendcounts, sdispls, recv, recvcounts, rdispls, detail::blocking());
}
template <NeighborElement T>
[[nodiscard]] MPI_Request ineighbor_alltoallv(MPI_Comm comm, std::span<const T> send, std::span<const int> sendcounts,
                                              std::span<const int> sdispls, std::span<T> recv,
                                              std::span<const int> recvcounts, std::span<const int> rdispls) {
  MPI_Request request = MPI_REQUEST_NULL;
  detail::alltoallv(comm, send, sendcounts, sdispls, recv, recvcounts, rdispls, detail::nonblocking(&request));
  return request;
}
template <NeighborElement T>
[[nodiscard]] PersistentRequest neighbor_alltoallv_init(MPI_Comm comm, std::span<const T> send,
                                                        std::span<const int> sendcounts, std::span<const int> sdispls,
                                                        std::span<T> recv, std::span<const int> recvcounts,
                                                        std::span<const int> rdispls) {
  PersistentRequest request;
  detail::alltoallv(comm, send, sendcounts, sdispls, recv, recvcounts, rdispls, detail::persistent(&request));
  return request;
}

// --- alltoallw: the MPI datatype escape hatch. Byte buffers, byte
// displacements and one datatype per neighbor (blocks are checked against
// the spans with the datatypes' extents).
inline void neighbor_alltoallw(MPI_Comm comm, std::span<const std::byte> send, std::span<const int> sendcounts,
                               std::span<const MPI_Aint> sdispls, std::span<const MPI_Datatype> sendtypes,
                               std::span<std::byte> recv, std::span<const int> recvcounts,
                               std::span<const MPI_Aint> rdispls, std::span<const MPI_Datatype> recvtypes) {
  detail::alltoallw(comm, send, sendcounts, sdispls, sendtypes, recv, recvcounts, rdispls, recvtypes,
                    detail::blocking());
}
[[nodiscard]] inline MPI_Request ineighbor_alltoallw(MPI_Comm comm, std::span<const std::byte> send,
                                                     std::span<const int> sendcounts, std::span<const MPI_Aint> sdispls,
                                                     std::span<const MPI_Datatype> sendtypes, std::span<std::byte> recv,
                                                     std::span<const int> recvcounts, std::span<const MPI_Aint> rdispls,
                                                     std::span<const MPI_Datatype> recvtypes) {
  MPI_Request request = MPI_REQUEST_NULL;
  detail::alltoallw(comm, send, sendcounts, sdispls, sendtypes, recv, recvcounts, rdispls, recvtypes,
                    detail::nonblocking(&request));
  return request;
}
[[nodiscard]] inline PersistentRequest neighbor_alltoallw_init(
    MPI_Comm comm, std::span<const std::byte> send, std::span<const int> sendcounts, std::span<const MPI_Aint> sdispls,
    std::span<const MPI_Datatype> sendtypes, std::span<std::byte> recv, std::span<const int> recvcounts,
    std::span<const MPI_Aint> rdispls, std::span<const MPI_Datatype> recvtypes) {
  PersistentRequest request;
  detail::alltoallw(comm, send, sendcounts, sdispls, sendtypes, recv, recvcounts, rdispls, recvtypes,
                    detail::persistent(&request));
  return request;
}

}  // namespace distopo
