#pragma once
// Memory held for MPICH's copy of a topology (the native mirror) from before
// a constructor's agreement step until the copy is made. MPICH's
// constructors (PMPI_Dist_graph_create_adjacent, PMPI_Graph_create) allocate
// their lists after every rank has agreed that the creation succeeds; a rank
// without memory for them would fail there alone while the others return a
// communicator. Taking the same amount before the agreement moves that
// failure into the agreement, which every rank sees; releasing it right
// before MPICH's call hands the address space back for MPICH's allocations.
//
// The room is an anonymous writable mapping that is never touched: it is
// charged where malloc's memory is (the address-space limit, the kernel's
// commit accounting) but costs no pages, and it is not heap.
#include <cstddef>
#include <cstdint>

namespace distopo {

class NativeReservation {
 public:
  // What MPICH allocates besides the lists (the new communicator's own
  // objects), so that they do not fail either.
  static constexpr std::size_t kMpichOverhead = std::size_t{256} << 10;

  NativeReservation() = default;
  NativeReservation(NativeReservation&& other) noexcept;
  NativeReservation& operator=(NativeReservation&& other) noexcept;
  ~NativeReservation() { release(); }

  // Lists below this many ints are not reserved for: MPICH's copy of them
  // is no larger than what any MPI call may allocate, and a mapping and its
  // release cost two system calls per create, a large share of a small one.
  static constexpr std::uint64_t kMinReservedInts = std::uint64_t{1} << 16;

  // Room for `ints` ints of MPICH's copy, plus kMpichOverhead; throws
  // std::bad_alloc if the system refuses it. Nothing below kMinReservedInts
  // or without a mirror (DISTOPO_NATIVE_TOPOLOGY off).
  void reserve(std::uint64_t ints);

  // Right before MPICH's constructor.
  void release() noexcept;

 private:
  void* held_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace distopo
