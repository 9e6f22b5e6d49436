// The typed front's five operations: ranges translated into the standard's
// arguments (counts in elements of a contiguous byte type), plus the buffer
// sizes the engine checks every block against.
#include "argument_checks.hpp"
#include "distopo/core/element_type.hpp"
#include "distopo/neighbor.hpp"

namespace distopo::detail {
namespace {

TypedBounds bounds_of(const TypedBuffers& b) {
  return {b.send_count * b.element_size, b.recv_count * b.element_size, std::nullopt};
}

}  // namespace

NeighborCall typed_allgather(MPI_Comm comm, const TypedBuffers& b) {
  TypedBounds bounds = bounds_of(b);
  const int count = element_count(b.send_count, bounds.error, AllgatherArgs::kName, "send");
  const MPI_Datatype type = contiguous_bytes(b.element_size);
  return {comm, AllgatherArgs{b.send, count, type, b.recv, count, type}, std::move(bounds)};
}

NeighborCall typed_allgatherv(MPI_Comm comm, const TypedBuffers& b, std::span<const int> recvcounts,
                              std::span<const int> displs) {
  const char* caller = AllgathervArgs::kName;
  TypedBounds bounds = bounds_of(b);
  const int in = neighbor_degrees(comm).indegree;
  const int count = element_count(b.send_count, bounds.error, caller, "send");
  const int* counts = per_neighbor(recvcounts, in, bounds.error, caller, "recvcounts");
  const int* displacements = per_neighbor(displs, in, bounds.error, caller, "displs");
  const MPI_Datatype type = contiguous_bytes(b.element_size);
  return {comm, AllgathervArgs{b.send, count, type, b.recv, counts, displacements, type}, std::move(bounds)};
}

NeighborCall typed_alltoall(MPI_Comm comm, const TypedBuffers& b) {
  const char* caller = AlltoallArgs::kName;
  TypedBounds bounds = bounds_of(b);
  const NeighborDegrees degrees = neighbor_degrees(comm);
  const int send_count = per_slot(b.send_count, degrees.outdegree, bounds.error, caller, "send");
  const int recv_count = per_slot(b.recv_count, degrees.indegree, bounds.error, caller, "recv");
  const MPI_Datatype type = contiguous_bytes(b.element_size);
  return {comm, AlltoallArgs{b.send, send_count, type, b.recv, recv_count, type}, std::move(bounds)};
}

NeighborCall typed_alltoallv(MPI_Comm comm, const TypedBuffers& b, std::span<const int> sendcounts,
                             std::span<const int> sdispls, std::span<const int> recvcounts,
                             std::span<const int> rdispls) {
  const char* caller = AlltoallvArgs::kName;
  TypedBounds bounds = bounds_of(b);
  const NeighborDegrees degrees = neighbor_degrees(comm);
  const int* scounts = per_neighbor(sendcounts, degrees.outdegree, bounds.error, caller, "sendcounts");
  const int* sdisps = per_neighbor(sdispls, degrees.outdegree, bounds.error, caller, "sdispls");
  const int* rcounts = per_neighbor(recvcounts, degrees.indegree, bounds.error, caller, "recvcounts");
  const int* rdisps = per_neighbor(rdispls, degrees.indegree, bounds.error, caller, "rdispls");
  const MPI_Datatype type = contiguous_bytes(b.element_size);
  return {comm, AlltoallvArgs{b.send, scounts, sdisps, type, b.recv, rcounts, rdisps, type}, std::move(bounds)};
}

NeighborCall typed_alltoallw(MPI_Comm comm, const TypedBuffers& b, std::span<const int> sendcounts,
                             std::span<const MPI_Aint> sdispls, std::span<const MPI_Datatype> sendtypes,
                             std::span<const int> recvcounts, std::span<const MPI_Aint> rdispls,
                             std::span<const MPI_Datatype> recvtypes) {
  const char* caller = AlltoallwArgs::kName;
  TypedBounds bounds = bounds_of(b);
  const NeighborDegrees degrees = neighbor_degrees(comm);
  const int* scounts = per_neighbor(sendcounts, degrees.outdegree, bounds.error, caller, "sendcounts");
  const MPI_Aint* sdisps = per_neighbor(sdispls, degrees.outdegree, bounds.error, caller, "sdispls");
  const MPI_Datatype* stypes = per_neighbor(sendtypes, degrees.outdegree, bounds.error, caller, "sendtypes");
  const int* rcounts = per_neighbor(recvcounts, degrees.indegree, bounds.error, caller, "recvcounts");
  const MPI_Aint* rdisps = per_neighbor(rdispls, degrees.indegree, bounds.error, caller, "rdispls");
  const MPI_Datatype* rtypes = per_neighbor(recvtypes, degrees.indegree, bounds.error, caller, "recvtypes");
  return {comm, AlltoallwArgs{b.send, scounts, sdisps, stypes, b.recv, rcounts, rdisps, rtypes}, std::move(bounds)};
}

}  // namespace distopo::detail
