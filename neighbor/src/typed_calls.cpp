// The typed front's five operations: ranges translated into the standard's
// arguments (counts in elements of a contiguous byte type), plus the buffer
// sizes the engine checks every block against.
#include <optional>

#include "argument_checks.hpp"
#include "distopo/core/element_type.hpp"
#include "distopo/neighbor.hpp"

namespace distopo::detail {
namespace {

// One translation: the first problem found goes to bounds.error (arguments
// are read in order: braced initializers evaluate left to right), degrees are
// read once when needed.
class Translation {
 public:
  Translation(MPI_Comm comm, const char* caller, const TypedBuffers& buffers)
      : comm_(comm),
        caller_(caller),
        bounds_{buffers.send_count * buffers.element_size, buffers.recv_count * buffers.element_size, std::nullopt},
        type_(contiguous_bytes(buffers.element_size)) {}

  [[nodiscard]] MPI_Datatype type() const { return type_; }
  MPI_Count count(std::size_t elements, const char* what) {
    return element_count(elements, bounds_.error, caller_, what);
  }
  MPI_Count out_slot(std::size_t elements, const char* what) {
    return per_slot(elements, degrees().outdegree, bounds_.error, caller_, what);
  }
  MPI_Count in_slot(std::size_t elements, const char* what) {
    return per_slot(elements, degrees().indegree, bounds_.error, caller_, what);
  }
  template <class A>
  const A* out(std::span<const A> values, const char* what) {
    return per_neighbor(values, degrees().outdegree, bounds_.error, caller_, what);
  }
  template <class A>
  const A* in(std::span<const A> values, const char* what) {
    return per_neighbor(values, degrees().indegree, bounds_.error, caller_, what);
  }
  NeighborCall call(const NeighborArgs& args) && { return {comm_, args, std::move(bounds_)}; }

  NeighborDegrees degrees() {
    if (!degrees_) degrees_ = neighbor_degrees(comm_);
    return *degrees_;
  }

 private:
  MPI_Comm comm_;
  const char* caller_;
  TypedBounds bounds_;
  MPI_Datatype type_;
  std::optional<NeighborDegrees> degrees_;
};

}  // namespace

NeighborCall typed_allgather(MPI_Comm comm, const TypedBuffers& b) {
  Translation t(comm, AllgatherArgs::kName, b);
  const MPI_Count count = t.count(b.send_count, "send");
  return std::move(t).call(AllgatherArgs{b.send, count, t.type(), b.recv, count, t.type()});
}

NeighborCall typed_allgatherv(MPI_Comm comm, const TypedBuffers& b, std::span<const int> recvcounts,
                              std::span<const int> displs) {
  Translation t(comm, AllgathervArgs::kName, b);
  t.degrees();  // a bad communicator is reported before any argument
  return std::move(t).call(AllgathervArgs{b.send, t.count(b.send_count, "send"), t.type(), b.recv,
                                          t.in(recvcounts, "recvcounts"), t.in(displs, "displs"), t.type()});
}

NeighborCall typed_alltoall(MPI_Comm comm, const TypedBuffers& b) {
  Translation t(comm, AlltoallArgs::kName, b);
  return std::move(t).call(AlltoallArgs{b.send, t.out_slot(b.send_count, "send"), t.type(), b.recv,
                                        t.in_slot(b.recv_count, "recv"), t.type()});
}

NeighborCall typed_alltoallv(MPI_Comm comm, const TypedBuffers& b, std::span<const int> sendcounts,
                             std::span<const int> sdispls, std::span<const int> recvcounts,
                             std::span<const int> rdispls) {
  Translation t(comm, AlltoallvArgs::kName, b);
  return std::move(t).call(AlltoallvArgs{b.send, t.out(sendcounts, "sendcounts"), t.out(sdispls, "sdispls"), t.type(),
                                         b.recv, t.in(recvcounts, "recvcounts"), t.in(rdispls, "rdispls"), t.type()});
}

NeighborCall typed_alltoallw(MPI_Comm comm, const TypedBuffers& b, std::span<const int> sendcounts,
                             std::span<const MPI_Aint> sdispls, std::span<const MPI_Datatype> sendtypes,
                             std::span<const int> recvcounts, std::span<const MPI_Aint> rdispls,
                             std::span<const MPI_Datatype> recvtypes) {
  Translation t(comm, AlltoallwArgs::kName, b);
  return std::move(t).call(AlltoallwArgs{b.send, t.out(sendcounts, "sendcounts"), t.out(sdispls, "sdispls"),
                                         t.out(sendtypes, "sendtypes"), b.recv, t.in(recvcounts, "recvcounts"),
                                         t.in(rdispls, "rdispls"), t.in(recvtypes, "recvtypes")});
}

}  // namespace distopo::detail
