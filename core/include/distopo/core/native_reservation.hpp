#pragma once
// Memory held for MPICH's copy of a topology (the native mirror) from before
// a constructor's agreement step until the copy is made. MPICH's
// constructors (PMPI_Dist_graph_create_adjacent, PMPI_Graph_create) allocate
// their lists after every rank has agreed that the creation succeeds; a rank
// without memory for them would fail there alone while the others return a
// communicator. Taking the same amount before the agreement moves that
// failure into the agreement, which every rank sees; releasing it right
// before MPICH's call hands the address space back for MPICH's allocations.
#include <cstddef>
#include <cstdint>
#include <memory>

namespace distopo {

class NativeReservation {
 public:
  // What MPICH allocates besides the lists (the new communicator's own
  // objects), so that they do not fail either.
  static constexpr std::size_t kMpichOverhead = std::size_t{256} << 10;

  // Room for `ints` ints of MPICH's copy. Throws std::bad_alloc. The memory
  // is never touched: it costs address space, not pages. Nothing without a
  // mirror (DISTOPO_NATIVE_TOPOLOGY off).
  void reserve([[maybe_unused]] std::uint64_t ints) {
#if DISTOPO_NATIVE_TOPOLOGY
    const std::size_t bytes = static_cast<std::size_t>(ints) * sizeof(int) + kMpichOverhead;
    if (bytes <= bytes_) return;
    release();  // the old room goes before the larger one is taken
    held_.reset(new std::byte[bytes]);
    bytes_ = bytes;
#endif
  }

  // Right before MPICH's constructor.
  void release() noexcept {
    held_.reset();
    bytes_ = 0;
  }

 private:
  std::unique_ptr<std::byte[]> held_;
  std::size_t bytes_ = 0;
};

}  // namespace distopo
