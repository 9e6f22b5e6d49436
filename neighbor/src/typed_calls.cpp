// The typed front's five operations: ranges translated into the standard's
// arguments (counts in elements of a contiguous byte type), plus the buffer
// sizes the engine checks every block against.
#include <optional>

#include "argument_checks.hpp"
#include "distopo/core/element_type.hpp"
#include "distopo/neighbor.hpp"
#include "engine.hpp"

namespace distopo::detail {
namespace {

// One translation: the first problem found goes to bounds.error (arguments
// are read in order: braced initializers evaluate left to right), degrees are
// read once when needed.
class Translation {
 public:
  Translation(MPI_Comm comm, const char* caller, const NeighborRanges& buffers)
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

NeighborCall translate_allgather(MPI_Comm comm, const NeighborRanges& b) {
  Translation t(comm, AllgatherArgs::kName, b);
  const MPI_Count count = t.count(b.send_count, "send");
  return std::move(t).call(AllgatherArgs{b.send, count, t.type(), b.recv, count, t.type()});
}

NeighborCall translate_allgatherv(MPI_Comm comm, const NeighborRanges& b, std::span<const int> recvcounts,
                                  std::span<const int> displs) {
  Translation t(comm, AllgathervArgs::kName, b);
  t.degrees();  // a bad communicator is reported before any argument
  return std::move(t).call(AllgathervArgs{b.send, t.count(b.send_count, "send"), t.type(), b.recv,
                                          t.in(recvcounts, "recvcounts"), t.in(displs, "displs"), t.type()});
}

NeighborCall translate_alltoall(MPI_Comm comm, const NeighborRanges& b) {
  Translation t(comm, AlltoallArgs::kName, b);
  return std::move(t).call(AlltoallArgs{b.send, t.out_slot(b.send_count, "send"), t.type(), b.recv,
                                        t.in_slot(b.recv_count, "recv"), t.type()});
}

NeighborCall translate_alltoallv(MPI_Comm comm, const NeighborRanges& b, std::span<const int> sendcounts,
                                 std::span<const int> sdispls, std::span<const int> recvcounts,
                                 std::span<const int> rdispls) {
  Translation t(comm, AlltoallvArgs::kName, b);
  return std::move(t).call(AlltoallvArgs{b.send, t.out(sendcounts, "sendcounts"), t.out(sdispls, "sdispls"), t.type(),
                                         b.recv, t.in(recvcounts, "recvcounts"), t.in(rdispls, "rdispls"), t.type()});
}

NeighborCall translate_alltoallw(MPI_Comm comm, const NeighborRanges& b, std::span<const int> sendcounts,
                                 std::span<const MPI_Aint> sdispls, std::span<const MPI_Datatype> sendtypes,
                                 std::span<const int> recvcounts, std::span<const MPI_Aint> rdispls,
                                 std::span<const MPI_Datatype> recvtypes) {
  Translation t(comm, AlltoallwArgs::kName, b);
  return std::move(t).call(AlltoallwArgs{b.send, t.out(sendcounts, "sendcounts"), t.out(sdispls, "sdispls"),
                                         t.out(sendtypes, "sendtypes"), b.recv, t.in(recvcounts, "recvcounts"),
                                         t.in(rdispls, "rdispls"), t.in(recvtypes, "recvtypes")});
}

}  // namespace distopo::detail

namespace distopo {
namespace {

detail::NeighborCall translated(const TypedNeighborCall::Parts& c) {
  switch (c.operation) {
    case TypedNeighborCall::Operation::allgather:
      return detail::translate_allgather(c.comm, c.buffers);
    case TypedNeighborCall::Operation::allgatherv:
      return detail::translate_allgatherv(c.comm, c.buffers, c.recvcounts, c.rdispls);
    case TypedNeighborCall::Operation::alltoall:
      return detail::translate_alltoall(c.comm, c.buffers);
    case TypedNeighborCall::Operation::alltoallv:
      return detail::translate_alltoallv(c.comm, c.buffers, c.sendcounts, c.sdispls, c.recvcounts, c.rdispls);
    default:
      return detail::translate_alltoallw(c.comm, c.buffers, c.sendcounts, c.sdispls_bytes, c.sendtypes, c.recvcounts,
                                         c.rdispls_bytes, c.recvtypes);
  }
}

}  // namespace

TypedNeighborCall TypedNeighborCall::allgather(MPI_Comm comm, const NeighborRanges& buffers) {
  return TypedNeighborCall({comm, Operation::allgather, buffers});
}
TypedNeighborCall TypedNeighborCall::allgatherv(MPI_Comm comm, const NeighborRanges& buffers,
                                                std::span<const int> recvcounts, std::span<const int> displs) {
  Parts p{comm, Operation::allgatherv, buffers};
  p.recvcounts = recvcounts;
  p.rdispls = displs;
  return TypedNeighborCall(p);
}
TypedNeighborCall TypedNeighborCall::alltoall(MPI_Comm comm, const NeighborRanges& buffers) {
  return TypedNeighborCall({comm, Operation::alltoall, buffers});
}
TypedNeighborCall TypedNeighborCall::alltoallv(MPI_Comm comm, const NeighborRanges& buffers,
                                               std::span<const int> sendcounts, std::span<const int> sdispls,
                                               std::span<const int> recvcounts, std::span<const int> rdispls) {
  Parts p{comm, Operation::alltoallv, buffers};
  p.sendcounts = sendcounts;
  p.sdispls = sdispls;
  p.recvcounts = recvcounts;
  p.rdispls = rdispls;
  return TypedNeighborCall(p);
}
TypedNeighborCall TypedNeighborCall::alltoallw(MPI_Comm comm, const NeighborRanges& buffers,
                                               std::span<const int> sendcounts, std::span<const MPI_Aint> sdispls,
                                               std::span<const MPI_Datatype> sendtypes, std::span<const int> recvcounts,
                                               std::span<const MPI_Aint> rdispls,
                                               std::span<const MPI_Datatype> recvtypes) {
  Parts p{comm, Operation::alltoallw, buffers};
  p.sendcounts = sendcounts;
  p.sdispls_bytes = sdispls;
  p.sendtypes = sendtypes;
  p.recvcounts = recvcounts;
  p.rdispls_bytes = rdispls;
  p.recvtypes = recvtypes;
  return TypedNeighborCall(p);
}

void TypedNeighborCall::run() const { translated(parts_).run(); }
MPI_Request TypedNeighborCall::start() const { return translated(parts_).start(); }
PersistentRequest TypedNeighborCall::init() const { return translated(parts_).init(); }

}  // namespace distopo
